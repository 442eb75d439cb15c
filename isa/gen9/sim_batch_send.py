"""The batched simulator's SEND plans: sim_messages.execute_send for every thread of a batch at once, with
memory effects in the one-thread order (thread, then channel, byte and lane; atomics lane by lane).
"""
from __future__ import annotations

from typing import TYPE_CHECKING, Callable

import numpy as np

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
from .model import Instruction
from .registers import (
    GRF_SIZE,
    NUM_GRF,
)
from .sim_memory import OutOfBounds
from .sim_messages import MessageError, _atomic, _byte_size, _untyped_channels, decode
from .simulator import SimulationError

if TYPE_CHECKING:
    from .sim_batch import Batch
from .sim_batch_ops import Rows, ThreadFault, columns, masked_set

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
            self.base = st.group_of[rows.at] * self.extent
        elif bti == BTI_STATELESS:
            self.space, self.buf, self.extent = "scratch", st.scratch.reshape(-1), st.scratch.shape[1]
            self.base = st.group_of[rows.at] * self.extent
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
            raise ThreadFault(b, OutOfBounds(self.space, self.bti, int(offs[b, c, lane]), size, write, lane,
                                        self.extent))

    def load(self, offs: np.ndarray, size: int, active: np.ndarray) -> np.ndarray:
        return _gather(self.buf, offs, self.base, self.extent, size, active)

    def store(self, offs: np.ndarray, values: np.ndarray, size: int, active: np.ndarray) -> None:
        _scatter(self.buf, offs, self.base, self.extent, values, size, active)


def _gather(buf: np.ndarray, offs: np.ndarray, base: np.ndarray, extent: int, size: int,
            active: np.ndarray) -> np.ndarray:
    """sim_memory.gather per thread: offs [rows, ...] within each thread's space of `extent` bytes at base."""
    ok = active & (offs >= 0) & (offs + size <= extent)
    out = np.zeros(offs.shape, np.uint64)
    if not ok.any():
        return out
    at = np.where(ok, offs + base.reshape((-1,) + (1,) * (offs.ndim - 1)), 0)
    words = _words(buf, at, size)
    if words is not None:                                       # aligned: one gather of whole words
        return np.where(ok, words[0][words[1]], 0).astype(np.uint64)
    raw = buf[at[..., None] + np.arange(size)]                  # the bytes, little-endian, one gather
    value = raw.view(np.dtype(f"<u{size}"))[..., 0] if size in (1, 2, 4, 8) else None
    if value is None:
        for k in range(size):
            out |= raw[..., k].astype(np.uint64) << np.uint64(8 * k)
        return np.where(ok, out, 0)
    return np.where(ok, value, 0).astype(np.uint64)


def _words(buf: np.ndarray, at: np.ndarray, size: int) -> tuple[np.ndarray, np.ndarray] | None:
    """(buf as little-endian words of `size` bytes, each byte offset's word index) where every offset is a
    multiple of `size`: then one word gather or scatter does what the byte loop does; else None."""
    if size == 1:
        return buf, at
    if size not in (2, 4, 8) or buf.size % size or (at & (size - 1)).any():
        return None
    return buf.view(f"<u{size}"), at >> (size.bit_length() - 1)


def _scatter(buf: np.ndarray, offs: np.ndarray, base: np.ndarray, extent: int, values: np.ndarray, size: int,
             active: np.ndarray) -> None:
    """sim_memory.scatter per thread, channel by channel, in the one-thread simulator's order: thread, then
    channel, then byte, then lane (offs, values, active: [rows, channels, lanes]); a later write wins."""
    ok = active & (offs >= 0) & (offs + size <= extent)
    if not ok.any():
        return
    at = offs + base[:, None, None]
    words = _words(buf, at[ok], size)
    if words is not None:           # aligned: whole words, in the same order (an overlap is a whole word)
        words[0][words[1]] = values[ok].astype(words[0].dtype)
        return
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
    payload_bytes, _ = columns((np.array(regs, np.int64)[:, None] * GRF_SIZE + np.arange(GRF_SIZE)).reshape(-1))
    rows_of = "at" if isinstance(payload_bytes, slice) else "col"

    def payload(st: Batch, rows: Rows) -> np.ndarray:
        return np.ascontiguousarray(st.grf[getattr(rows, rows_of), payload_bytes]).view(np.uint32)

    def writeback(st: Batch, rows: Rows, dwords: np.ndarray, active: np.ndarray, simd: int) -> None:
        """dwords [rows, rlen rows of data, simd] into the destination registers, active lanes only."""
        if inst.dst is None or d.rlen == 0 or inst.dst.file.value == "arf":
            return
        per_row = max(1, simd // 8)
        view = st.view("grf", np.uint32)
        for row in range(dwords.shape[1]):
            reg = inst.dst.reg + row * per_row
            if reg * 8 + simd > view.shape[1]:
                raise SimulationError(f"message writeback at r{reg} leaves the GRF")
            masked_set(view, rows, slice(reg * 8, reg * 8 + simd), dwords[:, row].astype(np.uint32), active, True)

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
                inside = 0 <= at <= space.extent - 4     # else (unchecked memory) it reads 0, its write is dropped
                at += int(space.base[b])
                old = int.from_bytes(bytes(buf[at:at + 4]), "little") if inside else 0
                a = int(srcs[0][b, lane]) if srcs[0].shape[1] > lane else 0
                c = int(srcs[1][b, lane]) if srcs[1].shape[1] > lane else 0
                new, ret[b, lane] = _atomic(aop, old, a, c)
                if inside:
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
            slot = st.group_of[rows.at] * st.scratch.shape[1] + st.tid[rows.at] * st.memory.scratch_bytes + offset
            index = slot[:, None] + span
            flat = st.scratch.reshape(-1)
            if store:
                flat[index] = payload(st, rows)[:, 8:8 + 8 * nregs].view(np.uint8)
            elif inst.dst is not None and inst.dst.file.value == "grf":
                reg = inst.dst.reg
                if reg < 0 or reg * GRF_SIZE + span.size > NUM_GRF * GRF_SIZE:
                    raise SimulationError(f"write of {span.size} bytes at r{reg} leaves the GRF")
                st.grf[rows.at, reg * GRF_SIZE:reg * GRF_SIZE + span.size] = flat[index]
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
                st.grf[rows.at, reg * GRF_SIZE:(reg + d.rlen) * GRF_SIZE] = 0
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
                raise ThreadFault(b, OutOfBounds("a64", st.memory.flat_bti.get(base), addr - base, size, write, lane,
                                            buf.size))
            raise ThreadFault(b, MessageError(f"A64 access at {addr:#x} (lane {lane}) is outside every buffer"))
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
