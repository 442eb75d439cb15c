"""The barrier kernels' cases (tests/kernels_barrier/): inputs, launch geometry and numpy's answer, shared by
every target's barrier tests. The CPU reference runs work-items one after another and cannot run these,
so the expected buffers come from numpy."""
from __future__ import annotations

import os
from dataclasses import dataclass
from typing import Callable

import numpy as np

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.realpath(__file__))))
KERNELS = os.path.join(ROOT, "tests", "kernels_barrier")
SEED = 20261122


def groups(a: np.ndarray, local: int) -> np.ndarray:
    return a.reshape(-1, local)


@dataclass(frozen=True)
class Case:
    file: str
    kernel: str
    global_size: tuple
    local_size: tuple
    make_args: Callable[[np.random.Generator], list]
    expect: Callable[[list], dict]      # args (as made) -> {argument index: expected array}
    # what the SPIR-V module must contain (disassembly substrings)
    spirv_has: tuple = ("OpControlBarrier", "Workgroup")


def reduce_args(rng, n, local):
    return [np.zeros(n // local, np.int32), rng.integers(-1000, 1000, n, dtype=np.int32)]


def reduce_expect(args, local):
    return {0: groups(args[1].astype(np.int64), local).sum(axis=1).astype(np.int32)}


def matmul_args(rng, n):
    a = rng.integers(-50, 50, (n, n), dtype=np.int32)
    b = rng.integers(-50, 50, (n, n), dtype=np.int32)
    return [np.zeros(n * n, np.int32), a.reshape(-1), b.reshape(-1), np.int32(n)]


def matmul_expect(args):
    n = int(args[3])
    a, b = args[1].reshape(n, n).astype(np.int64), args[2].reshape(n, n).astype(np.int64)
    return {0: (a @ b).astype(np.int32).reshape(-1)}


def scan_args(rng, n):
    return [np.zeros(n, np.int32), rng.integers(-1000, 1000, n, dtype=np.int32)]


def scan_expect(args, local):
    return {0: np.cumsum(groups(args[1].astype(np.int64), local), axis=1).astype(np.int32).reshape(-1)}


def narrow_args(rng, n):
    return [np.zeros(n, np.uint8), np.zeros(n, np.int16), np.zeros(n // 32, np.int16),
            rng.integers(0, 256, n, dtype=np.uint8),
            rng.integers(-32768, 32768, n, dtype=np.int16)]


def narrow_expect(args):
    in8, in16 = groups(args[3], 32), groups(args[4], 32)
    lid = np.arange(32)
    rev = (in8[:, 31 - lid] ^ lid.astype(np.uint8)).astype(np.uint8)
    mix = (in16[:, (lid + 5) % 32].astype(np.int64) * 3 - in8.astype(np.int64)).astype(np.int16)
    tot = in16.astype(np.int64).sum(axis=1).astype(np.int16)     # wraps like the (short) casts
    return {0: rev.reshape(-1), 1: mix.reshape(-1), 2: tot}


def float_args(rng, n, local):
    return [np.zeros(n // local, np.float32), np.zeros(n, np.float32),
            rng.integers(-1000, 1000, n).astype(np.float32)]


def float_expect(args, local):
    x = groups(args[2].astype(np.float64), local)
    sums = x.sum(axis=1)
    scaled = x * 2 + x.max(axis=1, keepdims=True)
    return {0: sums.astype(np.float32), 1: scaled.astype(np.float32).reshape(-1)}


CASES = [
    Case("wg_reduce.cl", "wg_reduce", (256,), (64,), lambda r: reduce_args(r, 256, 64),
         lambda a: reduce_expect(a, 64)),
    Case("wg_reduce.cl", "wg_reduce", (96,), (16,), lambda r: reduce_args(r, 96, 16),
         lambda a: reduce_expect(a, 16)),
    Case("tiled_matmul.cl", "tiled_matmul", (24, 24), (8, 8), lambda r: matmul_args(r, 24), matmul_expect),
    Case("prefix_scan.cl", "scan_double", (192,), (64,), lambda r: scan_args(r, 192),
         lambda a: scan_expect(a, 64)),
    Case("prefix_scan.cl", "scan_two_barriers", (96,), (32,), lambda r: scan_args(r, 96),
         lambda a: scan_expect(a, 32)),
    Case("narrow_local.cl", "narrow_local", (96,), (32,), lambda r: narrow_args(r, 96), narrow_expect,
         spirv_has=("OpControlBarrier", "Workgroup", "OpTypeInt 8", "OpTypeInt 16")),
    Case("float_reduce.cl", "float_reduce", (192,), (64,), lambda r: float_args(r, 192, 64),
         lambda a: float_expect(a, 64), spirv_has=("OpControlBarrier", "Workgroup", "OpTypeFloat 32")),
]


def case_id(case: Case) -> str:
    return f"{case.kernel}-{'x'.join(map(str, case.global_size))}/{'x'.join(map(str, case.local_size))}"


def fresh_args(case: Case) -> list:
    return case.make_args(np.random.default_rng(SEED))


def check(args: list, expected: dict, what: str) -> None:
    for index, want in expected.items():
        got = args[index]
        assert got.dtype == want.dtype and got.shape == want.shape, (what, index, got.dtype, got.shape)
        bad = np.flatnonzero(got.view(f"u{got.itemsize}") != want.view(f"u{want.itemsize}"))
        assert bad.size == 0, (f"{what}: argument {index} lane {bad[0]}: got {got.reshape(-1)[bad[0]]}, "
                               f"numpy {want.reshape(-1)[bad[0]]} ({bad.size} lanes differ)")


