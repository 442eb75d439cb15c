"""64-bit integer arithmetic Gen9 has no one instruction for, expanded into 32-bit and D x D -> Q steps.

Gen9 facts used (PRM vol. 7, "EU instruction set"; Mesa brw_fs_nir.cpp): D x D -> D and D x D -> Q
multiplies are native, Q x Q is not, so a 64-bit multiply is lo*lo (D x D -> Q) plus the two cross
products shifted up by 32 (one D x D -> Q when both are extended dwords); 64-bit add, shifts and logic
are native on :q; the math box divides integers 8 lanes at a time and has no 64-bit division.
"""
from __future__ import annotations

from reconverge.isa.gen9.model import DataType
from reconverge.lowering.ir.core import Const, Instr, Value

from .isel_context import SelectionContext, high_dword, low_dword, negated, retyped
from .mir import Imm, Operand

T = DataType


def narrow_mul64(cx: SelectionContext, ins: Instr) -> Operand | None:
    """A 64-bit multiply that needs no emulation: by a power of two, a shift; of two values that are
    32-bit ones extended the same way (or a constant that fits), one D x D -> Q multiply."""
    x, y = ins.operands
    if isinstance(x, Const):
        x, y = y, x
    c = int(y.value) if isinstance(y, Const) else 0
    if c > 0 and c & (c - 1) == 0:
        dst = cx.fresh(T.Q)
        cx.emit("shl", dst, cx.operand(x), Operand(Imm(c.bit_length() - 1, T.UD)))
        return dst
    fx, fy = _narrow_form(cx, x), _narrow_form(cx, y)
    if fx is None or fy is None or fx[0] is None or (fy[0] is not None and fy[0] != fx[0]):
        return None                                  # fx: never a constant (constants went to y)
    signed, a, b = bool(fx[0]), fx[1], fy[1]
    dst = cx.fresh(T.Q if signed else T.UQ)
    cx.emit("mul", dst, retyped(a, T.D if signed else T.UD), retyped(b, T.D if signed else T.UD))
    return retyped(dst, T.Q)


def _narrow_form(cx: SelectionContext, v: Value) -> tuple[bool | None, Operand] | None:
    """(signed, the 32-bit operand) when `v` is a 32-bit value zero- or sign-extended to 64 bits; a
    constant below 2^31 is both (signed None)."""
    if isinstance(v, Const):
        return (None, Operand(Imm(int(v.value), T.UD))) if 0 <= v.value < 1 << 31 else None
    return cx.narrow.get(v)


def mul64(cx: SelectionContext, a: Operand, b: Operand) -> Operand:
    """lo(a)*lo(b) as D x D -> Q, plus (lo(a)*hi(b) + hi(a)*lo(b)) << 32."""
    lo_a, lo_b, hi_a, hi_b = low_dword(a), low_dword(b), high_dword(a), high_dword(b)
    low = cx.fresh(T.UQ)
    cx.emit("mul", low, lo_a, lo_b)
    c1, c2 = cx.fresh(T.UD), cx.fresh(T.UD)
    cx.emit("mul", c1, lo_a, hi_b)
    cx.emit("mul", c2, hi_a, lo_b)
    cross = cx.fresh(T.UD)
    cx.emit("add", cross, c1, c2)
    wide = cx.fresh(T.UQ)
    cx.emit("mov", wide, cross)
    shifted = cx.fresh(T.UQ)
    cx.emit("shl", shifted, wide, Operand(Imm(32, T.UD)))
    out = cx.fresh(T.Q)
    cx.emit("add", out, low, retyped(shifted, T.UQ))
    return out


