"""Out-of-bounds accesses in `run --target spirv` launches: an error naming the memory object, not a result.

Vulkan's robust buffer access (which lavapipe enables) turns a read past a buffer's end into zeros and
drops a write (or lets it land anywhere in the buffer), and an access past the end of a private or
__local array is undefined: either way the launch would answer without a word. So a launch's module,
built with SpirvOptions.check_bounds, compares each access's byte range with its object's size before it
(the size of a buffer or a __local parameter comes from the launch, in an extra buffer; an array's is a
constant) and sets the object's bit in a private read or write mask; each invocation ORs its masks into
the extra buffer with one atomic each when it returns, and the launcher turns a set bit into a one-line
error. The access itself runs on a buffer as it would unchecked (robust access keeps it harmless; the
launch's results are refused anyway), and on an array at element 0 instead (clamp: outside the array it
would be undefined). `--emit spirv` never carries this.
"""
from __future__ import annotations

import numpy as np

from reconverge.lowering.errors import CompileError, where
from reconverge.lowering.ir.core import Function

from .abi import kernel_abi
from .memory import MemoryObject

READ_WORD, WRITE_WORD, FIRST_SIZE = 0, 1, 2
"""The extra buffer: the read mask, the write mask, then each memory object's byte size by its index."""


def bounds_binding(func: Function) -> int:
    """The storage-buffer binding of the masks and sizes: after the kernel's buffers, the loop counters and
    the sub-group layout record (loop_count.counter_binding, subgroups.layout_check_binding)."""
    return 3 + max((b.binding for b in kernel_abi(func).buffers), default=-1)


def object_bit(index: int) -> int:
    """The mask bit of memory object `index` (objects from 31 on share the last bit)."""
    return 1 << min(index, 31)


def bounds_record(objects: list[MemoryObject], sizes: dict[MemoryObject, int]) -> np.ndarray:
    """The extra buffer for a launch: clear masks, then each object's byte size where the launch sets it."""
    record = np.zeros(FIRST_SIZE + len(objects), np.uint32)
    for index, obj in enumerate(objects):
        record[FIRST_SIZE + index] = min(sizes.get(obj, obj.size or 0), 0xFFFFFFFF)
    return record


def check_bounds(func: Function, objects: list[MemoryObject], record: np.ndarray) -> None:
    """A CompileError naming the first object a launch read or wrote out of its bounds, if any."""
    for word, what in ((WRITE_WORD, "write to"), (READ_WORD, "read of")):
        mask = int(record[word])
        for index, obj in enumerate(objects):
            if mask & object_bit(index):
                name = _describe(obj) if index < 31 or len(objects) == 32 else "a memory object"
                raise CompileError(f"{where(func)}: spirv target: out-of-bounds {what} {name} (robust "
                                   "buffer access would have hidden it, so the results are refused)")


def _describe(obj: MemoryObject) -> str:
    if obj.kind == "buffer" and obj.arg is not None:
        return f"buffer '{obj.arg.name}'"
    if obj.kind == "workgroup":
        return f"__local parameter '{obj.arg.name}'" if obj.arg is not None else f"__local array '{obj.name}'"
    if obj.kind == "constant":
        return f"constant table '{obj.name}'"
    return f"private array '{obj.name}'"


class BoundsCheck:
    """Emits the checks into one kernel: `prepare` in the entry block, `check` before each access,
    `flush` before each return."""

    def __init__(self, emitter) -> None:
        self.e = emitter
        self.record: int | None = None
        self.masks: tuple[int, int] | None = None
        self.sizes: dict[int, int] = {}
        self.index: dict[MemoryObject, int] = {}

    def prepare(self) -> None:
        from .loop_count import record_buffer
        e, types = self.e, self.e.types
        u32 = types.u32
        self.record = record_buffer(e, "bounds", bounds_binding(e.func))
        word = types.pointer("StorageBuffer", u32)
        self.index = {obj: index for index, obj in enumerate(e.plan.objects)}
        for index, obj in enumerate(e.plan.objects):
            if obj.size is None:        # a buffer, or a __local parameter: its size comes with the launch
                slot = e.op("OpAccessChain", word, self.record, e.u32(0), e.u32(FIRST_SIZE + index))
                self.sizes[index] = e.op("OpLoad", u32, slot)
        self.masks = (e.m.function_variable(types.pointer("Function", u32), e.u32(0)),
                      e.m.function_variable(types.pointer("Function", u32), e.u32(0)))

    def check(self, obj: MemoryObject, offset: int, nbytes: int, write: bool) -> None:
        """Before an access of `nbytes` at byte `offset` (an id) of `obj`: its bit in the mask where the
        range is not inside the object (offset > size, or fewer than nbytes bytes from offset to the end:
        unsigned, so a negative offset is past the end too)."""
        e, types = self.e, self.e.types
        assert self.masks is not None
        u32, boolean = types.u32, types.bool
        index = self.index[obj]
        size = self.sizes.get(index)
        if size is None:
            assert obj.size is not None
            size = e.u32(obj.size)
        past = e.op("OpUGreaterThan", boolean, offset, size)
        short = e.op("OpULessThan", boolean, e.op("OpISub", u32, size, offset), e.u32(nbytes))
        outside = e.op("OpLogicalOr", boolean, past, short)
        bit = e.op("OpSelect", u32, outside, e.u32(object_bit(index)), e.u32(0))
        mask = self.masks[write]
        e.m.op("OpStore", mask, e.op("OpBitwiseOr", u32, e.op("OpLoad", u32, mask), bit))

    def clamp(self, obj: MemoryObject, index: int) -> int:
        """An element index of `obj` (an id) kept inside it: element 0 where it is past the end (unsigned:
        a negative one too). The masks have the access already and the launch's results are refused; what
        the clamp spares is the access itself, which outside a __local or private array is undefined
        (lavapipe crashed on a __local one). Buffers need none: robust buffer access keeps them harmless."""
        if obj.kind == "buffer":
            return index
        e, types = self.e, self.e.types
        u32 = types.u32
        size = self.sizes.get(self.index[obj])
        if size is None:
            length = e.u32(obj.length)
        else:                                   # a __local parameter: its bytes come with the launch
            length = e.op("OpShiftRightLogical", u32, size, e.u32(obj.elem_bytes.bit_length() - 1))
        inside = e.op("OpULessThan", types.bool, index, length)
        return e.op("OpSelect", u32, inside, index, e.u32(0))

    def flush(self) -> None:
        """Before an OpReturn: this invocation's masks into the extra buffer (relaxed atomics)."""
        e, types = self.e, self.e.types
        assert self.masks is not None
        u32 = types.u32
        word = types.pointer("StorageBuffer", u32)
        for slot, mask in zip((READ_WORD, WRITE_WORD), self.masks):
            pointer = e.op("OpAccessChain", word, self.record, e.u32(0), e.u32(slot))
            e.op("OpAtomicOr", u32, pointer, e.u32(1), e.u32(0), e.op("OpLoad", u32, mask))
