"""Liveness on the machine IR: the input the register allocator needs. Bit-set backward data flow over
the blocks (as lowering/analysis/liveness.py does on the IR), then, from the live-out sets, one live
interval per virtual register in instruction positions (layout order), widened across loops by the
live-in/live-out sets, and widened for SIMD divergence: a lane that leaves a loop early (break) waits,
disabled, until the loop's `while` lets every lane out, so a value it needs after the loop must survive
the loop's remaining iterations too: every value live where a loop exits is live from the loop's first
instruction on. The rule holds for every backward branch (a `while`, or blockIP's backward `jmpi`): a
value born inside [target, branch] and live past it is live from the target on. (Without this, another
value's register could take those bytes for the lanes still looping; with element sizes that differ, a
masked write of lane i then lands in lane j's bytes.)
Cost: O((blocks + instructions) * registers / word size) per iteration, a few iterations for reducible
code."""
from __future__ import annotations

from dataclasses import dataclass

from .mir import MFunction, VReg


@dataclass
class Liveness:
    live_in: dict[str, set[VReg]]
    live_out: dict[str, set[VReg]]
    intervals: dict[VReg, tuple[int, int]]     # first and last instruction position where it is live


def liveness(func: MFunction) -> Liveness:
    succs = func.successors()
    regs = list(func.vregs.values())

    def uses(ins) -> list[VReg]:                  # views of a register as another type count as it
        return [func.vregs[v.id] for v in ins.uses()]

    def defs(ins) -> list[VReg]:
        return [func.vregs[v.id] for v in ins.defs()]

    bit = {v: 1 << i for i, v in enumerate(regs)}
    use: dict[str, int] = {}
    kill: dict[str, int] = {}
    for b in func.blocks:
        u = d = 0
        for ins in b.instrs:
            for v in uses(ins):
                if not d & bit[v]:
                    u |= bit[v]
            for v in defs(ins):
                if ins.predicate is None:             # a predicated write keeps the other lanes' values
                    d |= bit[v]
        use[b.label], kill[b.label] = u, d
    live_in = {b.label: 0 for b in func.blocks}
    live_out = {b.label: 0 for b in func.blocks}
    changed = True
    while changed:
        changed = False
        for b in reversed(func.blocks):
            out = 0
            for s in succs[b.label]:
                out |= live_in.get(s, 0)
            new_in = use[b.label] | (out & ~kill[b.label])
            if out != live_out[b.label] or new_in != live_in[b.label]:
                live_out[b.label], live_in[b.label], changed = out, new_in, True

    def regs_of(mask: int) -> set[VReg]:
        return {v for v in regs if mask & bit[v]}

    intervals: dict[VReg, tuple[int, int]] = {}

    def touch(v: VReg, pos: int) -> None:
        lo, hi = intervals.get(v, (pos, pos))
        intervals[v] = (min(lo, pos), max(hi, pos))

    starts: dict[str, int] = {}
    pos = 0
    for b in func.blocks:
        start = starts[b.label] = pos
        for v in regs_of(live_in[b.label]):
            touch(v, start)
        for ins in b.instrs:
            for v in (*uses(ins), *defs(ins)):
                touch(v, pos)
            pos += 1
        for v in regs_of(live_out[b.label]):
            touch(v, max(start, pos - 1))
    ends = {b.label: starts[b.label] + len(b.instrs) - 1 for b in func.blocks}
    loops = [(starts[b.instrs[-1].targets[0]], ends[b.label]) for b in func.blocks
             if b.instrs and b.instrs[-1].opcode in ("while", "jmpi") and b.instrs[-1].targets
             and starts[b.instrs[-1].targets[0]] <= ends[b.label]]
    for head, back in loops:                 # lanes leaving [head, back] early wait while others re-run it
        for v, (lo, hi) in list(intervals.items()):
            if head < lo <= back < hi:
                intervals[v] = (head, hi)
    return Liveness({k: regs_of(m) for k, m in live_in.items()}, {k: regs_of(m) for k, m in live_out.items()},
                    intervals)
