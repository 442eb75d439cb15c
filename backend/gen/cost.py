"""A static estimate of what a kernel's machine IR executes, for `--cf auto`'s choice between the
tree's structured branches and the hybrid (backend.gen.choose_function).

Each instruction counts LOOP_WEIGHT times per loop around it, a loop being the span of blocks between
a backward branch (a while, a backward jmpi) and its target in layout order. The estimate knows neither
trip counts nor divergence (a blockIP loop re-runs its units' entry tests for lanes in other iterations),
so the hybrid is taken only when it is estimated to cost at most HYBRID_MARGIN of the tree. Measured on
the corpus and examples/bench/control_flow.cl at -O2 (README, "Gen code quality beside IGC"): since the
tree's exits became predicated breaks and its && / || flag chains, the hybrid executes more than the
tree on kernels estimated as low as 0.785 (nested_break; loop_exits_to_targets 0.797, nested_break_flag
0.831), and every kernel estimated at 0.75 or less (continue_outer 0.63, loop_multi_exit and multi_exit
0.72) executes fewer under the hybrid.
"""
from __future__ import annotations

from .mir import MFunction

LOOP_WEIGHT = 8
HYBRID_MARGIN = 0.75


def estimated_cost(mfunc: MFunction) -> int:
    """Instructions, each weighted by LOOP_WEIGHT ** (the loops around its block); O(blocks +
    instructions): each loop's span is added to a difference array over the blocks."""
    position = {b.label: i for i, b in enumerate(mfunc.blocks)}
    depth = [0] * (len(mfunc.blocks) + 1)
    for j, block in enumerate(mfunc.blocks):
        for ins in block.instrs:
            for target in ins.targets:
                t = position.get(target)
                if t is not None and t <= j:        # a loop over blocks t..j: a difference array
                    depth[t] += 1
                    depth[j + 1] -= 1
    cost, level = 0, 0
    for i, block in enumerate(mfunc.blocks):
        level += depth[i]
        cost += len(block.instrs) * LOOP_WEIGHT ** level
    return cost


def prefers_hybrid(tree: MFunction, hybrid: MFunction) -> bool:
    return estimated_cost(hybrid) <= HYBRID_MARGIN * estimated_cost(tree)
