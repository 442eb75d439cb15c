"""Emission: the allocated machine IR -> isa/gen9 instructions. An instruction whose operands would span
more than two GRFs (SIMD16 on 64-bit values, or a strided 32-bit view of them) is split into two SIMD8
halves (M0, M8), as Gen requires of every operand (PRM vol. 7, "Register region restrictions": an
operand may span at most two registers)."""
from __future__ import annotations

from itertools import chain
from operator import attrgetter

from reconverge.isa.gen9.builder import Builder, imm, null
from reconverge.isa.gen9.model import DataType, Instruction, Predicate, RegFile, Region
from reconverge.isa.gen9.model import Operand as IsaOperand

from .mir import GRF_BYTES, SENDS, Imm, MFunction, MInstr, Operand, PReg, VReg

T_D, T_UD = DataType.D, DataType.UD
INT_DIV = ("idiv", "iqot", "irem")     # the math box divides integers 8 lanes at a time (PRM vol. 7, "math")


def emit(func: MFunction, home: dict[int, int], notes: dict[int, str] | None = None,
         bounds: dict[int, tuple[str, int, int | None]] | None = None) -> list[Instruction]:
    """The machine IR with every value at its home GRF (regalloc.allocate) as Gen9 instructions. `notes`
    (if given) receives a comment per instruction index where a blockIP block starts (its label and
    blockIP value) or a jmpi names its JOIN target, for --emit gen-asm; `bounds` (if given) each send's
    own object by its instruction index (MInstr.bounds, for the gen run target's check)."""
    builder = Builder(func.simd)                  # its program() gives structured branches their JIP and UIP
    append = builder.insts.append                 # (Builder.emit_instruction of an instruction without a target)
    targeted = set(chain.from_iterable(map(_TARGETS, chain.from_iterable(map(_INSTRS, func.blocks)))))
    for b in func.blocks:
        at = builder.label(b.label)
        if notes is not None and _blockip_label(b.label):
            notes[at] = f"block {b.label}: lanes with blockIP <= {b.label[1:]} run it"
        elif notes is not None and b.label in targeted:
            notes[at] = f"block {b.label}: a branch target"
        for ins in b.instrs:
            # jmpi (scalar: jumps on the flag's any/all group test), halt (UIP: the final halt; JIP from the
            # builder's block rule) and while (JIP: back to the loop's first instruction) name a block
            if ins.opcode in _LABELLED:
                if notes is not None and ins.opcode == "jmpi":
                    kind = "JOIN" if ins.predicate is not None and ins.predicate[2] else "back"
                    if not _blockip_label(ins.targets[0]):
                        kind = "uniform branch"            # isel_structured's jump over an arm
                    notes[builder.position] = f"{kind} -> {ins.targets[0]}"
                branch = _instruction(ins, home, 0, 1)
                assert branch is not None                  # (no operand, no division: never split)
                builder.emit_instruction(branch, ins.targets[0])
                continue
            if ins.bounds is not None and bounds is not None:
                bounds[len(builder.insts)] = ins.bounds
            inst = _instruction(ins, home, 0, 1)
            if inst is not None:
                append(inst)
                continue
            for half in (0, 1):                            # two SIMD8 halves (_instruction's split rules)
                inst = _instruction(ins, home, half, 2)
                assert inst is not None                    # (a half is never split again)
                append(inst)
    return builder.program()


_LABELLED = frozenset(("jmpi", "halt", "while"))
_TARGETS, _INSTRS = attrgetter("targets"), attrgetter("instrs")      # (every block's branch targets, in C)


def _blockip_label(label: str) -> bool:
    """Is this the label of a blockIP block (B<its blockIP value>)?"""
    return label[:1] == "B" and label[1:].isdigit()


def _footprint(ins: MInstr) -> int:
    """The most bytes any register operand of `ins` touches."""
    most = 0
    dst = ins.dst
    for op in (ins.srcs if dst is None else (dst, *ins.srcs)):
        v, r = op.value, op.region
        if type(v) is Imm or (r is not None and r.hstride == 0 and r.vstride == 0) or (type(v) is VReg and v.uniform):
            continue                              # (an immediate, or _scalar)
        stride = r.hstride if r is not None and r.hstride else 1
        most = max(most, ins.exec_size * v.type.size * stride)
    return most


