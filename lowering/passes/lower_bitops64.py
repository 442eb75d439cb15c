"""popcount, clz, ctz and bitreverse wider than the target's bit instructions, from 32-bit halves.

For a value of 33 to 64 bits (zero-extended to 64 when narrower): popcount adds the halves' counts; clz
takes the high half's unless it is zero (then 32 + the low half's); ctz the mirror image, with a sentinel
bit just above the width so that ctz(0) is the width; bitreverse swaps the reversed halves and shifts an
odd width back down. The original instruction becomes the last step, so its uses stay as they are.
"""
from __future__ import annotations

from reconverge.lowering.ir.builder import InsertBefore, become
from reconverge.lowering.ir.core import Const, Function, Instr
from reconverge.lowering.ir.types import I32, I64
from reconverge.lowering.target import TargetCaps

NAME, FORM = "lower_bitops64", "any"
BIT_OPS = ("popcount", "clz", "ctz", "bitreverse")


def run(func: Function, caps: TargetCaps) -> bool:
    if caps.bit_ops_max_bits >= 64:
        return False
    todo = [ins for ins in func.instructions() if ins.opcode in BIT_OPS and ins.type.bits > 32]
    for ins in todo:
        _lower(ins)
    return bool(todo)


def _lower(ins: Instr) -> None:
    b = InsertBefore(ins)
    bits, op = ins.type.bits, ins.opcode
    x = ins.operands[0]
    x64 = x if bits == 64 else b.cast("zext", x, I64)
    if op == "ctz" and bits < 64:                     # the sentinel: ctz(0) = bits
        x64 = b.binary("or", x64, Const(I64, 1 << bits))
    lo = b.cast("trunc", x64, I32)
    hi = b.cast("trunc", b.binary("lshr", x64, Const(I64, 32)), I32)
    if op == "bitreverse":
        rlo = b.cast("zext", b.op("bitreverse", [lo], I32), I64)
        rhi = b.cast("zext", b.op("bitreverse", [hi], I32), I64)
        swapped = [b.binary("shl", rlo, Const(I64, 32)), rhi]
        if bits == 64:
            become(ins, "or", swapped)
        else:
            become(ins, "trunc", [b.binary("lshr", b.binary("or", *swapped), Const(I64, 64 - bits))])
        return
    if op == "popcount":
        r32 = b.binary("add", b.op("popcount", [lo], I32), b.op("popcount", [hi], I32))
    else:                                             # clz: the high half decides; ctz: the low half
        first, second = (hi, lo) if op == "clz" else (lo, hi)
        zero = b.icmp("eq", first, Const(I32, 0))
        r32 = b.select(zero, b.binary("add", Const(I32, 32), b.op(op, [second], I32)), b.op(op, [first], I32))
        if op == "clz" and bits < 64:
            r32 = b.binary("sub", r32, Const(I32, 64 - bits))
    become(ins, "zext", [r32])
