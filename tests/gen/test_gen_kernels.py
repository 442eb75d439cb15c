"""The Gen backend end to end: OpenCL C kernels (straight-line code, divergent if/else, nested, with
selects and compares, nested loops whose lanes leave at different times, early returns) compiled to Gen9
and run in the simulator give
the CPU JIT's buffers lane for lane, in SIMD8 and SIMD16, with global offsets and a partial last thread;
the binaries encode, and iga64 reads them as our disassembler does; what the slice does not cover is a
one-line error."""
from __future__ import annotations

import subprocess

import numpy as np
import pytest

from reconverge.backend.gen import compile_gen
from reconverge.isa.gen9.encoding import encode_program
from reconverge.tools.targets.harness import GenRunOptions, compare, load_program, run_target
from tests.gen.iga import iga_text

KERNELS = """
#pragma OPENCL EXTENSION cl_khr_fp16 : enable
kernel void halves(global half *out, global const half *a, global const float *f, global int *n) {
  int i = get_global_id(0);
  half x = a[i], y = (half)f[i];
  half q = x / (y + (half)0.25f);
  out[i] = x * y + (half)1.5f - (x > y ? x : y) + q;
  n[i] = (int)(x * (half)3.0f) + (x != x) + (int)(half)(i * 1000);
}
kernel void saxpy(global float *out, global const float *x, global const float *y, float a) {
  int i = get_global_id(0);
  out[i] = a * x[i] + y[i];
}
kernel void mix(global int *out, global const int *in, int k) {
  int i = get_global_id(0);
  int v = in[i];
  out[i] = ((v * k) ^ (v << 3)) + (v >> 2) - (int)((unsigned)v >> 5) + (v & 0xF0F) + (v | k);
}
kernel void ids(global int *out) {
  size_t x = get_global_id(0), y = get_global_id(1);
  size_t w = get_global_size(0);
  size_t lin = (y - get_global_offset(1)) * w + (x - get_global_offset(0));
  out[lin] = (int)(x * 1000 + y * 10 + get_local_id(1) + get_group_id(0) * 100000);
}
kernel void branchy(global int *out, global const int *in, int k) {
  int i = get_global_id(0);
  int v = in[i];
  int r;
  if (v > k) { r = v * 3; if (v & 1) r += 7; } else { r = v - k; }
  out[i] = r + (v < 0 ? 100 : 5) + (v == k);
}
kernel void fbranch(global float *out, global const float *x) {
  int i = get_global_id(0);
  float v = x[i];
  if (v < 1.5f) out[i] = v * 2.0f; else out[i] = v - 1.0f;
}
kernel void looping(global int *out, global const int *in, int n) {
  int s = 0;
  for (int k = 0; k < n; k++) { if (in[k] < 0) break; s += in[k] * k; }
  out[get_global_id(0)] = s;
}
kernel void divergent(global int *out, global const int *in) {
  int i = get_global_id(0);
  int x = in[i], steps = 0;
  while (x != 1 && steps < 50) {
    if (x & 1) x = 3 * x + 1; else x = x >> 1;
    steps++;
    if (x == 4) continue;
    steps += (x > 100);
  }
  out[i] = steps * 1000 + x;
}
kernel void arith(global int *out, global uint *uout, global float *fout, global const int *d) {
  int i = get_global_id(0);
  int v = d[i];
  out[i] = (v % 7) * 100 + v / 3 + min(v, 5) * max(v, -4) + (i + 5) % 64;
  uout[i] = ((uint)v / 5u) + ((uint)v % 9u) + min((uint)v, 1000u) + max((uint)v, 7u);
  fout[i] = -((float)v * 0.5f);
}
kernel void nested(global int *out, global const int *d) {
  int gid = get_global_id(0);
  int acc = 0;
  for (int a = 0; a < d[gid]; a++) {
    for (int b = 0; b < d[(gid + a) & 63]; b++) { if (acc > 40) break; acc += a + b; }
  }
  out[gid] = acc;
}
kernel void wide(global long *out, global const long *a, global const long *b) {
  int i = get_global_id(0);
  long x = a[i], y = b[i];
  out[6 * i] = x / y;
  out[6 * i + 1] = x % y;
  out[6 * i + 2] = (long)((ulong)x / (ulong)y);
  out[6 * i + 3] = (long)((ulong)x % (ulong)y);
  out[6 * i + 4] = mul_hi(x, y);
  out[6 * i + 5] = (long)mul_hi((ulong)x, (ulong)y);
}
kernel void early(global int *out, global const int *in, int n) {
  int i = get_global_id(0);
  out[i] = -1;
  if (in[i] > n) return;
  for (int k = 0; k < in[i]; k++) { if (k * in[i] > 20) return; out[i] += k; }
  out[i] += 1000;
}
"""


