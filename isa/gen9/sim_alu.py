"""Per-lane value semantics of Gen9 ALU instructions, vectorised over the lanes of one instruction.

Kept separate from the thread/mask machinery in simulator.py: everything here is a pure function of
numpy arrays, so it can be tested op by op against numpy references.

Model: integer sources are widened to int64 and float sources to float64; the result is converted
once to the destination type (wrapping for integers, round-to-nearest-even for floats; float to
integer truncates and clamps, NaN -> 0), with saturate clamping instead. Computing in float64 and
rounding once gives the correctly rounded float32 result for add/mul/div/sqrt; transcendental math
is therefore more accurate than the hardware's.
"""
from __future__ import annotations

from dataclasses import dataclass
from typing import Any, Callable

import numpy as np

from . import opcodes
from .model import DataType

NP_TYPE = {
    DataType.UD: np.uint32, DataType.D: np.int32, DataType.UW: np.uint16, DataType.W: np.int16,
    DataType.UB: np.uint8, DataType.B: np.int8, DataType.F: np.float32, DataType.HF: np.float16,
    DataType.DF: np.float64, DataType.UQ: np.uint64, DataType.Q: np.int64,
}
FLOAT_TYPES = {DataType.F, DataType.HF, DataType.DF}
SIGNED_INT = {DataType.D, DataType.W, DataType.B, DataType.Q}
LOGIC_OPS = frozenset(opcodes.LOGIC)
INT_ONLY = frozenset(opcodes.INT_ONLY)


class AluError(Exception):
    """An instruction form the ALU model does not cover."""


def is_float(t: DataType) -> bool:
    return t is DataType.F or t is DataType.HF or t is DataType.DF    # FLOAT_TYPES, without Enum.__hash__


def int_range(t: DataType) -> tuple[int, int]:
    bits = 8 * t.size
    return (-(1 << (bits - 1)), (1 << (bits - 1)) - 1) if t in SIGNED_INT else (0, (1 << bits) - 1)


def decode_immediate(value: int, t: DataType, n: int) -> np.ndarray:
    """The raw immediate bits as n lanes of its type (packed vectors V/UV/VF repeat every 8/4 lanes)."""
    value &= (1 << 64) - 1
    if t in (DataType.V, DataType.UV):
        nib = np.array([(value >> (4 * k)) & 0xF for k in range(8)], np.int64)
        if t == DataType.V:
            nib = np.where(nib >= 8, nib - 16, nib)
        return np.resize(nib.astype(np.int16 if t == DataType.V else np.uint16), n)
    if t == DataType.VF:
        # 8-bit restricted float: sign 7, exponent 6:4 (bias 3), mantissa 3:0; 0 encodes zero.
        out = []
        for k in range(4):
            b = (value >> (8 * k)) & 0xFF
            e, m = (b >> 4) & 7, b & 0xF
            mag = 0.0 if (e == 0 and m == 0) else (1 + m / 16) * 2.0 ** (e - 3)
            out.append(-mag if b & 0x80 else mag)
        return np.resize(np.array(out, np.float32), n)
    dtype = NP_TYPE.get(t)
    if dtype is None:
        raise AluError(f"immediate type {t.value} is not modelled")
    raw = np.array([value & ((1 << (8 * t.size)) - 1)], dtype=np.uint64)
    raw = raw.astype({1: np.uint8, 2: np.uint16, 4: np.uint32, 8: np.uint64}[t.size])
    return np.full(n, raw.view(dtype)[0], dtype=dtype)


def widen(values: np.ndarray, t: DataType) -> np.ndarray:
    return values.astype(np.float64) if is_float(t) else values.astype(np.int64)


def apply_modifiers(x: np.ndarray, t: DataType, abs_: bool, neg: bool, logic: bool) -> np.ndarray:
    """Source modifiers: abs then negate; on logic ops (Gen8+) the negate modifier is a bitwise NOT."""
    if logic:
        return ~x if neg else x
    if abs_:
        x = np.abs(x)
    if neg:
        x = -x
    return x


