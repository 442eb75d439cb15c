"""Liveness on both forms: hand-made cases, and a per-value path search over real kernels as the oracle.

The oracle answers "is v live when control leaves B?" by walking forward from B's successors, one value at
a time, until a use (read before any definition in the block, a phi reading v on the edge just taken, an
If condition) or the definition; the analysis solves all values at once as a data-flow fixpoint. They
share only the definition of the edges.
"""
import itertools
import os

import pytest

from reconverge.lowering.analysis.liveness import function_liveness, solve
from reconverge.lowering.ir.core import Block, If, Phi, cf_lists
from reconverge.lowering.ir.successors import structured_successors
from reconverge.lowering.pipeline import Options, compile_llvmlite
from reconverge.lowering.program import compile_path
from tests.lowering.passes.structurize.test_seed_tree import seed_module

KERNELS = os.path.join(os.path.dirname(__file__), os.pardir, os.pardir, "kernels")
SAMPLE = [(name, opt) for name in ("binary_search", "continue_outer", "loop_multi_exit", "switch_fallthrough",
                                    "short_circuit", "return_in_nest", "while_complex", "goto_backward",
                                    "prefix_loop") for opt in ("-O0", "-O2")] + [("nested_switch_loop", "-O0")]


def _successors(func, blocks):
    if func.is_structured:
        table = structured_successors(func)
        return {b: table.get(b, []) for b in blocks}
    return {b: list(b.terminator.targets) if b.terminator is not None else [] for b in blocks}


def _if_conditions(func):
    reads = {}
    if func.is_structured:
        for nodes in cf_lists(func):
            for prev, node in itertools.pairwise(nodes):
                if isinstance(node, If):
                    reads.setdefault(prev, []).append(node.cond)
    return reads


def _block_facts(blocks, cond_reads):
    """Per block: values read before being defined there, values defined there, and per predecessor
    the values its phis read on that edge."""
    facts = {}
    for block in blocks:
        reads, defines, edge_reads = set(), set(), {}
        for ins in block.instrs:
            if isinstance(ins, Phi):
                for pred, v in ins.incoming():
                    edge_reads.setdefault(id(pred), set()).add(id(v))
            else:
                reads |= {id(op) for op in ins.operands if id(op) not in defines}
            defines.add(id(ins))
        reads |= {id(c) for c in cond_reads.get(block, ()) if id(c) not in defines}
        facts[block] = (reads, defines, edge_reads)
    return facts


def _live_out_by_search(value, start, succs, facts):
    """Is `value` read on some path leaving `start` before it is defined again?"""
    seen = set()
    work = [(start, s) for s in succs[start]]
    while work:
        came_from, block = work.pop()
        reads, defines, edge_reads = facts[block]
        if id(value) in edge_reads.get(id(came_from), ()):
            return True
        if id(block) in seen:
            continue
        seen.add(id(block))
        if id(value) in reads:
            return True
        if id(value) not in defines:
            work += [(block, s) for s in succs[block]]
    return False


def _check_against_search(func):
    live = function_liveness(func)
    blocks = live.blocks
    succs = _successors(func, blocks)
    facts = _block_facts(blocks, _if_conditions(func))
    checked = 0
    for b in blocks:
        out = live.live_out(b)
        for v in live.values:
            assert (v in out) == _live_out_by_search(v, b, succs, facts), \
                f"@{func.name}: {v.name or v} live-out of {b.label or b.index}"
            checked += 1
    entry_live = live.live_in(func.entry())
    assert entry_live <= set(func.args), "an SSA value is live into the entry block"
    return checked


@pytest.mark.parametrize("name,opt", SAMPLE)
def test_liveness_matches_a_path_search_on_both_forms(name, opt):
    path = os.path.join(KERNELS, name + ".cl")
    checked = 0
    for stop in ("read", None):             # CFG form straight from the reader; the tree after promote
        for func in compile_path(path, opt, Options(stop_after=stop)).values():
            assert func.is_structured == (stop is None)
            checked += _check_against_search(func)
    assert checked > 0


def test_liveness_only_reads_the_function():
    func = compile_llvmlite(seed_module())["seed"]
    blocks = func.all_blocks()
    before = [(b.index, list(b.succs), list(b.preds)) for b in blocks]
    func.body[0].succs = []                  # stale on purpose: the analysis must derive edges itself
    live = function_liveness(func)
    assert [(b.index, list(b.succs), list(b.preds)) for b in blocks][1:] == before[1:]
    assert func.body[0].succs == []
    assert live.live_out(func.body[0]), "the entry block's values feed the if after it"


def test_an_if_condition_is_live_at_the_end_of_the_block_before_the_if():
    func = compile_llvmlite(seed_module())["seed"]
    live = function_liveness(func)
    block, branch = func.body[0], func.body[1]
    assert isinstance(block, Block) and isinstance(branch, If)
    sets = live.live_before(block)
    assert len(sets) == len(block.instrs) + 1
    assert branch.cond in sets[-1]
    if branch.cond in block.instrs:
        at = block.instrs.index(branch.cond)
        assert branch.cond not in sets[at] and branch.cond in sets[at + 1]


def test_solve_on_an_integer_loop():
    """0 -> 1 <-> 2, 1 -> 3. Value 0 defined in 0, used in 2 (inside the loop): live around the loop.
    Value 1 is a phi result of node 1, fed from 0 and 2; node 3 reads it."""
    succs = [[1], [2, 3], [1], []]
    upward = [0, 0, 0b01, 0b10]
    defined = [0b01, 0b10, 0, 0]
    phi_defs = [0, 0b10, 0, 0]
    phi_uses = [0, 0, 0, 0]
    live_in, live_out = solve(succs, upward, defined, phi_uses, phi_defs)
    assert live_out == [0b01, 0b11, 0b01, 0]
    assert live_in == [0, 0b01, 0b01, 0b10]
