"""Hand-picked CFG shapes that random generation reaches rarely."""
import itertools

from reconverge.lowering.ir.core import Arg, Block, Const, Function, Instr
from reconverge.lowering.ir.types import I1, I32, ptr
from reconverge.lowering.ir.validate import validate
from reconverge.lowering.passes.structurize import structurize
from tests.lowering.passes.structurize.trace_walk import TraceWalker


def build(edges: dict[str, tuple], n_conds: int = 4) -> Function:
    """edges: block -> ("br", t) | ("cbr", cond index, t, f) | ("ret",); every block stores its index."""
    out = Arg(ptr(1), 0, "out")
    conds = [Arg(I1, 1 + i, f"c{i}") for i in range(n_conds)]
    func = Function("shape", [out, *conds])
    blocks = {name: Block(name) for name in edges}
    func.blocks = list(blocks.values())
    for i, (name, edge) in enumerate(edges.items()):
        b = blocks[name]
        b.append(Instr("store", [Const(I32, i), out]))
        if edge[0] == "br":
            b.append(Instr("br", [], targets=[blocks[edge[1]]]))
        elif edge[0] == "cbr":
            b.append(Instr("cbr", [conds[edge[1]]], targets=[blocks[edge[2]], blocks[edge[3]]]))
        else:
            b.append(Instr("ret", []))
    func.update_cfg()
    return func


def check_all_inputs(edges, n_conds=4) -> None:
    """Valid tree, and the same store trace as the CFG for every combination of conditions."""
    func = build(edges, n_conds)
    inputs = [dict(zip((f"c{i}" for i in range(n_conds)), bits))
              for bits in itertools.product((0, 1), repeat=n_conds)]
    want = [TraceWalker(func, args, limit=60).run() for args in inputs]
    structurize(func)
    assert validate(func) == []
    assert [TraceWalker(func, args, limit=60).run() for args in inputs] == want


def test_loop_whose_every_path_breaks_or_continues():
    # head: c0 ? a : b;  a: c1 ? exit1 : head;  b: c2 ? exit2 : head   (every arm breaks or continues)
    check_all_inputs({
        "entry": ("br", "head"),
        "head": ("cbr", 0, "a", "b"),
        "a": ("cbr", 1, "exit1", "head"),
        "b": ("cbr", 2, "exit2", "head"),
        "exit1": ("ret",),
        "exit2": ("br", "exit1"),
    })


def test_multi_level_break_and_continue_of_an_outer_loop():
    check_all_inputs({
        "entry": ("br", "outer"),
        "outer": ("cbr", 0, "inner", "done"),
        "inner": ("cbr", 1, "x", "outer_latch"),
        "x": ("cbr", 2, "done", "y"),              # leaves both loops
        "y": ("cbr", 3, "outer", "inner"),          # continues the outer loop from the inner one
        "outer_latch": ("br", "outer"),
        "done": ("ret",),
    })


def test_short_circuit_merge_needs_a_guard():
    # if (c0 && c1) T else E: the else block is reached from two places; then both reach the end
    check_all_inputs({
        "entry": ("cbr", 0, "second", "else"),
        "second": ("cbr", 1, "then", "else"),
        "then": ("br", "end"),
        "else": ("br", "end"),
        "end": ("ret",),
    })
