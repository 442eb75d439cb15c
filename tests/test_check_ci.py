"""`reconverge check` in a CI pipeline: a line per input as it finishes (not all at the end), the whole
first error, the files it skipped named, outcomes that tell a bug (invalid module) from a limit of
reconverge (unsupported) and from bad input, `--shard K/N` splitting the inputs disjointly whatever their
order, and `--json` as records with the structure as a list of constructs."""
from __future__ import annotations

import json
import os
import select
import shutil
import subprocess
import sys
import xml.etree.ElementTree as ET

import pytest

from reconverge.lowering.errors import CompileError
from reconverge.tools.check_command import check_one, find_inputs, shard_of

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
GOOD = "kernel void a(global int *o) { o[get_global_id(0)] = 1; }\n"
LONG_NAME = "an_undeclared_identifier_whose_name_alone_is_longer_than_the_hundred_characters_the_table_used_to_keep"
BAD = f"kernel void b(global int *o) {{ o[0] = {LONG_NAME}; }}\n"
IRREDUCIBLE = os.path.join(ROOT, "tests", "gen", "blockip", "lanes_irreducible_subgroup.ll")


def _cli(*args: str, cwd) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, "-m", "reconverge.tools.cli", *args], cwd=cwd, capture_output=True, text=True,
                          env=dict(os.environ, PYTHONPATH=ROOT), timeout=300)


@pytest.fixture(scope="module")
def corpus(tmp_path_factory):
    d = tmp_path_factory.mktemp("ci")
    (d / "a.cl").write_text(GOOD)
    (d / "b.cl").write_text(BAD)
    shutil.copy(IRREDUCIBLE, d / "irreducible.ll")
    (d / "notes.txt").write_text("not a kernel\n")
    (d / ".hidden").mkdir()
    (d / ".hidden" / "x.cl").write_text(GOOD)
    return d


def test_each_input_gets_a_line_with_its_outcome_and_whole_error_and_skipped_files_are_named(corpus, tmp_path):
    done = _cli("check", ".", "-j", "2", "--order", "input", "--junit", str(tmp_path / "r.xml"), cwd=corpus)
    assert done.returncode == 1, done.stdout + done.stderr          # b.cl is bad input
    lines = done.stdout.splitlines()
    assert [line.split()[:2] for line in lines[:3]] == [["PASS", "./a.cl"], ["ERROR", "./b.cl"],
                                                         ["UNSUPPORTED", "./irreducible.ll"]]
    assert f"use of undeclared identifier '{LONG_NAME}'" in lines[1]     # whole, not cut at 100 characters
    assert "irreducible control flow" in lines[2] and lines[2].endswith("compile --emit gen takes it)")
    assert lines[3] == ("3 inputs: 1 passed, 1 failed (1 error), 1 unsupported (reconverge cannot compile "
                        "them yet)")
    assert lines[4] == "1 skipped (not .cl, .ll, .bc, .nir or .spv): ./notes.txt"      # .hidden is not searched
    cases = {c.get("classname"): c for c in ET.parse(tmp_path / "r.xml").getroot().iter("testcase")}
    assert cases["./irreducible.ll"].find("skipped").get("message").startswith("unsupported: ")
    assert cases["./b.cl"].find("failure").get("type") == "error" and len(cases["./a.cl"]) == 0


def test_unsupported_passes_unless_asked_and_fails_with_fail_unsupported(corpus):
    assert _cli("check", "irreducible.ll", "a.cl", cwd=corpus).returncode == 0
    assert _cli("check", "irreducible.ll", "--fail-unsupported", cwd=corpus).returncode == 1


def test_a_module_spirv_val_rejects_is_invalid_a_bug_not_bad_input(tmp_path, monkeypatch):
    import reconverge.backend.spirv.tools as spirv_tools
    (tmp_path / "a.cl").write_text(GOOD)

    def reject(binary, env, what):
        raise CompileError(f"{what}: spirv-val: error: something")
    monkeypatch.setattr(spirv_tools, "validate", reject)
    [case] = check_one(str(tmp_path / "a.cl"), "-O2", "vulkan1.3")
    assert case["outcome"] == "invalid" and case["status"] == "failed" and case["kernel"] == "a"
    assert case["message"].startswith("reconverge produced a module spirv-val rejects (a bug)")
    assert case["constructs"] == [] and set(case["seconds"]) == {"front_end", "compile", "validate"}


def test_shards_are_disjoint_cover_everything_and_ignore_the_order_paths_are_named_in():
    paths = [f"d/k{i:02}.cl" for i in range(10)]
    shards = [shard_of(paths, (k, 3)) for k in (1, 2, 3)]
    assert sorted(p for s in shards for p in s) == paths
    assert [len(s) for s in shards] == [4, 3, 3]
    assert set(shard_of(list(reversed(paths)), (2, 3))) == set(shards[1])


def test_shard_on_the_command_line_and_json_records(corpus, tmp_path):
    done = _cli("check", ".", "--shard", "2/3", "--json", str(tmp_path / "r.json"), cwd=corpus)
    doc = json.loads((tmp_path / "r.json").read_text())
    assert doc["schema"] == "reconverge-check/2" and doc["shard"] == "2/3"
    assert [r["path"] for r in doc["inputs"]] == ["./b.cl"] and done.returncode == 1
    [record] = doc["records"]
    assert {k: record[k] for k in ("path", "kernel", "target", "outcome", "status")} == \
        {"path": "./b.cl", "kernel": None, "target": "spirv", "outcome": "error", "status": "failed"}
    assert doc["skipped"] == ["./notes.txt"] and doc["summary"]["outcomes"]["error"] == 1
    assert _cli("check", ".", "--shard", "4/3", cwd=corpus).returncode == 2


def test_lines_stream_as_inputs_finish(tmp_path):
    """z.cl includes a FIFO no one writes: its clang waits. a.cl's line must come out meanwhile; once the
    FIFO is opened and closed (end of file), z.cl compiles and the run ends."""
    (tmp_path / "a.cl").write_text(GOOD)
    os.mkfifo(tmp_path / "wait")
    (tmp_path / "z.cl").write_text('#include "wait"\n' + GOOD.replace("void a", "void z"))
    proc = subprocess.Popen([sys.executable, "-m", "reconverge.tools.cli", "check", "a.cl", "z.cl", "-j", "1"],
                            cwd=tmp_path, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
                            env=dict(os.environ, PYTHONPATH=ROOT))
    try:
        ready, _, _ = select.select([proc.stdout], [], [], 120)
        assert ready, "no line while z.cl was waiting"
        assert proc.stdout.readline().split()[:2] == ["PASS", "a.cl"]
        assert proc.poll() is None
        fd = os.open(tmp_path / "wait", os.O_WRONLY)
        os.close(fd)
        out, err = proc.communicate(timeout=120)
    finally:
        proc.kill()
        proc.wait()
    assert proc.returncode == 0, err
    assert out.splitlines()[0].split()[:2] == ["PASS", "z.cl"]


def test_find_inputs_skips_unknown_kinds_and_hidden_entries(corpus):
    found, skipped = find_inputs([str(corpus), str(corpus / "notes.txt")])
    assert [os.path.basename(p) for p in found] == ["a.cl", "b.cl", "irreducible.ll"]
    assert [os.path.basename(p) for p in skipped] == ["notes.txt"]
