"""Memory seen by simulated Gen9 threads: surfaces by binding-table index, shared local memory, scratch.

Kept apart from the EU model so the SEND decoder (sim_messages) only asks "which bytes does BTI n mean
for this thread" and the host side only hands numpy arrays in and reads them back.

Out-of-bounds accesses: by default they follow bounds-checked buffer surfaces, as the hardware does
with a buffer surface state that gives the size: reads return 0, writes are dropped (what a
hand-written program run by `reconverge trace` gets). A Memory made with `checked=True` (the `gen` run
target's) raises OutOfBounds instead, naming the space, the binding-table index or A64 address, the
byte offset, the size and the lane, so that an out-of-bounds access in a compiled kernel is an error
and not a silently wrong result.
"""
from __future__ import annotations

import numpy as np

BTI_SLM = 254          # Mesa brw_eu_defines.h GFX7_BTI_SLM
BTI_STATELESS = 255    # Mesa brw_eu_defines.h BRW_BTI_STATELESS: A32 addresses into the scratch space


def as_bytes(array: np.ndarray) -> np.ndarray:
    """A writable uint8 view sharing memory with `array`, so results are visible to the caller."""
    a = np.asarray(array)
    if not a.flags.c_contiguous:
        raise ValueError("surface arrays must be C-contiguous")
    return a.reshape(-1).view(np.uint8)


class OutOfBounds(Exception):
    """An access outside its buffer under a checked Memory: `space` is "surface" (binding-table index
    `bti`), "slm", "scratch" or "a64" (`bti` the buffer the address lies past, or None); `offset` the
    byte offset from that buffer's start, `extent` its size in bytes, `lane` the first lane at fault."""

    def __init__(self, space: str, bti: int | None, offset: int, size: int, write: bool, lane: int,
                 extent: int):
        self.space, self.bti, self.offset, self.size = space, bti, offset, size
        self.write, self.lane, self.extent = write, lane, extent
        where = f"binding table index {bti}" if space == "surface" else space
        super().__init__(f"out-of-bounds {'store' if write else 'load'} of {size} bytes at offset {offset} "
                         f"of {where} ({extent} bytes), lane {lane}")


class Memory:
    """Surfaces (global buffers) shared by every thread; SLM per workgroup; scratch per thread
    (scratch_bytes, a multiple of 1 KiB as r0.5 counts it)."""

    def __init__(self, surfaces: dict[int, np.ndarray] | None = None, slm_bytes: int = 64 * 1024,
                 scratch_bytes: int = 16 * 1024, checked: bool = False):
        self.checked = checked                           # out-of-bounds accesses raise OutOfBounds
        self.surfaces: dict[int, np.ndarray] = {}
        for bti, arr in (surfaces or {}).items():
            self.bind(bti, arr)
        self.flat: list[tuple[int, np.ndarray]] = []     # A64 address -> buffer, by range
        self.flat_bti: dict[int, int] = {}                # A64 base -> the buffer's binding-table index
        self.slm_bytes = slm_bytes
        self.scratch_bytes = scratch_bytes
        # a compiled kernel's private arrays, for a checked Memory: (bytes of a lane's frame, each array's
        # (offset in the frame, size)); lane i of a thread has its frame at its slot + i * frame bytes, and
        # an A32 access into the scratch space whose send carries no object (send_objects) must lie inside
        # one of its own lane's arrays
        self.private_arrays: tuple[int, tuple[tuple[int, int], ...]] | None = None
        # a compiled kernel's private and __local accesses, for a checked Memory: the send's address ->
        # (space, start, length) of the one object it may touch, "private" (offsets in a lane's frame) or
        # "local" (in the work-group's SLM): an overrun into a neighbouring array is then seen
        self.send_objects: dict[int, tuple[str, int, int]] = {}

    def map_flat(self, base: int, array: np.ndarray, bti: int | None = None) -> None:
        """Give `array` (the surface at `bti`, if it is one) the 64-bit address `base` in the flat (A64
        stateless) address space."""
        self.flat.append((base, as_bytes(array)))
        if bti is not None:
            self.flat_bti[base] = bti

    def flat_lanes(self, addrs: np.ndarray, size: int, active: np.ndarray, write: bool = False):
        """Per mapped buffer: (buffer, offsets, lanes) for the active lanes whose `size` bytes at their
        address fall in it; an access outside every mapped buffer is an error (a wild pointer)."""
        addrs = addrs.astype(np.uint64)
        left = active.copy()
        out = []
        for base, buf in self.flat:
            inside = left & (addrs >= np.uint64(base)) & (addrs + np.uint64(size) <= np.uint64(base + buf.size))
            if inside.any():
                out.append((buf, (addrs - np.uint64(base)).astype(np.int64), inside))
                left &= ~inside
        if left.any():
            lane = int(np.flatnonzero(left)[0])
            addr = int(addrs[lane])
            below = [(base, buf) for base, buf in self.flat if base <= addr]
            if self.checked and below:
                base, buf = max(below, key=lambda item: item[0])
                raise OutOfBounds("a64", self.flat_bti.get(base), addr - base, size, write, lane, buf.size)
            raise ValueError(f"A64 access at {addr:#x} (lane {lane}) is outside every buffer")
        return out

    def bind(self, bti: int, array: np.ndarray) -> None:
        if not 0 <= bti < BTI_SLM - 2:
            raise ValueError(f"binding table index {bti} is reserved or out of range")
        self.surfaces[bti] = as_bytes(array)

    def new_slm(self) -> np.ndarray:
        return np.zeros(self.slm_bytes, np.uint8)

    def new_scratch(self, threads: int = 1) -> np.ndarray:
        """A scratch space for `threads` threads, scratch_bytes each."""
        return np.zeros(self.scratch_bytes * threads, np.uint8)


