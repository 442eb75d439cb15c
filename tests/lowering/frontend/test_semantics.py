"""What the reader produces computes what clang's IR computes: run it with the IR interpreter and compare
with numpy references (builtins the JIT oracle lacks) and with the JIT oracle itself (builtin-heavy kernels)."""
from __future__ import annotations

import numpy as np
import pytest

from reconverge.lowering.frontend.llvm_reader import read_llvm_text
from tests.lowering.frontend.helpers import HEADER, cl_ir

interp = pytest.importorskip("reconverge.lowering.interp")
LEVELS = ("-O0", "-O2")


def run_cl(src: str, kernel: str, args: list, level: str, n: int = 1):
    f = read_llvm_text(cl_ir(src, level), "sem.cl", kernel)[kernel]
    interp.run_kernel(f, args, n, 1)
    return args


def run_ll(body: str, kernel: str, args: list, n: int = 1):
    f = read_llvm_text(HEADER + body, "sem.ll", kernel)[kernel]
    interp.run_kernel(f, args, n, 1)
    return args


CONVERT = """
kernel void cv(global const float *x, global const int *k, global int *o, global uchar *s, global float *h,
               global half *hb)
{
    int i = get_global_id(0);
    o[4*i+0] = convert_int_rte(x[i]);
    o[4*i+1] = convert_int_rtn(x[i]);
    o[4*i+2] = convert_int_rtp(x[i]);
    o[4*i+3] = convert_int(x[i]);
    s[i] = convert_uchar_sat(k[i]);
    vstore_half(x[i], i, hb);
    h[i] = vload_half(i, hb);
}
"""


@pytest.mark.parametrize("level", LEVELS)
def test_conversions_and_half_memory(level):
    x = np.array([-2.5, -1.5, -0.4, 0.5, 1.5, 2.5, 3.7, -3.7], np.float32)
    k = np.array([-5, 0, 17, 255, 256, 1000, -1, 128], np.int32)
    o = np.zeros(32, np.int32)
    s = np.zeros(8, np.uint8)
    h = np.zeros(8, np.float32)
    hb = np.zeros(8, np.float16)
    run_cl(CONVERT, "cv", [x, k, o, s, h, hb], level, n=8)
    o = o.reshape(8, 4)
    assert o[:, 0].tolist() == np.rint(x).astype(np.int32).tolist()
    assert o[:, 1].tolist() == np.floor(x).astype(np.int32).tolist()
    assert o[:, 2].tolist() == np.ceil(x).astype(np.int32).tolist()
    assert o[:, 3].tolist() == np.trunc(x).astype(np.int32).tolist()
    assert s.tolist() == np.clip(k, 0, 255).tolist()
    assert h.tolist() == x.astype(np.float16).astype(np.float32).tolist()
    assert hb.tolist() == x.astype(np.float16).tolist()


INTS = """
kernel void ints(global const uint *a, global const uint *b, global uint *o, global int *so)
{
    int i = get_global_id(0);
    uint x = a[i], y = b[i];
    int sx = (int)x, sy = (int)y;
    o[8*i+0] = rotate(x, y);
    o[8*i+1] = add_sat(x, y);
    o[8*i+2] = sub_sat(x, y);
    o[8*i+3] = hadd(x, y);
    o[8*i+4] = rhadd(x, y);
    o[8*i+5] = abs_diff(sx, sy);
    o[8*i+6] = mul_hi(x, y);
    o[8*i+7] = popcount(x) + 100 * clz(y) + 10000 * ctz(x);
    so[2*i+0] = add_sat(sx, sy);
    so[2*i+1] = sub_sat(sx, sy);
}
"""


