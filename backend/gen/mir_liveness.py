"""Liveness on the machine IR: the input the register allocator needs. Bit-set backward data flow over
the blocks, solved by the one solver the IR uses too (lowering/analysis/liveness.solve, on the blocks'
integer CFG), then, from the live-out sets, one live
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

import bisect
import sys
from array import array
from itertools import compress

from reconverge.lowering.analysis.liveness import solve
from reconverge.records import record

from .mir import MFunction, VReg


@record
class Liveness:
    regs: list[VReg]                           # bit i of a live mask is regs[i]
    live_in_masks: dict[str, int]
    live_out_masks: dict[str, int]
    intervals: dict[VReg, tuple[int, int]]     # first and last instruction position where it is live

    @property
    def live_in(self) -> dict[str, set[VReg]]:
        """Per block, the values live at its start (as sets: for tests and printing, not the allocator)."""
        return {k: {self.regs[i] for i in set_bits(m)} for k, m in self.live_in_masks.items()}

    @property
    def live_out(self) -> dict[str, set[VReg]]:
        return {k: {self.regs[i] for i in set_bits(m)} for k, m in self.live_out_masks.items()}


def liveness(func: MFunction) -> Liveness:
    succs = func.successors()
    regs = list(func.vregs.values())

    index = {v.id: i for i, v in enumerate(regs)}    # views of a register as another type count as it
    bit = {v.id: 1 << i for i, v in enumerate(regs)}
    use: dict[str, int] = {}
    kill: dict[str, int] = {}
    # one walk over the instructions for both: each block's uses and kills (for the solver), and each
    # value's first and last position in layout order (for its interval)
    first: dict[int, int] = {}
    last: dict[int, int] = {}
    starts: dict[str, int] = {}
    past: dict[str, int] = {}                     # one past each block's last position
    pos = 0
    for b in func.blocks:
        u = d = 0
        starts[b.label] = pos
        for ins in b.instrs:                          # (uses() and defs(), inline: no lists made)
            for s in ins.srcs:
                v = s.value
                if type(v) is VReg:
                    m = bit[v.id]
                    if not d & m:
                        u |= m
                    i = index[v.id]
                    if i not in first:
                        first[i] = pos
                    last[i] = pos
            dst = ins.dst                             # a predicated write keeps the other lanes' values
            if dst is not None and type(dst.value) is VReg:
                if ins.predicate is None:
                    d |= bit[dst.value.id]
                i = index[dst.value.id]
                if i not in first:
                    first[i] = pos
                last[i] = pos
            pos += 1
        use[b.label], kill[b.label] = u, d
        past[b.label] = pos
    position = {b.label: i for i, b in enumerate(func.blocks)}
    graph = [[position[s] for s in succs[b.label] if s in position] for b in func.blocks]
    none = [0] * len(func.blocks)               # the machine IR has no phis: copies stand in for them
    backwards = list(range(len(func.blocks) - 1, -1, -1))     # reversed layout: most uses before defs
    in_bits, out_bits = solve(graph, [use[b.label] for b in func.blocks], [kill[b.label] for b in func.blocks],
                              none, none, order=backwards)
    live_in = {b.label: in_bits[i] for i, b in enumerate(func.blocks)}
    live_out = {b.label: out_bits[i] for i, b in enumerate(func.blocks)}

    # each value's interval: the first and last position where it is live; the live sets add their
    # members' first (forward) and last (backward) appearances only, so no live set is walked member by
    # member (which grew with the square of the nesting depth under blockIP)
    events: list[tuple[int, int]] = []            # (position, live mask) in position order
    for b in func.blocks:
        start = starts[b.label]
        events.append((start, live_in[b.label]))
        events.append((max(start, past[b.label] - 1), live_out[b.label]))
    seen = 0
    for at, mask in events:
        for i in set_bits(mask & ~seen):
            if first.get(i, at) >= at:
                first[i] = at
        seen |= mask
    seen = 0
    for at, mask in reversed(events):
        for i in set_bits(mask & ~seen):
            if last.get(i, at) <= at:
                last[i] = at
        seen |= mask
    intervals = {regs[i]: (first[i], last[i]) for i in first}
    ends = {b.label: starts[b.label] + len(b.instrs) - 1 for b in func.blocks}
    loops = [(starts[b.instrs[-1].targets[0]], ends[b.label]) for b in func.blocks
             if b.instrs and b.instrs[-1].opcode in ("while", "jmpi") and b.instrs[-1].targets
             and starts[b.instrs[-1].targets[0]] <= ends[b.label]]
    _widen_for_loops(intervals, loops)
    return Liveness(regs, live_in, live_out, intervals)


def set_bits(mask: int) -> list[int]:
    """The positions of the set bits of `mask`, lowest first: a loop over the bits when they are few; over
    the binary digits in C (itertools.compress) when they are dense; else over the 64-bit words, skipping
    the zero ones. Either way no walk over every register per block, which made deep programs quadratic,
    and no numpy: a compile does not import it (tests/test_startup.py)."""
    count = mask.bit_count()
    if count < 64:
        return _bits_of(mask, 0)
    if 8 * count > mask.bit_length():
        digits = bin(mask)[:1:-1].encode().translate(_DIGIT_VALUE)     # lowest first, b"\0" or b"\1" each
        return list(compress(range(len(digits)), digits))
    words = array("Q", mask.to_bytes(8 * -(-mask.bit_length() // 64), "little"))
    if sys.byteorder != "little":
        words.byteswap()
    out: list[int] = []
    for i, word in enumerate(words):
        if word:
            out += _bits_of(word, 64 * i)
    return out


_DIGIT_VALUE = bytes.maketrans(b"01", b"\0\1")


def _bits_of(mask: int, base: int) -> list[int]:
    out = []
    while mask:
        low = mask & -mask
        out.append(base + low.bit_length() - 1)
        mask ^= low
    return out


def _widen_for_loops(intervals: dict[VReg, tuple[int, int]], loops: list[tuple[int, int]]) -> None:
    """For each backward branch [head, back] in layout order (`back` ascending), every interval with
    head < lo <= back < hi starts at head instead. Done without visiting every interval per loop (that
    was O(loops * values), quadratic in nesting depth): intervals wait in buckets by their start, and
    those ending at or before a loop's back edge leave for good, since later back edges lie further on."""
    buckets: dict[int, list[VReg]] = {}
    for v, (lo, _) in intervals.items():
        buckets.setdefault(lo, []).append(v)
    keys = sorted(buckets)
    for head, back in loops:
        first, last = bisect.bisect_right(keys, head), bisect.bisect_right(keys, back)
        if first == last:
            continue
        moved = [v for key in keys[first:last] for v in buckets.pop(key) if intervals[v][1] > back]
        del keys[first:last]
        if not moved:
            continue
        for v in moved:
            intervals[v] = (head, intervals[v][1])
        if head in buckets:
            buckets[head].extend(moved)
        else:
            buckets[head] = moved
            bisect.insort(keys, head)
