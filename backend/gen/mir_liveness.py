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
from operator import attrgetter

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
    regs, first, last, labels, in_bits, out_bits = live_ranges(func)
    intervals = {regs[i]: (f, last[i]) for i, f in enumerate(first) if f >= 0}
    return Liveness(regs, dict(zip(labels, in_bits)), dict(zip(labels, out_bits)), intervals)


def live_ranges(func: MFunction) -> tuple[list[VReg], list[int], list[int], list[str], list[int], list[int]]:
    """liveness's answers as lists: the registers, each one's interval as first[i] .. last[i] (first[i] < 0:
    never live), and the blocks' labels with their live-in and live-out masks (the allocator reads the
    intervals alone, without a dict keyed by the registers' record hashes)."""
    blocks = func.blocks
    succs = func.successors()
    regs = list(func.vregs.values())
    count = len(regs)
    # views of a register as another type count as it: a value is its register's index in `regs`, which is
    # its id where the ids are 0, 1, 2 ... in order (MFunction.vreg makes them so; the ids are their own
    # index then, a list read by position; the test made in C)
    index: list[int] | dict[int, int] = list(range(count))
    if list(map(_ID, regs)) != index:
        index = {r.id: k for k, r in enumerate(regs)}
    # one walk over the instructions for both: each block's uses and kills (for the solver), and each
    # value's first and last position in layout order (for its interval; -1: not seen yet)
    first = [-1] * count
    last = [-1] * count
    use: list[int] = []
    kill: list[int] = []
    starts: list[int] = []
    pos = 0
    vreg = VReg
    for b in blocks:
        u = d = 0
        starts.append(pos)
        for ins in b.instrs:                          # (uses() and defs(), inline: no lists made)
            for s in ins.srcs:
                v = s.value
                if type(v) is vreg:
                    i = index[v.id]
                    m = 1 << i
                    if not d & m:
                        u |= m
                    if first[i] < 0:
                        first[i] = pos
                    last[i] = pos
            dst = ins.dst                             # a predicated write keeps the other lanes' values
            if dst is not None:
                v = dst.value
                if type(v) is vreg:
                    i = index[v.id]
                    if ins.predicate is None:
                        d |= 1 << i
                    if first[i] < 0:
                        first[i] = pos
                    last[i] = pos
            pos += 1
        use.append(u)
        kill.append(d)
    labels = [b.label for b in blocks]
    position = {label: i for i, label in enumerate(labels)}
    graph = [[position[s] for s in succs[label] if s in position] for label in labels]
    none = [0] * len(blocks)                    # the machine IR has no phis: copies stand in for them
    backwards = list(range(len(blocks) - 1, -1, -1))     # reversed layout: most uses before defs
    in_bits, out_bits = solve(graph, use, kill, none, none, order=backwards)

    # each value's interval: the first and last position where it is live; the live sets add their
    # members' first (forward) and last (backward) appearances only, so no live set is walked member by
    # member (which grew with the square of the nesting depth under blockIP)
    events: list[tuple[int, int]] = []            # (position, live mask) in position order
    for k, start in enumerate(starts):
        events.append((start, in_bits[k]))
        events.append((max(start, start + len(blocks[k].instrs) - 1), out_bits[k]))
    seen = 0
    for at, mask in events:
        fresh = mask & ~seen
        if fresh:
            for i in set_bits(fresh):
                f = first[i]
                if f < 0 or f >= at:
                    first[i] = at
            seen |= mask
    seen = 0
    for at, mask in reversed(events):
        fresh = mask & ~seen
        if fresh:
            for i in set_bits(fresh):
                if last[i] <= at:
                    last[i] = at
            seen |= mask
    loops = []
    for k, b in enumerate(blocks):
        instrs = b.instrs
        if instrs:
            branch = instrs[-1]
            if branch.opcode in ("while", "jmpi") and branch.targets:
                head, back = starts[position[branch.targets[0]]], starts[k] + len(instrs) - 1
                if head <= back:
                    loops.append((head, back))
    if loops:
        _widen_for_loops(first, last, loops)
    return regs, first, last, labels, in_bits, out_bits


_ID = attrgetter("id")


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


def _widen_for_loops(first: list[int], last: list[int], loops: list[tuple[int, int]]) -> None:
    """For each backward branch [head, back] in layout order (`back` ascending), every interval (value i:
    first[i] to last[i]; first[i] < 0 for a value never live) with head < lo <= back < hi starts at head
    instead. Done without visiting every interval per loop (that was O(loops * values), quadratic in
    nesting depth): intervals wait in buckets by their start, and those ending at or before a loop's back
    edge leave for good, since later back edges lie further on."""
    buckets: dict[int, list[int]] = {}
    for i, lo in enumerate(first):
        if lo >= 0:
            if lo in buckets:
                buckets[lo].append(i)
            else:
                buckets[lo] = [i]
    keys = sorted(buckets)
    for head, back in loops:
        low, high = bisect.bisect_right(keys, head), bisect.bisect_right(keys, back)
        if low == high:
            continue
        moved = [i for key in keys[low:high] for i in buckets.pop(key) if last[i] > back]
        del keys[low:high]
        if not moved:
            continue
        for i in moved:
            first[i] = head
        if head in buckets:
            buckets[head].extend(moved)
        else:
            buckets[head] = moved
            bisect.insort(keys, head)
