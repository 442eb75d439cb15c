"""NDRange dispatch with the thread payload Gen compute kernels expect: what the Gen backend's code reads,
and what the simulator gives it. The layout follows Intel's compute runtime (NEO) and IGC, as their
binaries show (PRM vol. 7 "GPGPU thread payload"; NEO local_id_gen.cpp):

    r0            header: r0.1 / r0.6 / r0.7 = group id x / y / z; r0.2 = the group's barrier id
                  (the gateway reads bits 27:24 and 31 of it, Gen9 mask 0x8F000000); r0.5 bits 31:10 =
                  this thread's scratch offset (its slot in the group's scratch space, which A32
                  stateless addresses through BTI 255 index)
    r1, r2, r3    local id x, y, z of each lane as uint16 (SIMD8: words 0-7; SIMD16: the whole GRF);
                  x varies fastest, lane i of thread t is work-item t * SIMD + i of the group
    r4 ...        the cross-thread data, the same for every thread: CROSS_THREAD below, then the
                  kernel's arguments at offsets the code generator chose

A work-group of L work-items runs as ceil(L / SIMD) hardware threads; the last one's dispatch mask
enables only its L mod SIMD work-items (all when that is 0). The work-groups run in batches, every thread
of a batch stepping together (sim_batch); a trace's first work-group runs alone in simulator.Thread.
"""
from __future__ import annotations

import math
import struct
from typing import Callable

import numpy as np

from .errors import IsaError
from .model import Instruction
from .payload import (  # noqa: F401  (the layout's names, also read from here)
    ARGUMENTS,
    BARRIER_ID_MASK,
    CROSS_THREAD_GRF,
    GLOBAL_OFFSET,
    HEADER_GRF,
    LOCAL_ID_GRF,
    LOCAL_SIZE,
    NUM_GROUPS,
    WORK_DIM,
)
from .registers import GRF_SIZE, NUM_GRF
from .sim_batch import Batch, GroupResult, Runner
from .sim_memory import Memory
from .simulator import MemoryFault, SimulationError, StepLimit, Thread, Workgroup

# a batch holds at most this many hardware threads and about this many bytes of thread state
BATCH_THREADS, BATCH_BYTES = 4096, 256 << 20


def cross_thread_header(global_offset, local_size, num_groups, work_dim: int) -> bytes:
    """The first ARGUMENTS bytes of the cross-thread data."""
    data = struct.pack("<3I3I3II", *global_offset, *local_size, *num_groups, work_dim)
    return data + bytes(ARGUMENTS - len(data))


def _padded3(v) -> tuple[int, int, int]:
    v = tuple(int(x) for x in (v if hasattr(v, "__len__") else (v,)))
    return (v + (1, 1, 1))[:3]  # type: ignore[return-value]


