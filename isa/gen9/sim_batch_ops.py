"""The batched simulator's instruction plans for operands, masks, ALU instructions and branches: each a
function of (batch, thread rows) built once per instruction (sim_batch has the model; the semantics are
simulator.Thread's and sim_control's, the values sim_alu's).
"""
from __future__ import annotations

from typing import TYPE_CHECKING, Callable

import numpy as np

from . import opcodes, sim_alu
from .model import DataType, Instruction, Operand, RegFile, instruction_size
from .registers import ARF_ACC, ARF_NULL, GRF_SIZE, NUM_GRF
from .sim_control import ControlError, leave_target, signed32
from .sim_operands import (
    SimulationError,
    acc_index,
    arf_kind,
    condition_bits,
    dest_offsets,
    direct_storage,
    predicate_bits,
    source_offsets,
)

if TYPE_CHECKING:
    from .sim_batch import Batch

BRANCHES = frozenset(opcodes.BRANCHES)
SENDS = frozenset(opcodes.SENDS_ALL)
_PACKED = {DataType.V: DataType.W, DataType.UV: DataType.UW, DataType.VF: DataType.F}



class Rows:
    """The threads a plan runs on: `idx` their sorted distinct indices; `at` indexes the thread axis alone
    and `col` the thread axis beside an index array of columns. Both are a slice when the threads are
    consecutive (the usual case: a loop's threads are a range), so reads are views and writes copyto."""
    __slots__ = ("idx", "at", "col", "size")
    at: slice | np.ndarray
    col: slice | np.ndarray

    def __init__(self, idx: np.ndarray):
        self.idx = idx
        self.size = n = idx.size
        first = int(idx[0]) if n else 0
        if n and int(idx[-1]) - first + 1 == n:
            self.at = self.col = slice(first, first + n)
        else:
            self.at, self.col = idx, idx[:, None]


Plan = Callable[["Batch", Rows], "np.ndarray | int | None"]   # returns the next address(es); None: no move


class ThreadFault(Exception):
    """An error of one thread of a batch: `row` which thread; `error` what (OutOfBounds or a message)."""

    def __init__(self, row: int, error: Exception):
        super().__init__(str(error))
        self.row, self.error = row, error


# ---- operands ---------------------------------------------------------------------------------------

def masked_set(arr: np.ndarray, rows: Rows, cols: np.ndarray | slice, values: np.ndarray, mask: np.ndarray,
               distinct: bool = False) -> None:
    """arr[rows[b], cols[i]] = values[b, i] where mask[b, i], in (b, i) order (a later lane wins);
    `distinct`: no column repeats, so the order cannot matter (a slice of columns is distinct)."""
    if isinstance(cols, slice):
        if isinstance(rows.at, slice):
            np.copyto(arr[rows.at, cols], values, where=mask)
        else:
            arr[rows.at, cols] = np.where(mask, values, arr[rows.at, cols])
    elif mask.all():
        arr[rows.col, cols] = values
    elif distinct:
        arr[rows.col, cols] = np.where(mask, values, arr[rows.col, cols])
    else:
        b, i = np.nonzero(mask)
        arr[rows.idx[b], cols[i]] = values[b, i]


def _distinct(cols: np.ndarray) -> bool:
    return len(set(cols.tolist())) == cols.size


def columns(elem: np.ndarray) -> tuple[np.ndarray | slice, bool]:
    """(columns, broadcast) of element indices: a slice where they step evenly (a view to read, copyto to
    write), else the array; broadcast: every lane reads the one element (a scalar region <0;1,0>)."""
    n = elem.size
    first = int(elem[0])
    if n == 1:
        return slice(first, first + 1), False
    step = int(elem[1]) - first
    if step >= 0 and (elem == first + step * np.arange(n)).all():
        if step == 0:
            return slice(first, first + 1), True
        return slice(first, first + step * (n - 1) + 1, step), False
    return elem, False


def _dtype(t: DataType):
    dtype = sim_alu.NP_TYPE.get(t)
    if dtype is None:
        raise SimulationError(f"source type {t.value} is not modelled")
    return dtype


