"""Uniform values in one scalar register: the structured driver's second use of the divergence analysis.

A value every active lane computes alike (lowering/analysis/divergence.py: `con`) needs one element, not
one per lane: it is computed once, on channel 0 with the mask off (`(W) op (1)`), into a uniform
virtual register that every reader sees as <0;1,0> (mir.py). Only where that is right:
- its operands are themselves scalar: constants, kernel arguments (the cross-thread data, valid
  whatever the mask) or values chosen here (a (W) instruction reads channel 0, which a disabled lane
  would have left stale in a per-lane register);
- no read of it is temporally divergent (a lane that left a divergent loop earlier needs the value of
  its own last iteration, which a later iteration would overwrite);
- it is an i32 integer operation Gen does in one instruction (add, sub, mul, and, or, xor, shifts), a
  compare of i32s or bools, and, or or xor of bools, or a phi of such values (a loop counter), so that
  no handler of the value table need know.
A compare of scalars that an if reads then sets one flag bit ((W) cmp (1)), and the if's jmpi reads
that bit (isel_structured). Chosen by a fixed point that drops a candidate when an operand is not
scalar: O(values + uses) per pass, a pass per link of the longest chain of phis that drop.
"""
from __future__ import annotations

from operator import attrgetter

from reconverge.lowering.analysis.divergence import Divergence
from reconverge.lowering.ir.core import Arg, Block, Const, Function, If, Instr, Phi, Value, cf_lists
from reconverge.lowering.ir.types import Type

from .isel_context import ICMP_MODS, SelectionContext, gen_type, negated
from .mir import Imm, Operand

ALU = {"add": "add", "sub": "add", "mul": "mul", "and": "and", "or": "or", "xor": "xor", "shl": "shl",
       "lshr": "shr", "ashr": "asr"}
COMMUTATIVE = ("add", "mul", "and", "or", "xor")
_BLOCK = attrgetter("block")


def scalar_values(func: Function, divergence: Divergence, instrs: list[Instr] | None = None) -> set[Value]:
    """The values of a tree that live in one scalar register (the module docstring's rules). The reads are
    gathered of the candidates alone (gathering every value's cost a fifth of a small kernel's prologue)."""
    instrs = list(func.instructions()) if instrs is None else instrs
    divergent = divergence.values
    # (not divergent, then the type, inline: an i1 or i32 integer; the others ask no call)
    candidates = {ins for ins in instrs if ins not in divergent and ins.type.kind == "int"
                  and (ins.type.bits == 32 or ins.type.bits == 1) and _candidate(ins)}
    if not candidates:
        return set()
    # a candidate is divergent where it is read (divergent_at) only if it is defined in a divergent loop: the
    # reads of those alone, from the analysis' index of readers where it has one
    users = divergence.users
    asked = candidates if users is None else {ins for ins in candidates if divergence.in_divergent_loop(ins)}
    reads: dict[Value, list[Block]] = {}
    if asked:
        if users is None:
            for ins in instrs:
                assert ins.block is not None
                for v in ins.operands:
                    if v in asked:
                        reads.setdefault(v, []).append(ins.block)
        else:
            for v in asked:
                found = users.get(v)
                if found:
                    reads[v] = list(map(_BLOCK, found))     # (the readers' blocks: no comprehension)
        for nodes in cf_lists(func):
            for i, node in enumerate(nodes):
                if isinstance(node, If) and node.cond in asked:
                    reads.setdefault(node.cond, []).append(nodes[i - 1])   # type: ignore[arg-type]
    chosen: set[Value] = set()
    for ins in candidates:                        # (a loop, not any() over a generator per candidate)
        for b in reads.get(ins, ()):
            if divergence.divergent_at(ins, b):
                break
        else:
            chosen.add(ins)
    changed = True
    while changed:
        changed = False
        for value in list(chosen):
            assert isinstance(value, Instr)
            for v in value.operands:              # (all() of a generator, as a loop)
                if not _scalar_operand(v, chosen):
                    chosen.discard(value)
                    changed = True
                    break
    return chosen


def _candidate(ins: Instr) -> bool:
    t = ins.type                               # I1 or I32, without the records' Python-level __eq__
    if t.kind != "int" or (t.bits != 1 and t.bits != 32) or t.addrspace:
        return False
    if isinstance(ins, Phi):
        return True
    if ins.opcode == "icmp":
        return _i1_or_i32(ins.operands[0].type)
    if t.bits == 1:                            # a bool is a 0/-1 dword: only the bitwise operations keep it one
        return ins.opcode in ("and", "or", "xor")
    return ins.opcode in ALU


def _scalar_operand(v: Value, chosen: set[Value]) -> bool:
    if isinstance(v, Const):
        return _i1_or_i32(v.type)
    if isinstance(v, Arg):
        return _i1_or_i32(v.type)
    return v in chosen


def _i1_or_i32(t: Type) -> bool:
    """t in (I1, I32), field by field (that test called the records' Python-level == on each)."""
    return t.kind == "int" and (t.bits == 1 or t.bits == 32) and not t.addrspace


def select_scalar(cx: SelectionContext, ins: Instr) -> None:
    """`ins` (one of scalar_values) once, on channel 0 with the mask off, into a uniform register."""
    op = ins.opcode
    signed = op != "lshr" and not (op == "icmp" and ins.attrs["pred"][0] == "u")
    x, y = ins.operands
    a, b = cx.operand(x, signed), cx.operand(y, signed)
    dst = cx.fresh(gen_type(ins.type, signed), uniform=True)
    if op == "icmp":
        pred = ins.attrs["pred"]
        mod = ICMP_MODS[pred[1:] if pred[0] in "su" else pred]
        cx.emit("cmp", dst, _register(cx, a), b, cond_mod=mod, flag=(0, 1), n=1, no_mask=True)
    else:
        if op == "sub":
            b = negated(b)
        if isinstance(a.value, Imm) and (op in COMMUTATIVE or op == "sub") and not isinstance(b.value, Imm):
            a, b = b, a
        cx.emit(ALU[op], dst, _register(cx, a), b, n=1, no_mask=True)
    cx.values[ins] = dst


def _register(cx: SelectionContext, op: Operand) -> Operand:
    """A first source in a register: an immediate moved into a uniform one ((W) mov (1))."""
    if not isinstance(op.value, Imm):
        return op
    reg = cx.fresh(op.type, uniform=True)
    cx.emit("mov", reg, op, n=1, no_mask=True)
    return reg

