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
and atomics cannot tell; within one instruction, memory effects still happen in the one-thread order
(work-group, then thread, then channel, then lane; atomics lane by lane), so threads in step see exactly
what the round-robin simulator shows. Errors name the first thread in that order.

A thread's barrier waits until every live thread of its work-group has sent one; work-groups of one batch
have their own SLM and scratch space.
"""
from __future__ import annotations

from dataclasses import dataclass, field
from typing import Callable

import numpy as np

from . import opcodes, sim_alu
from .messages import (
    BTI_SLM,
    BTI_STATELESS,
    DC0_BYTE_SCATTERED_READ,
    DC0_BYTE_SCATTERED_WRITE,
    DC0_MEMORY_FENCE,
    DC1_A64_SCATTERED_READ,
    DC1_A64_SCATTERED_WRITE,
    DC1_A64_UNTYPED_SURFACE_READ,
    DC1_A64_UNTYPED_SURFACE_WRITE,
    DC1_UNTYPED_ATOMIC_OP,
    DC1_UNTYPED_SURFACE_READ,
    DC1_UNTYPED_SURFACE_WRITE,
    GATEWAY_BARRIER,
    SCRATCH_BIT,
    SCRATCH_WRITE_BIT,
    SFID_DC0,
    SFID_DC1,
    SFID_GATEWAY,
    SFID_NULL,
    SFID_THREAD_SPAWNER,
    _bits,
)
from .model import DataType, Instruction, Operand, RegFile, instruction_size, layout
from .registers import (
    ARF_ACC,
    ARF_ADDRESS,
    ARF_CONTROL,
    ARF_FLAG,
    ARF_IP,
    ARF_MASK,
    ARF_NOTIFICATION,
    ARF_NULL,
    ARF_STATE,
    ARF_TIMESTAMP,
    GRF_SIZE,
    NUM_GRF,
)
from .sim_control import ControlError, signed32
from .sim_memory import Memory, OutOfBounds
from .sim_messages import MessageError, _atomic, _byte_size, _untyped_channels, decode
from .simulator import NO_OPS, MemoryFault, SimulationError, StepLimit, _pred_group, _unsigned_64

BRANCHES = frozenset(opcodes.BRANCHES)
SENDS = frozenset(opcodes.SENDS_ALL)
_PACKED = {DataType.V: DataType.W, DataType.UV: DataType.UW, DataType.VF: DataType.F}
_UINT = {1: np.uint8, 2: np.uint16, 4: np.uint32, 8: np.uint64}

Rows = np.ndarray                               # int64 indices of the threads a plan runs on
Plan = Callable[["Batch", Rows], "np.ndarray | int | None"]   # returns the next address(es); None: no move


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


class _Fault(Exception):
    """An error of one thread of a batch: `row` which thread; `error` what (OutOfBounds or a message)."""

    def __init__(self, row: int, error: Exception):
        super().__init__(str(error))
        self.row, self.error = row, error


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
        self.flags = np.zeros((t, 8), np.uint8)
        self.acc_i = np.zeros((t, 64), np.int64)
        self.acc_f = np.zeros((t, 64), np.float64)
        self.a0 = np.zeros((t, 32), np.uint8)
        self.storage = {"grf": self.grf, "flag": self.flags, "a0": self.a0}
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

    def view(self, name: str, dtype) -> np.ndarray:
        key = (name, dtype)
        v = self._views.get(key)
        if v is None:
            v = self._views[key] = self.storage[name].view(dtype)
        return v

    def a0_word(self, rows: Rows, subreg: int) -> np.ndarray:
        if not 0 <= subreg < 16:
            raise SimulationError(f"a0.{subreg} out of range")
        return self.a0.view(np.uint16)[rows, subreg].astype(np.int64)

    def goto(self, rows: Rows, target: int) -> None:
        self.ip[rows] = target
        rm = self.resume.get(target)
        if rm is not None:
            self.em[rows] |= rm[rows]
            rm[rows] = False

    def park(self, target: int, rows: Rows, g: slice, lanes: np.ndarray) -> None:
        if lanes.any():
            rm = self.resume.get(target)
            if rm is None:
                rm = self.resume[target] = np.zeros((self.threads, 32), bool)
            rm[rows, g] |= lanes


# ---- operands ---------------------------------------------------------------------------------------

def _masked_set(arr: np.ndarray, rows: Rows, cols: np.ndarray, values: np.ndarray, mask: np.ndarray) -> None:
    """arr[rows[b], cols[i]] = values[b, i] where mask[b, i], in (b, i) order (a later lane wins)."""
    if mask.all():
        arr[rows[:, None], cols] = values
    else:
        b, i = np.nonzero(mask)
        arr[rows[b], cols[i]] = values[b, i]


def _region_offsets(op: Operand, n: int, inst: Instruction) -> np.ndarray:
    """Byte offsets of a direct source's n elements from its first (simulator.Thread._src_offsets)."""
    size = op.type.size
    i = np.arange(n)
    if inst.align16:
        if op.rep_ctrl:
            return np.zeros(n, np.int64)
        swz = np.array(["xyzw".index(c) for c in (op.swizzle or "xyzw")], np.int64)
        return ((i // 4) * 4 + swz[i % 4]) * size
    r = op.region
    if r is None:
        return np.zeros(n, np.int64) if n == 1 else i * size
    width = max(1, r.width)
    return ((i // width) * r.vstride + (i % width) * r.hstride) * size


def _direct_storage(op: Operand) -> tuple[str, int, int]:
    """(storage name, base byte offset, storage size) of a direct register operand."""
    size = op.type.size
    if op.file == RegFile.GRF:
        if not 0 <= op.reg < NUM_GRF:
            raise SimulationError(f"register r{op.reg} out of range")
        return "grf", op.reg * GRF_SIZE + op.subreg * size, NUM_GRF * GRF_SIZE
    if op.file == RegFile.ARF:
        kind = op.reg & 0xF0
        if kind == ARF_FLAG:
            return "flag", (op.reg & 0xF) * 4 + op.subreg * size, 8
        if kind == ARF_ADDRESS:
            return "a0", op.subreg * size, 32
    raise SimulationError(f"operand {op.file.value} {op.reg:#x} has no byte storage")


def _dtype(t: DataType):
    dtype = sim_alu.NP_TYPE.get(t)
    if dtype is None:
        raise SimulationError(f"source type {t.value} is not modelled")
    return dtype


def source_reader(op: Operand, n: int, inst: Instruction) -> Callable[[Batch, Rows], np.ndarray]:
    """A function giving n lanes of a source in its own type for each thread of a batch: [threads, n]."""
    if op.file == RegFile.IMM:
        imm = sim_alu.decode_immediate(op.value, op.type, n)
        tiled: dict[int, np.ndarray] = {}          # by thread count; readers' results are only read

        def immediate(st: Batch, rows: Rows) -> np.ndarray:
            hit = tiled.get(rows.size)
            if hit is None:
                hit = tiled[rows.size] = np.tile(imm, (rows.size, 1))
            return hit
        return immediate
    dtype = _dtype(op.type)
    size = op.type.size
    if op.file == RegFile.ARF:
        kind = op.reg & 0xF0
        if kind == ARF_NULL or kind in (ARF_STATE, ARF_CONTROL, ARF_NOTIFICATION, ARF_IP):
            return lambda st, rows: np.zeros((rows.size, n), dtype)
        if kind == ARF_ACC:
            idx = ((op.reg & 0xF) * 8 + op.subreg + _region_offsets(op, n, inst) // size) % 64
            if sim_alu.is_float(op.type):
                return lambda st, rows: st.acc_f[rows[:, None], idx].astype(dtype)
            return lambda st, rows: sim_alu.convert(st.acc_i[rows[:, None], idx], op.type, False)
        if kind == ARF_MASK:                            # ce0: channel enables of each thread
            def ce0(st: Batch, rows: Rows) -> np.ndarray:
                bits = np.packbits(st.em[rows].astype(np.uint8), axis=1, bitorder="little").view("<u4")
                return np.repeat(bits.astype(np.uint64), n, axis=1).astype(dtype)
            return ce0
        if kind == ARF_TIMESTAMP:
            return lambda st, rows: np.repeat(st.steps[rows, None].astype(np.uint64), n, axis=1).astype(dtype)
    if op.indirect:
        if op.file != RegFile.GRF:
            raise SimulationError("indirect addressing of an ARF is not modelled")
        return _indirect_reader(op, n, inst, dtype)
    name, base, extent = _direct_storage(op)
    offs = base + _region_offsets(op, n, inst)
    if offs.min() < 0 or offs.max() + size > extent:
        raise SimulationError(f"source region of r{op.reg} leaves the register file")
    if (offs % size).any():
        index = offs[:, None] + np.arange(size)
        return lambda st, rows: st.storage[name][rows[:, None, None], index].view(dtype).reshape(rows.size, n)
    elem = offs // size
    return lambda st, rows: st.view(name, dtype)[rows[:, None], elem]


def _indirect_reader(op: Operand, n: int, inst: Instruction, dtype) -> Callable[[Batch, Rows], np.ndarray]:
    size = op.type.size
    r = op.region
    i = np.arange(n)
    vx1 = r is not None and r.vstride < 0
    rel = None if vx1 else _region_offsets(op, n, inst)
    limit = NUM_GRF * GRF_SIZE

    def read(st: Batch, rows: Rows) -> np.ndarray:
        first = st.a0_word(rows, op.addr_subreg)
        if vx1:
            assert r is not None
            width = max(1, r.width)
            words = np.stack([st.a0_word(rows, op.addr_subreg + k) - first for k in range((n + width - 1) // width)],
                             axis=1)
            offs = first[:, None] + op.addr_imm + words[:, i // width] + (i % width) * r.hstride * size
        else:
            offs = first[:, None] + op.addr_imm + rel
        if offs.min() < 0 or offs.max() + size > limit:
            raise SimulationError(f"source region of r{op.reg} leaves the register file")
        index = offs[:, :, None] + np.arange(size)
        return np.ascontiguousarray(st.grf[rows[:, None, None], index]).view(dtype).reshape(rows.size, n)
    return read


def dest_writer(op: Operand, n: int, inst: Instruction) -> Callable[[Batch, Rows, np.ndarray, np.ndarray], None]:
    """A function writing typed values [threads, n] to the lanes set in a mask [threads, n]."""
    if op.file == RegFile.ARF:
        kind = op.reg & 0xF0
        if kind == ARF_NULL or kind in (ARF_NOTIFICATION, ARF_IP, ARF_CONTROL, ARF_STATE):
            return lambda st, rows, values, mask: None
        if kind == ARF_ACC:
            idx = ((op.reg & 0xF) * 8 + op.subreg + np.arange(n) * max(op.hstride, 1)) % 64
            floaty = sim_alu.is_float(op.type)

            def acc(st: Batch, rows: Rows, values: np.ndarray, mask: np.ndarray) -> None:
                _masked_set(st.acc_f, rows, idx, values.astype(np.float64), mask)
                if floaty:
                    with np.errstate(invalid="ignore"):
                        _masked_set(st.acc_i, rows, idx, np.nan_to_num(values).astype(np.int64), mask)
                else:
                    _masked_set(st.acc_i, rows, idx, values.astype(np.int64), mask)
            return acc
    dtype = sim_alu.NP_TYPE[op.type] if op.type in sim_alu.NP_TYPE else None
    size = op.type.size
    lanes = None
    if inst.align16:
        i = np.arange(n)
        step = size
        lanes = np.array(["xyzw"[k] in (op.writemask or "xyzw") for k in range(4)])[i % 4]
    else:
        step = max(op.hstride, 0) * size
    if op.indirect:
        if op.file != RegFile.GRF:
            raise SimulationError("indirect addressing of an ARF is not modelled")
        rel = np.arange(n) * step

        def indirect(st: Batch, rows: Rows, values: np.ndarray, mask: np.ndarray) -> None:
            offs = st.a0_word(rows, op.addr_subreg)[:, None] + op.addr_imm + rel
            if offs.min() < 0 or offs.max() + size > NUM_GRF * GRF_SIZE:
                raise SimulationError(f"destination region of r{op.reg} leaves the register file")
            m = mask & lanes if lanes is not None else mask
            raw = np.ascontiguousarray(values.astype(sim_alu.NP_TYPE[op.type])).view(np.uint8)
            raw = raw.reshape(rows.size, n, size)
            b, k = np.nonzero(m)
            index = offs[b, k][:, None] + np.arange(size)
            st.grf[rows[b][:, None], index] = raw[b, k]
        return indirect
    name, base, extent = _direct_storage(op)
    offs = base + np.arange(n) * step
    if offs.min() < 0 or offs.max() + size > extent:
        raise SimulationError(f"destination region of r{op.reg} leaves the register file")
    if dtype is None:
        raise sim_alu.AluError(f"destination type {op.type.value} is not modelled")
    elem = offs // size

    def write(st: Batch, rows: Rows, values: np.ndarray, mask: np.ndarray) -> None:
        m = mask & lanes if lanes is not None else mask
        _masked_set(st.view(name, dtype), rows, elem, values.astype(dtype, copy=False), m)
    return write


# ---- masks ------------------------------------------------------------------------------------------

def _channels(inst: Instruction) -> slice:
    m, n = inst.chan_offset, inst.exec_size
    if m + n > 32:
        raise SimulationError(f"channels M{m}+{n} exceed 32")
    return slice(m, m + n)


def predicate_reader(inst: Instruction) -> Callable[[Batch, Rows], np.ndarray] | None:
    """Per-channel predicate values [threads, exec_size] (simulator.Thread.predicate); None: no predicate."""
    pred = inst.predicate
    if pred is None:
        return None
    n, m = inst.exec_size, inst.chan_offset
    base = pred.flag_reg * 32 + pred.flag_subreg * 16
    grp = _pred_group(pred.control)
    ch = m + np.arange(n)
    inverse = pred.inverse
    if grp is None:
        idx = base + ch
        if idx.max() >= 64:
            raise SimulationError("predicate reads past f1")

        def normal(st: Batch, rows: Rows) -> np.ndarray:
            bits: np.ndarray = np.unpackbits(st.flags[rows], axis=1, bitorder="little")[:, idx].astype(bool)
            return ~bits if inverse else bits
        return normal
    kind, size = grp
    if n == 1 and inst.opcode == "jmpi":
        ch = np.array([m])
    window = base + ((ch // size) * size)[:, None] + np.arange(size)
    if window.max() >= 64:
        raise SimulationError("predicate reads past f1")

    def grouped(st: Batch, rows: Rows) -> np.ndarray:
        bits: np.ndarray = np.unpackbits(st.flags[rows], axis=1, bitorder="little")[:, window].astype(bool)
        val = np.any(bits, axis=2) if kind == "any" else np.all(bits, axis=2)
        return ~val if inverse else val
    return grouped


def _enabled(st: Batch, rows: Rows, inst: Instruction, g: slice) -> np.ndarray:
    if inst.mask_ctrl_we_all:
        return np.ones((rows.size, inst.exec_size), bool)
    return st.em[rows, g]


def _write_flags(st: Batch, rows: Rows, inst: Instruction, values: np.ndarray, mask: np.ndarray) -> None:
    """Conditional-modifier flag update of the enabled channels only (values, mask: [threads, n])."""
    base = inst.flag_reg * 32 + inst.flag_subreg * 16
    idx = base + inst.chan_offset + np.arange(inst.exec_size)
    if idx.max() >= 64:
        raise SimulationError("conditional modifier writes past f1")
    bits = np.unpackbits(st.flags[rows], axis=1, bitorder="little")
    sub = bits[:, idx]
    bits[:, idx] = np.where(mask, values, sub)
    st.flags[rows] = np.packbits(bits, axis=1, bitorder="little")


# ---- ALU --------------------------------------------------------------------------------------------

def alu_plan(inst: Instruction, addr: int) -> Callable[[Batch, Rows], int]:
    """simulator.Thread._alu for a batch: lanes of every thread flattened through sim_alu."""
    op = inst.opcode
    n = inst.exec_size
    g = _channels(inst)
    if op != "math" and len(inst.srcs) == 0:
        raise SimulationError(f"{op} without sources")
    logic = op in sim_alu.LOGIC_OPS
    types = [_PACKED.get(s.type, s.type) for s in inst.srcs]
    readers = [source_reader(s, n, inst) for s in inst.srcs]
    mods = [(s.abs, s.neg) for s in inst.srcs]
    floaty = any(sim_alu.is_float(t) for t in types)
    pred_fn = predicate_reader(inst)
    sel_plain = op == "sel" and inst.cond_mod is None
    dst = inst.dst
    nxt = addr + instruction_size(inst)
    if op == "cmp" and inst.cond_mod is None:
        raise SimulationError("cmp without a conditional modifier")
    if op not in ("cmp", "sel") and op not in sim_alu.HANDLERS:
        raise sim_alu.AluError(f"opcode {op!r} is not modelled")
    if op != "cmp" and dst is None:
        raise SimulationError(f"{op} without a destination")
    null = dst is None or (dst.file == RegFile.ARF and dst.reg == ARF_NULL)
    write = dest_writer(dst, n, inst) if dst is not None and not null else None
    # the type a result is converted to (a null destination: the execution type, simulator.Thread._finish)
    t = dst.type if dst is not None else DataType.D
    if null and op != "cmp":
        src_t = next((s.type for s in inst.srcs if sim_alu.is_float(s.type)), None) if floaty else None
        t = src_t or (t if t in sim_alu.NP_TYPE else DataType.D)
    acc_write = None
    if (op not in ("cmp", "mach") and inst.acc_wr_en and dst is not None
            and not (dst.file == RegFile.ARF and dst.reg & 0xF0 == ARF_ACC)):
        acc_write = dest_writer(Operand(RegFile.ARF, t, ARF_ACC), n, inst)
    mach_acc = dest_writer(Operand(RegFile.ARF, DataType.UD, ARF_ACC), n, inst) if op == "mach" else None

    def run(st: Batch, rows: Rows) -> int:
        b = rows.size
        en = _enabled(st, rows, inst, g)
        pred = pred_fn(st, rows) if pred_fn is not None else None
        mask = en if sel_plain or pred is None else en & pred
        xs = [sim_alu.apply_modifiers(sim_alu.widen(r(st, rows).reshape(-1), ty), ty, a, ng, logic)
              for r, ty, (a, ng) in zip(readers, types, mods)]
        if floaty:
            xs = [x.astype(np.float64) for x in xs]
        if op == "cmp":
            x0, x1 = _unsigned_64(xs[:2], types)
            flag_val = sim_alu.compare(x0, x1, inst.cond_mod or "")
            if flag_val is None:
                raise SimulationError(f"cmp.{inst.cond_mod} is not modelled")
            flag_val = flag_val.reshape(b, n)
            if write is not None and dst is not None:
                size = dst.type.size
                uint = np.dtype(f"<u{size}")
                raw = np.where(flag_val, uint.type(np.iinfo(uint).max), uint.type(0)).astype(uint)
                write(st, rows, raw.view(sim_alu.NP_TYPE[dst.type]), mask)
            _write_flags(st, rows, inst, flag_val, mask)
            return nxt
        if op == "sel":
            if inst.cond_mod is None:
                choose0 = pred.reshape(-1) if pred is not None else np.ones(b * n, bool)
            else:
                a, bb = xs[0], xs[1]
                ua, ub = _unsigned_64([a, bb], types)
                c = sim_alu.compare(ua, ub, inst.cond_mod)
                if c is None:
                    raise SimulationError(f"sel.{inst.cond_mod} is not modelled")
                if floaty:
                    c = np.where(np.isnan(a), False, np.where(np.isnan(bb), True, c))
                choose0 = c
            result = np.where(choose0, xs[0], xs[1])
            _finish(st, rows, result, mask, False)
            return nxt
        acc = None
        if op == "mac":
            acc = (st.acc_f if floaty else st.acc_i)[rows, :n].reshape(-1)
        result = sim_alu.compute(op, xs, types, inst, acc)
        _finish(st, rows, result, mask, True)
        if mach_acc is not None and inst.acc_wr_en:
            low = (xs[0].astype(np.int64) * xs[1].astype(np.int64)) & 0xFFFFFFFF   # low 32 bits wrap exactly
            mach_acc(st, rows, low.astype(np.uint32).reshape(b, n), mask)
        return nxt

    def _finish(st: Batch, rows: Rows, result: np.ndarray, mask: np.ndarray, cond_from_result: bool) -> None:
        typed = sim_alu.convert(result, t, inst.saturate).reshape(rows.size, n)
        if write is not None:
            write(st, rows, typed, mask)
        if acc_write is not None:
            acc_write(st, rows, typed, mask)
        if inst.cond_mod is not None and cond_from_result:
            _write_flags(st, rows, inst, sim_alu.condition(sim_alu.widen(typed, t), inst.cond_mod), mask)
    return run


# ---- branches ---------------------------------------------------------------------------------------

def branch_plan(inst: Instruction, addr: int, st: Batch) -> Plan:
    """sim_control.execute_branch for a batch: next addresses per thread."""
    op = inst.opcode
    nxt = addr + instruction_size(inst)
    pred_fn = predicate_reader(inst)
    if op == "jmpi":
        if inst.jip is not None:
            target = nxt + signed32(inst.jip)
            offset_reader = None
        elif not inst.srcs:
            raise ControlError("jmpi without an offset")
        else:
            src = inst.srcs[-1]
            target = nxt + signed32(src.value) if src.file == RegFile.IMM else 0
            offset_reader = None if src.file == RegFile.IMM else source_reader(src, 1, inst)

        def jmpi(st: Batch, rows: Rows) -> np.ndarray | int:
            dest: np.ndarray | int
            if offset_reader is not None:
                offs = [nxt + signed32(int(v)) for v in offset_reader(st, rows)[:, 0]]
                dest = np.array(offs, np.int64)
            else:
                dest = target
            if pred_fn is None:
                return dest
            return np.where(pred_fn(st, rows)[:, 0], dest, nxt)
        return jmpi
    if op in ("brd", "brc", "call", "calla", "ret"):
        raise ControlError(f"{op} is not modelled")
    g = _channels(inst)
    n = inst.exec_size
    jip = addr + signed32(inst.jip) if inst.jip is not None else nxt
    uip = addr + signed32(inst.uip) if inst.uip is not None else jip

    def p_of(st: Batch, rows: Rows) -> np.ndarray:
        return pred_fn(st, rows) if pred_fn is not None else np.ones((rows.size, n), bool)

    if op == "if":
        def if_(st: Batch, rows: Rows) -> np.ndarray:
            em = st.em[rows, g]
            leave = em & ~p_of(st, rows)
            st.park(jip, rows, g, leave)
            em &= ~leave
            st.em[rows, g] = em
            return np.where(em.any(axis=1), nxt, jip)
        return if_
    if op == "else":
        def else_(st: Batch, rows: Rows) -> np.ndarray:
            st.park(jip, rows, g, st.em[rows, g])
            st.em[rows, g] = False
            waiting = st.resume.get(nxt)
            if waiting is None:
                return np.full(rows.size, jip, np.int64)
            return np.where(waiting[rows, g].any(axis=1), nxt, jip)
        return else_
    if op in ("endif", "join"):
        always = inst.jip in (None, 0)

        def endif(st: Batch, rows: Rows) -> np.ndarray | int:
            if always:
                return nxt
            return np.where(st.em[rows, g].any(axis=1), nxt, jip)
        return endif
    if op == "while":
        def while_(st: Batch, rows: Rows) -> np.ndarray:
            em = st.em[rows, g]
            p = p_of(st, rows)
            stay = em & p
            st.park(nxt, rows, g, em & ~p)
            st.em[rows, g] = stay
            return np.where(stay.any(axis=1), jip, nxt)
        return while_
    if op in ("break", "cont", "halt", "goto"):
        if op == "break":
            wi = st.index.get(uip)
            if wi is None:
                raise ControlError(f"break UIP {uip:#x} is not an instruction")
            park_at = uip + instruction_size(st.program[wi])
        else:
            park_at = uip

        def leave_(st: Batch, rows: Rows) -> np.ndarray:
            em = st.em[rows, g]
            leave = em & p_of(st, rows)
            st.park(park_at, rows, g, leave)
            em &= ~leave
            st.em[rows, g] = em
            return np.where(em.any(axis=1), nxt, jip)
        return leave_
    raise ControlError(f"branch {op} is not modelled")


# ---- messages ---------------------------------------------------------------------------------------

def _lanes(mask: np.ndarray, simd: int) -> np.ndarray:
    active = np.zeros((mask.shape[0], simd), bool)
    k = min(simd, mask.shape[1])
    active[:, :k] = mask[:, :k]
    return active


def _first_bad(bad: np.ndarray) -> tuple[int, int]:
    """(batch row, lane) of the first set entry of bad [rows, channels, lanes] in row, channel, lane order."""
    b, _, lane = (int(v[0]) for v in np.nonzero(bad))
    return b, lane


class _Space:
    """Where a BTI's bytes are for each thread: one flat array and a per-thread base into it."""

    def __init__(self, st: Batch, bti: int, rows: Rows):
        self.bti = bti
        if bti == BTI_SLM:
            self.space, self.buf, self.extent = "slm", st.slm.reshape(-1), st.slm.shape[1]
            self.base = st.group_of[rows] * self.extent
        elif bti == BTI_STATELESS:
            self.space, self.buf, self.extent = "scratch", st.scratch.reshape(-1), st.scratch.shape[1]
            self.base = st.group_of[rows] * self.extent
        else:
            buf = st.memory.surfaces.get(bti)
            if buf is None:
                raise MessageError(f"no surface bound at binding table index {bti}")
            self.space, self.buf, self.extent = "surface", buf, buf.size
            self.base = np.zeros(rows.size, np.int64)

    def check(self, st: Batch, offs: np.ndarray, size: int, active: np.ndarray, write: bool) -> None:
        """offs, active: [rows, channels, lanes] (offsets within the thread's own space)."""
        if not st.memory.checked:
            return
        bad = active & ((offs < 0) | (offs + size > self.extent))
        if bad.any():
            b, lane = _first_bad(bad)
            c = int(np.nonzero(bad[b])[0][0])
            raise _Fault(b, OutOfBounds(self.space, self.bti, int(offs[b, c, lane]), size, write, lane,
                                        self.extent))

    def load(self, offs: np.ndarray, size: int, active: np.ndarray) -> np.ndarray:
        return _gather(self.buf, offs, self.base, self.extent, size, active)

    def store(self, offs: np.ndarray, values: np.ndarray, size: int, active: np.ndarray) -> None:
        _scatter(self.buf, offs, self.base, self.extent, values, size, active)


def _gather(buf: np.ndarray, offs: np.ndarray, base: np.ndarray, extent: int, size: int,
            active: np.ndarray) -> np.ndarray:
    """sim_memory.gather per thread: offs [rows, ...] within each thread's space of `extent` bytes at base."""
    ok = active & (offs >= 0) & (offs + size <= extent)
    at = np.where(ok, offs + base.reshape((-1,) + (1,) * (offs.ndim - 1)), 0)
    out = np.zeros(offs.shape, np.uint64)
    for k in range(size):
        out |= np.where(ok, buf[at + k], 0).astype(np.uint64) << np.uint64(8 * k)
    return out


def _scatter(buf: np.ndarray, offs: np.ndarray, base: np.ndarray, extent: int, values: np.ndarray, size: int,
             active: np.ndarray) -> None:
    """sim_memory.scatter per thread, channel by channel, in the one-thread simulator's order: thread, then
    channel, then byte, then lane (offs, values, active: [rows, channels, lanes]); a later write wins."""
    ok = active & (offs >= 0) & (offs + size <= extent)
    if not ok.any():
        return
    at = offs + base[:, None, None]
    vals = values.astype(np.uint64)
    k = np.arange(size)
    index = at[:, :, None, :] + k[None, None, :, None]                       # [rows, ch, byte, lane]
    data = (vals[:, :, None, :] >> (8 * k[None, None, :, None]).astype(np.uint64)) & np.uint64(0xFF)
    sel = np.broadcast_to(ok[:, :, None, :], index.shape)
    buf[index[sel]] = data[sel].astype(np.uint8)


def send_plan(inst: Instruction, addr: int, st: Batch) -> Callable[[Batch, Rows, np.ndarray], str | None]:
    """sim_messages.execute_send for a batch; the plan gets the lanes [threads, exec_size] the send runs on."""
    d = decode(inst)
    if d.sfid in (SFID_THREAD_SPAWNER, SFID_NULL):
        return lambda st, rows, mask: None
    if d.sfid == SFID_GATEWAY:
        if _bits(d.desc, 2, 0) == GATEWAY_BARRIER:
            return lambda st, rows, mask: "barrier"
        raise MessageError(f"gateway sub-function {_bits(d.desc, 2, 0)} is not modelled")
    regs = [inst.srcs[0].reg + k for k in range(d.mlen)]
    if inst.opcode == "sends" and len(inst.srcs) > 1:
        regs += [inst.srcs[1].reg + k for k in range(_bits(inst.ex_desc or 0, 9, 6))]
    for r in regs:
        if not 0 <= r < NUM_GRF:
            raise SimulationError(f"register r{r} out of range")
    payload_bytes = (np.array(regs, np.int64)[:, None] * GRF_SIZE + np.arange(GRF_SIZE)).reshape(-1)

    def payload(st: Batch, rows: Rows) -> np.ndarray:
        return np.ascontiguousarray(st.grf[rows[:, None], payload_bytes]).view(np.uint32)

    def writeback(st: Batch, rows: Rows, dwords: np.ndarray, active: np.ndarray, simd: int) -> None:
        """dwords [rows, rlen rows of data, simd] into the destination registers, active lanes only."""
        if inst.dst is None or d.rlen == 0 or inst.dst.file.value == "arf":
            return
        per_row = max(1, simd // 8)
        view = st.view("grf", np.uint32)
        for row in range(dwords.shape[1]):
            reg = inst.dst.reg + row * per_row
            idx = reg * 8 + np.arange(simd)
            if idx[-1] >= view.shape[1]:
                raise SimulationError(f"message writeback at r{reg} leaves the GRF")
            _masked_set(view, rows, idx, dwords[:, row].astype(np.uint32), active)

    def transfer(st: Batch, rows: Rows, space: _Space, addrs: np.ndarray, data: np.ndarray, channels: list[int],
                 size: int, write: bool, active: np.ndarray, simd: int) -> None:
        """Scattered reads/writes (sim_messages._transfer): addrs [rows, simd]; channel c at byte 4c past."""
        chans = np.array(channels, np.int64)
        offs = addrs.astype(np.int64)[:, None, :] + 4 * chans[None, :, None]
        act = np.broadcast_to(active[:, None, :], offs.shape)
        space.check(st, offs, size, act, write)
        if write:
            values = data[:, :simd * len(channels)].reshape(rows.size, len(channels), simd)
            space.store(offs, values, size, act)
        else:
            got = space.load(offs, size, act)
            writeback(st, rows, got.astype(np.uint32), active, simd)

    if d.sfid == SFID_DC1 and d.msg_type in (DC1_UNTYPED_SURFACE_READ, DC1_UNTYPED_SURFACE_WRITE):
        simd, channels = _untyped_channels(d)
        start = 8 if d.header else 0
        write = d.msg_type == DC1_UNTYPED_SURFACE_WRITE

        def untyped(st: Batch, rows: Rows, mask: np.ndarray) -> None:
            p = payload(st, rows)
            active = _lanes(mask, simd)
            transfer(st, rows, _Space(st, d.bti, rows), p[:, start:start + simd], p[:, start + simd:], channels,
                     4, write, active, simd)
        return untyped
    if d.sfid == SFID_DC1 and d.msg_type in (DC1_A64_UNTYPED_SURFACE_READ, DC1_A64_UNTYPED_SURFACE_WRITE,
                                             DC1_A64_SCATTERED_READ, DC1_A64_SCATTERED_WRITE):
        return _a64_plan(d, payload, writeback)
    if d.sfid == SFID_DC1 and d.msg_type == DC1_UNTYPED_ATOMIC_OP:
        simd = 8 if d.msg_control & 0x10 else 16
        aop = d.msg_control & 0xF
        if aop == 0:
            raise MessageError("untyped atomic op 0 is reserved")
        start = 8 if d.header else 0

        def atomic(st: Batch, rows: Rows, mask: np.ndarray) -> None:
            p = payload(st, rows)
            addrs = p[:, start:start + simd].astype(np.int64)
            srcs = [p[:, start + simd * (1 + k): start + simd * (2 + k)] for k in range(2)]
            active = _lanes(mask, simd)
            space = _Space(st, d.bti, rows)
            space.check(st, addrs[:, None, :], 4, active[:, None, :], True)
            ret = np.zeros((rows.size, simd), np.uint32)
            buf = space.buf
            for b, lane in zip(*np.nonzero(active)):     # thread by thread, lanes in order
                at = int(addrs[b, lane])
                if not 0 <= at <= space.extent - 4:
                    continue                            # out of bounds, unchecked: reads 0, write dropped
                at += int(space.base[b])
                old = int(buf[at:at + 4].view("<u4")[0]) if at % 4 == 0 else int.from_bytes(
                    bytes(buf[at:at + 4]), "little")
                a = int(srcs[0][b, lane]) if srcs[0].shape[1] > lane else 0
                c = int(srcs[1][b, lane]) if srcs[1].shape[1] > lane else 0
                new, ret[b, lane] = _atomic(aop, old, a, c)
                buf[at:at + 4] = np.frombuffer(new.to_bytes(4, "little"), np.uint8)
            if d.msg_control & 0x20:
                writeback(st, rows, ret[:, None, :], active, simd)
        return atomic
    if d.sfid == SFID_DC0 and d.desc & SCRATCH_BIT:
        nregs = 1 << _bits(d.desc, 13, 12)
        offset = _bits(d.desc, 11, 0) * 32
        span = np.arange(32 * nregs)
        store = bool(d.desc & SCRATCH_WRITE_BIT)

        def scratch(st: Batch, rows: Rows, mask: np.ndarray) -> None:
            if offset + 32 * nregs > st.memory.scratch_bytes:
                raise MessageError("scratch access beyond the thread's scratch space")
            slot = st.group_of[rows] * st.scratch.shape[1] + st.tid[rows] * st.memory.scratch_bytes + offset
            index = slot[:, None] + span
            flat = st.scratch.reshape(-1)
            if store:
                flat[index] = payload(st, rows)[:, 8:8 + 8 * nregs].view(np.uint8)
            elif inst.dst is not None and inst.dst.file.value == "grf":
                reg = inst.dst.reg
                if reg < 0 or reg * GRF_SIZE + span.size > NUM_GRF * GRF_SIZE:
                    raise SimulationError(f"write of {span.size} bytes at r{reg} leaves the GRF")
                st.grf[rows[:, None], reg * GRF_SIZE + span] = flat[index]
        return scratch
    if d.sfid == SFID_DC0 and d.msg_type in (DC0_BYTE_SCATTERED_READ, DC0_BYTE_SCATTERED_WRITE):
        simd, size = (16 if d.msg_control & 1 else 8), _byte_size(d)
        start = 8 if d.header else 0
        write = d.msg_type == DC0_BYTE_SCATTERED_WRITE

        def byte_scattered(st: Batch, rows: Rows, mask: np.ndarray) -> None:
            p = payload(st, rows)
            active = _lanes(mask, simd)
            transfer(st, rows, _Space(st, d.bti, rows), p[:, start:start + simd], p[:, start + simd:], [0],
                     size, write, active, simd)
        return byte_scattered
    if d.sfid == SFID_DC0 and d.msg_type == DC0_MEMORY_FENCE:
        def fence(st: Batch, rows: Rows, mask: np.ndarray) -> None:
            if inst.dst is not None and inst.dst.file.value == "grf" and d.rlen:
                reg = inst.dst.reg
                if reg < 0 or (reg + d.rlen) * GRF_SIZE > NUM_GRF * GRF_SIZE:
                    raise SimulationError(f"write of {32 * d.rlen} bytes at r{reg} leaves the GRF")
                st.grf[rows, reg * GRF_SIZE:(reg + d.rlen) * GRF_SIZE] = 0
        return fence
    raise MessageError(f"SEND sfid {d.sfid} desc {d.desc:#010x} is not modelled")


def _a64_plan(d, payload, writeback) -> Callable[[Batch, Rows, np.ndarray], None]:
    """A64 stateless messages (sim_messages._a64): each lane's 64-bit address into the flat space."""
    if d.msg_type in (DC1_A64_UNTYPED_SURFACE_READ, DC1_A64_UNTYPED_SURFACE_WRITE):
        simd, channels = _untyped_channels(d)
        size = 4
    else:
        simd, channels = (16 if d.msg_control & 0x10 else 8), [0]
        if _bits(d.msg_control, 1, 0) != 0:
            raise MessageError("A64 dword/qword scattered messages are not modelled")
        size = _byte_size(d)
    write = d.msg_type in (DC1_A64_UNTYPED_SURFACE_WRITE, DC1_A64_SCATTERED_WRITE)
    chans = np.array(channels, np.uint64)

    def a64(st: Batch, rows: Rows, mask: np.ndarray) -> None:
        p = payload(st, rows)
        active = _lanes(mask, simd)
        base_addrs = np.ascontiguousarray(p[:, :2 * simd]).view(np.uint64)          # [rows, simd]
        addrs = base_addrs[:, None, :] + np.uint64(4) * chans[None, :, None]          # [rows, ch, simd]
        act = np.broadcast_to(active[:, None, :], addrs.shape)
        left = act.copy()
        parts = []
        for base, buf in st.memory.flat:
            inside = left & (addrs >= np.uint64(base)) & (addrs + np.uint64(size) <= np.uint64(base + buf.size))
            if inside.any():
                parts.append((buf, (addrs - np.uint64(base)).astype(np.int64), inside))
                left &= ~inside
        if left.any():
            b, lane = _first_bad(left)
            c = int(np.nonzero(left[b])[0][0])
            addr = int(addrs[b, c, lane])
            below = [(base, buf) for base, buf in st.memory.flat if base <= addr]
            if st.memory.checked and below:
                base, buf = max(below, key=lambda item: item[0])
                raise _Fault(b, OutOfBounds("a64", st.memory.flat_bti.get(base), addr - base, size, write, lane,
                                            buf.size))
            raise _Fault(b, MessageError(f"A64 access at {addr:#x} (lane {lane}) is outside every buffer"))
        zero = np.zeros(rows.size, np.int64)
        if write:
            values = p[:, 2 * simd:2 * simd + simd * len(channels)].reshape(rows.size, len(channels), simd)
            for buf, offs, inside in parts:
                _scatter(buf, offs, zero, buf.size, values, size, inside)
        else:
            got = np.zeros(addrs.shape, np.uint64)
            for buf, offs, inside in parts:
                got |= _gather(buf, offs, zero, buf.size, size, inside)
            writeback(st, rows, got.astype(np.uint32), active, simd)
    return a64


# ---- the scheduler ----------------------------------------------------------------------------------

class Runner:
    """Runs a Batch to the end: the threads at the lowest address step together."""

    def __init__(self, st: Batch, group_ids: list[tuple[int, int, int]]):
        self.st = st
        self.group_ids = group_ids
        self.plans: dict[int, Callable[[Batch, Rows], None]] = {}

    def _plan(self, i: int, addr: int) -> Callable[[Batch, Rows], None]:
        plan = self.plans.get(i)
        if plan is None:
            plan = self.plans[i] = self._make(self.st.program[i], addr)
        return plan

    def _make(self, inst: Instruction, addr: int) -> Callable[[Batch, Rows], None]:
        op = inst.opcode
        nxt = addr + instruction_size(inst)
        st = self.st
        if op in BRANCHES:
            branch = branch_plan(inst, addr, st)

            def run_branch(st: Batch, rows: Rows) -> None:
                st.branches[rows] += 1
                _move(st, rows, branch(st, rows))
            return run_branch
        if op in SENDS:
            send = send_plan(inst, addr, st)
            g = _channels(inst)
            pred_fn = predicate_reader(inst)

            def run_send(st: Batch, rows: Rows) -> None:
                st.sends[rows] += 1
                mask = _enabled(st, rows, inst, g)
                if pred_fn is not None:
                    mask = mask & pred_fn(st, rows)
                status = send(st, rows, mask)
                if inst.eot:
                    st.done[rows] = True
                    self.ended(rows)
                    return
                if status == "barrier":
                    st.at_barrier[rows] = True
                    self.ended(rows)
                st.goto(rows, nxt)
            return run_send
        if op in NO_OPS:
            return lambda st, rows: st.goto(rows, nxt)                    # nop, wait, illegal
        alu = alu_plan(inst, addr)

        def run_alu(st: Batch, rows: Rows) -> None:
            st.goto(rows, alu(st, rows))
        return run_alu

    def ended(self, rows: Rows) -> None:
        """Threads reached a barrier or ended: release each of their groups whose live threads all wait."""
        st = self.st
        for grp in np.unique(st.group_of[rows]):
            sl = slice(grp * st.per_group, (grp + 1) * st.per_group)
            live = ~st.done[sl]
            if not live.any() or not st.at_barrier[sl][live].all():
                continue
            if not live.all():
                raise SimulationError("barrier reached after some threads of the group ended (hang)")
            st.at_barrier[sl] = False

    def run(self) -> None:
        st = self.st
        big = np.iinfo(np.int64).max
        while True:
            runnable = ~(st.done | st.at_barrier)
            ips = np.where(runnable, st.ip, big)
            at = int(ips.min())
            if at == big:
                if st.done.all():
                    return
                raise SimulationError("every live thread waits at a barrier (hang)")
            rows = np.flatnonzero(ips == at)
            self.step(at, rows)

    def step(self, at: int, rows: Rows) -> None:
        st = self.st
        if at == st.end:
            st.done[rows] = True
            self.ended(rows)
            return
        i = st.index.get(at)
        if i is None:
            raise SimulationError(f"thread {int(st.tid[rows[0]])}: jump to {at:#x}, not an instruction address")
        st.steps[rows] += 1
        st.lane_steps[rows] += np.count_nonzero(st.em[rows, :st.simd], axis=1)
        over = rows[st.steps[rows] > st.max_steps]
        if over.size:
            tid = int(st.tid[over[0]])
            err = StepLimit(f"thread {tid}: no end after {st.max_steps} instructions", tid, st.max_steps)
            err.group = self.group_ids[int(st.group_of[over[0]])]
            raise err
        inst = st.program[i]
        try:
            self._plan(i, at)(st, rows)
        except _Fault as f:
            self._raise(f.error, int(rows[f.row]), at, inst)
        except (OutOfBounds, sim_alu.AluError, MessageError, ControlError) as e:
            self._raise(e, int(rows[0]), at, inst)

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


def _move(st: Batch, rows: Rows, nxt) -> None:
    """Send each thread to its next address, merging the channels parked there (simulator.Thread.goto)."""
    if isinstance(nxt, (int, np.integer)):
        st.goto(rows, int(nxt))
        return
    first = int(nxt[0])
    if (nxt == first).all():
        st.goto(rows, first)
        return
    for t in np.unique(nxt):
        st.goto(rows[nxt == t], int(t))
