"""The three real sub-group programs of examples/subgroups/ (a work-group reduction with sub_group_reduce_add,
a work-group scan with sub_group_scan_inclusive_add, a ballot with its bit queries and
get_sub_group_local_id) on every target, each at its own sub-group size, against numpy.

The reduction and the scan give the same buffers at every sub-group size; the ballot's depend on it (which
lanes vote together, the partial last sub-group of a 48-item work-group), so numpy computes them for the
size the target runs."""
from __future__ import annotations

import os

import numpy as np
import pytest

from reconverge.tools.targets.harness import GenRunOptions, InterpreterOptions, OracleOptions, load_program, run_target

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
HERE = os.path.join(ROOT, "examples", "subgroups")
SEED = 20261126

# (target, sub-group size, the target's options for that size): spirv on lavapipe, whose subgroupSize is 8
# here. opencl is not among them: Debian's PoCL does not report cl_khr_subgroups (the target refuses)
TARGETS = [("llvm", 8, OracleOptions(8)), ("llvm", 16, OracleOptions(16)), ("llvm", 32, OracleOptions(32)),
           ("ir", 8, InterpreterOptions(subgroup_size=8)), ("ir", 16, InterpreterOptions(subgroup_size=16)),
           ("ir", 32, InterpreterOptions(subgroup_size=32)), ("spirv", 8, None),
           ("gen", 8, GenRunOptions(8)), ("gen", 16, GenRunOptions(16))]


def _ids(t) -> str:
    return f"{t[0]}-S{t[1]}"


def reduce_case(rng):
    data = rng.integers(-1000, 1000, 256, dtype=np.int32)
    args = [np.zeros(4, np.int32), data]
    return args, (256,), (64,), lambda size: {0: data.reshape(4, 64).sum(axis=1).astype(np.int32)}


def scan_case(rng):
    data = rng.integers(-1000, 1000, 128, dtype=np.int32)
    args = [np.zeros(128, np.int32), data]
    want = np.cumsum(data.reshape(4, 32).astype(np.int64), axis=1).astype(np.int32).reshape(-1)
    return args, (128,), (32,), lambda size: {0: want}


def ballot_expect(data: np.ndarray, local: int, size: int) -> dict:
    n = data.size
    bits, count, packed = np.zeros(n, np.uint32), np.zeros(n, np.uint32), np.full(n, -1, np.int32)
    for start in range(0, n, local):
        for first in range(start, start + local, size):
            lanes = range(first, min(first + size, start + local))
            even = [i for i in lanes if data[i] % 2 == 0]
            word = sum(1 << (i - first) for i in even if i - first < 32)
            for i in lanes:
                bits[i], count[i] = word, len(even)
            packed[first:first + len(even)] = data[even]
    return {0: bits, 1: count, 2: packed}


def ballot_case(rng):
    data = rng.integers(0, 100, 96, dtype=np.int32)
    args = [np.zeros(96, np.uint32), np.zeros(96, np.uint32), np.zeros(96, np.int32), data]
    return args, (96,), (48,), lambda size: ballot_expect(data, 48, size)


CASES = {"reduce": reduce_case, "scan": scan_case, "ballot": ballot_case}


@pytest.mark.parametrize("target", TARGETS, ids=_ids)
@pytest.mark.parametrize("level", ["-O0", "-O2"])
@pytest.mark.parametrize("name", list(CASES))
def test_subgroup_kernel_matches_numpy(name, level, target):
    kind, size, options = target
    program = load_program(os.path.join(HERE, f"{name}.cl"), level)
    args, global_size, local_size, expect = CASES[name](np.random.default_rng(SEED))
    got = run_target(kind, program, name, args, global_size, local_size, options)
    for index, want in expect(size).items():
        assert got[index].tolist() == want.tolist(), f"{name} {level} on {kind} (sub-group size {size}): " \
                                                      f"argument {index}"


def test_every_subgroup_example_is_covered():
    assert sorted(f for f in os.listdir(HERE) if f.endswith(".cl")) == sorted(f"{n}.cl" for n in CASES)
