"""Kernels written to break the scopes rule above -O0 (tests/kernels_fuzzconv/redteam_*.cl: a sub-group
operation on a loop's break path, or in the loop where -O2 sinks it onto one, in the shapes LLVM deletes,
unrolls, rotates, predicates, unswitches or inlines twice). Each agrees with -O0 lane by lane or is refused
in one line (skipped), never a silent wrong answer; lowering/frontend/removed_loops.py."""
from __future__ import annotations

import glob
import os

import pytest

from reconverge.tools.fuzz.generator import ARG_NAMES, FuzzProgram
from reconverge.tools.fuzz.runner import Config, ProgramRun

HERE = os.path.join(os.path.dirname(os.path.abspath(__file__)), "kernels_fuzzconv")
KERNELS = sorted(glob.glob(os.path.join(HERE, "redteam_*.cl")))
# loops written with goto have no loop statement, so no `!llvm.loop` names them (README, Limits of `scopes`)
GOTO_LOOPS = ("redteam_c05_goto_loop.cl", "redteam_c06_goto_loop_braced.cl")


def _run(path: str, tmp_path, n: int) -> list:
    with open(path, encoding="utf-8") as f:
        source = f.read()
    program = FuzzProgram(1, "convergence", source, "cl", 32, 16, n_arg=n, arg_names=list(ARG_NAMES),
                          uses_subgroups=True, build_options=("-g",))
    run = ProgramRun(program, str(tmp_path))
    return [run.run(c) for c in (Config("ir", "-O0"), Config("ir", "-O2"), Config("ir", "-O3"),
                                 Config.parse("gen-O2-simd8-hybrid"))]


@pytest.mark.parametrize("path", [p for p in KERNELS if os.path.basename(p) not in GOTO_LOOPS],
                         ids=lambda p: os.path.basename(p)[8:-3])
def test_an_optimised_loop_meets_lanes_as_written_or_is_refused(path, tmp_path):
    outcomes = _run(path, tmp_path, 5)
    assert all(o.status in ("ok", "skipped") for o in outcomes[1:]), [(o.config, o.message) for o in outcomes]


@pytest.mark.xfail(strict=True, reason="open: a loop written with goto has no !llvm.loop; -O1 deletes it unseen")
@pytest.mark.parametrize("name", GOTO_LOOPS)
def test_a_goto_loop_deleted_by_llvm_is_caught(name, tmp_path):
    outcomes = _run(os.path.join(HERE, name), tmp_path, 5)
    assert all(o.status in ("ok", "skipped") for o in outcomes[1:]), [(o.config, o.message) for o in outcomes]
