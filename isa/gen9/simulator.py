"""A numpy-vectorised SIMD simulator for decoded Gen9 programs (list[Instruction]).

Why: to run what the backend emits without a GPU, and to see which lanes execute what (trace hook: sim_trace
records it, tools.lane_picture draws it), in particular for divergent and unstructured (blockIP) control flow.

Parts: branches in sim_control, messages in sim_messages, ALU values in sim_alu, the trace record in
sim_trace, where operands, predicates and condition flags live in sim_operands (the batched engine,
sim_batch, uses the same); this module holds the thread state, operand access, masks and the scheduler.

Model, in one place:
- Thread state: 128 x 32-byte GRF (one uint8 array, read per type through byte offsets), flag registers
  f0/f1 (8 bytes: f0.0 f0.1 f1.0 f1.1), a per-element accumulator, the execution mask EM (32 channels).
- Addresses: native instructions take 16 bytes, compacted ones 8 (PRM vol. 2a, "Instruction formats";
  iga64); JIP/UIP are signed byte offsets from the branch itself, jmpi's from the next instruction (Gen8+
  counts bytes: Mesa brw_eu.h brw_jump_scale; checked by assembling with iga64).
- Structured control flow uses per-channel resume points, the Gen8+ "per-channel IP" view of the
  execution-mask / resume-mask model of Intel's CM SIMD control flow (vc-intrinsics
  GenXSimdCFLowering.cpp, "EM" and "RM"): a branch parks the channels that leave in RM[target]; whenever the thread
  arrives at an address (fall-through or jump), RM[address] is merged back into EM. Branches jump to JIP
  when no channel of their group stays enabled. break parks channels after the while (UIP + 16), cont at
  the while (UIP), halt at UIP; while keeps predicate-true channels and parks the rest after itself.
  jmpi is scalar and changes no mask. (Consequence: an if whose JIP names the else instruction itself,
  rather than the instruction after it as Mesa/IGC emit, merges its false channels before the else runs.)
- Conditional modifiers update flag bits of the channels the instruction ran on only; they are evaluated
  on the value written (after saturation and conversion), or in the source type for a null destination.
- Not modelled: brd/brc, call/ret, denormal flushing and rounding-mode control (cr0), float exceptions,
  the overflow condition, A64 stateless memory, typed surfaces, OWord block messages, samplers.
- Scratch: a work-group's threads share one scratch space, thread t's slot starting at t * scratch_bytes
  (what r0.5 bits 31:10 hold); scratch block messages address the thread's slot, A32 stateless accesses
  (BTI 255) the space as a whole, as General State Base Address would.
- A workgroup is a set of threads run round-robin, one instruction each per turn; a barrier SEND blocks
  its thread until every live thread of the group has sent one (sim_messages, gateway).
"""
from __future__ import annotations

from typing import Callable, Iterable

import numpy as np

from . import opcodes, sim_alu
from .model import DataType, Instruction, Operand, Predicate, RegFile, Region, instruction_size, layout
from .registers import ARF_ACC, ARF_NULL, GRF_SIZE, NUM_GRF
from .sim_control import ControlError, execute_branch
from .sim_memory import Memory, OutOfBounds
from .sim_messages import MessageError, execute_send
from .sim_operands import (
    SimulationError,
    acc_index,
    arf_kind,
    check_a0,
    condition_bits,
    dest_offsets,
    direct_storage,
    predicate_bits,
    source_offsets,
)
from .sim_trace import Trace, TraceEvent

BRANCHES = frozenset(opcodes.BRANCHES)
SENDS = frozenset(opcodes.SENDS_ALL)
NO_OPS = frozenset(opcodes.names(lambda o: not o.alu and o.name not in BRANCHES | SENDS))   # nop, wait, illegal

_SIZE = {t: t.size for t in DataType}
TraceHook = Callable[[int, int, Instruction, np.ndarray], None]


class MemoryFault(SimulationError):
    """An out-of-bounds access under a checked Memory: `fault` (sim_memory.OutOfBounds) says where in
    memory, `tid` and `address` which thread and instruction; run_ndrange adds `group`."""

    def __init__(self, message: str, fault: OutOfBounds, tid: int, address: int, inst: Instruction):
        super().__init__(message)
        self.fault, self.tid, self.address, self.inst = fault, tid, address, inst
        self.group: tuple[int, int, int] | None = None


