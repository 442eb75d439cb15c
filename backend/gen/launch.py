"""The `gen` run target: compile a kernel with the Gen backend and run it in the simulator over an
NDRange with the documented thread payload (isa/gen9/dispatch.py). Buffers are bound at their
parameter's position as binding-table index and updated in place; scalar arguments go into the
cross-thread data at the offsets the selector read them from."""
from __future__ import annotations

import struct

import numpy as np

from isa.gen9.dispatch import ARGUMENTS, run_ndrange
from isa.gen9.errors import IsaError
from lowering.errors import CompileError
from lowering.ir.core import Function

from . import compile_gen
from .isel import argument_layout


def argument_bytes(func: Function, args: list) -> bytes:
    layout = argument_layout(func)
    end = max((off + max(4, a.type.size) for a, off in layout.items()), default=ARGUMENTS)
    data = bytearray(end - ARGUMENTS)
    for a, off in layout.items():
        value = args[a.index]
        if a.type.is_float:
            struct.pack_into("<f" if a.type.bits == 32 else "<d", data, off - ARGUMENTS, float(value))
        else:
            bits = max(32, a.type.bits)
            struct.pack_into("<I" if bits == 32 else "<Q", data, off - ARGUMENTS, int(value) & ((1 << bits) - 1))
    return bytes(data)


def run_gen_kernel(func: Function, args: list, global_size, local_size, simd: int = 16,
                   global_offset=0) -> None:
    program = compile_gen(func, simd)
    surfaces = {i: np.ascontiguousarray(a) for i, a in enumerate(args) if func.args[i].type.is_ptr}
    for i, arr in surfaces.items():
        if arr is not args[i]:
            raise CompileError(f"@{func.name}: buffer argument {i} must be a C-contiguous numpy array")
    offset = global_offset if hasattr(global_offset, "__len__") else (global_offset,) * len(tuple(global_size))
    try:
        run_ndrange(program, simd, global_size, local_size, argument_bytes(func, args), surfaces,
                    tuple(offset) + (0,) * (3 - len(tuple(offset))))
    except IsaError as exc:
        raise CompileError(f"@{func.name}: gen target: {exc}") from None
