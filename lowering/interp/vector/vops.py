"""Vector forms of the value-computing opcodes: numpy over all lanes, bit for bit the scalar semantics.

Each factory returns an `Op`: either `vector` (a function of whole lane arrays, safe to run on inactive
lanes too since it cannot fail) or `scalar` (lowering.interp.ops' per-lane function, which the executor
applies to the active lanes only with lanes.lanewise). An opcode is vectorized only where numpy's result
is provably the scalar one: integer arithmetic in the container dtype (masked for odd widths), IEEE
float arithmetic in the operand dtype, comparisons, selects and casts whose rounding numpy does exactly.
Division-like operations check their undefined cases on the active lanes first (`check`), then run
vectorized with a harmless divisor in the failing (inactive) lanes. Math library calls, fma and the
rare cases (integers wider than 64 bits, 64-bit integers to float beyond 2**53) stay scalar.
"""
from __future__ import annotations

from dataclasses import dataclass
from typing import Any, Callable

import numpy as np

import reconverge.lowering.interp.ops as ops
from reconverge.lowering.interp.values import InterpreterError, mask
from reconverge.lowering.interp.vector.lanes import Array, dtype_of, signed_dtype, wrap
from reconverge.lowering.ir.types import Type


@dataclass
class Op:
    """vector(*arrays) -> array over every lane; or scalar(*values) per active lane. `check(active lane
    operands) -> (index of the first bad lane, error) or None` runs before `vector` on the active lanes."""
    vector: Callable[..., Array] | None = None
    scalar: Callable[..., Any] | None = None
    check: Callable[..., tuple[int, InterpreterError] | None] | None = None


def _first(bad: Array, err: InterpreterError) -> tuple[int, InterpreterError] | None:
    if bad.any():
        return int(np.argmax(bad)), err
    return None


def int_binary(opcode: str, ty: Type) -> Op:
    bits = ty.bits
    scalar = ops.int_binary(opcode, bits)
    dt = dtype_of(ty)
    if dt.kind == "O":
        return Op(scalar=scalar)
    sdt = signed_dtype(ty)
    if bits == 1:                               # i1: compute on 0/1 bytes
        def vec1(a: Array, b: Array) -> Array:
            r = vector(np.asarray(a).astype(np.uint8), np.asarray(b).astype(np.uint8))
            return (r & 1).astype(bool)
        inner = _int_vector(opcode, 8, np.dtype(np.uint8), np.dtype(np.int8), 1)
        if inner is None:
            return Op(scalar=scalar)
        vector = inner
        return Op(vector=vec1, check=_int_check(opcode, 1, np.dtype(np.uint8)))
    vec = _int_vector(opcode, bits, dt, sdt, bits)
    if vec is None:
        return Op(scalar=scalar)
    w = ty
    return Op(vector=lambda a, b: wrap(vec(a, b), w), check=_int_check(opcode, bits, dt))


def _signed(a: Array, bits: int, sdt: np.dtype) -> Array:
    """Two's complement reading of masked `bits`-wide patterns, in the signed container dtype."""
    s = np.asarray(a).view(sdt)
    width = sdt.itemsize * 8
    if bits == width:
        return s
    sh = sdt.type(width - bits)
    return (s << sh) >> sh


