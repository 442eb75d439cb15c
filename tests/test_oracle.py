"""The execution oracle checks itself: JIT results against hand-written Python references, the RUN-header
parser against malformed input, and the random CFG generator for validity, reducibility and termination."""
from __future__ import annotations

import concurrent.futures
import functools
import glob
import os
import random

import llvmlite.binding as llvm
import numpy as np
import pytest

from reconverge.lowering.frontend.clang import compile_opencl
from reconverge.tools.targets.jit_oracle import OracleError, run_llvm_kernel
from reconverge.tools.testing.cfggen import random_kernel
from reconverge.tools.testing.kernel_spec import SpecError, parse_header_line, parse_spec, parse_specs

KERNEL_DIR = os.path.join(os.path.dirname(__file__), "kernels")
CORPUS = sorted(glob.glob(os.path.join(KERNEL_DIR, "*.cl")))
LEVELS = ("-O0", "-O2")


@functools.lru_cache(maxsize=None)
def _all_ir() -> dict[tuple[str, str], str]:
    """Every corpus file at both levels, compiled by parallel clang processes (the tests' main cost)."""
    jobs = [(os.path.basename(p), level) for p in CORPUS for level in LEVELS]
    with concurrent.futures.ThreadPoolExecutor(max_workers=2 * (os.cpu_count() or 2)) as pool:
        texts = pool.map(lambda job: compile_opencl(os.path.join(KERNEL_DIR, job[0]), job[1]), jobs)
        return dict(zip(jobs, texts))


def _ir(name: str, level: str) -> str:
    return _all_ir()[(name, level)]


def _run(name: str, level: str, seed: int = 7, kernel: str | None = None):
    spec = parse_spec(os.path.join(KERNEL_DIR, name), kernel)
    args = spec.make_args(seed)
    run_llvm_kernel(_ir(name, level), spec.kernel, args, spec.global_size, spec.local_size, spec.global_offset)
    return spec, spec.make_args(seed), args   # (spec, inputs as generated, arguments after the run)


def _wrap(v: int, bits: int, signed: bool = True) -> int:
    v &= (1 << bits) - 1
    return v - (1 << bits) if signed and v >> (bits - 1) else v


def _c_div(a: int, b: int) -> int:
    q = abs(a) // abs(b)
    return q if (a < 0) == (b < 0) else -q


def _c_rem(a: int, b: int) -> int:
    return a - b * _c_div(a, b)


# --------------------------------------------------------------------------------------------------------
# Corpus kernels against independent references.

@pytest.mark.parametrize("level", LEVELS)
def test_switch_fallthrough(level):
    _, (_, inp), (out, _) = _run("switch_fallthrough.cl", level)

    def ref(x):
        table = {0: 33, 1: 3, 2: 103, 5: -3, 6: 36, 7: 49, 8: -1}
        return table.get(x, 97)
    assert out.tolist() == [ref(int(x)) for x in inp]
    assert len(set(out.tolist())) >= 5, "the inputs should reach most of the cases"


@pytest.mark.parametrize("level", LEVELS)
def test_nested_break_flag(level):
    spec, (_, grid, limit), (out, _, _) = _run("nested_break_flag.cl", level)
    expect = []
    for gid in range(spec.global_size[0]):
        found, s, where = False, 0, None
        for i in range(8):
            for j in range(8):
                v = int(grid[(gid + i * 8 + j) % 256])
                s += v
                if v > limit:
                    found, where = True, (i, j)
                    break
            if found:
                break
        expect.append((where[0] * 8 + where[1]) * 10000 + s if found else -s)
    assert out.tolist() == expect


