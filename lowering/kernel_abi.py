"""What every backend's kernel ABI and every run target start from: a kernel's source parameters (Param,
the one parameter model: from the LLVM module's metadata, or grouped from the IR's arguments), their
kinds, and the values the host must pass beyond the parameters. A backend maps these onto its own
interface (SPIR-V: descriptors, push constants and specialization constants, backend/spirv/abi.py; Gen:
the binding table and the thread payload's constant registers).

Kinds: a `__global` pointer is a buffer, a `__constant` pointer a read-only buffer, a `__local` pointer
memory the host sizes per work-group, a number (or a by-value vector's lane) a scalar; a private or
generic pointer (a by-value struct among them) has no kind a device can be given.
Host values: OpenCL's global offset, which no dispatch gives the device (get_global_id adds it), when
the kernel asks for the global id or the offset; the work dimension when it asks for it.
"""
from __future__ import annotations

import re

from reconverge.lowering.errors import CompileError, NotSupported
from reconverge.lowering.ir.core import Arg, Function
from reconverge.lowering.ir.types import F16, F32, F64, Type, int_type, ptr
from reconverge.records import record

TYPE_CHECKING = False                   # not typing's: a compile's start-up does not import typing
if TYPE_CHECKING:
    from typing import Any

KINDS = ("buffer", "readonly_buffer", "local", "scalar", "unsupported")


def type_kind(t: Type) -> tuple[str, str]:
    """The kind (KINDS) of an IR argument of type `t`, and for "unsupported" what the parameter is."""
    if t.is_ptr:
        space = t.addrspace
        if space == 1:
            return "buffer", ""
        if space == 2:
            return "readonly_buffer", ""
        if space == 3:
            return "local", ""
        return "unsupported", {0: "a private pointer (or by-value struct)", 4: "a generic pointer"}.get(
            space, f"a pointer in address space {space}")
    if t.is_int or t.is_float:
        return "scalar", ""
    return "unsupported", f"a parameter of type {t}"


def host_values(func: Function) -> tuple[str, ...]:
    """The work-item values the host passes for this kernel, in a fixed order: 'global_offset', 'work_dim'."""
    asked = {i.attrs.get("fn") for i in func.instructions() if i.opcode == "workitem"}
    out = []
    if asked & {"global_id", "global_offset"}:
        out.append("global_offset")
    if "work_dim" in asked:
        out.append("work_dim")
    return tuple(out)


# ----- the source's parameters (what the host binds: `run --arg NAME=...`) -----

@record(frozen=True)
class Param:
    """A kernel parameter as the source wrote it (several IR arguments for a by-value vector)."""
    index: int
    name: str                  # the source's name, else argN
    types: tuple[Type, ...]    # one per IR argument (lane)
    cl_type: str = ""          # the OpenCL type name from !kernel_arg_type ("float4*", "int"), if known
    byval_size: int = 0        # a struct passed by value (LLVM `byval`): its size in bytes; else 0

    @property
    def is_pointer(self) -> bool:
        return len(self.types) == 1 and self.types[0].is_ptr

    @property
    def is_local(self) -> bool:
        """A `__local T *` parameter: the host gives a size (LocalArg), not a buffer."""
        return self.is_pointer and self.types[0].addrspace == 3

    @property
    def is_byval(self) -> bool:
        """A struct passed by value: given as its bytes (a .npy of exactly byval_size bytes), not written back."""
        return self.byval_size > 0

    @property
    def is_buffer(self) -> bool:
        return self.is_pointer and not self.is_local and not self.is_byval

    @property
    def is_vector(self) -> bool:
        return len(self.types) > 1

    @property
    def kind(self) -> str:
        """Its IR arguments' kind (type_kind: a by-value vector's lanes are scalars)."""
        return type_kind(self.types[0])[0]

    @property
    def why(self) -> str:
        """For an "unsupported" kind: what the parameter is."""
        return type_kind(self.types[0])[1]


def kernel_params(func: Function) -> list[Param]:
    """The source parameters of a structured kernel, from its IR arguments grouped by Arg.param."""
    groups: dict[int, list[Arg]] = {}
    for a in func.args:
        groups.setdefault(a.param, []).append(a)
    params = []
    for index, lanes in groups.items():
        name = lanes[0].name if len(lanes) == 1 else lanes[0].name.rsplit(".", 1)[0]
        params.append(Param(index, name or f"arg{index}", tuple(a.type for a in lanes)))
    return params


