"""SignedZeroInfNanPreserve: OpenCL C keeps the sign of a zero, Inf and NaN, and Vulkan lets a driver drop them
unless the module asks (Vulkan spec, "Precision and Operation of SPIR-V Instructions"). NVIDIA's 580 driver
did: `c ? -1.0f : 0.0f` came out -0.0 for a false c (`reconverge fuzz --seed 91763 --mode convergence`, 8 of 16
lanes, replayed on an H200; right once the module declared the mode). Every module declares it for each float
width it uses, unless the build options give signed zeros up; a launch refuses a device without the width's
shaderSignedZeroInfNanPreserveFloat property."""
from __future__ import annotations

import dataclasses
import os
import re

import numpy as np
import pytest

from reconverge.backend.spirv import compile_spirv
from reconverge.backend.spirv import vulkan_run as vr
from reconverge.backend.spirv.launch import run_spirv_kernel
from reconverge.backend.spirv.options import TARGET_ENVS, SpirvOptions
from reconverge.backend.spirv.tools import disassemble, validate
from reconverge.lowering.errors import CompileError
from reconverge.lowering.program import compile_path
from reconverge.tools.cli import main

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.realpath(__file__))))
SELECT = os.path.join(ROOT, "tests", "kernels", "signed_zero_select.cl")
WIDTHS = """#pragma OPENCL EXTENSION cl_khr_fp16 : enable
kernel void k(global float *out, global const double *d, global const half *h)
{
    uint i = get_global_id(0);
    out[i] = (float)d[i] + (float)h[i];
}
kernel void ints(global uint *out) { out[get_global_id(0)] = 7u; }
"""


def _modes(text: str) -> dict[str, list[int]]:
    """Entry point name -> the widths of its SignedZeroInfNanPreserve modes."""
    names = dict(re.findall(r"OpEntryPoint GLCompute (%\S+) \"(\w+)\"", text))
    found: dict[str, list[int]] = {name: [] for name in names.values()}
    for entry, width in re.findall(r"OpExecutionMode (%\S+) SignedZeroInfNanPreserve (\d+)", text):
        found[names[entry]].append(int(width))
    return found


@pytest.fixture(scope="module")
def widths_kernels(tmp_path_factory):
    path = tmp_path_factory.mktemp("sz") / "widths.cl"
    path.write_text(WIDTHS)
    return compile_path(str(path), "-O2")


@pytest.mark.parametrize("env", sorted(TARGET_ENVS))
def test_every_float_width_is_declared_and_valid_in_every_environment(widths_kernels, env):
    """The mode for 16, 32 and 64 bits on the float kernel, through SPV_KHR_float_controls before SPIR-V 1.4
    (core from 1.4 on); spirv-val accepts the module in each environment."""
    options = SpirvOptions(version=TARGET_ENVS[env], target_env=env)
    binary = compile_spirv([widths_kernels["k"]], options)
    validate(binary, env, "widths.cl")
    text = disassemble(binary)
    assert _modes(text) == {"k": [16, 32, 64]}
    assert "OpCapability SignedZeroInfNanPreserve" in text
    assert ('OpExtension "SPV_KHR_float_controls"' in text) == (TARGET_ENVS[env] < (1, 4))


def test_a_kernel_without_floats_asks_nothing(widths_kernels):
    text = disassemble(compile_spirv([widths_kernels["ints"]], SpirvOptions()))
    assert "SignedZeroInfNanPreserve" not in text and "float_controls" not in text


def test_build_options_that_give_signed_zeros_up_drop_the_mode(tmp_path, capsys):
    """-cl-no-signed-zeros, and -cl-unsafe-math-optimizations and -cl-fast-relaxed-math, which imply it
    (OpenCL 1.2, 5.6.4.2); other options keep it."""
    for flags, declared in (((), True), (("-cl-mad-enable",), True), (("-cl-no-signed-zeros",), False),
                            (("-cl-unsafe-math-optimizations",), False), (("-cl-fast-relaxed-math",), False)):
        out = tmp_path / "m.spvasm"
        assert main(["compile", SELECT, *flags, "--emit", "spirv-asm", "-o", str(out)]) in (0, None)
        assert ("SignedZeroInfNanPreserve 32" in out.read_text()) == declared, flags


