"""How the lock-step interpreter holds values: one numpy array per SSA value, one element per lane.

  - i1: bool; other integers: the unsigned dtype that holds their width (i8 uint8 .. i64 uint64), the bit
    pattern masked to the width (so odd widths such as i24 live in uint32 with the top bits clear); integers
    wider than 64 bits: object arrays of Python ints (every operation on them goes lane by lane);
  - floats: float16/float32/float64, so numpy's array arithmetic rounds exactly as the scalar ops do;
  - pointers: uint64 addresses in the flat memory (lowering.interp.memory's layout).

`lanewise` is the bridge to the per-lane reference semantics (lowering.interp.ops): it converts the active
lanes to the scalar interpreter's values (Python ints, numpy float scalars), calls the scalar function
lane by lane, and converts back. Everything whose vector form would not be bit-identical goes through it.
"""
from __future__ import annotations

import functools
from typing import Any, Callable, Sequence

import numpy as np

from reconverge.lowering.interp.values import const_value, mask
from reconverge.lowering.ir.core import Const, Undef, Value
from reconverge.lowering.ir.types import Type

Array = Any        # a numpy array over lanes (numpy's stubs type most results as Any)


@functools.lru_cache(maxsize=None)
def dtype_of(ty: Type) -> np.dtype:
    """The numpy dtype holding values of IR type `ty` (see the module docstring)."""
    if ty.is_float:
        return np.dtype({16: np.float16, 32: np.float32, 64: np.float64}[ty.bits])
    if ty.is_ptr:
        return np.dtype(np.uint64)
    bits = ty.bits
    if bits == 1:
        return np.dtype(np.bool_)
    for width, dt in ((8, np.uint8), (16, np.uint16), (32, np.uint32), (64, np.uint64)):
        if bits <= width:
            return np.dtype(dt)
    return np.dtype(object)


def signed_dtype(ty: Type) -> np.dtype:
    """The signed dtype of the same container (for signed compares, shifts and extensions)."""
    return np.dtype(dtype_of(ty).str.replace("u", "i"))


def is_exact_width(ty: Type) -> bool:
    """Does the container hold exactly the type's bits (no masking after arithmetic)?"""
    return ty.is_ptr or ty.is_float or ty.bits in (8, 16, 32, 64)


def wrap(a: Array, ty: Type) -> Array:
    """Mask an integer result computed in the container dtype to the type's width."""
    if ty.is_int and ty.bits not in (8, 16, 32, 64) and a.dtype.kind != "O":
        if ty.bits == 1:
            return (a.astype(np.uint8) & 1).astype(bool)
        return a & a.dtype.type(mask(ty.bits))
    return a


def constant(v: Value, undef_byte: int) -> Any:
    """A Const/Undef operand as a numpy scalar of its dtype (it broadcasts against lane arrays)."""
    c = const_value(v, undef_byte)
    dt = dtype_of(v.type)
    if dt.kind == "O":
        return np.array([c], dtype=object)
    return dt.type(c)


def is_constant(v: Value) -> bool:
    return isinstance(v, (Const, Undef))


def full(x: Any, n: int, dt: np.dtype) -> Array:
    """`x` (a lane array or a scalar) as an array of n lanes of dtype dt."""
    a = np.asarray(x)
    if a.shape == (n,) and a.dtype == dt:
        return a
    if a.dtype.kind == "O" or dt.kind == "O":
        out = np.empty(n, dtype=object)
        out[:] = a if a.ndim else a.item()
        return out
    return np.broadcast_to(a.astype(dt, copy=False), (n,)).copy()


def to_scalars(a: Array, idx: Array) -> list[Any]:
    """The active lanes `idx` of `a` as the scalar interpreter's values."""
    sub = a[idx]
    if sub.dtype.kind == "f":
        return list(sub)                 # numpy scalars of the dtype: exact, rounding as the scalar ops do
    if sub.dtype.kind == "b":
        bits: list[Any] = sub.astype(np.uint8).tolist()
        return bits
    ints: list[Any] = sub.tolist()       # Python ints
    return ints


def from_scalars(values: Sequence[Any], dt: np.dtype) -> Array:
    if dt.kind == "b":
        return np.array([bool(v) for v in values], dtype=bool)
    if dt.kind == "O":
        out = np.empty(len(values), dtype=object)
        out[:] = list(values)
        return out
    return np.array(values, dtype=dt)


class LaneError(Exception):
    """An exception raised by a lane's computation: the lane index and the exception."""

    def __init__(self, lane: int, exc: Exception):
        super().__init__(lane, exc)
        self.lane, self.exc = lane, exc


def lanewise(f: Callable[..., Any], operands: Sequence[Any], idx: Array, n: int, dt: np.dtype,
             old: Array | None) -> Array:
    """f applied lane by lane (the scalar reference semantics) over the active lanes `idx`; the other
    lanes keep `old` (or zeros). Raises LaneError naming the first lane that fails."""
    columns = [to_scalars(full(x, n, np.asarray(x).dtype), idx) for x in operands]
    results = []
    lanes = idx.tolist()
    for k, args in enumerate(zip(*columns)):
        try:
            results.append(f(*args))
        except Exception as e:                                           # noqa: BLE001
            raise LaneError(lanes[k], e) from None
    if not operands:
        results = [f() for _ in lanes]
    out = full(old, n, dt).copy() if old is not None else full(np.zeros((), dt) if dt.kind != "O" else 0, n, dt)
    if len(lanes):
        out[idx] = from_scalars(results, dt)
    return out
