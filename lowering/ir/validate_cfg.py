"""Checks of the CFG form (Function.blocks + br/cbr/switch/ret/unreachable), as the front end produces it.

The structurizer trusts its input, so the front end's output is checked here: block structure, edges,
phi/predecessor agreement, SSA use-before-definition within a block, and operand types of the opcodes
whose types are fixed. Returns readable problems instead of raising, so tests can show all of them.
"""
from __future__ import annotations

from lowering.deepstack import depth_independent
from lowering.ir.core import Arg, Block, Const, Function, Instr, Phi, Undef, Value
from lowering.ir.opcodes import (
    FCMP_PREDICATES,
    ICMP_PREDICATES,
    MATH_FUNCTIONS,
    OPCODES,
    WORKITEM_FUNCTIONS,
)
from lowering.ir.types import I1, I64, VOID

_CFG_TERMINATORS = ("br", "cbr", "switch", "ret", "unreachable")
_N_TARGETS = {"br": 1, "cbr": 2, "ret": 0, "unreachable": 0}


@depth_independent
def validate_cfg(func: Function) -> list[str]:
    problems: list[str] = []
    if func.is_structured:
        return [f"{func.name}: function is in structured form"]
    if not func.blocks:
        return [f"{func.name}: no blocks"]
    func.update_cfg()
    blocks = func.blocks
    block_ids = {id(b) for b in blocks}
    if len(block_ids) != len(blocks):
        problems.append("a block is listed twice")
    owner: dict[int, Block] = {}
    defined: set[int] = {id(a) for a in func.args}
    for b in blocks:
        for ins in b.instrs:
            if id(ins) in owner:
                problems.append(f"{_where(b, ins)}: instruction also in {owner[id(ins)]}")
            owner[id(ins)] = b
            defined.add(id(ins))
    if blocks[0].preds:
        problems.append(f"entry {blocks[0]} has predecessors {blocks[0].preds}")
    for b in blocks:
        problems += _check_block(func, b, block_ids, defined)
    return problems


def _where(b: Block, ins: Instr | None = None) -> str:
    return f"{b}" + (f" {ins.opcode} {ins.name}".rstrip() if ins is not None else "")


def _check_block(func: Function, b: Block, block_ids: set[int], defined: set[int]) -> list[str]:
    out: list[str] = []
    if not b.instrs:
        return [f"{b}: empty block"]
    term = b.instrs[-1]
    if term.opcode not in _CFG_TERMINATORS:
        out.append(f"{_where(b, term)}: block does not end in a terminator")
    seen_non_phi = False
    local_defs: set[int] = set()
    for i, ins in enumerate(b.instrs):
        w = _where(b, ins)
        if ins.block is not b:
            out.append(f"{w}: instruction's block field is {ins.block}")
        if ins.opcode not in OPCODES:
            out.append(f"{w}: unknown opcode")
            continue
        if ins.opcode in _CFG_TERMINATORS and i != len(b.instrs) - 1:
            out.append(f"{w}: terminator in the middle of the block")
        if ins.opcode in ("break", "continue", "return", "var_load", "var_store"):
            out.append(f"{w}: structured-form opcode in CFG form")
        if isinstance(ins, Phi):
            if seen_non_phi:
                out.append(f"{w}: phi after a non-phi instruction")
            out += _check_phi(b, ins, defined)
        else:
            seen_non_phi = True
            for o in ins.operands:
                if isinstance(o, Instr) and o.block is b and id(o) not in local_defs and not isinstance(o, Phi):
                    out.append(f"{w}: uses {o!r} before its definition in the block")
                out += _check_operand(w, o, defined)
            out += _check_types(w, ins)
        local_defs.add(id(ins))
        if ins.targets and ins.opcode not in _CFG_TERMINATORS:
            out.append(f"{w}: non-terminator has targets")
        for t in ins.targets:
            if id(t) not in block_ids:
                out.append(f"{w}: target {t} is not a block of the function")
    if term.opcode in _N_TARGETS and len(term.targets) != _N_TARGETS[term.opcode]:
        out.append(f"{_where(b, term)}: {len(term.targets)} targets")
    if term.opcode == "cbr" and len(term.targets) == 2 and term.targets[0] is term.targets[1]:
        out.append(f"{_where(b, term)}: both targets are the same block (use br)")
    if term.opcode == "cbr" and term.operands and term.operands[0].type != I1:
        out.append(f"{_where(b, term)}: condition is {term.operands[0].type}, not i1")
    if term.opcode == "switch":
        if term.operands and not term.operands[0].type.is_int:
            out.append(f"{_where(b, term)}: switch on {term.operands[0].type}")
        cases = term.attrs.get("cases")
        if cases is None or len(cases) + 1 != len(term.targets):
            out.append(f"{_where(b, term)}: {len(term.targets)} targets for cases {cases}")
        elif len(set(cases)) != len(cases):
            out.append(f"{_where(b, term)}: duplicate case values {cases}")
    if term.opcode == "ret":
        want = [] if func.return_type == VOID else [func.return_type]
        if [o.type for o in term.operands] != want:
            out.append(f"{_where(b, term)}: returns {[str(o.type) for o in term.operands]}, function returns "
                       f"{func.return_type}")
    return out


