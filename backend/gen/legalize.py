"""Operand legalization: machine-IR passes that make every immediate one Gen9 can encode, and every
destination as wide as its instruction's execution type.

Selection writes immediates wherever the IR had constants; this pass, run on the selected function
before the verifier (mir_verify's "immediates" rule checks what it promises), fixes what Gen cannot
encode, as brw's lowering passes do after Mesa's selection (brw_fs_lower_*, "select freely, then
legalize"). Gen encodes an immediate only as the last source, and a 64-bit one only as a lone source
(PRM vol. 7, "Immediate operands"), so for each two-source instruction (sends and branches have none):
a commutative pair is swapped, a 64-bit shift count becomes a 32-bit one (the count is taken modulo 64
anyway), and any other immediate is moved into a fresh register by a mov at the function's SIMD
width placed right before the instruction.

A destination narrower than the execution type (a 32-bit result of 64-bit sources: a conversion from
double or from a 64-bit integer) must be strided to the execution type's size (PRM vol. 7, "General
Restrictions Based on Operand Types"; isa/gen9/validate.py's dst-stride-exec-type), so such an
instruction writes every other dword of a 64-bit temporary, and a mov packs those dwords into the
destination, as brw's fs lowering does.
"""
from __future__ import annotations

from reconverge.isa.gen9.model import DataType, Region

from .mir import Imm, MBlock, MFunction, MInstr, Operand, VReg

COMMUTATIVE = ("add", "mul", "and", "or", "xor")
SHIFTS = ("shl", "shr", "asr")
NO_IMMEDIATES = frozenset(("send", "sends", "jmpi", "if", "while"))


def legalize(func: MFunction) -> tuple[dict[int, int], dict[int, int]]:
    """Rewrite `func` in place: every immediate encodable, then every destination as wide as its execution
    type (the module's two rules), in one walk that also counts the result's register writes and reads
    (mir.register_counts: what isel.select hands CSE and coalescing; a walk for each rule and one to count
    were a tenth of selection's opcodes). The 64-bit temporaries of the narrow destinations are made
    after the walk, in block order, after every register the immediates took: the numbers the two rules
    gave them when each walked the function in turn."""
    writes: dict[int, int] = {}
    reads: dict[int, int] = {}
    widen: list[tuple[MBlock, set[int]]] = []       # blocks with destinations to widen (their instructions' ids)
    for block in func.blocks:
        out: list[MInstr] | None = None     # (None until an instruction has an immediate: most blocks keep theirs)
        here: set[int] | None = None
        for k, ins in enumerate(block.instrs):
            srcs = ins.srcs
            if len(srcs) == 2 and (type(srcs[0].value) is Imm or type(srcs[1].value) is Imm) and \
                    ins.opcode not in NO_IMMEDIATES:
                if out is None:
                    out = block.instrs[:k]
                start = len(out)
                srcs = ins.srcs = _legal_sources(func, ins.opcode, srcs, out)
                for mov in out[start:]:               # an immediate moved into a fresh register
                    writes[mov.dst.value.id] = 1      # type: ignore[union-attr]
            if out is not None:
                out.append(ins)
            wide = False
            for s in srcs:                            # (register_counts' reads, and a 64-bit source: no type is wider)
                v = s.value
                if type(v) is VReg:
                    reads[v.id] = reads.get(v.id, 0) + 1
                if v.type.size == 8:
                    wide = True
            dst = ins.dst
            if dst is None:
                continue
            v = dst.value
            if type(v) is not VReg:
                continue
            writes[v.id] = writes.get(v.id, 0) + 1
            if wide and not v.uniform and v.type.size == 4 and ins.opcode not in NO_IMMEDIATES and \
                    (dst.region is None or dst.region.hstride == 1):
                if here is None:
                    here = set()
                    widen.append((block, here))
                here.add(id(ins))
        if out is not None:
            block.instrs = out
    for block, here in widen:                         # (the second rule's rewrite)
        out = []
        for ins in block.instrs:
            out.append(ins)
            if id(ins) in here:
                assert ins.dst is not None
                dst, wide_reg = ins.dst, func.vreg(DataType.Q)
                strided = Operand(VReg(wide_reg.id, dst.type), 0, Region(16, 8, 2))
                ins.dst = strided
                out.append(MInstr("mov", ins.exec_size, dst, [strided], predicate=ins.predicate, no_mask=ins.no_mask))
                writes[wide_reg.id] = reads[wide_reg.id] = 1     # (dst: written by the mov instead)
        block.instrs = out
    return writes, reads


def _legal_sources(func: MFunction, opcode: str, srcs: list[Operand], out: list[MInstr]) -> list[Operand]:
    """The two sources made encodable; the movs that needs are appended to `out`."""
    ops = list(srcs)
    if isinstance(ops[0].value, Imm) and not isinstance(ops[1].value, Imm) and opcode in COMMUTATIVE:
        ops = [ops[1], ops[0]]
    if isinstance(ops[0].value, Imm):
        ops[0] = _in_register(func, ops[0], out)
    last = ops[1].value
    if isinstance(last, Imm) and last.type.size == 8:
        if opcode in SHIFTS:
            ops[1] = Operand(Imm(int(last.value) & 63, DataType.UD))
        else:
            ops[1] = _in_register(func, ops[1], out)
    return ops


def _in_register(func: MFunction, op: Operand, out: list[MInstr]) -> Operand:
    reg = Operand(func.vreg(op.type))
    out.append(MInstr("mov", func.simd, reg, [op]))
    return reg


def illegal_immediates(ins: MInstr) -> str | None:
    """What is wrong with `ins`'s immediates after legalization, or None (mir_verify's rule)."""
    if ins.opcode in NO_IMMEDIATES or len(ins.srcs) < 2:
        return None
    if any(isinstance(s.value, Imm) for s in ins.srcs[:-1]):
        return "an immediate may only be the last source"
    last = ins.srcs[-1].value
    if isinstance(last, Imm) and last.type.size == 8:
        return "a 64-bit immediate may only be a lone source"
    return None
