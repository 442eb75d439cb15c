"""64-bit integers computed in 32 bits where only their low dword is ever read.

OpenCL's size_t makes every id and index 64-bit, and a pointer into a buffer reached by its binding
table is a 64-bit value whose message takes only a 32-bit offset (isel_memory). Gen9 has no 64-bit
ALU at SIMD16 (each :q operation is split in two, PRM vol. 7, "Register region restrictions"), so an
index computed in 64 bits and then truncated costs two to four times what IGC spends, which keeps such
addresses in 32 bits. The low 32 bits of a sum, difference, product, bitwise operation or left shift
(by a constant below 32) depend only on the low 32 bits of its operands, so a value all of whose
readers want only its low dword (a trunc to 32 bits or fewer, an address of a binding-table access,
another such value) is computed as a dword: the demanded-bits rule of LLVM's DemandedBits analysis,
on the IR before selection.

`low_dword_values` is a greatest fixed point: every candidate starts in, and one that has a reader
wanting more (a compare, a right shift, a store of its value, a flat address) drops out, which may
drop the candidates it reads from: O(values + uses) per pass.
"""
from __future__ import annotations

from reconverge.isa.gen9.model import DataType
from reconverge.lowering.analysis.provenance import MemoryObject, Provenance
from reconverge.lowering.ir.core import Const, Function, Instr, Value

from .isel_context import SelectionContext, low_dword, negated, retyped
from .mir import Imm, Operand, VReg

T = DataType
ALU = {"add": "add", "sub": "add", "ptradd": "add", "mul": "mul", "and": "and", "or": "or", "xor": "xor",
       "shl": "shl"}
LOW_BITS_OPS = ("add", "sub", "mul", "and", "or", "xor", "ptradd", "phi", "select")


def low_dword_values(func: Function, provenance: Provenance, flat: bool,
                     instrs: list[Instr] | None = None, readers: dict[Value, list[Instr]] | None = None) -> set[Instr]:
    """The 64-bit integer (and, unless `flat`, pointer) instructions of `func` whose readers want only
    their low 32 bits (the module docstring). `readers`: each instruction's readers, one entry per operand
    reading it in program order (divergence.Divergence.users), where the caller has them."""
    instrs = list(func.instructions()) if instrs is None else instrs
    # (the type first, inline: most instructions are neither 64-bit integers nor pointers, and ask no call)
    chosen: set[Instr] = {ins for ins in instrs if (ins.type.bits == 64 or ins.type.kind == "ptr")
                          and _candidate(ins, flat)}
    if not chosen:
        return chosen
    users: dict[Value, list[tuple[Instr, int]]] = {}     # (of the candidates only: no other is asked)
    if readers is None:
        for ins in instrs:
            for k, v in enumerate(ins.operands):
                if v in chosen:
                    users.setdefault(v, []).append((ins, k))
    else:                                   # (the same pairs, in the same order: a reader's entries stand together)
        for v in chosen:
            pairs = []
            last = None
            for ins in readers.get(v, ()):
                if ins is not last:
                    last = ins
                    for k, x in enumerate(ins.operands):
                        if x is v:
                            pairs.append((ins, k))
            if pairs:
                users[v] = pairs
    # the greatest fixed point by a worklist: a candidate is asked again only when one it reads dropped out
    # (the readers of a drop), not in one more pass over every candidate to confirm nothing changed
    work = list(chosen)
    while work:
        ins = work.pop()
        if ins not in chosen:
            continue
        for user, k in users.get(ins, ()):      # (all() of a generator, as a loop: every candidate)
            if not _low_only(user, k, chosen, provenance, flat):
                chosen.discard(ins)
                work += [v for v in ins.operands if v in chosen]
                break
    return chosen


def _candidate(ins: Instr, flat: bool) -> bool:
    t = ins.type
    if not ((t.is_int and t.bits == 64) or (t.is_ptr and not flat)):
        return False
    op = ins.opcode
    if op in LOW_BITS_OPS or op == "workitem":
        return True
    if op == "shl":
        amount = ins.operands[1]
        return isinstance(amount, Const) and 0 <= amount.value <= 32
    if op in ("ashr", "lshr"):
        return _shifted_back(ins) is not None
    if op in ("zext", "sext"):                       # a dword's own bits (bytes and words are zero-extended dwords)
        bits = ins.operands[0].type.bits
        return bits == 32 or (op == "zext" and bits in (8, 16))
    return False


