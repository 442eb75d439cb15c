"""The interpreter against the CPU JIT of the same kernels, bit for bit.

Small OpenCL C kernels aimed at the interpreter's semantics (math library, conversions, integer
operators of every width, NaN comparisons, memory of every type) are compiled by clang-22 at -O0 and
-O2, read into CFG form by the front end and run by both the interpreter and tools/targets/jit_oracle on the
same inputs; every buffer must come out with identical bytes (NaNs: any NaN matches any NaN). The
structured form of the same kernel must then give the CFG form's bytes exactly.
(The whole-corpus, whole-pipeline comparison lives in test_corpus_differential.py.)
"""
from __future__ import annotations

import shutil

import numpy as np
import pytest

pytest.importorskip("llvmlite")
if shutil.which("clang-22") is None:
    pytest.skip("clang-22 is not installed", allow_module_level=True)

from reconverge.lowering.frontend.clang import compile_opencl  # noqa: E402
from reconverge.lowering.interp import run_kernel  # noqa: E402

llvm_reader = pytest.importorskip("reconverge.lowering.frontend.llvm_reader")
jit_oracle = pytest.importorskip("reconverge.tools.targets.jit_oracle")

N = 32          # work-items per kernel


def floats_with_specials(rng, dtype, n, lo=-8.0, hi=8.0):
    x = rng.uniform(lo, hi, n).astype(dtype)
    x[:8] = np.array([0.0, -0.0, 0.5, -2.5, 1.5, np.inf, -np.inf, np.nan], dtype=dtype)
    return x


MATH_BODY = """
    size_t i = get_global_id(0);
    T a = x[i], b = y[i];
    global T *o = out + i * 40;
    o[0] = sin(a); o[1] = cos(a); o[2] = tan(a); o[3] = exp(a); o[4] = exp2(a); o[5] = exp10(a);
    o[6] = log(b); o[7] = log2(b); o[8] = log10(b); o[9] = pow(b, a); o[10] = atan2(a, b);
    o[11] = hypot(a, b); o[12] = cbrt(a); o[13] = sqrt(b); o[14] = rsqrt(b); o[15] = fabs(a);
    o[16] = floor(a); o[17] = ceil(a); o[18] = round(a); o[19] = trunc(a); o[20] = rint(a);
    o[21] = fmod(a, b); o[22] = copysign(b, a); o[23] = fmin(a, b); o[24] = fmax(a, b);
    o[25] = ldexp(a, (int)(b * 3)); o[26] = asin(b / 8); o[27] = acos(b / 8); o[28] = atan(a);
    o[29] = sinh(a); o[30] = cosh(a); o[31] = tanh(a); o[32] = fma(a, b, a); o[33] = mad(a, b, b);
    o[34] = a * b + y[(i + 1) % 32]; o[35] = a / b; o[36] = a - b * a; o[37] = -a;
    o[38] = (T)(a < b) + (T)(a != b) * 2 + (T)isnan(a) * 4 + (T)!(a >= b) * 8 + (T)isunordered(a, b) * 16;
    o[39] = a > b ? a : (T)(i + 0.1);
"""