def _int_vector(opcode: str, bits: int, dt: np.dtype, sdt: np.dtype, tbits: int) -> Callable[..., Array] | None:
    t = dt.type
    nb = t(tbits)
    if opcode == "add":
        return lambda a, b: np.add(a, b, dtype=dt)
    if opcode == "sub":
        return lambda a, b: np.subtract(a, b, dtype=dt)
    if opcode == "mul":
        return lambda a, b: np.multiply(a, b, dtype=dt)
    if opcode == "and":
        return lambda a, b: np.bitwise_and(a, b, dtype=dt)
    if opcode == "or":
        return lambda a, b: np.bitwise_or(a, b, dtype=dt)
    if opcode == "xor":
        return lambda a, b: np.bitwise_xor(a, b, dtype=dt)
    if opcode == "shl":
        return lambda a, b: np.left_shift(a, np.remainder(b, nb, dtype=dt), dtype=dt)
    if opcode == "lshr":
        return lambda a, b: np.right_shift(a, np.remainder(b, nb, dtype=dt), dtype=dt)
    if opcode == "ashr":
        return lambda a, b: (_signed(a, tbits, sdt) >> np.remainder(b, nb, dtype=dt).astype(sdt)).view(dt)
    if opcode in ("umin", "umax"):
        pick_u = np.minimum if opcode == "umin" else np.maximum
        return lambda a, b: pick_u(a, b, dtype=dt)
    if opcode in ("smin", "smax"):
        pick = np.less_equal if opcode == "smin" else np.greater_equal
        return lambda a, b: np.asarray(np.where(pick(_signed(a, tbits, sdt), _signed(b, tbits, sdt)), a, b)).astype(dt)
    if opcode in ("udiv", "urem"):
        f = np.floor_divide if opcode == "udiv" else np.remainder
        return lambda a, b: f(a, np.where(np.asarray(b) == 0, t(1), b), dtype=dt)
    if opcode in ("sdiv", "srem"):
        def sdiv(a: Array, b: Array) -> Array:
            sa, sb = _signed(a, tbits, sdt), _signed(b, tbits, sdt)
            minus_one = sb == -1
            sb = np.where((sb == 0) | minus_one, sdt.type(1), sb)     # x / -1 below: no INT_MIN overflow trap
            if opcode == "sdiv":
                r = np.where(minus_one, np.negative(sa), _trunc_div(sa, sb))
            else:
                r = np.where(minus_one, sdt.type(0), np.fmod(sa, sb))
            return np.asarray(r).astype(sdt).view(dt)
        return sdiv
    if opcode == "mulhi_u" and bits <= 32:
        return lambda a, b: (np.multiply(a, b, dtype=np.uint64) >> np.uint64(tbits)).astype(dt)
    if opcode == "mulhi_s" and bits <= 32:
        return lambda a, b: ((_signed(a, tbits, sdt).astype(np.int64) * _signed(b, tbits, sdt).astype(np.int64))
                             >> np.int64(tbits)).astype(np.int64).view(np.uint64).astype(dt)
    return None


def _trunc_div(a: Array, b: Array) -> Array:
    """C division (rounding toward zero) of signed arrays, b != 0 and no INT_MIN / -1."""
    q = np.floor_divide(a, b)
    fix = (np.remainder(a, b) != 0) & ((a < 0) != (b < 0))
    return q + fix.astype(q.dtype)


def _int_check(opcode: str, bits: int, dt: np.dtype) -> Callable[..., tuple[int, InterpreterError] | None] | None:
    if opcode in ("udiv", "urem"):
        return lambda a, b: _first(np.asarray(b) == 0, InterpreterError(f"{opcode} by zero"))
    if opcode in ("sdiv", "srem"):
        top, m = 1 << (bits - 1), mask(bits)

        def check(a: Array, b: Array) -> tuple[int, InterpreterError] | None:
            b = np.asarray(b)
            zero = _first(b == 0, InterpreterError(f"{opcode} by zero"))
            over = (np.asarray(a) == dt.type(top)) & (b == dt.type(m))
            first_over = _first(over, InterpreterError(
                f"{opcode} overflow: {-top} / -1 does not fit in i{bits}"))
            found = [x for x in (zero, first_over) if x is not None]
            return min(found, key=lambda x: x[0]) if found else None
        return check
    return None


def int_unary(opcode: str, ty: Type) -> Op:
    scalar = ops.int_unary(opcode, ty.bits)
    dt = dtype_of(ty)
    if dt.kind == "O" or ty.bits == 1:
        return Op(scalar=scalar)
    sdt, bits = signed_dtype(ty), ty.bits
    if opcode == "abs":
        return Op(vector=lambda a: wrap(np.abs(_signed(a, bits, sdt)).view(dt), ty))
    if opcode == "popcount" and hasattr(np, "bitwise_count"):
        return Op(vector=lambda a: np.bitwise_count(a).astype(dt))
    return Op(scalar=scalar)