def _check_operand(w: str, o: Value, defined: set[int]) -> list[str]:
    if isinstance(o, (Const, Undef)):
        return []
    if isinstance(o, (Instr, Arg)):
        return [] if id(o) in defined else [f"{w}: operand {o!r} is not defined in the function"]
    return [f"{w}: operand {o!r} is not a value of the IR"]


def _check_phi(b: Block, phi: Phi, defined: set[int]) -> list[str]:
    w = _where(b, phi)
    out = []
    if len(phi.blocks) != len(phi.operands):
        out.append(f"{w}: {len(phi.blocks)} blocks for {len(phi.operands)} values")
    ids = [id(x) for x in phi.blocks]
    if len(set(ids)) != len(ids):
        out.append(f"{w}: a predecessor is listed twice")
    if set(ids) != {id(p) for p in b.preds} or len(ids) != len(b.preds):
        out.append(f"{w}: incoming blocks {phi.blocks} are not the predecessors {b.preds}")
    for o in phi.operands:
        out += _check_operand(w, o, defined)
        if o.type != phi.type:
            out.append(f"{w}: incoming {o.type} for a {phi.type} phi")
    return out


def _check_types(w: str, ins: Instr) -> list[str]:
    op, ops, t = ins.opcode, ins.operands, ins.type
    spec = OPCODES[op]
    out = []
    if spec.n_operands >= 0 and len(ops) != spec.n_operands:
        return [f"{w}: {len(ops)} operands, {op} takes {spec.n_operands}"]
    types = [o.type for o in ops]
    if spec.kind in ("int", "float") and op != "math":
        if any(x != t for x in types):
            out.append(f"{w}: operand types {[str(x) for x in types]} for result {t}")
        if spec.kind == "int" and not t.is_int:
            out.append(f"{w}: integer operation on {t}")
        if spec.kind == "float" and not t.is_float:
            out.append(f"{w}: float operation on {t}")
    elif op == "math":
        if ins.attrs.get("fn") not in MATH_FUNCTIONS:
            out.append(f"{w}: unknown math function {ins.attrs.get('fn')!r}")
        if not t.is_float or not ops or ops[0].type != t:
            out.append(f"{w}: math on {[str(x) for x in types]} -> {t}")
    elif op in ("icmp", "fcmp"):
        preds = ICMP_PREDICATES if op == "icmp" else FCMP_PREDICATES
        if ins.attrs.get("pred") not in preds:
            out.append(f"{w}: bad predicate {ins.attrs.get('pred')!r}")
        if t != I1 or types[0] != types[1]:
            out.append(f"{w}: compares {[str(x) for x in types]} -> {t}")
        if op == "fcmp" and not types[0].is_float:
            out.append(f"{w}: fcmp on {types[0]}")
    elif op == "select":
        if types[0] != I1 or types[1] != t or types[2] != t:
            out.append(f"{w}: select {[str(x) for x in types]} -> {t}")
    elif op in ("load",):
        if not types[0].is_ptr or t == VOID:
            out.append(f"{w}: load {t} from {types[0]}")
    elif op == "store":
        if not types[1].is_ptr:
            out.append(f"{w}: store to {types[1]}")
    elif op == "ptradd":
        if not types[0].is_ptr or types[1] != I64 or t != types[0]:
            out.append(f"{w}: ptradd {[str(x) for x in types]} -> {t}")
    elif op in ("alloca", "global_addr"):
        if not t.is_ptr:
            out.append(f"{w}: {op} result {t}")
        if op == "alloca" and not isinstance(ins.attrs.get("size"), int):
            out.append(f"{w}: alloca without a size")
        if op == "global_addr" and not ins.attrs.get("symbol"):
            out.append(f"{w}: global_addr without a symbol")
    elif op == "workitem":
        if ins.attrs.get("fn") not in WORKITEM_FUNCTIONS:
            out.append(f"{w}: unknown work-item function {ins.attrs.get('fn')!r}")
    elif op in ("trunc", "zext", "sext") and not (types[0].is_int and t.is_int):
        out.append(f"{w}: {op} {types[0]} -> {t}")
    elif op in ("fptrunc", "fpext") and not (types[0].is_float and t.is_float):
        out.append(f"{w}: {op} {types[0]} -> {t}")
    elif op == "bitcast" and types[0].bits != t.bits:
        out.append(f"{w}: bitcast {types[0]} -> {t} changes size")
    return out
