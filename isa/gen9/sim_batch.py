"""The batched simulator: every hardware thread of a dispatch at once, each instruction decoded once.

Why: the one-thread simulator (simulator.Thread) re-reads each instruction's fields on every step and runs
one thread at a time, so numpy's per-call overhead is paid per thread-instruction (about 230 us each, most
of it in operand decoding and flag packing: cProfile of the corpus). Here each instruction becomes a plan
on first execution (operand regions as element-index arrays, masks and flags as whole-batch array
operations) and a plan runs for every thread waiting at its address together: the register file, flags,
accumulator, a0, execution and resume masks are arrays with the thread as their first dimension.

Semantics are simulator.Thread's (its docstring has the model); the ALU values are sim_alu's, called on the
lanes of all threads flattened. What differs is only the interleaving of threads: the scheduler runs the
threads at the lowest address together (threads that diverge meet again where the lower ones arrive),
instead of one instruction per thread per round. Programs whose threads communicate only through barriers
and atomics end with the same memory (the values atomics return may come in another order when threads
reach them at different times); within one instruction, memory effects still happen in the one-thread
order (work-group, then thread, then channel, byte and lane; atomics lane by lane), so threads in step
see exactly what the round-robin simulator shows. Errors name the first thread in that order.
Operand, mask, ALU and branch plans are in sim_batch_ops, message plans in sim_batch_send; both decode
through the modules the one-thread simulator uses (sim_operands, sim_messages.message_form, sim_control).

A thread's barrier waits until every live thread of its work-group has sent one; work-groups of one batch
have their own SLM and scratch space.
"""
from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any, Callable

import numpy as np

from . import sim_alu
from .model import Instruction, instruction_size, layout
from .registers import (
    GRF_SIZE,
    NUM_GRF,
)
from .sim_batch_ops import (
    BRANCHES,
    SENDS,
    Rows,
    ThreadFault,
    alu_plan,
    branch_plan,
    channels_of,
    enabled_lanes,
    predicate_reader,
)
from .sim_batch_send import send_plan
from .sim_control import ControlError
from .sim_memory import Memory, OutOfBounds
from .sim_messages import MessageError
from .sim_operands import check_a0
from .simulator import NO_OPS, MemoryFault, SimulationError, StepLimit, Thread, Workgroup


@dataclass
class ThreadCounts:
    """What a finished thread reports (simulator.Thread has the same fields)."""
    tid: int
    steps: int
    lane_steps: int
    branches: int
    sends: int
    done: bool = True


@dataclass
class GroupResult:
    """A finished work-group as on_group callbacks see it: its threads' counts."""
    group: tuple[int, int, int]
    threads: list[ThreadCounts] = field(default_factory=list)


