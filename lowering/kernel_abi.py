"""What every backend's kernel ABI starts from: the kinds of a kernel's parameters and the values the host
must pass beyond the parameters. A backend maps these onto its own interface (SPIR-V: descriptors,
push constants and specialization constants, backend/spirv/abi.py; Gen: the binding table and the
thread payload's constant registers).

Kinds: a `__global` pointer is a buffer, a `__constant` pointer a read-only buffer, a `__local` pointer
memory the host sizes per work-group, a number (or a by-value vector's lane) a scalar; a private or
generic pointer (a by-value struct among them) has no kind a device can be given.
Host values: OpenCL's global offset, which no dispatch gives the device (get_global_id adds it), when
the kernel asks for the global id or the offset; the work dimension when it asks for it.
"""
from __future__ import annotations

from dataclasses import dataclass

from lowering.ir.core import Arg, Function

KINDS = ("buffer", "readonly_buffer", "local", "scalar", "unsupported")


@dataclass(frozen=True)
class Parameter:
    arg: Arg
    kind: str           # one of KINDS
    why: str = ""       # for "unsupported": what the parameter is

    @property
    def name(self) -> str:
        return self.arg.name or f"arg{self.arg.index}"


def classify(arg: Arg) -> Parameter:
    t = arg.type
    if t.is_ptr:
        space = t.addrspace
        if space == 1:
            return Parameter(arg, "buffer")
        if space == 2:
            return Parameter(arg, "readonly_buffer")
        if space == 3:
            return Parameter(arg, "local")
        what = {0: "a private pointer (or by-value struct)", 4: "a generic pointer"}.get(
            space, f"a pointer in address space {space}")
        return Parameter(arg, "unsupported", what)
    if t.is_int or t.is_float:
        return Parameter(arg, "scalar")
    return Parameter(arg, "unsupported", f"a parameter of type {t}")


def parameters(func: Function) -> list[Parameter]:
    return [classify(a) for a in func.args]


def host_values(func: Function) -> tuple[str, ...]:
    """The work-item values the host passes for this kernel, in a fixed order: 'global_offset', 'work_dim'."""
    asked = {i.attrs.get("fn") for i in func.instructions() if i.opcode == "workitem"}
    out = []
    if asked & {"global_id", "global_offset"}:
        out.append("global_offset")
    if "work_dim" in asked:
        out.append("work_dim")
    return tuple(out)
