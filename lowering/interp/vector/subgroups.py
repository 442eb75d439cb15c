"""Sub-group operations over the active lanes of each sub-group: the executable definition of issue 23's
shared semantics, which every other target is checked against.

Sub-group k of a work-group holds the lanes whose linear local id is in [k*S, (k+1)*S), S the sub-group
size (--subgroup-size); the last one of a work-group may be partial. `Layout` arranges a batch's lanes as
a matrix, one row per sub-group and one column per sub-group lane (-1 where a partial sub-group has no
lane), so that an operation is a few numpy steps over columns. The active lanes are those executing the
instruction together under the lock-step walk's mask.

Reductions and scans combine the active lanes in increasing lane order, one column at a time, with the
opcode's own vector arithmetic (lowering.interp.vector.vops): integers wrap, floats round after each
step (so float sums are sequential in lane order). A reduction starts from its first active lane;
exclusive scans give the lowest active lane the identity (add/or/xor 0, mul 1, and all-ones, smin INT_MAX,
smax INT_MIN, umin all-ones, umax 0, fadd +0.0, fmul 1.0, fmin +inf, fmax -inf). Clustered reduce works
within aligned clusters [j*C, (j+1)*C). fmin/fmax pick the non-NaN operand; all_equal compares with ==
(for floats: a NaN is equal to nothing). A broadcast or shuffle whose source lane is outside the
sub-group or inactive is undefined: an InterpreterError (LaneError names the reading lane).
"""
from __future__ import annotations

from typing import Any, Callable

import numpy as np

from reconverge.lowering.interp.values import InterpreterError, mask
from reconverge.lowering.interp.vector import vops
from reconverge.lowering.interp.vector.lanes import Array, LaneError, dtype_of
from reconverge.lowering.ir.types import Type

DEFAULT_SUBGROUP_SIZE = 16       # gen's default SIMD width