@pytest.mark.parametrize("level", LEVELS)
def test_long_arith(level):
    spec, (_, _, a, s), (out, uo, _, _) = _run("long_arith.cl", level)
    for gid in range(spec.global_size[0]):
        x = int(a[gid])
        y = x * 1000003 + gid
        z = (y >> int(s)) - x * 8
        if z > 4000000000000:
            z = _c_div(z, 17)
        elif z < -4000000000000:
            z = -_c_rem(z, 1000000007)
        assert int(out[gid]) == z + _wrap(x, 32)
        u, yu = x % 2**64, y % 2**64
        assert int(uo[gid]) == (u * 0x9E3779B97F4A7C15 + (u >> 29) + ((u * yu) >> 64)) % 2**64


@pytest.mark.parametrize("level", LEVELS)
def test_vector_int4(level):
    spec, (_, v_all, b), (out, _, _) = _run("vector_int4.cl", level)
    for gid in range(spec.global_size[0]):
        v = [int(c) for c in v_all[gid]]
        w = [int(c) for c in b[4 * gid:4 * gid + 4]]
        r = [v[k] * 3 + w[3 - k] for k in range(4)]
        r[0], r[1] = r[1] - v[2], r[0] - v[3]
        r = [r[k] if v[k] > w[k] else r[k] + 1 for k in range(4)]
        r[2] += r[0] * w[1]
        if r[3] > r[0]:
            r = r[1:] + r[:1]
        assert out[gid].tolist() == r


@pytest.mark.parametrize("level", LEVELS)
def test_private_array_sorts(level):
    _, (_, inp), (out, _) = _run("private_array.cl", level)
    assert np.array_equal(out.reshape(-1, 8), np.sort(inp.reshape(-1, 8), axis=1))


@pytest.mark.parametrize("level", LEVELS)
def test_unsigned_arith(level):
    spec, (_, inp), (out, _) = _run("unsigned_arith.cl", level)
    m = 0xFFFFFFFF
    for gid in range(spec.global_size[0]):
        h = 2166136261
        for i in range(4):
            w = int(inp[gid * 4 + i])
            for k in range(4):
                h = ((h ^ ((w >> (8 * k)) & 0xFF)) * 16777619) & m
            h ^= (h << 13) & m
            h ^= h >> 17
            h ^= (h << 5) & m
        assert int(out[gid]) == (h - 0x80000000 if h > 0x80000000 else (h + gid) & m)


@pytest.mark.parametrize("level", LEVELS)
def test_float_math(level):
    _, (_, inp), (out, _) = _run("float_math.cl", level)
    x = inp.astype(np.float64)
    r = np.sqrt(x) + np.log(x) * 0.5 + np.exp(-x * 0.25)
    r += np.sin(x) * np.cos(x * 0.5) + np.abs(x - 10.0) * 0.1
    r += np.floor(x) * 0.01 + np.minimum(x, 5.0) - np.maximum(x * 0.1, 1.0)
    r = (r * 0.5 + 1.0) + (x + x * 0.25) + np.clip(r, -1.0, 1.0)
    r += np.power(x, 0.5)
    np.testing.assert_allclose(out, r, rtol=2e-5, atol=2e-5)


@pytest.mark.parametrize("level", LEVELS)
def test_work_item_functions_2d(level):
    _, _, (out, ids) = _run("work_item_2d.cl", level)
    for gy in range(6):
        for gx in range(8):
            lin = gy * 8 + gx
            lx, ly, grx, gry = gx % 4, gy % 2, gx // 4, gy // 2
            v = lx + 10 * ly + 100 * grx + 1000 * gry
            assert out[lin] == (-v if ly == 1 and lx > 1 else v)
            assert ids[lin * 5:lin * 5 + 5].tolist() == [2, 62, 23, 4 + 100, 0]


@pytest.mark.parametrize("level", LEVELS)
def test_global_offset(level):
    _, (_, inp), (out, _) = _run("global_offset.cl", level)
    expect = [-1] * 16
    for gid in range(16, 48):
        r = int(inp[gid]) * 3
        if gid - 16 < 8:
            r += 16
        elif (gid - 16) // 8 == 2:
            r = -r
        expect.append(r + ((gid - 16) % 8) * 1000)
    assert out.tolist() == expect


