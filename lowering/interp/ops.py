"""Reference semantics of the IR's value-computing opcodes, one factory per opcode family.

Each factory takes the static facts of an instruction (opcode, types, predicate) and returns a plain
Python function on interpreter values (see values), so the executor resolves the opcode once and
the per-execution cost is one call. Everything here is pure: memory, control flow and work-item builtins
live in the executor.

Undefined behaviour: operations LLVM makes *immediate* UB (division by zero, signed division overflow)
raise InterpreterError. Operations that only yield poison (shift by >= width, out-of-range float-to-int)
produce a value instead, because optimized code may compute them speculatively and never use the result:
shift amounts are taken modulo the width (what x86 does for 32/64 bits), and float-to-int conversions that
do not fit give the x86 "integer indefinite" pattern (the minimum signed value).
"""
from __future__ import annotations

import ctypes
import ctypes.util
import math
import struct
from fractions import Fraction
from typing import Any, Callable

import numpy as np

from reconverge.lowering.interp.values import (
    FLOAT_DTYPES,
    InterpreterError,
    Val,
    bits_to_float,
    float_dtype,
    float_to_bits,
    mask,
    signed,
)
from reconverge.lowering.ir.opcodes import OPCODES, opcodes_of
from reconverge.lowering.ir.types import Type

# the families, as the opcode table defines them
INT_BINARY = tuple(n for n in opcodes_of("int") if OPCODES[n].n_operands == 2)
INT_UNARY = tuple(n for n in opcodes_of("int") if OPCODES[n].n_operands == 1)
FLOAT_BINARY = tuple(n for n in opcodes_of("float") if OPCODES[n].n_operands == 2)
CASTS = opcodes_of("cast")


# ----- integers -----

def int_binary(opcode: str, bits: int) -> Callable[[int, int], int]:
    """Two's complement arithmetic on masked bit patterns of width `bits`."""
    m = mask(bits)
    top = 1 << (bits - 1)
    full = 1 << bits

    def s(v: int) -> int:
        return v - full if v & top else v

    if opcode == "add":
        return lambda a, b: (a + b) & m
    if opcode == "sub":
        return lambda a, b: (a - b) & m
    if opcode == "mul":
        return lambda a, b: (a * b) & m
    if opcode in ("and", "or", "xor"):
        return {"and": lambda a, b: a & b, "or": lambda a, b: a | b, "xor": lambda a, b: a ^ b}[opcode]
    if opcode == "shl":
        return lambda a, b: (a << (b % bits)) & m
    if opcode == "lshr":
        return lambda a, b: a >> (b % bits)
    if opcode == "ashr":
        return lambda a, b: (s(a) >> (b % bits)) & m
    if opcode in ("udiv", "urem"):
        def udiv(a: int, b: int) -> int:
            if b == 0:
                raise InterpreterError(f"{opcode} by zero")
            return a // b if opcode == "udiv" else a % b
        return udiv
    if opcode in ("sdiv", "srem"):
        def sdiv(a: int, b: int) -> int:
            if b == 0:
                raise InterpreterError(f"{opcode} by zero")
            sa, sb = s(a), s(b)
            if sa == -top and sb == -1:
                raise InterpreterError(f"{opcode} overflow: {sa} / -1 does not fit in i{bits}")
            q, r = divmod(abs(sa), abs(sb))   # C semantics: quotient rounds toward zero, remainder
            if opcode == "sdiv":              # takes the dividend's sign
                return (-q if (sa < 0) != (sb < 0) else q) & m
            return (-r if sa < 0 else r) & m
        return sdiv
    if opcode == "smin":
        return lambda a, b: a if s(a) <= s(b) else b
    if opcode == "smax":
        return lambda a, b: a if s(a) >= s(b) else b
    if opcode == "umin":
        return min
    if opcode == "umax":
        return max
    if opcode == "mulhi_s":
        return lambda a, b: (s(a) * s(b) >> bits) & m
    if opcode == "mulhi_u":
        return lambda a, b: (a * b) >> bits
    raise InterpreterError(f"no integer binary opcode {opcode!r}")