class Batch:
    """The state of `threads` hardware threads of `groups` work-groups (thread t is in group t // per_group)."""

    def __init__(self, program: list[Instruction], simd: int, groups: int, per_group: int, memory: Memory,
                 dispatch_masks: list[int], max_steps: int):
        self.program, self.simd, self.memory, self.max_steps = program, simd, memory, max_steps
        t = groups * per_group
        self.threads, self.per_group = t, per_group
        self.addresses = layout(program)
        self.index = {a: i for i, a in enumerate(self.addresses)}
        self.end = self.addresses[-1] + instruction_size(program[-1]) if program else 0
        self.grf = np.zeros((t, NUM_GRF * GRF_SIZE), np.uint8)
        self.fbits = np.zeros((t, 64), bool)          # f0.0 f0.1 f1.0 f1.1, 16 channel bits each
        self.acc_i = np.zeros((t, 64), np.int64)
        self.acc_f = np.zeros((t, 64), np.float64)
        self.a0 = np.zeros((t, 32), np.uint8)
        self.storage = {"grf": self.grf, "a0": self.a0}
        self._views: dict[tuple[str, type], np.ndarray] = {}
        lanes = np.array([[(m >> c) & 1 for c in range(32)] for m in dispatch_masks], bool)
        lanes[:, simd:] = False
        self.em = np.tile(lanes, (groups, 1))
        self.resume: dict[int, np.ndarray] = {}
        self.ip = np.zeros(t, np.int64)
        self.steps = np.zeros(t, np.int64)
        self.lane_steps = np.zeros(t, np.int64)
        self.branches = np.zeros(t, np.int64)
        self.sends = np.zeros(t, np.int64)
        self.done = np.zeros(t, bool)
        self.at_barrier = np.zeros(t, bool)
        self.group_of = np.arange(t) // per_group
        self.tid = np.arange(t) % per_group
        self.slm = np.zeros((groups, memory.slm_bytes), np.uint8)
        self.scratch = np.zeros((groups, per_group * memory.scratch_bytes), np.uint8)
        self.trace: Callable | None = None           # simulator.Trace-like hook (run_threads gives one)

    def emit(self, rows: Rows, addr: int, inst: Instruction, mask: np.ndarray) -> None:
        """Trace each thread's run of `inst` on its lanes mask[k] (simulator.Thread._lane_view)."""
        assert self.trace is not None
        g = channels_of(inst)
        stop = min(g.stop, self.simd)
        for k, row in enumerate(rows.idx):
            view = np.zeros(self.simd, bool)
            if g.start < stop:
                view[g.start:stop] = mask[k, :stop - g.start]
            self.trace(int(self.tid[row]), addr, inst, view)

    def view(self, name: str, dtype) -> np.ndarray:
        key = (name, dtype)
        v = self._views.get(key)
        if v is None:
            v = self._views[key] = self.storage[name].view(dtype)
        return v

    def a0_word(self, rows: Rows, subreg: int) -> np.ndarray:
        check_a0(subreg)
        return self.a0.view(np.uint16)[rows.at, subreg].astype(np.int64)

    def goto(self, rows: Rows, target: int) -> None:
        self.ip[rows.at] = target
        self.merge(rows, target)

    def merge(self, rows: Rows, target: int) -> bool:
        """Give the threads the channels parked at `target` (they arrive there); False: none were parked."""
        rm = self.resume.get(target)
        if rm is None:
            return False
        self.em[rows.at] |= rm[rows.at]
        rm[rows.at] = False
        if not rm.any():
            del self.resume[target]
        return True

    def park(self, target: int, rows: Rows, g: slice, lanes: np.ndarray) -> None:
        if lanes.any():
            rm = self.resume.get(target)
            if rm is None:
                rm = self.resume[target] = np.zeros((self.threads, 32), bool)
            rm[rows.at, g] |= lanes

# ---- the scheduler ----------------------------------------------------------------------------------

STRAIGHT, SEND, BRANCH = 0, 1, 2                 # plan kinds: the scheduler moves STRAIGHT ones to the next address