@pytest.mark.parametrize("level", LEVELS)
def test_integer_builtins(level):
    rng = np.random.default_rng(5)
    a = np.concatenate([rng.integers(0, 2**32, 12, dtype=np.uint64),
                        [0, 0xFFFFFFFF, 0x80000000, 0x7FFFFFFF]]).astype(np.uint32)
    b = np.concatenate([rng.integers(0, 2**32, 12, dtype=np.uint64), [1, 0xFFFFFFFF, 0x80000000, 1]]).astype(np.uint32)
    o = np.zeros(8 * 16, np.uint32)
    so = np.zeros(2 * 16, np.int32)
    run_cl(INTS, "ints", [a, b, o, so], level, n=16)
    o = o.reshape(16, 8)
    for i, (x, y) in enumerate(zip(a.tolist(), b.tolist())):
        sx, sy = (v - (1 << 32) if v >> 31 else v for v in (x, y))
        r = y % 32
        assert o[i, 0] == ((x << r) | (x >> (32 - r))) & 0xFFFFFFFF if r else x
        assert o[i, 1] == min(x + y, 0xFFFFFFFF)
        assert o[i, 2] == max(x - y, 0)
        assert o[i, 3] == (x + y) >> 1
        assert o[i, 4] == (x + y + 1) >> 1
        assert o[i, 5] == abs(sx - sy)
        assert o[i, 6] == (x * y) >> 32
        clz = 32 - y.bit_length()
        ctz = (x & -x).bit_length() - 1 if x else 32
        assert o[i, 7] == (bin(x).count("1") + 100 * clz + 10000 * ctz) & 0xFFFFFFFF
        assert so[2 * i] == max(min(sx + sy, 2**31 - 1), -2**31)
        assert so[2 * i + 1] == max(min(sx - sy, 2**31 - 1), -2**31)


def test_intrinsic_sequences():
    body = """
define spir_kernel void @k(ptr addrspace(1) %a, ptr addrspace(1) %o) {
  %x = load i32, ptr addrspace(1) %a
  %p1 = getelementptr i32, ptr addrspace(1) %a, i64 1
  %y = load i32, ptr addrspace(1) %p1
  %r0 = call i32 @llvm.fshl.i32(i32 %x, i32 %y, i32 %y)
  %r1 = call i32 @llvm.fshr.i32(i32 %x, i32 %y, i32 %y)
  %r2 = call i32 @llvm.bswap.i32(i32 %x)
  %s = call { i32, i1 } @llvm.sadd.with.overflow.i32(i32 %x, i32 %y)
  %s1 = extractvalue { i32, i1 } %s, 1
  %r3 = zext i1 %s1 to i32
  %u = call { i32, i1 } @llvm.umul.with.overflow.i32(i32 %x, i32 %y)
  %u1 = extractvalue { i32, i1 } %u, 1
  %r4 = zext i1 %u1 to i32
  %m = call { i32, i1 } @llvm.smul.with.overflow.i32(i32 %x, i32 %y)
  %m1 = extractvalue { i32, i1 } %m, 1
  %r5 = zext i1 %m1 to i32
  %v = insertelement <4 x i32> zeroinitializer, i32 %x, i32 %y
  %w = bitcast <4 x i32> %v to <2 x i64>
  %w1 = extractelement <2 x i64> %w, i32 1
  %r6 = trunc i64 %w1 to i32
  %q = lshr i64 %w1, 32
  %r7 = trunc i64 %q to i32
  %rs = insertelement <8 x i32> poison, i32 %r0, i32 0
  %rs1 = insertelement <8 x i32> %rs, i32 %r1, i32 1
  %rs2 = insertelement <8 x i32> %rs1, i32 %r2, i32 2
  %rs3 = insertelement <8 x i32> %rs2, i32 %r3, i32 3
  %rs4 = insertelement <8 x i32> %rs3, i32 %r4, i32 4
  %rs5 = insertelement <8 x i32> %rs4, i32 %r5, i32 5
  %rs6 = insertelement <8 x i32> %rs5, i32 %r6, i32 6
  %rs7 = insertelement <8 x i32> %rs6, i32 %r7, i32 7
  store <8 x i32> %rs7, ptr addrspace(1) %o, align 4
  ret void
}
declare i32 @llvm.fshl.i32(i32, i32, i32)
declare i32 @llvm.fshr.i32(i32, i32, i32)
declare i32 @llvm.bswap.i32(i32)
declare { i32, i1 } @llvm.sadd.with.overflow.i32(i32, i32)
declare { i32, i1 } @llvm.umul.with.overflow.i32(i32, i32)
declare { i32, i1 } @llvm.smul.with.overflow.i32(i32, i32)
"""
    M = 0xFFFFFFFF
    for x, y in [(0x12345678, 3), (0x7FFFFFFF, 1), (0x80000000, 0xFFFFFFFF), (5, 2), (0xDEADBEEF, 35),
                 (0x10000, 0x10000), (0xFFFF, 0x10001)]:
        o = np.zeros(8, np.uint32)
        run_ll(body, "k", [np.array([x, y], np.uint32), o])
        sx, sy = (v - (1 << 32) if v >> 31 else v for v in (x, y))
        r = y % 32
        fshl = (((x << 32) | y) << r >> 32) & M
        fshr = (((x << 32) | y) >> r) & M
        lane = y & 3 if y < 4 else None
        v = [0, 0, 0, 0]
        if lane is not None:
            v[lane] = x
        want = [fshl, fshr, int.from_bytes(x.to_bytes(4, "little"), "big"),
                int(not -2**31 <= sx + sy < 2**31), int(x * y > M), int(not -2**31 <= sx * sy < 2**31),
                v[2], v[3]]
        if lane is None:        # out-of-range insertelement: poison, nothing to check
            want[6:], o = [], o[:6]
        assert o.tolist() == want, (hex(x), hex(y))





