"""The interpreter's memory: every buffer at its own address in one flat 64-bit byte-addressed space.

Each kind of memory has an arena of its own at a fixed high address (global at 1 << 40, constant 2 << 40,
local 3 << 40, private 4 << 40), so an address alone says which buffer and which kind it is in, and
address 0 (NULL) is never mapped. Buffers inside an arena sit one after the other with an unmapped guard
gap between them, so running off the end of a buffer is caught rather than silently reading its neighbour.

Pointer arguments are mapped over the caller's numpy arrays (stores land in them in place); `__constant`
data is mapped read-only; `__local` arrays and allocas get fresh bytes (zeros, or the `fill` byte that
stands for uninitialized data), the local arena being reset per work-group and the private one per
work-item (`reset`). Loads and stores go through typed accessors (`loader`, `storer`), one per
instruction, each remembering the buffer it last hit so that the common case is one range check.
"""
from __future__ import annotations

import bisect
import struct
from typing import Any, Callable, cast

import numpy as np

from reconverge.lowering.interp.values import FLOAT_DTYPES, InterpreterError, mask
from reconverge.lowering.ir.types import Type

ARENA_SHIFT = 40
ARENAS = {"global": 1, "constant": 2, "local": 3, "private": 4}
KIND_OF_ADDRSPACE = {0: "private", 1: "global", 2: "constant", 3: "local", 4: "global"}
GUARD = 4096            # unmapped bytes before each buffer
MIN_ALIGN = 64
_INT_FORMATS = {n: struct.Struct("<" + c) for n, c in ((1, "B"), (2, "H"), (4, "I"), (8, "Q"))}
_FLOAT_FORMATS = {16: struct.Struct("<e"), 32: struct.Struct("<f"), 64: struct.Struct("<d")}


def _check_alignment(addr: int, align: int) -> None:
    if align > 1 and addr % align:
        raise InterpreterError(f"address {addr:#x} is not {align}-byte aligned as the instruction declares")


class Region:
    """One mapped buffer: `data` is a writable (or read-only) byte memoryview."""
    __slots__ = ("base", "size", "data", "kind", "name", "readonly", "array")

    def __init__(self, base: int, data: memoryview, kind: str, name: str, readonly: bool,
                 array: np.ndarray | None = None):
        self.base, self.size, self.data = base, len(data), data
        self.kind, self.name, self.readonly, self.array = kind, name, readonly, array

    def describe(self) -> str:
        return f"{self.kind} buffer {self.name!r} ({self.size} bytes at {self.base:#x})"