def outside_private_arrays(arrays: tuple[tuple[int, int], ...], rel: np.ndarray, size: int) -> np.ndarray:
    """Where `size` bytes at `rel` (an offset in the lane's own frame) lie inside none of its arrays."""
    inside = np.zeros(rel.shape, bool)
    for start, length in arrays:
        inside |= (rel >= start) & (rel + size <= start + length)
    return ~inside


def object_fault(obj: tuple[str, int, int], rel: np.ndarray, size: int, active: np.ndarray,
                 write: bool) -> tuple[tuple[int, ...], OutOfBounds] | None:
    """The first active access of `size` bytes at `rel` (offsets in the object's space: a lane's frame or
    the SLM; the last axis is the lane) outside `obj` (Memory.send_objects): its position in `rel` and its
    fault, whose `bti` is the object's start, which names it (space "private" or "local"); or None."""
    space, start, length = obj
    bad = active & ((rel < start) | (rel + size > start + length))
    if not bad.any():
        return None
    where = tuple(int(v[0]) for v in np.nonzero(bad))
    return where, OutOfBounds(space, start, int(rel[where]) - start, size, write, where[-1], length)


def lane_fault(memory: Memory, obj: tuple[str, int, int] | None, rel: np.ndarray, size: int,
               active: np.ndarray, write: bool) -> tuple[tuple[int, ...], OutOfBounds] | None:
    """The first active access of `size` bytes at `rel` (the last axis is the lane) outside what it may
    touch: its send's own object where it carries one (object_fault), else one of its lane's private
    arrays (`rel` then offsets in the lane's frame); its position in `rel` and its fault, or None."""
    if obj is not None:
        return object_fault(obj, rel, size, active, write)
    assert memory.private_arrays is not None
    arrays = memory.private_arrays[1]
    bad = active & outside_private_arrays(arrays, rel, size)
    if not bad.any():
        return None
    where = tuple(int(v[0]) for v in np.nonzero(bad))
    return where, private_fault(arrays, int(rel[where]), size, write, where[-1])


def private_fault(arrays: tuple[tuple[int, int], ...], rel: int, size: int, write: bool, lane: int) -> OutOfBounds:
    """The fault of an access at `rel` in the lane's frame, against the array it starts in or after (space
    "private"; `bti` is that array's offset in the frame, which names it)."""
    start, length = max(((s, n) for s, n in arrays if s <= rel), default=arrays[0])
    return OutOfBounds("private", start, rel - start, size, write, lane, length)


def check_bounds(space: str, bti: int | None, buf: np.ndarray, addrs: np.ndarray, size: int,
                 active: np.ndarray, write: bool) -> None:
    """Raise OutOfBounds for the first active lane whose `size` bytes at its offset leave `buf`."""
    addrs = addrs.astype(np.int64)
    bad = active & ((addrs < 0) | (addrs + size > buf.size))
    if bad.any():
        lane = int(np.flatnonzero(bad)[0])
        raise OutOfBounds(space, bti, int(addrs[lane]), size, write, lane, buf.size)


def gather(buf: np.ndarray, addrs: np.ndarray, size: int, active: np.ndarray) -> np.ndarray:
    """Little-endian unsigned loads of `size` bytes at each active address (others and OOB read 0)."""
    addrs = addrs.astype(np.int64)
    ok = active & (addrs >= 0) & (addrs + size <= buf.size)
    out = np.zeros(addrs.size, np.uint64)
    for k in range(size):
        byte = np.zeros(addrs.size, np.uint64)
        byte[ok] = buf[addrs[ok] + k]
        out |= byte << np.uint64(8 * k)
    return out


def scatter(buf: np.ndarray, addrs: np.ndarray, values: np.ndarray, size: int, active: np.ndarray) -> None:
    """Little-endian stores of the low `size` bytes of each active lane's value; lanes go in lane order."""
    addrs = addrs.astype(np.int64)
    values = values.astype(np.uint64)
    ok = active & (addrs >= 0) & (addrs + size <= buf.size)
    for k in range(size):
        buf[addrs[ok] + k] = ((values[ok] >> np.uint64(8 * k)) & np.uint64(0xFF)).astype(np.uint8)