KERNELS = {
    "math_float": (
        "kernel void math_float(global float *out, global const float *x, global const float *y) {"
        "typedef float T;" + MATH_BODY + "}",
        lambda rng: [np.zeros(N * 40, np.float32), floats_with_specials(rng, np.float32, N),
                     np.abs(floats_with_specials(rng, np.float32, N, 0.1, 6.0))]),
    "math_double": (
        "kernel void math_double(global double *out, global const double *x, global const double *y) {"
        "typedef double T;" + MATH_BODY + "}",
        lambda rng: [np.zeros(N * 40, np.float64), floats_with_specials(rng, np.float64, N),
                     np.abs(floats_with_specials(rng, np.float64, N, 0.1, 6.0))]),
    "conversions": ("""
        kernel void conversions(global long *o, global const long *x, global const double *d) {
            size_t i = get_global_id(0);
            long v = x[i]; double dv = d[i];
            global long *p = o + i * 20;
            p[0] = (char)v; p[1] = (uchar)v; p[2] = (short)v; p[3] = (ushort)v; p[4] = (int)v;
            p[5] = (uint)v; p[6] = as_int((float)v); p[7] = as_int((float)(ulong)v);
            p[8] = as_long((double)(ulong)v); p[9] = as_long((double)v); p[10] = as_int((float)(int)v);
            p[11] = as_int((float)(uint)v); p[12] = as_int((float)dv); p[13] = (long)dv;
            p[14] = (int)(float)dv; p[15] = (ulong)fabs(dv); p[16] = (uchar)(fabs(dv) / 128);
            p[17] = (short)(dv / 8); p[18] = as_int((float)(char)v); p[19] = as_long((double)(float)dv);
        }""",
        lambda rng: [np.zeros(N * 20, np.int64),
                     np.concatenate([[2 ** 62 + 2 ** 38 + 1, -(2 ** 63), 2 ** 63 - 1, -1, 0, 255, 2 ** 31],
                                     rng.integers(-2 ** 63, 2 ** 63 - 1, N - 7, endpoint=True)]).astype(np.int64),
                     rng.uniform(-30000, 30000, N)]),
    "int_ops": ("""
        #define OPS(T, U, o, a, b) { U ua = (U)a, ub = (U)b; \\
            o[0] = a + b; o[1] = a - b; o[2] = a * b; o[3] = b ? a / b : 0; o[4] = b ? a % b : 0; \\
            o[5] = ub ? ua / ub : 0; o[6] = ub ? ua % ub : 0; o[7] = a << (b & (8 * sizeof(T) - 1)); \\
            o[8] = a >> (b & (8 * sizeof(T) - 1)); o[9] = ua >> (ub & (8 * sizeof(T) - 1)); \\
            o[10] = a & b; o[11] = a | b; o[12] = a ^ ~b; o[13] = mul_hi(a, b); o[14] = mul_hi(ua, ub); \\
            o[15] = clz(a); o[16] = popcount(a); o[17] = ctz(a); o[18] = abs(a); o[19] = min(a, b); \\
            o[20] = max(ua, ub); o[21] = rotate(a, b); o[22] = add_sat(a, b); o[23] = hadd(a, b); \\
            o[24] = (a < b) + (ua < ub) * 2 + (a == b) * 4 + (a >= b) * 8 + (ua > ub) * 16; \\
            o[25] = abs_diff(a, b); o[26] = sub_sat(ua, ub); o[27] = rhadd(ua, ub); o[28] = -a; \\
            o[29] = clamp(a, (T)-5, (T)7); }
        kernel void int_ops(global long *out, global const long *x, global const long *y) {
            size_t i = get_global_id(0);
            long a = x[i], b = y[i];
            global long *o = out + i * 120;
            OPS(char, uchar, o, (char)a, (char)b)
            OPS(short, ushort, (o + 30), (short)a, (short)b)
            OPS(int, uint, (o + 60), (int)a, (int)b)
            OPS(long, ulong, (o + 90), a, b)
        }""",
        lambda rng: [np.zeros(N * 120, np.int64),
                     np.concatenate([[0, -1, 1, -(2 ** 63), 2 ** 63 - 1, 7],
                                     rng.integers(-2 ** 63, 2 ** 63 - 1, N - 6, endpoint=True)]).astype(np.int64),
                     np.concatenate([[5, -1, 0, 3, -3, 0],
                                     rng.integers(-2 ** 63, 2 ** 63 - 1, N - 6, endpoint=True)]).astype(np.int64)]),
    "memory": ("""
        typedef struct { char c; int i; short s; double d; } S;
        constant int table[8] = {3, 1, 4, 1, 5, 9, 2, 6};
        kernel void memory(global uchar *bytes, global short *sh, global long *lg, global float *fl,
                           global double *out) {
            size_t i = get_global_id(0);
            S s[3];
            for (int k = 0; k < 3; k++) {
                s[k].c = bytes[i * 3 + k]; s[k].i = sh[i] * k + table[(i + k) & 7];
                s[k].s = (short)lg[i]; s[k].d = fl[i] * k;
            }
            double acc = 0;
            for (int k = 0; k < 3; k++) acc += s[(k + i) % 3].c + s[k].i + s[k].s + s[k].d;
            out[i] = acc;
            global uchar *pb = (global uchar *)(lg + i);
            bytes[i * 3] = pb[1] ^ pb[7];
            sh[i] = (short)(pb[2] | (pb[3] << 8));
            float4 v = vload4(0, fl + (i & ~3u));
            vstore4(v * 2.0f + (float4)(1, 2, 3, 4), 0, fl + (i & ~3u));
            long *pp = (long *)&s[1].d;
            lg[i] = pp[0] + ((global long *)fl == (global long *)fl);
        }""",
        lambda rng: [rng.integers(0, 255, 3 * N, endpoint=True).astype(np.uint8),
                     rng.integers(-2 ** 15, 2 ** 15 - 1, N, endpoint=True).astype(np.int16),
                     rng.integers(-2 ** 63, 2 ** 63 - 1, N, endpoint=True).astype(np.int64),
                     rng.uniform(-100, 100, N).astype(np.float32), np.zeros(N, np.float64)]),
    "builtins": ("""
        kernel void builtins(global float *out, global const float *x, global const float *y, global int *io) {
            size_t i = get_global_id(0);
            float a = x[i], b = y[i];
            global float *o = out + i * 24;
            o[0] = native_sin(a); o[1] = native_exp(a); o[2] = native_log(b); o[3] = native_sqrt(b);
            o[4] = native_rsqrt(b); o[5] = native_recip(b); o[6] = native_divide(a, b); o[7] = half_sqrt(b);
            o[8] = degrees(a); o[9] = radians(a); o[10] = sign(a); o[11] = step(a, b);
            o[12] = smoothstep(0.0f, 4.0f, b); o[13] = mix(a, b, 0.25f); o[14] = clamp(a, -1.0f, 1.0f);
            o[15] = fdim(a, b); o[16] = maxmag(a, b); o[17] = minmag(a, b); o[18] = pown(a, 3);
            o[19] = powr(b, 1.5f); o[20] = dot((float2)(a, b), (float2)(b, a));
            o[21] = length((float3)(a, b, 1.0f)); o[22] = distance((float2)(a, b), (float2)(b, 1.0f));
            o[23] = cross((float3)(a, b, 1), (float3)(b, a, 2)).z;
            int k = (int)(a * 10);
            global int *q = io + i * 8;
            q[0] = convert_int_sat(a * 1e9f); q[1] = convert_uchar_sat(a * 100); q[2] = mad24(k, k, 3);
            q[3] = mul24(k, 7); q[4] = upsample((short)k, (ushort)3); q[5] = mad_hi(k, k << 20, 5);
            q[6] = select(1, 2, k > 0); q[7] = k ^ 0x0f0f0f0f;
            switch ((long)k) { case -5: q[0] += 1; break; case 7: q[1] += 2; case 8: q[2] += 3; break;
                               default: q[3] += 4; }
        }""",
        lambda rng: [np.zeros(N * 24, np.float32),
                     np.concatenate([[0.0, -0.0, 0.5, -2.5], rng.uniform(-3, 3, N - 4)]).astype(np.float32),
                     rng.uniform(0.1, 4, N).astype(np.float32), np.zeros(N * 8, np.int32)]),
}
LEVELS = ("-O0", "-O2")


