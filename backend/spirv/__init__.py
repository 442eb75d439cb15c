"""SPIR-V backend: structured IR -> Vulkan compute SPIR-V.

    compile_spirv(functions, options) -> bytes      one module, one GLCompute entry point per kernel

The functions are first lowered in place for SPIR-V (lowering.target.SPIRV: global size, 64-bit bit
operations, math edge cases), so the emitter only sees what Vulkan SPIR-V has. Contract shared with
backend/gen: the backend runs its target's lowerings on its input itself (lower_for; a no-op on IR the
spirv pipeline already lowered, as the compile driver's functions for it are).

Modules: options (what to produce), abi (parameters -> descriptors and push constants), memory (pointer
provenance under logical addressing), types, isel (instruction selection), emit (control flow and
module structure), module/grammar (the binary encoder, driven by the official grammar), tools
(spirv-val/spirv-dis/spirv-cfg/spirv-opt), vulkan_run and launch (running on a Vulkan driver).
"""
from __future__ import annotations

from reconverge.lowering.deepstack import depth_independent
from reconverge.lowering.ir.core import Function

from .options import SpirvOptions


@depth_independent
def compile_spirv(functions: list[Function], options: SpirvOptions | None = None) -> bytes:
    from reconverge.lowering.gcpause import gc_paused
    from reconverge.lowering.target import lower_for

    from .emit import compile_module
    options = options or SpirvOptions()
    lower_for(list(functions), "spirv")     # in place; a no-op on IR the spirv pipeline already lowered
    with gc_paused():       # like the structurizer: many small objects, few freed (a quarter of the time)
        binary = compile_module(list(functions), options)
    declared = binary
    if options.maximal_reconvergence:
        from .maximal_reconvergence import with_maximal_reconvergence
        declared = with_maximal_reconvergence(binary)
    if options.validate:
        from .tools import validate, validator_knows_maximal_reconvergence
        names = ", ".join("@" + f.name for f in functions)
        source = next((f.source_name for f in functions if f.source_name), "<input>")
        # a spirv-val older than SPV_KHR_maximal_reconvergence (Debian 12's) checks the module without its
        # two annotations (the extension and the execution mode: they change no id, type or block)
        checked = declared if declared is binary or validator_knows_maximal_reconvergence() else binary
        validate(checked, options.target_env, f"{source}: {names}")
    return declared
