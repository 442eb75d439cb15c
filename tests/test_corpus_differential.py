"""Differential test of the whole lowering pipeline against the CPU execution oracle.

Every corpus kernel (tests/kernels/*.cl), at -O0 and -O2, is compiled by clang-22, structurized by
lowering.pipeline.compile_llvm (verifying after every pass) and run by the IR interpreter; the original LLVM
IR is run by the MCJIT oracle on an identical, freshly generated set of arguments.  Every buffer must come
out the same, floats included: both sides round every float operation the same way (fmuladd unfused,
the same libm for library functions), so any difference is a real one.
"""
from __future__ import annotations

import glob
import os

import numpy as np
import pytest

from reconverge.lowering.frontend.clang import compile_opencl
from reconverge.tools.targets.jit_oracle import run_llvm_kernel
from reconverge.tools.testing.kernel_spec import parse_specs

KERNEL_DIR = os.path.join(os.path.dirname(__file__), "kernels")
EXAMPLE_DIR = os.path.join(os.path.dirname(__file__), os.pardir, "examples")
CORPUS = sorted(glob.glob(os.path.join(KERNEL_DIR, "*.cl"))) + sorted(glob.glob(os.path.join(EXAMPLE_DIR, "*.cl")))
LEVELS = ("-O0", "-O2")
SEED = 20260611
FLOAT_RTOL = 0.0   # exact; NaNs compare equal to NaNs
FLOAT_ATOL = 0.0


def _cases():
    for path in CORPUS:
        for level in LEVELS:
            name = os.path.basename(path)[:-len(".cl")]
            yield pytest.param(path, level, id=f"{name}{level}")


def _compare(spec, expected: list, got: list) -> None:
    for i, arg in enumerate(spec.args):
        if not arg.is_buffer:
            continue
        want, have = expected[i], got[i]
        what = f"{os.path.basename(spec.path)} @{spec.kernel} buffer {arg.name!r}"
        assert have.shape == want.shape and have.dtype == want.dtype, what
        if np.issubdtype(want.dtype, np.floating):
            np.testing.assert_allclose(have, want, rtol=FLOAT_RTOL, atol=FLOAT_ATOL, equal_nan=True,
                                       err_msg=what)
        else:
            bad = np.flatnonzero((have != want).ravel())
            assert bad.size == 0, (f"{what}: {bad.size} elements differ, first at flat index {bad[0]}: "
                                   f"interpreter {have.ravel()[bad[0]]}, oracle {want.ravel()[bad[0]]}")


@pytest.mark.parametrize("path,level", list(_cases()))
def test_pipeline_matches_oracle(path, level):
    from reconverge.lowering.interp import run_kernel
    from reconverge.lowering.pipeline import compile_llvm

    ir = compile_opencl(path, level)
    funcs = compile_llvm(ir, source_name=path, kernel=None, verify_each=True)
    specs = parse_specs(path)
    missing = [s.kernel for s in specs if s.kernel not in funcs]
    assert not missing, f"compile_llvm returned no function for kernel(s) {missing}; got {sorted(funcs)}"
    unspecified = [k for k in funcs if k not in {s.kernel for s in specs}
                   and not k.startswith("__clang_ocl_kern_imp_")]
    assert not unspecified, f"kernel(s) without a RUN header: {unspecified}"
    for spec in specs:
        expected = spec.make_args(SEED)
        run_llvm_kernel(ir, spec.kernel, expected, spec.global_size, spec.local_size, spec.global_offset)
        got = spec.make_args(SEED)
        run_kernel(funcs[spec.kernel], got, spec.global_size, spec.local_size, spec.global_offset)
        _compare(spec, expected, got)


@pytest.mark.parametrize("level", ["-O1", "-O3"])
def test_corpus_structurizes_validly_at_other_levels(level):
    """-O1 and -O3 are not run (the -O0/-O2 runs cover the executor), but must give valid trees."""
    from reconverge.lowering.pipeline import compile_llvm
    for path in CORPUS:
        funcs = compile_llvm(compile_opencl(path, level), source_name=path, verify_each=True)
        assert funcs and all(f.is_structured for f in funcs.values()), path


@pytest.mark.parametrize("n_blocks,seed", [(8, 1), (30, 2), (60, 3), (150, 4), (400, 5)],
                         ids=lambda v: str(v))
def test_cfggen_pipeline_matches_oracle(n_blocks, seed):
    """Random reducible CFGs (tools/testing/cfggen.py) through the same pipeline-vs-oracle comparison."""
    import random

    from reconverge.lowering.interp import run_kernel
    from reconverge.lowering.pipeline import compile_llvm
    from reconverge.tools.testing.cfggen import random_kernel

    text = str(random_kernel(random.Random(seed), n_blocks))
    funcs = compile_llvm(text, source_name=f"cfggen-{n_blocks}-{seed}", kernel=None, verify_each=True)
    inp = np.random.default_rng(seed).integers(-1000, 1000, 32).astype(np.int32)
    expected, got = np.zeros(32, np.int32), np.zeros(32, np.int32)
    run_llvm_kernel(text, "k", [expected, inp.copy()], 32, 8)
    run_kernel(funcs["k"], [got, inp.copy()], 32, 8)
    assert np.array_equal(got, expected), f"first difference at work-item {np.flatnonzero(got != expected)[0]}"