def _oracle_kernels():
    import os
    here = os.path.join(os.path.dirname(__file__), "kernels")
    return sorted(os.path.join(here, p) for p in os.listdir(here)) if os.path.isdir(here) else []


@pytest.mark.parametrize("level", LEVELS + ("-O3",))
@pytest.mark.parametrize("path", _oracle_kernels(), ids=lambda p: p.rsplit("/", 1)[-1])
def test_against_jit_oracle(path, level):
    oracle = pytest.importorskip("reconverge.tools.targets.jit_oracle")
    spec_mod = pytest.importorskip("reconverge.tools.testing.kernel_spec")
    from reconverge.lowering.frontend.clang import compile_opencl
    for spec in spec_mod.parse_specs(path):
        ir = compile_opencl(path, level)
        want, got = spec.make_args(11), spec.make_args(11)
        oracle.run_llvm_kernel(ir, spec.kernel, want, spec.global_size, spec.local_size, spec.global_offset)
        f = read_llvm_text(ir, path, spec.kernel)[spec.kernel]
        interp.run_kernel(f, got, spec.global_size, spec.local_size, spec.global_offset)
        for w, g in zip(want, got):
            if isinstance(w, np.ndarray):
                if w.dtype.kind == "f":
                    np.testing.assert_allclose(g, w, rtol=2e-6, atol=1e-6)
                else:
                    np.testing.assert_array_equal(g, w)


RELATIONAL = """
kernel void rel(global const float *x, global int *o, global const int *a)
{
    int i = get_global_id(0);
    float v = x[i];
    o[8*i] = isnan(v); o[8*i+1] = isinf(v); o[8*i+2] = isfinite(v); o[8*i+3] = isnormal(v);
    o[8*i+4] = signbit(v);
    o[8*i+5] = (a[i] > a[i+1]) - (a[i] < a[i+1]);
    o[8*i+6] = convert_int_sat(v * 1e9f);
    int4 q = isnan((float4)(v, 1.0f, v, 2.0f));
    o[8*i+7] = q.x + 2 * q.y + 4 * q.z;
}
"""


@pytest.mark.parametrize("level", LEVELS)
def test_relational_compare_and_saturating_conversion(level):
    x = np.array([np.nan, np.inf, -np.inf, 1e-40, -0.0, 2.5, -3.0, 1e30], np.float32)
    a = np.array([3, 1, 1, -4, 7, 7, 0, -9, 5], np.int32)
    o = np.zeros(64, np.int32)
    run_cl(RELATIONAL, "rel", [x, o, a], level, n=8)
    o = o.reshape(8, 8)
    with np.errstate(all="ignore"):
        big = x.astype(np.float64) * np.float32(1e9)
    for i, v in enumerate(x.tolist()):
        fin = np.isfinite(v)
        assert o[i, :5].tolist() == [int(np.isnan(v)), int(np.isinf(v)), int(fin),
                                     int(fin and abs(v) >= 2.0 ** -126), int(np.signbit(v))]
        assert o[i, 5] == int(a[i] > a[i + 1]) - int(a[i] < a[i + 1])
        with np.errstate(all="ignore"):
            want = 0 if np.isnan(v) else int(max(min(np.trunc(np.float32(big[i])), 2**31 - 1), -2**31))
        assert o[i, 6] == want
        assert o[i, 7] == (-1 - 4 if np.isnan(v) else 0)


