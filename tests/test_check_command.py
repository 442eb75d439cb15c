"""`reconverge check` on a directory of good and bad inputs: our sources, other compilers' modules
(clang-22's OpenCL Kernel SPIR-V, glslang's compute shader) and modules with hand-broken structure; each
gets the right verdict, the broken rule is named with its construct and blocks, the JUnit file parses
with a standard XML parser and counts right, and the exit status says whether everything passed."""
from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
import xml.etree.ElementTree as ET

import pytest

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
HERE = os.path.join(ROOT, "tests", "check")
TWO_KERNELS = """
kernel void first(global int *o) { int i = get_global_id(0); if (i & 1) o[i] = i; else o[i] = -i; }
kernel void second(global float *o, int n) { for (int k = 0; k < n; k++) { if (o[k] > 2.0f) break; o[k] += 1.0f; } }
"""


def _cli(*args: str, cwd) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, "-m", "reconverge.tools.cli", *args], cwd=cwd, capture_output=True, text=True,
                          env=dict(os.environ, PYTHONPATH=ROOT))


@pytest.fixture(scope="module")
def inputs(tmp_path_factory):
    d = tmp_path_factory.mktemp("check")
    good, bad, mods = d / "good", d / "bad", d / "good" / "modules"
    for p in (good, bad, mods):
        p.mkdir(exist_ok=True)
    shutil.copy(os.path.join(ROOT, "examples", "nested_break.cl"), good / "nested_break.cl")
    (good / "two.cl").write_text(TWO_KERNELS)
    shutil.copy(os.path.join(HERE, "bad.cl"), bad / "bad.cl")
    assert _cli("compile", str(good / "two.cl"), "--emit", "spirv", "-o", str(mods / "ours.spv"), cwd=d).returncode == 0
    subprocess.run(["clang-22", "-x", "cl", "-cl-std=CL2.0", "-Xclang", "-finclude-default-header", "-target",
                    "spirv64", "-c", str(good / "two.cl"), "-o", str(mods / "clang_kernel.spv")], check=True)
    subprocess.run(["glslangValidator", "-V", "--target-env", "vulkan1.3", os.path.join(HERE, "shader.comp"),
                    "-o", str(mods / "glslang.spv")], check=True, capture_output=True)
    for name in ("broken_merge_dominance", "broken_exit", "broken_continue"):
        subprocess.run(["spirv-as", "--target-env", "vulkan1.3", os.path.join(HERE, f"{name}.spvasm"), "-o",
                        str(bad / f"{name}.spv")], check=True)
    return d


def test_good_inputs_pass_with_exit_0(inputs):
    done = _cli("check", "good", "-j", "2", cwd=inputs)
    assert done.returncode == 0, done.stdout + done.stderr
    assert "5 inputs: 5 passed, 0 failed" in done.stdout


def test_every_input_gets_its_verdict_and_the_junit_file_counts_right(inputs):
    done = _cli("check", "good", "bad", "-j", "2", "--junit", "r.xml", "--json", "r.json", "--emit-dir", "s",
                cwd=inputs)
    assert done.returncode == 1
    doc = json.loads((inputs / "r.json").read_text())
    verdict = {os.path.basename(r["path"]): r["status"] for r in doc["inputs"]}
    assert verdict == {"nested_break.cl": "passed", "two.cl": "passed", "ours.spv": "passed",
                       "clang_kernel.spv": "passed", "glslang.spv": "passed", "bad.cl": "failed",
                       "broken_merge_dominance.spv": "failed", "broken_exit.spv": "failed",
                       "broken_continue.spv": "failed"}
    problems = {os.path.basename(r["path"]): " ".join(p for c in doc["records"] if c["path"] == r["path"]
                                                      for p in c["problems"])
                for r in doc["inputs"]}
    assert "headed by %h declares merge block %m, which its header does not dominate" in \
        problems["broken_merge_dominance.spv"]
    assert "block %t inside the selection construct headed by %s branches to %h" in problems["broken_exit.spv"]
    assert "continue target %c, which is outside the loop" in problems["broken_continue.spv"]
    suites = ET.parse(inputs / "r.xml").getroot()
    cases = suites.findall("./testsuite/testcase")
    assert int(suites.get("tests")) == len(cases) == 10           # two.cl has two kernels
    assert int(suites.get("failures")) == len(suites.findall("./testsuite/testcase/failure")) == 4
    assert (inputs / "s" / "good" / "two.cl.second.structure.txt").read_text().count("loop construct") == 1
    assert (inputs / "s" / "bad" / "broken_exit.spv.structure.dot").read_text().startswith("digraph")


def test_structure_report_of_another_compilers_shader(inputs):
    done = _cli("check", "good/modules/glslang.spv", "--json", "g.json", cwd=inputs)
    assert done.returncode == 0
    [record] = json.loads((inputs / "g.json").read_text())["records"]
    kinds = {(c["function"], c["kind"]) for c in record["constructs"]}
    assert ("main", "loop") in kinds and ("main", "continue") in kinds
    loop = next(c for c in record["constructs"] if c["kind"] == "loop")
    assert loop["header"] in loop["blocks"] and loop["merge"] and loop["continue"]


def test_usage_errors_exit_2(inputs):
    assert _cli("check", "nowhere", cwd=inputs).returncode == 2
    assert _cli("check", "good", "-j", "0", cwd=inputs).returncode == 2


def test_an_input_whose_child_fails_is_that_inputs_failure_only(inputs):
    """A child killed at its deadline (as a crashed one is) fails its own input; the run goes on."""
    done = _cli("check", "good/two.cl", "good/modules/ours.spv", "--timeout", "0.0001", "--json", "t.json",
                cwd=inputs)
    assert done.returncode == 1
    doc = json.loads((inputs / "t.json").read_text())
    assert [r["status"] for r in doc["inputs"]] == ["failed", "failed"]
    assert [r["outcome"] for r in doc["inputs"]] == ["timeout", "timeout"]
    assert all("(check)" == r["name"] for r in doc["records"])