_ICMP = {"eq": np.equal, "ne": np.not_equal, "ugt": np.greater, "uge": np.greater_equal, "ult": np.less,
         "ule": np.less_equal}


def icmp(pred: str, ty: Type) -> Op:
    dt = dtype_of(ty)
    if dt.kind == "O":
        return Op(scalar=ops.icmp(pred, ty.bits))
    if pred in _ICMP:
        f = _ICMP[pred]
        return Op(vector=lambda a, b: f(a, b))
    if pred in ("sgt", "sge", "slt", "sle"):
        f = _ICMP["u" + pred[1:]]
        if ty.bits == 1:                         # i1 signed: 1 is -1
            return Op(vector=lambda a, b: f(~np.asarray(a), ~np.asarray(b)))
        sdt, bits = signed_dtype(ty), ty.bits
        return Op(vector=lambda a, b: f(_signed(a, bits, sdt), _signed(b, bits, sdt)))
    raise InterpreterError(f"unknown icmp predicate {pred!r}")


def _one(a: Array, b: Array) -> Array:
    return (a < b) | (a > b)


_FCMP: dict[str, Callable[[Array, Array], Array]] = {
    "false": lambda a, b: np.zeros(np.broadcast(a, b).shape, bool),
    "true": lambda a, b: np.ones(np.broadcast(a, b).shape, bool),
    "oeq": np.equal, "ogt": np.greater, "oge": np.greater_equal, "olt": np.less, "ole": np.less_equal,
    "one": _one, "ord": lambda a, b: ~(np.isnan(a) | np.isnan(b)), "uno": lambda a, b: np.isnan(a) | np.isnan(b),
    "ueq": lambda a, b: ~_one(a, b), "ugt": lambda a, b: ~(a <= b), "uge": lambda a, b: ~(a < b),
    "ult": lambda a, b: ~(a >= b), "ule": lambda a, b: ~(a > b), "une": lambda a, b: ~(a == b),
}


def fcmp(pred: str) -> Op:
    ops.fcmp(pred)                               # the same error for an unknown predicate
    f = _FCMP[pred]
    return Op(vector=lambda a, b: np.asarray(f(np.asarray(a), np.asarray(b)), dtype=bool))


def _fmin(a: Array, b: Array) -> Array:
    return np.where(np.isnan(a), b, np.where(b < a, b, a))


def _fmax(a: Array, b: Array) -> Array:
    return np.where(np.isnan(a), b, np.where(b > a, b, a))


def float_binary(opcode: str, ty: Type) -> Op:
    dt = dtype_of(ty)
    vec: dict[str, Callable[..., Array]] = {
        "fadd": np.add, "fsub": np.subtract, "fmul": np.multiply, "fdiv": np.divide, "frem": np.fmod,
        "fmin": _fmin, "fmax": _fmax}
    scalar = ops.float_binary(opcode, ty)
    f = vec[opcode]
    return Op(vector=lambda a, b: np.asarray(f(a, b)).astype(dt, copy=False), scalar=scalar)


def fneg(ty: Type) -> Op:
    return Op(vector=lambda a: np.negative(a))


def fmuladd(ty: Type) -> Op:
    dt = dtype_of(ty)
    return Op(vector=lambda a, b, c: (np.multiply(a, b, dtype=dt) + c).astype(dt, copy=False))


def _round_half_away(x: Array) -> Array:
    t = np.trunc(x)
    return np.where(np.abs(x - t) >= 0.5, t + np.copysign(x.dtype.type(1), x), t)


_EXACT_UNARY: dict[str, Callable[..., Any]] = {
    "sqrt": np.sqrt, "fabs": np.fabs, "floor": np.floor, "ceil": np.ceil, "trunc": np.trunc,
    "rint": np.rint, "round": _round_half_away}
_EXACT_BINARY: dict[str, Callable[..., Any]] = {"copysign": np.copysign, "fmod": np.fmod}


