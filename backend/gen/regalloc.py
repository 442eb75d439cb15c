"""Register allocation: linear scan over live intervals (Poletto and Sarkar, TOPLAS 1999) on whole GRFs,
spilling to scratch when the registers run out.

A value takes ceil(size / 32) consecutive GRFs (a SIMD16 :d two, a SIMD16 :q four, a uniform one); the
thread payload below `first_free` and r112-r127 (the end-of-thread copy) are never given out. When no
run of free GRFs fits the next interval, the value that stays live longest among it and the active ones
is spilled: every instruction that reads it first loads it from the thread's scratch slot into a fresh
short-lived value, and every instruction that writes it loads it first too (its other lanes must survive
a write under a partial execution mask), then stores the whole block back (Mesa brw_fs_reg_allocate.cpp
does the same). Scratch block messages take r0 as their header, whose r0.5 holds the slot (PRM vol. 7,
"Scratch block read/write"); the write is a split send so the data needs no header before it. Then the
scan starts over. Cost: O(values log values + values * registers) per scan, one scan per round of
spills (one walk over the instructions spills the round's values), plus liveness (mir_liveness.py) each time.
"""
from __future__ import annotations

from heapq import heapify, heappop, heappush

from reconverge.isa.gen9 import messages as sm
from reconverge.lowering.errors import CompileError

from .mir import GRF_BYTES, MFunction, MInstr, Operand, PReg, VReg
from .mir_liveness import live_ranges

LAST_ALLOCATABLE = 111
BLOCK_SIZES = (1, 2, 4, 8)                  # registers a scratch block message moves
SCRATCH_REACH = (1 << 12) * 32              # its offset field: 12 bits of 32-byte units (messages.scratch_desc)
HEADER = Operand(PReg(0, 0))                # r0: the scratch messages' header


def allocate(func: MFunction, first_free: int, spill_base: int = 0) -> tuple[dict[int, int], int]:
    """Virtual register id -> its first GRF, and the bytes of scratch spilling used (from spill_base,
    a multiple of 32, in the thread's scratch slot)."""
    spilled = 0
    temporaries: set[int] = set()           # values spilling made: never spilled themselves
    while True:
        home, victims = _scan(func, first_free, temporaries)
        if not victims:
            return home, spilled
        offsets = []
        for victim in victims:
            offsets.append(spill_base + spilled)
            spilled += victim.grfs(func.simd) * GRF_BYTES
        if spill_base + spilled > SCRATCH_REACH:
            raise CompileError(f"{func.name}: spilling needs {spill_base + spilled} bytes of scratch per thread; "
                               f"scratch block messages reach {SCRATCH_REACH} (too many values live at once)")
        temporaries |= _spill_all(func, victims, offsets)