@pytest.mark.parametrize("level", LEVELS)
def test_local_memory_own_slots(level):
    _, (_, inp), (out, _) = _run("local_mem.cl", level)
    for gid, x in enumerate(inp.tolist()):
        lid, grp = gid % 16, gid // 16
        tile, extra = 2 * x, (x + grp, lid)
        r = 0
        for i in range(4):
            tile += extra[i & 1]
            r += tile & 0xFF
        assert out[gid] == r + 64


def test_second_kernel_of_a_file():
    spec, (_, inp, lo, hi), (out, _, _, _) = _run("two_kernels.cl", "-O2", kernel="clip")

    def bend(x, k):
        if x < 0:
            return x * k
        for i in range(k):
            if x > 90:
                return x
            x += i
        return x
    expect = [lo - bend(lo - x, 2) if x < lo else min(x, hi) for x in inp.tolist()]
    assert out.tolist() == expect


# --------------------------------------------------------------------------------------------------------
# The whole corpus runs, and -O0 agrees with -O2 (clang's optimiser as a second opinion).

@pytest.mark.parametrize("path", CORPUS, ids=lambda p: os.path.basename(p)[:-3])
def test_corpus_runs_and_levels_agree(path):
    for spec in parse_specs(path):
        results = []
        for level in LEVELS:
            args = spec.make_args(3)
            run_llvm_kernel(_ir(os.path.basename(path), level), spec.kernel, args,
                            spec.global_size, spec.local_size, spec.global_offset)
            results.append(args)
        fresh = spec.make_args(3)
        assert any(not np.array_equal(results[0][i], fresh[i]) for i in spec.buffer_indices()), \
            f"{spec.kernel} writes nothing: a differential test on it would be vacuous"
        for i in spec.buffer_indices():
            a, b = results[0][i], results[1][i]
            if a.dtype.kind == "f":
                np.testing.assert_allclose(a, b, rtol=1e-5, err_msg=f"{spec.kernel} arg {i}")
            else:
                assert np.array_equal(a, b), f"{spec.kernel}: argument {i} differs between -O0 and -O2"


# --------------------------------------------------------------------------------------------------------
# Oracle error handling.

def test_unknown_builtin_is_named(tmp_path):
    src = tmp_path / "bad.cl"
    src.write_text("kernel void k(global float *o) { o[get_global_id(0)] = erfc(o[0]); }\n")
    ir = compile_opencl(str(src), "-O2")
    with pytest.raises(OracleError, match="_Z4erfcf"):
        run_llvm_kernel(ir, "k", [np.zeros(4, np.float32)], 4, 4)


def test_argument_checks():
    ir = _ir("early_return.cl", "-O2")
    with pytest.raises(OracleError, match="takes 3 arguments"):
        run_llvm_kernel(ir, "early_return", [np.zeros(64, np.int32)], 64, 8)
    with pytest.raises(OracleError, match="pointer"):
        run_llvm_kernel(ir, "early_return", [np.int32(1), np.zeros(64, np.int32), np.int32(3)], 64, 8)
    with pytest.raises(OracleError, match="divide"):
        run_llvm_kernel(ir, "early_return", [np.zeros(64, np.int32)] * 2 + [np.int32(3)], 64, 24)
    with pytest.raises(OracleError, match="no function"):
        run_llvm_kernel(ir, "nope", [], 1, 1)


# --------------------------------------------------------------------------------------------------------
# The RUN-header parser.

def test_every_corpus_file_has_a_valid_header():
    assert len(CORPUS) >= 32
    for path in CORPUS:
        for spec in parse_specs(path):
            assert spec.args and spec.kernel


