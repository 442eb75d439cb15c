"""`--emit dot-spirv`: the control-flow graph of a SPIR-V module as GraphViz, read back from the binary
(structure.parse), with the structured IR's block names on the nodes (the module compiled with
SpirvOptions.block_names) and every edge saying what it is.

Why our own and not spirv-cfg's: spirv-cfg names nodes by result id, draws a conditional branch's two
edges alike (which one is "then" is lost) and has no back-edge style. Here:
- nodes: one box per block, named as `--emit nir --pipeline spirv` prints it (b<N>; a loop's own header
  and continue target loop.b<N> / continue.b<N>, after the loop's first block), in module order, one
  cluster per function;
- edges, in a fixed order per block: a conditional branch's "then" (true) edge before its "else" (false)
  edge, a switch's default before its cases, then the block's merge and continue declarations; and
  `ordering=out`, so dot draws then left of else;
- a legend cluster with one sample edge per style.
"""
from __future__ import annotations

from .structure import ModuleFlow, parse

GREY, THEN, ELSE, CASE, BACK = "#6e7781", "#1a7f37", "#cf222e", "#8250df", "#0969da"
# edge kind -> (GraphViz attributes, legend text)
STYLES: dict[str, tuple[dict[str, str], str]] = {
    "branch": ({}, "branch"),
    "then": ({"color": THEN, "fontcolor": THEN, "label": "then"}, "then: condition true"),
    "else": ({"color": ELSE, "fontcolor": ELSE, "label": "else"}, "else: condition false"),
    "case": ({"color": CASE, "fontcolor": CASE}, "switch: default, case"),
    "back": ({"color": BACK, "penwidth": "2", "constraint": "false"}, "back edge (to the loop header)"),
    "merge": ({"style": "dashed", "color": GREY, "fontcolor": GREY, "label": "merge", "constraint": "false"},
              "merge block a header declares"),
    "continue": ({"style": "dotted", "color": GREY, "fontcolor": GREY, "label": "continue", "constraint": "false"},
                 "continue target a loop header declares"),
}
LEGEND_ORDER = ("branch", "then", "else", "case", "back", "merge", "continue")


def _quote(text: str) -> str:
    return '"' + text.replace("\\", "\\\\").replace('"', '\\"') + '"'


def _attributes(attrs: dict[str, str]) -> str:
    return " [" + ", ".join(f"{k}={_quote(v)}" for k, v in attrs.items()) + "]" if attrs else ""


def _edges(flow: ModuleFlow, fi: int) -> list[tuple[int, int, str, str]]:
    """(from, to, kind, extra label) for every edge of function fi, in the fixed order."""
    f = flow.functions[fi]
    loop_headers = {c.header: c for c in f.constructs if c.kind == "loop"}
    position = {b: i for i, b in enumerate(f.blocks)}
    out = []
    for b in f.blocks:
        kind = f.terminators.get(b)
        succs = f.succs[b]
        for k, t in enumerate(succs):
            if kind == "conditional" and len(succs) == 1:          # both targets the same block
                role = ("then", "then, else")
            elif kind == "conditional":
                role = ("then" if k == 0 else "else", "")
            elif kind == "switch":
                role = ("case", "default" if k == 0 else "case")
            else:
                role = ("branch", "")
            if t in loop_headers and position.get(t, -1) <= position[b]:       # a back edge says so first
                role = ("back", role[1] or (role[0] if role[0] in ("then", "else") else ""))
            out.append((b, t, *role))
        for c in f.constructs:
            if c.header == b and c.kind in ("selection", "loop"):
                if c.merge is not None:
                    out.append((b, c.merge, "merge", ""))
                if c.continue_target is not None:
                    out.append((b, c.continue_target, "continue", ""))
    return out


def cfg_dot(binary: bytes) -> str:
    """GraphViz text of every function's CFG in a SPIR-V binary (see the module docstring)."""
    flow = parse(binary)
    out = ["digraph spirv {", "  ordering=out;", "  node [shape=box, fontname=monospace];",
           "  edge [fontname=monospace, fontsize=10];"]
    for fi, f in enumerate(flow.functions):
        node = {b: _quote(f"f{fi}_{b}") for b in f.blocks}
        out.append(f"  subgraph cluster_f{fi} {{ label={_quote('@' + f.name)};")
        for i, b in enumerate(f.blocks):
            name = flow.names.get(b, f"%{b}")
            out.append(f"    {node[b]} [label={_quote(name)}{', penwidth=2' if i == 0 else ''}];")
        for b, t, kind, extra in _edges(flow, fi):
            if t not in node:
                continue
            attrs = dict(STYLES[kind][0], **({"label": extra} if extra else {}))
            out.append(f"    {node[b]} -> {node[t]}{_attributes(attrs)};")
        out.append("  }")
    out.append('  subgraph cluster_legend { label="edges"; fontname=monospace; style=dashed;')
    out.append("    node [shape=plaintext, label=\"\", width=0.1, height=0.1];")
    for kind in LEGEND_ORDER:
        attrs, text = STYLES[kind]
        legend = {k: v for k, v in attrs.items() if k != "constraint"} | {"label": text}
        out.append(f"    legend_{kind}_from -> legend_{kind}_to{_attributes(legend)};")
    starts = [f"legend_{kind}_from" for kind in LEGEND_ORDER]       # the samples left to right, in order
    out.append(f"    {{ rank=same; {'; '.join(starts)}; }}")
    out.append(f"    {' -> '.join(starts)} [style=invis];")
    out.append("  }")
    out.append("}")
    return "\n".join(out) + "\n"