class Runner:
    """Runs a Batch to the end: the threads at the lowest address step together.

    Why it runs a group of threads on as far as it can alone (_group) instead of choosing the lowest address
    before every instruction: choosing costs whole-batch numpy calls, while a group keeps the lowest address
    until it reaches another thread's address, diverges, ends or waits, and its instruction and lane counts
    only change by the instructions it ran until its execution mask changes (counted once then)."""

    def __init__(self, st: Batch, group_ids: list[tuple[int, int, int]]):
        self.st = st
        self.group_ids = group_ids
        self.plans: dict[int, tuple[Callable[[Batch, Rows], object], int, int]] = {}     # by address
        self.blocked = False                    # some thread has ended or waits at a barrier
        self.count = max(int(st.steps.max()), 0) if st.threads else 0     # steps so far (run_threads may start later)

    def _make(self, inst: Instruction, addr: int) -> tuple[Callable[[Batch, Rows], object], int, int]:
        """(plan, next address, kind): a BRANCH plan returns the next address(es), a SEND plan its status."""
        op = inst.opcode
        nxt = addr + instruction_size(inst)
        st = self.st
        if op in BRANCHES:
            branch = branch_plan(inst, addr, st)

            def run_branch(st: Batch, rows: Rows) -> np.ndarray | int:
                st.branches[rows.at] += 1
                if st.trace is not None:
                    st.emit(rows, addr, inst, enabled_lanes(st, rows, inst, channels_of(inst)))
                dest = branch(st, rows)
                assert dest is not None
                return dest
            return run_branch, nxt, BRANCH
        if op in SENDS:
            send = send_plan(inst, addr, st)
            g = channels_of(inst)
            pred_fn = predicate_reader(inst)

            def run_send(st: Batch, rows: Rows) -> str | None:
                st.sends[rows.at] += 1
                mask = enabled_lanes(st, rows, inst, g)
                if pred_fn is not None:
                    mask = mask & pred_fn(st, rows)
                if st.trace is not None:
                    st.emit(rows, addr, inst, mask)
                status = send(st, rows, mask)
                return "eot" if inst.eot else status
            return run_send, nxt, SEND
        if op in NO_OPS:                                                  # nop, wait, illegal
            def run_nop(st: Batch, rows: Rows) -> None:
                if st.trace is not None:
                    st.emit(rows, addr, inst, enabled_lanes(st, rows, inst, channels_of(inst)))
            return run_nop, nxt, STRAIGHT
        return alu_plan(inst, addr), nxt, STRAIGHT

    def ended(self, rows: Rows) -> None:
        """Threads reached a barrier or ended: release each of their groups whose live threads all wait."""
        st = self.st
        self.blocked = True
        for grp in sorted(set(st.group_of[rows.at].tolist())):
            sl = slice(grp * st.per_group, (grp + 1) * st.per_group)
            live = ~st.done[sl]
            if not live.any() or not st.at_barrier[sl][live].all():
                continue
            if not live.all():
                raise SimulationError("barrier reached after some threads of the group ended (hang)")
            st.at_barrier[sl] = False

    def run(self) -> None:
        with np.errstate(all="ignore"):         # as sim_alu's computations run; set once, not per instruction
            self._run()

    def _run(self) -> None:
        st = self.st
        big = np.iinfo(np.int64).max
        while True:
            ips = np.where(st.done | st.at_barrier, big, st.ip) if self.blocked else st.ip
            at = int(ips.min())
            if at == big:
                if st.done.all():
                    return
                raise SimulationError("every live thread waits at a barrier (hang)")
            here = ips == at
            rows = Rows(np.flatnonzero(here))
            others = int(ips[~here].min()) if rows.size < st.threads else big
            self._group(at, rows, others)

    def _group(self, at: int, rows: Rows, others: int) -> None:
        """Run the threads `rows`, all at address `at`, while they stay below `others` (the lowest address of
        the other runnable threads) together; they leave st.ip and their counts up to date."""
        st = self.st
        index, plans, end, limit, simd = st.index, self.plans, st.end, st.max_steps, st.simd
        new_round = getattr(st.trace, "new_round", None)
        lanes = st.em[rows.at, :simd].sum(axis=1)
        pending = 0                              # instructions run since the counts were last written
        own_ip = True                            # st.ip of the rows is `at` (False: a plan has set it)
        try:
            while True:
                if at == end:
                    st.done[rows.at] = True
                    self.ended(rows)
                    return
                plan = plans.get(at)
                if plan is None:
                    i = index.get(at, -1)
                    if i < 0:
                        tid = int(st.tid[rows.idx[0]])
                        raise SimulationError(f"thread {tid}: jump to {at:#x}, not an instruction address")
                    plan = plans[at] = self._make(st.program[i], at)
                fn, nxt, kind = plan
                pending += 1
                self.count += 1                  # no thread has run more instructions than the batch steps
                if self.count > limit:
                    st.steps[rows.at] += pending
                    st.lane_steps[rows.at] += pending * lanes
                    pending = 0
                    self._check_limit(rows)
                if kind == BRANCH:
                    st.steps[rows.at] += pending     # the branch counts with the lanes it starts with
                    st.lane_steps[rows.at] += pending * lanes
                    pending = 0
                    dest: Any = fn(st, rows)
                    if new_round is not None:
                        new_round()
                    if not isinstance(dest, (int, np.integer)):
                        first = int(dest[0])
                        if not (dest == first).all():
                            own_ip = False
                            _move(st, rows, dest)
                            return
                        dest = first
                    at = int(dest)
                    st.merge(rows, at)
                    lanes = st.em[rows.at, :simd].sum(axis=1)
                else:
                    status = fn(st, rows)
                    if new_round is not None:
                        new_round()
                    if status is not None:           # a SEND that ends the thread or waits at a barrier
                        if status == "eot":
                            st.done[rows.at] = True
                            self.ended(rows)
                            return
                        st.at_barrier[rows.at] = True
                        self.ended(rows)
                        at = nxt
                        st.merge(rows, at)
                        return
                    at = nxt
                    if at in st.resume:
                        st.steps[rows.at] += pending
                        st.lane_steps[rows.at] += pending * lanes
                        pending = 0
                        if st.merge(rows, at):
                            lanes = st.em[rows.at, :simd].sum(axis=1)
                if at >= others:
                    return
        except ThreadFault as f:
            self._raise(f.error, int(rows.idx[f.row]), at, st.program[index[at]])
        except (OutOfBounds, sim_alu.AluError, MessageError, ControlError) as e:
            self._raise(e, int(rows.idx[0]), at, st.program[index[at]])
        finally:
            if pending:
                st.steps[rows.at] += pending
                st.lane_steps[rows.at] += pending * lanes
            if own_ip:
                st.ip[rows.at] = at

    def _check_limit(self, rows: Rows) -> None:
        st = self.st
        steps = st.steps[rows.at]
        if steps.max() > st.max_steps:
            over = rows.idx[steps > st.max_steps]
            tid = int(st.tid[over[0]])
            err = StepLimit(f"thread {tid}: no end after {st.max_steps} instructions", tid, st.max_steps)
            err.group = self.group_ids[int(st.group_of[over[0]])]
            raise err

    def _raise(self, e: Exception, row: int, at: int, inst: Instruction) -> None:
        tid = int(self.st.tid[row])
        text = f"thread {tid} at {at:#x} ({inst.opcode}): {e}"
        if isinstance(e, OutOfBounds):
            fault = MemoryFault(text, e, tid, at, inst)
            fault.group = self.group_ids[int(self.st.group_of[row])]
            raise fault from None
        if isinstance(e, SimulationError):
            raise e
        raise SimulationError(text) from None

    def results(self) -> list[GroupResult]:
        st = self.st
        out = []
        for k, gid in enumerate(self.group_ids):
            res = GroupResult(gid)
            for t in range(k * st.per_group, (k + 1) * st.per_group):
                res.threads.append(ThreadCounts(int(st.tid[t]), int(st.steps[t]), int(st.lane_steps[t]),
                                                int(st.branches[t]), int(st.sends[t]), bool(st.done[t])))
            out.append(res)
        return out