_ACCESSORS: dict[tuple, Callable] = {}          # operand access plans by what they depend on (_accessor)


def _accessor(kind: str, make: Callable, op: Operand, n: int, inst: Instruction) -> Callable:
    """make(op, n, inst), shared by every instruction with the same operand: building one costs more than a
    small launch runs it (each instruction of a 16-item launch runs a few times), and operands repeat."""
    r = op.region
    key = (kind, op.file, op.type, op.reg, op.subreg, None if r is None else (r.vstride, r.width, r.hstride),
           op.hstride, op.value, op.swizzle, op.writemask, op.rep_ctrl, op.indirect, op.addr_subreg, op.addr_imm,
           n, inst.align16)
    hit = _ACCESSORS.get(key)
    if hit is None:
        if len(_ACCESSORS) > 50_000:
            _ACCESSORS.clear()
        hit = _ACCESSORS[key] = make(op, n, inst)
    return hit


def source_reader(op: Operand, n: int, inst: Instruction) -> Callable[[Batch, Rows], np.ndarray]:
    """A function giving n lanes of a source in its own type for each thread of a batch: [threads, n]."""
    return _accessor("src", _source_reader, op, n, inst)


def dest_writer(op: Operand, n: int, inst: Instruction) -> Callable[[Batch, Rows, np.ndarray, np.ndarray], None]:
    """A function writing typed values [threads, n] to the lanes set in a mask [threads, n]."""
    return _accessor("dst", _dest_writer, op, n, inst)


