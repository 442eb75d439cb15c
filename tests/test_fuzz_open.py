"""Programs the last fuzz campaign of 2026-11-26 (campaign 14) found failing and that are not fixed yet, as
strict xfails: each names the configuration that disagrees with the reference, so the test turns red (XPASS)
the day a fix makes it agree, and the program then moves to the fixed regressions.

- subgroup-16441: gen blockip at -O0 (SIMD8 and SIMD16; structured, hybrid and auto agree) meets other
  lanes at a sub-group operation in a do/while inside a for loop inside a while, whose sibling else arm
  breaks out through a flag. Found on the tree of the session's start too: not a new regression.

convergence-16248 (only lavapipe at -O0 disagreed) was lavapipe's: a select of 1.0 and -0.0 (here the
launches' own hiding of a literal -0.0 factor) came out +0.0; fixed in its launches
(backend/spirv/zero_operands.py), kept as tests/fuzz_regressions/spirv-literal-minus-zero-factor."""
from __future__ import annotations

import os

import pytest

from reconverge.tools.fuzz.generator import ARG_NAMES, FuzzProgram
from reconverge.tools.fuzz.runner import Config, ProgramRun

HERE = os.path.join(os.path.dirname(__file__), "fuzz_open")


def _run(name: str, seed: int, mode: str, global_size: int, local_size: int, n_arg: int, options: tuple[str, ...],
         config: str, tmp_path) -> str:
    with open(os.path.join(HERE, name), encoding="utf-8") as f:
        source = f.read()
    program = FuzzProgram(seed, mode, source, "cl", global_size, local_size, n_arg=n_arg,
                          arg_names=list(ARG_NAMES), uses_subgroups=True, build_options=options)
    run = ProgramRun(program, str(tmp_path))
    outcome = run.run(Config.parse(config))
    return outcome.status


@pytest.mark.xfail(strict=True, reason="open: gen blockip meets other lanes than the reference (subgroup-16441)")
def test_blockip_subgroup_16441(tmp_path):
    assert _run("blockip_subgroup_16441.cl", 16441, "subgroup", 64, 32, 6, (), "gen-O0-simd16-blockip",
                tmp_path) == "ok"

