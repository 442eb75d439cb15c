"""Copy coalescing on the machine IR: `op t = ...` then `mov x = t`, where the copy is t's only reader,
becomes `op x = ...` (the copies into a phi's register at the end of an arm, or into a loop-carried
value: IGC and brw's register coalescing give both values one register, so there is no copy).

Only where plainly right, within one block (one execution mask): t is written once and read nowhere
but between its writer and the copy (those readers then read x: a loop-carried `add t = i + 1`, a
compare of t, `mov i = t` becomes `add i = i + 1`, a compare of i); both instructions are unpredicated
(a sel, whose predicate picks a source, writes every enabled lane too), at the same width and mask
control, x and t (as the copy reads it) of one type and shape, the copy a plain one (no modifier,
region or offset); nothing between them reads or writes x, and the writer reads x, if at all, element
for element as it writes it (not, say, its channel 0 broadcast: a compressed SIMD16 instruction would
read its own first half's result). The writer keeps its own type where it could convert (`mov t:f =
i:d` read as t:d). Sends and branches are left alone. O(instructions x distance).
"""
from __future__ import annotations

from reconverge.isa.gen9.model import DataType

from .mir import BRANCHES, SENDS, MFunction, MInstr, Operand, VReg, register_counts

INTEGERS = frozenset({DataType.UB, DataType.B, DataType.UW, DataType.W, DataType.UD, DataType.D,
                      DataType.UQ, DataType.Q, DataType.V, DataType.UV})


def coalesce_copies(func: MFunction, counts: tuple[dict[int, int], dict[int, int]] | None = None) -> int:
    """Rewrite `func` in place; returns how many copies were removed. `counts`: func's register_counts,
    where the caller has them (isel.select: kept by mir_cse)."""
    writes, reads = register_counts(func) if counts is None else counts
    removed = 0
    for block in func.blocks:
        out: list[MInstr] = []
        for ins in block.instrs:
            # (_plain_copy's first tests, inline: most movs copy an immediate or a payload register)
            if ins.opcode == "mov" and type(ins.srcs[0].value) is VReg and _coalesce(ins, out, writes, reads):
                removed += 1
            else:
                out.append(ins)
        block.instrs = out
    return removed


def _plain_copy(ins: MInstr) -> tuple[VReg, VReg] | None:
    """(x, t) of `mov x = t` between whole virtual registers of one type and shape, else None."""
    if ins.opcode != "mov" or ins.predicate is not None or ins.cond_mod is not None or ins.dst is None:
        return None
    dst, src = ins.dst, ins.srcs[0]
    if not (isinstance(dst.value, VReg) and isinstance(src.value, VReg)):
        return None
    if dst.offset or src.offset or dst.region is not None or src.region is not None or src.neg or src.abs:
        return None
    x, t = dst.value, src.value
    if x.id == t.id or x.type != t.type or x.uniform != t.uniform or x.count != 1 or t.count != 1:
        return None
    return x, t


def _coalesce(copy: MInstr, before: list[MInstr], writes: dict[int, int], reads: dict[int, int]) -> bool:
    """Retarget the writer of the copy's source in `before` (this block so far) to the copy's
    destination, and the source's other readers between them to it, if allowed (module docstring);
    True if the copy is then redundant."""
    pair = _plain_copy(copy)
    if pair is None:
        return False
    x, t = pair
    if writes.get(t.id) != 1:
        return False
    window: list[MInstr] = []                     # the instructions between the writer and the copy
    for i in range(len(before) - 1, -1, -1):
        ins = before[i]
        if ins.dst is not None and isinstance(ins.dst.value, VReg) and ins.dst.value.id == t.id:
            break
        if _touches(ins, x.id):
            return False
        window.append(ins)
    else:
        return False
    if ins.opcode in BRANCHES or ins.opcode in SENDS or ins.dst is None or ins.dst.offset or \
            ins.dst.region is not None or (ins.predicate is not None and ins.opcode != "sel") or \
            ins.no_mask != copy.no_mask or ins.exec_size != copy.exec_size:
        return False
    for s in ins.srcs:                            # (all() of a generator, as a loop)
        if isinstance(s.value, VReg) and s.value.id == x.id and not _same_layout(s, x):
            return False
    written = ins.dst.value                       # t as its writer types it: the copy may read another
    if not isinstance(written, VReg) or written.type.size != x.type.size:   # view (a bitcast's)
        return False
    tid = t.id
    between = 0
    for w in window:                              # (uses(), inline)
        for s in w.srcs:
            if type(s.value) is VReg and s.value.id == tid:
                between += 1
    if between + 1 != reads.get(t.id):           # t is read after the copy or elsewhere
        return False
    ins.dst = Operand(VReg(x.id, _written_type(ins, written.type, x.type), x.uniform, x.count))
    for w in window:
        w.srcs = [_renamed(s, t.id, x) for s in w.srcs]
    return True


def _written_type(writer: MInstr, own: DataType, copied: DataType) -> DataType:
    """The type the writer writes x with: its own where the copy read t through another view (in
    `mov t:f = i:d; mov x:d = t:d` the first converts: x:d would make it a copy), the copy's where the
    two are integers of one size that an integer instruction writes the same bits to."""
    if own == copied or (own in INTEGERS and copied in INTEGERS and writer.cond_mod is None and
                         all(s.type in INTEGERS for s in writer.srcs)):
        return copied
    return own


def _same_layout(src: Operand, x: VReg) -> bool:
    """A source reading x element for element as the destination x is written (an instruction may read
    and write the same register so: add x = x + 1)."""
    v = src.value
    return src.region is None and not src.offset and isinstance(v, VReg) and v.type.size == x.type.size


def _renamed(op: Operand, tid: int, x: VReg) -> Operand:
    v = op.value
    if not isinstance(v, VReg) or v.id != tid:
        return op
    return Operand(VReg(x.id, v.type, x.uniform, x.count), op.offset, op.region, op.neg, op.abs)


def _touches(ins: MInstr, vid: int) -> bool:
    """Does `ins` read or write virtual register `vid` (through any typed view of it)?"""
    dst = ins.dst                                 # (defs() and uses(), inline: no lists made)
    if dst is not None and type(dst.value) is VReg and dst.value.id == vid:
        return True
    for s in ins.srcs:
        if type(s.value) is VReg and s.value.id == vid:
            return True
    return False