def math_fn(fn: str, ty: Type, exponent_bits: int) -> Op:
    scalar = ops.math_fn(fn, ty, exponent_bits)
    dt = dtype_of(ty)
    if fn in _EXACT_UNARY:
        f = _EXACT_UNARY[fn]
        return Op(vector=lambda a: np.asarray(f(np.asarray(a, dtype=dt))).astype(dt, copy=False))
    if fn in _EXACT_BINARY:
        g = _EXACT_BINARY[fn]
        return Op(vector=lambda a, b: np.asarray(g(a, b)).astype(dt, copy=False))
    if fn == "rsqrt":
        return Op(vector=lambda a: (dt.type(1) / np.sqrt(np.asarray(a, dtype=dt))).astype(dt, copy=False))
    return Op(scalar=scalar)


def cast(opcode: str, src: Type, dst: Type) -> Op:
    scalar = ops.cast(opcode, src, dst)
    sd, dd = dtype_of(src), dtype_of(dst)
    if sd.kind == "O" or dd.kind == "O":
        return Op(scalar=scalar)
    if opcode in ("freeze", "addrspacecast"):
        return Op(vector=lambda a: a)
    if opcode in ("trunc", "ptrtoint", "inttoptr", "zext"):
        if sd.kind == "b":
            return Op(vector=lambda a: np.asarray(a).astype(dd))
        if dd.kind == "b":                       # to i1: the low bit (astype(bool) would test for non-zero)
            return Op(vector=lambda a: (np.asarray(a) & sd.type(1)).astype(bool))
        return Op(vector=lambda a: wrap(np.asarray(a).astype(dd), dst))
    if opcode == "sext":
        sdt, sbits, ddt_s = signed_dtype(src), src.bits, signed_dtype(dst)
        if sd.kind == "b":
            return Op(vector=lambda a: wrap((-np.asarray(a).astype(ddt_s)).view(dd), dst))
        return Op(vector=lambda a: wrap(_signed(a, sbits, sdt).astype(ddt_s).view(dd), dst))
    if opcode in ("fptrunc", "fpext"):
        return Op(vector=lambda a: np.asarray(a).astype(dd))
    if opcode in ("fptosi", "fptoui"):
        return Op(vector=_float_to_int(dst, opcode == "fptosi"))
    if opcode in ("uitofp", "sitofp"):
        if src.bits > 32:
            return Op(scalar=scalar)            # beyond 2**53 the double step could round twice
        sdt, sbits = signed_dtype(src), src.bits
        if opcode == "sitofp" and sd.kind != "b":
            return Op(vector=lambda a: _signed(a, sbits, sdt).astype(np.float64).astype(dd))
        if opcode == "sitofp":          # an i1's -1.0 or +0.0 (a negation would make false -0.0)
            return Op(vector=lambda a: (0.0 - np.asarray(a).astype(np.float64)).astype(dd))
        return Op(vector=lambda a: np.asarray(a).astype(np.float64).astype(dd))
    if opcode == "bitcast":
        if sd.kind == "b" or dd.kind == "b" or sd.itemsize != dd.itemsize:
            return Op(scalar=scalar)
        return Op(vector=lambda a: np.asarray(a).view(dd))
    return Op(scalar=scalar)


def _float_to_int(dst: Type, is_signed: bool) -> Callable[[Array], Array]:
    bits, dd = dst.bits, dtype_of(dst)
    lo, hi = (-(2.0 ** (bits - 1)), 2.0 ** (bits - 1)) if is_signed else (0.0, 2.0 ** bits)
    poison = (1 << (bits - 1)) & mask(bits)

    def convert(a: Array) -> Array:
        f = np.asarray(a).astype(np.float64)
        t = np.trunc(f)
        ok = np.isfinite(f) & (t >= lo) & (t < hi)
        safe = np.where(ok, t, 0.0)
        if is_signed:
            v = safe.astype(np.int64).view(np.uint64)
        else:
            v = safe.astype(np.uint64)
        v = v & np.uint64(mask(bits)) if bits < 64 else v
        out = np.where(ok, v, np.uint64(poison))
        return (out & np.uint64(1)).astype(bool) if dd.kind == "b" else out.astype(dd)
    return convert


def select() -> Op:
    return Op(vector=lambda c, a, b: np.asarray(np.where(c, a, b)))