class StepLimit(SimulationError):
    """A thread ran `limit` instructions without ending (an endless loop, or a limit set too low)."""

    def __init__(self, message: str, tid: int, limit: int):
        super().__init__(message)
        self.tid, self.limit = tid, limit
        self.group: tuple[int, int, int] | None = None


def _unsigned_64(xs: list[np.ndarray], types: list[DataType]) -> list[np.ndarray]:
    """Compare operands as the hardware reads them: integers are widened to int64, which is right for
    every type but :uq above 2^63; with a :uq source the comparison is unsigned."""
    if DataType.UQ in types and not any(sim_alu.is_float(t) for t in types):
        return [x.astype(np.uint64) for x in xs]
    return xs


class Thread:
    """One hardware thread: register state, masks and its position in the program."""

    def __init__(self, program: list[Instruction], simd: int, tid: int = 0, memory: Memory | None = None,
                 dispatch_mask: int | None = None, slm: np.ndarray | None = None,
                 trace: TraceHook | None = None, max_steps: int = 1_000_000,
                 scratch_space: np.ndarray | None = None):
        if simd not in (1, 2, 4, 8, 16, 32):
            raise SimulationError(f"SIMD width {simd} is not a Gen exec size")
        self.program = program
        self.addresses = layout(program)
        self.index = {a: i for i, a in enumerate(self.addresses)}
        self.end = self.addresses[-1] + instruction_size(program[-1]) if program else 0
        self.simd = simd
        self.tid = tid
        self.memory = memory or Memory()
        self.slm = slm if slm is not None else self.memory.new_slm()
        # the work-group's scratch space (A32 stateless addresses, BTI 255, index it) and this thread's
        # slot in it (scratch block messages address it), tid * scratch_bytes as r0.5 says
        self.scratch_space = scratch_space if scratch_space is not None else self.memory.new_scratch()
        slot = tid * self.memory.scratch_bytes if scratch_space is not None else 0
        self.scratch = self.scratch_space[slot:slot + self.memory.scratch_bytes]
        self.trace = trace
        self.max_steps = max_steps
        self.grf = np.zeros(NUM_GRF * GRF_SIZE, np.uint8)
        self.flags = np.zeros(8, np.uint8)
        self.acc_i = np.zeros(64, np.int64)
        self.acc_f = np.zeros(64, np.float64)
        self.address_reg = np.zeros(32, np.uint8)
        mask = (1 << simd) - 1 if dispatch_mask is None else dispatch_mask
        self.dispatch = np.array([(mask >> c) & 1 for c in range(32)], bool)
        self.dispatch[simd:] = False
        self.em = self.dispatch.copy()
        self.resume: dict[int, np.ndarray] = {}
        self.ip = 0
        self.steps = 0
        self.lane_steps = 0                      # enabled lanes summed over executed instructions
        self.branches = self.sends = 0           # control-flow instructions and messages run (run --stats)
        self.done = False
        self.at_barrier = False
        self.fell_off_end = False
        self._index_cache: dict = {}

    # ---- register file access -------------------------------------------------------------------
    def read_regs(self, regs: Iterable[int]) -> np.ndarray:
        out = []
        for r in regs:
            if not 0 <= r < NUM_GRF:
                raise SimulationError(f"register r{r} out of range")
            out.append(self.grf[r * GRF_SIZE:(r + 1) * GRF_SIZE])
        return np.concatenate(out).copy()

    def write_regs(self, reg: int, data: np.ndarray) -> None:
        data = np.asarray(data).view(np.uint8).reshape(-1)
        if not 0 <= reg or reg * GRF_SIZE + data.size > self.grf.size:
            raise SimulationError(f"write of {data.size} bytes at r{reg} leaves the GRF")
        self.grf[reg * GRF_SIZE:reg * GRF_SIZE + data.size] = data

    def write_lanes(self, reg: int, dwords: np.ndarray, lanes: np.ndarray) -> None:
        """Write one dword per lane starting at r`reg`, for lanes set in `lanes`."""
        view = self.grf.view(np.uint32)
        idx = reg * 8 + np.arange(dwords.size)
        if idx.size and idx[-1] >= view.size:
            raise SimulationError(f"message writeback at r{reg} leaves the GRF")
        view[idx[lanes]] = dwords[lanes]

    def reg(self, r: int, t: DataType = DataType.UD, count: int | None = None) -> np.ndarray:
        """Host helper: register r (and following) read as type t."""
        dtype = np.dtype(sim_alu.NP_TYPE[t])
        count = count if count is not None else GRF_SIZE // dtype.itemsize
        start = r * GRF_SIZE
        return self.grf[start:start + count * dtype.itemsize].view(dtype).copy()

    def set_reg(self, r: int, values, t: DataType = DataType.UD) -> None:
        arr = np.asarray(values, dtype=sim_alu.NP_TYPE[t])
        self.write_regs(r, arr)

    def flag_bits(self) -> np.ndarray:
        return np.unpackbits(self.flags, bitorder="little").astype(bool)

    def set_flag_bits(self, bits: np.ndarray) -> None:
        self.flags[:] = np.packbits(bits.astype(np.uint8), bitorder="little")

    # ---- operands -------------------------------------------------------------------------------
    def _storage(self, op: Operand) -> tuple[np.ndarray, int]:
        """(byte array, base byte offset) holding the operand."""
        if getattr(op, "indirect", False):
            if op.file != RegFile.GRF:
                raise SimulationError("indirect addressing of an ARF is not modelled")
            return self.grf, self._a0(op.addr_subreg) + op.addr_imm
        name, base, _ = direct_storage(op)
        return {"grf": self.grf, "flag": self.flags, "a0": self.address_reg}[name], base

    def _a0(self, subreg: int) -> int:
        """a0.<subreg>:uw, a byte address into the GRF (indirect register addressing)."""
        check_a0(subreg)
        return int(self.address_reg.view(np.uint16)[subreg])

    def _src_offsets(self, op: Operand, n: int, inst: Instruction) -> np.ndarray:
        size = op.type.size
        i = np.arange(n)
        r = op.region
        if getattr(op, "indirect", False) and r is not None and r.vstride < 0:
            # Vx1 / VxH: each row of `width` elements takes its base from the next a0 word
            width = max(1, r.width)
            first = self._a0(op.addr_subreg)
            rows = np.array([self._a0(op.addr_subreg + k) - first for k in range((n + width - 1) // width)])
            return rows[i // width] + (i % width) * r.hstride * size
        return source_offsets(op, n, inst.align16)

    def read_src(self, op: Operand, n: int, inst: Instruction) -> np.ndarray:
        """n lanes of a source in its own type (no modifiers)."""
        if op.file == RegFile.IMM:
            key = (id(op), n, "imm")
            hit = self._index_cache.get(key)
            if hit is None or hit[0] is not op:
                hit = (op, sim_alu.decode_immediate(op.value, op.type, n))
                self._index_cache[key] = hit
            return hit[1]
        dtype = sim_alu.NP_TYPE.get(op.type)
        if dtype is None:
            raise SimulationError(f"source type {op.type.value} is not modelled")
        kind = arf_kind(op)
        if kind == "zero":
            return np.zeros(n, dtype)
        if kind == "acc":
            idx = acc_index(op, self._src_offsets(op, n, inst) // op.type.size)
            if sim_alu.is_float(op.type):
                return self.acc_f[idx].astype(dtype)
            return sim_alu.convert(self.acc_i[idx], op.type, False)
        if kind == "mask":                      # ce0: channel enables of this thread
            bits = int(np.packbits(self.em.astype(np.uint8), bitorder="little").view("<u4")[0])
            return np.full(n, bits, np.uint64).astype(dtype)
        if kind == "timestamp":
            return np.full(n, self.steps, np.uint64).astype(dtype)
        store, index, _ = self._byte_index(op, n, inst, False)
        return store[index].view(dtype).reshape(n)

    def _byte_index(self, op: Operand, n: int, inst: Instruction, dst: bool):
        """(storage, n x size byte indices, lane mask or None) of a register operand; cached when direct."""
        key = (id(op), n, dst)
        hit = self._index_cache.get(key)
        if hit is not None and hit[0] is op:
            return hit[1:]
        store, base = self._storage(op)
        size = _SIZE[op.type]
        lanes = None
        if not dst:
            offs = base + self._src_offsets(op, n, inst)
        else:
            rel, lanes = dest_offsets(op, n, inst.align16)
            offs = base + rel
        if offs.min() < 0 or offs.max() + size > store.size:
            what = "destination" if dst else "source"
            raise SimulationError(f"{what} region of r{op.reg} leaves the register file")
        index = offs[:, None] + np.arange(size)
        if not getattr(op, "indirect", False):
            self._index_cache[key] = (op, store, index, lanes)
        return store, index, lanes

    def write_dst(self, op: Operand, values: np.ndarray, mask: np.ndarray, inst: Instruction) -> None:
        """Write typed `values` to the lanes set in `mask`."""
        n = values.size
        kind = arf_kind(op)
        if kind == "zero":
            return
        if kind == "acc":
            idx = acc_index(op, np.arange(n) * max(op.hstride, 1))
            self.acc_f[idx[mask]] = values[mask].astype(np.float64)
            if sim_alu.is_float(op.type):
                with np.errstate(invalid="ignore"):
                    self.acc_i[idx[mask]] = np.nan_to_num(values[mask]).astype(np.int64)
            else:
                self.acc_i[idx[mask]] = values[mask].astype(np.int64)
            return
        store, index, lanes = self._byte_index(op, n, inst, True)
        if lanes is not None:
            mask = mask & lanes
        raw = np.ascontiguousarray(values.astype(sim_alu.NP_TYPE[op.type])).view(np.uint8).reshape(n, -1)
        store[index[mask]] = raw[mask]

    # ---- masks ----------------------------------------------------------------------------------
    def group(self, inst: Instruction) -> slice:
        """The channels an instruction runs on: M<chan_offset> .. + exec_size."""
        m, n = inst.chan_offset, inst.exec_size
        if m + n > 32:
            raise SimulationError(f"channels M{m}+{n} exceed 32")
        return slice(m, m + n)

    def predicate(self, pred: Predicate | None, inst: Instruction) -> np.ndarray:
        """Per-channel predicate value for the instruction's channels (all true without a predicate)."""
        if pred is None:
            return np.ones(inst.exec_size, bool)
        kind, index = predicate_bits(pred, inst)
        bits = self.flag_bits()[index]
        val = bits if kind is None else bits.any(axis=1) if kind == "any" else bits.all(axis=1)
        return ~val if pred.inverse else val

    def enabled(self, inst: Instruction) -> np.ndarray:
        """Channels enabled by the execution mask (or all, with WE_all), before predication."""
        if inst.mask_ctrl_we_all:
            return np.ones(inst.exec_size, bool)
        return self.em[self.group(inst)].copy()

    def _lane_view(self, inst: Instruction, mask: np.ndarray) -> np.ndarray:
        out = np.zeros(max(self.simd, 1), bool)
        g = self.group(inst)
        stop = min(g.stop, out.size)
        if g.start < stop:
            out[g.start:stop] = mask[:stop - g.start]
        return out

    # ---- execution ------------------------------------------------------------------------------
    def goto(self, target: int) -> None:
        self.ip = target
        rm = self.resume.pop(target, None)
        if rm is not None:
            self.em |= rm

    def park(self, target: int, g: slice, lanes: np.ndarray) -> None:
        if lanes.any():
            rm = self.resume.setdefault(target, np.zeros(32, bool))
            rm[g] |= lanes

    def step(self) -> None:
        """Execute one instruction (the thread must be runnable)."""
        if self.ip == self.end:
            self.done = self.fell_off_end = True
            return
        i = self.index.get(self.ip)
        if i is None:
            raise SimulationError(f"thread {self.tid}: jump to {self.ip:#x}, not an instruction address")
        self.steps += 1
        self.lane_steps += int(np.count_nonzero(self.em[:self.simd]))
        if self.steps > self.max_steps:
            raise StepLimit(f"thread {self.tid}: no end after {self.max_steps} instructions", self.tid,
                            self.max_steps)
        inst = self.program[i]
        addr = self.ip
        op = inst.opcode
        nxt = addr + instruction_size(inst)
        try:
            if op in BRANCHES:
                self.branches += 1
                if self.trace:
                    self.trace(self.tid, addr, inst, self._lane_view(inst, self.enabled(inst)))
                nxt = execute_branch(self, inst, addr, nxt)
            elif op in SENDS:
                self.sends += 1
                mask = self.enabled(inst) & self.predicate(inst.predicate, inst)
                if self.trace:
                    self.trace(self.tid, addr, inst, self._lane_view(inst, mask))
                status = execute_send(self, inst, mask)
                if inst.eot:
                    self.done = True
                    return
                if status == "barrier":
                    self.at_barrier = True
            elif op in NO_OPS:
                if self.trace:
                    self.trace(self.tid, addr, inst, self._lane_view(inst, self.enabled(inst)))
            else:
                self._alu(inst, addr)
        except OutOfBounds as e:
            raise MemoryFault(f"thread {self.tid} at {addr:#x} ({op}): {e}", e, self.tid, addr, inst) from None
        except (sim_alu.AluError, MessageError, ControlError) as e:
            raise SimulationError(f"thread {self.tid} at {addr:#x} ({op}): {e}") from None
        self.goto(nxt)

    def _alu(self, inst: Instruction, addr: int) -> None:
        op = inst.opcode
        n = inst.exec_size
        en = self.enabled(inst)
        pred = self.predicate(inst.predicate, inst)
        # sel uses its predicate to choose, not to mask (the write happens on every enabled channel)
        mask = en if op == "sel" and inst.cond_mod is None else en & pred
        if self.trace:
            self.trace(self.tid, addr, inst, self._lane_view(inst, mask))
        if op != "math" and len(inst.srcs) == 0:
            raise SimulationError(f"{op} without sources")
        logic = op in sim_alu.LOGIC_OPS
        packed = {DataType.V: DataType.W, DataType.UV: DataType.UW, DataType.VF: DataType.F}
        types = [packed.get(s.type, s.type) for s in inst.srcs]   # packed vectors unpack to W/UW/F lanes
        xs = [sim_alu.apply_modifiers(sim_alu.widen(self.read_src(s, n, inst), t), t, s.abs, s.neg, logic)
              for s, t in zip(inst.srcs, types)]
        floaty = any(sim_alu.is_float(t) for t in types)
        if floaty:
            xs = [x.astype(np.float64) for x in xs]
        dst = inst.dst
        if op == "cmp":
            cond = inst.cond_mod
            if cond is None:
                raise SimulationError("cmp without a conditional modifier")
            x0, x1 = _unsigned_64(xs[:2], types)
            flag_val = sim_alu.compare(x0, x1, cond)
            if flag_val is None:
                raise SimulationError(f"cmp.{cond} is not modelled")
            if dst is not None and not (dst.file == RegFile.ARF and dst.reg == ARF_NULL):
                # true is all ones in the destination's bits (so -1 for integers, a NaN pattern for floats)
                size = dst.type.size
                uint = np.dtype(f"<u{size}")
                raw = np.where(flag_val, uint.type(np.iinfo(uint).max), uint.type(0)).astype(uint)
                self.write_dst(dst, raw.view(sim_alu.NP_TYPE[dst.type]), mask, inst)
            self._write_flags(inst, flag_val, mask)
            return
        if op == "sel":
            if inst.cond_mod is None:
                choose0 = pred
            else:
                a, b = xs[0], xs[1]
                ua, ub = _unsigned_64([a, b], types)
                c = sim_alu.compare(ua, ub, inst.cond_mod)
                if c is None:
                    raise SimulationError(f"sel.{inst.cond_mod} is not modelled")
                if floaty:                       # min/max return the non-NaN operand
                    c = np.where(np.isnan(a), False, np.where(np.isnan(b), True, c))
                choose0 = c
            result = np.where(choose0, xs[0], xs[1])
            self._finish(inst, result, mask, floaty, cond_from_result=False)
            return
        acc = None
        if op == "mac":
            acc = self._acc_lanes(n, floaty)
        result = sim_alu.compute(op, xs, types, inst, acc)
        if not floaty and DataType.UQ in types and dst is not None and sim_alu.is_float(dst.type):
            result = result.astype(np.uint64)        # a :uq converted to a float: its bits are unsigned
        self._finish(inst, result, mask, floaty, cond_from_result=True)
        if op == "mach" and inst.acc_wr_en:
            # mach leaves the low 32 bits of the full product in the accumulator (Mesa reads them back
            # for 32x32->64 multiplies); the high half went to the destination
            low = np.array([(int(a) * int(b)) & 0xFFFFFFFF for a, b in zip(xs[0], xs[1])], np.int64)
            self.write_dst(Operand(RegFile.ARF, DataType.UD, ARF_ACC), low.astype(np.uint32), mask, inst)

    def _acc_lanes(self, n: int, floaty: bool) -> np.ndarray:
        return (self.acc_f if floaty else self.acc_i)[:n].copy()

    def _finish(self, inst: Instruction, result: np.ndarray, mask: np.ndarray, floaty: bool,
                cond_from_result: bool) -> None:
        dst = inst.dst
        if dst is None:
            raise SimulationError(f"{inst.opcode} without a destination")
        null = dst.file == RegFile.ARF and dst.reg == ARF_NULL
        t = dst.type
        if null:
            # no destination: the condition is evaluated in the execution type
            src_t = next((s.type for s in inst.srcs if sim_alu.is_float(s.type)), None) if floaty else None
            t = src_t or (dst.type if dst.type in sim_alu.NP_TYPE else DataType.D)
        typed = sim_alu.convert(result, t, inst.saturate)
        if not null:
            self.write_dst(dst, typed, mask, inst)
        if inst.acc_wr_en and inst.opcode != "mach" and not (dst.file == RegFile.ARF and dst.reg & 0xF0 == ARF_ACC):
            acc_op = Operand(RegFile.ARF, t, ARF_ACC)
            self.write_dst(acc_op, typed, mask, inst)
        if inst.cond_mod is not None and cond_from_result:
            self._write_flags(inst, sim_alu.condition(sim_alu.widen(typed, t), inst.cond_mod), mask)

    def _write_flags(self, inst: Instruction, values: np.ndarray, mask: np.ndarray) -> None:
        """Conditional-modifier flag update: only channels enabled for this instruction change."""
        bits = self.flag_bits()
        bits[condition_bits(inst)][mask] = values[mask]
        self.set_flag_bits(bits)

    def run(self) -> None:
        """Run alone until EOT (a barrier in a lone thread releases at once)."""
        while not self.done:
            self.step()
            self.at_barrier = False
            new_round = getattr(self.trace, "new_round", None)
            if new_round is not None:
                new_round()


def default_payload(thread: Thread, group_id: int, threads_in_group: int) -> None:
    """Simulator convention for thread payloads (overridable with `setup=`):
    r0.1:ud = group id, r0.2:ud = thread index in the group, r0.3:ud = threads in the group,
    r1 onwards: local id per lane as UD (thread index * SIMD + lane), 1, 2 or 4 registers."""
    thread.set_reg(0, [0, group_id, thread.tid, threads_in_group, 0, 0, 0, 0])
    lanes = np.arange(thread.simd, dtype=np.uint32) + thread.tid * thread.simd
    thread.write_regs(1, lanes)


class Workgroup:
    """Threads of one workgroup sharing SLM, scheduled round-robin so that barriers work."""

    def __init__(self, program: list[Instruction], simd: int, n_threads: int = 1,
                 memory: Memory | None = None, group_id: int = 0,
                 setup: Callable[[Thread], None] | None = None,
                 dispatch_masks: list[int] | None = None, trace: TraceHook | None = None,
                 max_steps: int = 1_000_000):
        self.memory = memory or Memory()
        self.slm = self.memory.new_slm()
        self.scratch_space = self.memory.new_scratch(n_threads)
        self.trace = trace
        self.threads = []
        for t in range(n_threads):
            th = Thread(program, simd, t, self.memory,
                        dispatch_masks[t] if dispatch_masks else None, self.slm, trace, max_steps,
                        self.scratch_space)
            default_payload(th, group_id, n_threads)
            if setup:
                setup(th)
            self.threads.append(th)

    def run(self) -> list[Thread]:
        while True:
            live = [t for t in self.threads if not t.done]
            if not live:
                return self.threads
            runnable = [t for t in live if not t.at_barrier]
            if not runnable:
                if len(live) < len(self.threads):
                    raise SimulationError("barrier reached after some threads of the group ended (hang)")
                for t in live:
                    t.at_barrier = False
                continue
            for t in runnable:
                t.step()
            new_round = getattr(self.trace, "new_round", None)
            if new_round is not None:
                new_round()


def run_program(program: list[Instruction], simd: int = 16, n_threads: int = 1,
                surfaces: dict[int, np.ndarray] | None = None, setup: Callable[[Thread], None] | None = None,
                dispatch_masks: list[int] | None = None, trace: TraceHook | None = None,
                max_steps: int = 1_000_000) -> list[Thread]:
    """Run one workgroup of `n_threads` threads of `program`; returns the finished threads."""
    wg = Workgroup(program, simd, n_threads, Memory(surfaces), 0, setup, dispatch_masks, trace, max_steps)
    return wg.run()


__all__ = ["SimulationError", "MemoryFault", "StepLimit", "Thread", "Workgroup", "Trace", "TraceEvent",
           "run_program", "layout", "instruction_size", "Memory", "Region"]
