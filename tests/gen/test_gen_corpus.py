"""The whole kernel corpus on the Gen target: at -O0 and -O2, in SIMD8 and SIMD16, the simulator's
buffers equal the CPU reference (the original LLVM IR on llvmlite's JIT) lane by lane, with the corpus's
launch shapes (partial threads and several work-groups among them); floats bit for bit except where a
math-box function is called (tools/testing/float_policy.py). Every binary decodes with iga64 without a
warning, to exactly our disassembler's text."""
from __future__ import annotations

import glob
import os

import pytest

from reconverge.backend.gen import compile_gen
from reconverge.isa.gen9.encoding import encode_program
from reconverge.tools.targets.harness import GenRunOptions, compare, kernel_params, load_program, run_target
from reconverge.tools.testing.float_policy import float_ulps
from reconverge.tools.testing.kernel_spec import parse_specs
from tests.gen.iga import iga_text

ROOT = os.path.join(os.path.dirname(__file__), os.pardir, os.pardir)
CORPUS = sorted(glob.glob(os.path.join(ROOT, "tests", "kernels", "*.cl"))) + \
    sorted(glob.glob(os.path.join(ROOT, "examples", "*.cl")))
SEED = 20261124


def _name(path: str) -> str:
    return os.path.basename(path)[:-len(".cl")]


@pytest.mark.parametrize("level", ["-O0", "-O2"])
@pytest.mark.parametrize("path", CORPUS, ids=_name)
def test_gen_matches_cpu_reference(path, level):
    program = load_program(path, level)
    for spec in parse_specs(path):
        func = program.function(spec.kernel, "gen")
        reference = run_target("llvm", program, spec.kernel, spec.make_args(SEED), spec.global_size,
                               spec.local_size, global_offset=spec.global_offset)
        for simd in (8, 16):
            got = run_target("gen", program, spec.kernel, spec.make_args(SEED), spec.global_size,
                             spec.local_size, GenRunOptions(simd, "structured"), global_offset=spec.global_offset)
            problems = compare(reference, got, [p.name for p in kernel_params(func)], float_ulps=float_ulps(func),
                               labels=("llvm", "gen"))
            assert not problems, f"{_name(path)} {level} SIMD{simd} @{spec.kernel}: " + "; ".join(problems)


@pytest.mark.parametrize("path", CORPUS, ids=_name)
def test_iga64_reads_every_binary_as_we_do(path, tmp_path):
    program = load_program(path, "-O2")
    for spec in parse_specs(path):
        iga_text(encode_program(compile_gen(program.function(spec.kernel, "gen"), 16)), tmp_path, spec.kernel)
