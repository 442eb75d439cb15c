"""The batched simulator's SEND plans: sim_messages.execute_send for every thread of a batch at once, with
memory effects in the one-thread order (thread, then channel, byte and lane; atomics lane by lane). What a
message does is sim_messages.message_form's decoding, which the one-thread simulator performs too.
"""
from __future__ import annotations

from typing import TYPE_CHECKING, Callable

import numpy as np

from .messages import BTI_SLM, BTI_STATELESS
from .model import Instruction
from .registers import GRF_SIZE, NUM_GRF
from .sim_batch_ops import Rows, ThreadFault, columns, masked_set
from .sim_memory import OutOfBounds, lane_fault
from .sim_messages import MessageError, MessageForm, _atomic, lanes_of, message_form
from .sim_operands import SimulationError

if TYPE_CHECKING:
    from .sim_batch import Batch


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
            self.slot = st.tid[rows.at] * st.memory.scratch_bytes      # each thread's slot in its group's
        else:
            buf = st.memory.surfaces.get(bti)
            if buf is None:
                raise MessageError(f"no surface bound at binding table index {bti}")
            self.space, self.buf, self.extent = "surface", buf, buf.size
            self.base = np.zeros(rows.size, np.int64)

    def check(self, st: Batch, offs: np.ndarray, size: int, active: np.ndarray, write: bool,
              obj: tuple[str, int, int] | None = None) -> None:
        """offs, active: [rows, channels, lanes] (offsets within the thread's own space); `obj`: the one
        private or __local object the send may touch (sim_memory.Memory.send_objects)."""
        if not st.memory.checked:
            return
        bad = active & ((offs < 0) | (offs + size > self.extent))
        if bad.any():
            b, lane = _first_bad(bad)
            c = int(np.nonzero(bad[b])[0][0])
            raise ThreadFault(b, OutOfBounds(self.space, self.bti, int(offs[b, c, lane]), size, write, lane,
                                        self.extent))
        frames = st.memory.private_arrays
        if self.space == "scratch" and frames is not None:         # offsets in the lane's own frame
            rel = offs - self.slot[:, None, None] - np.arange(offs.shape[-1]) * frames[0]
        elif self.space == "slm" and obj is not None:
            rel = offs
        else:
            return
        found = lane_fault(st.memory, obj, rel, size, active, write)
        if found is not None:
            raise ThreadFault(found[0][0], found[1])

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
    f = message_form(inst)
    d = f.d
    if f.kind == "none":
        return lambda st, rows, mask: None
    if f.kind == "barrier":
        return lambda st, rows, mask: "barrier"
    obj = st.memory.send_objects.get(addr)
    payload_bytes, _ = columns((np.array(f.regs, np.int64)[:, None] * GRF_SIZE + np.arange(GRF_SIZE)).reshape(-1))
    rows_of = "at" if isinstance(payload_bytes, slice) else "col"
    simd = f.simd

    def payload(st: Batch, rows: Rows) -> np.ndarray:
        return np.ascontiguousarray(st.grf[getattr(rows, rows_of), payload_bytes]).view(np.uint32)

    def writeback(st: Batch, rows: Rows, dwords: np.ndarray, active: np.ndarray) -> None:
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

    if f.kind == "surface":
        chans = np.array(f.channels, np.int64)

        def surface(st: Batch, rows: Rows, mask: np.ndarray) -> None:
            """Scattered reads/writes (sim_messages._transfer); channel c at byte 4c past each address."""
            p = payload(st, rows)
            active = lanes_of(mask, simd)
            space = _Space(st, d.bti, rows)
            offs = p[:, f.start:f.start + simd].astype(np.int64)[:, None, :] + 4 * chans[None, :, None]
            act = np.broadcast_to(active[:, None, :], offs.shape)
            space.check(st, offs, f.size, act, f.write, obj)
            if f.write:
                values = p[:, f.start + simd:f.start + simd * (1 + chans.size)].reshape(rows.size, chans.size, simd)
                space.store(offs, values, f.size, act)
            else:
                writeback(st, rows, space.load(offs, f.size, act).astype(np.uint32), active)
        return surface
    if f.kind == "a64":
        return _a64_plan(f, payload, writeback)
    if f.kind == "atomic":
        def atomic(st: Batch, rows: Rows, mask: np.ndarray) -> None:
            p = payload(st, rows)
            addrs = p[:, f.start:f.start + simd].astype(np.int64)
            srcs = [p[:, f.start + simd * (1 + k): f.start + simd * (2 + k)] for k in range(2)]
            active = lanes_of(mask, simd)
            space = _Space(st, d.bti, rows)
            space.check(st, addrs[:, None, :], 4, active[:, None, :], True, obj)
            ret = np.zeros((rows.size, simd), np.uint32)
            buf = space.buf
            for b, lane in zip(*np.nonzero(active)):     # thread by thread, lanes in order
                at = int(addrs[b, lane])
                inside = 0 <= at <= space.extent - 4     # else (unchecked memory) it reads 0, its write is dropped
                at += int(space.base[b])
                old = int.from_bytes(bytes(buf[at:at + 4]), "little") if inside else 0
                a = int(srcs[0][b, lane]) if srcs[0].shape[1] > lane else 0
                c = int(srcs[1][b, lane]) if srcs[1].shape[1] > lane else 0
                new, ret[b, lane] = _atomic(f.aop, old, a, c)
                if inside:
                    buf[at:at + 4] = np.frombuffer(new.to_bytes(4, "little"), np.uint8)
            if f.returns:
                writeback(st, rows, ret[:, None, :], active)
        return atomic
    if f.kind == "scratch":
        span = np.arange(32 * f.nregs)

        def scratch(st: Batch, rows: Rows, mask: np.ndarray) -> None:
            if f.offset + span.size > st.memory.scratch_bytes:
                raise MessageError("scratch access beyond the thread's scratch space")
            slot = st.group_of[rows.at] * st.scratch.shape[1] + st.tid[rows.at] * st.memory.scratch_bytes + f.offset
            index = slot[:, None] + span
            flat = st.scratch.reshape(-1)
            if f.write:
                flat[index] = payload(st, rows)[:, 8:8 + 8 * f.nregs].view(np.uint8)
            elif inst.dst is not None and inst.dst.file.value == "grf":
                reg = inst.dst.reg
                if reg < 0 or reg * GRF_SIZE + span.size > NUM_GRF * GRF_SIZE:
                    raise SimulationError(f"write of {span.size} bytes at r{reg} leaves the GRF")
                st.grf[rows.at, reg * GRF_SIZE:reg * GRF_SIZE + span.size] = flat[index]
        return scratch
    assert f.kind == "fence"

    def fence(st: Batch, rows: Rows, mask: np.ndarray) -> None:
        if inst.dst is not None and inst.dst.file.value == "grf" and d.rlen:
            reg = inst.dst.reg
            if reg < 0 or (reg + d.rlen) * GRF_SIZE > NUM_GRF * GRF_SIZE:
                raise SimulationError(f"write of {32 * d.rlen} bytes at r{reg} leaves the GRF")
            st.grf[rows.at, reg * GRF_SIZE:(reg + d.rlen) * GRF_SIZE] = 0
    return fence


def _a64_plan(f: MessageForm, payload, writeback) -> Callable[[Batch, Rows, np.ndarray], None]:
    """A64 stateless messages (sim_messages.execute_send): each lane's 64-bit address into the flat space."""
    simd, size, write = f.simd, f.size, f.write
    chans = np.array(f.channels, np.uint64)

    def a64(st: Batch, rows: Rows, mask: np.ndarray) -> None:
        p = payload(st, rows)
        active = lanes_of(mask, simd)
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
            values = p[:, 2 * simd:2 * simd + simd * chans.size].reshape(rows.size, chans.size, simd)
            for buf, offs, inside in parts:
                _scatter(buf, offs, zero, buf.size, values, size, inside)
        else:
            got = np.zeros(addrs.shape, np.uint64)
            for buf, offs, inside in parts:
                got |= _gather(buf, offs, zero, buf.size, size, inside)
            writeback(st, rows, got.astype(np.uint32), active)
    return a64
