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

Before selecting the hybrid at all (hybrid_may_win): made from the same read as the tree, it computes the
same values in the same loops, so what it can save is the tree's branches and moves; where even
HYBRID_SAVES_AT_MOST of those would not bring it to the margin, auto keeps the tree unweighed. (A kernel
with private variables shares the read only where SROA would change nothing (lowering.program): then the
tree's own promote can only turn memory operations into values and moves, which the hybrid keeps as
memory operations; the three such kernels of the corpus and examples, -O0 to -O3, saved at most 0.17.)
"""
from __future__ import annotations

from .mir import MFunction

LOOP_WEIGHT = 8
HYBRID_MARGIN = 0.75
# The most of the tree's weighted branches and copies (control_cost) the hybrid has saved on a kernel whose
# read both forms share: 0.445 (continue_outer), then 0.41 (loop_multi_exit, multi_exit), over the corpus,
# examples and 200 random reducible CFGs at -O2 (363 kernels; README "Gen control-flow modes").
HYBRID_SAVES_AT_MOST = 0.5
# A tree without guard variables (the structurizer needed no label or exit selector) has the CFG's own
# structure, so the hybrid selects the same ifs and loops: what it saved on such kernels is the if, else
# and endif around an arm that only leaves its loop (it predicates the copies and the jump instead): at
# most 1.17 times their weighted count (exit_arm_cost) on a kernel it won, and on any at most 0.125 of
# the tree's cost beyond 1.5 times that count (count_words: phi copies through nested ifs). Measured on
# the 180 guard-free trees the first test lets through among 985 kernels with a shared read (the corpus,
# examples and 900 fuzz programs of five modes, -O0 and -O2; README "Gen control-flow modes"). The
# bound below keeps the margin in the exit arms' factor (2.0 against 1.5) and takes the 0.125 measured
# (0.15 weighed 18 more of 766 such kernels, none won, in a second sample of 900 fuzz programs, where
# the most saved beyond 1.5 times the arms was 0.072).
GUARD_FREE_SAVES_PER_EXIT_ARM = 2.0
GUARD_FREE_SAVES_ELSEWHERE = 0.125
CONTROL = frozenset(("if", "else", "endif", "while", "break", "cont", "jmpi", "halt", "mov"))


def _loop_levels(mfunc: MFunction, controls: list[int] | None = None) -> list[int]:
    """The loops around each block, in layout order: a loop spans blocks t..j where a branch in block j
    goes back to block t <= j (spans added to a difference array over the blocks; every branch ends its
    block). `controls`, if given, gets each block's count of CONTROL instructions, from the same walk
    (weigh's: a second walk of the instructions, a generator per block, was a third of the weighing,
    which auto does for every kernel). O(blocks + instructions)."""
    blocks = mfunc.blocks
    position = {b.label: i for i, b in enumerate(blocks)}
    depth = [0] * (len(blocks) + 1)
    control_ops = CONTROL
    for j, block in enumerate(blocks):
        count = 0
        for ins in block.instrs:
            if ins.opcode in control_ops:
                count += 1
            if ins.targets:
                for target in ins.targets:
                    t = position.get(target)
                    if t is not None and t <= j:
                        depth[t] += 1
                        depth[j + 1] -= 1
        if controls is not None:
            controls.append(count)
    levels, level = [], 0
    for i in range(len(blocks)):
        level += depth[i]
        levels.append(level)
    return levels


def weigh(mfunc: MFunction) -> tuple[int, int]:
    """(estimated_cost, control_cost) of `mfunc`: each block's instruction and control counts, weighted
    LOOP_WEIGHT ** (the loops around it, _loop_levels, which counts the control). O(blocks + instructions)."""
    total = control_total = 0
    controls: list[int] = []
    levels = _loop_levels(mfunc, controls)
    for block, level, control in zip(mfunc.blocks, levels, controls):
        weight = LOOP_WEIGHT ** level
        total += len(block.instrs) * weight
        control_total += control * weight
    return total, control_total


def exit_arm_cost(mfunc: MFunction) -> int:
    """The if, else and endif instructions, weighted as in weigh, of each if whose arm holds a break,
    cont or halt of the loop the if is in (not of a loop nested in the arm): what a hybrid predicating
    the arm's copies and jump would not run. O(blocks + instructions)."""
    open_ifs: list[list[int]] = []          # [weight, if/else/endif count, jumps out of its loop, loop level]
    total = 0
    for block, level in zip(mfunc.blocks, _loop_levels(mfunc)):
        weight = LOOP_WEIGHT ** level
        for ins in block.instrs:
            op = ins.opcode
            if op == "if":
                open_ifs.append([weight, 1, 0, level])
            elif op == "else" and open_ifs:
                open_ifs[-1][1] += 1
            elif op == "endif" and open_ifs:
                w, count, jumps, _ = open_ifs.pop()
                if jumps:
                    total += w * (count + 1)
            elif op in ("break", "cont", "halt") and open_ifs and open_ifs[-1][3] == level:
                open_ifs[-1][2] = 1
    return total


def estimated_cost(mfunc: MFunction) -> int:
    """Instructions, each weighted by LOOP_WEIGHT ** (the loops around its block)."""
    return weigh(mfunc)[0]


def control_cost(mfunc: MFunction) -> int:
    """The part of estimated_cost that is branches and moves (phi copies, flags kept in registers): what
    a hybrid that computes the same values at the same loop depths could do without."""
    return weigh(mfunc)[1]


def prefers_hybrid(tree: MFunction, hybrid: MFunction, tree_cost: int | None = None) -> bool:
    """Whether auto takes the hybrid: its estimated cost at most HYBRID_MARGIN of the tree's (`tree_cost`:
    the tree's estimated_cost, where the caller has it from weigh)."""
    if tree_cost is None:
        tree_cost = weigh(tree)[0]
    return weigh(hybrid)[0] <= HYBRID_MARGIN * tree_cost


def hybrid_may_win(tree: MFunction, weighed: tuple[int, int] | None = None, guarded: bool = True) -> bool:
    """Whether the hybrid, made from the same read as the tree (the same values in the same loops), could
    reach HYBRID_MARGIN of the tree's cost by saving at most HYBRID_SAVES_AT_MOST of its branches and
    moves, and, for a tree without guard variables (`guarded` False), at most GUARD_FREE_SAVES_PER_EXIT_ARM
    times its exit arms' ifs (exit_arm_cost) plus GUARD_FREE_SAVES_ELSEWHERE of its cost. Where it could
    not, auto takes the tree without selecting the hybrid (the kernel's CFG pipeline and second selection
    were about a quarter of a Gen compile). `weighed`: weigh(tree), where the caller has it."""
    total, control = weigh(tree) if weighed is None else weighed
    needed = (1 - HYBRID_MARGIN) * total
    if HYBRID_SAVES_AT_MOST * control < needed:
        return False
    return guarded or GUARD_FREE_SAVES_PER_EXIT_ARM * exit_arm_cost(tree) + GUARD_FREE_SAVES_ELSEWHERE * total >= needed