def _pressure_kernel(n: int = 110) -> str:
    """n values live at once (each read twice, far apart), some defined under a divergent if and read in
    a loop whose trip count differs per lane: more than the 128 GRFs hold in SIMD16."""
    lines = ["kernel void pressure(global int *out, global const int *in) {", "  int i = get_global_id(0);"]
    lines += [f"  int v{k} = in[(i + {k}) & 63] * {k + 3} + {k};" for k in range(n)]
    lines += ["  if (in[i] & 1) {"] + [f"    v{k} ^= in[(i + {2 * k}) & 63];" for k in range(0, n, 3)] + ["  }"]
    lines += ["  int s = 0;", "  for (int j = 0; j < (in[i] & 3); j++) {"]
    lines += [f"    s = (s ^ v{k}) * 3 + v{n - 1 - k};" for k in range(n)]
    return "\n".join(lines + ["  }", "  out[i] = s;", "}", ""])


UNSUPPORTED = """
#pragma OPENCL EXTENSION cl_khr_int64_base_atomics : enable
kernel void counts(global long *hits, global const int *in) { atom_add(&hits[in[get_global_id(0)] & 7], 1L); }
"""


@pytest.fixture(scope="module")
def program(tmp_path_factory):
    path = tmp_path_factory.mktemp("gen") / "k.cl"
    path.write_text(KERNELS)
    return load_program(str(path), "-O2")


def _check(program, kernel, args, global_size, local_size, simd, offset=0):
    want = run_target("llvm", program, kernel, args, global_size, local_size, global_offset=offset)
    got = run_target("gen", program, kernel, args, global_size, local_size, GenRunOptions(simd), global_offset=offset)
    assert compare(want, got, [f"arg{i}" for i in range(len(args))], labels=("llvm", "gen")) == []


@pytest.mark.parametrize("simd", [8, 16])
def test_straight_line_kernels_agree_with_the_jit(program, simd):
    rng = np.random.default_rng(5)
    n = 96
    x, y = rng.uniform(-100, 100, n).astype(np.float32), rng.uniform(-100, 100, n).astype(np.float32)
    _check(program, "saxpy", [np.zeros(n, np.float32), x, y, np.float32(-1.75)], (n,), (24,), simd)
    ints = rng.integers(-(1 << 31), 1 << 31, n, dtype=np.int64).astype(np.int32)
    _check(program, "mix", [np.zeros(n, np.int32), ints, 12345], (n,), (12,), simd)      # 12: partial thread
    _check(program, "ids", [np.zeros(12 * 6, np.int32)], (12, 6), (4, 3), simd, offset=(3, 5))


@pytest.mark.parametrize("simd", [8, 16])
def test_divergent_ifs_agree_with_the_jit(program, simd):
    rng = np.random.default_rng(9)
    n = 80
    ints = rng.integers(-50, 50, n).astype(np.int32)
    _check(program, "branchy", [np.zeros(n, np.int32), ints, 4], (n,), (20,), simd)
    floats = rng.uniform(-3, 3, n).astype(np.float32)
    _check(program, "fbranch", [np.zeros(n, np.float32), floats], (n,), (16,), simd)


def test_binaries_encode_and_iga64_reads_them_as_we_do(program, tmp_path):
    for name in ("saxpy", "mix", "ids", "branchy", "fbranch", "looping", "divergent", "arith", "nested", "wide",
                 "early"):
        iga_text(encode_program(compile_gen(program.function(name, "gen"), 16)), tmp_path)


@pytest.mark.parametrize("simd", [8, 16])
def test_loops_with_divergent_exits_agree_with_the_jit(program, simd):
    n = 48
    values = np.arange(1, n + 1).astype(np.int32)
    values[7] = -3
    _check(program, "looping", [np.zeros(n, np.int32), values, 20], (n,), (16,), simd)
    _check(program, "divergent", [np.zeros(n, np.int32), values], (n,), (24,), simd)


@pytest.mark.parametrize("simd", [8, 16])
def test_division_min_max_and_negation_agree_with_the_jit(program, simd):
    n = 64
    d = np.random.default_rng(4).integers(-100000, 100000, n).astype(np.int32)
    d[d == 0] = 1
    args = [np.zeros(n, np.int32), np.zeros(n, np.uint32), np.zeros(n, np.float32), d]
    _check(program, "arith", args, (n,), (16,), simd)


@pytest.mark.parametrize("simd", [8, 16])
def test_nested_loops_keep_the_values_of_lanes_that_left_early(program, simd):
    """Lanes leave both loops at different iterations; a lane that broke out waits, disabled, while the
    others loop on, and the value it carries out must not share bytes with anything the loop writes
    (a :q temporary over a :d value wrote lane 3's qword into lane 7's dword before liveness knew)."""
    d = (np.arange(64) % 5).astype(np.int32)
    _check(program, "nested", [np.zeros(32, np.int32), d], (32,), (16,), simd)