def test_make_args_is_deterministic_and_fresh():
    spec = parse_header_line("// RUN: kernel=k global=8 local=4 a:int[8]=rand(-5,5) b:float4[2]=iota "
                             "c:uint=rand(1,9) d:float=0.5 e:uchar[3]=7 f:long[2]=zero")
    x, y = spec.make_args(11), spec.make_args(11)
    for p, q in zip(x, y):
        assert np.array_equal(p, q) and type(p) is type(q)
    assert x[0] is not y[0] and x[0].dtype == np.int32 and x[0].min() >= -5 and x[0].max() <= 5
    assert x[1].shape == (2, 4) and x[1].dtype == np.float32 and x[1][1, 3] == 7.0
    assert isinstance(x[2], np.uint32) and isinstance(x[3], np.float32) and x[3] == 0.5
    assert x[4].tolist() == [7, 7, 7] and x[5].dtype == np.int64
    assert any(not np.array_equal(spec.make_args(s)[0], x[0]) for s in range(12, 16)), "seeds matter"
    assert spec.global_offset == (0,)


def test_header_sizes_and_offsets():
    spec = parse_header_line("// RUN: kernel=k global=8,6 local=4,2 offset=1,2 o:int[48]=0")
    assert spec.global_size == (8, 6) and spec.local_size == (4, 2) and spec.global_offset == (1, 2)
    assert parse_header_line("kernel=k global=8,4 local=2,2 offset=3 o:int[1]=0").global_offset == (3, 3)


@pytest.mark.parametrize("header", [
    "// RUN: global=64 out:int[64]=zero",                      # no local=
    "// RUN: local=16 out:int[64]=zero",                       # no global=
    "// RUN: global=64 local=24 out:int[64]=zero",             # local does not divide global
    "// RUN: global=64 local=16 out:int[64]=zeros",            # bad init
    "// RUN: global=64 local=16 out:integer[64]=zero",         # bad type
    "// RUN: global=64 local=16 out:int5[4]=zero",             # bad vector width
    "// RUN: global=64 local=16 out:int[0]=zero",              # empty buffer
    "// RUN: global=64 local=16 out:int[64]=rand(9,1)",        # empty range
    "// RUN: global=64 local=16 n:char=300",                   # out of range scalar
    "// RUN: global=64 local=16 n:int=1.5",                    # float for an int
    "// RUN: global=64 local=16 n:int4=1",                     # vector scalar
    "// RUN: global=64 local=16 x:int=1 x:int=2",              # duplicate name
    "// RUN: global=64 global=32 local=16",                    # duplicate key
    "// RUN: global=64,2 local=16 o:int[1]=0",                 # dimension mismatch
    "// RUN: global=0 local=1 o:int[1]=0",                     # zero size
    "// RUN: global=64 local=16 speed=fast",                   # unknown key
    "// RUN: global=64 local=16 out=int[64]",                  # not an argument
    "// RUN: global=64 local=16 c:uchar[300]=iota",            # iota overflows the type
    "// RUN: global=1,1,1,1 local=1,1,1,1 o:int[1]=0",         # four dimensions
])
def test_malformed_headers_are_rejected(header):
    with pytest.raises(SpecError):
        parse_header_line(header, default_kernel="k")


def test_file_level_errors(tmp_path):
    nohdr = tmp_path / "nohdr.cl"
    nohdr.write_text("kernel void k(global int *o) { }\n")
    with pytest.raises(SpecError, match="RUN"):
        parse_spec(str(nohdr))
    wrong = tmp_path / "wrong.cl"
    wrong.write_text("// RUN: kernel=q global=4 local=4 o:int[4]=0\nkernel void k(global int *o) { }\n")
    with pytest.raises(SpecError, match="no kernel named"):
        parse_spec(str(wrong))
    two = tmp_path / "two.cl"
    two.write_text("// RUN: global=4 local=4 o:int[4]=0\nkernel void a(global int *o) { }\n"
                   "kernel void b(global int *o) { }\n")
    with pytest.raises(SpecError, match="kernel="):
        parse_spec(str(two))


# --------------------------------------------------------------------------------------------------------
# The random CFG generator.

def _cfg(mod) -> tuple[str, dict[str, list[str]]]:
    fn = mod.get_function("k")
    succ = {}
    for blk in fn.blocks:
        term = list(blk.instructions)[-1]
        succ[blk.name] = [op.name for op in term.operands if op.value_kind == llvm.ValueKind.basic_block]
    return next(iter(fn.blocks)).name, succ


