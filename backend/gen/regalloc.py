"""Register allocation, first slice: linear scan over live intervals (Poletto and Sarkar, TOPLAS 1999)
on whole GRFs. A value takes ceil(size / 32) consecutive GRFs (a SIMD16 :d two, a SIMD16 :q four, a
uniform one); the thread payload below `first_free` and r112-r127 (the end-of-thread copy) are never
given out. No spilling yet: running out of registers is a one-line error. Cost: O(values log values)
for the sort plus O(values * registers) for the scans."""
from __future__ import annotations

from lowering.errors import CompileError

from .mir import MFunction, VReg
from .mir_liveness import liveness

LAST_ALLOCATABLE = 111


def allocate(func: MFunction, first_free: int) -> dict[int, int]:
    """Virtual register id -> its first GRF."""
    intervals = liveness(func).intervals
    for v in func.vregs.values():                     # written but never read: still needs a home
        intervals.setdefault(v, (0, 0))
    order = sorted(intervals.items(), key=lambda kv: (kv[1][0], kv[0].id))
    free = [True] * (LAST_ALLOCATABLE + 1)
    for r in range(first_free):
        free[r] = False
    active: list[tuple[int, int, int]] = []          # (end, first grf, count)
    home: dict[int, int] = {}
    for v, (start, end) in order:
        for item in [a for a in active if a[0] < start]:
            active.remove(item)
            for r in range(item[1], item[1] + item[2]):
                free[r] = True
        need = v.grfs(func.simd)
        first = _find(free, first_free, need)
        if first is None:
            raise CompileError(f"{func.name}: more live values than the {LAST_ALLOCATABLE + 1 - first_free} "
                               "registers hold (the Gen backend does not spill yet)")
        for r in range(first, first + need):
            free[r] = False
        active.append((end, first, need))
        home[v.id] = first
    return home


def _find(free: list[bool], start: int, need: int) -> int | None:
    run = 0
    for r in range(start, len(free)):
        run = run + 1 if free[r] else 0
        if run == need:
            return r - need + 1
    return None


def vreg_home(home: dict[int, int], v: VReg) -> int:
    return home[v.id]
