"""Run one kernel's SPIR-V on the Vulkan driver with OpenCL-style arguments (the `spirv` target).

The module is compiled for exactly this launch's local size and always checked by spirv-val first:
lavapipe runs invalid SPIR-V without complaint, so an unchecked module would make results meaningless.
"""
from __future__ import annotations

import numpy as np

from reconverge.lowering.errors import CompileError, where
from reconverge.lowering.ir.core import Function, nesting_depth
from reconverge.lowering.ndrange import ndrange
from reconverge.records import replace

from . import compile_spirv
from .abi import kernel_abi, local_spec_id, pack_push_constants
from .loop_count import LAVAPIPE_LOOP_LIMIT, counter_binding, counter_slots
from .memory import MemoryPlan
from .options import SpirvOptions
from .subgroups import layout_check_binding

# Mesa 22.3's lavapipe answers wrongly (lanes past the 80th level lose their stores) once control flow
# nests deeper than its stack holds. Measured with our own output: 85 nested divergent ifs ran right and
# 86 did not, NIR having turned the innermost few ifs into selects first; a kernel whose ifs NIR keeps
# fails from 80 (glslang-compiled GLSL too). We refuse from 80 levels of our tree.
LAVAPIPE_MAX_NESTING = 80


def _check_atomic_features(func: Function, plan: MemoryPlan) -> None:
    """64-bit atomics need shaderBufferInt64Atomics / shaderSharedInt64Atomics (cl_khr_int64_*_atomics)."""
    from .vulkan_run import device_features
    for ins in func.instructions():
        if ins.opcode != "atomic":
            continue
        t = ins.operands[1].type if ins.attrs.get("op") == "store" else ins.type
        if t.bits != 64:
            continue
        shared = plan.object_of(ins.operands[0], ins).kind == "workgroup"
        feature = "shaderSharedInt64Atomics" if shared else "shaderBufferInt64Atomics"
        if not device_features().get(feature):
            raise CompileError(f"{where(func, ins)}: the Vulkan device lacks {feature} for a 64-bit atomic")


def _subgroup_launch(func: Function, local_size: tuple[int, int, int], info, options: SpirvOptions) -> str | None:
    """How a launch of `func` makes the device's subgroups OpenCL's sub-groups (backend.spirv.subgroups): None
    for a kernel without sub-group operations, "full" where Vulkan lets us require full subgroups (the
    flattened work-group a multiple of the device's subgroupSize, computeFullSubgroups, and a module below
    SPIR-V 1.6, whose subgroup size may vary), else "checked". Refuses in one line what cannot be faithful."""
    from .subgroups import uses_subgroups
    from .vulkan_run import check_work_group
    if not uses_subgroups(func):
        return None
    total = local_size[0] * local_size[1] * local_size[2]
    width = info.subgroup_size
    if "compute" not in info.subgroup_stages or not width:
        raise CompileError(f"{where(func)}: the Vulkan device {info.label} has no sub-group operations in compute "
                           "shaders (VkPhysicalDeviceSubgroupProperties.supportedStages lacks compute)")
    check_work_group((total, 1, 1), 0, f"{where(func)} (a sub-group kernel's work-group runs flattened)")
    for ins in func.instructions():
        if ins.opcode != "subgroup":
            continue
        cluster = ins.attrs.get("cluster")
        if cluster is not None and cluster > width:
            raise CompileError(f"{where(func, ins)}: a cluster of {cluster} lanes is wider than the device's "
                               f"sub-groups ({width} lanes, {info.label})")
        t = ins.operands[0].type if ins.operands else ins.type
        extended = (t.is_int and t.bits in (8, 16, 64)) or (t.is_float and t.bits == 16)
        if extended and not info.features.get("shaderSubgroupExtendedTypes"):
            raise CompileError(f"{where(func, ins)}: the Vulkan device {info.label} lacks "
                               f"shaderSubgroupExtendedTypes for a sub-group operation on {t}")
    full = total % width == 0 and info.features.get("computeFullSubgroups") and options.version < (1, 6)
    return "full" if full else "checked"


def _check_subgroup_layout(func: Function, record, groups, local_size, info) -> None:
    """A "checked" launch's record (slot L holds SubgroupId * SubgroupSize + SubgroupLocalInvocationId of the
    invocation whose LocalInvocationIndex is L) must be L everywhere: else sub-groups were not OpenCL's."""
    total = local_size[0] * local_size[1] * local_size[2]
    lanes = record.reshape(-1, total)
    wrong = np.nonzero(lanes != np.arange(total, dtype=lanes.dtype))
    if wrong[0].size:
        at = int(wrong[1][0])
        raise CompileError(f"{where(func)}: the Vulkan device {info.label} did not form sub-groups of consecutive "
                           f"local ids for a work-group of {total} (local id {at} ran at sub-group position "
                           f"{int(lanes[wrong[0][0], at])}), so OpenCL's sub-groups cannot be run faithfully there")


def _with_live_outs_in_memory(func: Function) -> Function:
    """A copy of `func` in the form lavapipe runs right (loop_live_outs: undefined phi inputs made 0, loop
    live-outs, and private memory used in and after a loop, through an element NIR cannot fold; zero_operands:
    no known zero in a product or a sum), validated; `func`
    itself when there is nothing to change."""
    from reconverge.lowering.ir.parser import parse_module
    from reconverge.lowering.ir.printer import print_function
    from reconverge.lowering.ir.validate import verify

    from .loop_live_outs import (
        demote_loop_exit_phis,
        demote_loop_live_outs,
        hide_loop_written_private_memory,
        zero_undefined_phi_inputs,
    )
    from .zero_operands import hide_zero_operands
    copy = parse_module(print_function(func), func.source_name or "<input>").functions[func.name]
    if zero_undefined_phi_inputs(copy) + hide_loop_written_private_memory(copy) + demote_loop_exit_phis(copy) + \
            demote_loop_live_outs(copy) + hide_zero_operands(copy):
        verify(copy, "loop_live_outs")
        return copy
    return func


