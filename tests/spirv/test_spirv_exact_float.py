"""Correctly rounded division and sqrt (backend/spirv/exact_float.py) against numpy's IEEE float32 on
lavapipe: random bit patterns, every pair of special values, quotients near 1, subnormal and overflowing
results. lavapipe's own OpFDiv is exact, so the same runs are repeated with the driver's estimates made
worse on purpose (up to 3 ULP off for the division, as Vulkan allows 2.5 and NVIDIA is 2 off; up to 7 for
sqrt): the integer correction must still give IEEE's answer bit for bit."""
from __future__ import annotations

import numpy as np
import pytest

from reconverge.backend.spirv.exact_float import ExactFloat
from reconverge.tools.targets.harness import load_program, run_target
from reconverge.tools.testing.spirv_signedness import disassemble

SOURCE = """
kernel void divsqrt(global float *q, global float *r, global const float *a, global const float *b) {
  int i = get_global_id(0);
  q[i] = a[i] / b[i];
  r[i] = sqrt(a[i]);
}
"""
EXACT = ("-cl-fp32-correctly-rounded-divide-sqrt",)
N = 16384
SPECIAL = np.array([0.0, -0.0, np.inf, -np.inf, np.nan, 1.0, -1.0, 3.0, 1e-45, -3e-45, 1.1754942e-38,
                    1.17549435e-38, 3.4028235e38, -3.4028235e38, 0.5, 7.0, 16777215.0, 2.0 ** -126 * 1.5],
                   dtype=np.float32)


def _operands() -> tuple[np.ndarray, np.ndarray]:
    rng = np.random.default_rng(20261126)
    a = rng.integers(0, 2 ** 32, N, dtype=np.uint64).astype(np.uint32).view(np.float32)
    b = rng.integers(0, 2 ** 32, N, dtype=np.uint64).astype(np.uint32).view(np.float32)
    sa, sb = np.meshgrid(SPECIAL, SPECIAL)
    k, m = sa.size, 2048
    a[:k], b[:k] = sa.ravel(), sb.ravel()
    a[k:k + m] = rng.uniform(1, 2, m).astype(np.float32)                      # quotients next to 1
    b[k:k + m] = (a[k:k + m] * np.float32(1 + 2 ** -22)).astype(np.float32)
    b[k + m:k + 2 * m] = (2.0 ** 100 * rng.uniform(1, 2, m)).astype(np.float32)   # subnormal quotients
    a[k + 2 * m:k + 3 * m] = (2.0 ** -120 * rng.uniform(-1, 1, m)).astype(np.float32)
    b[k + 2 * m:k + 3 * m] = rng.uniform(1, 2 ** 20, m).astype(np.float32)
    a[k + 3 * m:k + 4 * m] = rng.integers(-1000, 1000, m).astype(np.float32)       # exact quotients
    b[k + 3 * m:k + 4 * m] = rng.integers(1, 50, m).astype(np.float32)
    b[k + 4 * m:k + 5 * m] = (2.0 ** -100 * rng.uniform(1, 2, m)).astype(np.float32)  # overflowing
    return a, b


def _run(tmp_path, build_options=EXACT) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray]:
    path = tmp_path / "divsqrt.cl"
    path.write_text(SOURCE)
    a, b = _operands()
    program = load_program(str(path), "-O2", build_options=build_options)
    q, r, _, _ = run_target("spirv", program, "divsqrt", [np.zeros(N, np.float32), np.zeros(N, np.float32), a, b],
                            (N, 1, 1), (64, 1, 1))
    return a, b, q, r


def _mismatches(want: np.ndarray, got: np.ndarray, a, b) -> list[str]:
    same = (want.view(np.uint32) == got.view(np.uint32)) | (np.isnan(want) & np.isnan(got))
    return [f"{a[i]!r} {b[i]!r}: want {want[i]!r} got {got[i]!r}" for i in np.nonzero(~same)[0][:5]]


def _check(tmp_path) -> None:
    a, b, q, r = _run(tmp_path)
    with np.errstate(all="ignore"):
        want_q, want_r = a / b, np.sqrt(a)
    assert not _mismatches(want_q, q, a, b), _mismatches(want_q, q, a, b)
    assert not _mismatches(want_r, r, a, b), _mismatches(want_r, r, a, b)


def test_division_and_sqrt_are_correctly_rounded(tmp_path):
    _check(tmp_path)


def _skew(ex: ExactFloat, x: int, salt: int, span: int) -> int:
    """x moved by a lane-dependent number of ULP in [-span, span]."""
    bits = ex.sel.op("OpBitcast", ex.u, x)
    mixed = ex.i("OpBitwiseXor", bits, ex.i("OpShiftRightLogical", bits, ex.k(7 + salt)))
    offset = ex.i("OpISub", ex.i("OpUMod", mixed, ex.k(2 * span + 1)), ex.k(span))
    return ex.sel.op("OpBitcast", ex.f, ex.i("OpIAdd", bits, offset))


def test_exact_with_a_driver_several_ulp_off(tmp_path, monkeypatch):
    quotient, root = ExactFloat.estimate_quotient, ExactFloat.estimate_root
    monkeypatch.setattr(ExactFloat, "estimate_quotient", lambda ex, a, b: _skew(ex, quotient(ex, a, b), 0, 3))
    monkeypatch.setattr(ExactFloat, "estimate_root", lambda ex, y: _skew(ex, root(ex, y), 3, 7))
    _check(tmp_path)


@pytest.mark.parametrize("options, exact", [((), False), (EXACT, True)])
def test_plain_opfdiv_only_where_the_source_allows_it(tmp_path, options, exact):
    """Without the option clang marks the division 2.5 ULP (!fpmath) and the module divides with OpFDiv
    and GLSL Sqrt, as before; with it the exact sequence replaces both."""
    from reconverge.backend.spirv import compile_spirv
    path = tmp_path / "divsqrt.cl"
    path.write_text(SOURCE)
    program = load_program(str(path), "-O2", build_options=options)
    ops = [t[2] for t in disassemble(compile_spirv(list(program.functions.values()))) if len(t) > 2]
    assert ("OpUDiv" in ops) == exact
    assert ops.count("OpFDiv") == 1                        # the estimate, or the division itself


def test_half_division_is_correctly_rounded(tmp_path):
    """A half division goes through the exact f32 one and rounds once more: still IEEE's half quotient
    (24 >= 2 * 11 + 2 bits), for every half dividend against random divisors."""
    path = tmp_path / "half.cl"
    path.write_text("#pragma OPENCL EXTENSION cl_khr_fp16 : enable\n"
                    "kernel void h(global half *q, global const half *a, global const half *b) {\n"
                    "  int i = get_global_id(0); q[i] = a[i] / b[i]; }\n")
    rng = np.random.default_rng(3)
    a = np.arange(2 ** 16, dtype=np.uint32).astype(np.uint16).view(np.float16)
    b = rng.integers(0, 2 ** 16, 2 ** 16, dtype=np.uint32).astype(np.uint16).view(np.float16)
    program = load_program(str(path), "-O2", build_options=EXACT)
    q = run_target("spirv", program, "h", [np.zeros(2 ** 16, np.float16), a, b], (2 ** 16,), (64,))[0]
    with np.errstate(all="ignore"):
        want = (a.astype(np.float64) / b.astype(np.float64)).astype(np.float16)
    same = (want.view(np.uint16) == q.view(np.uint16)) | (np.isnan(want) & np.isnan(q))
    assert same.all(), f"{int((~same).sum())} half quotients differ"