def _move(st: Batch, rows: Rows, nxt: np.ndarray) -> None:
    """Send each thread to its next address, merging the channels parked there (simulator.Thread.goto)."""
    for t in sorted(set(nxt.tolist())):
        st.goto(Rows(rows.idx[nxt == t]), int(t))


def run_threads(threads: list[Thread], trace: Callable | None = None) -> None:
    """Run one work-group of one-thread simulator threads (simulator.Thread, registers set up by the caller)
    to the end in the batched engine, and leave their final state in them as Thread.run would. `trace` gets
every thread's instructions; its rounds (new_round) are the batch's steps, not one instruction per thread."""
    if not threads:
        return
    first = threads[0]
    masks = [int(np.packbits(th.dispatch.astype(np.uint8), bitorder="little").view("<u4")[0]) for th in threads]
    st = Batch(first.program, first.simd, 1, len(threads), first.memory, masks, max(th.max_steps for th in threads))
    st.slm = first.slm.reshape(1, -1)                        # shared with the threads: writes land there
    st.scratch = first.scratch_space.reshape(1, -1)
    for k, th in enumerate(threads):
        st.grf[k], st.acc_i[k], st.acc_f[k], st.a0[k] = th.grf, th.acc_i, th.acc_f, th.address_reg
        st.fbits[k] = th.flag_bits()
        st.em[k], st.ip[k], st.steps[k], st.tid[k] = th.em, th.ip, th.steps, th.tid
    st.trace = trace
    runner = Runner(st, [(0, 0, 0)])
    try:
        runner.run()
    finally:
        for k, th in enumerate(threads):
            th.grf[:], th.acc_i[:], th.acc_f[:], th.address_reg[:] = st.grf[k], st.acc_i[k], st.acc_f[k], st.a0[k]
            th.set_flag_bits(st.fbits[k])
            th.em[:], th.ip, th.steps = st.em[k], int(st.ip[k]), int(st.steps[k])
            th.lane_steps, th.branches, th.sends = int(st.lane_steps[k]), int(st.branches[k]), int(st.sends[k])
            th.done = bool(st.done[k])
            th.fell_off_end = th.done and th.ip == st.end
            th.resume = {a: rm[k].copy() for a, rm in st.resume.items() if rm[k].any()}


def run_workgroup(wg: Workgroup) -> list[Thread]:
    """Workgroup.run, with the threads stepping together in the batched engine: the same final state; a
    trace's rounds are the batch's steps."""
    run_threads(wg.threads, wg.trace)
    return wg.threads
