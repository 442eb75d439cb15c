"""Known alignment of pointer offsets: how many low bits of a pointer's byte offset into its memory
object are known to be zero, and the offset's residue modulo a small power of two where it is known.

A load or store's `align` says what the source promised; the offset itself often proves more (an i8
store at `buf + 4*i + 1` is one byte into a 4-byte-aligned word). A backend that lays an object out in
elements wider than a byte uses this to prove every access stays inside one element, or covers whole
ones. Objects start at offset 0, so an object's base is aligned to anything. The analysis is the usual
trailing-zero-bits one (LLVM's computeKnownBits, restricted to the low bits), to a fixed point over phis.
"""
from __future__ import annotations

from reconverge.lowering.ir.core import Arg, Const, Function, Instr, Value

MAX_ALIGN = 8       # bytes: the widest element a backend lays out

_MAX_DEPTH = 64
_COPIES = ("zext", "sext", "trunc", "freeze", "bitcast", "addrspacecast")


class OffsetAlignment:
    """alignment(v): the largest power of two (<= MAX_ALIGN) known to divide v, for pointers (their byte
    offset into their object) and the integers that feed them."""

    def __init__(self, func: Function):
        self.func = func
        self._align: dict[Value, int] = {}
        self._depth = 0
        merges = [ins for ins in func.instructions() if ins.opcode in ("phi", "select")]
        guess: dict[Value, int] = {ins: MAX_ALIGN for ins in merges}      # optimistic; lowered to the fixed point below
        while True:
            self._align = dict(guess)
            new: dict[Value, int] = {ins: min((self.alignment(s) for s in _merged(ins)), default=MAX_ALIGN)
                                     for ins in merges}
            if new == guess:
                break
            guess = new

    def alignment(self, v: Value) -> int:
        hit = self._align.get(v)
        if hit is not None:
            return hit
        if self._depth > _MAX_DEPTH:       # a very long chain: give up (1 is always true)
            return 1
        self._depth += 1
        try:
            a = self._compute(v)
        finally:
            self._depth -= 1
        if isinstance(v, Instr):
            self._align[v] = a
        return a

    def _compute(self, v: Value) -> int:
        if isinstance(v, Const):
            if v.type.is_ptr or not isinstance(v.value, int):
                return MAX_ALIGN if v.type.is_ptr else 1
            return _low_bit(v.value)
        if isinstance(v, Arg):
            return MAX_ALIGN if v.type.is_ptr else 1      # a pointer argument is its object's base
        if not isinstance(v, Instr):
            return 1
        op, ops = v.opcode, v.operands
        if op in ("alloca", "global_addr"):
            return MAX_ALIGN
        if op in _COPIES:
            if op == "trunc" and v.type.bits < 8:
                return 1
            return self.alignment(ops[0])
        if op in ("ptradd", "add", "sub"):
            return min(self.alignment(ops[0]), self.alignment(ops[1]))
        if op == "mul":
            return min(MAX_ALIGN, self.alignment(ops[0]) * self.alignment(ops[1]))
        if op == "shl" and isinstance(ops[1], Const) and isinstance(ops[1].value, int) and 0 <= ops[1].value < 64:
            return min(MAX_ALIGN, self.alignment(ops[0]) << ops[1].value)
        if op == "and":
            return min(MAX_ALIGN, max(self.alignment(ops[0]), self.alignment(ops[1])))
        return 1

    def residue(self, ptr: Value, modulus: int) -> int | None:
        """ptr's byte offset modulo `modulus` (a power of two <= MAX_ALIGN), where it is known."""
        extra = 0
        for _ in range(_MAX_DEPTH):
            if self.alignment(ptr) >= modulus:
                return extra % modulus
            if not isinstance(ptr, Instr):
                return None
            if ptr.opcode in _COPIES:
                ptr = ptr.operands[0]
                continue
            if ptr.opcode != "ptradd":
                return None
            base, off = ptr.operands
            if isinstance(off, Const) and isinstance(off.value, int):
                extra += off.value
            elif self.alignment(off) < modulus:
                return None
            ptr = base
        return None


def _merged(ins: Instr) -> list[Value]:
    return list(ins.operands if ins.opcode == "phi" else ins.operands[1:])


def _low_bit(value: int) -> int:
    if value == 0:
        return MAX_ALIGN
    return min(MAX_ALIGN, value & -value)
