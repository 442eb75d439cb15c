"""Kernels whose results depend on __local memory and barriers (tests/kernels_barrier/), run on lavapipe.

The CPU reference (tools.targets.jit_oracle) runs work-items one after another, so it cannot run these; the
expected buffers come from numpy instead, and both the SPIR-V module on the Vulkan driver and the IR
interpreter in lock step (every work-item of a group reaches a barrier before any passes it) must give
exactly those buffers, at -O0 and -O2, over several work-groups of random (fixed-seed) inputs.
"""
from __future__ import annotations

import functools
import os

import numpy as np
import pytest

from reconverge.backend.spirv import compile_spirv
from reconverge.backend.spirv.launch import run_spirv_kernel
from reconverge.backend.spirv.tools import disassemble, validate
from reconverge.lowering.interp import run_kernel
from reconverge.lowering.program import compile_path
from reconverge.tools.testing.barrier_cases import CASES, KERNELS, case_id, check, fresh_args

pytestmark = pytest.mark.usefixtures("vk_device")     # once per Vulkan device (tests/conftest.py)

LEVELS = ("-O0", "-O2")


@functools.lru_cache(maxsize=None)
def compiled(file: str, level: str):
    return compile_path(os.path.join(KERNELS, file), level)


def test_every_barrier_kernel_is_covered():
    files = sorted(f for f in os.listdir(KERNELS) if f.endswith(".cl"))
    assert files == sorted({c.file for c in CASES})
    for file in files:
        assert set(compiled(file, "-O0")) == {c.kernel for c in CASES if c.file == file}


@pytest.mark.parametrize("level", LEVELS)
@pytest.mark.parametrize("case", CASES, ids=case_id)
def test_lavapipe_matches_numpy(case, level):
    func = compiled(case.file, level)[case.kernel]
    args = fresh_args(case)
    expected = case.expect(args)
    run_spirv_kernel(func, args, case.global_size, case.local_size)
    check(args, expected, f"spirv {case.kernel} {level}")


@pytest.mark.parametrize("level", LEVELS)
@pytest.mark.parametrize("case", CASES, ids=case_id)
def test_lockstep_interpreter_matches_numpy(case, level):
    func = compiled(case.file, level)[case.kernel]
    args = fresh_args(case)
    expected = case.expect(args)
    run_kernel(func, args, case.global_size, case.local_size, lockstep=True)
    check(args, expected, f"interpreter {case.kernel} {level}")


@pytest.mark.parametrize("level", LEVELS)
@pytest.mark.parametrize("file", sorted({c.file for c in CASES}))
def test_module_is_valid_vulkan13(file, level):
    funcs = compiled(file, level)
    binary = compile_spirv(list(funcs.values()))
    validate(binary, "vulkan1.3", f"{file} {level}")
    text = disassemble(binary)
    for case in CASES:
        if case.file == file:
            assert f'"{case.kernel}"' in text
            for needle in case.spirv_has:
                assert needle in text, (case.kernel, needle)


@pytest.mark.parametrize("case", CASES, ids=case_id)
def test_results_really_depend_on_the_barriers(case):
    """Run one work-item after another (as the JIT oracle does), every kernel gets some buffer wrong: the
    agreement above is evidence about barriers, not an accident of a barrier-free kernel."""
    func = compiled(case.file, "-O2")[case.kernel]
    args = fresh_args(case)
    expected = case.expect(args)
    run_kernel(func, args, case.global_size, case.local_size)
    assert any(not np.array_equal(args[i], want) for i, want in expected.items())
