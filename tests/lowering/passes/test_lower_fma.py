"""lower_fma: an fma rounds once on targets without a fused multiply-add of its width (Vulkan's GLSL Fma
may round twice, and lavapipe's does; Gen's selection has none), computed in the wider format with
rounding to odd. Halves here, against an exact rational reference (floats: tests/kernels/fma_exact.cl
against the JIT's fmaf, on every target)."""
from __future__ import annotations

from fractions import Fraction

import numpy as np
import pytest

from reconverge.lowering.errors import CompileError
from reconverge.lowering.ir.parser import parse_module
from reconverge.lowering.passes import PASSES
from reconverge.lowering.target import CAPS
from reconverge.tools.targets.harness import GenRunOptions, load_program, run_target

HALF_KERNEL = """\
#pragma OPENCL EXTENSION cl_khr_fp16 : enable
kernel void k(global half *out, global const half *a, global const half *b, global const half *c) {
    uint g = get_global_id(0);
    out[g] = fma(a[g], b[g], c[g]);
}
"""


def _round_to_half(exact: Fraction) -> np.float16:
    """The half nearest `exact`, ties to even (finite halves only; the inputs below keep sums in range)."""
    guess = np.float16(float(exact))
    best = guess
    for candidate in (np.nextafter(guess, np.float16(-np.inf)), guess, np.nextafter(guess, np.float16(np.inf))):
        if not np.isfinite(candidate):
            continue
        d, best_d = abs(Fraction(float(candidate)) - exact), abs(Fraction(float(best)) - exact)
        if d < best_d or (d == best_d and int(candidate.view(np.uint16)) % 2 == 0):
            best = candidate
    return best


def _halves(rng: np.random.Generator, n: int) -> np.ndarray:
    """Finite halves of every exponent, subnormals among them, bounded so that no product overflows."""
    fraction = rng.integers(0, 1 << 16, n, dtype=np.uint16) & np.uint16(0x83FF)
    exponent = rng.integers(0, 21, n, dtype=np.uint16) << np.uint16(10)              # exponents 0..20
    return (fraction | exponent).astype(np.uint16).view(np.float16)


@pytest.mark.parametrize("level", ["-O0", "-O2"])
def test_a_half_fma_rounds_once_on_every_target(tmp_path, level):
    path = tmp_path / "k.cl"
    path.write_text(HALF_KERNEL)
    rng = np.random.default_rng(20261128)
    n = 256
    a, b = _halves(rng, n), _halves(rng, n)
    c = (-(a.astype(np.float32) * b.astype(np.float32))).astype(np.float16)     # near cancellation
    c[::3] = _halves(rng, len(c[::3]))
    want = np.array([_round_to_half(Fraction(float(x)) * Fraction(float(y)) + Fraction(float(z)))
                     for x, y, z in zip(a, b, c)], dtype=np.float16)
    program = load_program(str(path), level)
    for target, options in (("ir", None), ("spirv", None), ("gen", GenRunOptions(16, "structured")),
                            ("gen", GenRunOptions(8, "blockip"))):
        got = run_target(target, program, "k", [np.zeros(n, np.float16), a, b, c], n, 16, options)[0]
        bad = np.flatnonzero(got.view(np.uint16) != want.view(np.uint16))
        assert bad.size == 0, (f"{target} {level}: fma({a[bad[0]]}, {b[bad[0]]}, {c[bad[0]]}) = {got[bad[0]]}, "
                               f"want {want[bad[0]]} ({bad.size} lanes)")


def test_the_pass_leaves_fused_widths_and_rewrites_the_others():
    text = """\
kernel @k(ptr1 %out, f32 %a, f32 %b, f32 %c) {
  block b0 "entry":
    %r = fma f32 %a, %b, %c
    store f32 %r, %out
    ret
}
"""
    generic = parse_module(text).functions["k"]
    assert not PASSES["lower_fma"].run(generic, CAPS["generic"])
    for pipeline in ("spirv", "gen", "gen-blockip"):
        func = parse_module(text).functions["k"]
        assert PASSES["lower_fma"].run(func, CAPS[pipeline])
        opcodes = [ins.opcode for ins in func.instructions()]
        assert "fma" not in opcodes and "fptrunc" in opcodes and opcodes.count("fadd") == 2, pipeline


def test_a_double_fma_is_refused_on_vulkan_in_one_line(tmp_path):
    """No wider format holds a double's product, and Vulkan's Fma may round twice: refused, not wrong."""
    from reconverge.backend.spirv import compile_spirv
    path = tmp_path / "d.cl"
    path.write_text("kernel void d(global double *o) { o[0] = fma(o[1], o[2], o[3]); }\n")
    with pytest.raises(CompileError, match=r"@d: block \S+: fma: a double-precision fma cannot be computed with "
                                           r"one rounding on Vulkan"):
        compile_spirv(list(load_program(str(path), "-O2").functions_for("spirv").values()))
