"""fma of a width the target cannot fuse, computed exactly in the next wider format with rounding to odd.

OpenCL's fma (and LLVM's llvm.fma) is a*b+c rounded once. A target without a fused multiply-add of that
width (Gen: its math has none, and this backend selects no f32 `mad` as fused) gets it from the wider
format W of p >= 2q + 2 bits for a narrow format of q bits (binary64 for binary32, binary32 for binary16):

    the product of the widened a and b is exact in W (2q bits); s = product + c, rounded once in W;
    the error e of that sum is exact (Knuth's TwoSum: six additions in W);
    where e != 0 and s is even, s moves one unit toward the exact sum (rounding to odd);
    the odd-rounded s, rounded to the narrow format, is the correctly rounded a*b+c.

Boldo and Melquiond, "Emulation of FMA and correctly rounded sums: proved algorithms using rounding to
odd", IEEE Transactions on Computers 57(4), 2008: rounding to odd at p >= q + 2 bits and then to nearest
at q bits is rounding to nearest once. An infinite or NaN s (an overflow, an infinite or NaN operand) is
kept as it is: TwoSum's error is meaningless there, and the narrowing gives what fma gives.
"""
from __future__ import annotations

from reconverge.lowering.ir.builder import InsertBefore, become
from reconverge.lowering.ir.core import Const, Function, Instr
from reconverge.lowering.ir.types import F32, F64, I1, int_type
from reconverge.lowering.target import TargetCaps

NAME, FORM = "lower_fma", "any"
WIDER = {16: F32, 32: F64}          # each narrow width and the format its emulation computes in
WIDE_FRACTION = {32: 23, 64: 52}    # the wide formats' fraction bits


def run(func: Function, caps: TargetCaps) -> bool:
    todo = [ins for ins in func.instructions() if ins.opcode == "fma" and ins.type.bits not in caps.fused_fma_widths
            and ins.type.bits in WIDER]
    for ins in todo:
        _lower(ins)
    return bool(todo)


def _lower(ins: Instr) -> None:
    narrow = ins.type
    wide = WIDER[narrow.bits]
    wide_int = int_type(wide.bits)
    b = InsertBefore(ins)
    x, y, z = (b.cast("fpext", v, wide) for v in ins.operands)
    product = b.binary("fmul", x, y)                          # exact: 2q bits of significand
    s = b.binary("fadd", product, z)
    # TwoSum: s + e == product + z exactly
    z_part = b.binary("fsub", s, product)
    product_part = b.binary("fsub", s, z_part)
    e = b.binary("fadd", b.binary("fsub", product, product_part), b.binary("fsub", z, z_part))
    bits = b.cast("bitcast", s, wide_int)
    inexact = b.fcmp("une", e, Const(wide, 0.0))
    even = b.icmp("eq", b.binary("and", bits, Const(wide_int, 1)), Const(wide_int, 0))
    exponent = Const(wide_int, ((1 << (wide.bits - WIDE_FRACTION[wide.bits] - 1)) - 1) << WIDE_FRACTION[wide.bits])
    finite = b.icmp("ne", b.binary("and", bits, exponent), exponent)      # (from the bits: no f64 math on Gen)
    # toward the exact sum: away from zero where e has s's sign (the bit patterns are sign and magnitude)
    signs_differ = b.op("xor", [b.fcmp("olt", e, Const(wide, 0.0)), b.fcmp("olt", s, Const(wide, 0.0))], I1)
    step = b.select(signs_differ, Const(wide_int, -1), Const(wide_int, 1))
    adjust = b.binary("and", b.binary("and", inexact, even), finite)
    odd = b.cast("bitcast", b.select(adjust, b.binary("add", bits, step), bits), wide)
    become(ins, "fptrunc", [odd])