def convert(x: np.ndarray, t: DataType, saturate: bool) -> np.ndarray:
    """Round/clamp/wrap a widened result into destination type `t`."""
    with np.errstate(over="ignore", invalid="ignore"):
        return converter(t, saturate)(x)


def converter(t: DataType, saturate: bool) -> Callable[[np.ndarray], np.ndarray]:
    """convert() into `t` settled once (the batched simulator's plans call it under np.errstate(all="ignore"))."""
    dtype = NP_TYPE.get(t)
    if dtype is None:
        raise AluError(f"destination type {t.value} is not modelled")
    if is_float(t):
        def to_float(x: np.ndarray) -> np.ndarray:
            if x.dtype.kind in "iu" and not saturate and t != DataType.HF:
                return x.astype(dtype)      # an integer rounded once (through float64, a :q above 2^53 twice)
            x = x.astype(np.float64, copy=False)
            if saturate:
                x = np.where(np.isnan(x), 0.0, np.clip(x, 0.0, 1.0))
            return x.astype(dtype)
        return to_float
    lo, hi = int_range(t)
    unsigned64 = t == DataType.UQ

    def to_int(x: np.ndarray) -> np.ndarray:
        if x.dtype.kind == "f":
            x = np.clip(np.where(np.isnan(x), 0.0, np.trunc(x)), lo, hi)
            return x.astype(np.uint64) if unsigned64 else x.astype(np.int64).astype(dtype)
        x = x.astype(np.int64, copy=False)
        if saturate:
            x = np.clip(x, lo, hi)
        return x.astype(dtype)      # two's-complement wrap
    return to_int


_CONDITIONS: dict[str, Callable[[np.ndarray], np.ndarray]] = {
    "eq": lambda x: x == 0, "z": lambda x: x == 0, "ne": lambda x: x != 0, "nz": lambda x: x != 0,
    "gt": lambda x: x > 0, "g": lambda x: x > 0, "ge": lambda x: x >= 0, "lt": lambda x: x < 0,
    "l": lambda x: x < 0, "le": lambda x: x <= 0,
    "un": lambda x: np.isnan(x) if x.dtype.kind == "f" else np.zeros(x.shape, bool),
    "ov": lambda x: np.zeros(x.shape, bool),            # overflow flag is not modelled
}
_COMPARES: dict[str, Callable[[np.ndarray, np.ndarray], np.ndarray]] = {
    "eq": np.equal, "z": np.equal, "ne": np.not_equal, "nz": np.not_equal, "gt": np.greater, "g": np.greater,
    "ge": np.greater_equal, "lt": np.less, "l": np.less, "le": np.less_equal,
    "un": lambda a, b: (np.isnan(a) | np.isnan(b)) if a.dtype.kind == "f" else np.zeros(a.shape, bool),
}


def conditioner(cond: str) -> Callable[[np.ndarray], np.ndarray]:
    """The conditional modifier `cond`: a result compared with zero."""
    fn = _CONDITIONS.get(cond)
    if fn is None:
        raise AluError(f"conditional modifier {cond!r} is not modelled")
    return fn


def condition(x: np.ndarray, cond: str) -> np.ndarray:
    """Conditional modifier on a result compared with zero."""
    fn = conditioner(cond)
    with np.errstate(invalid="ignore"):
        return fn(x)


def comparer(cond: str) -> Callable[[np.ndarray, np.ndarray], np.ndarray] | None:
    """cmp's src0 <cond> src1 (NaN compares false except ne; un = unordered); None: not modelled."""
    return _COMPARES.get(cond)


def compare(a: np.ndarray, b: np.ndarray, cond: str) -> np.ndarray | None:
    """cmp: src0 <cond> src1 (NaN compares false except ne; un = unordered); None: not modelled."""
    fn = _COMPARES.get(cond)
    if fn is None:
        return None
    with np.errstate(invalid="ignore"):
        return fn(a, b)


def exec_bits(types: list[DataType]) -> int:
    """Integer execution width: bytes execute as words (Gen has no byte execution type)."""
    return max(16, 8 * max(t.size for t in types))


