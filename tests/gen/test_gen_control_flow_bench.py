"""The benchmark kernels of examples/bench/control_flow.cl (tools/bench_gen_quality.py) on the Gen target:
in `--cf auto` and `--cf structured`, SIMD8 and SIMD16, the simulator's buffers equal the CPU reference,
and `--cf auto` never executes more instructions than `--cf structured` (issue 26's "never worse")."""
from __future__ import annotations

import os

import pytest

from reconverge.tools.targets.harness import GenRunOptions, compare, kernel_params, load_program, run_target
from reconverge.tools.testing.kernel_spec import parse_specs

ROOT = os.path.join(os.path.dirname(__file__), os.pardir, os.pardir)
PATH = os.path.join(ROOT, "examples", "bench", "control_flow.cl")
SPECS = parse_specs(PATH)
SEED = 1


@pytest.fixture(scope="module")
def program():
    return load_program(PATH, "-O2")


@pytest.mark.parametrize("spec", SPECS, ids=lambda s: s.kernel)
def test_auto_and_structured_agree_with_the_reference_and_auto_runs_no_more(program, spec):
    params = [p.name for p in kernel_params(program.function(spec.kernel, "gen"))]
    reference = run_target("llvm", program, spec.kernel, spec.make_args(SEED), spec.global_size, spec.local_size)
    executed = {}
    for simd, cf in ((16, "auto"), (16, "structured"), (8, "auto")):
        stats: dict = {}
        got = run_target("gen", program, spec.kernel, spec.make_args(SEED), spec.global_size, spec.local_size,
                         GenRunOptions(simd, cf, None, 0, stats))
        problems = compare(reference, got, params, labels=("llvm", "gen"))
        assert not problems, f"@{spec.kernel} SIMD{simd} --cf {cf}: " + "; ".join(problems)
        executed[simd, cf] = stats["instructions"]
    assert executed[16, "auto"] <= executed[16, "structured"], executed
