"""Counting loop passes in lavapipe launches, so that a loop lavapipe cuts short is an error.

Mesa 22.3's llvmpipe (lavapipe) runs a subgroup (a SIMD group of 8 lanes on AVX2) through loops with a
lane mask, and stops looping once the subgroup has made 65,535 passes through loop ends in all its loops
together; then it carries on after the loop without a word (measured: two loops of 40,000 iterations
each leave the second at 25,534; a 300 x 300 nest stops at 65,101). A pass is counted even when no lane
is active: a loop inside an if no lane takes, or after every lane has left, still makes one pass. No
rewrite of the loops avoids it, since the limit is per shader run, so `run --target spirv` counts
instead: a module built with SpirvOptions.count_loop_iterations adds, for each subgroup, one at every pass
through a loop header (one elected lane adds it), plus, at the kernel's entry and at every pass through a
loop header, the number of loops nested inside (each may run one pass with no lane active, unseen); the
launcher refuses the results once a count reaches the limit. Each invocation keeps its share in a private
variable and adds it to the counter with one atomic when it returns (a loop-only kernel of 30,000
iterations per lane: 0.57 s against 0.25 s uncounted on lavapipe; an atomic per pass made it 1.65 s).
The count is never below llvmpipe's and exceeds it by at most one per nested loop per pass of its
parent. Only lavapipe launches carry this; `--emit spirv` never does.

Below SPIR-V 1.3 there are no subgroup instructions: every lane adds to its work-group's counter, a sum
never below any of its subgroups' counts, so the check stays safe (it may refuse a launch that was not
cut).
"""
from __future__ import annotations

from reconverge.lowering.ir.core import Function, If, Loop

from .abi import kernel_abi

LAVAPIPE_LOOP_LIMIT = 65535
"""Passes through loop ends a lavapipe subgroup makes, in all loops together, before the driver stops looping."""


def loops_inside(nodes: list) -> int:
    """How many loops a CF list holds, at any depth."""
    total = 0
    for node in nodes:
        if isinstance(node, If):
            total += loops_inside(node.then_list) + loops_inside(node.else_list)
        elif isinstance(node, Loop):
            total += 1 + loops_inside(node.body)
    return total


def counter_binding(func: Function) -> int:
    """The storage-buffer binding of the counters: the one after the kernel's own buffers."""
    return 1 + max((b.binding for b in kernel_abi(func).buffers), default=-1)


def counter_slots(groups: tuple[int, int, int], local_size: tuple[int, int, int]) -> int:
    """How many counters a launch needs: one per work-item slot, enough for any subgroup layout."""
    return groups[0] * groups[1] * groups[2] * local_size[0] * local_size[1] * local_size[2]


class LoopCounter:
    """Emits the counting into one kernel: `prepare` in the entry block, `count` in each loop header,
    `flush` before each return."""

    def __init__(self, emitter) -> None:
        self.e = emitter
        self.pointer: int | None = None
        self.share: int | None = None
        self.subgroups = emitter.module.options.version >= (1, 3)

    def prepare(self) -> None:
        """The counter's address: slot (linear work-group id) * work-group size + SubgroupId."""
        e, m, types = self.e, self.e.m, self.e.types
        u32 = types.u32
        var, slot = group_record(e, "loop_counts", counter_binding(e.func))
        if self.subgroups:
            m.capability("GroupNonUniform")
            slot = e.op("OpIAdd", u32, slot, e.op("OpLoad", u32, e.builtin_variable("SubgroupId", u32)))
        self.pointer = e.op("OpAccessChain", types.pointer("StorageBuffer", u32), var, e.u32(0), slot)
        self.share = m.function_variable(types.pointer("Function", u32), e.u32(0))

    def count(self, amount: int) -> None:
        """Add `amount` to this invocation's share of its subgroup's count (the elected lane's share only).
        The share is a private variable, added to the counter by one atomic per invocation at its return
        (`flush`): an atomic per pass made loop-heavy kernels 7.6 times slower on lavapipe."""
        e, u32 = self.e, self.e.types.u32
        add = e.u32(amount)
        if self.subgroups:
            elected = e.op("OpGroupNonUniformElect", e.types.bool, e.u32(3))      # Scope Subgroup
            add = e.op("OpSelect", u32, elected, add, e.u32(0))
        e.m.op("OpStore", self.share, e.op("OpIAdd", u32, e.op("OpLoad", u32, self.share), add))

    def flush(self) -> None:
        """Before an OpReturn: this invocation's share into the counter (relaxed: lavapipe only)."""
        e, u32 = self.e, self.e.types.u32
        e.op("OpAtomicIAdd", u32, self.pointer, e.u32(1), e.u32(0), e.op("OpLoad", u32, self.share))


def record_buffer(e, name: str, binding: int) -> int:
    """A storage buffer of u32 the launcher reads back (`name`, at `binding`): its variable."""
    m, types = e.m, e.types
    u32 = types.u32
    array = m.type("OpTypeRuntimeArray", u32)
    e.decorate_once(array, "ArrayStride", 4)
    block = m.type("OpTypeStruct", array, unique=True)
    m.decorate(block, "Block")
    m.member_decorate(block, 0, "Offset", 0)
    m.name(block, f"{e.func.name}.{name}.block")
    var = m.global_variable(types.pointer("StorageBuffer", block), "StorageBuffer")
    m.decorate(var, "DescriptorSet", 0)
    m.decorate(var, "Binding", binding)
    m.name(var, name)
    e.note_interface(var)
    return var


def group_record(e, name: str, binding: int) -> tuple[int, int]:
    """A record buffer (record_buffer) and the index of this work-group's first slot in it: linear
    work-group id * work-group size. The loop counters and the sub-group layout record
    (backend.spirv.subgroups) are both laid out this way."""
    types = e.types
    u32 = types.u32
    var = record_buffer(e, name, binding)
    group = e.op("OpLoad", types.v3u32, e.builtin_variable("WorkgroupId", types.v3u32))
    count = e.op("OpLoad", types.v3u32, e.builtin_variable("NumWorkgroups", types.v3u32))
    gx, gy, gz = (e.op("OpCompositeExtract", u32, group, i) for i in range(3))
    nx, ny = (e.op("OpCompositeExtract", u32, count, i) for i in range(2))
    linear = e.op("OpIAdd", u32, e.op("OpIMul", u32, e.op("OpIAdd", u32, e.op("OpIMul", u32, gz, ny), gy), nx), gx)
    size = e.local_size[0] * e.local_size[1] * e.local_size[2]
    return var, e.op("OpIMul", u32, linear, e.u32(size))
