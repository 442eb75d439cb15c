"""GraphViz views: the CFG (any form) and the control-flow tree as nested clusters (as the NIR document
draws it: grey boxes for ifs and loops, white boxes for then/else, ovals for blocks)."""
from __future__ import annotations

from reconverge.lowering.deepstack import depth_independent
from reconverge.lowering.ir.core import Block, CFNode, Function, If, Loop
from reconverge.lowering.ir.printer import Namer, format_instr


def _quote(text: str) -> str:
    return '"' + text.replace("\\", "\\\\").replace('"', '\\"') + '"'


def _block_label(b: Block, namer: Namer, max_lines: int = 12) -> str:
    lines = [namer.block(b) + (f" ({b.label})" if b.label else "")]
    body = [format_instr(i, namer) for i in b.instrs]
    if len(body) > max_lines:
        body = body[:max_lines - 1] + [f"... {len(body) - max_lines + 1} more"]
    lines += body or ["(empty)"]
    return "\\l".join(_quote(line)[1:-1] for line in lines) + "\\l"


def _edges(func: Function, namer: Namer, out: list[str]) -> None:
    """Edges as stored; one to an earlier block (a back edge in program order) is dashed."""
    number = namer.block_number
    for b in namer.blocks:
        for s in b.succs:
            back = s is not func.end_block and number.get(s, -1) <= number[b]
            out.append(f"  {namer.block(b)} -> {namer.block(s)}"
                       + (" [constraint=false, style=dashed]" if back else "") + ";")


@depth_independent
def cfg_dot(func: Function) -> str:
    namer = Namer(func)
    out = [f"digraph {_quote(func.name + ' CFG')} {{", "  node [shape=box, fontname=monospace];"]
    for b in namer.blocks:
        out.append(f'  {namer.block(b)} [label="{_block_label(b, namer)}"];')
    if func.is_structured:
        out.append('  end [label="(end)", shape=oval];')
    _edges(func, namer, out)
    out.append("}")
    return "\n".join(out) + "\n"


@depth_independent
def tree_dot(func: Function) -> str:
    if not func.is_structured:
        raise ValueError("tree view needs a structured function")
    namer = Namer(func)
    out = [f"digraph {_quote(func.name + ' tree')} {{", '  clusterrank="local";',
           "  node [shape=oval, fontname=monospace];",
           f'  subgraph cluster_fn {{ style="solid"; label={_quote(func.name)};']
    counter = [0]

    def cluster(label: str, fill: str, indent: str) -> str:
        counter[0] += 1
        out.append(f'{indent}subgraph cluster_{counter[0]} {{ style="filled"; fillcolor="{fill}"; '
                   f"label={_quote(label)};")
        return indent + "  "

    def emit(nodes: list[CFNode], indent: str, shade: bool) -> None:
        for node in nodes:
            if isinstance(node, Block):
                out.append(f'{indent}{namer.block(node)} [label="{_block_label(node, namer)}"];')
            elif isinstance(node, If):
                fill, inner = ("lightgrey", "white") if shade else ("white", "lightgrey")
                i2 = cluster(f"if {namer.value(node.cond)}", fill, indent)
                i3 = cluster("then", inner, i2)
                emit(node.then_list, i3, not shade)
                out.append(f"{i2}}}")
                i3 = cluster("else", inner, i2)
                emit(node.else_list, i3, not shade)
                out.append(f"{i2}}}")
                out.append(f"{indent}}}")
            elif isinstance(node, Loop):
                i2 = cluster("loop", "lightgrey" if shade else "white", indent)
                emit(node.body, i2, not shade)
                out.append(f"{indent}}}")

    emit(func.body, "    ", True)
    out.append('    end [label="(end)"];')
    out.append("  }")
    _edges(func, namer, out)
    out.append("}")
    return "\n".join(out) + "\n"
