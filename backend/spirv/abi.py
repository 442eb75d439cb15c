"""The Vulkan kernel ABI: how an OpenCL kernel's parameters reach a GLCompute entry point (the kinds of
parameters and the host values come from lowering.kernel_abi, which every backend shares).

- A `__global` or `__constant` pointer parameter is a storage buffer: descriptor set 0, binding = the
  parameter's index in the source signature, a Block struct holding one runtime array.
- Scalar parameters (and the lanes of a by-value vector) are members of one push-constant block, in
  parameter order, each widened to 32 bits (64-bit types stay 64 bits, aligned to 8), so the block never
  needs the 8/16-bit push-constant capabilities. A float is stored as itself, every integer type as its
  two's-complement pattern zero-extended, a half as its 16 bits in the low half of the word.
- Hidden members follow the user's, each present only when the kernel needs it: `global_offset.x/y/z`
  (u32 each; OpenCL's global offset, which Vulkan dispatches lack: get_global_id adds it to
  GlobalInvocationId) and `work_dim` (u32).

- A `__local T *` parameter is a Workgroup array whose element count is the specialization constant
  SpecId LOCAL_SPEC_ID_BASE + the parameter's index; the launcher sets it from the host's size (a
  LocalArg's bytes divided by the element width the memory plan chose), through VkSpecializationInfo.

Everything else (a by-value struct, a private pointer) has no mapping and is a CompileError naming the
parameter. The same description packs the host's values (`pack_push_constants`),
so the emitter and the launcher cannot disagree.
"""
from __future__ import annotations

from reconverge.lazy_regex import LazyModule
from reconverge.lowering.errors import CompileError, where
from reconverge.lowering.ir.core import Arg, Function
from reconverge.lowering.ir.types import Type
from reconverge.lowering.kernel_abi import host_values, type_kind
from reconverge.records import field, record

TYPE_CHECKING = False                   # struct (an extension module) loads for push-constant data only
if TYPE_CHECKING:
    import struct
else:
    struct = LazyModule("struct")

PUSH_CONSTANT_LIMIT = 128   # bytes: the minimum maxPushConstantsSize every Vulkan device must offer
LOCAL_SPEC_ID_BASE = 100    # SpecId of parameter N's __local array length: 100 + N


def local_spec_id(arg: Arg) -> int:
    return LOCAL_SPEC_ID_BASE + arg.param


@record(frozen=True)
class BufferParam:
    arg: Arg
    binding: int
    readonly: bool          # a __constant buffer (decorated NonWritable)


@record(frozen=True)
class PushMember:
    name: str
    offset: int
    type: Type              # the member's own type in the block: i32/i64/f32/f64
    arg: Arg | None         # None for a hidden member


@record
class KernelABI:
    buffers: list[BufferParam] = field(default_factory=list)
    push: list[PushMember] = field(default_factory=list)
    locals: list[Arg] = field(default_factory=list)      # __local pointer parameters

    @property
    def push_size(self) -> int:
        return max((m.offset + m.type.size for m in self.push), default=0)

    def member_for(self, arg: Arg) -> PushMember:
        return next(m for m in self.push if m.arg is arg)

    def hidden(self, name: str) -> PushMember:
        """The hidden member `name` (work_dim, global_offset.x, ...): every kernel's ABI has them."""
        return next(m for m in self.push if m.arg is None and m.name == name)


def _member_type(t: Type) -> Type:
    if t.is_float and t.bits in (32, 64):
        return t
    return Type("int", 64) if t.bits == 64 else Type("int", 32)


def kernel_abi(func: Function) -> KernelABI:
    abi = KernelABI()
    offset = 0

    def add_member(name: str, t: Type, arg: Arg | None) -> None:
        nonlocal offset
        offset = -(-offset // t.size) * t.size
        abi.push.append(PushMember(name, offset, t, arg))
        offset += t.size

    for arg in func.args:                   # one IR argument at a time: a by-value vector's lanes apart
        kind, why = type_kind(arg.type)
        name = arg.name or f"arg{arg.index}"
        place = f"{where(func)}: parameter {arg.param} ({name})"
        if kind == "local":
            abi.locals.append(arg)
        elif kind in ("buffer", "readonly_buffer"):
            abi.buffers.append(BufferParam(arg, arg.param, kind == "readonly_buffer"))
        elif kind == "scalar":
            add_member(name, _member_type(arg.type), arg)
        elif arg.type.is_ptr:
            raise CompileError(f"{place}: {why} has no Vulkan mapping (buffers must be __global or "
                               "__constant; declare __local arrays inside the kernel)")
        else:
            raise CompileError(f"{place}: parameter type {arg.type} has no Vulkan mapping")
    hidden = host_values(func)
    if "global_offset" in hidden:
        for axis in "xyz":
            add_member(f"global_offset.{axis}", Type("int", 32), None)
    if "work_dim" in hidden:
        add_member("work_dim", Type("int", 32), None)
    if abi.push_size > PUSH_CONSTANT_LIMIT:
        raise CompileError(f"{where(func)}: scalar parameters need "
                           f"{abi.push_size} bytes of push constants, more than the {PUSH_CONSTANT_LIMIT} "
                           "every Vulkan device offers")
    return abi


def pack_push_constants(abi: KernelABI, args: list, work_dim: int, global_offset=(0, 0, 0)) -> bytes:
    """The push-constant bytes for one launch; `args` in Function.args order (numpy scalars or numbers)."""
    data = bytearray(abi.push_size)
    hidden = {"work_dim": work_dim, **{f"global_offset.{a}": o for a, o in zip("xyz", global_offset)}}
    for m in abi.push:
        value = hidden[m.name] if m.arg is None else args[m.arg.index]
        src = m.arg.type if m.arg is not None else m.type
        if src.is_float and src.bits == 16:
            import numpy as np  # only launches need it: `compile` does not pay for the import
            word = int(np.float16(value).view(np.uint16))
            struct.pack_into("<I", data, m.offset, word)
        elif m.type.is_float:
            struct.pack_into("<f" if m.type.bits == 32 else "<d", data, m.offset, float(value))
        else:
            bits = src.bits
            pattern = int(value) & ((1 << bits) - 1)
            struct.pack_into("<I" if m.type.bits == 32 else "<Q", data, m.offset, pattern)
    return bytes(data)
