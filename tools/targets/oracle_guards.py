"""Guarded memory for the reference targets: the canary patterns and the guarded mapping.

Why one place: the llvm reference (jit_oracle.py) places each buffer, __local block and __constant table,
and each work-item's private slots (oracle_private.py), in an anonymous mapping whose guard regions are
made inaccessible (an access into them faults) and whose other bytes around an object hold a canary (a
write there is seen after the run, a read by a second launch with the other pattern); the opencl target
surrounds its buffers with the same patterns.
"""
from __future__ import annotations

import ctypes
import mmap

import numpy as np

PAGE = mmap.PAGESIZE
_MAP_NORESERVE = 0x4000     # Linux: the guard regions are address space only, never committed memory
_libc = ctypes.CDLL(None, use_errno=True)


def canary(pattern: int, n: int) -> np.ndarray:
    """`n` bytes of guard pattern `pattern` (0 or 1, the two launches that must answer the same; each
    launch checks its own for writes). Pattern 0's bytes run through 1 to 255 (no store of a small value
    repeats them). Pattern 1's are all 0x40 or 0x41, so that any half, float or double read from them, at
    any offset, is a finite number from 2 to 2^22 (the sign and the exponent's top bits clear), while
    pattern 0's make NaNs and huge values: a float read outside its object
    converted to an integer would otherwise give INT_MIN under both patterns (x86's cvttss2si for any
    NaN or out-of-range value), and the two launches would agree (bounds fuzz case 5032)."""
    index = np.arange(n, dtype=np.uint64)
    if pattern:
        return (0x40 + ((index * 2654435761) >> 16) % 2).astype(np.uint8)
    return ((index * 37 + 0x5A) % 255 + 1).astype(np.uint8)


# the bytes around an object in a guarded mapping (under two pages on each side), per pattern
CANARIES = tuple(canary(k, 2 * PAGE).tobytes() for k in (0, 1))


class GuardedMapping:
    """An anonymous mapping of `size` bytes: the (offset, length) `guards` made inaccessible, the (offset,
    length) `canaries` (each under two pages) filled with canary `pattern`."""

    def __init__(self, size: int, guards: list[tuple[int, int]], canaries: list[tuple[int, int]],
                 pattern: int = 0):
        self.size, self.canaries = size, canaries
        self.map = mmap.mmap(-1, size, flags=mmap.MAP_PRIVATE | mmap.MAP_ANONYMOUS | _MAP_NORESERVE)
        self.base = ctypes.addressof(ctypes.c_char.from_buffer(self.map))
        for start, length in guards:
            if _libc.mprotect(ctypes.c_void_p(self.base + start), ctypes.c_size_t(length), 0) != 0:
                raise OSError("cannot protect a guard region (mprotect failed)")
        self.set_canary(pattern)

    def set_canary(self, pattern: int) -> None:
        self.canary = CANARIES[pattern]
        for start, n in self.canaries:
            ctypes.memmove(self.base + start, self.canary, n)

    def overwritten(self) -> int | None:
        """The index of the first canary range a write changed, or None."""
        return next((k for k, (start, n) in enumerate(self.canaries)
                     if n and ctypes.string_at(self.base + start, n) != self.canary[:n]), None)

    def close(self) -> None:
        _libc.mprotect(ctypes.c_void_p(self.base), ctypes.c_size_t(self.size), 3)   # PROT_READ | PROT_WRITE
        self.map.close()
