"""Loads and stores of many lanes at once: numpy gathers and scatters over the flat memory.

The address space and its buffers are lowering.interp.memory's (same arenas, guards and error texts);
here each buffer also has a numpy byte view, and a buffer may be *sliced*: one allocation holding a slot
per lane (allocas: private memory) or per work-group (__local arrays and __local pointer arguments), the
slots `stride` bytes apart and `slot` bytes long. An access is checked against its lane's own slot (not
a neighbour's: lane k's slot is k // `per`), as the per-work-item interpreter checks it against that
item's own buffer, with the same messages.

An access first tries the buffer the instruction hit last (one min/max test over the lanes); otherwise
every lane's buffer is found with a binary search over the buffers' bases. The first failing lane (in lane
order) is reported; `LaneError` carries it to the executor, which names the work-item.
"""
from __future__ import annotations

from typing import Any

import numpy as np

from reconverge.lowering.interp.memory import Memory, _check_alignment
from reconverge.lowering.interp.values import InterpreterError, mask
from reconverge.lowering.interp.vector.lanes import Array, LaneError, dtype_of
from reconverge.lowering.ir.types import Type


class Buffer:
    """A mapped region with its byte view; `stride`/`slot`: the per-lane (or per-group) slots, if sliced."""
    __slots__ = ("base", "size", "end", "bytes", "readonly", "stride", "slot", "per", "name", "kind")

    def __init__(self, region: Any, stride: int = 0, slot: int = 0, per: int = 1):
        self.base, self.size = region.base, region.size
        self.end = region.base + region.size
        self.bytes = np.frombuffer(region.data, np.uint8) if region.size else np.zeros(0, np.uint8)
        self.readonly, self.name, self.kind = region.readonly, region.name, region.kind
        self.stride, self.slot, self.per = stride, slot, per      # per: lanes sharing a slot


