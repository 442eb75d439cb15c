"""Simulator traces: the record of which lanes ran which instruction (Trace, the simulator's trace hook)
and the facts a lane picture is drawn from (timeline: one row per executed instruction of each thread;
block_entries: where a thread entered a labelled block). The drawing itself is tools.lane_picture's:
this layer stays free of any plotting library.

Rows: with a simulator Trace, a row is the workgroup's scheduling round (threads run one instruction per
round, so a thread waiting at a barrier leaves a gap); for a plain list of events it is the order of the
thread's own instructions.
"""
from __future__ import annotations

import bisect
from dataclasses import dataclass, field

import numpy as np

from . import opcodes
from .model import Instruction


@dataclass
class TraceEvent:
    thread: int
    address: int
    opcode: str
    mask: np.ndarray          # bool per lane of the thread's SIMD width: channels this instruction ran on
    simd: int
    we_all: bool = False
    time: int = 0             # scheduling round of the workgroup (threads run one instruction per round)
    predicated: bool = False  # a predicate narrowed `mask` (it may then be empty for a reason of its own)


class Trace:
    """A trace hook that records every executed instruction (use as `trace=Trace()`). A launcher that
    knows more fills in `labels` ({address: block name}, the Gen backend's blocks) and `about` (what was
    run: kernel, simd, cf, local_size, global_size, group), which pictures show."""

    def __init__(self) -> None:
        self.events: list[TraceEvent] = []
        self.time = 0
        self.labels: dict[int, str] = {}
        self.about: dict[str, object] = {}

    def new_round(self) -> None:
        """Called by the scheduler once per round, so pictures can align threads in time."""
        self.time += 1

    def __call__(self, tid: int, address: int, inst: Instruction, mask: np.ndarray) -> None:
        self.events.append(TraceEvent(tid, address, inst.opcode, mask.copy(), mask.size, inst.mask_ctrl_we_all,
                                      self.time, inst.predicate is not None))


CF_OPS = frozenset(opcodes.BRANCHES)
SEND_OPS = frozenset(opcodes.SENDS_ALL)
KINDS = ("alu", "cf", "send", "scalar")      # what a row's instruction is, in the order legends list them


def kind_of(opcode: str, we_all: bool) -> str:
    """Control flow and SENDs by opcode; any other instruction run with WE_all (NoMask) is scalar
    bookkeeping; the rest is ALU work on the enabled lanes."""
    if opcode in CF_OPS:
        return "cf"
    if opcode in SEND_OPS:
        return "send"
    return "scalar" if we_all else "alu"


@dataclass
class Step:
    """One executed instruction of one thread, as a picture row."""
    row: int
    address: int
    kind: str
    mask: np.ndarray


@dataclass
class BlockEntry:
    """A thread entering a labelled block at `row`. `first`: the thread's first entry into it (a picture
    must label it); later entries come back to the block after the thread left the loop it lies in."""
    row: int
    name: str
    first: bool


@dataclass
class Timeline:
    """A trace as rows per thread: `steps[thread]` in row order, `rows` the rows the longest thread
    spans, `lanes` the widest SIMD width, `max_address` the last instruction address seen."""
    steps: dict[int, list[Step]] = field(default_factory=dict)
    rows: int = 0
    lanes: int = 8
    max_address: int = 0
    labels: dict[int, str] = field(default_factory=dict)
    timed: bool = True           # rows are scheduling rounds (else each thread's own instruction count)


def _events(trace) -> list[tuple[int, int, str, np.ndarray, bool, int | None]]:
    """Normalise a Trace, a list of TraceEvent or of (thread, address, inst-or-opcode, mask) tuples."""
    out: list[tuple[int, int, str, np.ndarray, bool, int | None]] = []
    for e in getattr(trace, "events", trace):
        if isinstance(e, tuple):
            tid, addr, inst, mask = e
            out.append((tid, addr, str(getattr(inst, "opcode", inst)), np.asarray(mask, bool),
                        bool(getattr(inst, "mask_ctrl_we_all", False)), None))
        else:
            out.append((e.thread, e.address, e.opcode, np.asarray(e.mask, bool), bool(e.we_all),
                        getattr(e, "time", None)))
    return out


def timeline(trace) -> Timeline:
    """The rows of a trace (a Trace, TraceEvents or (thread, address, inst, mask) tuples)."""
    events = _events(trace)
    timed = bool(events) and all(e[5] is not None for e in events)
    t0 = min((e[5] for e in events if e[5] is not None), default=0)
    count: dict[int, int] = {}
    line = Timeline(labels=dict(getattr(trace, "labels", None) or {}), timed=timed)
    for tid, addr, opcode, mask, we_all, time in events:
        if timed:
            row = int(time or 0) - t0
        else:
            row = count.get(tid, 0)
            count[tid] = row + 1
        line.steps.setdefault(tid, []).append(Step(row, addr, kind_of(opcode, we_all), mask))
        line.rows = max(line.rows, row + 1)
        line.max_address = max(line.max_address, addr)
    line.lanes = max([e[3].size for e in events] or [8])
    if not line.steps:
        line.steps[0] = []
    return line


def block_entries(steps: list[Step], labels: dict[int, str]) -> list[BlockEntry]:
    """Where a thread enters a labelled block (a block runs from its label's address to the next label's),
    once per entry and not once per loop iteration: a jump backwards (from `hi` to `lo`) is the next
    iteration of the loop spanning lo..hi, and its blocks keep the label of their first entry until the
    thread leaves that loop (forwards past hi, or backwards before lo by an outer loop's next iteration);
    entering them after that is a new entry. A block's first entry in the thread has first=True."""
    starts = sorted(labels)
    entries: list[BlockEntry] = []
    labelled: set[int] = set()         # blocks whose entry is labelled and whose loop the thread has not left
    ever: set[int] = set()
    loops: list[list[int]] = []        # the loops the thread is in, [lo, hi], innermost last
    current: int | None = None
    previous: int | None = None

    def leave(loop: list[int]) -> None:
        labelled.difference_update([b for b in labelled if loop[0] <= b <= loop[1]])

    for step in steps:
        at = bisect.bisect_right(starts, step.address) - 1
        block = starts[at] if at >= 0 else None
        backwards = previous is not None and step.address <= previous
        if previous is not None and backwards:
            lo, hi = step.address, previous
            while loops and loops[-1][0] > lo:                    # an outer loop's next iteration
                leave(loops.pop())
            if loops and loops[-1][0] == lo:
                loops[-1][1] = max(loops[-1][1], hi)
            else:
                loops.append([lo, hi])
        else:
            while loops and loops[-1][1] < step.address:          # left forwards
                leave(loops.pop())
        if block is not None and (block != current or backwards) and block not in labelled:
            entries.append(BlockEntry(step.row, labels[block], block not in ever))
            labelled.add(block)
            ever.add(block)
        current, previous = block, step.address
    return entries