def _mask(bits: int) -> int:
    return (1 << bits) - 1


def _unsigned(x: np.ndarray, bits: int) -> np.ndarray:
    return x & _mask(bits) if bits < 64 else x


def _bit_length(u: np.ndarray) -> np.ndarray:
    """Number of significant bits of non-negative int64 values (0 for 0)."""
    out = np.zeros(u.shape, np.int64)
    v = u.copy()
    for shift in (32, 16, 8, 4, 2, 1):
        big = v >= (1 << shift)
        out[big] += shift
        v[big] >>= shift
    return out + (v > 0)


def _popcount32(u: np.ndarray) -> np.ndarray:
    v = u.astype(np.uint64) & np.uint64(0xFFFFFFFF)
    return np.unpackbits(v.astype("<u4").view(np.uint8).reshape(-1, 4), axis=1).sum(axis=1).astype(np.int64)


def _bitrev32(u: np.ndarray) -> np.ndarray:
    b = (u.astype(np.uint64) & np.uint64(0xFFFFFFFF)).astype("<u4").view(np.uint8).reshape(-1, 4)
    bits = np.unpackbits(b, axis=1, bitorder="little")[:, ::-1]
    return np.packbits(bits, axis=1, bitorder="little").view("<u4").reshape(-1).astype(np.int64)


