"""Real OpenCL C programs (tests/kernels_real/, written for these tests) on all four targets: llvm, ir,
spirv and opencl. Every target's buffers must equal numpy's answer, and every target must agree lane by
lane with the OpenCL driver (somebody else's compiler). The kernels use __local pointer parameters,
barriers inside loops, __local and __global atomics, -D and -I build options and C99 inline helpers.
"""
import os
from dataclasses import dataclass
from typing import Callable

import numpy as np
import pytest

from reconverge.tools.targets.harness import LocalArg, compare, load_program, run_target

HERE = os.path.join(os.path.dirname(__file__), "kernels_real")
TARGETS = ("llvm", "ir", "spirv", "opencl")
RNG_SEED = 20261124


@dataclass(frozen=True)
class Case:
    file: str
    global_size: tuple
    local_size: tuple
    make_args: Callable[[np.random.Generator], list]
    expect: Callable[[list], dict]        # args -> {argument index: numpy's answer}
    options: tuple = ()
    names: tuple = ()


def matmul_args(rng, n=16):
    a = rng.integers(-40, 40, (n, n), dtype=np.int32)
    b = rng.integers(-40, 40, (n, n), dtype=np.int32)
    return [np.zeros(n * n, np.int32), a.reshape(-1), b.reshape(-1), np.int32(n),
            LocalArg(64, np.int32), LocalArg(64, np.int32)]


def matmul_expect(args):
    n = int(args[3])
    a, b = args[1].reshape(n, n).astype(np.int64), args[2].reshape(n, n).astype(np.int64)
    return {0: (a @ b).astype(np.int32).reshape(-1)}


def stencil_args(rng, n=96):
    return [np.zeros(n, np.float32), rng.integers(-50, 50, n).astype(np.float32), np.int32(n),
            LocalArg(16 + 2, np.float32)]


def stencil_expect(args):
    x = np.pad(args[1].astype(np.float64), 1)
    return {0: (x[:-2] + 2 * x[1:-1] + x[2:]).astype(np.float32)}


def groups(a, local):
    return a.reshape(-1, local).astype(np.int64)


CASES = {
    "tiled_matmul": Case("tiled_matmul.cl", (16, 16), (8, 8), matmul_args, matmul_expect,
                         names=("c", "a", "b", "n", "ta", "tb")),
    "stencil": Case("stencil.cl", (96,), (16,), stencil_args, stencil_expect, names=("out", "in", "n", "tile")),
    "reduce": Case("reduce.cl", (256,), (64,),
                   lambda r: [np.zeros(4, np.int32), r.integers(-1000, 1000, 256, dtype=np.int32), LocalArg(64, np.int32)],
                   lambda a: {0: groups(a[1], 64).sum(axis=1).astype(np.int32)}, names=("sums", "in", "scratch")),
    "scan": Case("scan.cl", (128,), (32,),
                 lambda r: [np.zeros(128, np.int32), r.integers(-1000, 1000, 128, dtype=np.int32), LocalArg(32, np.int32)],
                 lambda a: {0: np.cumsum(groups(a[1], 32), axis=1).astype(np.int32).reshape(-1)},
                 names=("out", "in", "buf")),
    "histogram": Case("histogram.cl", (512,), (64,),
                      lambda r: [np.zeros(16, np.uint32), r.integers(0, 1 << 20, 512).astype(np.uint32),
                                 LocalArg(16, np.uint32)],
                      lambda a: {0: np.bincount(a[1] % 16, minlength=16).astype(np.uint32)},
                      names=("bins", "data", "counts")),
    "defines": Case("defines.cl", (64,), (16,),
                    lambda r: [np.zeros(64, np.int32), r.integers(0, 100, 64, dtype=np.int32)],
                    lambda a: {0: np.array([5 * sum((k + 1) * (x % 7) ** (3 - k) for k in range(4))
                                            for x in a[1]], np.int32)},
                    options=("-DORDER=3", "-DSCALE=5", f"-I{os.path.join(HERE, 'include')}"),
                    names=("out", "in")),
}


def _program(case: Case, level: str):
    return load_program(os.path.join(HERE, case.file), level, build_options=case.options)


@pytest.mark.parametrize("level", ["-O0", "-O2"])
@pytest.mark.parametrize("name", list(CASES))
def test_real_kernel_on_every_target(name, level):
    case = CASES[name]
    program = _program(case, level)
    kernel = case.file[:-3]
    args = case.make_args(np.random.default_rng(RNG_SEED))
    want = case.expect(args)
    results = {t: run_target(t, program, kernel, args, case.global_size, case.local_size) for t in TARGETS}
    for target, got in results.items():
        for index, expected in want.items():
            assert got[index].tolist() == expected.tolist(), f"{name} {level} on {target}: argument {index}"
        assert compare(results["opencl"], got, list(case.names), labels=("opencl", target)) == []


def test_every_real_kernel_is_covered():
    assert sorted(f for f in os.listdir(HERE) if f.endswith(".cl")) == sorted(c.file for c in CASES.values())
