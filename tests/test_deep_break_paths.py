"""Sub-group operations deeper in a loop's break path than its exit block (lowering/passes/convergence.py
pulls the whole region between the loop's exits and the operation into the loop), with -g's scopes at -O0 and
-O2, lane-exact on the interpreter, on Gen in every --cf mode at SIMD8 and SIMD16, and on lavapipe.

Expected buffers come from numpy over the lane partition the source implies: in the waterfall loop the lanes
of a sub-group sharing a key leave in one pass; of those, the ones taking the inner branch meet."""
from __future__ import annotations

import functools
import os

import numpy as np
import pytest

from reconverge.tools.targets.harness import GenRunOptions, InterpreterOptions, load_program, run_target

HERE = os.path.dirname(os.path.abspath(__file__))
KERNELS = os.path.join(HERE, "kernels_deep_break", "deep_break.cl")
GLOBAL, LOCAL = 40, 20            # a partial last sub-group at SIMD8 and SIMD16
SEED = 20261127


def sub_groups(size: int):
    for start in range(0, GLOBAL, LOCAL):
        for first in range(start, start + LOCAL, size):
            yield list(range(first, min(first + size, start + LOCAL)))


def inputs():
    rng = np.random.default_rng(SEED)
    key = rng.integers(0, 3, GLOBAL, dtype=np.uint32)
    x = rng.integers(0, 1000, GLOBAL, dtype=np.uint32)
    flag = rng.integers(0, 2, GLOBAL, dtype=np.uint32)
    return key, x, flag


def expect(kernel: str, size: int) -> np.ndarray:
    key, x, flag = inputs()
    out = np.zeros(GLOBAL, np.uint32)
    for group in sub_groups(size):
        for i in group:
            if kernel == "deep_waterfall":
                meet = [j for j in group if key[j] == key[i] and flag[j]]
                out[i] = sum(int(x[j]) for j in meet) if flag[i] else 1000000
            elif not flag[i]:
                out[i] = 8
            elif x[i] <= 500:
                out[i] = 4
            else:
                meet = [j for j in group if key[j] == key[i] and flag[j] and x[j] > 500]
                out[i] = sum(1 << (j - group[0]) for j in meet if x[j] > 750) + 1
    return out


@functools.lru_cache(maxsize=None)
def program(level: str):
    return load_program(KERNELS, level, build_options=("-g",))


def check(kernel: str, level: str, kind: str, size: int, options) -> None:
    key, x, flag = inputs()
    got = run_target(kind, program(level), kernel, [np.zeros(GLOBAL, np.uint32), key, x, flag], (GLOBAL,), (LOCAL,),
                     options)[0]
    assert got.tolist() == expect(kernel, size).tolist()


NAMES = ("deep_waterfall", "deep_ballot")
LEVELS = ("-O0", "-O2")


@pytest.mark.parametrize("size", [8, 16])
@pytest.mark.parametrize("kernel", NAMES)
@pytest.mark.parametrize("level", LEVELS)
def test_interpreter(kernel, level, size):
    check(kernel, level, "ir", size, InterpreterOptions(subgroup_size=size))


@pytest.mark.parametrize("cf", ["structured", "blockip", "hybrid"])
@pytest.mark.parametrize("kernel,level,simd", [(k, "-O2", 16) for k in NAMES] + [(k, "-O0", 8) for k in NAMES])
def test_gen(kernel, level, simd, cf):
    check(kernel, level, "gen", simd, GenRunOptions(simd, cf))


@pytest.mark.parametrize("kernel", NAMES)
@pytest.mark.parametrize("level", LEVELS)
def test_lavapipe(kernel, level):
    check(kernel, level, "spirv", 8, None)


def test_the_expectations_depend_on_the_partition():
    """The per-pass meeting differs from a meeting of every lane that took the inner branch (a target that
    ran the operation after the loop would fail)."""
    key, x, flag = inputs()
    for size in (8, 16):
        after = np.zeros(GLOBAL, np.uint32)
        for group in sub_groups(size):
            for i in group:
                after[i] = sum(int(x[j]) for j in group if flag[j]) if flag[i] else 1000000
        assert after.tolist() != expect("deep_waterfall", size).tolist()