def math_function(fc: str, a: np.ndarray, b: np.ndarray | None, ta: DataType) -> np.ndarray:
    """The EU math box (math instruction); exp/log are base 2 as on Gen."""
    with np.errstate(all="ignore"):
        if fc in ("idiv", "iqot", "irem"):
            if b is None:
                raise AluError(f"math.{fc} needs two sources")
            if is_float(ta):
                raise AluError("integer math on float sources")
            # truncating (C) division; division by zero gives quotient -1, remainder = dividend
            safe_b = np.where(b == 0, 1, b)
            q = np.where(b != 0, np.sign(a) * np.sign(safe_b) * (np.abs(a) // np.abs(safe_b)), -1)
            r = np.where(b != 0, a - q * safe_b, a)
            return r if fc == "irem" else q
        fn = {"inv": lambda: 1.0 / a, "sqrt": lambda: np.sqrt(a), "sqt": lambda: np.sqrt(a),
              "rsq": lambda: 1.0 / np.sqrt(a),
              "rsqt": lambda: 1.0 / np.sqrt(a), "exp": lambda: np.exp2(a), "log": lambda: np.log2(a),
              "sin": lambda: np.sin(a), "cos": lambda: np.cos(a), "pow": lambda: np.power(a, _second(b, fc)),
              "fdiv": lambda: a / _second(b, fc)}.get(fc)
        if fn is None:
            raise AluError(f"math function {fc!r} is not modelled")
        return fn()


def _second(b: np.ndarray | None, op: str) -> np.ndarray:
    if b is None:
        raise AluError(f"{op} needs a second source")
    return b


@dataclass
class _Args:
    """One ALU instruction's widened, modified sources and what the handlers need besides."""
    xs: list[np.ndarray]
    types: list[DataType]
    bits: int                    # integer execution width (64 when any source is a float)
    inst: Any
    acc: np.ndarray | None

    @property
    def a(self) -> np.ndarray:
        return self.xs[0]

    @property
    def b(self) -> np.ndarray:
        if len(self.xs) < 2:
            raise AluError("a second source is missing")
        return self.xs[1]


def _shl(x: _Args) -> np.ndarray:
    count = x.b & (x.bits - 1)
    return (x.a << count) & _mask(x.bits) if x.bits < 64 else x.a << count


def _shr(x: _Args) -> np.ndarray:
    count = x.b & (x.bits - 1)
    if x.bits == 64:                               # logical: at 64 bits through uint64, not int64's sign
        return (x.a.astype(np.uint64) >> count.astype(np.uint64)).astype(np.int64)
    return _unsigned(x.a, x.bits) >> count


def _asr(x: _Args) -> np.ndarray:
    count, a, bits = x.b & (x.bits - 1), x.a, x.bits
    signed = a if bits == 64 else np.where(a & (1 << (bits - 1)), (a | ~_mask(bits)), a & _mask(bits))
    return signed >> count


def _avg(x: _Args) -> np.ndarray:
    return (x.a + x.b + 1) >> 1


def _mach(x: _Args) -> np.ndarray:
    prod = [int(p) * int(q) for p, q in zip(x.a, x.b)]
    return np.array([(p >> 32) for p in prod], dtype=np.int64)


def _fbl(x: _Args) -> np.ndarray:
    u = x.a & 0xFFFFFFFF
    low = u & -u
    return np.where(u == 0, -1, _bit_length(low) - 1)


def _fbh(x: _Args) -> np.ndarray:
    a = x.a
    if x.types[0] in SIGNED_INT:
        s = np.where(a < 0, ~a, a) & 0xFFFFFFFF      # first bit differing from the sign bit
    else:
        s = a & 0xFFFFFFFF
    return np.where(s == 0, -1, 32 - _bit_length(s))


# The modelled ALU opcodes (a subset of the opcode table's ALU rows; cmp and sel, which choose rather than
# compute, are the simulator's own), one handler each.
HANDLERS: dict[str, Callable[[_Args], np.ndarray]] = {
    "mov": lambda x: x.a,
    "not": lambda x: ~x.a,
    "and": lambda x: x.a & x.b,
    "or": lambda x: x.a | x.b,
    "xor": lambda x: x.a ^ x.b,
    "shl": _shl,
    "shr": _shr,
    "asr": _asr,
    "add": lambda x: x.a + x.b,
    "avg": _avg,
    "mul": lambda x: x.a * x.b,
    "mac": lambda x: (x.acc if x.acc is not None else 0) + x.a * x.b,
    "mach": _mach,
    "mad": lambda x: x.xs[0] + x.xs[1] * x.xs[2],      # Gen mad: src0 + src1 * src2
    "frc": lambda x: x.a - np.floor(x.a),
    "rndd": lambda x: np.floor(x.a),
    "rndu": lambda x: np.ceil(x.a),
    "rnde": lambda x: np.rint(x.a),
    "rndz": lambda x: np.trunc(x.a),
    "lzd": lambda x: 32 - _bit_length(x.a & 0xFFFFFFFF),
    "cbit": lambda x: _popcount32(x.a),
    "bfrev": lambda x: _bitrev32(x.a),
    "fbl": _fbl,
    "fbh": _fbh,
    "math": lambda x: math_function(x.inst.math_fc or "", x.a, x.xs[1] if len(x.xs) > 1 else None, x.types[0]),
}
assert set(HANDLERS) <= {o.name for o in opcodes.TABLE if o.alu}, "a handler for an opcode the table lacks"


def planned(op: str, types: list[DataType], inst: Any) -> Callable[[list[np.ndarray], np.ndarray | None], np.ndarray]:
    """compute() for one instruction, its checks and execution width settled once: a function of the
    sources and the accumulator lanes (call it under np.errstate(all="ignore"), as compute does)."""
    handler = HANDLERS.get(op)
    if handler is None:
        raise AluError(f"opcode {op!r} is not modelled")
    floaty = any(is_float(t) for t in types)
    if floaty and op in INT_ONLY:
        raise AluError(f"{op} on float operands")
    bits = 64 if floaty else exec_bits(types)

    def run(xs: list[np.ndarray], acc: np.ndarray | None = None) -> np.ndarray:
        if floaty:
            xs = [x.astype(np.float64, copy=False) for x in xs]
        return handler(_Args(xs, types, bits, inst, acc))
    return run


def compute(op: str, xs: list[np.ndarray], types: list[DataType], inst: Any,
            acc: np.ndarray | None = None) -> np.ndarray:
    """The widened result of a non-cmp, non-sel ALU op on widened, modified sources."""
    run = planned(op, types, inst)
    with np.errstate(all="ignore"):
        return run(xs, acc)
