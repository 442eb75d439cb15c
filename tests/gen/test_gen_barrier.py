"""The barrier kernels (tests/kernels_barrier/: __local memory, barriers in loops and under divergent
ifs, bytes and words in SLM) on the Gen target: each work-group runs as ceil(L / SIMD) hardware threads
that meet at the gateway barrier; the buffers equal numpy's answer at -O0 and -O2 in SIMD8 and SIMD16,
and the lock-step interpreter agrees (tools/testing/barrier_cases.py)."""
from __future__ import annotations

import functools
import os

import pytest

from reconverge.backend.gen import CF_MODES
from reconverge.backend.gen.launch import run_gen_kernel
from reconverge.tools.targets.harness import load_program
from reconverge.tools.testing.barrier_cases import CASES, KERNELS, case_id, check, fresh_args


@functools.lru_cache(maxsize=None)
def program(file: str, level: str):
    return load_program(os.path.join(KERNELS, file), level)


@pytest.mark.parametrize("cf", list(CF_MODES))
@pytest.mark.parametrize("simd", [8, 16])
@pytest.mark.parametrize("level", ["-O0", "-O2"])
@pytest.mark.parametrize("case", CASES, ids=case_id)
def test_gen_matches_numpy(case, level, simd, cf):
    """Structured branches; blockIP (with each of Beignet's entry sequences), whose barrier blocks wait
    for every lane of the thread; and the hybrid, which keeps barrier blocks out of its regions."""
    mode = CF_MODES[cf]
    func = program(case.file, level).function(case.kernel, mode.pipeline)
    args = fresh_args(case)
    expected = case.expect(args)
    run_gen_kernel(func, args, case.global_size, case.local_size, simd, regions=mode.regions, entry=mode.entry)
    check(args, expected, f"{cf} SIMD{simd} {case.kernel} {level}")
