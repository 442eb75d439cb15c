"""Pointers under logical addressing: which memory object each IR pointer points into.

The IR's pointers are byte addresses (ptradd), but Vulkan SPIR-V has no pointer arithmetic: memory is
reached through OpAccessChain into a variable. So every pointer value is represented as (memory object,
byte offset), where the object must be known at compile time. Provenance is found by a fixed point over
ptradd/select/phi/casts; a pointer that may point into two objects, or comes from memory or an integer,
cannot be expressed and is a CompileError naming the instruction.

Each object is an array of unsigned integers of one width, the element: the narrowest access (or access
alignment) seen on it, so every load or store is a whole number of elements at an element-aligned offset,
and a wider access is split into elements and recombined (little-endian, like the host's buffers).
"""
from __future__ import annotations

from dataclasses import dataclass

from lowering.errors import CompileError, where
from lowering.ir.core import Arg, Function, Instr, Undef, Value

POINTER_COPIES = ("addrspacecast", "freeze", "bitcast")


@dataclass(eq=False)
class MemoryObject:
    kind: str                   # "buffer", "workgroup", "constant" (read-only table), "private" (alloca)
    name: str
    size: int | None            # bytes; None for a buffer (runtime-sized) or a __local parameter (host-sized)
    init: bytes | None = None   # a constant table's contents
    arg: Arg | None = None
    readonly: bool = False
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
        return max(1, -(-self.size // self.elem_bytes))


class _Conflict:
    """Lattice top: a pointer that may point into more than one object."""


CONFLICT = _Conflict()


def access_bits(ins: Instr) -> int:
    """Bits a load/store moves (an i1 is stored as a byte)."""
    t = ins.type if ins.opcode == "load" else ins.operands[0].type
    return max(8, t.bits)


class MemoryPlan:
    """The memory objects of one kernel and the object every pointer value points into."""

    def __init__(self, func: Function):
        self.func = func
        self.objects: list[MemoryObject] = []
        self.base: dict[Value, MemoryObject | None] = {}
        self._by_arg: dict[Arg, MemoryObject] = {}
        self._by_symbol: dict[str, MemoryObject] = {}
        self._make_objects()
        self._find_bases()
        self._choose_elements()

    # ----- objects -----
    def _make_objects(self) -> None:
        func = self.func
        for arg in func.args:
            if arg.type.is_ptr and arg.type.addrspace == 3:     # sized by the host: a spec constant
                obj = MemoryObject("workgroup", arg.name or f"arg{arg.index}", None, arg=arg)
                self._by_arg[arg] = obj
                self.objects.append(obj)
            elif arg.type.is_ptr:
                obj = MemoryObject("buffer", arg.name or f"arg{arg.index}", None, arg=arg,
                                   readonly=arg.type.addrspace == 2)
                self._by_arg[arg] = obj
                self.objects.append(obj)
        for data in func.local_memory:
            obj = MemoryObject("workgroup", data.symbol, data.size)
            self._by_symbol[data.symbol] = obj
            self.objects.append(obj)
        for data in func.constant_data:
            if data.writable:
                raise CompileError(f"{where(func)}: program-scope variable "
                                   f"@{data.symbol} is writable: Vulkan has no program-scope global memory")
            obj = MemoryObject("constant", data.symbol, data.size, init=data.init, readonly=True)
            self._by_symbol[data.symbol] = obj
            self.objects.append(obj)

    # ----- provenance -----
    def _origin(self, ins: Instr):
        """The object a pointer-producing instruction starts from, or the pointer operands it copies."""
        op = ins.opcode
        if op == "alloca":
            obj = MemoryObject("private", ins.name or f"alloca{len(self.objects)}", ins.attrs["size"])
            self.objects.append(obj)
            return obj
        if op == "global_addr":
            return self._by_symbol[ins.attrs["symbol"]]
        if op in ("ptradd", *POINTER_COPIES):
            return [ins.operands[0]]
        if op == "select":
            return ins.operands[1:]
        if op == "phi":
            return list(ins.operands)
        if op == "load":
            raise CompileError(f"{where(self.func, ins)}: a pointer loaded from memory cannot be expressed "
                               "in logical-addressing SPIR-V")
        if op == "inttoptr":
            raise CompileError(f"{where(self.func, ins)}: a pointer made from an integer cannot be "
                               "expressed in logical-addressing SPIR-V")
        raise CompileError(f"{where(self.func, ins)}: unsupported pointer-producing instruction")

    def _find_bases(self) -> None:
        copies: list[tuple[Instr, list[Value]]] = []
        for ins in self.func.instructions():
            if not ins.type.is_ptr:
                continue
            origin = self._origin(ins)
            if isinstance(origin, MemoryObject):
                self.base[ins] = origin
            else:
                copies.append((ins, origin))
        for arg, obj in self._by_arg.items():
            self.base[arg] = obj
        changed = True
        while changed:                  # monotone: unknown -> object -> CONFLICT
            changed = False
            for ins, sources in copies:
                new = self.base.get(ins)
                for s in sources:
                    b = self.base.get(s)
                    if b is None or new is b:
                        continue
                    new = b if new is None else CONFLICT
                if new is not self.base.get(ins):
                    self.base[ins] = new
                    changed = True
        for ins, _ in copies:
            if self.base.get(ins) is CONFLICT:
                raise CompileError(f"{where(self.func, ins)}: this pointer may point into different memory "
                                   "objects, which logical-addressing SPIR-V cannot express")

    def object_of(self, ptr: Value, user: Instr) -> MemoryObject:
        obj = self.base.get(ptr)
        if obj is None or obj is CONFLICT:
            what = "undefined" if isinstance(ptr, Undef) else "of unknown origin"
            raise CompileError(f"{where(self.func, user)}: the pointer is {what}")
        return obj

    # ----- element widths -----
    def _choose_elements(self) -> None:
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
                raise CompileError(f"{where(self.func, ins)}: a {bits}-bit access is not supported")
            align_bits = 8 * ins.attrs.get("align", bits // 8)
            e = max(8, min(bits, align_bits))
            obj.elem_bits = min(obj.elem_bits or 64, e)
            if ins.opcode == "store" and obj.readonly:
                raise CompileError(f"{where(self.func, ins)}: store into read-only memory {obj.name}")
        atomics = []
        for ins in self.func.instructions():
            if ins.opcode == "atomic":
                obj = self.object_of(ins.operands[0], ins)
                bits = (ins.operands[1].type if ins.attrs.get("op") == "store" else ins.type).bits
                obj.elem_bits = min(obj.elem_bits or 64, bits)
                atomics.append((ins, obj, bits))
        for obj in self.objects:
            if not obj.elem_bits:
                obj.elem_bits = 32
            while obj.size is not None and obj.size % obj.elem_bytes and obj.elem_bits > 8:
                obj.elem_bits //= 2
        for ins, obj, bits in atomics:      # an atomic works on one whole element
            if obj.elem_bits != bits:
                raise CompileError(f"{where(self.func, ins)}: a {bits}-bit atomic on {obj.name}, which is also "
                                   f"accessed {obj.elem_bits} bits at a time: SPIR-V atomics need whole elements")