def int_unary(opcode: str, bits: int) -> Callable[[int], int]:
    m = mask(bits)
    if opcode == "abs":
        return lambda a: abs(signed(a, bits)) & m      # INT_MIN stays INT_MIN
    if opcode == "popcount":
        return lambda a: a.bit_count()
    if opcode == "clz":
        return lambda a: bits - a.bit_length()
    if opcode == "ctz":
        return lambda a: (a & -a).bit_length() - 1 if a else bits
    if opcode == "bitreverse":
        return lambda a: int(format(a, f"0{bits}b")[::-1], 2)
    raise InterpreterError(f"no integer unary opcode {opcode!r}")


ICMP: dict[str, Callable[[Any, Any], bool]] = {
    "eq": lambda a, b: a == b, "ne": lambda a, b: a != b,
    "ugt": lambda a, b: a > b, "uge": lambda a, b: a >= b, "ult": lambda a, b: a < b, "ule": lambda a, b: a <= b,
}


def icmp(pred: str, bits: int) -> Callable[[int, int], int]:
    """Integer (and pointer) comparison; the result is an i1 (0 or 1)."""
    if pred in ICMP:
        f = ICMP[pred]
        return lambda a, b: int(f(a, b))
    if pred in ("sgt", "sge", "slt", "sle"):
        f = ICMP["u" + pred[1:]]
        return lambda a, b: int(f(signed(a, bits), signed(b, bits)))
    raise InterpreterError(f"unknown icmp predicate {pred!r}")


# ----- floats -----

def _nan(x: float) -> bool:
    return x != x


# Ordered predicates are false when either operand is NaN, unordered ones true: Python's float
# comparisons already give False for every ordered comparison with a NaN, and u<op> is not o<inverse op>.
FCMP: dict[str, Callable[[float, float], bool]] = {
    "false": lambda a, b: False, "true": lambda a, b: True,
    "oeq": lambda a, b: a == b, "ogt": lambda a, b: a > b, "oge": lambda a, b: a >= b,
    "olt": lambda a, b: a < b, "ole": lambda a, b: a <= b, "one": lambda a, b: a < b or a > b,
    "ord": lambda a, b: not (_nan(a) or _nan(b)), "uno": lambda a, b: _nan(a) or _nan(b),
    "ueq": lambda a, b: not (a < b or a > b), "ugt": lambda a, b: not a <= b, "uge": lambda a, b: not a < b,
    "ult": lambda a, b: not a >= b, "ule": lambda a, b: not a > b, "une": lambda a, b: not a == b,
}


def fcmp(pred: str) -> Callable[..., Val]:
    try:
        f = FCMP[pred]
    except KeyError:
        raise InterpreterError(f"unknown fcmp predicate {pred!r}") from None
    return lambda a, b: int(f(float(a), float(b)))    # float32/16 -> Python float is exact


def _fmin(a: Val, b: Val) -> Val:
    """The non-NaN operand, else the smaller; on a tie (-0.0 vs +0.0) the first, as the x86 JIT's minnum."""
    if a != a:
        return b
    return b if b < a else a


def _fmax(a: Val, b: Val) -> Val:
    if a != a:
        return b
    return b if b > a else a


def float_binary(opcode: str, ty: Type) -> Callable[..., Val]:
    """numpy scalar arithmetic in the operand dtype: IEEE round-to-nearest-even, as the CPU does."""
    dt = float_dtype(ty)
    ops: dict[str, Callable[..., Any]] = {
        "fadd": lambda a, b: a + b, "fsub": lambda a, b: a - b, "fmul": lambda a, b: a * b,
        "fdiv": lambda a, b: a / b, "frem": np.fmod, "fmin": _fmin, "fmax": _fmax,
    }
    try:
        f = ops[opcode]
    except KeyError:
        raise InterpreterError(f"no float binary opcode {opcode!r}") from None
    return lambda a, b: dt(f(a, b))


def fneg(a: Val) -> Val:
    return -a


