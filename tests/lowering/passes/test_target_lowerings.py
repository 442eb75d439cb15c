"""The target lowerings keep what every lane computes: a kernel lowered for Gen (all of lowering.passes'
lowerings: work-item ids, 64-bit bit operations, math edge cases) runs on the interpreter and agrees with
the LLVM module on the CPU JIT, on edge inputs, over a 2-D NDRange with a global offset."""
from __future__ import annotations

import numpy as np
import pytest

from reconverge.lowering.target import CAPS, PIPELINES, lower_for
from reconverge.tools.targets.harness import GenRunOptions, load_program, run_target

KERNEL = """
kernel void lowered(global const ulong *bits, global const float *a, global const float *b,
                    global ulong *ints, global float *floats) {
  size_t x = get_global_id(0), y = get_global_id(1);
  size_t i = (y - get_global_offset(1)) * get_global_size(0) + (x - get_global_offset(0));
  ulong v = bits[i];
  ints[i*6+0] = popcount(v); ints[i*6+1] = clz(v); ints[i*6+2] = ctz(v);
  ints[i*6+3] = x * 1000 + y; ints[i*6+4] = get_global_size(0) * 10 + get_global_size(1);
  ints[i*6+5] = popcount((uint)(v >> 7)) + clz((long)v);
  float p = a[i], q = b[i];
  floats[i*9+0] = pow(p, q);   floats[i*9+1] = round(p);      floats[i*9+2] = fmod(p, q);
  floats[i*9+3] = atan2(p, q); floats[i*9+4] = copysign(p, q); floats[i*9+5] = hypot(p, q);
  floats[i*9+6] = cbrt(p);     floats[i*9+7] = exp10(q * 0.25f); floats[i*9+8] = log10(fabs(p));
}
"""
EXACT = (1, 2, 4)              # round, fmod, copysign: bit for bit
A = [-2, -0.3, np.inf, 0, -0.0, 1e-30, -8, 2, -1, 1, np.nan, -0.0, 0.0, -np.inf, 3, -2.5, 0.5, -27, 2.5, -0.0,
     7.5, -1e10, 1e-3, 4, -4, 100, -0.5, 9, 0.25, -64, 6, 1.5]
B = [3, 2, np.inf, -1, 0, 3e-30, 2, 0.5, np.inf, np.nan, 0, -0.0, -0.0, -np.inf, -2, -3, -np.inf, 0.5, -0.5, 3,
     2, 3, -1, 0.5, 3, -2, 2, 0.5, -3, 1 / 3, -1.5, 2.5]


def _agree(want: np.floating, got: np.floating, exact: bool) -> bool:
    if np.isnan(want) or np.isnan(got):
        return bool(np.isnan(want) and np.isnan(got))
    if exact:
        return want.tobytes() == got.tobytes()
    same_kind = np.signbit(want) == np.signbit(got) and np.isinf(want) == np.isinf(got) and (want == 0) == (got == 0)
    return bool(same_kind and (not np.isfinite(want) or abs(want - got) <= 2e-6 * abs(want) + 1e-37))


def test_every_target_pipeline_ends_with_the_lowerings_its_capabilities_ask_for():
    assert PIPELINES["spirv"][:4] == ("convergence", "structurize", "split_private_selects", "promote")
    assert PIPELINES["gen-blockip"][1] == "split_private_selects"   # before the lowerings, as on the tree
    assert "structurize" not in PIPELINES["gen-blockip"] and not CAPS["gen-blockip"].structured
    assert not CAPS["gen"].global_id and CAPS["spirv"].global_id


