"""Pointers under logical addressing: which memory object each IR pointer points into.

The IR's pointers are byte addresses (ptradd), but Vulkan SPIR-V has no pointer arithmetic: memory is
reached through OpAccessChain into a variable. So every pointer value is represented as (memory object,
byte offset), where the object must be known at compile time: lowering.analysis.provenance finds it; a
pointer that may point into two objects, or comes from memory or an integer, cannot be expressed and is
a CompileError naming the instruction.

Each object is an array of unsigned integers of one width, the element: for shared memory (buffers,
__local) the narrowest access (or provable alignment, lowering.analysis.offset_alignment) seen on it, so
every load or store is a whole number of elements at an element-aligned offset, and a wider access is
split into elements and recombined (little-endian, like the host's buffers). A private array (one
invocation's own) is typed by its widest access that every access allows: each access either covers
whole elements at an element-aligned offset or lies inside one element, where a load extracts its bits
and a store is a read-modify-write (safe: no other invocation sees the array). An array written through
byte stores and read as words is then an array of words, as glslang would declare it.
"""
from __future__ import annotations

from reconverge.lowering.analysis.offset_alignment import OffsetAlignment
from reconverge.lowering.analysis.provenance import MemoryObject as ProvenanceObject
from reconverge.lowering.analysis.provenance import Provenance
from reconverge.lowering.errors import CompileError, NotSupported, where
from reconverge.lowering.ir.core import Function, Instr, Undef, Value
from reconverge.records import record
from reconverge.typing_free import cast

from .store_merge import StoreMerges


@record(eq=False)
class MemoryObject(ProvenanceObject):
    """A provenance object laid out as a SPIR-V array of one unsigned integer width."""
    elem_bits: int = 0          # decided from the accesses; 0 until then

    @property
    def storage_class(self) -> str:
        return {"buffer": "StorageBuffer", "workgroup": "Workgroup", "constant": "Private",
                "private": "Function"}[self.kind]

    @property
    def elem_bytes(self) -> int:
        return self.elem_bits // 8

    @property
    def length(self) -> int:
        """Number of elements (not for buffers)."""
        assert self.size is not None
        return max(1, -(-self.size // self.elem_bytes))


def access_bits(ins: Instr) -> int:
    """Bits a load/store moves (an i1 is stored as a byte)."""
    t = ins.type if ins.opcode == "load" else ins.operands[0].type
    return max(8, t.bits)


class MemoryPlan:
    """The memory objects of one kernel and the object every pointer value points into."""

    def __init__(self, func: Function):
        self.func = func
        for data in func.constant_data:
            if data.writable:
                raise CompileError(f"{where(func)}: program-scope variable "
                                   f"@{data.symbol} is writable: Vulkan has no program-scope global memory")
        provenance = Provenance(func, MemoryObject)
        for ins, why in provenance.unknown_origin:
            if why.startswith("made by"):
                raise NotSupported(f"{where(func, ins)}: unsupported pointer-producing instruction")
            raise CompileError(f"{where(func, ins)}: a pointer {why} cannot be expressed in logical-addressing "
                               "SPIR-V")
        for ins in provenance.conflicts:
            raise CompileError(f"{where(func, ins)}: this pointer may point into different memory "
                               "objects, which logical-addressing SPIR-V cannot express")
        self.objects = cast(list[MemoryObject], provenance.objects)
        self.base = cast(dict[Value, MemoryObject], provenance.base)
        self.offsets = OffsetAlignment(func)
        self.merges = StoreMerges(func)
        self._choose_elements()

    def object_of(self, ptr: Value, user: Instr) -> MemoryObject:
        obj = self.base.get(ptr)
        if obj is None:
            what = "undefined" if isinstance(ptr, Undef) else "of unknown origin"
            raise CompileError(f"{where(self.func, user)}: the pointer is {what}")
        return obj

    # ----- element widths -----
    def _choose_elements(self) -> None:
        private: dict[MemoryObject, list[tuple[int, int]]] = {}     # object -> [(bits, alignment bits)]
        for ins in self.func.instructions():
            if ins.opcode not in ("load", "store"):
                continue
            ptr = ins.operands[0] if ins.opcode == "load" else ins.operands[1]
            if ins.opcode == "store" and ins.operands[0].type.is_ptr:
                raise CompileError(f"{where(self.func, ins)}: storing a pointer to memory cannot be "
                                   "expressed in logical-addressing SPIR-V")
            obj = self.object_of(ptr, ins)
            bits = access_bits(ins)
            if bits > 64 or bits & (bits - 1):
                raise NotSupported(f"{where(self.func, ins)}: a {bits}-bit access is not supported")
            align_bits = 8 * max(ins.attrs.get("align", bits // 8), self.offsets.alignment(ptr))
            if ins in self.merges.merged:       # part of a wider store (store_merge.py), emitted as that
                continue
            wide = self.merges.wide.get(ins)
            if wide is not None:
                bits, align_bits = wide.value.type.bits, 8 * self.offsets.alignment(wide.pointer)
            if obj.kind == "private":
                private.setdefault(obj, []).append((bits, align_bits))
                continue
            e = max(8, min(bits, align_bits))
            obj.elem_bits = min(obj.elem_bits or 64, e)
            if ins.opcode == "store" and obj.readonly:
                raise CompileError(f"{where(self.func, ins)}: store into read-only memory {obj.name}")
        atomics = []
        atomic_cap: dict[MemoryObject, int] = {}    # a private object's atomics need elements this narrow
        for ins in self.func.instructions():
            if ins.opcode == "atomic":
                obj = self.object_of(ins.operands[0], ins)
                bits = (ins.operands[1].type if ins.attrs.get("op") == "store" else ins.type).bits
                atomics.append((ins, obj, bits))
                if obj.kind == "private":
                    private.setdefault(obj, []).append((bits, bits))
                    atomic_cap[obj] = min(atomic_cap.get(obj, 64), bits)
                    continue
                obj.elem_bits = min(obj.elem_bits or 64, bits)
        for obj, accesses in private.items():
            obj.elem_bits = _widest_allowed(accesses, atomic_cap.get(obj, 64))
        for obj in self.objects:
            if not obj.elem_bits:
                obj.elem_bits = 32
            while obj.size is not None and obj.size % obj.elem_bytes and obj.elem_bits > 8:
                obj.elem_bits //= 2
        for ins, obj, bits in atomics:      # an atomic works on one whole element
            if obj.elem_bits != bits:
                raise CompileError(f"{where(self.func, ins)}: a {bits}-bit atomic on {obj.name}, which is also "
                                   f"accessed {obj.elem_bits} bits at a time: SPIR-V atomics need whole elements")


def _widest_allowed(accesses: list[tuple[int, int]], cap: int) -> int:
    """The widest element (bits) that each (bits, alignment bits) access either covers whole, aligned,
    or lies inside of (aligned to its own width, so it never straddles two elements)."""
    for e in sorted({bits for bits, _ in accesses if bits <= cap}, reverse=True):
        if all(align >= e if bits >= e else align >= bits for bits, align in accesses):
            return e
    return 8