def kernel_metadata(mod: Any, text: str, kernel: str, path: str) -> Any:
    from reconverge.lowering.frontend.llvm_module import function_header
    from reconverge.lowering.frontend.llvm_reader import parse_kernel_metadata
    return parse_kernel_metadata(function_header(mod.get_function(kernel)), text, f"{path}: kernel @{kernel}")


_LLVM_SCALARS = {"half": F16, "float": F32, "double": F64}


def _llvm_type(text: str, where: str) -> tuple[Type, ...]:
    """An LLVM parameter type as one IR type per lane: i32, float, ptr addrspace(N), <N x T>."""
    text = text.strip()
    vector = re.fullmatch(r"<(\d+) x ([^>]+)>", text)
    if vector:
        return _llvm_type(vector.group(2), where) * int(vector.group(1))
    if re.fullmatch(r"i\d+", text):
        return (int_type(int(text[1:])),)
    if text in _LLVM_SCALARS:
        return (_LLVM_SCALARS[text],)
    pointer = re.fullmatch(r"ptr(?: addrspace\((\d+)\))?", text)
    if pointer:
        return (ptr(int(pointer.group(1) or 0)),)
    raise NotSupported(f"{where}: parameter type {text} is not supported")


def llvm_kernel_params(mod: Any, text: str, kernel: str, path: str) -> list[Param]:
    """The kernel's parameters from the LLVM module: names from !kernel_arg_name (else argN), OpenCL type
    names from !kernel_arg_type, one IR type per lane; a struct passed by value (`byval(T)`) with T's size."""
    fn = mod.get_function(kernel)
    meta = kernel_metadata(mod, text, kernel, path)
    params = []
    for index, arg in enumerate(fn.arguments):
        where = f"{path}: kernel @{kernel}: parameter {index}"
        name = meta.arg_names[index] if index < len(meta.arg_names) and meta.arg_names[index] else \
            (arg.name or f"arg{index}")
        cl_type = meta.arg_types[index] if index < len(meta.arg_types) else ""
        byval = _byval_size(mod, " ".join(a.decode() if isinstance(a, bytes) else str(a) for a in arg.attributes),
                            where)
        params.append(Param(index, name, _llvm_type(str(arg.type), where), cl_type, byval))
    _check_names_distinct(params, f"{path}: kernel @{kernel}")
    return params


def _check_names_distinct(params: list[Param], where: str) -> None:
    """Refuse a kernel two of whose parameters have one name (hand-written !kernel_arg_name): --arg NAME
    and the NAME.npy results could not tell them apart, and one buffer would be lost."""
    first: dict[str, int] = {}
    for p in params:
        if p.name in first:
            raise CompileError(f"{where}: parameters {first[p.name]} and {p.index} are both named '{p.name}' "
                               f"(!kernel_arg_name): name them apart to run the kernel")
        first[p.name] = p.index


def _byval_size(mod: Any, arg_text: str, where: str) -> int:
    """The size in bytes of a `byval(T)` parameter's T (0 when the parameter is not byval)."""
    m = re.search(r"\bbyval\((%[\w.$\"]+|\{[^}]*\}|\[[^\]]*\])\)", arg_text)
    if m is None:
        return 0
    type_name = m.group(1)
    from reconverge.lowering.frontend.text_module import TextModule
    if isinstance(mod, TextModule) and type_name.startswith("%"):    # clang's text, read without llvmlite
        from reconverge.lowering.frontend.llvm_types import DataLayout, TypeError_
        try:
            return DataLayout(mod.data_layout).alloc_size(mod.struct(type_name[1:].strip('"')))
        except TypeError_:
            raise CompileError(f"{where}: cannot size the by-value type {type_name}") from None
    try:
        from reconverge.lowering.frontend.llvm_module import target_data
        struct = mod.get_struct_type(type_name[1:].strip('"')) if type_name.startswith("%") else None
        if struct is None:
            raise NameError(type_name)
        return int(target_data(mod).get_abi_size(struct))
    except (NameError, RuntimeError, ValueError):
        raise CompileError(f"{where}: cannot size the by-value type {type_name}") from None
