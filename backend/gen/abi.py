"""The Gen kernel ABI of one kernel: where each argument arrives, which binding-table index each memory
object has, and how much shared local memory and scratch a work-group and a thread need. The selector
reads it to address memory, the launcher to set up a dispatch, the container to describe the kernel.

    parameter kind           how the code reaches it
    __global/__constant T*   binding-table index = the parameter's position; pointer values are byte
                             offsets from the buffer's start (buffers under 4 GiB)
    __local T*               an 8-byte slot in the cross-thread data holding the block's SLM offset (the
                             launcher places host-sized blocks after the kernel's own __local arrays)
    scalar                   its slot in the cross-thread data, naturally aligned, from ARGUMENTS on
    module __local arrays    SLM (BTI 254) at fixed offsets from 0, in the order the kernel lists them
    module constant tables   binding-table index len(parameters) + k, contents carried in the container
    flat kernels             a kernel with a pointer whose object is not known at compile time (one that
                             may point into two buffers, was stored in memory, or was made from an
                             integer) gets every buffer and constant table as a 64-bit address in an
                             8-byte cross-thread slot, after the parameters; pointers are then addresses,
                             known objects are still reached by BTI (offset = pointer - base), the others
                             by A64 stateless messages
    private memory (allocas) A32 stateless (BTI 255) in the thread's scratch slot: work-item lane i of a
                             thread has `private_bytes` at r0.5[31:10] + i * private_bytes
"""
from __future__ import annotations

from reconverge.isa.gen9.payload import ARGUMENTS, CROSS_THREAD_GRF
from reconverge.lowering.ir.core import Arg, Function, Instr
from reconverge.records import field, record

SLM_ALIGN = 16
SCRATCH_GRANULE = 1024                      # r0.5 counts scratch in 1 KiB units (bits 31:10)


def _aligned(n: int, a: int) -> int:
    return -(-n // a) * a


@record
class KernelLayout:
    arguments: dict[Arg, int] = field(default_factory=dict)     # cross-thread byte offset of scalars, __local*
    buffer_bti: dict[Arg, int] = field(default_factory=dict)
    constants: dict[str, tuple[int, bytes]] = field(default_factory=dict)   # symbol -> (BTI, contents)
    writable: set[str] = field(default_factory=set)             # the program-scope variables among them
    slm: dict[str, int] = field(default_factory=dict)           # module __local array -> SLM offset
    slm_bytes: int = 0                                          # the kernel's own __local arrays
    private: dict[Instr, int] = field(default_factory=dict)     # alloca -> offset in a work-item's frame
    private_bytes: int = 0
    spill_bytes: int = 0                                        # per thread, set by register allocation
    flat: bool = False                                          # pointers are 64-bit addresses (A64)
    bases: dict[object, int] = field(default_factory=dict)      # flat: buffer Arg / table symbol -> slot

    @property
    def arguments_end(self) -> int:
        ends = [off + 8 if a.type.is_ptr else off + max(4, a.type.size) for a, off in self.arguments.items()]
        return max(ends + [off + 8 for off in self.bases.values()], default=ARGUMENTS)

    def scratch_bytes(self, simd: int) -> int:
        """A thread's scratch slot: its lanes' private frames, then spills, in whole KiB."""
        return max(SCRATCH_GRANULE, _aligned(self.spill_base(simd) + self.spill_bytes, SCRATCH_GRANULE))

    def spill_base(self, simd: int) -> int:
        """Where spills start in the scratch slot: after the private frames, 32-byte aligned."""
        return _aligned(self.private_bytes * simd, 32)

    def first_free_grf(self) -> int:
        return CROSS_THREAD_GRF + -(-self.arguments_end // 32)

    def payload(self, simd: int) -> dict:
        """The container's description of what the code expects (isa/gen9/container.py)."""
        return {"header": 0, "local_ids": [1, 2, 3], "cross_thread": CROSS_THREAD_GRF, "arguments": ARGUMENTS,
                "argument_bytes": self.arguments_end - ARGUMENTS,
                "argument_offsets": {str(a.index): off for a, off in self.arguments.items()},
                "slm_bytes": self.slm_bytes, "scratch_bytes": self.scratch_bytes(simd),
                "flat_address_offsets": {(f"arg{k.index}" if isinstance(k, Arg) else str(k)): off
                                         for k, off in self.bases.items()},
                "constants": [{"bti": bti, "symbol": sym, "data": data.hex()}
                              for sym, (bti, data) in self.constants.items()]}


def kernel_layout(func: Function, flat: bool = False, instrs: list[Instr] | None = None) -> KernelLayout:
    layout = KernelLayout(flat=flat)
    offset = ARGUMENTS
    for a in func.args:
        if a.type.is_ptr and a.type.addrspace != 3:
            layout.buffer_bti[a] = a.index
            continue
        size = 8 if a.type.is_ptr else max(4, a.type.size)
        offset = _aligned(offset, size)
        layout.arguments[a] = offset
        offset += size
    for k, data in enumerate(func.constant_data):
        layout.constants[data.symbol] = (len(func.args) + k, data.init or bytes(data.size))
        if data.writable:
            layout.writable.add(data.symbol)
    if flat:
        for key in [a for a in layout.buffer_bti] + list(layout.constants):
            offset = _aligned(offset, 8)
            layout.bases[key] = offset
            offset += 8
    for data in func.local_memory:
        layout.slm_bytes = _aligned(layout.slm_bytes, max(data.align, 4))
        layout.slm[data.symbol] = layout.slm_bytes
        layout.slm_bytes += data.size
    frame = 0
    for ins in func.instructions() if instrs is None else instrs:
        if ins.opcode == "alloca":
            frame = _aligned(frame, max(int(ins.attrs.get("align", 4)), 4))
            layout.private[ins] = frame
            frame += int(ins.attrs["size"])
    layout.private_bytes = _aligned(frame, 8)
    return layout


def local_block_offsets(layout: KernelLayout, sizes: dict[Arg, int]) -> tuple[dict[Arg, int], int]:
    """SLM offsets of host-sized __local blocks (after the kernel's own arrays) and the total SLM."""
    offsets, end = {}, _aligned(layout.slm_bytes, SLM_ALIGN)
    for a, n in sizes.items():
        offsets[a] = end
        end = _aligned(end + n, SLM_ALIGN)
    return offsets, end