def divide64(cx: SelectionContext, op: str, n: Operand, d: Operand) -> Operand:
    """64-bit division and remainder: Gen9's math box divides 32-bit integers only, so the quotient
    is found a bit at a time (restoring division: 64 trips of shift, compare, conditional subtract,
    the same trip count in every lane), on magnitudes for the signed forms; the quotient is negated
    when the signs differ, the remainder takes the dividend's sign."""
    signed = op[0] == "s"
    n_neg = d_neg = None
    if signed:
        n_neg, d_neg = _is_negative(cx, n), _is_negative(cx, d)
        n, d = _magnitude(cx, n, n_neg), _magnitude(cx, d, d_neg)
    n, d = (cx.in_register(x, T.UQ) if isinstance(x.value, Imm) else retyped(x, T.UQ) for x in (n, d))
    quotient, remainder, bit, count = cx.fresh(T.UQ), cx.fresh(T.UQ), cx.fresh(T.UQ), cx.fresh(T.D)
    cx.emit("mov", quotient, n)
    cx.emit("mov", remainder, Operand(Imm(0, T.UQ)))
    cx.emit("mov", count, Operand(Imm(64, T.D)))
    head = cx.m.new_label("div")
    cx.start(head)
    cx.emit("shr", bit, quotient, Operand(Imm(63, T.UD)))
    cx.emit("shl", remainder, remainder, Operand(Imm(1, T.UD)))
    cx.emit("or", remainder, remainder, bit)
    cx.emit("shl", quotient, quotient, Operand(Imm(1, T.UD)))
    cx.emit("cmp", None, remainder, d, cond_mod="ge", flag=(0, 0))
    cx.emit("add", remainder, remainder, negated(d), predicate=(0, 0, False))
    cx.emit("or", quotient, quotient, Operand(Imm(1, T.UD)), predicate=(0, 0, False))
    cx.emit("add", count, count, Operand(Imm(-1, T.D)), cond_mod="gt", flag=(0, 0))
    cx.branch("while", [head], predicate=(0, 0, False))
    cx.start(cx.m.new_label("divided"))
    result = quotient if op.endswith("div") else remainder
    if n_neg is None or d_neg is None:
        return retyped(result, T.UQ)
    flip = cx.logic("xor", n_neg, d_neg) if op == "sdiv" else n_neg
    return _magnitude(cx, retyped(result, T.Q), flip)


def _is_negative(cx: SelectionContext, x: Operand) -> Operand:
    """0/-1 per lane: x < 0 (for a 64-bit x)."""
    x = cx.register(x)
    return cx.cmp_value(retyped(x, T.Q), Operand(Imm(0, T.Q)), "lt", (0, 1))


def _magnitude(cx: SelectionContext, x: Operand, negative: Operand) -> Operand:
    """x negated in the lanes where `negative` is -1 (|x| when it is x < 0)."""
    x = cx.in_register(x) if isinstance(x.value, Imm) else retyped(x, T.Q)
    dst = cx.fresh(T.Q)
    cx.flag_from_lanes(negative)
    cx.emit("sel", dst, negated(x), x, predicate=(0, 0, False))
    return dst


def mulhi64(cx: SelectionContext, signed: bool, a: Operand, b: Operand) -> Operand:
    """The high 64 bits of a 64 x 64 product from four D x D -> Q products of the dword halves:
    hi(a1 b1 + hi(a1 b0) + hi(a0 b1) + carry of hi(a0 b0) + lo(a1 b0) + lo(a0 b1)); the signed form
    subtracts b where a < 0 and a where b < 0."""
    a0, a1, b0, b1 = low_dword(a), high_dword(a), low_dword(b), high_dword(b)
    a0, a1 = (cx.register(x) for x in (a0, a1))

    def product(x: Operand, y: Operand) -> Operand:
        out = cx.fresh(T.UQ)
        cx.emit("mul", out, x, y)
        return out

    def widened(x: Operand) -> Operand:
        out = cx.fresh(T.UQ)
        cx.emit("mov", out, x)
        return out

    def add(x: Operand, y: Operand) -> Operand:
        out = cx.fresh(T.UQ)
        cx.emit("add", out, x, y)
        return out
    p00, p01, p10, p11 = product(a0, b0), product(a0, b1), product(a1, b0), product(a1, b1)
    mid = add(add(widened(high_dword(p00)), widened(low_dword(p01))), widened(low_dword(p10)))
    high = add(add(add(p11, widened(high_dword(p01))), widened(high_dword(p10))), widened(high_dword(mid)))
    if not signed:
        return high
    for sign_of, other in ((a, b), (b, a)):
        cx.flag_from_lanes(_is_negative(cx, sign_of))
        o = cx.in_register(other) if isinstance(other.value, Imm) else retyped(other, T.UQ)
        fixed = cx.fresh(T.UQ)
        cx.emit("mov", fixed, high)
        cx.emit("add", fixed, high, negated(o), predicate=(0, 0, False))
        high = fixed
    return retyped(high, T.Q)
