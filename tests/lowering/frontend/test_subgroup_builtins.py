"""OpenCL C sub-group built-ins read into the IR's sub-group opcodes (lowering/frontend/subgroups.py)."""
from __future__ import annotations

import numpy as np
import pytest

from reconverge.lowering.errors import CompileError
from reconverge.lowering.ir.builder import InsertBefore, become
from reconverge.lowering.ir.core import Const
from reconverge.lowering.ir.types import I32, I64
from tests.lowering.frontend.helpers import instrs, read_cl

LEVELS = ("-O0", "-O2")

CROSS_LANE = """
kernel void k(global int *out, global float *f, global uchar *c, global long *l, global double *d) {
  int x = get_global_id(0);
  out[x] = sub_group_reduce_add(x) + sub_group_scan_inclusive_max(x) + sub_group_scan_exclusive_min((uint)x)
         + sub_group_non_uniform_reduce_logical_xor(x) + sub_group_clustered_reduce_mul(x, 4u)
         + sub_group_all(x) + sub_group_non_uniform_any(x) + sub_group_elect() + sub_group_non_uniform_all_equal(x);
  f[x] = sub_group_shuffle(f[x], 3u) + sub_group_shuffle_xor(f[x], 1u) + sub_group_shuffle_up(f[x], 1u)
       + sub_group_shuffle_down(f[x], 2u) + sub_group_reduce_max(f[x]) + sub_group_non_uniform_scan_inclusive_mul(f[x]);
  c[x] = sub_group_non_uniform_broadcast(c[x], 2u) + sub_group_broadcast_first(c[x]);
  l[x] = sub_group_reduce_min(l[x]);
  d[x] = sub_group_reduce_add(d[x]);
  sub_group_barrier(CLK_LOCAL_MEM_FENCE);
}
"""


@pytest.mark.parametrize("level", LEVELS)
def test_each_cross_lane_builtin_is_one_subgroup_instruction(level):
    f = read_cl(CROSS_LANE, level)["k"]
    got = {(i.attrs["op"], i.attrs.get("arith"), i.attrs.get("cluster"), str(i.type)) for i in instrs(f, "subgroup")}
    assert got >= {("reduce", "add", None, "i32"), ("inclusive_scan", "smax", None, "i32"),
                   ("exclusive_scan", "umin", None, "i32"), ("reduce", "xor", None, "i1"),
                   ("reduce", "mul", 4, "i32"), ("all", None, None, "i1"), ("any", None, None, "i1"),
                   ("elect", None, None, "i1"), ("all_equal", None, None, "i1"), ("shuffle", None, None, "f32"),
                   ("shuffle_xor", None, None, "f32"), ("shuffle_up", None, None, "f32"),
                   ("shuffle_down", None, None, "f32"), ("reduce", "fmax", None, "f32"),
                   ("inclusive_scan", "fmul", None, "f32"), ("broadcast", None, None, "i8"),
                   ("broadcast_first", None, None, "i8"), ("reduce", "smin", None, "i64"),
                   ("reduce", "fadd", None, "f64")}
    assert len(instrs(f, "subgroup_barrier")) == 1
    assert not instrs(f, "call")


def test_a_vector_broadcast_is_one_instruction_per_component():
    f = read_cl("kernel void k(global int4 *o) { o[0] = sub_group_broadcast(o[1], 1u); }")["k"]
    assert [str(i.type) for i in instrs(f, "subgroup")] == ["i32"] * 4


def test_a_cluster_size_that_is_not_a_constant_is_a_clear_error():
    with pytest.raises(CompileError, match="cluster size must be a constant power of two"):
        read_cl("kernel void k(global int *o, uint n) { o[0] = sub_group_clustered_reduce_add(o[1], n); }")


BALLOT_QUERIES = """
kernel void q(global uint4 *value, global uint *index, global uint *out) {
  uint i = get_global_id(0);
  uint4 v = value[i];
  uint4 ge = get_sub_group_ge_mask(), lt = get_sub_group_lt_mask(), eq = get_sub_group_eq_mask();
  uint *o = out + 16 * i;
  o[0] = sub_group_inverse_ballot(v); o[1] = sub_group_ballot_bit_extract(v, index[i]);
  o[2] = sub_group_ballot_bit_count(v); o[3] = sub_group_ballot_inclusive_scan(v);
  o[4] = sub_group_ballot_exclusive_scan(v); o[5] = sub_group_ballot_find_lsb(v);
  o[6] = sub_group_ballot_find_msb(v); o[7] = ge.x; o[8] = ge.y; o[9] = lt.x; o[10] = lt.y; o[11] = eq.x;
  o[12] = eq.y; o[13] = ge.z;
}
"""


def _expected_queries(words: np.ndarray, index: np.ndarray, lane: np.ndarray, size: int) -> np.ndarray:
    """numpy's answer: the 128-bit ballot of each item, queried as OpenCL C 3.0 section 6.15.16.5 says,
    over lanes 0 .. size-1."""
    out = np.zeros((len(words), 16), np.uint32)
    for i, (w, k, lid) in enumerate(zip(words, index, lane)):
        bits = [(int(w[b // 32]) >> (b % 32)) & 1 for b in range(128)]
        kept = [bits[b] if b < size else 0 for b in range(128)]
        set_bits = [b for b in range(128) if kept[b]]
        ge = sum(1 << b for b in range(lid, size))
        lt = sum(1 << b for b in range(0, lid))
        eq = 1 << lid
        out[i, :14] = [bits[lid], bits[k] if k < 128 else 0, sum(kept), sum(kept[:lid + 1]), sum(kept[:lid]),
                       set_bits[0] if set_bits else 0xFFFFFFFF, set_bits[-1] if set_bits else 0xFFFFFFFF,
                       ge & 0xFFFFFFFF, ge >> 32 & 0xFFFFFFFF, lt & 0xFFFFFFFF, lt >> 32 & 0xFFFFFFFF,
                       eq & 0xFFFFFFFF, eq >> 32 & 0xFFFFFFFF, ge >> 64 & 0xFFFFFFFF]
    return out


@pytest.mark.parametrize("size", (8, 32, 64))
def test_ballot_bit_queries_and_lane_masks_are_integer_arithmetic_that_numpy_agrees_with(size):
    """The queries need no target support: with the two sub-group values they read (the lane id and the
    sub-group size) pinned to a work-item function and a constant, the per-item interpreter runs them."""
    from reconverge.lowering.interp.run import run_kernel
    f = read_cl(BALLOT_QUERIES, "-O2")["q"]
    assert not instrs(f, "subgroup")
    for ins in instrs(f, "subgroup_info"):
        if ins.attrs["fn"] == "max_size":
            become(ins, "add", [Const(I32, size), Const(I32, 0)])
        else:
            b = InsertBefore(ins)
            lid = b.op("trunc", [b.op("workitem", [Const(I32, 0)], I64, fn="local_id")], I32)
            become(ins, "urem", [lid, Const(I32, size)])
    rng = np.random.default_rng(23)
    n = 96
    words = rng.integers(0, 2**32, (n, 4), dtype=np.uint64).astype(np.uint32)
    words[::7] = 0                                             # no bit set: find_lsb/msb give all ones
    index = rng.integers(0, 140, n).astype(np.uint32)
    out = np.zeros(16 * n, np.uint32)
    run_kernel(f, [words.reshape(-1), index, out], n, n)
    want = _expected_queries(words, index, np.arange(n) % size, size)
    assert np.array_equal(out.reshape(n, 16), want)
