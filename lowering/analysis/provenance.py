"""Pointer provenance: which memory object each pointer value of a kernel points into.

The IR's pointers are byte addresses, but a backend often needs to know the object behind one: SPIR-V's
logical addressing reaches memory only through a variable, a Gen surface access through its binding
table entry. The objects are the kernel's pointer parameters (buffers, and __local pointers sized by
the host), its module-level __local arrays and constant tables, and its allocas. A fixed point over
ptradd, select, phi and pointer casts gives every pointer its object, or CONFLICT when it may point into
two; a pointer loaded from memory or made from an integer has no object (`unknown_origin` says why).
The backend decides what it cannot express.
"""
from __future__ import annotations

from reconverge.lowering.ir.core import Arg, Const, Function, Instr, Value
from reconverge.records import record

TYPE_CHECKING = False                   # not typing's: a compile's start-up does not import typing
if TYPE_CHECKING:
    from typing import Callable

POINTER_COPIES = ("addrspacecast", "freeze", "bitcast")


@record(eq=False)
class MemoryObject:
    kind: str                   # "buffer", "workgroup", "constant" (read-only table), "private" (alloca)
    name: str
    size: int | None            # bytes; None for a buffer (runtime-sized) or a __local parameter (host-sized)
    init: bytes | None = None   # a constant table's contents
    arg: Arg | None = None
    readonly: bool = False


class _Conflict:
    """Lattice top: a pointer that may point into more than one object."""


CONFLICT = _Conflict()


class Provenance:
    """The memory objects of one kernel and the object (or CONFLICT) every pointer value points into.
    `make_object` lets a backend use its own MemoryObject subclass (with its layout fields); `instrs`: the
    function's instructions in order (func.instructions()), where the caller has listed them."""

    def __init__(self, func: Function, make_object: Callable[..., MemoryObject] = MemoryObject,
                 instrs: list[Instr] | None = None):
        self.func = func
        self._instrs = instrs
        self.make_object = make_object
        self.objects: list[MemoryObject] = []
        self.base: dict[Value, MemoryObject | _Conflict] = {}
        self.by_arg: dict[Arg, MemoryObject] = {}
        self.by_symbol: dict[str, MemoryObject] = {}
        self.unknown_origin: list[tuple[Instr, str]] = []   # (instruction, why) in program order
        self._make_objects()
        self._find_bases()

    def _add(self, obj: MemoryObject) -> MemoryObject:
        self.objects.append(obj)
        return obj

    def _make_objects(self) -> None:
        func, make = self.func, self.make_object
        for arg in func.args:
            if arg.type.is_ptr and arg.type.addrspace == 3:     # sized by the host
                self.by_arg[arg] = self._add(make("workgroup", arg.name or f"arg{arg.index}", None, arg=arg))
            elif arg.type.is_ptr:
                self.by_arg[arg] = self._add(make("buffer", arg.name or f"arg{arg.index}", None, arg=arg,
                                                  readonly=arg.type.addrspace == 2))
        for data in func.local_memory:
            self.by_symbol[data.symbol] = self._add(make("workgroup", data.symbol, data.size))
        for data in func.constant_data:
            self.by_symbol[data.symbol] = self._add(make("constant", data.symbol, data.size, init=data.init,
                                                         readonly=not data.writable))

    def _origin(self, ins: Instr) -> MemoryObject | list[Value] | None:
        """The object a pointer-producing instruction starts from, the pointers it copies, or None."""
        op = ins.opcode
        if op == "alloca":
            return self._add(self.make_object("private", ins.name or f"alloca{len(self.objects)}", ins.attrs["size"]))
        if op == "global_addr":
            return self.by_symbol[ins.attrs["symbol"]]
        if op in ("ptradd", *POINTER_COPIES):
            return [ins.operands[0]]
        if op == "select":
            return ins.operands[1:]
        if op == "phi":
            return list(ins.operands)
        why = {"load": "loaded from memory", "inttoptr": "made from an integer"}.get(op, f"made by {op}")
        self.unknown_origin.append((ins, why))
        return None

    def _find_bases(self) -> None:
        copies: list[tuple[Instr, list[Value]]] = []
        for ins in self.func.instructions() if self._instrs is None else self._instrs:
            if ins.type.kind != "ptr":          # (not is_ptr: a property call per instruction)
                continue
            origin = self._origin(ins)
            if isinstance(origin, MemoryObject):
                self.base[ins] = origin
            elif origin is not None:
                copies.append((ins, origin))
        for arg, obj in self.by_arg.items():
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
                if new is not None and new is not self.base.get(ins):
                    self.base[ins] = new
                    changed = True
        self.conflicts = [ins for ins, _ in copies if self.base.get(ins) is CONFLICT]


def pointer_base(p: Value) -> tuple[Value, int | None]:
    """The pointer a chain of ptradds starts from, and the sum of their byte offsets (None where one is
    not a constant)."""
    total: int | None = 0
    while isinstance(p, Instr) and p.opcode == "ptradd":
        offset = p.operands[1]
        total = total + offset.signed() if total is not None and isinstance(offset, Const) else None
        p = p.operands[0]
    return p, total