def same_bytes(a: np.ndarray, b: np.ndarray) -> np.ndarray:
    """Per-element equality of the bytes; for floats, two NaNs are equal whatever their payloads."""
    if a.dtype.kind == "f":
        ua, ub = a.view(f"u{a.dtype.itemsize}"), b.view(f"u{b.dtype.itemsize}")
        return (ua == ub) | (np.isnan(a) & np.isnan(b))
    return a == b


@pytest.fixture(scope="module")
def compiled(tmp_path_factory):
    """(kernel, level) -> (LLVM IR text, CFG-form Function reader), compiled once per module."""
    d = tmp_path_factory.mktemp("interp_jit")
    cache = {}

    def get(name, level):
        if (name, level) not in cache:
            path = d / f"{name}.cl"
            path.write_text(KERNELS[name][0])
            ir = compile_opencl(str(path), level)
            cache[name, level] = ir
        return cache[name, level]
    return get


@pytest.mark.filterwarnings("ignore::RuntimeWarning")
@pytest.mark.parametrize("level", LEVELS)
@pytest.mark.parametrize("name", list(KERNELS))
def test_interpreter_matches_jit(compiled, name, level):
    ir = compiled(name, level)
    func = llvm_reader.read_llvm_text(ir, f"{name}.cl", name)[name]
    make = KERNELS[name][1]
    want, got = make(np.random.default_rng(5)), make(np.random.default_rng(5))
    jit_oracle.run_llvm_kernel(ir, name, want, N, 8)
    run_kernel(func, got, N, 8)
    for k, (w, g) in enumerate(zip(want, got)):
        ok = same_bytes(w, g)
        if not ok.all():
            bad = np.flatnonzero(~ok)
            pytest.fail(f"{name}{level} buffer {k}: {bad.size} elements differ, first at {bad[:8].tolist()}: "
                        f"interpreter {g[bad[:4]].tolist()}, JIT {w[bad[:4]].tolist()}")