def _wide16(v: VReg | PReg | Imm, r: Region | None, t: DataType) -> bool:
    """Whether an operand of a SIMD16 instruction spans more than two GRFs (_footprint's test)."""
    if type(v) is Imm or (r is not None and r.hstride == 0 and r.vstride == 0) or (type(v) is VReg and v.uniform):
        return False                              # (an immediate, or _scalar)
    return 16 * t.size * (r.hstride if r is not None and r.hstride else 1) > 2 * GRF_BYTES


_F, _HF = DataType.F, DataType.HF


def _mixed_float_f32_dst(ins: MInstr) -> bool:
    """A float result of half-float sources: mixed mode with an F destination runs at most 8 channels
    (PRM vol. 7, "Special Restrictions for Handling Mixed Mode Float Operations")."""
    dst = ins.dst
    if dst is None or dst.value.type != DataType.F:
        return False
    return any(s.value.type == DataType.HF for s in ins.srcs)


# An instruction and its usual operands are made as object.__new__ and the class's __init__ called as a
# function, what calling the class does without type.__call__'s argument tuple and its call through the
# type (a tenth of making each of the 17,000 objects of a 100-kernel compile)
_new = object.__new__
_NULL_DST = frozenset((*SENDS, "cmp"))        # no destination in the machine IR: the null register
NOTIFICATION_0 = IsaOperand(RegFile.ARF, T_UD, 0x90, 0, Region(0, 1, 0))     # n0.0 (ARF 1001_0000b)


