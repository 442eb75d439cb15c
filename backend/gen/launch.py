"""The `gen` run target: compile a kernel with the Gen backend and run it in the simulator over an
NDRange with the documented thread payload (isa/gen9/dispatch.py) and the kernel's ABI (abi.py):
buffers bound at their parameter's position and updated in place, constant tables bound after them,
scalar arguments and __local block offsets in the cross-thread data, SLM and scratch sized as the
kernel needs.

Memory is bounds-checked: an access outside a buffer (an undersized output buffer included) is a
one-line error naming the buffer, the work-item and the Gen instruction, as the ir target names them;
a private or __local access must stay inside the array it was compiled for (GenKernel.bounds: the
binary alone shows only the lane's frame or the group's whole SLM); a thread that runs more than
`max_steps` instructions (an endless loop) is an error too."""
from __future__ import annotations

import struct
import sys

import numpy as np

from reconverge.isa.gen9.dispatch import ARGUMENTS, run_ndrange
from reconverge.isa.gen9.errors import IsaError
from reconverge.isa.gen9.simulator import MemoryFault, StepLimit
from reconverge.lowering.errors import CompileError
from reconverge.lowering.ir.core import Arg, Function
from reconverge.lowering.ndrange import ndrange

from . import GenKernel, compile_gen_kernel
from .abi import KernelLayout, local_block_offsets

FLAT_BASE, FLAT_STRIDE = 0x10_0000_0000, 0x1_0000_0000     # flat kernels: surface k at base + k * 4 GiB
# instructions one hardware thread may run before the launch stops as endless (`run --max-steps`): 200x
# the most a corpus kernel takes (tools/step_budget.py), about a minute and a half of simulation per
# thread; a long kernel (4,096 chained SHA-1 compressions: 53 million) needs --max-steps
DEFAULT_MAX_STEPS = 1_000_000


def flat_address(bti: int) -> int:
    return FLAT_BASE + bti * FLAT_STRIDE


def argument_bytes(layout: KernelLayout, args: list, local_offsets: dict) -> bytes:
    data = bytearray(layout.arguments_end - ARGUMENTS)
    for key, off in layout.bases.items():                  # flat kernels: buffer and table addresses
        bti = layout.buffer_bti[key] if isinstance(key, Arg) else layout.constants[str(key)][0]
        struct.pack_into("<Q", data, off - ARGUMENTS, flat_address(bti))
    for a, off in layout.arguments.items():
        at = off - ARGUMENTS
        if a.type.is_ptr:                                  # a __local block: its SLM offset
            struct.pack_into("<Q", data, at, local_offsets[a])
        elif a.type.is_float:
            struct.pack_into("<f" if a.type.bits == 32 else "<d", data, at, float(args[a.index]))
        else:
            bits = max(32, a.type.bits)
            struct.pack_into("<I" if bits == 32 else "<Q", data, at, int(args[a.index]) & ((1 << bits) - 1))
    return bytes(data)


def run_gen_kernel(func: Function, args: list, global_size, local_size, simd: int = 16,
                   global_offset=0, trace=None, regions: bool = False, entry: str = "if",
                   max_steps: int | None = None, compiled: GenKernel | None = None,
                   stats: dict | None = None) -> int:
    """Run on the simulator, buffers updated in place; `trace` (isa.gen9.simulator.Trace) gets the first
    work-group's lane activity and, as trace.labels, the address of each labelled block. `max_steps`:
    instructions per hardware thread (None: DEFAULT_MAX_STEPS; 0: no limit). `compiled`: the kernel
    already compiled for this width and mode (the fuzzer checks the binary with iga64 first). `stats`, when
    given, gets the dispatch's totals (threads, instructions, lane_instructions, branches, sends: summed
    over every hardware thread) and the control-flow mode. Returns the most instructions any thread ran
    (what a limit must allow: tools/step_budget.py)."""
    try:
        rng = ndrange(global_size, local_size, global_offset)
    except ValueError as exc:
        raise CompileError(f"@{func.name}: {exc}") from None
    if compiled is None:
        compiled = compile_gen_kernel(func, simd, regions=regions, entry=entry)
    layout: KernelLayout = compiled.layout  # type: ignore[assignment]
    surfaces = {layout.buffer_bti[a]: np.ascontiguousarray(args[a.index]) for a in layout.buffer_bti}
    for a in layout.buffer_bti:
        if surfaces[layout.buffer_bti[a]] is not args[a.index]:
            raise CompileError(f"@{func.name}: buffer argument {a.index} must be a C-contiguous numpy array")
    for bti, data in layout.constants.values():
        surfaces[bti] = np.frombuffer(data, np.uint8).copy()
    local_sizes = {a: int(getattr(args[a.index], "nbytes", args[a.index])) for a in layout.arguments if a.type.is_ptr}
    local_offsets, slm_bytes = local_block_offsets(layout, local_sizes)
    if slm_bytes > 64 * 1024:
        raise CompileError(f"@{func.name}: {slm_bytes} bytes of __local memory (Gen9 has 64 KiB per work-group)")
    if trace is not None:
        from reconverge.isa.gen9.simulator import layout as addresses
        at = addresses(compiled.program)
        trace.labels = {at[i]: note.split(":")[0].split()[-1] for i, note in compiled.notes.items()
                        if note.startswith("block ")}
        if isinstance(getattr(trace, "about", None), dict):         # what ran, for the picture's title
            trace.about.update(kernel=func.name, simd=simd, cf=compiled.mode or None, group=(0,) * rng.work_dim,
                               local_size=rng.local_size[:rng.work_dim], global_size=rng.global_size[:rng.work_dim])
    dims = rng.work_dim
    limit = DEFAULT_MAX_STEPS if max_steps is None else max_steps or sys.maxsize
    most = [0]

    totals = {"threads": 0, "instructions": 0, "lane_instructions": 0, "branches": 0, "sends": 0}

    def count(group) -> None:
        most[0] = max([most[0]] + [t.steps for t in group.threads])
        for t in group.threads:
            totals["threads"] += 1
            totals["instructions"] += t.steps
            totals["lane_instructions"] += t.lane_steps
            totals["branches"] += t.branches
            totals["sends"] += t.sends
    objects = _send_objects(compiled, local_offsets, local_sizes)
    try:
        run_ndrange(compiled.program, simd, rng.global_size[:dims], rng.local_size[:dims],
                    argument_bytes(layout, args, local_offsets), surfaces, rng.offset, max_steps=limit,
                    scratch_bytes=layout.scratch_bytes(simd), slm_bytes=max(slm_bytes, 1),
                    flat={flat_address(bti): bti for bti in surfaces} if layout.flat else None, trace=trace,
                    checked=True, on_group=count,
                    private_arrays=(layout.private_bytes, tuple(sorted(
                        (off, int(alloca.attrs["size"])) for alloca, off in layout.private.items()))),
                    send_objects=objects)
    except IsaError as exc:
        raise CompileError(f"@{func.name}: gen target: {exc}") from None
    except MemoryFault as exc:
        fault = _fault_text(exc, compiled, layout, rng, simd, local_offsets)
        raise CompileError(f"@{func.name}: gen target: {fault}") from None
    except StepLimit as exc:
        raise CompileError(f"@{func.name}: gen target: work-group ({_ids(exc.group, dims)}), thread {exc.tid}: "
                           f"no end after {exc.limit} instructions (a loop that never ends? raise the limit "
                           f"with --max-steps, 0 for none)") from None
    if stats is not None:
        stats.update(totals, mode=compiled.mode, simd=simd)
    return most[0]