@pytest.mark.parametrize("level", ["-O0", "-O2"])
def test_lowered_for_gen_on_the_interpreter_agrees_with_the_jit(tmp_path, level):
    path = tmp_path / "lowered.cl"
    path.write_text(KERNEL)
    rng = np.random.default_rng(3)
    n = len(A)
    edges = np.array([0, 1, 1 << 63, (1 << 64) - 1, 1 << 32, (1 << 32) - 1, 0x0123456789ABCDEF], np.uint64)
    bits = np.concatenate([edges, rng.integers(0, 1 << 63, n - 7, dtype=np.uint64)])
    args = [bits, np.float32(A), np.float32(B), np.zeros(6 * n, np.uint64), np.zeros(9 * n, np.float32)]
    geometry = ((8, n // 8), (4, 2))
    want = run_target("llvm", load_program(str(path), level), "lowered", args, *geometry, global_offset=(5, 2))
    program = load_program(str(path), level)
    func = program.function("lowered")
    lower_for([func], "gen")
    assert not any(i.opcode == "workitem" and i.attrs["fn"] in ("global_id", "global_size")
                   for i in func.instructions())
    got = run_target("ir", program, "lowered", args, *geometry, global_offset=(5, 2))
    np.testing.assert_array_equal(got[3], want[3])
    floats_want, floats_got = want[4].reshape(n, 9), got[4].reshape(n, 9)
    bad = [f"a={A[lane]} b={B[lane]} result {k}: ir {floats_got[lane, k]!r} != llvm {floats_want[lane, k]!r}"
           for lane in range(n) for k in range(9)
           if not _agree(floats_want[lane, k], floats_got[lane, k], k in EXACT)]
    assert not bad, "; ".join(bad)


EXP_KERNEL = """
kernel void exps(global const float *x, global float *o) {
  int i = get_global_id(0);
  o[2*i] = exp(x[i]);
  o[2*i+1] = exp10(x[i] * 0.4f);
}
"""
# NaN, infinities, zeros, tiny arguments, the subnormal results (-87.5, -100), the last finite result and the
# first overflow (88.72, 88.73), the result that rounds to 0 (-103.97, -104.5), and where exp2(x * log2(e))
# was 5 to 60 ULP off (fuzz seed 1622: -6.5536)
EXP_X = [np.nan, np.inf, -np.inf, 0.0, -0.0, 1e-30, -1e-30, 0.5, -0.3466, -6.5536, 6.5536, 60.0, -80.0, -87.5,
         -100.0, -103.97, -104.5, 88.0, 88.72, 88.73, 200.0, -200.0, 1.0, -1.0, 30.25, -45.1, 10.0, -12.5,
         70.5, -65.25, 3.0, 20.0]


def _ulps_apart(want: np.ndarray, got: np.ndarray) -> np.ndarray:
    """How many floats lie between two finite floats of the same sign (0 for equal infinities)."""
    return np.abs(want.view(np.int32).astype(np.int64) - got.view(np.int32).astype(np.int64))


@pytest.mark.parametrize("target", ["ir", "spirv", "gen"])
def test_exp_and_exp10_within_opencl_ulps_at_the_edges(tmp_path, target):
    """OpenCL C 3.0 section 7.4 allows exp and exp10 3 ULP; lower_math_edges' range reduction keeps spirv
    and gen within 2 of the CPU reference (itself within 0.5 of the true value) over the whole range,
    subnormal results included, and NaN, infinities and the overflow and underflow edges exact."""
    path = tmp_path / "exps.cl"
    path.write_text(EXP_KERNEL)
    program = load_program(str(path), "-O2")
    args = [np.float32(EXP_X), np.zeros(2 * len(EXP_X), np.float32)]
    want = run_target("llvm", program, "exps", args, (len(EXP_X),), (len(EXP_X),))[1]
    options = GenRunOptions(simd=16) if target == "gen" else None
    got = run_target(target, program, "exps", args, (len(EXP_X),), (len(EXP_X),), options)[1]
    finite = np.isfinite(want) & np.isfinite(got) & (want != 0)
    bad = [f"{'exp10' if k % 2 else 'exp'}(x = {EXP_X[k // 2]}): {target} {got[k]!r} != llvm {want[k]!r}"
           for k in range(len(want))
           if not (_ulps_apart(want[k:k + 1], got[k:k + 1])[0] <= 2 if finite[k] else
                   want[k].tobytes() == got[k].tobytes() or (np.isnan(want[k]) and np.isnan(got[k])))]
    assert not bad, "; ".join(bad)