def _odd_rounded_sum(p: float, c: float) -> float:
    """p + c rounded to double with round-to-odd: a later rounding to a format of at most 51 bits of
    precision is then the correctly rounded result (no double-rounding error)."""
    s = p + c
    if not math.isfinite(s):
        return s
    bb = s - p                               # TwoSum: e is exactly (p + c) - s
    e = (p - (s - bb)) + (c - bb)
    if e != 0 and not struct.unpack("<Q", struct.pack("<d", s))[0] & 1:
        s = math.nextafter(s, math.inf if e > 0 else -math.inf)
    return s


def fma(ty: Type) -> Callable[..., Val]:
    """a*b+c with a single rounding to the type."""
    dt = float_dtype(ty)
    if ty.bits < 64:
        # the product of two floats of <= 24 bits is exact in double; round the sum to odd, then to dt
        return lambda a, b, c: dt(_odd_rounded_sum(float(a) * float(b), float(c)))

    def fma64(a: Val, b: Val, c: Val) -> Val:
        fa, fb, fc = float(a), float(b), float(c)
        if not (math.isfinite(fa) and math.isfinite(fb) and math.isfinite(fc)):
            return dt(fa * fb + fc)          # infinities and NaNs: no rounding involved
        exact = Fraction(fa) * Fraction(fb) + Fraction(fc)
        if exact == 0:
            return dt(fa * fb + fc)          # the sign of a zero sum follows IEEE addition of the parts
        try:
            return dt(float(exact))          # int/int true division: correctly rounded
        except OverflowError:
            return dt(math.copysign(math.inf, exact))
    return fma64


def fmuladd(ty: Type) -> Callable[..., Val]:
    """a*b+c rounded after the multiply and again after the add."""
    dt = float_dtype(ty)
    return lambda a, b, c: dt(dt(a * b) + c)


def _round_half_away(x: Val) -> Val:
    t = np.trunc(x)
    if abs(x - t) >= 0.5:                    # x - trunc(x) is exact
        t = t + np.copysign(type(x)(1), x)
    return t


def _load_libm() -> ctypes.CDLL | None:
    try:
        return ctypes.CDLL(ctypes.util.find_library("m") or "libm.so.6")
    except OSError:
        return None


_LIBM = _load_libm()


def _libm_fn(name: str, bits: int, n_args: int) -> Callable[..., float] | None:
    """The C library's function for float (bits <= 32: the `f` variant) or double, or None."""
    if _LIBM is None:
        return None
    ctype = ctypes.c_double if bits == 64 else ctypes.c_float
    try:
        f = getattr(_LIBM, name if bits == 64 else name + "f")
    except AttributeError:
        return None
    f.argtypes, f.restype = [ctype] * n_args, ctype
    fn: Callable[..., float] = f
    return fn


# Functions with a single correct result: numpy computes them exactly in the operand precision.
EXACT_UNARY: dict[str, Callable[..., Any]] = {
    "sqrt": np.sqrt, "fabs": np.fabs, "floor": np.floor, "ceil": np.ceil, "trunc": np.trunc,
    "rint": np.rint, "round": _round_half_away}
EXACT_BINARY: dict[str, Callable[..., Any]] = {"copysign": np.copysign, "fmod": np.fmod}
# Transcendental functions: the C library's, as the CPU JIT of the original kernel calls them, so results
# agree bit for bit; numpy (whose float32 versions may differ by an ulp) only when no libm can be loaded.
LIBM_UNARY: dict[str, Callable[..., Any]] = {
    "exp": np.exp, "exp2": np.exp2, "log": np.log, "log2": np.log2, "log10": np.log10, "sin": np.sin,
    "cos": np.cos, "tan": np.tan, "asin": np.arcsin, "acos": np.arccos, "atan": np.arctan, "sinh": np.sinh,
    "cosh": np.cosh, "tanh": np.tanh, "cbrt": np.cbrt,
}
LIBM_BINARY: dict[str, Callable[..., Any]] = {"atan2": np.arctan2, "pow": np.power, "hypot": np.hypot}


