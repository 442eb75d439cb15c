"""`--emit dot-spirv` (backend.spirv.cfg_dot), read back through GraphViz's own `dot -Tjson`: the tree's
block names on the nodes, every if's then and else edges (then first), the legend's sample edges."""
import json
import shutil
import subprocess

import pytest

from reconverge.backend.spirv import compile_spirv
from reconverge.backend.spirv.options import SpirvOptions
from reconverge.lowering.ir.core import Block, If, Loop, first_block
from reconverge.lowering.ir.printer import Namer
from reconverge.lowering.program import load_program

KERNEL = """
kernel void k(global int *a, int n) {
  int i = get_global_id(0);
  int s = 0;
  for (int j = 0; j < i; j++) {
    if (j & 1) s += j; else s -= 1;
    switch (j % 3) { case 0: s += 2; break; case 1: s ^= 5; break; default: s -= 3; }
  }
  if (i < n) a[i] = s; else a[i] = 7;
}
"""


@pytest.fixture(scope="module")
def compiled(tmp_path_factory):
    path = tmp_path_factory.mktemp("dot") / "k.cl"
    path.write_text(KERNEL)
    from reconverge.tools.cli import main
    out = path.with_suffix(".dot")
    assert main(["compile", str(path), "--emit", "dot-spirv", "-o", str(out)]) == 0
    func = load_program(str(path), "-O0").function("k", "spirv")
    return func, out.read_text()


def rendered(dot_text: str) -> dict:
    assert shutil.which("dot"), "graphviz (dot) must be installed: the Makefile installs it"
    done = subprocess.run(["dot", "-Tjson"], input=dot_text, capture_output=True, text=True, check=True)
    return json.loads(done.stdout)


def edges_by_label(layout: dict) -> list[tuple[str, str, dict]]:
    names = {o["_gvid"]: o.get("label", o["name"]) for o in layout["objects"] if "nodes" not in o}
    return [(names[e["tail"]], names[e["head"]], e) for e in layout.get("edges", [])]


def walk(nodes):
    for node in nodes:
        yield node
        if isinstance(node, If):
            yield from walk(node.then_list)
            yield from walk(node.else_list)
        elif isinstance(node, Loop):
            yield from walk(node.body)


def test_nodes_are_the_trees_block_names(compiled):
    func, text = compiled
    namer = Namer(func)
    layout = rendered(text)
    labels = {o.get("label") for o in layout["objects"] if "nodes" not in o and o["name"].startswith("f0_")}
    loops = [n for n in walk(func.body) if isinstance(n, Loop)]
    want = {namer.block(b) for b in func.all_blocks()}
    want |= {f"{kind}.{namer.block(first_block(loop.body))}" for loop in loops for kind in ("loop", "continue")}
    assert loops and labels == want


def test_every_if_has_its_then_edge_before_its_else_edge(compiled):
    func, text = compiled
    namer = Namer(func)
    edges = edges_by_label(rendered(text))
    lines = [line.strip() for line in text.splitlines()]
    ifs = 0
    for parent in [func.body] + [n.then_list for n in walk(func.body) if isinstance(n, If)] + \
            [n.else_list for n in walk(func.body) if isinstance(n, If)] + \
            [n.body for n in walk(func.body) if isinstance(n, Loop)]:
        for before, node in zip(parent, parent[1:]):
            if not (isinstance(node, If) and isinstance(before, Block)):
                continue
            ifs += 1
            head = namer.block(before)
            then, other = namer.block(first_block(node.then_list)), namer.block(first_block(node.else_list))
            out = [(h, e["label"]) for t, h, e in edges if t == head and e.get("label") in ("then", "else")]
            assert out == [(then, "then"), (other, "else")], (head, out)
            # and in the text, the then edge is written right before the else edge
            at = [i for i, line in enumerate(lines) if 'label="then"' in line or 'label="else"' in line]
            assert at == sorted(at)
    assert ifs >= 2


def test_the_legend_shows_a_sample_of_every_edge_style_used(compiled):
    _, text = compiled
    edges = edges_by_label(rendered(text))
    legend = {e["label"]: e for t, _, e in edges if t == "" and e.get("style") != "invis"}
    used = [e for t, _, e in edges if t != ""]
    assert len(legend) == 7 and {"then: condition true", "else: condition false"} <= set(legend)

    def style(e):
        return e.get("style", "solid"), e.get("color", "black")
    # every style on a real edge is one of the legend's
    assert {style(e) for e in used} <= {style(e) for e in legend.values()}
    assert any(e.get("label") == "merge" for e in used) and any(e.get("label") == "continue" for e in used)
    assert sum(e.get("penwidth") == "2" for e in used) == 1            # the loop's one back edge


def test_emit_spirv_itself_names_no_blocks(tmp_path):
    """Block names go only into the module dot-spirv draws: the binary `--emit spirv` writes is as before."""
    path = tmp_path / "k.cl"
    path.write_text(KERNEL)
    func = load_program(str(path), "-O0").function("k", "spirv")
    plain = compile_spirv([func], SpirvOptions())
    named = compile_spirv([func], SpirvOptions(block_names=True))
    assert b"loop.b" not in plain and b"loop.b" in named and len(named) > len(plain)
