"""The whole kernel corpus through the SPIR-V backend: spirv-val accepts every module, and lavapipe's
results equal the CPU reference (the original LLVM IR on llvmlite's JIT) lane by lane.

Integers must match exactly. Floats must match bit for bit too, except in kernels that call a function
Vulkan computes approximately (GLSL.std.450 exp, log, sin, pow, sqrt ...: the Vulkan spec's precision
table allows several ULP, or an absolute error, where the CPU's libm is correctly rounded or nearly);
there FLOAT_ULPS_APPROXIMATE applies. lavapipe's +, -, *, / and conversions are IEEE-exact, and the
emitter marks float arithmetic NoContraction, so everything else is compared exactly.
"""
from __future__ import annotations

import glob
import os

import pytest

from reconverge.backend.spirv import compile_spirv
from reconverge.backend.spirv.options import SpirvOptions
from reconverge.backend.spirv.tools import validate
from reconverge.tools.targets.harness import compare, kernel_params, load_program, run_target
from reconverge.tools.testing.float_policy import float_ulps
from reconverge.tools.testing.kernel_spec import parse_specs

pytestmark = pytest.mark.usefixtures("vk_device")     # once per Vulkan device (tests/conftest.py)

ROOT = os.path.join(os.path.dirname(__file__), os.pardir, os.pardir)
CORPUS = sorted(glob.glob(os.path.join(ROOT, "tests", "kernels", "*.cl"))) + \
    sorted(glob.glob(os.path.join(ROOT, "examples", "*.cl")))
SEED = 20261122


def _name(path: str) -> str:
    return os.path.basename(path)[:-len(".cl")]


@pytest.mark.parametrize("level", ["-O0", "-O2"])
@pytest.mark.parametrize("path", CORPUS, ids=_name)
def test_lavapipe_matches_cpu_reference(path, level):
    program = load_program(path, level)
    for spec in parse_specs(path):
        func = program.functions[spec.kernel]
        ulps = float_ulps(func)
        reference = run_target("llvm", program, spec.kernel, spec.make_args(SEED), spec.global_size,
                               spec.local_size, global_offset=spec.global_offset)
        got = run_target("spirv", program, spec.kernel, spec.make_args(SEED), spec.global_size,
                         spec.local_size, global_offset=spec.global_offset)
        problems = compare(reference, got, [p.name for p in kernel_params(func)], float_ulps=ulps,
                           labels=("llvm", "spirv"))
        assert not problems, f"{_name(path)} {level} @{spec.kernel}: " + "; ".join(problems)


@pytest.mark.parametrize("level", ["-O1", "-O3"])
def test_every_kernel_validates_at_other_levels(level):
    """-O1/-O3 shapes are not run, but every module, one per file with all its kernels, must validate."""
    for path in CORPUS:
        program = load_program(path, level)
        binary = compile_spirv(list(program.functions.values()), SpirvOptions())
        validate(binary, "vulkan1.3", f"{_name(path)} {level}")
