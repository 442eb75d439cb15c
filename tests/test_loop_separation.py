"""lowering.frontend.loop_separation on clang-22's -O2 CFG of seed 004's nested do/while: the one loop LLVM
made of the two is split back into an outer header and the inner loop, with the header's phis split."""
from __future__ import annotations

import functools
import os

from reconverge.lowering.frontend.clang import compile_opencl
from reconverge.lowering.frontend.llvm_module import parse_llvm_text
from reconverge.lowering.frontend.llvm_reader import read_kernels
from reconverge.lowering.graph import dominator_tree, loop_forest
from reconverge.lowering.ir.core import Function, Phi

SOURCE = os.path.join(os.path.dirname(os.path.dirname(os.path.abspath(__file__))),
                      "examples", "reconvergence", "continue_vs_nested.cl")


@functools.lru_cache(maxsize=None)
def o2_text() -> str:
    return compile_opencl(SOURCE, "-O2", ("-g",))


def read(kernel: str, convergence: str = "auto") -> Function:
    return read_kernels(parse_llvm_text(o2_text(), SOURCE), SOURCE, kernel, convergence=convergence)[kernel]


def loops(func: Function) -> dict[int, int]:
    """Each loop header's block index -> its parent loop's header (-1: outermost)."""
    blocks = func.update_cfg()
    succs = [[s.index for s in b.succs] for b in blocks]
    forest = loop_forest(succs, 0, dominator_tree(succs, 0))
    return {h: forest.parent[h] for h in forest.headers}


def test_clang_merges_the_nested_loops():
    """What the pass is for: without -g's scopes (cfg) the -O2 kernel is one loop with one header."""
    func = read("nested_loops", "cfg")
    assert len(loops(func)) == 1


def test_merged_header_split_with_its_phis():
    func = read("nested_loops")
    nest = loops(func)
    assert len(nest) == 2, "the inner do/while is a loop of its own again"
    inner = next(h for h, parent in nest.items() if parent != -1)
    outer = nest[inner]
    blocks = func.blocks
    header, outer_header = blocks[inner], blocks[outer]
    assert outer_header in header.preds
    assert outer_header.succs == [header], "the outer header only falls into the inner loop"
    entries = [p for p in outer_header.preds if p.index < outer_header.index]
    outer_latches = [p for p in outer_header.preds if p not in entries]
    inner_latches = [p for p in header.preds if p is not outer_header]
    assert entries and outer_latches and inner_latches
    phis = list(header.phis())
    assert phis, "the loop counter j"
    for phi in phis:
        twin = phi.value_for(outer_header)
        assert isinstance(twin, Phi) and twin.block is outer_header
        assert sorted(b.index for b in phi.blocks) == sorted(b.index for b in [outer_header, *inner_latches])
        assert sorted(b.index for b in twin.blocks) == sorted(b.index for b in outer_header.preds)
    # ballot 1 (written in the do body) is in the inner loop; ballot 2 (after it) in the outer one only
    homes = list(dict.fromkeys(ins.block for b in blocks for ins in b.instrs if ins.opcode == "subgroup"))
    assert len(homes) == 2 and homes[0] is header
    assert homes[1] is not None and homes[1] not in (header, *inner_latches)
    assert set(homes[1].succs) & set(outer_latches), "ballot 2's block returns to the outer header"


def test_continue_loop_is_left_alone():
    """A ballot in a `for` with `continue`: one source loop, nothing to separate (one header either way)."""
    func = read("continue_loop")
    assert len(loops(func)) == 1


PLAIN_NEST = """
kernel void plain_nest(global uint *out, int n)
{
    uint lane = get_sub_group_local_id();
    size_t g = get_global_id(0);
    int j = 0;
    while (j < n) {
        do {
            out[g * 16 + j] = sub_group_ballot(1).x;
            j++;
        } while ((lane & 1) && j < n);
        out[g * 16 + 8 + (j & 7)] = sub_group_reduce_add(j);
    }
}
"""


def test_a_do_while_without_break_agrees_with_its_O0_structure(tmp_path):
    """A second merged shape (no `break`; a reduction after the inner loop): -O2 with -g gives lane for
    lane what -O0's CFG, which keeps both loops, gives (140 words differ when the loops stay merged)."""
    import numpy as np

    from reconverge.tools.targets.harness import InterpreterOptions, load_program, run_target
    path = tmp_path / "plain_nest.cl"
    path.write_text(PLAIN_NEST)
    got = {}
    for level in ("-O0", "-O2"):
        program = load_program(str(path), level, build_options=("-g",))
        args = [np.zeros(16 * 40, np.uint32), np.int32(3)]
        got[level] = run_target("ir", program, "plain_nest", args, (40,), (20,), InterpreterOptions(subgroup_size=8))[0]
    assert got["-O2"].tolist() == got["-O0"].tolist()


SWITCH_CONTINUE = os.path.join(os.path.dirname(os.path.abspath(__file__)), "kernels_fuzzconv",
                               "scopes_switch_continue_29708_reduced.cl")


def test_a_continue_in_a_switch_is_not_a_nested_loop():
    """Fuzz convergence-29708: a `switch` whose one case is `continue` becomes, at -O2, a conditional
    branch back to the loop's shared latch, written one scope deeper than the loop's own back edge (a
    nested do/while's test looks so too). No loop statement of its own holds it: the loop stays one loop,
    read from OpenCL C (clang's unoptimised loops known) and from an optimised .ll (its lexical blocks)."""
    from reconverge.lowering.pipeline import KEEP_LOOPS, load_module
    optimised = compile_opencl(SWITCH_CONTINUE, "-O2", ("-g", *KEEP_LOOPS))     # (the shape load_module reads)
    for module in (load_module(SWITCH_CONTINUE, "-O2", ("-g",)), parse_llvm_text(optimised, SWITCH_CONTINUE)):
        func = read_kernels(module, SWITCH_CONTINUE, "k")["k"]
        assert len(loops(func)) == 1
        assert func.loops_separated == 0