def _send_objects(compiled: GenKernel, local_offsets: dict, local_sizes: dict) -> dict[int, tuple[str, int, int]]:
    """Each tagged send's address -> (space, start, length) of the object it may touch
    (sim_memory.Memory.send_objects): a private variable in the lane's frame, or a __local array or
    parameter block in the work-group's SLM, whose offset and size this launch decides."""
    if not compiled.bounds:
        return {}
    from reconverge.isa.gen9.simulator import layout as addresses
    at = addresses(compiled.program)
    by_index = {a.index: a for a in local_offsets}
    out = {}
    for i, (kind, key, size) in compiled.bounds.items():
        if kind == "local_arg":
            arg = by_index[key]
            out[at[i]] = ("local", local_offsets[arg], local_sizes[arg])
        else:
            assert size is not None
            out[at[i]] = (kind, key, size)
    return out


def _ids(values, dims: int) -> str:
    return ",".join(str(v) for v in tuple(values or (0, 0, 0))[:dims])


def _fault_text(exc: MemoryFault, compiled, layout: KernelLayout, rng, simd: int, local_offsets: dict) -> str:
    """Where an out-of-bounds access happened, as the ir target says it: the Gen instruction (its index,
    address, text and the block it is in, when the listing names one), the work-item, the buffer."""
    from reconverge.isa.gen9.disassembler import format_instruction
    from reconverge.isa.gen9.simulator import layout as addresses
    fault, at = exc.fault, addresses(compiled.program)
    index = at.index(exc.address) if exc.address in at else -1
    block = next((compiled.notes[i].split(":")[0] for i in range(index, -1, -1)
                  if compiled.notes.get(i, "").startswith("block ")), None)
    where = f"instruction {index} at {exc.address:#x} ({' '.join(format_instruction(exc.inst, exc.address).split())})"
    if block is not None:
        where = f"{block}, {where}"
    local = exc.tid * simd + fault.lane
    lx, ly, _ = rng.local_size
    lid = (local % lx, local // lx % ly, local // (lx * ly))
    group = exc.group or (0, 0, 0)
    gid = tuple(g * l + i + o for g, l, i, o in zip(group, rng.local_size, lid, rng.offset))
    names = {bti: f"buffer '{a.name or f'arg{a.index}'}'" for a, bti in layout.buffer_bti.items()}
    names.update({bti: f"{'program-scope variable' if name in layout.writable else 'constant table'} '{name}'"
                  for name, (bti, _) in layout.constants.items()})
    if fault.space in ("surface", "a64"):
        what = names.get(fault.bti, f"binding table index {fault.bti}") if fault.bti is not None else "memory"
    elif fault.space == "private":             # bti: the array's offset in the frame
        alloca = next((a for a, off in layout.private.items() if off == fault.bti), None)
        what = f"private array '{alloca.name}'" if alloca is not None and alloca.name else "a private array"
    elif fault.space == "local":               # bti: the array's or block's offset in the SLM
        blocks = {start: f"__local array '{symbol}'" for symbol, start in layout.slm.items()}
        blocks.update({start: f"__local parameter '{a.name or f'arg{a.index}'}'" for a, start in local_offsets.items()})
        what = blocks.get(fault.bti or 0, "a __local array")
    else:
        what = "__local memory" if fault.space == "slm" else "private memory (the thread's scratch space)"
    off = fault.offset
    if fault.space == "surface" and off >= 1 << 31:       # a 32-bit surface offset: a negative index wrapped
        off -= 1 << 32
    how = (f"{-off} bytes before the start" if off < 0 else f"{off - fault.extent} bytes past the end"
           if off >= fault.extent else "straddles the end")
    access = "store to" if fault.write else "load from"
    return (f"{where}, work-item ({_ids(gid, rng.work_dim)}): out-of-bounds {access} "
            f"byte offset {off} ({fault.size} bytes) of {what} ({fault.extent} bytes): {how}")