class Layout:
    """The sub-groups of a batch of `groups` work-groups of `local` work-items each (lanes group-major,
    by linear local id), sub-group size `size`."""

    def __init__(self, groups: int, local: int, size: int):
        self.size = size
        per_group = -(-local // size)
        self.num_per_group = per_group
        n = groups * local
        lane = np.arange(n, dtype=np.int64)
        local_id = lane % local
        self.lane_row = (lane // local) * per_group + local_id // size
        self.lane_col = local_id % size
        rows = groups * per_group
        cols = np.arange(size, dtype=np.int64)
        row_group, row_k = np.divmod(np.arange(rows, dtype=np.int64), per_group)
        lid = row_k[:, None] * size + cols[None, :]
        self.valid = lid < local
        self.rows = np.where(self.valid, row_group[:, None] * local + lid, 0)
        sg_size = np.minimum(size, local - row_k * size)
        self.row_size = sg_size
        self.info = {
            "size": sg_size[self.lane_row].astype(np.uint32),
            "max_size": np.full(n, size, np.uint32),
            "num": np.full(n, per_group, np.uint32),
            "id": (local_id // size).astype(np.uint32),
            "local_id": self.lane_col.astype(np.uint32),
        }

    def active(self, act: Array) -> Array:
        """The (rows, size) matrix of active lanes."""
        return act[self.rows] & self.valid


_INT_ARITH = {"add": "add", "mul": "mul", "and": "and", "or": "or", "xor": "xor", "smin": "smin", "smax": "smax",
              "umin": "umin", "umax": "umax"}


def _combine(arith: str, ty: Type) -> Callable[[Array, Array], Array]:
    if arith in _INT_ARITH:
        op = vops.int_binary(_INT_ARITH[arith], ty)
    else:
        op = vops.float_binary(arith, ty)
    assert op.vector is not None
    return op.vector


def identity(arith: str, ty: Type) -> Any:
    """The exclusive scan's value for the lowest active lane."""
    dt = dtype_of(ty)
    if ty.is_float:
        return dt.type({"fadd": 0.0, "fmul": 1.0, "fmin": np.inf, "fmax": -np.inf}[arith])
    bits, m = ty.bits, mask(ty.bits)
    value = {"add": 0, "or": 0, "xor": 0, "umax": 0, "mul": 1, "and": m, "umin": m,
             "smin": m >> 1, "smax": 1 << (bits - 1)}[arith]
    return dt.type(bool(value)) if dt.kind == "b" else dt.type(value)


def scan_matrix(x: Array, a: Array, arith: str, ty: Type, kind: str) -> Array:
    """reduce / inclusive_scan / exclusive_scan along the rows of matrix x over its active entries a."""
    f = _combine(arith, ty)
    dt = x.dtype
    rows, cols = x.shape
    acc = np.zeros(rows, dt)
    started = np.zeros(rows, bool)
    out = np.empty_like(x) if kind != "reduce" else None
    ident = identity(arith, ty) if kind == "exclusive_scan" else dt.type(0)
    for j in range(cols):
        col, on = x[:, j], a[:, j]
        if kind == "exclusive_scan":
            assert out is not None
            out[:, j] = np.where(started, acc, ident)
        new = np.where(started, f(acc, col), col)
        acc = np.where(on, new, acc).astype(dt, copy=False)
        started |= on
        if kind == "inclusive_scan":
            assert out is not None
            out[:, j] = acc
    if kind == "reduce":
        return np.broadcast_to(acc[:, None], x.shape)
    assert out is not None
    return out


def _source_error(op: str, src: Array, ok_range: Array, ok_active: Array, act_lanes: Array) -> None:
    bad = ~(ok_range & ok_active) & act_lanes
    if bad.any():
        lane = int(np.argmax(bad))
        why = "outside the sub-group" if not ok_range[lane] else "inactive"
        raise LaneError(lane, InterpreterError(
            f"subgroup.{op} reads sub-group lane {int(src[lane])}, which is {why} (undefined)"))


def subgroup_op(attrs: dict[str, Any], ty: Type, operand_types: list[Type], layout: Layout, act: Array,
                values: list[Array]) -> Array:
    """The result of `subgroup.<op>` for every lane (meaningful in the active ones)."""
    op = attrs["op"]
    a = layout.active(act)
    rows, cols = layout.lane_row, layout.lane_col
    if op in ("reduce", "inclusive_scan", "exclusive_scan"):
        x = values[0][layout.rows]
        cluster = int(attrs.get("cluster", 0) or 0)
        if op == "reduce" and 0 < cluster < layout.size:
            r, s = x.shape
            m = scan_matrix(x.reshape(r * s // cluster, cluster), a.reshape(r * s // cluster, cluster),
                            attrs["arith"], ty, "reduce").reshape(r, s)
        else:
            m = scan_matrix(x, a, attrs["arith"], ty, op)
        return m[rows, cols]
    if op in ("broadcast", "shuffle", "shuffle_xor", "shuffle_up", "shuffle_down"):
        x = values[0][layout.rows]
        arg = np.asarray(values[1]).astype(np.int64) & 0xFFFFFFFF
        arg = np.broadcast_to(arg, rows.shape)
        src = {"broadcast": arg, "shuffle": arg, "shuffle_xor": cols ^ arg, "shuffle_up": cols - arg,
               "shuffle_down": cols + arg}[op]
        in_range = (src >= 0) & (src < layout.row_size[rows])
        safe = np.where(in_range, src, 0)
        _source_error(op, src, in_range, a[rows, safe], act)
        return x[rows, safe]
    if op == "broadcast_first":
        first = np.argmax(a, axis=1)
        return values[0][layout.rows][rows, first[rows]]
    if op == "elect":
        first = np.argmax(a, axis=1)
        return cols == first[rows]
    if op in ("all", "any"):
        x = values[0][layout.rows].astype(bool)
        per_row = ~(a & ~x).any(axis=1) if op == "all" else (a & x).any(axis=1)
        return per_row[rows]
    if op == "all_equal":
        x = values[0][layout.rows]
        first = np.argmax(a, axis=1)
        ref = x[np.arange(len(x)), first]
        same = x == ref[:, None]
        return (~(a & ~same).any(axis=1))[rows]
    if op == "ballot":
        word = int(attrs.get("word", 0))
        x = values[0][layout.rows].astype(bool) & a
        bits = np.zeros(len(x), np.uint64)
        for j in range(32 * word, min(32 * word + 32, layout.size)):
            bits |= x[:, j].astype(np.uint64) << np.uint64(j - 32 * word)
        return bits.astype(np.uint32)[rows]
    raise InterpreterError(f"subgroup operation {op!r} is not interpretable")
