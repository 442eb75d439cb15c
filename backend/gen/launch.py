"""The `gen` run target: compile a kernel with the Gen backend and run it in the simulator over an
NDRange with the documented thread payload (isa/gen9/dispatch.py) and the kernel's ABI (abi.py):
buffers bound at their parameter's position and updated in place, constant tables bound after them,
scalar arguments and __local block offsets in the cross-thread data, SLM and scratch sized as the
kernel needs."""
from __future__ import annotations

import struct

import numpy as np

from isa.gen9.dispatch import ARGUMENTS, run_ndrange
from isa.gen9.errors import IsaError
from lowering.errors import CompileError
from lowering.ir.core import Arg, Function
from lowering.ndrange import ndrange

from . import GenKernel, compile_gen_kernel
from .abi import KernelLayout, local_block_offsets

FLAT_BASE, FLAT_STRIDE = 0x10_0000_0000, 0x1_0000_0000     # flat kernels: surface k at base + k * 4 GiB


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
                   compiled: GenKernel | None = None) -> None:
    """Run on the simulator, buffers updated in place; `trace` (isa.gen9.simulator.Trace) gets the first
    work-group's lane activity and, as trace.labels, the address of each labelled block. `compiled`: the
    kernel already compiled for this width and mode (the fuzzer checks the binary with iga64 first)."""
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
        from isa.gen9.simulator import layout as addresses
        at = addresses(compiled.program)
        trace.labels = {at[i]: note.split(":")[0].split()[-1] for i, note in compiled.notes.items()
                        if note.startswith("block ")}
    dims = rng.work_dim
    try:
        run_ndrange(compiled.program, simd, rng.global_size[:dims], rng.local_size[:dims],
                    argument_bytes(layout, args, local_offsets), surfaces, rng.offset,
                    scratch_bytes=layout.scratch_bytes(simd), slm_bytes=max(slm_bytes, 1),
                    flat={flat_address(bti): bti for bti in surfaces} if layout.flat else None, trace=trace)
    except IsaError as exc:
        raise CompileError(f"@{func.name}: gen target: {exc}") from None