def run_spirv_kernel(func: Function, args: list, global_size, local_size, options: SpirvOptions | None = None,
                     global_offset=0) -> None:
    """Like lowering.interp.run_kernel: the numpy arrays in `args` are updated in place."""
    from .bounds_check import bounds_binding, bounds_record, check_bounds
    from .vulkan_run import check_float_controls, check_subgroup_support, check_work_group, dispatch, select_device
    try:
        rng = ndrange(global_size, local_size, global_offset)
    except ValueError as exc:
        raise CompileError(f"{where(func)}: {exc}") from None
    if len(args) != len(func.args):
        raise CompileError(f"{where(func)} takes {len(func.args)} arguments, {len(args)} given")
    options = options or SpirvOptions()
    info = select_device(options.vk_device)
    lavapipe = info.is_lavapipe
    depth = nesting_depth(func)
    if lavapipe and depth >= LAVAPIPE_MAX_NESTING:
        raise CompileError(f"{where(func)}: control flow nests {depth} levels deep; lavapipe gives wrong lanes from "
                           f"{LAVAPIPE_MAX_NESTING} levels on, so the spirv target does not run it there "
                           "(choose another device with --vk-device)")
    # lavapipe's bugs, worked around in its launches only (see SpirvOptions, loop_count and loop_live_outs)
    if lavapipe:
        func = _with_live_outs_in_memory(func)
    layout = _subgroup_launch(func, rng.local_size, info, options)
    # a device without clustered subgroup operations (lavapipe) gets clustered reduces from shuffles
    emulate = layout is not None and "clustered" not in info.subgroup_operations and \
        {"shuffle", "ballot"} <= set(info.subgroup_operations)
    # Vulkan's maximal reconvergence where the device promises it (the extension needs SPIR-V 1.3)
    maximal = info.maximal_reconvergence and options.version >= (1, 3)
    options = replace(options, local_size=rng.local_size, validate=True,
                       relaxed_atomics=lavapipe, count_loop_iterations=lavapipe, subgroup_layout=layout,
                       emulate_clustered=emulate, maximal_reconvergence=maximal, check_bounds=True)
    binary = compile_spirv([func], options)
    check_subgroup_support(binary, info, where(func))
    check_float_controls(binary, info, where(func))
    plan = MemoryPlan(func)
    spec: dict[int, int] = {}
    shared = 0
    for obj in plan.objects:
        if obj.kind != "workgroup":
            continue
        if obj.arg is None:
            shared += obj.length * obj.elem_bytes
            continue
        size = args[obj.arg.index]
        if not (hasattr(size, "nbytes") and hasattr(size, "count")) or isinstance(size, np.ndarray):
            raise CompileError(f"{where(func)}: parameter {obj.arg.param} ({obj.arg.name}) is a __local pointer: "
                               "give its size (a LocalArg), not a buffer")
        count = max(1, -(-int(size.nbytes) // obj.elem_bytes))
        spec[local_spec_id(obj.arg)] = count
        shared += count * obj.elem_bytes
    check_work_group(rng.local_size, shared, where(func))
    _check_atomic_features(func, plan)
    abi = kernel_abi(func)
    buffers = {}
    for b in abi.buffers:
        array = args[b.arg.index]
        if not isinstance(array, np.ndarray):
            raise CompileError(f"{where(func)}: parameter {b.binding} ({b.arg.name}) needs a buffer")
        buffers[b.binding] = array
    push = pack_push_constants(abi, args, rng.work_dim, rng.offset)
    counts = None
    if options.count_loop_iterations:
        counts = np.zeros(counter_slots(rng.groups, rng.local_size), np.uint32)
        buffers[counter_binding(func)] = counts
    record = None
    if layout == "checked":
        record = np.full(counter_slots(rng.groups, rng.local_size), 0xFFFFFFFF, np.uint32)
        buffers[layout_check_binding(func)] = record
    sizes = {}
    for obj in plan.objects:
        if obj.size is None and obj.arg is not None:     # a buffer or a __local parameter: as the launch gives it
            sizes[obj] = int(args[obj.arg.index].nbytes)
    bounds = bounds_record(plan.objects, sizes)
    buffers[bounds_binding(func)] = bounds
    results = dispatch(binary, func.name, buffers, push, rng.groups, spec, full_subgroups=layout == "full")
    check_bounds(func, plan.objects, results[bounds_binding(func)])
    if record is not None:
        _check_subgroup_layout(func, results[layout_check_binding(func)], rng.groups, rng.local_size, info)
    if counts is not None:
        most = int(results[counter_binding(func)].max(initial=0))
        if most >= LAVAPIPE_LOOP_LIMIT:
            raise CompileError(f"{where(func)}: a SIMD group made {most} passes through loops; lavapipe stops "
                               f"looping after {LAVAPIPE_LOOP_LIMIT}, so the results would be wrong (choose "
                               "another device with --vk-device)")
    for b in abi.buffers:
        if not b.readonly:
            args[b.arg.index][...] = results[b.binding]