def _source_reader(op: Operand, n: int, inst: Instruction) -> Callable[[Batch, Rows], np.ndarray]:
    if op.file == RegFile.IMM:
        imm = sim_alu.decode_immediate(op.value, op.type, n)
        tiled = [imm[None, :]]                   # the lanes for the most threads asked yet; results are only read

        def immediate(st: Batch, rows: Rows) -> np.ndarray:
            if tiled[0].shape[0] < rows.size:
                tiled[0] = np.tile(imm, (rows.size, 1))
            return tiled[0][:rows.size]
        return immediate
    dtype = _dtype(op.type)
    size = op.type.size
    kind = arf_kind(op)
    if kind == "zero":
        return lambda st, rows: np.zeros((rows.size, n), dtype)
    if kind == "acc":
        idx = acc_index(op, source_offsets(op, n, inst.align16) // size)
        if sim_alu.is_float(op.type):
            return lambda st, rows: st.acc_f[rows.col, idx].astype(dtype)
        return lambda st, rows: sim_alu.convert(st.acc_i[rows.col, idx], op.type, False)
    if kind == "mask":                                  # ce0: channel enables of each thread
        def ce0(st: Batch, rows: Rows) -> np.ndarray:
            bits = np.packbits(st.em[rows.at].astype(np.uint8), axis=1, bitorder="little").view("<u4")
            return np.repeat(bits.astype(np.uint64), n, axis=1).astype(dtype)
        return ce0
    if kind == "timestamp":
        return lambda st, rows: np.repeat(st.steps[rows.idx, None].astype(np.uint64), n, axis=1).astype(dtype)
    if op.indirect:
        if op.file != RegFile.GRF:
            raise SimulationError("indirect addressing of an ARF is not modelled")
        return _indirect_reader(op, n, inst, dtype)
    name, base, extent = direct_storage(op)
    offs = base + source_offsets(op, n, inst.align16)
    if offs.min() < 0 or offs.max() + size > extent:
        raise SimulationError(f"source region of r{op.reg} leaves the register file")
    if name == "flag":                                  # flags are kept as bits: pack them into bytes
        index = offs[:, None] + np.arange(size)

        def flag(st: Batch, rows: Rows) -> np.ndarray:
            raw = np.packbits(st.fbits[rows.at], axis=1, bitorder="little")
            return np.ascontiguousarray(raw[:, index]).view(dtype).reshape(rows.size, n)
        return flag
    if (offs % size).any():
        index = offs[:, None] + np.arange(size)
        return lambda st, rows: st.storage[name][rows.idx[:, None, None], index].view(dtype).reshape(rows.size, n)
    cols, broadcast = columns(offs // size)
    if isinstance(cols, slice):
        if broadcast:
            return lambda st, rows: np.broadcast_to(st.view(name, dtype)[rows.at, cols], (rows.size, n))
        return lambda st, rows: st.view(name, dtype)[rows.at, cols]
    return lambda st, rows: st.view(name, dtype)[rows.col, cols]


def _indirect_reader(op: Operand, n: int, inst: Instruction, dtype) -> Callable[[Batch, Rows], np.ndarray]:
    size = op.type.size
    r = op.region
    i = np.arange(n)
    vx1 = r is not None and r.vstride < 0
    rel = None if vx1 else source_offsets(op, n, inst.align16)
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
        return np.ascontiguousarray(st.grf[rows.idx[:, None, None], index]).view(dtype).reshape(rows.size, n)
    return read


def _dest_writer(op: Operand, n: int, inst: Instruction) -> Callable[[Batch, Rows, np.ndarray, np.ndarray], None]:
    kind = arf_kind(op)
    if kind == "zero":
        return lambda st, rows, values, mask: None
    if kind == "acc":
        idx = acc_index(op, np.arange(n) * max(op.hstride, 1))
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
    rel, lanes = dest_offsets(op, n, inst.align16)
    if op.indirect:
        if op.file != RegFile.GRF:
            raise SimulationError("indirect addressing of an ARF is not modelled")

        def indirect(st: Batch, rows: Rows, values: np.ndarray, mask: np.ndarray) -> None:
            offs = st.a0_word(rows, op.addr_subreg)[:, None] + op.addr_imm + rel
            if offs.min() < 0 or offs.max() + size > NUM_GRF * GRF_SIZE:
                raise SimulationError(f"destination region of r{op.reg} leaves the register file")
            m = mask & lanes if lanes is not None else mask
            raw = np.ascontiguousarray(values.astype(sim_alu.NP_TYPE[op.type])).view(np.uint8)
            raw = raw.reshape(rows.size, n, size)
            b, k = np.nonzero(m)
            index = offs[b, k][:, None] + np.arange(size)
            st.grf[rows.idx[b][:, None], index] = raw[b, k]
        return indirect
    name, base, extent = direct_storage(op)
    offs = base + rel
    if offs.min() < 0 or offs.max() + size > extent:
        raise SimulationError(f"destination region of r{op.reg} leaves the register file")
    if dtype is None:
        raise sim_alu.AluError(f"destination type {op.type.value} is not modelled")
    elem = offs // size
    once = _distinct(elem)
    if name == "flag":
        def flag(st: Batch, rows: Rows, values: np.ndarray, mask: np.ndarray) -> None:
            m = mask & lanes if lanes is not None else mask
            raw = np.packbits(st.fbits[rows.at], axis=1, bitorder="little")
            masked_set(raw.view(dtype), Rows(np.arange(rows.size)), elem, values.astype(dtype, copy=False), m, once)
            st.fbits[rows.at] = np.unpackbits(raw, axis=1, bitorder="little").astype(bool)
        return flag
    cols, _ = columns(elem)
    if not once:
        cols = elem

    def write(st: Batch, rows: Rows, values: np.ndarray, mask: np.ndarray) -> None:
        m = mask & lanes if lanes is not None else mask
        masked_set(st.view(name, dtype), rows, cols, values.astype(dtype, copy=False), m, once)
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
    inverse = pred.inverse
    kind, index = predicate_bits(pred, inst)
    if kind is None:
        bits, _ = columns(index)
        if inverse:
            return lambda st, rows: ~st.fbits[rows.at, bits]
        return lambda st, rows: st.fbits[rows.at, bits]

    def grouped(st: Batch, rows: Rows) -> np.ndarray:
        window: np.ndarray = st.fbits[rows.idx[:, None, None], index]
        val = np.any(window, axis=2) if kind == "any" else np.all(window, axis=2)
        return ~val if inverse else val
    return grouped


def enabled_lanes(st: Batch, rows: Rows, inst: Instruction, g: slice) -> np.ndarray:
    if inst.mask_ctrl_we_all:
        return np.ones((rows.size, inst.exec_size), bool)
    return st.em[rows.at, g]


def flag_writer(inst: Instruction) -> Callable[[Batch, Rows, np.ndarray, np.ndarray], None]:
    """Conditional-modifier flag update of the enabled channels only (values, mask: [threads, n])."""
    bits = condition_bits(inst)
    return lambda st, rows, values, mask: masked_set(st.fbits, rows, bits, values, mask, True)


# ---- ALU --------------------------------------------------------------------------------------------

def _loader(read: Callable[[Batch, Rows], np.ndarray], t: DataType, abs_: bool, neg: bool, logic: bool,
            floaty: bool) -> Callable[[Batch, Rows], np.ndarray]:
    """A source's lanes of every thread flattened, widened and modified (sim_alu.widen, apply_modifiers),
    then as float64 when the instruction computes in floats."""
    wide = np.float64 if sim_alu.is_float(t) else np.int64
    to_float = floaty and wide is np.int64
    if not (neg or (abs_ and not logic) or to_float):
        return lambda st, rows: read(st, rows).astype(wide).reshape(-1)

    def load(st: Batch, rows: Rows) -> np.ndarray:
        x = sim_alu.apply_modifiers(read(st, rows).astype(wide).reshape(-1), t, abs_, neg, logic)
        return x.astype(np.float64) if to_float else x
    return load


def alu_plan(inst: Instruction, addr: int) -> Callable[[Batch, Rows], None]:
    """simulator.Thread._alu for a batch: lanes of every thread flattened through sim_alu."""
    op = inst.opcode
    n = inst.exec_size
    g = channels_of(inst)
    if op != "math" and len(inst.srcs) == 0:
        raise SimulationError(f"{op} without sources")
    logic = op in sim_alu.LOGIC_OPS
    types = [_PACKED.get(s.type, s.type) for s in inst.srcs]
    floaty = any(sim_alu.is_float(t) for t in types)
    loads = [_loader(source_reader(s, n, inst), ty, s.abs, s.neg, logic, floaty) for s, ty in zip(inst.srcs, types)]
    unsigned = DataType.UQ in types and not floaty          # compare as uint64 (_unsigned_64)
    pred_fn = predicate_reader(inst)
    sel_plain = op == "sel" and inst.cond_mod is None
    dst = inst.dst
    if op == "cmp" and inst.cond_mod is None:
        raise SimulationError("cmp without a conditional modifier")
    compare = None
    if op == "cmp" or (op == "sel" and inst.cond_mod is not None):
        compare = sim_alu.comparer(inst.cond_mod or "")
        if compare is None:
            raise SimulationError(f"{op}.{inst.cond_mod} is not modelled")
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
    flags = flag_writer(inst) if op == "cmp" or inst.cond_mod is not None else None
    to_t = sim_alu.converter(t, inst.saturate) if op != "cmp" else None
    wide_t = np.float64 if sim_alu.is_float(t) else np.int64
    cond = sim_alu.conditioner(inst.cond_mod) if inst.cond_mod is not None and op not in ("cmp", "sel") else None

    def masks(st: Batch, rows: Rows) -> tuple[np.ndarray, np.ndarray | None]:
        en = enabled_lanes(st, rows, inst, g)
        pred = pred_fn(st, rows) if pred_fn is not None else None
        mask = en if sel_plain or pred is None else en & pred
        if st.trace is not None:
            st.emit(rows, addr, inst, mask)
        return mask, pred

    unsigned_to_float = unsigned and sim_alu.is_float(t)    # a :uq converted to a float: its bits are unsigned

    def finish(st: Batch, rows: Rows, result: np.ndarray, mask: np.ndarray) -> None:
        assert to_t is not None
        typed = to_t(result.astype(np.uint64) if unsigned_to_float else result).reshape(rows.size, n)
        if write is not None:
            write(st, rows, typed, mask)
        if acc_write is not None:
            acc_write(st, rows, typed, mask)
        if cond is not None and flags is not None:
            flags(st, rows, cond(typed.astype(wide_t)), mask)

    if op == "cmp":
        assert compare is not None and flags is not None
        cmp_write = None
        if write is not None and dst is not None:
            uint = np.dtype(f"<u{dst.type.size}")
            true, false, as_dst = uint.type(np.iinfo(uint).max), uint.type(0), sim_alu.NP_TYPE[dst.type]
            cmp_write = write

        def run_cmp(st: Batch, rows: Rows) -> None:
            mask, _ = masks(st, rows)
            xs = [load(st, rows) for load in loads]
            x0, x1 = (xs[0].astype(np.uint64), xs[1].astype(np.uint64)) if unsigned else (xs[0], xs[1])
            flag_val = compare(x0, x1).reshape(rows.size, n)
            if cmp_write is not None:
                cmp_write(st, rows, np.where(flag_val, true, false).astype(uint).view(as_dst), mask)
            flags(st, rows, flag_val, mask)
        return run_cmp
    if op == "sel":
        def run_sel(st: Batch, rows: Rows) -> None:
            mask, pred = masks(st, rows)
            xs = [load(st, rows) for load in loads]
            if compare is None:
                choose0 = pred.reshape(-1) if pred is not None else np.ones(rows.size * n, bool)
            else:
                a, bb = xs[0], xs[1]
                c = compare(a.astype(np.uint64), bb.astype(np.uint64)) if unsigned else compare(a, bb)
                if floaty:
                    c = np.where(np.isnan(a), False, np.where(np.isnan(bb), True, c))
                choose0 = c
            finish(st, rows, np.where(choose0, xs[0], xs[1]), mask)
        return run_sel
    assert compute is not None

    def run(st: Batch, rows: Rows) -> None:
        mask, _ = masks(st, rows)
        xs = [load(st, rows) for load in loads]
        acc = None
        if op == "mac":
            acc = (st.acc_f if floaty else st.acc_i)[rows.at, :n].reshape(-1)
        finish(st, rows, compute(xs, acc), mask)
        if mach_acc is not None and inst.acc_wr_en:
            low = (xs[0].astype(np.int64) * xs[1].astype(np.int64)) & 0xFFFFFFFF   # low 32 bits wrap exactly
            mach_acc(st, rows, low.astype(np.uint32).reshape(rows.size, n), mask)
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
            em = st.em[rows.at, g]
            leave = em & ~p_of(st, rows)
            st.park(jip, rows, g, leave)
            em &= ~leave
            st.em[rows.at, g] = em
            return np.where(em.any(axis=1), nxt, jip)
        return if_
    if op == "else":
        def else_(st: Batch, rows: Rows) -> np.ndarray:
            st.park(jip, rows, g, st.em[rows.at, g])
            st.em[rows.at, g] = False
            waiting = st.resume.get(nxt)
            if waiting is None:
                return np.full(rows.size, jip, np.int64)
            return np.where(waiting[rows.at, g].any(axis=1), nxt, jip)
        return else_
    if op in ("endif", "join"):
        always = inst.jip in (None, 0)

        def endif(st: Batch, rows: Rows) -> np.ndarray | int:
            if always:
                return nxt
            return np.where(st.em[rows.at, g].any(axis=1), nxt, jip)
        return endif
    if op == "while":
        def while_(st: Batch, rows: Rows) -> np.ndarray:
            em = st.em[rows.at, g]
            p = p_of(st, rows)
            stay = em & p
            st.park(nxt, rows, g, em & ~p)
            st.em[rows.at, g] = stay
            return np.where(stay.any(axis=1), jip, nxt)
        return while_
    if op in ("break", "cont", "halt", "goto"):
        park_at = leave_target(op, uip, st.index, st.program)

        def leave_(st: Batch, rows: Rows) -> np.ndarray:
            em = st.em[rows.at, g]
            leave = em & p_of(st, rows)
            st.park(park_at, rows, g, leave)
            em &= ~leave
            st.em[rows.at, g] = em
            return np.where(em.any(axis=1), nxt, jip)
        return leave_
    raise ControlError(f"branch {op} is not modelled")