@pytest.mark.parametrize("seed", range(8))
def test_random_cfgs_from_llvmlite_ir_against_oracle(seed):
    """reconverge.tools.testing.cfggen's random reducible CFGs (llvmlite.ir modules with loops, switches, phis, early returns)."""
    import random
    cfggen = pytest.importorskip("reconverge.tools.testing.cfggen")
    oracle = pytest.importorskip("reconverge.tools.targets.jit_oracle")
    from reconverge.lowering.frontend.llvm_module import from_llvmlite_ir
    from reconverge.lowering.frontend.llvm_reader import read_kernels
    from reconverge.lowering.ir.validate import validate
    mod = cfggen.random_kernel(random.Random(seed), [8, 30, 80, 160][seed % 4])
    f = read_kernels(from_llvmlite_ir(mod, "rnd"), "rnd")["k"]
    assert validate(f) == []
    inp = np.random.default_rng(seed).integers(-1000, 1000, 32).astype(np.int32)
    want, got = np.full(32, 12345, np.int32), np.full(32, 12345, np.int32)
    oracle.run_llvm_kernel(str(mod), "k", [want, inp.copy()], 32, 8)
    interp.run_kernel(f, [got, inp.copy()], 32, 8)
    np.testing.assert_array_equal(got, want)


OUT_POINTER = """
kernel void outp(global const float4 *x, global float4 *a, global float4 *b, global int4 *m, global float4 *s)
{
    int i = get_global_id(0);
    float4 ip;
    a[3*i] = fract(x[i], &ip);
    b[3*i] = ip;
    a[3*i+1] = modf(x[i], &ip);
    b[3*i+1] = ip;
    a[3*i+2] = sincos(x[i], &ip);
    b[3*i+2] = ip;
    s[2*i] = shuffle(x[i], as_uint4(m[i]));
    s[2*i+1] = shuffle2(x[i], ip, as_uint4(m[i]) + 1u).s3210 + fdim(x[i], 0.5f) + maxmag(x[i], -1.0f);
}
"""


@pytest.mark.parametrize("level", LEVELS)
def test_out_pointer_and_shuffle_builtins(level):
    x = np.array([[-2.25, -0.5, 0.0, 1.75], [3.5, -7.0, np.inf, -np.inf]], np.float32)
    m = np.array([[3, 0, 2, 1], [1, 1, 7, 4]], np.int32)
    a, b, s = (np.zeros((6, 4), np.float32) for _ in range(3))
    s = np.zeros((4, 4), np.float32)
    run_cl(OUT_POINTER, "outp", [x, a, b, m, s], level, n=2)
    with np.errstate(all="ignore"):
        for i in range(2):
            v = x[i]
            fl = np.floor(v)
            frac = np.where(np.isinf(v), np.copysign(0, v), np.minimum(v - fl, np.float32(0.99999994)))
            np.testing.assert_array_equal(a[3 * i], frac)
            np.testing.assert_array_equal(b[3 * i], fl)
            frac_m = np.where(np.isinf(v), np.copysign(0, v), v - np.trunc(v))
            np.testing.assert_array_equal(a[3 * i + 1], frac_m)
            np.testing.assert_array_equal(b[3 * i + 1], np.trunc(v))
            np.testing.assert_allclose(a[3 * i + 2], np.sin(v), rtol=1e-6, atol=1e-7)
            np.testing.assert_allclose(b[3 * i + 2], np.cos(v), rtol=1e-6, atol=1e-7)
            np.testing.assert_array_equal(s[2 * i], v[m[i] % 4])
            both = np.concatenate([v, b[3 * i + 2]])
            sh2 = both[(m[i] + 1) % 8][::-1]
            fdim = np.where(v > 0.5, v - 0.5, 0)
            mm = np.where(np.abs(v) > 1, v, np.where(np.abs(v) < 1, -1, np.maximum(v, -1)))
            np.testing.assert_allclose(s[2 * i + 1], sh2 + fdim + mm, rtol=1e-6)
