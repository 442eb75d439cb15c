"""`check`'s own answers: every hand-broken module of tests/check gets a `problem:` explanation besides
spirv-val's sentence, and the structure picture (--emit-dir's .dot) draws every construct of the text
report as a cluster, nested in its parent's, the edges that break a rule in red: checked on the layout
GraphViz's own `dot -Tjson` renders, not on our text."""
from __future__ import annotations

import glob
import json
import os
import re
import subprocess

import pytest

from reconverge.backend.spirv.structure import parse
from reconverge.tools.check_command import check_one
from reconverge.tools.cli import main
from tests.test_cli import ROOT

HERE = os.path.join(ROOT, "tests", "check")
BROKEN = sorted(glob.glob(os.path.join(HERE, "broken_*.spvasm")))


def assemble(source: str, out) -> str:
    path = str(out / (os.path.basename(source)[:-len(".spvasm")] + ".spv"))
    subprocess.run(["spirv-as", "--target-env", "vulkan1.3", source, "-o", path], check=True)
    return path


@pytest.mark.parametrize("source", BROKEN, ids=os.path.basename)
def test_every_hand_broken_module_gets_an_explanation(source, tmp_path):
    [case] = check_one(assemble(source, tmp_path), "-O2", "vulkan1.3")
    assert case["status"] == "failed" and "spirv-val" in case["message"]
    assert case["problems"], f"spirv-val's '{case['message']}' is not explained"
    assert "problem: " in case["structure"]


def test_a_selection_merging_at_its_loops_continue_target_is_explained(tmp_path):
    [case] = check_one(assemble(os.path.join(HERE, "broken_merge_is_continue.spvasm"), tmp_path), "-O2", "vulkan1.3")
    assert any("selection construct headed by %s lies inside the loop construct headed by %h, but its merge "
               "block %c does not (it is that loop's continue target)" in p for p in case["problems"]), case


def rendered(dot_text: str) -> dict:
    return json.loads(subprocess.run(["dot", "-Tjson"], input=dot_text, capture_output=True, text=True,
                                     check=True).stdout)


def modules(tmp_path):
    """SPIR-V with deep nesting (a switch in loops, ours at -O0) and every hand-broken module."""
    ours = tmp_path / "nested_switch_loop.spv"
    assert main(["compile", os.path.join(ROOT, "tests", "kernels", "nested_switch_loop.cl"), "--emit", "spirv",
                 "-o", str(ours)]) == 0
    return [str(ours)] + [assemble(s, tmp_path) for s in BROKEN]


def test_the_structure_picture_nests_every_construct_of_the_report(tmp_path):
    total = 0
    for path in modules(tmp_path):
        [case] = check_one(path, "-O2", "vulkan1.3")
        layout = rendered(case["dot"])
        clusters = {o["name"]: o for o in layout["objects"] if o["name"].startswith("cluster_f0_c")}
        reported = re.findall(r"^  (\w+) construct: header (%\w+)", case["structure"], re.M)
        total += len(reported)
        undrawn = [o["label"] for o in clusters.values() if "bb" not in o]      # dot lays out no box for them
        assert not undrawn, (path, undrawn)
        assert sorted(f"{k} {h}" for k, h in reported) == \
            sorted(o["label"] for o in clusters.values()), path
        from reconverge.backend.spirv.structure import construct_tree
        flow = parse(open(path, "rb").read())
        parents, _ = construct_tree(flow.functions[0])
        by_gvid = {o["_gvid"]: o["name"] for o in layout["objects"]}
        for child, parent in enumerate(parents):
            if parent is not None:
                inside = {by_gvid[g] for g in clusters[f"cluster_f0_c{parent}"].get("subgraphs", [])}
                assert f"cluster_f0_c{child}" in inside, (path, child, parent)
        red = [e for e in layout.get("edges", []) if e.get("color") == "red"]
        exits = case["structure"].count("branches to")
        assert len(red) >= exits, path
    assert total >= 25


def test_a_broken_exit_is_a_red_edge_in_the_picture(tmp_path):
    [case] = check_one(assemble(os.path.join(HERE, "broken_exit.spvasm"), tmp_path), "-O2", "vulkan1.3")
    layout = rendered(case["dot"])
    names = {o["_gvid"]: o.get("label") for o in layout["objects"]}
    red = {(names[e["tail"]], names[e["head"]]) for e in layout["edges"] if e.get("color") == "red"}
    assert ("%t", "%h") in red
