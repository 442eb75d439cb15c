"""fmod is exact on every target (OpenCL C 3.0, 7.4: 0 ULP): lower_math_edges computes it for halves and
floats in integers (exact_fmod), where Vulkan's OpFRem, x - y * trunc(x / y), was far off on lavapipe once
the quotient passed 2^24. Halves here against Python's exact math.fmod (floats: tests/kernels/fmod_exact.cl
against the JIT's fmodf, on every target); a double fmod is refused on SPIR-V in one line."""
from __future__ import annotations

import math

import numpy as np
import pytest

from reconverge.lowering.errors import CompileError
from reconverge.tools.targets.harness import GenRunOptions, load_program, run_target

HALF_KERNEL = """\
#pragma OPENCL EXTENSION cl_khr_fp16 : enable
kernel void k(global half *out, global const half *a, global const half *b) {
    uint g = get_global_id(0);
    out[g] = fmod(a[g], b[g]);
}
"""


@pytest.mark.parametrize("level", ["-O0", "-O2"])
def test_a_half_fmod_is_exact_on_every_target(tmp_path, level):
    path = tmp_path / "k.cl"
    path.write_text(HALF_KERNEL)
    rng = np.random.default_rng(20261128)
    n = 256
    a = rng.integers(0, 1 << 16, n, dtype=np.uint16).view(np.float16)       # every half: NaN, inf, subnormals
    b = rng.integers(0, 1 << 16, n, dtype=np.uint16).view(np.float16)
    b[::4] = (rng.integers(0, 1 << 10, len(b[::4]), dtype=np.uint16) | 0x8000).view(np.float16)  # subnormal y
    a[::5] = np.float16(65504.0)                                              # quotients up to 2^40
    want = np.array([math.fmod(float(x), float(y)) if np.isfinite(x) and float(y) != 0 and not np.isnan(y)
                     else math.nan for x, y in zip(a, b)], dtype=np.float16)
    program = load_program(str(path), level)
    for target, options in (("ir", None), ("spirv", None), ("gen", GenRunOptions(16, "structured")),
                            ("gen", GenRunOptions(8, "hybrid"))):
        got = run_target(target, program, "k", [np.zeros(n, np.float16), a, b], n, 16, options)[0]
        same = (got.view(np.uint16) == want.view(np.uint16)) | (np.isnan(got) & np.isnan(want))
        bad = np.flatnonzero(~same)
        assert bad.size == 0, (f"{target} {level}: fmod({a[bad[0]]}, {b[bad[0]]}) = {got[bad[0]]}, "
                               f"want {want[bad[0]]} ({bad.size} lanes)")


def test_a_double_fmod_is_refused_on_vulkan_in_one_line(tmp_path):
    from reconverge.backend.spirv import compile_spirv
    path = tmp_path / "d.cl"
    path.write_text("kernel void d(global double *o) { o[0] = fmod(o[1], o[2]); }\n")
    with pytest.raises(CompileError, match=r"@d: block \S+: frem: a double-precision fmod cannot be computed "
                                           r"exactly on Vulkan"):
        compile_spirv(list(load_program(str(path), "-O2").functions_for("spirv").values()))