def _low_only(user: Instr, k: int, chosen: set[Instr], provenance: Provenance, flat: bool) -> bool:
    """Does `user` read only the low 32 bits of its operand k?"""
    op = user.opcode
    if op == "trunc":
        return user.type.bits <= 32
    if op == "select":
        return k > 0 and user in chosen
    if op == "shl":
        return k == 0 and user in chosen
    if op in ("ashr", "lshr"):
        return k == 0 and user in chosen                # (x << 32) >> 32: the low dword of x
    if op in LOW_BITS_OPS:
        return user in chosen
    address = {"load": 0, "store": 1, "atomic": 0}.get(op)
    if address == k and not flat:
        return isinstance(provenance.base.get(user.operands[k]), MemoryObject)
    return False



def _shifted_back(ins: Instr) -> Value | None:
    """x, where `ins` is (x << 32) >> 32 (arithmetic or logical: LLVM's sign or zero extension of a
    truncated dword in place), whose low dword is x's."""
    shl, amount = ins.operands
    if isinstance(amount, Const) and amount.value == 32 and isinstance(shl, Instr) and shl.opcode == "shl":
        inner = shl.operands[1]
        if isinstance(inner, Const) and inner.value == 32:
            return shl.operands[0]
    return None


def low_dword_of(cx: SelectionContext, v: Value) -> Operand:
    """The low 32 bits of a value as a :d operand: a narrowed value itself, a view of a 64-bit one."""
    op = cx.values.get(v)
    if op is not None and type(op.value) is VReg and op.value.type is T.D:
        return op                           # (a dword register: operand, low_dword and retyped give it back)
    if isinstance(v, Const) and not v.type.is_float:
        low = int(v.value) & 0xFFFFFFFF
        return Operand(Imm(low - (1 << 32) if low >> 31 else low, T.D))
    return retyped(low_dword(cx.operand(v)), T.D)


def select_narrow(cx: SelectionContext, ins: Instr) -> None:
    """One of low_dword_values as a dword (workitem: isel_values.workitem, which asks cx.narrowed)."""
    op = ins.opcode
    if op in ("zext", "sext"):
        cx.values[ins] = low_dword_of(cx, ins.operands[0])          # the dword itself, no instruction
        return
    if op in ("ashr", "lshr"):
        inner = _shifted_back(ins)
        assert inner is not None
        cx.values[ins] = low_dword_of(cx, inner)
        return
    if op == "shl" and _is_const(ins.operands[1], 32):
        # its low dword is zero ((x << 32) >> 32 patterns read x itself; an or, add or trunc reads this zero:
        # `(uint)(((ulong)x << 32) | y)` at -O0)
        cx.values[ins] = Operand(Imm(0, T.D))
        return
    if op == "select":
        cx.condition_flag(ins.operands[0])
        dst = cx.fresh(T.D)
        cx.emit("sel", dst, *(low_dword_of(cx, v) for v in ins.operands[1:]), predicate=(0, 0, False))
        cx.values[ins] = dst
        return
    x, y = ins.operands
    a, b = low_dword_of(cx, x), low_dword_of(cx, y)
    if op == "sub":
        b = negated(b)
    bv, av = b.value, a.value                   # (_zero of each, inline: an immediate 0)
    if type(bv) is Imm and bv.value == 0 and op in ("add", "sub", "ptradd", "or", "xor", "shl"):
        cx.values[ins] = a                                            # x + 0, x << 0: x itself
        return
    if type(av) is Imm and av.value == 0 and op in ("add", "ptradd", "or", "xor"):
        cx.values[ins] = b
        return
    dst = cx.fresh(T.D)
    cx.emit(ALU[op], dst, a, b)
    cx.values[ins] = dst


def _is_const(v: Value, value: int) -> bool:
    return isinstance(v, Const) and v.value == value
