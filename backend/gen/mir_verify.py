"""The machine IR's rules, checked after every machine pass (tests; --verify-each). Returns problems in
words, like the IR's validator:

- values: every virtual register an instruction reads or writes is one of the function's (read, maybe,
  as another type of its bytes, as a region on hardware would);
- opcodes (isa/gen9/opcodes.py): a Gen9 opcode with as many sources as it takes and a conditional
  modifier only where it has one; integer-only and float-only opcodes keep to their class, add/mul/mac
  do not mix the two; a compare has a conditional modifier, math has a function, a send has an SFID and
  a descriptor;
- execution size: 1, 2, 4, 8 or 16, and the function's SIMD width unless the instruction is scalar (1)
  or runs on all channels (NoMask: the sub-group code's moves of one GRF of 64-bit elements, four);
- regions: no operand reads or writes past the end of its virtual register;
- flags: a conditional modifier or predicate names f0.0, f0.1, f1.0 or f1.1;
- control flow: branch targets are blocks of the function; only the last instruction of a block
  branches; the last block ends the thread with an EOT send, which nothing follows;
- immediates: only as the last source, and a 64-bit one only as a lone source (what legalize.py makes
  of what selection wrote).
"""
from __future__ import annotations

from reconverge.isa.gen9 import opcodes
from reconverge.isa.gen9.fields import COND_MOD
from reconverge.isa.gen9.model import DataType

from .legalize import illegal_immediates
from .mir import BRANCHES, FLAGS, SENDS, MFunction, MInstr, Operand, VReg

# sets, not tuples: each is asked of every instruction of every kernel compiled
FLOAT_TYPES = frozenset((DataType.F, DataType.HF, DataType.DF))
INT_ONLY = frozenset(opcodes.INT_ONLY)   # the opcode table's operand classes
FLOAT_ONLY = frozenset(opcodes.FLOAT_ONLY)
# The selector's own rule (not the hardware's, which converts any result to the destination type): these
# keep integers and floats apart; a conversion is a mov.
SAME_CLASS = frozenset(("add", "mul", "mac"))
COND_MODS = frozenset(COND_MOD)
_BRANCHES, _SENDS, _FLAGS = frozenset(BRANCHES), frozenset(SENDS), frozenset(FLAGS)
_NEED_TARGET = frozenset(("jmpi", "if", "else", "halt"))
_TYPED = INT_ONLY | FLOAT_ONLY | SAME_CLASS      # the opcodes whose operand types have a rule here


def verify(func: MFunction) -> list[str]:
    problems: list[str] = []
    labels = {b.label for b in func.blocks}
    if not func.blocks:
        return [f"{func.name}: no blocks"]
    for bi, b in enumerate(func.blocks):
        for i, ins in enumerate(b.instrs):
            found = _instruction(func, ins, labels)
            if ins.opcode in _BRANCHES and i != len(b.instrs) - 1:
                found.append("a branch must end its block")
            if ins.eot and (i != len(b.instrs) - 1 or bi != len(func.blocks) - 1):
                found.append("nothing may follow the end of the thread (EOT)")
            if found:                         # (the place is spelled out only for a problem)
                where = f"{func.name}: {b.label}, instruction {i} ({ins.opcode})"
                problems += [f"{where}: {p}" for p in found]
    last = func.blocks[-1].instrs[-1] if func.blocks[-1].instrs else None
    if last is None or not last.eot:
        problems.append(f"{func.name}: the last block must end the thread with an EOT send")
    return problems


def _instruction(func: MFunction, ins: MInstr, labels: set[str]) -> list[str]:
    out: list[str] = []
    operands = ins.srcs if ins.dst is None else [ins.dst, *ins.srcs]
    vregs, simd = func.vregs, func.simd
    for op in operands:
        v = op.value
        if type(v) is VReg:
            base = vregs.get(v.id)
            if base is None or base.uniform != v.uniform:
                out.append(f"{v} is not a register of this function")
            else:                             # a view of it as another type (:q read as :ud) is allowed
                problem = _region(ins, op, v, base.type.size * (1 if base.uniform else simd) * base.count)
                if problem is not None:       # (base.size(simd), inline: asked of every operand)
                    out.append(problem)
    if ins.exec_size not in (1, 2, 4, 8, 16):
        out.append(f"execution size {ins.exec_size} (1, 2, 4, 8 or 16)")
    elif ins.exec_size not in (1, func.simd) and not ins.no_mask:
        out.append(f"execution size {ins.exec_size} in a SIMD{func.simd} function without NoMask")
    if ins.opcode in _TYPED:
        types = [op.value.type for op in operands]
        if ins.opcode in INT_ONLY and any(t in FLOAT_TYPES for t in types):
            out.append(f"{ins.opcode} takes integers, not {', '.join(t.value for t in types)}")
        if ins.opcode in FLOAT_ONLY and any(t not in FLOAT_TYPES for t in types):
            out.append(f"{ins.opcode} takes floats, not {', '.join(t.value for t in types)}")
        if ins.opcode in SAME_CLASS and len({t in FLOAT_TYPES for t in types}) > 1:
            out.append(f"{ins.opcode} mixes integer and float operands ({', '.join(t.value for t in types)})")
    info = opcodes.lookup(ins.opcode)
    if info is None:
        out.append(f"{ins.opcode} is not a Gen9 opcode")
    elif info.alu and ins.opcode != "math" and len(ins.srcs) != info.srcs:
        out.append(f"{ins.opcode} takes {info.srcs} source{'s' if info.srcs != 1 else ''}, not {len(ins.srcs)}")
    elif ins.cond_mod is not None and info.alu and not info.cond_mod:
        out.append(f"{ins.opcode} takes no conditional modifier")
    if ins.opcode == "cmp" and ins.cond_mod not in COND_MODS:
        out.append("cmp needs a conditional modifier")
    if ins.cond_mod is not None and ins.cond_mod not in COND_MODS:
        out.append(f"unknown conditional modifier {ins.cond_mod}")
    if (ins.cond_mod is not None and ins.flag not in _FLAGS) or \
            (ins.predicate is not None and ins.predicate[:2] not in _FLAGS):
        out.append("flags are f0.0, f0.1, f1.0 and f1.1")
    if ins.opcode == "math" and not ins.math_fc:
        out.append("math needs a function")
    if ins.opcode in _SENDS and (ins.sfid is None or ins.desc is None):
        out.append("a send needs an SFID and a descriptor")
    for t in ins.targets:
        if t not in labels:
            out.append(f"branch target {t} is not a block of this function")
    if ins.opcode in _NEED_TARGET and not ins.targets:
        out.append("a branch needs a target")
    immediates = illegal_immediates(ins)
    if immediates is not None:
        out.append(immediates)
    return out


def _region(ins: MInstr, op: Operand, v: VReg, limit: int) -> str | None:
    """The bytes an operand touches stay inside its virtual register."""
    size = v.type.size
    r = op.region
    if r is not None and r.hstride == 0 and r.vstride == 0:
        lanes = 1                                     # <0;1,0>: one element, broadcast
    elif op is ins.dst or r is not None:
        lanes = ins.exec_size
    else:
        lanes = 1 if v.uniform else ins.exec_size
    stride = r.hstride if r is not None and r.hstride else 1
    end = op.offset + ((lanes - 1) * stride + 1) * size
    if op.offset < 0 or end > limit:
        return f"{v} is {limit} bytes; the operand reaches byte {end}"
    return None