def _scan(func: MFunction, first_free: int, temporaries: set[int]) -> tuple[dict[int, int], list[VReg]]:
    """Homes for every value that occurs in an instruction, or the values to spill when they do not fit:
    the scan goes on past a spill as if the spilled value had no register (the next scan, after the
    rewrite, checks that its short-lived replacements fit), so one scan finds many."""
    regs, starts, ends, _, _, _ = live_ranges(func)
    # (liveness(func).intervals sorted by (start, id), from its lists: no dict of the registers made, and
    # each register and its end read where the scan takes it)
    order = sorted([(start, regs[i].id, i) for i, start in enumerate(starts) if start >= 0])
    free = bytearray(b"\x01") * (LAST_ALLOCATABLE + 1)     # 1: a free GRF (runs found by bytearray.find)
    free[:first_free] = bytes(first_free)
    active: list[tuple[int, int, int, VReg]] = []    # (end, first grf, count, value): a heap, earliest end first
    home: dict[int, int] = {}
    victims: list[VReg] = []
    simd = func.simd
    for start, _, i in order:
        v, end = regs[i], ends[i]
        while active and active[0][0] < start:      # the intervals ended before this one give their GRFs back
            a = heappop(active)
            free[a[1]:a[1] + a[2]] = _ONES[a[2]]
        need = -(-(v.type.size * (1 if v.uniform else simd) * v.count) // GRF_BYTES)    # (v.grfs(simd))
        found = free.find(_ONES[need], first_free)          # (_find, inline)
        first = None if found < 0 else found
        while first is None:
            spillable = [a for a in active if a[3].id not in temporaries and a[3].grfs(func.simd) in BLOCK_SIZES]
            if not spillable:
                raise CompileError(f"{func.name}: more values live at once than the "
                                   f"{LAST_ALLOCATABLE + 1 - first_free} registers hold, and none can be spilled")
            item = max(spillable, key=lambda a: (a[0], a[3].id))
            if v.id not in temporaries and need in BLOCK_SIZES and end >= item[0]:
                victims.append(v)                     # v itself lives longest: it goes to scratch
                break
            _release(active, free, item)
            victims.append(item[3])
            first = _find(free, first_free, need)
        if first is None:
            continue
        free[first:first + need] = _ZEROS[need]
        heappush(active, (end, first, need, v))     # (no two active values share a first GRF: v is never compared)
        home[v.id] = first
    return home, victims


class _Runs(dict[int, bytes]):
    """count -> that many bytes of `fill`, made once per count (a run of GRFs taken or given back)."""

    def __init__(self, fill: bytes):
        super().__init__()
        self.fill = fill

    def __missing__(self, count: int) -> bytes:
        made = self[count] = self.fill * count
        return made


_ONES, _ZEROS = _Runs(b"\x01"), _Runs(b"\x00")


def _release(active: list, free: bytearray, item: tuple) -> None:
    active.remove(item)
    heapify(active)
    free[item[1]:item[1] + item[2]] = b"\x01" * item[2]


def _find(free: bytearray, start: int, need: int) -> int | None:
    """The first of `need` free GRFs in a row from `start` on (the lowest such run), or None."""
    first = free.find(b"\x01" * need, start)
    return None if first < 0 else first


def _spill_all(func: MFunction, victims: list[VReg], offsets: list[int]) -> set[int]:
    """_spill of each victim in turn (victim k at offsets[k]), in one walk over the instructions: the
    fresh values get the ids, and the loads and stores the order, that spilling them one by one gives
    (a walk per victim made a deep program's spilling quadratic)."""
    order: dict[int, int] = {}
    for k, v in enumerate(victims):
        order.setdefault(v.id, k)
    counts = [0] * len(victims)
    touching: list[list[tuple[MInstr, list[int]]]] = []       # per block: (instruction, victims it touches)
    fresh: list[list[VReg]] = [[] for _ in victims]            # per victim: its values, in instruction order
    for block in func.blocks:
        row = []
        for ins in block.instrs:
            hit = sorted({order[v.id] for v in (*ins.uses(), *ins.defs()) if v.id in order})
            for k in hit:
                counts[k] += 1
            row.append((ins, hit))
        touching.append(row)
    for k, victim in enumerate(victims):
        # a uniform value smaller than a GRF (a scalar) is loaded and stored as the whole GRF it owns
        count = victim.count if victim.size(func.simd) % GRF_BYTES == 0 else -(-GRF_BYTES // victim.type.size)
        fresh[k] = [func.vreg(victim.type, victim.uniform, count) for _ in range(counts[k])]
    made = {t.id for ts in fresh for t in ts}
    used = [0] * len(victims)
    for block, row in zip(func.blocks, touching):
        out: list[MInstr] = []
        for ins, hit in row:
            if not hit:
                out.append(ins)
                continue
            after: list[MInstr] = []
            for k in hit:
                victim, tmp = victims[k], fresh[k][used[k]]
                used[k] += 1
                writes = any(v.id == victim.id for v in ins.defs())
                ins.srcs = [_renamed(s, victim, tmp) for s in ins.srcs]
                ins.dst = _renamed(ins.dst, victim, tmp) if ins.dst is not None else None
                nregs = victim.grfs(func.simd)
                whole = Operand(VReg(tmp.id, tmp.type, tmp.uniform, tmp.count))
                out.append(MInstr("send", 8, whole, [HEADER], no_mask=True, sfid=sm.SFID_DC0,
                                  desc=sm.scratch_desc(offsets[k], nregs, False)))
                if writes:
                    after.append(MInstr("sends", 8, None, [HEADER, whole], no_mask=True, sfid=sm.SFID_DC0,
                                        desc=sm.scratch_desc(offsets[k], nregs, True, split=True),
                                        ex_desc=sm.split_send_ex_desc(sm.SFID_DC0, nregs)))
            out.append(ins)
            out.extend(reversed(after))
        block.instrs = out
    return made


def _renamed(op: Operand, old: VReg, new: VReg) -> Operand:
    v = op.value
    if not isinstance(v, VReg) or v.id != old.id:
        return op
    return Operand(VReg(new.id, v.type, v.uniform, v.count), op.offset, op.region, op.neg, op.abs)
