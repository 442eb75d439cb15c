"""Local common-subexpression elimination on the machine IR: within a block, an instruction that computes
what an earlier one already did (same opcode, width, sources and modifiers) is dropped and its value's
readers read the earlier one (local value numbering: Cooper and Torczon, "Engineering a Compiler", 8.4.1;
brw's opt_cse does the same on Mesa's IR).

Only where that is plainly right: both values are written exactly once in the function (a phi's
register, written on several edges, is not a value to share), every register source too (so it holds
the same bits at both places), neither is predicated nor writes a flag, and both write the whole value.
A block runs under one execution mask, so the two compute the same lanes. Likewise a compare into the
null register whose flag still holds the same compare's result (flags are written only by conditional
modifiers) is dropped. O(instructions).
"""
from __future__ import annotations

import struct

from .mir import BRANCHES, SENDS, Imm, MFunction, MInstr, Operand, PReg, VReg, register_counts


def eliminate_common_subexpressions(func: MFunction, counts: tuple[dict[int, int], dict[int, int]] | None = None) \
        -> int:
    """Rewrite `func` in place; returns how many instructions were dropped. `counts`: func's register_counts
    where the caller has them, kept true of the function as rewritten (mir_coalesce then reads them)."""
    writes, reads = register_counts(func) if counts is None else counts
    rename: dict[int, int] = {}
    dropped = 0
    for block in func.blocks:
        seen: dict[tuple, int] = {}
        flags: dict[tuple[int, int], tuple] = {}      # flag -> the compare whose result it holds
        out: list[MInstr] = []
        for ins in block.instrs:
            if rename and _reads_renamed(ins, rename):
                ins.srcs = _renamed_sources(ins.srcs, rename, reads)
            if ins.cond_mod is not None:
                test = _flag_key(ins, writes)
                if test is not None and flags.get(ins.flag) == test:
                    dropped += 1                      # the flag holds this compare's result already
                    _forget_reads(ins, reads)
                    continue
                if test is None:
                    flags.pop(ins.flag, None)
                else:
                    flags[ins.flag] = test
                out.append(ins)                       # (_key's answer for a compare: None)
                continue
            key = _key(ins, writes) if ins.dst is not None and ins.predicate is None else None
            if key is not None:
                assert ins.dst is not None and isinstance(ins.dst.value, VReg)
                earlier = seen.get(key)
                if earlier is not None:
                    rename[ins.dst.value.id] = earlier
                    dropped += 1
                    _forget_reads(ins, reads)
                    continue
                seen[key] = ins.dst.value.id
            out.append(ins)
        block.instrs = out
    if rename:                               # readers in earlier blocks (a loop's back edge) too
        for block in func.blocks:
            for ins in block.instrs:
                if _reads_renamed(ins, rename):
                    ins.srcs = _renamed_sources(ins.srcs, rename, reads)
        for vid in rename:                   # a dropped instruction's register: written no more
            writes[vid] -= 1
    return dropped


_NOT_SHARED = frozenset((*BRANCHES, *SENDS, "wait", "nop"))      # (one set: _key asks it of every instruction)


def _key(ins: MInstr, writes: dict[int, int]) -> tuple | None:
    """What identifies the value `ins` computes, or None where it may not be shared."""
    if ins.opcode in _NOT_SHARED or ins.eot:
        return None
    if ins.predicate is not None or ins.cond_mod is not None or ins.dst is None:
        return None
    dst = ins.dst
    v = dst.value
    if type(v) is not VReg or dst.offset or dst.region is not None or writes.get(v.id) != 1:
        return None
    sources = _sources(ins.srcs, writes)
    if sources is None:
        return None
    return (ins.opcode, ins.exec_size, ins.no_mask, ins.math_fc, v.type, v.uniform, v.count, sources)


def _sources(srcs: list[Operand], writes: dict[int, int]) -> tuple | None:
    """The sources' part of a _key, or None where a register source is written other than once."""
    sources = []
    for s in srcs:
        v = s.value
        if type(v) is VReg:                       # (VReg and Imm have no subclasses)
            if writes.get(v.id, 0) != 1:
                return None
            ident: tuple = ("v", v.id, v.type, v.uniform, v.count)
        elif type(v) is Imm:
            ident = ("i", v.type, _bits(v.value))
        else:                                     # (a PReg's fields: hashing the record is a Python call)
            assert isinstance(v, PReg)
            ident = ("p", v.reg, v.subreg, v.type)
        r = s.region
        sources.append((ident, s.offset, None if r is None else (r.vstride, r.width, r.hstride), s.neg, s.abs))
    return tuple(sources)


def _bits(value: int | float) -> int | bytes:
    """An immediate's identity: a float by its encoding, since 0.0 == -0.0 in Python (sharing `mov 0.0`
    with `mov -0.0` gave `c ? 0.0 : -1.0` the wrong zero: fuzz convergence-40760) and NaN != NaN."""
    return struct.pack("<d", value) if isinstance(value, float) else value


def _flag_key(ins: MInstr, writes: dict[int, int]) -> tuple | None:
    """What identifies the flag a compare into the null register writes (sources written once, no
    predicate), or None: another compare of the same sources into the same flag, with no other write
    of that flag between (the caller tracks that), is no instruction (two selects on one condition).
    The compare's _key as if it wrote a fresh per-lane value of its first source's type, written once
    (made without that stand-in instruction: one was made for every compare)."""
    if ins.opcode != "cmp" or ins.dst is not None or ins.predicate is not None:
        return None
    sources = _sources(ins.srcs, writes)
    if sources is None:
        return None
    return (("cmp", ins.exec_size, ins.no_mask, None, ins.srcs[0].value.type, False, 1, sources), ins.cond_mod,
            ins.flag)


def _reads_renamed(ins: MInstr, rename: dict[int, int]) -> bool:
    """Whether a source of `ins` reads a renamed value (most do not: their source lists stay as they are)."""
    for s in ins.srcs:                            # (a loop: no generator made per instruction)
        if type(s.value) is VReg and s.value.id in rename:
            return True
    return False


def _renamed_sources(srcs: list[Operand], rename: dict[int, int], reads: dict[int, int]) -> list[Operand]:
    """The sources with renamed registers read as their earlier equals; `reads` moved with them."""
    for s in srcs:
        v = s.value
        if type(v) is VReg and v.id in rename:
            reads[v.id] -= 1
            earlier = rename[v.id]
            reads[earlier] = reads.get(earlier, 0) + 1
    return [_renamed(s, rename) for s in srcs]


def _forget_reads(ins: MInstr, reads: dict[int, int]) -> None:
    """A dropped instruction's reads, taken off the counts."""
    for s in ins.srcs:
        if type(s.value) is VReg:
            reads[s.value.id] -= 1


def _renamed(op: Operand, rename: dict[int, int]) -> Operand:
    v = op.value
    if not isinstance(v, VReg) or v.id not in rename:
        return op
    return Operand(VReg(rename[v.id], v.type, v.uniform, v.count), op.offset, op.region, op.neg, op.abs)