def _instruction(ins: MInstr, home: dict[int, int], half: int, halves: int) -> Instruction | None:
    """`ins` as one instruction (halves 1), or as its half `half` of two SIMD8 ones (halves 2). A SIMD16
    instruction that must go as two halves answers None instead: an operand spanning more than two GRFs
    (_footprint), an integer division, or a float result of half-float sources (_mixed_float_f32_dst),
    tested as the walk of its operands meets them (a walk of its own was a tenth of emission)."""
    if ins.opcode == "wait":                      # waits on n0, the gateway's notification register
        return Instruction(opcode="wait", exec_size=1, mask_ctrl_we_all=True,
                           dst=IsaOperand(RegFile.ARF, T_UD, 0x90, 0, None), srcs=[NOTIFICATION_0])
    n = ins.exec_size // halves
    whole16 = n == 16 and halves == 1             # (only a whole SIMD16 instruction is split)
    if whole16 and ins.math_fc in INT_DIV:
        return None
    float_dst = False
    d = ins.dst
    if d is None:
        dst = null(T_D if ins.opcode == "cmp" else T_UD) if ins.opcode in _NULL_DST else None
    else:
        v = d.value
        if d.region is None and type(v) is VReg:
            # (_operand's usual destination, inline: a register at the function's width, in place)
            t = v.type
            size = t.size
            if v.uniform:
                reg, sub = divmod(home[v.id] * GRF_BYTES + d.offset, GRF_BYTES)
            else:
                if size > 4 and whole16:          # (_wide16: 16 lanes of 8 bytes)
                    return None
                reg, sub = divmod(home[v.id] * GRF_BYTES + d.offset + half * n * size, GRF_BYTES)
            dst = _new(IsaOperand)                # (IsaOperand(...): _new's note)
            IsaOperand.__init__(dst, _GRF, t, reg, sub // size, None, 1, d.abs, d.neg)
        else:
            if whole16 and _wide16(v, d.region, v.type):
                return None
            dst = _operand(d, home, half, n, True)
        float_dst = whole16 and v.type is _F
    srcs = []
    for src in ins.srcs:                           # (a loop: no comprehension's function made per instruction)
        v = src.value
        if float_dst and v.type is _HF:
            return None
        if src.region is None and type(v) is VReg and not v.uniform:
            # (_operand's usual source, inline: a per-lane register at the function's width, in place)
            t = v.type
            size = t.size
            if size > 4 and whole16:              # (_wide16: 16 lanes of 8 bytes)
                return None
            reg, sub = divmod(home[v.id] * GRF_BYTES + src.offset + half * n * size, GRF_BYTES)
            s = _new(IsaOperand)                  # (IsaOperand(...): _new's note)
            IsaOperand.__init__(s, _GRF, t, reg, sub // size, _USUAL_REGIONS[n, size], 1, src.abs, src.neg)
            srcs.append(s)
        else:
            if whole16 and _wide16(v, src.region, v.type):
                return None
            srcs.append(_operand(src, home, half, n, False))
    if ins.opcode in SENDS:                        # a payload is registers, typed :ud as iga64 prints them
        for s in srcs:                             # (each operand made just now for this instruction)
            s.type = T_UD
    p = ins.predicate
    pred = None if p is None else Predicate(p[0], p[1], p[2], ins.pred_control)
    flag = ins.flag
    # by position, in the record's field order (opcode, exec_size, chan_offset, predicate, cond_mod, flag_reg,
    # flag_subreg, saturate, mask_ctrl_we_all, align16, dst, srcs, math_fc, jip, uip, branch_ctrl, sfid, desc,
    # ex_desc, eot): binding fifteen keywords among Instruction's 28 parameters cost as much again
    made = _new(Instruction)                      # (Instruction(...): _new's note)
    Instruction.__init__(made, ins.opcode, n, 8 * half, pred, ins.cond_mod, flag[0], flag[1], False, ins.no_mask,
                         False, dst, srcs, ins.math_fc, None, None, False, ins.sfid, ins.desc, ins.ex_desc, ins.eot)
    return made


def _operand(op: Operand, home: dict[int, int], half: int, n: int, is_dst: bool) -> IsaOperand:
    v, r = op.value, op.region
    t = v.type
    if type(v) is Imm:
        if t in _INT_IMM:                         # (builder.imm of an integer: its low bits)
            return IsaOperand(_IMM_FILE, t, 0, 0, None, 1, False, False, int(v.value) & _IMM_MASK[t])
        return imm(v.value, t)
    if r is None and type(v) is VReg:             # the usual: a register at the function's width, in place
        size = t.size
        if v.uniform:
            reg, sub = divmod(home[v.id] * GRF_BYTES + op.offset, GRF_BYTES)
            if is_dst:
                return IsaOperand(_GRF, t, reg, sub // size, None, 1, op.abs, op.neg)
            return IsaOperand(_GRF, t, reg, sub // size, _SCALAR, 1, op.abs, op.neg)
        reg, sub = divmod(home[v.id] * GRF_BYTES + op.offset + half * n * size, GRF_BYTES)
        if is_dst:
            return IsaOperand(_GRF, t, reg, sub // size, None, 1, op.abs, op.neg)
        width = min(n, GRF_BYTES // size)
        return IsaOperand(_GRF, t, reg, sub // size, _region(width, width, 1), 1, op.abs, op.neg)
    scalar = (r is not None and r.hstride == 0 and r.vstride == 0) or (type(v) is VReg and v.uniform)  # _scalar
    stride = r.hstride if r is not None and r.hstride else 1
    size = t.size
    if type(v) is VReg:
        byte = home[v.id] * GRF_BYTES + op.offset
    else:
        assert isinstance(v, PReg)
        byte = v.reg * GRF_BYTES + v.subreg * size + op.offset
    if not scalar:
        byte += half * n * size * stride
    reg, sub = divmod(byte, GRF_BYTES)
    if is_dst:
        return IsaOperand(RegFile.GRF, t, reg, sub // size, None, stride, op.abs, op.neg)
    if scalar:
        region = _SCALAR
    elif r is not None and r.hstride == 0:       # <1;1,0>, <C;C,0>: as written (isel_subgroup)
        region = r
    elif r is not None and r.hstride != 1:
        width = min(n, GRF_BYTES // (size * stride))
        region = _region(width * stride, width, stride)
    else:
        width = min(n, GRF_BYTES // size)
        region = _region(width, width, 1)
    return IsaOperand(RegFile.GRF, t, reg, sub // size, region, 1, op.abs, op.neg)


# the regions emission writes, one object each (nothing changes a Region once made: a source's region is
# replaced, never edited), where making one per source was a tenth of emission
_SCALAR = Region(0, 1, 0)
_GRF, _IMM_FILE = RegFile.GRF, RegFile.IMM
_INT_IMM = frozenset(t for t in DataType if t not in (DataType.F, DataType.HF, DataType.DF))
_IMM_MASK = {t: (1 << (8 * t.size)) - 1 for t in DataType}
_REGIONS: dict[tuple[int, int, int], Region] = {}


class _UsualRegions(dict[tuple[int, int], Region]):
    """(ExecSize, element size) -> the region of a per-lane source in place, <W;W,1> with W the lanes one
    GRF holds (at most ExecSize), each made once (_region)."""

    def __missing__(self, key: tuple[int, int]) -> Region:
        width = min(key[0], GRF_BYTES // key[1])
        made = self[key] = _region(width, width, 1)
        return made


_USUAL_REGIONS = _UsualRegions()


def _region(vstride: int, width: int, hstride: int) -> Region:
    found = _REGIONS.get((vstride, width, hstride))
    if found is None:
        found = _REGIONS[(vstride, width, hstride)] = Region(vstride, width, hstride)
    return found