def test_a_device_that_cannot_keep_signed_zeros_is_refused(widths_kernels):
    """A launch on a (fake) device without shaderSignedZeroInfNanPreserveFloat64 refuses a kernel computing with
    doubles, in one line, before dispatching; the device the suite runs on (lavapipe) offers every width."""
    lavapipe = vr.select_device(None)
    assert lavapipe.signed_zero_widths == (16, 32, 64)
    binary = compile_spirv([widths_kernels["k"]], SpirvOptions())
    vr.check_float_controls(binary, lavapipe, "k")
    with pytest.raises(CompileError, match=r"^k: the Vulkan device .* cannot keep the sign of a zero, Inf and "
                                           r"NaN of 64-bit floats \(.*Float64\), which OpenCL C needs$"):
        vr.check_float_controls(binary, dataclasses.replace(lavapipe, signed_zero_widths=(16, 32)), "k")


def test_the_launch_declares_it_and_answers_with_the_sign(monkeypatch):
    """`run --target spirv` hands the driver the mode (captured at dispatch) and gets OpenCL's signed zeros back
    (on lavapipe, whose algebraic rules ignore the mode, through the zero hiding of its launches)."""
    func = compile_path(SELECT, "-O0")["select_zero"]
    seen: list[bytes] = []
    real = vr.dispatch

    def spy(spirv, *args, **kwargs):
        seen.append(spirv)
        return real(spirv, *args, **kwargs)
    monkeypatch.setattr(vr, "dispatch", spy)
    rng = np.random.default_rng(5)
    a, b = rng.integers(-9, 9, 64).astype(np.float32), rng.integers(-9, 9, 64).astype(np.float32)
    out = np.zeros(64, np.uint32)
    run_spirv_kernel(func, [out, a, b], (64,), (16,))
    m = np.where(a > b, np.float32(-1.0), np.float32(0.0)).view(np.uint32)
    p = np.where(a < b, np.float32(1.0), np.float32(-0.0)).view(np.uint32)
    np.testing.assert_array_equal(out, m ^ (p >> 1))
    assert _modes(disassemble(seen[0])) == {"select_zero": [32]}


def test_every_float_width_rounds_to_nearest_even_and_a_device_that_cannot_is_refused(widths_kernels, tmp_path):
    """RoundingModeRTE for every float width a module uses, also where the build options give signed zeros up:
    Vulkan's default rounding mode is RTE or RTZ as the implementation chooses, and OpenCL C rounds to nearest
    even. A device without the width's shaderRoundingModeRTEFloat property is refused in one line; lavapipe
    offers every width."""
    text = disassemble(compile_spirv([widths_kernels["k"]], SpirvOptions()))
    assert sorted(int(w) for w in re.findall(r"OpExecutionMode %\S+ RoundingModeRTE (\d+)", text)) == [16, 32, 64]
    assert "OpCapability RoundingModeRTE" in text
    out = tmp_path / "m.spvasm"
    assert main(["compile", SELECT, "-cl-fast-relaxed-math", "--emit", "spirv-asm", "-o", str(out)]) in (0, None)
    assert "RoundingModeRTE 32" in out.read_text() and "SignedZeroInfNanPreserve" not in out.read_text()
    lavapipe = vr.select_device(None)
    assert lavapipe.rte_widths == (16, 32, 64)
    binary = compile_spirv([widths_kernels["k"]], SpirvOptions())
    vr.check_float_controls(binary, lavapipe, "k")
    with pytest.raises(CompileError, match=r"^k: the Vulkan device .* cannot promise rounding to nearest even for "
                                           r"16-bit floats \(.*RTEFloat16\), which OpenCL C needs$"):
        vr.check_float_controls(binary, dataclasses.replace(lavapipe, rte_widths=(32, 64)), "k")