def run_ndrange(program: list[Instruction], simd: int, global_size, local_size, arguments: bytes = b"",
                surfaces: dict[int, np.ndarray] | None = None, global_offset=(0, 0, 0),
                max_steps: int = 1_000_000, on_group: Callable[[Workgroup | GroupResult], None] | None = None,
                scratch_bytes: int = 1024, slm_bytes: int = 64 * 1024,
                flat: dict[int, int] | None = None, trace=None, checked: bool = False,
                batched: bool = True, private_arrays: tuple[int, tuple[tuple[int, int], ...]] | None = None,
                send_objects: dict[int, tuple[str, int, int]] | None = None) -> Memory:
    """Run every work-group of an NDRange in turn; surfaces (bound by binding-table index) are updated in
    place. `arguments` follow the cross-thread header. Each thread gets `scratch_bytes` of scratch (a
    multiple of 1 KiB), each group `slm_bytes` of shared local memory. `flat` maps surfaces into the
    A64 address space: {64-bit base address: binding-table index}. `trace` (a simulator Trace) records
    the first work-group's lane activity. `checked`: an out-of-bounds access raises MemoryFault (else
    reads give 0 and writes are dropped, sim_memory); a MemoryFault or StepLimit gets the work-group's
    id as `group`. `max_steps`: instructions per thread before StepLimit. `private_arrays` (checked only):
    the compiled kernel's private arrays in a lane's frame (sim_memory.Memory.private_arrays);
    `send_objects` (checked only): the object each private or __local access must stay in, by the
    send's address (sim_memory.Memory.send_objects).
    `batched`: run the work-groups' threads together (sim_batch); False runs each thread alone in
    simulator.Thread, one work-group after another (the reference, and what a trace's group uses)."""
    gs, ls = _padded3(global_size), _padded3(local_size)
    if simd not in (8, 16):
        raise IsaError(f"dispatch: SIMD{simd} (8 or 16)")
    if any(g % l for g, l in zip(gs, ls)):
        raise IsaError(f"dispatch: local size {ls} does not divide global size {gs}")
    work_dim = len(global_size) if hasattr(global_size, "__len__") else 1
    groups = tuple(g // l for g, l in zip(gs, ls))
    offset = _padded3(global_offset) if any(global_offset) else (0, 0, 0)
    cross = cross_thread_header(offset, ls, groups, work_dim) + bytes(arguments)
    items = math.prod(ls)
    if items > 0xFFFF:
        raise IsaError(f"dispatch: {items} work-items in a group do not fit uint16 local ids")
    n_threads = -(-items // simd)
    last = items % simd
    masks = [(1 << simd) - 1] * n_threads
    if last:
        masks[-1] = (1 << last) - 1
    if scratch_bytes <= 0 or scratch_bytes % 1024:
        raise IsaError(f"dispatch: {scratch_bytes} bytes of scratch per thread (a positive multiple of 1 KiB)")
    memory = Memory(surfaces, slm_bytes=slm_bytes, scratch_bytes=scratch_bytes, checked=checked)
    memory.private_arrays = private_arrays if checked and private_arrays and private_arrays[1] else None
    memory.send_objects = (send_objects or {}) if checked else {}
    for base, bti in (flat or {}).items():
        memory.map_flat(base, (surfaces or {})[bti], bti)
    order = [(gx, gy, gz) for gz in range(groups[2]) for gy in range(groups[1]) for gx in range(groups[0])]
    # the traced first work-group (every group, unbatched) runs in the one-thread simulator, whose
    # scheduling rounds a trace records
    alone, order = (order, []) if not batched else (order[:1], order[1:]) if trace is not None else ([], order)
    for group in alone:
        def payload(thread: Thread, group=group) -> None:
            _write_payload(thread, group, ls, cross)
        wg = Workgroup(program, simd, n_threads, memory, group[0], payload, masks,
                       trace=trace if group == (0, 0, 0) else None, max_steps=max_steps)
        try:
            wg.run()
        except (MemoryFault, StepLimit) as exc:
            exc.group = group
            raise
        if on_group is not None:
            on_group(wg)
    # the rest in batches of work-groups, every thread of a batch at once (sim_batch)
    per_group = n_threads * (NUM_GRF * GRF_SIZE + scratch_bytes + 700) + slm_bytes
    chunk = max(1, min(BATCH_THREADS // n_threads, BATCH_BYTES // per_group))
    for at in range(0, len(order), chunk):
        ids = order[at:at + chunk]
        batch = Batch(program, simd, len(ids), n_threads, memory, masks, max_steps)
        _batch_payload(batch, ids, ls, cross)
        runner = Runner(batch, ids)
        runner.run()
        if on_group is not None:
            for result in runner.results():
                on_group(result)
    return memory


def _batch_payload(batch: Batch, ids: list[tuple[int, int, int]], local_size: tuple[int, int, int],
                   cross: bytes) -> None:
    """_write_payload for every thread of a batch."""
    grf = batch.grf.view(np.uint32)
    groups = np.array(ids, np.uint32)[batch.group_of]
    grf[:, 1], grf[:, 6], grf[:, 7] = groups[:, 0], groups[:, 1], groups[:, 2]
    grf[:, 2] = BARRIER_ID_MASK & 0x0F000000
    grf[:, 5] = batch.tid * batch.memory.scratch_bytes
    lanes = batch.tid[:, None] * batch.simd + np.arange(batch.simd)
    lx, ly, _ = local_size
    words = batch.grf.view(np.uint16)
    for k, values in enumerate((lanes % lx, lanes // lx % ly, lanes // (lx * ly))):
        at = (LOCAL_ID_GRF + k) * 16
        words[:, at:at + batch.simd] = values.astype(np.uint16)
    padded = cross + bytes(-len(cross) % 32)
    start = CROSS_THREAD_GRF * GRF_SIZE
    if start + len(padded) > batch.grf.shape[1]:
        raise SimulationError(f"write of {len(padded)} bytes at r{CROSS_THREAD_GRF} leaves the GRF")
    batch.grf[:, start:start + len(padded)] = np.frombuffer(padded, np.uint8)


def _write_payload(thread: Thread, group: tuple[int, int, int], local_size: tuple[int, int, int],
                   cross: bytes) -> None:
    header = np.zeros(8, np.uint32)
    header[1], header[6], header[7] = group
    header[2] = BARRIER_ID_MASK & 0x0F000000             # one barrier per group: id 0
    header[5] = thread.tid * thread.memory.scratch_bytes  # this thread's scratch slot (bits 31:10)
    thread.set_reg(HEADER_GRF, header)
    lanes = thread.tid * thread.simd + np.arange(thread.simd)
    lx, ly, _ = local_size
    ids = (lanes % lx, lanes // lx % ly, lanes // (lx * ly))
    for k, values in enumerate(ids):
        row = np.zeros(16, np.uint16)
        row[:thread.simd] = values.astype(np.uint16)
        thread.write_regs(LOCAL_ID_GRF + k, row.view(np.uint32))
    padded = cross + bytes(-len(cross) % 32)
    words = np.frombuffer(padded, np.uint32)
    for i in range(len(words) // 8):
        thread.write_regs(CROSS_THREAD_GRF + i, words[8 * i:8 * i + 8])