def math_fn(fn: str, ty: Type, exponent_bits: int = 32) -> Callable[..., Val]:
    """libm-like functions of MATH_FUNCTIONS in the operand precision (half computes in float).

    `exponent_bits`: the width of ldexp's integer operand."""
    dt = float_dtype(ty)
    if fn in EXACT_UNARY:
        f = EXACT_UNARY[fn]
        return lambda a: dt(f(a))
    if fn in EXACT_BINARY:
        f = EXACT_BINARY[fn]
        return lambda a, b: dt(f(a, b))
    if fn in LIBM_UNARY or fn in LIBM_BINARY:
        n = 1 if fn in LIBM_UNARY else 2
        c = _libm_fn(fn, ty.bits, n)
        if c is None:
            f = (LIBM_UNARY if n == 1 else LIBM_BINARY)[fn]
            return (lambda a: dt(f(a))) if n == 1 else (lambda a, b: dt(f(a, b)))
        return (lambda a: dt(c(a))) if n == 1 else (lambda a, b: dt(c(a, b)))
    if fn == "rsqrt":                        # 1/sqrt, two roundings (what the oracle's library does)
        return lambda a: dt(dt(1) / np.sqrt(a))
    if fn == "exp10":                        # pow(10, x), as the oracle's library computes it
        p = math_fn("pow", ty)
        ten = dt(10)
        return lambda a: p(ten, a)
    if fn == "ldexp":                        # second operand: an integer exponent
        return lambda a, n: dt(np.ldexp(a, max(-100000, min(100000, signed(n, exponent_bits)))))
    raise InterpreterError(f"unknown math function {fn!r}")


# ----- conversions -----

def int_to_float(n: int, bits: int) -> Val:
    """Correctly rounded conversion of a Python int to a float of `bits` bits."""
    dt = FLOAT_DTYPES[bits]
    an = abs(n)
    if bits == 64 or an.bit_length() <= 53:
        try:
            return dt(float(n))              # CPython's int -> double is correctly rounded (and exact here)
        except OverflowError:
            return dt(math.copysign(math.inf, n))
    shift = an.bit_length() - 53             # keep 53 bits, rounded to odd, so the final rounding is right
    kept = an >> shift
    if an & ((1 << shift) - 1):
        kept |= 1
    try:
        x = math.ldexp(float(kept), shift)
    except OverflowError:
        x = math.inf
    return dt(-x if n < 0 else x)


def float_to_int(x: Val, bits: int, is_signed: bool) -> int:
    """Truncation toward zero; a value that does not fit (or NaN/inf) is poison: the minimum signed value."""
    f = float(x)
    lo, hi = (-(1 << (bits - 1)), 1 << (bits - 1)) if is_signed else (0, 1 << bits)
    if math.isfinite(f):
        v = int(f)
        if lo <= v < hi:
            return v & mask(bits)
    return (1 << (bits - 1)) & mask(bits)


def cast(opcode: str, src: Type, dst: Type) -> Callable[..., Val]:
    """LLVM cast semantics from `src` to `dst`."""
    if opcode in ("freeze", "addrspacecast"):
        return lambda a: a
    if opcode == "trunc" or opcode == "ptrtoint" or opcode == "inttoptr" or opcode == "zext":
        m = mask(dst.bits)
        return lambda a: a & m
    if opcode == "sext":
        m, sb = mask(dst.bits), src.bits
        return lambda a: signed(a, sb) & m
    if opcode in ("fptrunc", "fpext"):
        dt = float_dtype(dst)
        return lambda a: dt(a)
    if opcode in ("fptosi", "fptoui"):
        bits, sgn = dst.bits, opcode == "fptosi"
        return lambda a: float_to_int(a, bits, sgn)
    if opcode == "uitofp":
        bits = dst.bits
        return lambda a: int_to_float(a, bits)
    if opcode == "sitofp":
        bits, sb = dst.bits, src.bits
        return lambda a: int_to_float(signed(a, sb), bits)
    if opcode == "bitcast":
        if src.is_float and not dst.is_float:
            sb = src.bits
            return lambda a: float_to_bits(a, sb)
        if dst.is_float and not src.is_float:
            db = dst.bits
            return lambda a: bits_to_float(a, db)
        return lambda a: a
    raise InterpreterError(f"no cast opcode {opcode!r}")


def select(c: int, a: Val, b: Val) -> Val:
    return a if c else b