def _is_reducible(entry: str, succ: dict[str, list[str]]) -> bool:
    """Every DFS back edge must go to a block that dominates its source (iterative dominator sets)."""
    order, seen, stack, back = [], {entry}, [(entry, iter(succ[entry]))], []
    on_stack = {entry}
    while stack:
        node, it = stack[-1]
        nxt = next(it, None)
        if nxt is None:
            stack.pop()
            on_stack.discard(node)
            order.append(node)
        elif nxt in on_stack:
            back.append((node, nxt))
        elif nxt not in seen:
            seen.add(nxt)
            on_stack.add(nxt)
            stack.append((nxt, iter(succ[nxt])))
    rpo = order[::-1]
    preds: dict[str, list[str]] = {b: [] for b in rpo}
    for b in rpo:
        for s in succ[b]:
            preds[s].append(b)
    dom = {b: set(rpo) for b in rpo}
    dom[entry] = {entry}
    changed = True
    while changed:
        changed = False
        for b in rpo[1:]:
            new = set.intersection(*(dom[p] for p in preds[b])) | {b}
            if new != dom[b]:
                dom[b], changed = new, True
    assert len(seen) == len(succ), "every block is reachable"
    return all(h in dom[t] for t, h in back)


@pytest.mark.parametrize("n_blocks,seed", [(4, 0), (12, 1), (40, 2), (40, 3), (120, 4), (120, 5), (400, 6)])
def test_cfggen_verifies_is_reducible_and_terminates(n_blocks, seed):
    text = str(random_kernel(random.Random(seed), n_blocks))
    assert text == str(random_kernel(random.Random(seed), n_blocks)), "deterministic for a seed"
    mod = llvm.parse_assembly(text)
    mod.verify()
    entry, succ = _cfg(mod)
    assert abs(len(succ) - n_blocks) <= max(4, n_blocks // 10)
    assert _is_reducible(entry, succ)
    out = np.full(32, 12345, np.int32)
    inp = np.random.default_rng(seed).integers(-1000, 1000, 32).astype(np.int32)
    run_llvm_kernel(text, "k", [out, inp], 32, 8)
    again = np.full(32, 12345, np.int32)
    run_llvm_kernel(text, "k", [again, inp.copy()], 32, 8)
    assert np.array_equal(out, again)
    assert not np.any(out == 12345) or n_blocks < 10


def test_cfggen_has_the_advertised_shapes():
    text = str(random_kernel(random.Random(9), 2000))
    assert text.count("switch i32") >= 10
    assert text.count("= phi  i32") >= 100
    assert text.count("ret void") >= 3            # early returns of their own
    assert "spir_kernel" in text and "call spir_func i64 @\"_Z13get_global_idj\"(i32 0)" in text


# --------------------------------------------------------------------------------------------------------
# The oracle's builtin library against Python, on edge-heavy inputs.

_BUILTIN_KERNEL = r"""
kernel void k(global int *o, global const int *a, global const int *b, global const long *la,
              global const long *lb, global const float *f)
{
    int i = get_global_id(0);
    int x = a[i], y = b[i];
    long p = la[i], q = lb[i];
    global int *r = o + i * 24;
    r[0] = clz(x);  r[1] = ctz(x);  r[2] = popcount(x);  r[3] = rotate(x, y);
    r[4] = add_sat(x, y);  r[5] = sub_sat(x, y);  r[6] = hadd(x, y);  r[7] = rhadd(x, y);
    r[8] = (int)abs(x);  r[9] = (int)abs_diff(x, y);  r[10] = mul_hi(x, y);  r[11] = mad_sat(x, y, 12345);
    r[12] = clz((short)x);  r[13] = rotate((uchar)x, (uchar)y);  r[14] = add_sat((char)x, (char)y);
    r[15] = (int)mul_hi(p, q);  r[16] = (int)(mul_hi((ulong)p, (ulong)q) >> 32);
    r[17] = (int)(mul_hi(p, q) >> 32);  r[18] = select(x, y, x & 4);
    r[19] = convert_int_sat(f[i]);  r[20] = isnan(f[i]) + 2 * isinf(f[i]) + 4 * signbit(f[i]);
    r[21] = upsample((short)x, (ushort)y);  r[22] = clamp(x, -1000, 1000 + (y & 4095));  r[23] = (int)sub_sat((uint)x, (uint)y);
}
"""


def test_builtin_library_against_python(tmp_path):
    src = tmp_path / "builtins.cl"
    src.write_text(_BUILTIN_KERNEL)
    rng = np.random.default_rng(5)
    edge = [0, 1, -1, 2**31 - 1, -2**31, 255, 256, -256, 65535, 7, -7, 31, 32, 33]
    n = 64
    a = np.array(edge + rng.integers(-2**31, 2**31, n - len(edge)).tolist(), np.int32)
    b = np.array(edge[::-1] + rng.integers(-2**31, 2**31, n - len(edge)).tolist(), np.int32)
    la = rng.integers(-2**63, 2**63 - 1, n, dtype=np.int64)
    lb = rng.integers(-2**63, 2**63 - 1, n, dtype=np.int64)
    la[:3], lb[:3] = (-2**63, -1, 2**63 - 1), (-2**63, 2**63 - 1, 2**63 - 1)
    f = np.array([np.nan, np.inf, -np.inf, -0.0, 3e9, -3e9, 2.5, -2.5] * 8, np.float32)
    for level in LEVELS:
        o = np.zeros(n * 24, np.int32)
        run_llvm_kernel(compile_opencl(str(src), level), "k", [o, a, b, la, lb, f], n, 8)
        for i in range(n):
            x, y, p, q = int(a[i]), int(b[i]), int(la[i]), int(lb[i])
            ux, uy = x % 2**32, y % 2**32
            sat = lambda v, lo=-2**31, hi=2**31 - 1: max(lo, min(hi, v))  # noqa: E731
            s, ry = (y % 32), (y % 256) % 8
            want = [
                32 - ux.bit_length(), (ux & -ux).bit_length() - 1 if ux else 32, bin(ux).count("1"),
                _wrap((ux << s | ux >> (32 - s)) if s else ux, 32),
                sat(x + y), sat(x - y), (x + y) >> 1, (x + y + 1) >> 1,
                _wrap(abs(x), 32), _wrap(abs(x - y), 32), (x * y) >> 32, sat(x * y + 12345),
                16 - (x % 2**16).bit_length(),
                ((x % 256) << ry | (x % 256) >> (8 - ry)) % 256 if ry else x % 256,
                sat(_wrap(x, 8) + _wrap(y, 8), -128, 127),
                _wrap((p * q) >> 64, 32), _wrap((((p % 2**64) * (q % 2**64)) >> 64) >> 32, 32),
                _wrap(((p * q) >> 64) >> 32, 32), y if x & 4 else x,
                None, None, _wrap((_wrap(x, 16) << 16) | (y % 2**16), 32), min(max(x, -1000), 1000 + (y & 4095)),
                max(ux - uy, 0) - (2**32 if max(ux - uy, 0) >= 2**31 else 0),
            ]
            fv = float(f[i])
            want[19] = 0 if fv != fv else sat(int(fv)) if abs(fv) != float("inf") else (2**31 - 1 if fv > 0 else -2**31)
            want[20] = (fv != fv) + 2 * (abs(fv) == float("inf")) + 4 * (np.signbit(f[i]) and fv == fv)
            assert o[i * 24:i * 24 + 24].tolist() == want, f"{level} work-item {i}: x={x} y={y} p={p} q={q} f={fv}"


_VECTOR_BUILTIN_KERNEL = r"""
kernel void k(global float4 *fo, global int4 *io, global const float4 *a, global const float4 *b,
              global const int4 *c)
{
    int i = get_global_id(0);
    float4 v = a[i], w = b[i];
    int4 x = c[i];
    fo[i * 4 + 0] = clamp(v, -1.0f, 1.0f) + mix(v, w, 0.25f) + step(0.0f, v);
    fo[i * 4 + 1] = fmin(v, w) * fmax(v, 0.5f) + fabs(w) + floor(v);
    fo[i * 4 + 2] = (float4)(dot(v, w), length(v), distance(v, w), dot(v.xyz, w.xyz));
    fo[i * 4 + 3] = cross(v, w);
    io[i * 3 + 0] = min(x, 3) + max(x, x.wzyx) + convert_int4(abs(x));
    io[i * 3 + 1] = select(x, x * 2, x > (int4)(0)) + clamp(x, (int4)(-5), (int4)(5)) + (int4)(all(x > -100));
    io[i * 3 + 2] = convert_int4(v * 10.0f) + isless(v, w) + (int4)(any(x < 0), all(x < 0), 0, 0);
}
"""


def test_vector_builtins_against_numpy(tmp_path):
    src = tmp_path / "vec.cl"
    src.write_text(_VECTOR_BUILTIN_KERNEL)
    rng = np.random.default_rng(8)
    n = 16
    a = rng.uniform(-3, 3, (n, 4)).astype(np.float32)
    b = rng.uniform(-3, 3, (n, 4)).astype(np.float32)
    c = rng.integers(-120, 120, (n, 4)).astype(np.int32)
    fo, io = np.zeros((n * 4, 4), np.float32), np.zeros((n * 3, 4), np.int32)
    run_llvm_kernel(compile_opencl(str(src), "-O2"), "k", [fo, io, a, b, c], n, 4)
    f32 = np.float32
    want_f = np.zeros_like(fo)
    want_f[0::4] = np.clip(a, -1, 1) + (a + (b - a) * f32(0.25)) + (a >= 0)
    want_f[1::4] = np.minimum(a, b) * np.maximum(a, f32(0.5)) + np.abs(b) + np.floor(a)
    want_f[2::4] = np.stack([(a * b).sum(1), np.sqrt((a * a).sum(1)), np.sqrt(((a - b) ** 2).sum(1)),
                             (a[:, :3] * b[:, :3]).sum(1)], 1)
    want_f[3::4, :3] = np.cross(a[:, :3], b[:, :3])
    np.testing.assert_allclose(fo, want_f, rtol=1e-5, atol=1e-5)
    want_i = np.zeros_like(io)
    want_i[0::3] = np.minimum(c, 3) + np.maximum(c, c[:, ::-1]) + np.abs(c)
    want_i[1::3] = np.where(c > 0, c * 2, c) + np.clip(c, -5, 5) + np.all(c > -100, axis=1, keepdims=True) * 1
    want_i[2::3] = (a * f32(10)).astype(np.int32) - (a < b)
    want_i[2::3, 0] += np.any(c < 0, axis=1)
    want_i[2::3, 1] += np.all(c < 0, axis=1)
    assert np.array_equal(io, want_i)


def test_engine_cache_eviction(monkeypatch):
    """Evicted engines are freed and recompiled on demand; live ones keep working (MCJIT owns its target
    machine, so each engine must have its own)."""
    import reconverge.tools.targets.jit_oracle as jit
    monkeypatch.setattr(jit, "CACHE_SIZE", 2)
    texts = [str(random_kernel(random.Random(100 + s), 30)) for s in range(5)]
    inp = np.arange(16, dtype=np.int32) * 61 - 400
    first = []
    for _ in range(2):
        results = []
        for t in texts:
            out = np.zeros(16, np.int32)
            run_llvm_kernel(t, "k", [out, inp.copy()], 16, 4)
            results.append(out)
        first.append(results)
    assert all(np.array_equal(a, b) for a, b in zip(*first))
    assert len(jit._cache) <= 2
