"""Run one kernel's SPIR-V on the Vulkan driver with OpenCL-style arguments (the `spirv` target).

The module is compiled for exactly this launch's local size and always checked by spirv-val first:
lavapipe runs invalid SPIR-V without complaint, so an unchecked module would make results meaningless.
"""
from __future__ import annotations

import dataclasses

import numpy as np

from lowering.errors import CompileError, where
from lowering.ir.core import Function

from . import compile_spirv
from .abi import kernel_abi, pack_push_constants
from .memory import MemoryPlan
from .options import SpirvOptions


def _dims(value, name: str) -> tuple[int, ...]:
    dims = (int(value),) if isinstance(value, (int, np.integer)) else tuple(int(x) for x in value)
    if not 1 <= len(dims) <= 3 or any(d <= 0 for d in dims):
        raise CompileError(f"bad {name} {value!r}")
    return dims


def _offsets(value, n: int) -> tuple[int, ...]:
    if isinstance(value, (int, np.integer)):
        return (int(value),) * n
    offset = tuple(int(x) for x in value)
    if len(offset) != n:
        raise CompileError(f"global offset {offset} and global size have different dimensions")
    return offset


def run_spirv_kernel(func: Function, args: list, global_size, local_size, options: SpirvOptions | None = None,
                     global_offset=0) -> None:
    """Like lowering.interp.run_kernel: the numpy arrays in `args` are updated in place."""
    from .vulkan_run import check_work_group, dispatch
    gsize, lsize = _dims(global_size, "global size"), _dims(local_size, "local size")
    if len(gsize) != len(lsize) or any(g % l for g, l in zip(gsize, lsize)):
        raise CompileError(f"local size {lsize} does not divide global size {gsize}")
    if len(args) != len(func.args):
        raise CompileError(f"@{func.name} takes {len(func.args)} arguments, {len(args)} given")
    pad = lambda t: tuple(t) + (1,) * (3 - len(t))   # noqa: E731
    options = dataclasses.replace(options or SpirvOptions(), local_size=pad(lsize), validate=True)
    binary = compile_spirv([func], options)
    shared = sum(o.length * o.elem_bytes for o in MemoryPlan(func).objects if o.kind == "workgroup")
    check_work_group(pad(lsize), shared, where(func))
    abi = kernel_abi(func)
    buffers = {}
    for b in abi.buffers:
        array = args[b.arg.index]
        if not isinstance(array, np.ndarray):
            raise CompileError(f"@{func.name}: parameter {b.binding} ({b.arg.name}) needs a buffer")
        buffers[b.binding] = array
    offset = _offsets(global_offset, len(gsize))
    push = pack_push_constants(abi, args, len(gsize), offset + (0,) * (3 - len(offset)))
    groups = tuple(g // l for g, l in zip(pad(gsize), pad(lsize)))
    results = dispatch(binary, func.name, buffers, push, groups)
    for b in abi.buffers:
        if not b.readonly:
            args[b.arg.index][...] = results[b.binding]
