"""Programs `reconverge fuzz` found failing, reduced by C-Vise (tools/fuzz/reducer.py) and kept in
tests/fuzz_regressions/ as NAME.cl + NAME.json: the reference (llvm -O0) still gives the buffers recorded
when the bug was found, and every configuration that failed then now agrees with it lane by lane."""
from __future__ import annotations

import glob
import json
import os

import numpy as np
import pytest

from reconverge.tools.fuzz.reducer import program_from_record
from reconverge.tools.fuzz.runner import REFERENCE, Config, ProgramRun

CASES = sorted(glob.glob(os.path.join(os.path.dirname(__file__), "fuzz_regressions", "*.json")))


def _name(path: str) -> str:
    return os.path.basename(path)[:-len(".json")]


@pytest.mark.parametrize("path", CASES or ["none"], ids=lambda p: _name(p) if p != "none" else "none")
def test_reduced_fuzz_program_agrees(path, tmp_path):
    if path == "none":          # an empty folder: nothing to check (a parameter, not a skip)
        return
    with open(path, encoding="utf-8") as f:
        record = json.load(f)
    with open(path[:-len(".json")] + ".cl", encoding="utf-8") as f:
        program = program_from_record(record, f.read())
    run = ProgramRun(program, str(tmp_path))
    assert run.run(REFERENCE).status == "ok"
    expected = record["expected"]
    assert [int(x) for x in run.reference[0]] == expected["out"]
    assert [int(x) for x in run.reference[2]] == expected["cnt"]
    assert [int(x) for x in np.asarray(run.reference[3]).view(np.uint32)] == expected["fapprox_bits"]
    for name in record["configs"]:
        outcome = run.run(Config.parse(name))
        assert outcome.status == "ok", f"{_name(path)} {name}: {outcome.status}: {outcome.message}"
