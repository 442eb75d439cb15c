"""Pointers Vulkan cannot express run on Gen: a pointer that may point into two buffers, one stored in
(private) memory and loaded back, one made from an integer. Such a kernel is "flat" (backend/gen/abi.py):
buffers arrive as 64-bit addresses, known objects are still reached by binding-table index and the rest
by A64 stateless messages. Results equal the JIT at -O0 and -O2 in SIMD8 and SIMD16; iga64 reads the
A64 sends as we do; the SPIR-V target refuses the same kernels in one line."""
from __future__ import annotations

import os

import numpy as np
import pytest

from reconverge.backend.gen import compile_gen
from reconverge.isa.gen9.encoding import encode_program
from reconverge.lowering.errors import CompileError
from reconverge.tools.targets.harness import GenRunOptions, compare, load_program, run_target
from tests.gen.iga import iga_text

SOURCE = os.path.join(os.path.dirname(__file__), "flat_pointers.cl")
KERNELS = ("two", "stored", "fromint")


def _args(kernel: str) -> list:
    out = np.zeros(32, np.int64 if kernel == "fromint" else np.int32)
    a, b = np.arange(32, dtype=np.int32) * 5, np.arange(32, dtype=np.int32) - 7
    return [out, a] if kernel == "fromint" else [out, a, b]


@pytest.mark.parametrize("level", ["-O0", "-O2"])
def test_flat_pointers_agree_with_the_jit(level):
    program = load_program(SOURCE, level)
    for kernel in KERNELS:
        want = run_target("llvm", program, kernel, _args(kernel), (32,), (16,))
        for simd in (8, 16):
            got = run_target("gen", program, kernel, _args(kernel), (32,), (16,), GenRunOptions(simd))
            assert compare(want, got, ["out", "a", "b"], labels=("llvm", "gen")) == [], (level, kernel, simd)


@pytest.mark.parametrize("level", ["-O0", "-O2"])
def test_half_floats_through_a64_are_loaded_and_stored_as_halves(level):
    """The A64 word messages carry halves as BTI ones do (an :hf view, not a conversion)."""
    program = load_program(SOURCE, level)
    a, b = (np.arange(32) * 0.25).astype(np.float16), (np.arange(32) - 7.5).astype(np.float16)
    want = run_target("llvm", program, "halves", [np.zeros(32, np.float16), a, b], (32,), (16,))
    for simd in (8, 16):
        got = run_target("gen", program, "halves", [np.zeros(32, np.float16), a, b], (32,), (16,), GenRunOptions(simd))
        assert compare(want, got, ["out", "a", "b"], labels=("llvm", "gen")) == [], (level, simd)


def test_a64_sends_decode_with_iga64(tmp_path):
    program = load_program(SOURCE, "-O0")
    seen = ""
    for kernel in KERNELS:
        seen += iga_text(encode_program(compile_gen(program.function(kernel, "gen"), 16)), tmp_path, kernel)
    assert "a64 untyped surface read" in seen and "a64 untyped surface write" in seen
    assert "a64 byte scattering write" in seen or "a64 byte" in seen


def test_the_spirv_target_refuses_them_in_one_line():
    program = load_program(SOURCE, "-O0")
    for kernel in KERNELS:
        with pytest.raises(CompileError) as info:
            run_target("spirv", program, kernel, _args(kernel), (32,), (16,))
        assert "\n" not in str(info.value) and f"@{kernel}" in str(info.value)