class Memory:
    def __init__(self, fill: int = 0):
        self.fill = fill                           # the byte fresh (uninitialized) memory holds
        self._bases: dict[int, list[int]] = {i: [] for i in ARENAS.values()}
        self._regions: dict[int, list[Region]] = {i: [] for i in ARENAS.values()}
        self._last: Region | None = None
        self._caches: list[list[Any]] = []              # the per-instruction region caches of loader/storer

    # ----- mapping -----
    def _place(self, kind: str, size: int, align: int) -> int:
        arena = ARENAS[kind]
        regions = self._regions[arena]
        top = regions[-1].base + regions[-1].size if regions else arena << ARENA_SHIFT
        align = max(MIN_ALIGN, align)
        base = (top + GUARD + align - 1) // align * align
        if base + size >= (arena + 1) << ARENA_SHIFT:
            raise InterpreterError(f"{kind} memory exhausted")
        return base

    def _add(self, region: Region) -> Region:
        arena = region.base >> ARENA_SHIFT
        self._bases[arena].append(region.base)
        self._regions[arena].append(region)
        return region

    def map_array(self, kind: str, name: str, array: np.ndarray, readonly: bool = False) -> Region:
        """Map a numpy array in place (it must be C-contiguous so that stores reach the caller)."""
        if not isinstance(array, np.ndarray):
            raise InterpreterError(f"buffer {name!r} must be a numpy array, got {type(array).__name__}")
        if not array.flags.c_contiguous:
            raise InterpreterError(f"buffer {name!r} is not C-contiguous: stores could not reach it")
        data = memoryview(cast(Any, array.reshape(-1).view(np.uint8)))    # (numpy's stubs: no Buffer)
        if not readonly and data.readonly:
            raise InterpreterError(f"buffer {name!r} is a read-only array")
        base = self._place(kind, len(data), array.dtype.alignment)
        return self._add(Region(base, data, kind, name, readonly, array))

    def allocate(self, kind: str, name: str, size: int, align: int = 1, init: bytes | None = None,
                 readonly: bool = False) -> Region:
        """Fresh bytes: `init` (padded with zeros to `size`), or every byte `self.fill`."""
        buf = bytearray(size) if init is not None or not self.fill else bytearray([self.fill]) * size
        if init is not None:
            buf[:len(init)] = init
        data = memoryview(buf)
        if readonly:
            data = data.toreadonly()
        return self._add(Region(self._place(kind, size, align), data, kind, name, readonly))

    def reset(self, kind: str) -> None:
        """Unmap every buffer of a kind (a new work-item's stack, a new work-group's local memory)."""
        arena = ARENAS[kind]
        if not self._regions[arena]:
            return
        self._bases[arena].clear()
        self._regions[arena].clear()
        self._last = None
        for cache in self._caches:                 # forget the unmapped buffers, keep the others
            if cache[1] >> ARENA_SHIFT == arena:
                cache[:] = b"", 0, 0

    # ----- access -----
    def locate(self, addr: int, size: int, write: bool) -> tuple[Region, int]:
        """The region holding bytes [addr, addr+size) and the offset in it, or a precise error."""
        r = self._last
        if r is not None and r.base <= addr and addr + size <= r.base + r.size:
            off = addr - r.base
        else:
            bases = self._bases.get(addr >> ARENA_SHIFT)
            what = "store to" if write else "load from"
            if not bases:
                kind = "a null" if addr == 0 else "an unmapped"
                raise InterpreterError(f"{what} {kind} address {addr:#x} ({size} bytes)")
            i = bisect.bisect_right(bases, addr) - 1
            regions = self._regions[addr >> ARENA_SHIFT]
            if i < 0:
                raise InterpreterError(f"out-of-bounds {what} address {addr:#x}: {bases[0] - addr} bytes before "
                                       f"{regions[0].describe()}")
            r = regions[i]
            off = addr - r.base
            if off + size > r.size:
                if off < r.size:
                    raise InterpreterError(f"out-of-bounds {size}-byte {what} offset {off}: straddles the end of "
                                           f"{r.describe()}")
                raise InterpreterError(f"out-of-bounds {what} address {addr:#x} ({size} bytes): "
                                       f"{off - r.size} bytes past the end of {r.describe()}")
            self._last = r
        if write and r.readonly:
            raise InterpreterError(f"store to read-only {r.describe()} at offset {off}")
        return r, off

    def load(self, addr: int, ty: Type) -> Any:
        return self.loader(ty, cached=False)(addr)

    def store(self, addr: int, ty: Type, value: Any) -> None:
        self.storer(ty, cached=False)(addr, value)

    def loader(self, ty: Type, align: int = 1, cached: bool = True) -> Callable[[int], Any]:
        """A load function for one type (one per load instruction: it caches the last region it hit).

        `align`: the alignment the instruction promises; an address that breaks it is an error (UB)."""
        last: list[Any] = [b"", 0, 0]
        size, slow = ty.size, self._slow_path(ty.size, align, False)
        if cached:
            self._caches.append(last)                # [data, base, end] of the last region; reset() empties it

        def hit(addr: int) -> bool:
            return last[1] <= addr and addr + size <= last[2] and not addr % align

        if ty.is_float:
            dt, frombuffer = FLOAT_DTYPES[ty.bits], np.frombuffer

            def load_float(addr: int) -> Any:
                if last[1] <= addr and addr + size <= last[2] and not addr % align:
                    return frombuffer(last[0], dt, 1, addr - last[1])[0]     # bit-exact, NaNs included
                data, off = slow(addr, last)
                return frombuffer(data, dt, 1, off)[0]
            return load_float
        if size in _INT_FORMATS and ty.bits == 8 * size:
            unpack = _INT_FORMATS[size].unpack_from

            def load_int(addr: int) -> int:
                if last[1] <= addr and addr + size <= last[2] and not addr % align:
                    value: int = unpack(last[0], addr - last[1])[0]
                    return value
                value = unpack(*slow(addr, last))[0]
                return value
            return load_int
        m = mask(ty.bits)

        def load_bits(addr: int) -> int:              # i1 (a byte) and odd widths
            data, off = (last[0], addr - last[1]) if hit(addr) else slow(addr, last)
            return int.from_bytes(data[off:off + size], "little") & m
        return load_bits

    def storer(self, ty: Type, align: int = 1, cached: bool = True) -> Callable[[int, Any], None]:
        """A store function for one type, with its own region cache (writable regions only).

        Values arrive masked to their type, so integers need no masking here."""
        last: list[Any] = [b"", 0, 0]
        size, slow = ty.size, self._slow_path(ty.size, align, True)
        if cached:
            self._caches.append(last)

        if ty.is_float:
            dt, pack = FLOAT_DTYPES[ty.bits], _FLOAT_FORMATS[ty.bits].pack_into

            def store_float(addr: int, value: Any) -> None:
                if last[1] <= addr and addr + size <= last[2] and not addr % align:
                    data, off = last[0], addr - last[1]
                else:
                    data, off = slow(addr, last)
                if value == value:
                    pack(data, off, value)                       # exact for every non-NaN value
                else:                                            # NaN: keep the payload bit for bit
                    data[off:off + size] = dt(value).tobytes()
            return store_float
        if size in _INT_FORMATS:
            pack_int = _INT_FORMATS[size].pack_into

            def store_int(addr: int, value: int) -> None:
                if last[1] <= addr and addr + size <= last[2] and not addr % align:
                    pack_int(last[0], addr - last[1], value)
                else:
                    data, off = slow(addr, last)
                    pack_int(data, off, value)
            return store_int

        def store_bytes(addr: int, value: int) -> None:
            data, off = slow(addr, last)
            data[off:off + size] = value.to_bytes(size, "little")
        return store_bytes

    def _slow_path(self, size: int, align: int, write: bool) -> Callable[[int, list[Any]], tuple[memoryview, int]]:
        """(addr, cache) -> (data, offset): check alignment and bounds, and refill the accessor's cache."""
        locate = self.locate

        def slow(addr: int, last: list[Any]) -> tuple[memoryview, int]:
            _check_alignment(addr, align)
            r, off = locate(addr, size, write)
            last[:] = r.data, r.base, r.base + r.size
            return r.data, off
        return slow

    def read_bytes(self, addr: int, size: int) -> bytes:
        r, off = self.locate(addr, size, False)
        return bytes(r.data[off:off + size])
