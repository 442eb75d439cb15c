"""The batched simulator's instruction plans for operands, masks, ALU instructions and branches: each a
function of (batch, thread rows) built once per instruction (sim_batch has the model; the semantics are
simulator.Thread's and sim_control's, the values sim_alu's).
"""
from __future__ import annotations

from typing import TYPE_CHECKING, Callable

import numpy as np

from . import opcodes, sim_alu
from .model import DataType, Instruction, Operand, RegFile, instruction_size
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
from .simulator import SimulationError, _pred_group, _unsigned_64

if TYPE_CHECKING:
    from .sim_batch import Batch

BRANCHES = frozenset(opcodes.BRANCHES)
SENDS = frozenset(opcodes.SENDS_ALL)
_PACKED = {DataType.V: DataType.W, DataType.UV: DataType.UW, DataType.VF: DataType.F}

Rows = np.ndarray                               # int64 indices of the threads a plan runs on
Plan = Callable[["Batch", Rows], "np.ndarray | int | None"]   # returns the next address(es); None: no move


class ThreadFault(Exception):
    """An error of one thread of a batch: `row` which thread; `error` what (OutOfBounds or a message)."""

    def __init__(self, row: int, error: Exception):
        super().__init__(str(error))
        self.row, self.error = row, error


# ---- operands ---------------------------------------------------------------------------------------

def masked_set(arr: np.ndarray, rows: Rows, cols: np.ndarray, values: np.ndarray, mask: np.ndarray,
               distinct: bool = False) -> None:
    """arr[rows[b], cols[i]] = values[b, i] where mask[b, i], in (b, i) order (a later lane wins);
    `distinct`: no column repeats, so the order cannot matter. rows are sorted and distinct."""
    at = slice(None) if rows.size == arr.shape[0] else rows[:, None]
    if mask.all():
        arr[at, cols] = values
    elif distinct:
        arr[at, cols] = np.where(mask, values, arr[at, cols])
    else:
        b, i = np.nonzero(mask)
        arr[rows[b], cols[i]] = values[b, i]


def _distinct(cols: np.ndarray) -> bool:
    return len(set(cols.tolist())) == cols.size


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
    if name == "flag":                                  # flags are kept as bits: pack them into bytes
        index = offs[:, None] + np.arange(size)

        def flag(st: Batch, rows: Rows) -> np.ndarray:
            raw = np.packbits(st.fbits[rows], axis=1, bitorder="little")
            return np.ascontiguousarray(raw[:, index]).view(dtype).reshape(rows.size, n)
        return flag
    if (offs % size).any():
        index = offs[:, None] + np.arange(size)
        return lambda st, rows: st.storage[name][rows[:, None, None], index].view(dtype).reshape(rows.size, n)
    elem = offs // size

    def direct(st: Batch, rows: Rows) -> np.ndarray:
        view = st.view(name, dtype)
        return view[:, elem] if rows.size == st.threads else view[rows[:, None], elem]
    return direct


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
            once = _distinct(idx)

            def acc(st: Batch, rows: Rows, values: np.ndarray, mask: np.ndarray) -> None:
                masked_set(st.acc_f, rows, idx, values.astype(np.float64), mask, once)
                if floaty:
                    with np.errstate(invalid="ignore"):
                        masked_set(st.acc_i, rows, idx, np.nan_to_num(values).astype(np.int64), mask, once)
                else:
                    masked_set(st.acc_i, rows, idx, values.astype(np.int64), mask, once)
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
    once = _distinct(elem)
    if name == "flag":
        def flag(st: Batch, rows: Rows, values: np.ndarray, mask: np.ndarray) -> None:
            m = mask & lanes if lanes is not None else mask
            raw = np.packbits(st.fbits[rows], axis=1, bitorder="little")
            masked_set(raw.view(dtype), np.arange(rows.size), elem, values.astype(dtype, copy=False), m, once)
            st.fbits[rows] = np.unpackbits(raw, axis=1, bitorder="little").astype(bool)
        return flag

    def write(st: Batch, rows: Rows, values: np.ndarray, mask: np.ndarray) -> None:
        m = mask & lanes if lanes is not None else mask
        masked_set(st.view(name, dtype), rows, elem, values.astype(dtype, copy=False), m, once)
    return write


# ---- masks ------------------------------------------------------------------------------------------

def channels_of(inst: Instruction) -> slice:
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
            bits: np.ndarray = st.fbits[:, idx] if rows.size == st.threads else st.fbits[rows[:, None], idx]
            return ~bits if inverse else bits
        return normal
    kind, size = grp
    if n == 1 and inst.opcode == "jmpi":
        ch = np.array([m])
    window = base + ((ch // size) * size)[:, None] + np.arange(size)
    if window.max() >= 64:
        raise SimulationError("predicate reads past f1")

    def grouped(st: Batch, rows: Rows) -> np.ndarray:
        bits: np.ndarray = st.fbits[rows[:, None, None], window]
        val = np.any(bits, axis=2) if kind == "any" else np.all(bits, axis=2)
        return ~val if inverse else val
    return grouped


def enabled_lanes(st: Batch, rows: Rows, inst: Instruction, g: slice) -> np.ndarray:
    if inst.mask_ctrl_we_all:
        return np.ones((rows.size, inst.exec_size), bool)
    return st.em[rows, g]


def _write_flags(st: Batch, rows: Rows, inst: Instruction, values: np.ndarray, mask: np.ndarray) -> None:
    """Conditional-modifier flag update of the enabled channels only (values, mask: [threads, n])."""
    base = inst.flag_reg * 32 + inst.flag_subreg * 16
    idx = base + inst.chan_offset + np.arange(inst.exec_size)
    if idx.max() >= 64:
        raise SimulationError("conditional modifier writes past f1")
    at = slice(None) if rows.size == st.threads else rows[:, None]
    st.fbits[at, idx] = np.where(mask, values, st.fbits[at, idx])


# ---- ALU --------------------------------------------------------------------------------------------

def alu_plan(inst: Instruction, addr: int) -> Callable[[Batch, Rows], int]:
    """simulator.Thread._alu for a batch: lanes of every thread flattened through sim_alu."""
    op = inst.opcode
    n = inst.exec_size
    g = channels_of(inst)
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
    compute = sim_alu.planned(op, types, inst) if op not in ("cmp", "sel") else None
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
        en = enabled_lanes(st, rows, inst, g)
        pred = pred_fn(st, rows) if pred_fn is not None else None
        mask = en if sel_plain or pred is None else en & pred
        if st.trace is not None:
            st.emit(rows, addr, inst, mask)
        xs = [sim_alu.apply_modifiers(sim_alu.widen(r(st, rows).reshape(-1), ty), ty, a, ng, logic)
              for r, ty, (a, ng) in zip(readers, types, mods)]
        if floaty:
            xs = [x.astype(np.float64, copy=False) for x in xs]
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
        assert compute is not None
        result = compute(xs, acc)
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
    g = channels_of(inst)
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