@pytest.mark.filterwarnings("ignore::RuntimeWarning")
@pytest.mark.parametrize("name", list(KERNELS))
def test_structured_form_matches_cfg_form(compiled, name):
    structurize = pytest.importorskip("reconverge.lowering.passes.structurize").structurize
    ir = compiled(name, "-O2")
    cfg = llvm_reader.read_llvm_text(ir, f"{name}.cl", name)[name]
    tree = llvm_reader.read_llvm_text(ir, f"{name}.cl", name)[name]
    structurize(tree)
    assert tree.is_structured
    make = KERNELS[name][1]
    a, b = make(np.random.default_rng(9)), make(np.random.default_rng(9))
    run_kernel(cfg, a, N, 8)
    run_kernel(tree, b, N, 8)
    for x, y in zip(a, b):
        assert same_bytes(x, y).all()


def test_a_wrong_interpreter_would_be_caught(compiled, monkeypatch):
    """The comparison has teeth: perturb one libm function and the math kernel must disagree."""
    from reconverge.lowering.interp import ops as interp_ops
    real = interp_ops.math_fn

    def off_by_one_ulp(fn, ty, *rest):
        f = real(fn, ty, *rest)
        return (lambda a: np.nextafter(f(a), np.inf).astype(f(a).dtype)) if fn == "sin" else f
    monkeypatch.setattr(interp_ops, "math_fn", off_by_one_ulp)
    ir = compiled("math_float", "-O0")
    func = llvm_reader.read_llvm_text(ir, "math_float.cl", "math_float")["math_float"]
    make = KERNELS["math_float"][1]
    want, got = make(np.random.default_rng(5)), make(np.random.default_rng(5))
    jit_oracle.run_llvm_kernel(ir, "math_float", want, N, 8)
    with np.errstate(all="ignore"):
        run_kernel(func, got, N, 8)
    assert not same_bytes(want[0], got[0]).all()


REDUCE = """
kernel void reduce(global int *out, global const int *in) {
    local int tile[16];
    int lid = get_local_id(0);
    tile[lid] = in[get_global_id(0)];
    barrier(CLK_LOCAL_MEM_FENCE);
    for (int s = 8; s > 0; s >>= 1) {
        if (lid < s)
            tile[lid] += tile[lid + s];
        barrier(CLK_LOCAL_MEM_FENCE);
    }
    if (lid == 0)
        out[get_group_id(0)] = tile[0];
}
"""


@pytest.mark.parametrize("level", LEVELS)
@pytest.mark.parametrize("form", ["cfg", "tree"])
def test_lockstep_tree_reduction(tmp_path, level, form):
    """A __local tree reduction is only right with real barriers: lockstep mode must sum each group."""
    path = tmp_path / "reduce.cl"
    path.write_text(REDUCE)
    func = llvm_reader.read_llvm_text(compile_opencl(str(path), level), "reduce.cl", "reduce")["reduce"]
    if form == "tree":
        pytest.importorskip("reconverge.lowering.passes.structurize").structurize(func)
    data = np.random.default_rng(3).integers(-1000, 1000, 64).astype(np.int32)
    out = np.zeros(4, np.int32)
    run_kernel(func, [out, data], 64, 16, lockstep=True)
    assert out.tolist() == data.reshape(4, 16).sum(axis=1).tolist()