@pytest.mark.parametrize("simd", [8, 16])
def test_half_floats_round_after_every_operation(program, simd):
    """f16 computed in f32 and rounded after each operation is correctly rounded (f32 has 2 * 11 + 2
    significand bits): bit-exact with the JIT, through loads, stores, division and conversions."""
    rng = np.random.default_rng(12)
    n = 48
    a = rng.uniform(-60, 60, n).astype(np.float16)
    f = rng.uniform(-60, 60, n).astype(np.float32)
    _check(program, "halves", [np.zeros(n, np.float16), a, f, np.zeros(n, np.int32)], (n,), (16,), simd)


def test_abs_of_a_constant_keeps_its_modifier(tmp_path):
    """-O0 leaves abs(-7) and fabs(-2.5f) unfolded; the immediate moved into a register must still get
    the (abs) modifier (it once did not: the kernel stored -5 instead of 9)."""
    path = tmp_path / "abs.cl"
    path.write_text("kernel void k(global int *out) { out[get_global_id(0)] = abs(-7) + (int)fabs(-2.5f); }\n")
    program = load_program(str(path), "-O0")
    _check(program, "k", [np.zeros(16, np.int32)], (16,), (16,), 16)


def test_64_bit_division_and_high_multiply_agree_with_the_jit(program):
    """Gen9 has neither: a restoring-division loop and four D x D -> Q products, on operands whose
    signs and top bits cover the cases (negative either side, above 2^63 as unsigned)."""
    rng = np.random.default_rng(6)
    n = 24
    a = rng.integers(-(1 << 63), (1 << 63) - 1, n, dtype=np.int64)
    b = rng.integers(-(1 << 40), 1 << 40, n, dtype=np.int64)
    a[:4], b[:4] = [-7, 7, -(1 << 63), 100], [2, -2, 3, -(1 << 62)]
    b[b == 0] = 1
    for width in (8, 16):
        _check(program, "wide", [np.zeros(6 * n, np.int64), a, b], (n,), (n,), width)


@pytest.mark.parametrize("simd", [8, 16])
def test_early_returns_halt_lanes_until_the_end(program, simd):
    """Returns from the top level and from inside a loop: the halted lanes skip the rest (their stores
    must not happen) while the others go on, in SIMD8 and 16, with a partial last thread."""
    d = (np.arange(64) % 9).astype(np.int32)
    _check(program, "early", [np.zeros(40, np.int32), d, 6], (40,), (20,), simd)


@pytest.mark.parametrize("simd", [8, 16])
def test_values_beyond_the_register_file_are_spilled_to_scratch(tmp_path, simd):
    path = tmp_path / "pressure.cl"
    path.write_text(_pressure_kernel())
    program = load_program(str(path), "-O2")
    d = np.random.default_rng(8).integers(-1000, 1000, 64).astype(np.int32)
    _check(program, "pressure", [np.zeros(40, np.int32), d], (40,), (20,), simd)
    data = encode_program(compile_gen(program.function("pressure", "gen"), simd))
    text = iga_text(data, tmp_path)
    assert "scratch block write" in text and "scratch block read" in text


def test_compile_emits_a_container_that_disasm_and_diff_read(program, tmp_path):
    import json
    import os
    import sys
    root = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))

    def cli(*args):
        return subprocess.run([sys.executable, "-m", "reconverge.tools.cli", *args], capture_output=True, text=True,
                              cwd=tmp_path, env=dict(os.environ, PYTHONPATH=root))
    source = tmp_path / "k.cl"
    source.write_text(KERNELS.split("kernel void nested")[0])
    assert cli("compile", "k.cl", "-O2", "--emit", "gen", "-o", "k.bin").returncode == 0
    listing = cli("disasm", "k.bin")
    assert listing.returncode == 0 and "// kernel saxpy: SIMD16" in listing.stdout and "// kernel ids" in listing.stdout
    doc = json.loads(cli("disasm", "k.bin", "--format", "json").stdout)
    assert [k["name"] for k in doc["kernels"]] == ["halves", "saxpy", "mix", "ids", "branchy", "fbranch", "looping",
                                                   "divergent", "arith"]
    assert doc["kernels"][1]["payload"]["cross_thread"] == 4
    assert cli("diff", "k.bin", "k.bin").returncode == 0
    asm = cli("compile", "k.cl", "-O2", "--emit", "gen-asm", "--simd", "8", "--kernel", "saxpy")
    assert asm.returncode == 0 and "(8|M0)" in asm.stdout
    source.write_text(KERNELS + UNSUPPORTED)
    refused = cli("compile", "k.cl", "-O2", "--emit", "gen", "-o", "all.bin")
    assert refused.returncode == 1 and "@counts" in refused.stderr and len(refused.stderr.splitlines()) == 1
    assert not (tmp_path / "all.bin").exists()
