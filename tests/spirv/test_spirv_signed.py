"""Signed instructions get signed-typed operands and results (backend/spirv/signedness.py), and no
module has an OpSRem (NVIDIA 580 computes it unsigned: isel._op_srem), in every module of the corpus.
The kernels NVIDIA got wrong (int_division, int_math, long_arith, tests/kernels/signed_ops.cl) run on
lavapipe against the CPU reference in test_spirv_corpus.py; this file checks the form, which lavapipe,
right either way, cannot. On an H200 all of them agree once srem is OpSDiv-based (tools/division_replay)."""
from __future__ import annotations

import glob
import os

import pytest

from reconverge.backend.spirv import compile_spirv
from reconverge.backend.spirv.options import SpirvOptions
from reconverge.backend.spirv.tools import validate
from reconverge.tools.targets.harness import load_program
from reconverge.tools.testing.spirv_signedness import disassemble, violations

ROOT = os.path.join(os.path.dirname(__file__), os.pardir, os.pardir)
CORPUS = sorted(glob.glob(os.path.join(ROOT, "tests", "kernels", "*.cl"))) + \
    sorted(glob.glob(os.path.join(ROOT, "tests", "kernels_barrier", "*.cl"))) + \
    sorted(glob.glob(os.path.join(ROOT, "tests", "kernels_real", "*.cl"))) + \
    sorted(glob.glob(os.path.join(ROOT, "examples", "*.cl")))
BUILD_OPTIONS = {"defines.cl": ("-DORDER=3", "-DSCALE=5")}


def _name(path: str) -> str:
    return os.path.relpath(path, ROOT)


@pytest.mark.parametrize("level", ["-O0", "-O2"])
def test_every_signed_instruction_has_signed_types(level):
    bad = []
    for path in CORPUS:
        include = os.path.join(os.path.dirname(path), "include")
        options = BUILD_OPTIONS.get(os.path.basename(path), ()) + \
            ((f"-I{include}",) if os.path.isdir(include) else ())
        program = load_program(path, level, build_options=options)
        binary = compile_spirv(list(program.functions.values()), SpirvOptions())
        validate(binary, "vulkan1.3", f"{_name(path)} {level}")
        bad += [f"{_name(path)} {level}: {line}" for line in violations(binary)]
        bad += [f"{_name(path)} {level}: {' '.join(t)}" for t in disassemble(binary) if "OpSRem" in t]
    assert not bad, "\n".join(bad[:20])


def test_the_checker_sees_unsigned_operands():
    """The check can fail: a hand-made module with OpSRem on unsigned operands is reported."""
    from reconverge.backend.spirv.module import SpirvModule
    m = SpirvModule()
    m.capability("Shader")
    m.memory_model("Logical", "GLSL450")
    void, u32 = m.type("OpTypeVoid"), m.type("OpTypeInt", 32, 0)
    fid = m.begin_function(void, m.type("OpTypeFunction", void))
    m.begin_block()
    m.op("OpSRem", u32, m.constant(u32, 7), m.constant(u32, 3))
    m.op("OpReturn")
    m.end_function()
    m.entry_point("GLCompute", fid, "k")
    m.execution_mode(fid, "LocalSize", 1, 1, 1)
    assert len(violations(m.assemble())) == 1


@pytest.mark.parametrize("file", ["int_division.cl", "int_math.cl", "long_arith.cl", "signed_ops.cl"])
def test_replay_kernels_use_signed_types(file):
    """The kernels NVIDIA got wrong (int_division, int_math, long_arith; signed_ops holds `a % 7`, `a % z`,
    mad24 of remainders and a multi-exit loop like k_multi_exit_loop) contain signed instructions at all,
    and all of them are signed-typed."""
    from reconverge.tools.testing.spirv_signedness import SIGNED_CORE
    for level in ("-O0", "-O2"):
        program = load_program(os.path.join(ROOT, "tests", "kernels", file), level)
        binary = compile_spirv(list(program.functions.values()), SpirvOptions())
        assert any(t[2] in SIGNED_CORE for t in disassemble(binary) if len(t) > 2), file
        assert not violations(binary), "\n".join(violations(binary))