class VectorMemory:
    def __init__(self, fill: int = 0):
        self.memory = Memory(fill)
        self.buffers: list[Buffer] = []
        self._bases = np.zeros(0, np.uint64)

    # ----- mapping -----
    def _add(self, buf: Buffer) -> Buffer:
        self.buffers.append(buf)
        self.buffers.sort(key=lambda b: b.base)
        self._bases = np.array([b.base for b in self.buffers], dtype=np.uint64)
        return buf

    def map_array(self, kind: str, name: str, array: np.ndarray, readonly: bool = False) -> Buffer:
        return self._add(Buffer(self.memory.map_array(kind, name, array, readonly)))

    def allocate(self, kind: str, name: str, size: int, align: int = 1, init: bytes | None = None,
                 readonly: bool = False) -> Buffer:
        return self._add(Buffer(self.memory.allocate(kind, name, size, align, init, readonly)))

    def allocate_slots(self, kind: str, name: str, size: int, align: int, count: int,
                       per: int = 1) -> tuple[Buffer, int]:
        """`count` slots of `size` bytes, each aligned to `align` (and 16), 64 bytes of gap between them,
        slot k for lanes k * per .. k * per + per - 1; returns the buffer and the stride."""
        a = max(16, align)
        stride = (max(size, 1) + 64 + a - 1) // a * a
        buf = self._add(Buffer(self.memory.allocate(kind, name, stride * count, a), stride, size, per))
        return buf, stride

    def reset(self, kind: str) -> None:
        self.memory.reset(kind)
        self.buffers = [b for b in self.buffers if b.kind != kind]
        self._bases = np.array([b.base for b in self.buffers], dtype=np.uint64)

    # ----- checking -----
    def locate(self, addr: Array, lanes: Array, size: int, align: int, write: bool,
               cache: list[Any]) -> tuple[Any, Array]:
        """(one Buffer, or a buffer index per lane; byte offsets) for the accessed lanes; errors name the lane.

        `addr`: the lanes' addresses (uint64), `lanes`: their lane numbers."""
        if align > 1:
            bad = (addr % np.uint64(align)) != 0
            if bad.any():
                k = int(np.argmax(bad))
                try:
                    _check_alignment(int(addr[k]), align)
                except InterpreterError as e:
                    raise LaneError(int(lanes[k]), e) from None
        if not len(addr):
            return np.zeros(0, np.intp), np.zeros(0, np.int64)
        buf = cache[0]
        lo, hi = int(addr.min()), int(addr.max())
        if buf is None or not (buf.base <= lo and hi + size <= buf.end):
            i = int(np.searchsorted(self._bases, np.uint64(lo), side="right")) - 1
            buf = self.buffers[i] if i >= 0 else None
            if buf is not None and hi + size <= buf.end and lo >= buf.base:
                cache[0] = buf
            else:
                return self._locate_each(addr, lanes, size, write)
        off = (addr - np.uint64(buf.base)).astype(np.int64)
        self._check_buffer(buf, addr, off, lanes, size, write)
        return buf, off

    def _check_buffer(self, buf: Buffer, addr: Array, off: Array, lanes: Array, size: int, write: bool) -> None:
        if write and buf.readonly:
            self._fail(int(addr[0]), int(lanes[0]), size, write)
        if buf.stride:
            inside = off - (np.asarray(lanes, np.int64) // buf.per) * buf.stride     # from the lane's own slot
            bad = (inside < 0) | (inside + size > buf.slot)
            if bad.any():
                k = int(np.argmax(bad))
                what = "store to" if write else "load from"
                a, o = int(addr[k]), int(inside[k])
                start = a - o
                desc = f"{buf.kind} buffer {buf.name!r} ({buf.slot} bytes at {start:#x})"
                if 0 <= o < buf.slot:
                    msg = f"out-of-bounds {size}-byte {what} offset {o}: straddles the end of {desc}"
                elif o < 0:
                    msg = f"out-of-bounds {what} address {a:#x} ({size} bytes): {-o} bytes before {desc}"
                else:
                    msg = (f"out-of-bounds {what} address {a:#x} ({size} bytes): {o - buf.slot} bytes past "
                           f"the end of {desc}")
                raise LaneError(int(lanes[k]), InterpreterError(msg))

    def _locate_each(self, addr: Array, lanes: Array, size: int, write: bool) -> tuple[Any, Array]:
        """Lanes in different buffers: find each lane's; the first out-of-bounds lane is an error."""
        idx = np.searchsorted(self._bases, addr, side="right").astype(np.intp) - 1
        ok = np.asarray(idx >= 0)
        safe = np.where(ok, idx, 0)
        ends = np.array([b.end for b in self.buffers], dtype=np.uint64)
        if len(self.buffers):
            ok &= (addr + np.uint64(size) <= ends[safe]) & (addr >= self._bases[safe])
        else:
            ok[:] = False
        if not ok.all():
            k = int(np.argmax(~ok))
            self._fail(int(addr[k]), int(lanes[k]), size, write)
        off = (addr - self._bases[idx]).astype(np.int64)
        for i in np.unique(idx).tolist():
            sel = idx == i
            self._check_buffer(self.buffers[i], addr[sel], off[sel], lanes[sel], size, write)
        return idx, off

    def _fail(self, addr: int, lane: int, size: int, write: bool) -> None:
        try:
            self.memory.locate(addr, size, write)
        except InterpreterError as e:
            raise LaneError(lane, e) from None
        raise LaneError(lane, InterpreterError(f"bad address {addr:#x}"))    # pragma: no cover

    # ----- access -----
    def load(self, ty: Type, addr: Array, lanes: Array, align: int, cache: list[Any]) -> Array:
        """The values of type `ty` at the lanes' addresses (lane arrays of the accessed lanes only)."""
        size = ty.size
        where, off = self.locate(addr, lanes, size, align, False, cache)
        dt = dtype_of(ty)
        aligned = align >= size
        if isinstance(where, Buffer):
            return self._gather(where, off, ty, size, dt, aligned)
        out = np.empty(len(addr), dtype=dt)
        for i in np.unique(where).tolist():
            sel = where == i
            out[sel] = self._gather(self.buffers[i], off[sel], ty, size, dt, aligned)
        return out

    def _gather(self, buf: Buffer, off: Array, ty: Type, size: int, dt: np.dtype, aligned: bool) -> Array:
        """`aligned`: the instruction's alignment (checked) covers the size, so no offset needs the test."""
        data = buf.bytes
        if dt.kind == "O":
            raw = data[off[:, None] + np.arange(size)]
            out = np.empty(len(off), dtype=object)
            out[:] = [int.from_bytes(r.tobytes(), "little") & mask(ty.bits) for r in raw]
            return out
        if size == dt.itemsize and size > 1 and not buf.base % size and (aligned or not (off % size).any()):
            words = data[:len(data) - len(data) % size].view(dt)
            vals = words[off // size]
        elif size == 1:
            vals = data[off]
        else:
            raw = data[off[:, None] + np.arange(size)]
            if size != dt.itemsize:                  # odd widths: pad to the container
                raw = np.concatenate([raw, np.zeros((len(off), dt.itemsize - size), np.uint8)], axis=1)
            vals = np.ascontiguousarray(raw).view(dt.newbyteorder("<") if dt.kind != "b" else np.uint8).reshape(-1)
        if dt.kind == "b":
            return (np.asarray(vals, np.uint8) & 1).astype(bool)
        vals = vals.astype(dt, copy=False)
        if ty.is_int and ty.bits not in (8, 16, 32, 64):
            vals = vals & dt.type(mask(ty.bits))
        return vals

    def store(self, ty: Type, addr: Array, values: Array, lanes: Array, align: int, cache: list[Any]) -> None:
        """Store each lane's value; lanes writing the same bytes: the last lane's value stays."""
        size = ty.size
        where, off = self.locate(addr, lanes, size, align, True, cache)
        dt = dtype_of(ty)
        aligned = align >= size
        if isinstance(where, Buffer):
            self._scatter(where, off, values, size, dt, aligned)
            return
        for i in np.unique(where).tolist():
            sel = where == i
            self._scatter(self.buffers[i], off[sel], values[sel], size, dt, aligned)

    def _scatter(self, buf: Buffer, off: Array, values: Array, size: int, dt: np.dtype, aligned: bool) -> None:
        data = buf.bytes
        if dt.kind == "O":
            for o, v in zip(off.tolist(), values.tolist()):
                data[o:o + size] = np.frombuffer(int(v).to_bytes(size, "little"), np.uint8)
            return
        if dt.kind == "b":
            values = values.astype(np.uint8)
        if size == values.dtype.itemsize and size > 1 and not buf.base % size and (aligned or not (off % size).any()):
            data[:len(data) - len(data) % size].view(values.dtype)[off // size] = values
        elif size == 1:
            data[off] = values.view(np.uint8) if values.dtype.itemsize == 1 else values.astype(np.uint8)
        else:
            raw = np.ascontiguousarray(values).view(np.uint8).reshape(len(off), -1)[:, :size]
            data[off[:, None] + np.arange(size)] = raw
