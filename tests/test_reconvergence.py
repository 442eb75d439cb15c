"""The seed examples of examples/reconvergence/, lane-exact: the waterfall loop, the ballot in a `continue`
loop against seed 004's nested do/while, and a ballot after a divergent if/else, at -O0 and -O2 with -g,
on the lock-step interpreter, on Gen in every --cf mode at SIMD8 and SIMD16, and on lavapipe.

The expected buffers come from numpy over the lane partition the source implies (which lanes of a sub-group
share a key, which are even), never from a target: the llvm reference follows LLVM's maximal convergence,
which puts the waterfall's reduction after the loop with every lane (the CFG-only meaning)."""
from __future__ import annotations

import functools
import os

import numpy as np
import pytest

from reconverge.tools.targets.harness import GenRunOptions, InterpreterOptions, load_program, run_target

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
HERE = os.path.join(ROOT, "examples", "reconvergence")
SEED = 20261126
LOCAL = 24          # a partial last sub-group at every size below 32
GLOBAL = 48
UNSET = 0xDEADBEEF


def sub_groups(size: int):
    """The lanes of each sub-group: linear ids [k*S, (k+1)*S) of each work-group, the last one partial."""
    for start in range(0, GLOBAL, LOCAL):
        for first in range(start, start + LOCAL, size):
            yield list(range(first, min(first + size, start + LOCAL)))


def mask(lanes, group) -> int:
    return sum(1 << (lane - group[0]) for lane in lanes)


# ----- the expected buffers

def waterfall_expect(key, x, size):
    total = np.zeros(GLOBAL, np.uint32)
    for group in sub_groups(size):
        for i in group:
            total[i] = sum(int(x[j]) for j in group if key[j] == key[i]) & 0xFFFFFFFF
    return {0: total}


def continue_expect(n, size):
    first, second = np.full(GLOBAL * n, UNSET, np.uint32), np.full(GLOBAL * n, UNSET, np.uint32)
    for group in sub_groups(size):
        odd = [i for i in group if (i - group[0]) % 2]
        for i in group:
            for j in range(n):
                first[i * n + j] = mask(group, group)            # ballot 1: every lane, every iteration
                if i in odd:
                    second[i * n + j] = mask(odd, group)         # ballot 2: the odd lanes
    return {0: first, 1: second}


def nested_expect(n, size):
    first, second = np.full(GLOBAL * n, UNSET, np.uint32), np.full(GLOBAL * n, UNSET, np.uint32)
    for group in sub_groups(size):
        odd = [i for i in group if (i - group[0]) % 2]
        even = [i for i in group if i not in odd]
        for i in group:
            same = odd if i in odd else even
            first[i * n] = mask(group, group)                    # the first pass of the inner loop: all
            for j in range(1, n):
                first[i * n + j] = mask(same, group)             # even lanes stay inside; odd ones come back
            if i in odd:
                for j in range(n):
                    second[i * n + j] = mask(odd, group)
    return {0: first, 1: second}


def ballot_expect(data, size):
    votes, arm = np.zeros(GLOBAL, np.uint32), np.zeros(GLOBAL, np.uint32)
    for group in sub_groups(size):
        odd = [i for i in group if data[i] & 1]
        even = [i for i in group if i not in odd]
        y = {i: 3 * int(data[i]) + 1 if i in odd else int(data[i]) // 2 for i in group}
        for i in group:
            votes[i] = mask([j for j in group if y[j] > 50], group)
            arm[i] = len(odd) if i in odd else len(even) + 1000
    return {0: votes, 1: arm}


def waterfall_case(rng, store: bool = False):
    key = rng.integers(0, 4, GLOBAL, dtype=np.uint32)
    x = rng.integers(0, 1000, GLOBAL, dtype=np.uint32)
    return [np.zeros(GLOBAL, np.uint32), key, x], lambda size: waterfall_expect(key, x, size)


def continue_case(rng, n: int = 2):
    return ([np.full(GLOBAL * n, UNSET, np.uint32), np.full(GLOBAL * n, UNSET, np.uint32), np.int32(n)],
            lambda size: continue_expect(n, size))


def nested_case(rng, n: int = 2):
    return ([np.full(GLOBAL * n, UNSET, np.uint32), np.full(GLOBAL * n, UNSET, np.uint32), np.int32(n)],
            lambda size: nested_expect(n, size))


def ballot_case(rng):
    data = rng.integers(0, 100, GLOBAL, dtype=np.int32)
    return [np.zeros(GLOBAL, np.uint32), np.zeros(GLOBAL, np.uint32), data], lambda size: ballot_expect(data, size)


# kernel -> (file, case)
KERNELS = {"waterfall": ("waterfall.cl", waterfall_case), "waterfall_store": ("waterfall.cl", waterfall_case),
           "continue_loop": ("continue_vs_nested.cl", continue_case),
           "nested_loops": ("continue_vs_nested.cl", nested_case),
           "ballot_after_if": ("ballot_after_if.cl", ballot_case)}


@functools.lru_cache(maxsize=None)
def program(file: str, level: str, convergence: str = "auto"):
    return load_program(os.path.join(HERE, file), level, build_options=("-g",), convergence=convergence)


def check(kernel: str, level: str, kind: str, size: int, options, convergence: str = "auto") -> None:
    file, case = KERNELS[kernel]
    args, expect = case(np.random.default_rng(SEED))
    got = run_target(kind, program(file, level, convergence), kernel, args, (GLOBAL,), (LOCAL,), options)
    for index, want in expect(size).items():
        assert got[index].tolist() == want.tolist(), f"{kernel} {level} on {kind} (sub-group size {size}): " \
                                                      f"argument {index}"


@pytest.mark.parametrize("size", [8, 16])
@pytest.mark.parametrize("level", ["-O0", "-O2"])
@pytest.mark.parametrize("kernel", list(KERNELS))
def test_interpreter(kernel, level, size):
    check(kernel, level, "ir", size, InterpreterOptions(subgroup_size=size))


@pytest.mark.parametrize("cf", ["structured", "blockip", "hybrid"])
@pytest.mark.parametrize("simd", [8, 16])
@pytest.mark.parametrize("level", ["-O0", "-O2"])
@pytest.mark.parametrize("kernel", list(KERNELS))
def test_gen(kernel, level, simd, cf):
    check(kernel, level, "gen", simd, GenRunOptions(simd, cf))


@pytest.mark.parametrize("level", ["-O0", "-O2"])
@pytest.mark.parametrize("kernel", list(KERNELS))
def test_lavapipe(kernel, level):
    check(kernel, level, "spirv", 8, None)
