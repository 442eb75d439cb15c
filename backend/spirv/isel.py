"""Instruction selection: one IR instruction -> SPIR-V instructions (Shader capability, GLSL.std.450).

Over 600 lines: one `_op_*` handler per IR opcode family, sharing the signedness helpers at the top.

Each `_op_*` handler returns the id of the value it computed and passes `res` (an id some phi already
refers to, or None) to its last instruction. Facts used here, from the Vulkan SPIR-V environment: the
bit instructions (OpBitCount, OpBitReverse) and FindUMsb/FindILsb take 32-bit operands only, so narrower
widths are widened here (wider ones arrive split by lowering.passes.lower_bitops64); GLSL.std.450's
transcendental functions exist for 16/32-bit floats only;
OpOrdered/OpUnordered need the Kernel capability, so ord/uno are built from OpIsNan. The IR's float
arithmetic (fadd, fsub, fmul, fdiv, frem, fmuladd) is decorated NoContraction so the driver cannot fuse
a*b+c into an fma the CPU reference does not compute. GLSL.std.450 leaves NaN operands and some edges
undefined (pow of a negative base, atan2(0, 0), round's halfway cases): lowering.passes.lower_math_edges
gives OpenCL's values there before this runs (lowering.target.SPIRV says what is native).
"""
from __future__ import annotations

from reconverge.lowering.errors import CompileError, NotSupported
from reconverge.lowering.ir.core import Arg, Const, Function, Instr, Undef, Value
from reconverge.lowering.ir.opcodes import fence_spaces
from reconverge.lowering.ir.types import Type
from reconverge.lowering.passes.lower_fma import WIDER as LOWERED_FMA_WIDTHS
from reconverge.lowering.passes.lower_math_edges import LOWERED as LOWERED_MATH
from reconverge.typing_free import Protocol

from .grammar import GRAMMAR
from .memory import access_bits
from .signedness import SIGNED_GLSL, SIGNED_GLSL_OPERANDS, SIGNED_INSTRUCTIONS, reads_signed
from .types import TypeTable, is_odd_int, legal_bits

TYPE_CHECKING = False                   # not typing's: a compile's start-up does not import typing
if TYPE_CHECKING:
    from .abi import KernelABI, PushMember
    from .bounds_check import BoundsCheck
    from .emit import ModuleEmitter
    from .memory import MemoryObject, MemoryPlan
    from .module import SpirvModule

INT_BINOPS = {"add": "OpIAdd", "sub": "OpISub", "mul": "OpIMul", "udiv": "OpUDiv", "sdiv": "OpSDiv",
              "urem": "OpUMod", "shl": "OpShiftLeftLogical", "lshr": "OpShiftRightLogical",
              "ashr": "OpShiftRightArithmetic", "and": "OpBitwiseAnd", "or": "OpBitwiseOr", "xor": "OpBitwiseXor"}
BOOL_BINOPS = {"and": "OpLogicalAnd", "or": "OpLogicalOr", "xor": "OpLogicalNotEqual",
               "add": "OpLogicalNotEqual", "sub": "OpLogicalNotEqual", "mul": "OpLogicalAnd"}
FLOAT_BINOPS = {"fadd": "OpFAdd", "fsub": "OpFSub", "fmul": "OpFMul", "fdiv": "OpFDiv", "frem": "OpFRem"}
GLSL_INT = {"smin": "SMin", "smax": "SMax", "umin": "UMin", "umax": "UMax", "abs": "SAbs"}
ICMP = {"eq": "OpIEqual", "ne": "OpINotEqual", "ugt": "OpUGreaterThan", "uge": "OpUGreaterThanEqual",
        "ult": "OpULessThan", "ule": "OpULessThanEqual", "sgt": "OpSGreaterThan",
        "sge": "OpSGreaterThanEqual", "slt": "OpSLessThan", "sle": "OpSLessThanEqual"}
FCMP = {"oeq": "OpFOrdEqual", "ogt": "OpFOrdGreaterThan", "oge": "OpFOrdGreaterThanEqual",
        "olt": "OpFOrdLessThan", "ole": "OpFOrdLessThanEqual", "one": "OpFOrdNotEqual",
        "ueq": "OpFUnordEqual", "ugt": "OpFUnordGreaterThan", "uge": "OpFUnordGreaterThanEqual",
        "ult": "OpFUnordLessThan", "ule": "OpFUnordLessThanEqual", "une": "OpFUnordNotEqual"}
# IR math function -> GLSL.std.450 instruction of the same meaning
GLSL_MATH = {"sqrt": "Sqrt", "rsqrt": "InverseSqrt", "exp": "Exp", "exp2": "Exp2", "log": "Log", "log2": "Log2",
             "sin": "Sin", "cos": "Cos", "tan": "Tan", "asin": "Asin", "acos": "Acos", "atan": "Atan",
             "atan2": "Atan2", "sinh": "Sinh", "cosh": "Cosh", "tanh": "Tanh", "pow": "Pow", "fabs": "FAbs",
             "floor": "Floor", "ceil": "Ceil", "trunc": "Trunc", "rint": "RoundEven", "ldexp": "Ldexp"}
# the GLSL.std.450 functions that accept 64-bit floats
GLSL_F64 = {"Sqrt", "InverseSqrt", "FAbs", "Floor", "Ceil", "Trunc", "RoundEven", "Ldexp", "Fma", "NMin", "NMax"}
BUILTIN_VARIABLES = {"global_id": "GlobalInvocationId", "local_id": "LocalInvocationId",
                     "group_id": "WorkgroupId", "num_groups": "NumWorkgroups"}
SIZE_FUNCTIONS = ("local_size", "num_groups")   # their value past dimension 2 is 1, not 0
FENCE_SEMANTICS = {"local": "WorkgroupMemory", "global": "UniformMemory", "image": "ImageMemory"}


def _widens_an_argument(ins: Instr) -> bool:
    """The one odd-width operand legalize_int_widths leaves: an odd argument's zext at the entry (the
    argument arrives zero-extended in a legal push-constant member, so the zext is a copy)."""
    return ins.opcode == "zext" and isinstance(ins.operands[0], Arg) and not is_odd_int(ins.type)


_ID_OPERANDS: dict[tuple[str, int], tuple[bool, ...]] = {}


def _id_operands(name: str, count: int) -> tuple[bool, ...]:
    """Which of an instruction's `count` operands (after result type and id) are ids, by the grammar."""
    key = (name, count)
    hit = _ID_OPERANDS.get(key)
    if hit is None:
        flags: list[bool] = []
        for kind, quantifier in (q for q in GRAMMAR.operands(name) if q[0] not in ("IdResultType", "IdResult")):
            is_id = GRAMMAR.category(kind) == "Id" or kind == "PairIdRefIdRef"
            flags.extend([is_id] * (count - len(flags) if quantifier == "*" else 1))
        hit = _ID_OPERANDS[key] = tuple(flags[:count]) + (False,) * (count - len(flags))
    return hit


def _narrowed_compare(pred: str, a: Value, b: Value) -> tuple[Value, Value]:
    """An integer compare of an extended value with a constant that the narrower type holds, as the
    compare of the narrower values (LLVM's InstCombine does the same): the same answer, and lavapipe
    (Mesa 22.3.6) got `(long)int_value > 8188` true for 0 and every other value at -O0, where clang leaves
    the sext (a sext compared with another value, or a product of it with a constant, was right)."""
    for ext, k, swapped in ((a, b, False), (b, a, True)):
        if not (isinstance(ext, Instr) and isinstance(k, Const) and ext.opcode in ("sext", "zext")):
            continue
        src = ext.operands[0]
        bits = src.type.bits
        signed = ext.opcode == "sext"
        if bits < 2 or (pred[0] in "su" and (pred[0] == "s") != signed):
            continue
        value = int(k.value)
        full = k.type.bits
        if signed and value >> (full - 1):
            value -= 1 << full                              # the constant as a signed number
        low, high = (-(1 << (bits - 1)), (1 << (bits - 1)) - 1) if signed else (0, (1 << bits) - 1)
        if low <= value <= high:
            narrow = Const(src.type, value & ((1 << bits) - 1))
            return (narrow, src) if swapped else (src, narrow)
    return a, b


class SelectorHost(Protocol):
    """What the selector needs from the function emitter it is mixed into (emit.FunctionEmitter): the
    module being built, its type table, the kernel's ABI and memory plan, and the value/constant/variable
    lookups. Declared here so the selector's use of them is type-checked and the emitter must provide them."""

    module: ModuleEmitter
    m: SpirvModule
    types: TypeTable
    abi: KernelABI
    plan: MemoryPlan
    func: Function
    local_size: tuple[int, int, int]
    _offsets32: dict[tuple[Value, int | None], int]
    _low32: dict[Value, int]
    variables: dict[MemoryObject, int]
    push_variable: int | None
    bounds_check: BoundsCheck | None

    def where(self, ins: Instr | None) -> str: ...
    def note_interface(self, var: int) -> int: ...
    def decorate_once(self, target: int, decoration: str, *args: object) -> None: ...
    def const(self, t: Type, value: int | float) -> int: ...
    def value(self, v: Value) -> int: ...
    def builtin_variable(self, name: str, type_id: int | None = None) -> int: ...
    def flat_local_id(self) -> int | None: ...
    def local_size_constant(self) -> int: ...
    def object_variable(self, obj: MemoryObject) -> int: ...
    def load_push_member(self, member: PushMember, t: Type, res: int | None = None) -> int: ...


# Instructions whose result depends on nothing but their operands (no memory, no decoration the emitter
# adds afterwards: float arithmetic gets NoContraction): one computed earlier in the same block, which
# dominates the rest of the block, stands for a repeat (what spirv-opt's local CSE shares; an access
# chain repeated per access was 355 words of tests/kernels/private_array.cl).
SHARED_IN_BLOCK = frozenset((
    "OpAccessChain", "OpIAdd", "OpISub", "OpIMul", "OpUDiv", "OpUMod", "OpShiftLeftLogical", "OpShiftRightLogical",
    "OpBitwiseAnd", "OpBitwiseOr", "OpBitwiseXor", "OpNot", "OpBitcast", "OpUConvert", "OpCompositeExtract",
    "OpCompositeConstruct", "OpIEqual", "OpINotEqual", "OpULessThan", "OpULessThanEqual", "OpUGreaterThan",
    "OpUGreaterThanEqual", "OpSelect", "OpLogicalAnd", "OpLogicalOr", "OpLogicalNot", "OpLogicalEqual",
    "OpLogicalNotEqual"))


class InstructionSelector(SelectorHost):
    """Mixed into the function emitter, which provides the SelectorHost interface."""

    current: Instr | None = None     # the instruction being selected, for messages from helpers

    # ----- signed instructions (signedness.py) -----
    def prepare_signedness(self, func) -> None:
        """Per function: the signed results, which signed value each unsigned copy is of, the bitcasts
        made in each block ((value, block label) -> cast), and each value's users."""
        self.signed_values: set[int] = set()
        self.signed_origin: dict[int, int] = {}
        self.block_casts: dict[tuple[int, int | None], int] = {}
        self.block_values: dict[tuple[object, ...], int] = {}   # (block label, opcode, type, operands) -> result
        self.users: dict[Value, list[Instr]] = {}
        for ins in func.instructions():
            for v in ins.operands:
                self.users.setdefault(v, []).append(ins)

    def settle_signed(self, ins: Instr, computed: int) -> int:
        """The id `ins` is known by: a signed result stays signed when every use reads it signed, else
        its unsigned copy (made here, right after it, so that it dominates every use)."""
        if computed in self.signed_values and not all(reads_signed(u) for u in self.users.get(ins, ())):
            return self.unsigned_copy(computed, self.types.of(ins.type))
        return computed

    # ----- small helpers -----
    def op(self, name: str, type_id: int | None, *operands, result=None) -> int:
        """Add an instruction; a signed one (signedness.py) gets signed operands and a signed result."""
        if name in SIGNED_INSTRUCTIONS:
            return self._signed(name, type_id, [self.as_signed(x) for x in operands], result)
        if self.signed_values:
            operands = self._unsigned_operands(name, operands)
        if type_id is None:
            return self.m.op_id(name, *operands)
        if result is None and name == "OpAccessChain" and self.constant_chain(operands):
            key = (None, name, type_id, *operands)     # one for the whole function, in its first block
            hit = self.block_values.get(key)
            if hit is None:
                hit = self.block_values[key] = self.m.entry_op_id(name, type_id, *operands)
            return hit
        if result is None and name in SHARED_IN_BLOCK:     # the same value computed again in this block
            key = (self.m.block, name, type_id, *operands)
            hit = self.block_values.get(key)
            if hit is None:
                hit = self.block_values[key] = self.m.op_id(name, type_id, *operands)
            return hit
        return self.m.op_id(name, type_id, *operands, result=result)

    def constant_chain(self, operands) -> bool:
        """An access chain into a variable with constant indices: the same element wherever it is made."""
        base, *indices = operands
        return (base in self.variables.values() or base == self.push_variable) and \
            all(self.m.int_constant_value(i) is not None for i in indices)

    def _signed(self, name: str, type_id: int | None, operands: list, result, ext: tuple = ()) -> int:
        """Emit a signed instruction: an integer result type becomes signed; under a pre-assigned id
        (`result`, which phis already use as the unsigned value) the signed result is bitcast back."""
        width = self.m.int_type(type_id) if type_id is not None else None
        if width is None:
            return self.m.op_id(name, type_id, *ext, *operands, result=result)
        assert type_id is not None
        value = self.m.op_id(name, self.types.sint(width[0]), *ext, *operands)
        self.signed_values.add(value)
        if result is None:
            return value
        return self.unsigned_copy(value, type_id, result)

    def unsigned_copy(self, value: int, type_id: int, result=None) -> int:
        """OpBitcast of a signed value to its unsigned type; a signed use of the copy uses `value`."""
        copy = self.m.op_id("OpBitcast", type_id, value, result=result)
        self.signed_origin[copy] = value
        return copy

    def as_signed(self, x):
        """Operand `x` in the signed type of its width (anything not an unsigned integer is kept)."""
        t = self.m.type_of(x)
        width = self.m.int_type(t) if t is not None else None
        if width is None or width[1]:
            return x
        origin = self.signed_origin.get(x)
        if origin is not None:
            return origin
        stype = self.types.sint(width[0])
        constant = self.m.int_constant_value(x)
        if constant is not None:
            return self.m.constant(stype, constant)
        if self.m.is_undef(x):
            return self.m.undef(stype)
        key = (x, self.m.block)            # a bitcast here dominates the rest of this block only
        cast = self.block_casts.get(key)
        if cast is None:
            cast = self.block_casts[key] = self.m.op_id("OpBitcast", stype, x)
        return cast

    def as_unsigned(self, x: int) -> int:
        """A signed value (a signed instruction's result) in the unsigned type, bitcast in this block."""
        key = (x, self.m.block)
        cast = self.block_casts.get(key)
        if cast is None:
            type_id = self.m.type_of(x)
            width = self.m.int_type(type_id) if type_id is not None else None
            assert width is not None, "a signed value has an integer type"
            cast = self.block_casts[key] = self.m.op_id("OpBitcast", self.types.uint(width[0]), x)
            self.signed_origin[cast] = x
        return cast

    def _unsigned_operands(self, name: str, operands: tuple) -> tuple:
        signed = self.signed_values
        if not any(x in signed for x in operands if x.__class__ is int):
            return operands
        ids = _id_operands(name, len(operands))
        return tuple(self.as_unsigned(x) if is_id and x in signed else x for x, is_id in zip(operands, ids))

    def finish(self, res, t: Type, computed: int) -> int:
        """Make `computed` available under the id `res` a phi already uses (if any)."""
        if res is None:
            return computed
        return self.op("OpCopyObject", self.types.of(t), computed, result=res)

    def precise(self, name: str, t: Type, a: int, b: int, result=None) -> int:
        r = self.op(name, self.types.of(t), a, b, result=result)
        self.m.decorate(r, "NoContraction")
        return r

    def glsl(self, t: Type, name: str, *args, result=None, ins: Instr | None = None) -> int:
        ins = ins or self.current
        if t.is_float and t.bits == 64 and name not in GLSL_F64:
            raise CompileError(f"{self.where(ins)}: {ins.attrs.get('fn', name) if ins else name} on double "
                               "has no Vulkan SPIR-V instruction (GLSL.std.450 offers it for 16/32-bit floats)")
        type_id = self.types.of(t)
        if name in SIGNED_GLSL:
            args = tuple(self.as_signed(x) for x in args)
            return self._signed("OpExtInst", type_id, list(args), result,
                                (self.m.ext_inst_import("GLSL.std.450"), GRAMMAR.glsl(name)))
        if name in SIGNED_GLSL_OPERANDS:
            args = tuple(self.as_signed(x) if i in SIGNED_GLSL_OPERANDS[name] else x for i, x in enumerate(args))
        elif self.signed_values:
            args = tuple(self.as_unsigned(x) if x in self.signed_values else x for x in args)
        return self.m.ext_inst(type_id, name, *args, result=result)

    def u32(self, value: int) -> int:
        return self.const(Type("int", 32), value)

    def int_const(self, bits: int, value: int) -> int:
        return self.const(Type("int", bits), value)

    # ----- dispatch -----
    def lower(self, ins: Instr, res) -> int | None:
        self.current = ins          # for messages from helpers several calls down
        op = ins.opcode
        if any(is_odd_int(v.type) for v in (ins, *ins.operands)) and not _widens_an_argument(ins):
            raise CompileError(f"{self.where(ins)}: an odd integer width reached the SPIR-V emitter "
                               "(lowering.passes.legalize_int_widths should have widened it)")
        if op in INT_BINOPS:
            return self._int_binop(ins, res)
        if op == "frem" and not ins.attrs.get("relaxed"):
            raise CompileError(f"{self.where(ins)}: frem reached the SPIR-V emitter with its edge cases unlowered")
        if op == "frem":                # (halves and floats arrive as integer arithmetic: lower_math_edges)
            raise NotSupported(f"{self.where(ins)}: a double-precision fmod cannot be computed exactly on Vulkan "
                               "(OpFRem is x - y * trunc(x / y), far off where the quotient is large)")
        if op == "fdiv" and not ins.attrs.get("approx") and ins.type.bits in (16, 32):
            return self._exact(ins, res, "divide")
        if op in FLOAT_BINOPS:
            return self.precise(FLOAT_BINOPS[op], ins.type, self.value(ins.operands[0]),
                                self.value(ins.operands[1]), result=res)
        handler = getattr(self, "_op_" + op, None)
        if handler is None:
            raise CompileError(f"{self.where(ins)}: no SPIR-V lowering for this instruction")
        return handler(ins, res)

    # ----- integers -----
    def _int_binop(self, ins: Instr, res) -> int:
        a, b = (self.value(x) for x in ins.operands)
        t = ins.type
        if t.bits == 1:
            if ins.opcode not in BOOL_BINOPS:
                raise NotSupported(f"{self.where(ins)}: {ins.opcode} on i1 is not supported")
            return self.op(BOOL_BINOPS[ins.opcode], self.types.bool, a, b, result=res)
        return self.op(INT_BINOPS[ins.opcode], self.types.of(t), a, b, result=res)

    def _op_srem(self, ins: Instr, res) -> int:
        """a - (a / b) * b with OpSDiv, not OpSRem: NVIDIA's 580 driver computes OpSRem as an unsigned
        remainder, signed-typed operands or not (-57319 % 7 gave 1, not -3, on an H200), while its OpSDiv
        is right. The same value on every driver, and the same undefined cases (b = 0, INT_MIN % -1)."""
        a, b = (self.value(x) for x in ins.operands)
        t = self.types.of(ins.type)
        if ins.type.bits == 1:                 # i1: b must be true (1), so the remainder is 0
            return self.finish(res, ins.type, self.const(ins.type, 0))
        quotient = self.op("OpSDiv", t, a, b)
        return self.op("OpISub", t, a, self.op("OpIMul", t, quotient, b), result=res)

    def _glsl_int(self, ins: Instr, res) -> int:
        return self.glsl(ins.type, GLSL_INT[ins.opcode], *(self.value(x) for x in ins.operands), result=res)

    _op_smin = _op_smax = _op_umin = _op_umax = _op_abs = _glsl_int

    def _mulhi(self, ins: Instr, res, name: str) -> int:
        """The high half of OpUMulExtended/OpSMulExtended (the signed one's struct holds signed members)."""
        t = self.types.of(ins.type)
        member = self.types.sint(ins.type.bits) if name in SIGNED_INSTRUCTIONS else t
        pair = self.m.type("OpTypeStruct", member, member)
        both = self.op(name, pair, *(self.value(x) for x in ins.operands))
        if member == t:
            return self.op("OpCompositeExtract", t, both, 1, result=res)
        high = self.op("OpCompositeExtract", member, both, 1)
        self.signed_values.add(high)
        return high if res is None else self.unsigned_copy(high, t, res)

    def _op_mulhi_s(self, ins, res):
        return self._mulhi(ins, res, "OpSMulExtended")

    def _op_mulhi_u(self, ins, res):
        return self._mulhi(ins, res, "OpUMulExtended")

    def _widen32(self, x: int, bits: int) -> int:
        return x if legal_bits(bits) == 32 else self.op("OpUConvert", self.types.u32, x)

    def _narrow(self, x32: int, bits: int, res) -> int:
        if legal_bits(bits) == 32:
            return self.finish(res, Type("int", 32), x32)
        return self.op("OpUConvert", self.types.uint(bits), x32, result=res)

    def _bit_op(self, ins: Instr, res, f32) -> int:
        """Apply the 32-bit-only operation f32(x, bits): 8 and 16 bits are widened (wider values arrive
        split into halves by lowering.passes.lower_bitops64)."""
        x, bits = self.value(ins.operands[0]), ins.type.bits
        if bits == 1 or bits > 32:
            raise NotSupported(f"{self.where(ins)}: {ins.opcode} on i{bits} is not supported")
        return self._narrow(f32(self._widen32(x, bits), bits), bits, res)

    def _op_popcount(self, ins, res):
        return self._bit_op(ins, res, lambda x, bits: self.op("OpBitCount", self.types.u32, x))

    def _op_bitreverse(self, ins, res):
        def rev(x, bits):
            r = self.op("OpBitReverse", self.types.u32, x)
            return r if bits == 32 else self.op("OpShiftRightLogical", self.types.u32, r, self.u32(32 - bits))
        return self._bit_op(ins, res, rev)

    def _op_clz(self, ins, res):
        def clz(x, bits):     # FindUMsb(0) = -1, so 31 - msb is 32 for zero
            msb = self.glsl(Type("int", 32), "FindUMsb", x)
            return self.op("OpISub", self.types.u32, self.u32(31 - (32 - bits)), msb)
        return self._bit_op(ins, res, clz)

    def _op_ctz(self, ins, res):
        def ctz(x, bits):     # a sentinel bit just above the width makes ctz(0) = width
            if bits < 32:
                sentinel = self.op("OpBitwiseOr", self.types.u32, x, self.u32(1 << bits))
                return self.glsl(Type("int", 32), "FindILsb", sentinel)
            lsb = self.glsl(Type("int", 32), "FindILsb", x)
            zero = self.op("OpIEqual", self.types.bool, x, self.u32(0))
            return self.op("OpSelect", self.types.u32, zero, self.u32(32), lsb)
        return self._bit_op(ins, res, ctz)

    # ----- floats -----
    def _op_fneg(self, ins, res):
        return self.op("OpFNegate", self.types.of(ins.type), self.value(ins.operands[0]), result=res)

    def _op_fmin(self, ins, res):
        return self.glsl(ins.type, "NMin", *(self.value(x) for x in ins.operands), result=res)

    def _op_fmax(self, ins, res):
        return self.glsl(ins.type, "NMax", *(self.value(x) for x in ins.operands), result=res)

    def _op_fma(self, ins, res):
        # GLSL.std.450 Fma may round twice (Vulkan's precision table: an OpFMul then an OpFAdd; lavapipe does):
        # halves and floats arrive computed in the wider format by lowering.passes.lower_fma, doubles have none
        if ins.type.bits in LOWERED_FMA_WIDTHS:          # (where the caps say the width fuses: lower_fma left it)
            return self.glsl(ins.type, "Fma", *(self.value(x) for x in ins.operands), result=res)
        raise NotSupported(f"{self.where(ins)}: a double-precision fma cannot be computed with one rounding on Vulkan "
                           "(GLSL.std.450 Fma may round twice, and no wider format holds a double's product)")

    def _op_fmuladd(self, ins, res):
        a, b, c = (self.value(x) for x in ins.operands)
        return self.precise("OpFAdd", ins.type, self.precise("OpFMul", ins.type, a, b), c, result=res)

    def _exact(self, ins: Instr, res, operation: str) -> int:
        """Correctly rounded f32 division or sqrt (exact_float.py); a half goes through f32, which is
        exact for them (24 >= 2 * 11 + 2 bits: Figueroa, "When is double rounding innocuous?", 1995)."""
        from .exact_float import ExactFloat
        xs = [self.value(x) for x in ins.operands]
        f32 = self.types.float(32)
        if ins.type.bits == 16:
            xs = [self.op("OpFConvert", f32, x) for x in xs]
        r = getattr(ExactFloat(self), operation)(*xs)
        if ins.type.bits == 16:
            return self.op("OpFConvert", self.types.of(ins.type), r, result=res)
        return self.finish(res, ins.type, r)

    def _op_math(self, ins: Instr, res) -> int:
        """GLSL.std.450's function of the same name; lowering.passes.lower_math_edges has already turned
        the functions whose OpenCL edges GLSL leaves undefined into relaxed ones and selects. sqrt is
        correctly rounded unless the source allows OpenCL's 3 ULP (attrs['approx'])."""
        fn, t = ins.attrs["fn"], ins.type
        if fn == "sqrt" and not ins.attrs.get("approx") and t.bits in (16, 32):
            return self._exact(ins, res, "sqrt")
        if fn not in GLSL_MATH or (fn in LOWERED_MATH and not ins.attrs.get("relaxed")):
            raise CompileError(f"{self.where(ins)}: math function {fn} has no SPIR-V lowering")
        return self.glsl(t, GLSL_MATH[fn], *(self.value(x) for x in ins.operands), result=res, ins=ins)

    # ----- comparisons and select -----
    def _op_icmp(self, ins: Instr, res) -> int:
        pred = ins.attrs["pred"]
        a, b = ins.operands
        if a.type.is_ptr:
            return self._pointer_compare(ins, res)
        a, b = _narrowed_compare(pred, a, b)
        x, y = self.value(a), self.value(b)
        if a.type.bits == 1:
            if pred in ("eq", "ne"):
                return self.op("OpLogicalEqual" if pred == "eq" else "OpLogicalNotEqual", self.types.bool,
                               x, y, result=res)
            x, y = (self.op("OpSelect", self.types.u32, v, self.u32(1), self.u32(0)) for v in (x, y))
            if pred[0] == "s":          # as signed i1, true is -1: the order flips
                x, y = y, x
                pred = "u" + pred[1:]
        return self.op(ICMP[pred], self.types.bool, x, y, result=res)

    def _op_fcmp(self, ins: Instr, res) -> int:
        pred = ins.attrs["pred"]
        x, y = (self.value(v) for v in ins.operands)
        b = self.types.bool
        if pred in ("true", "false"):
            return self.finish(res, ins.type, self.const(ins.type, pred == "true"))
        if pred in ("ord", "uno"):
            nan = self.op("OpIsNan", b, x)
            if y != x:                   # isnan(x) is written uno x, x (lower_math_edges does)
                nan = self.op("OpLogicalOr", b, nan, self.op("OpIsNan", b, y))
            if pred == "uno":
                return self.finish(res, ins.type, nan)
            return self.op("OpLogicalNot", b, nan, result=res)
        return self.op(FCMP[pred], b, x, y, result=res)

    def _op_select(self, ins: Instr, res) -> int:
        c, a, b = (self.value(v) for v in ins.operands)
        return self.op("OpSelect", self.types.of(ins.type), c, a, b, result=res)

    # ----- casts -----
    def convert_int(self, name: str, x: int, src: Type, t: Type, res=None) -> int:
        """OpUConvert/OpSConvert between legal widths (a copy when both live in the same one)."""
        if legal_bits(src.bits) == legal_bits(t.bits):
            return self.finish(res, t, x)
        return self.op(name, self.types.of(t), x, result=res)

    def _op_trunc(self, ins, res):
        inner = ins.operands[0]
        if isinstance(inner, Instr) and inner.opcode == "zext" and inner.operands[0].type == ins.type:
            return self.finish(res, ins.type, self.value(inner.operands[0]))    # trunc(zext(x)) is x, unsigned
        if ins.type.bits == 32 and inner in self._low32:
            return self.finish(res, ins.type, self._low32[inner])
        x, t, src = self.value(ins.operands[0]), ins.type, ins.operands[0].type
        if t.bits == 1:
            low = self.op("OpBitwiseAnd", self.types.of(src), x, self.int_const(src.bits, 1))
            return self.op("OpINotEqual", self.types.bool, low, self.int_const(src.bits, 0), result=res)
        return self.convert_int("OpUConvert", x, src, t, res)

    def _extend(self, ins, res, name: str, true_value: int):
        x, src, t = self.value(ins.operands[0]), ins.operands[0].type, ins.type
        if src.bits == 1:
            one = self.int_const(t.bits, true_value & ((1 << t.bits) - 1))
            return self.op("OpSelect", self.types.of(t), x, one, self.int_const(t.bits, 0), result=res)
        return self.convert_int(name, x, src, t, res)     # an odd argument's zext: a copy (see ABI)

    def _op_zext(self, ins, res):
        return self._extend(ins, res, "OpUConvert", 1)

    def _op_sext(self, ins, res):
        return self._extend(ins, res, "OpSConvert", -1)

    def _op_fptrunc(self, ins, res):
        return self.op("OpFConvert", self.types.of(ins.type), self.value(ins.operands[0]), result=res)

    _op_fpext = _op_fptrunc

    def _float_to_int(self, ins, res, name: str):
        x, t = self.value(ins.operands[0]), ins.type
        if t.bits == 1:
            v = self.op(name, self.types.u32, x)
            return self.op("OpINotEqual", self.types.bool, v, self.u32(0), result=res)
        return self.op(name, self.types.of(t), x, result=res)

    def _op_fptoui(self, ins, res):
        return self._float_to_int(ins, res, "OpConvertFToU")

    def _op_fptosi(self, ins, res):
        return self._float_to_int(ins, res, "OpConvertFToS")

    def _int_to_float(self, ins, res, name: str, true_value: float):
        x, src, t = self.value(ins.operands[0]), ins.operands[0].type, ins.type
        if src.bits == 1:
            return self.op("OpSelect", self.types.of(t), x, self.const(t, true_value), self.const(t, 0.0),
                           result=res)
        return self.op(name, self.types.of(t), x, result=res)

    def _op_uitofp(self, ins, res):
        return self._int_to_float(ins, res, "OpConvertUToF", 1.0)

    def _op_sitofp(self, ins, res):
        return self._int_to_float(ins, res, "OpConvertSToF", -1.0)

    def _op_bitcast(self, ins, res):
        src = ins.operands[0]
        if src.type == ins.type or ins.type.is_ptr:
            return self.op("OpCopyObject", self.types.of(ins.type), self.value(src), result=res)
        if src.type.is_ptr:
            raise CompileError(f"{self.where(ins)}: a pointer used as an integer cannot be expressed in "
                               "logical-addressing SPIR-V")
        return self.op("OpBitcast", self.types.of(ins.type), self.value(src), result=res)

    def _op_freeze(self, ins, res):
        return self.op("OpCopyObject", self.types.of(ins.type), self.value(ins.operands[0]), result=res)

    _op_addrspacecast = _op_freeze

    def _op_ptrtoint(self, ins, res):
        raise CompileError(f"{self.where(ins)}: a pointer converted to an integer cannot be expressed in "
                           "logical-addressing SPIR-V")

    _op_inttoptr = _op_ptrtoint

    # ----- pointers and memory -----
    def _op_ptradd(self, ins, res):
        base, offset = ins.operands
        return self.finish(res, ins.type, self._add32(self.value(base), self._offset32(offset)))

    # Addresses are 32-bit byte offsets (memory.py). add, sub, mul, shl and the bitwise ops commute with
    # truncation, so a 64-bit index computation that only feeds an address is redone in 32 bits, and an
    # element index is the index the source scaled (x, not (x * 4) >> 2); the 64-bit forms, unused, are dead code
    # (dead_code.py). The two agree for every in-bounds access.
    def _add32(self, a: int, b: int) -> int:
        ka, kb = self.m.int_constant_value(a), self.m.int_constant_value(b)
        if ka is not None and kb is not None:
            return self.u32((ka + kb) & 0xFFFFFFFF)
        if ka == 0:
            return b
        if kb == 0:
            return a
        return self.op("OpIAdd", self.types.u32, a, b)

    def _offset32(self, v: Value) -> int:
        """The low 32 bits of the integer v."""
        if isinstance(v, Const):
            return self.u32(int(v.value) & 0xFFFFFFFF)
        if v in self._low32:
            return self._low32[v]
        if v.type.bits == 32 or not isinstance(v, Instr):
            return self.value(v) if v.type.bits == 32 else self.op("OpUConvert", self.types.u32, self.value(v))
        key = (v, self.m.block)         # (recomputed per block: the first use need not dominate the next)
        hit = self._offsets32.get(key)
        if hit is not None:
            return hit
        op, ops = v.opcode, v.operands
        if op in ("zext", "sext") and ops[0].type.bits == 32:
            out = self.value(ops[0])
        elif op == "and" and v.type.bits == 64 and isinstance(ops[1], Const) and \
                int(ops[1].value) & 0xFFFFFFFF == 0xFFFFFFFF:      # (x & 0xFFFFFFFF, clang's zext of a size_t)
            out = self._offset32(ops[0])
        elif op in ("add", "sub", "mul", "and", "or", "xor") and v.type.bits == 64:
            name = {"add": "OpIAdd", "sub": "OpISub", "mul": "OpIMul", "and": "OpBitwiseAnd", "or": "OpBitwiseOr",
                    "xor": "OpBitwiseXor"}[op]
            out = self.op(name, self.types.u32, self._offset32(ops[0]), self._offset32(ops[1]))
        elif op == "shl" and v.type.bits == 64 and isinstance(ops[1], Const) and int(ops[1].value) < 32:
            out = self.op("OpShiftLeftLogical", self.types.u32, self._offset32(ops[0]), self.u32(int(ops[1].value)))
        else:
            out = self.op("OpUConvert", self.types.u32, self.value(v))
        self._offsets32[key] = out
        return out

    def _quotient32(self, v: Value, divisor: int) -> int | None:
        """v / divisor in 32 bits where v is visibly a multiple of it (a constant, x * c, x << k)."""
        if isinstance(v, Const):
            signed = v.signed() if v.type.is_int else None
            if signed is None or signed % divisor:
                return None
            return self.u32((signed // divisor) & 0xFFFFFFFF)
        if not isinstance(v, Instr) or not v.type.is_int:
            return None
        op, ops = v.opcode, v.operands
        if op in ("zext", "sext"):
            return self._quotient32(ops[0], divisor)
        if op == "mul":
            for x, c in ((ops[0], ops[1]), (ops[1], ops[0])):
                if isinstance(c, Const) and not isinstance(x, Const):
                    factor = self._quotient32(c, divisor)
                    if factor is not None:
                        f = self.m.int_constant_value(factor)
                        return self._offset32(x) if f == 1 else \
                            self.op("OpIMul", self.types.u32, self._offset32(x), factor)
        if op == "shl" and isinstance(ops[1], Const) and int(ops[1].value) < 32 and divisor <= 1 << int(ops[1].value):
            k = int(ops[1].value) - (divisor.bit_length() - 1)
            shifted = self._offset32(ops[0])
            return shifted if k == 0 else self.op("OpShiftLeftLogical", self.types.u32, shifted, self.u32(k))
        return None

    def _element_index(self, ptr: Value, elem_bytes: int) -> int:
        """The index of the element ptr points at (its byte offset / elem_bytes, which divides it)."""
        steps: list[int] = []
        while True:
            if self.plan.base.get(ptr) is not None and (isinstance(ptr, Arg) or (
                    isinstance(ptr, Instr) and ptr.opcode in ("alloca", "global_addr"))):
                index = self.u32(0)
                break
            if isinstance(ptr, Instr) and ptr.opcode in ("addrspacecast", "freeze", "bitcast"):
                ptr = ptr.operands[0]
                continue
            if isinstance(ptr, Instr) and ptr.opcode == "ptradd" and \
                    self.plan.offsets.residue(ptr.operands[0], elem_bytes) == 0:
                off = ptr.operands[1]
                if isinstance(off, Const) and off.type.is_int:    # the base is aligned: floor works too
                    q: int | None = self.u32((off.signed() // elem_bytes) & 0xFFFFFFFF)
                else:
                    q = self._quotient32(off, elem_bytes)
                if q is not None:
                    steps.append(q)
                    ptr = ptr.operands[0]
                    continue
            index = self.value(ptr)
            if elem_bytes > 1:
                index = self.op("OpShiftRightLogical", self.types.u32, index, self.u32(elem_bytes.bit_length() - 1))
            break
        for q in reversed(steps):
            index = self._add32(index, q)
        return index

    def _op_alloca(self, ins, res):
        self.object_variable(self.plan.base[ins])
        return self.finish(res, ins.type, self.u32(0))

    def _op_global_addr(self, ins, res):
        return self.finish(res, ins.type, self.u32(0))

    def _pointer_compare(self, ins: Instr, res) -> int:
        pred = ins.attrs["pred"]
        a, b = ins.operands
        oa, ob = self.plan.base.get(a), self.plan.base.get(b)
        if oa is not None and oa is ob:
            unsigned = {"sgt": "ugt", "sge": "uge", "slt": "ult", "sle": "ule"}.get(pred, pred)
            return self.op(ICMP[unsigned], self.types.bool, self.value(a), self.value(b), result=res)
        if pred in ("eq", "ne") and isinstance(a, Const) and isinstance(b, Const):   # null == null
            return self.finish(res, ins.type, self.const(ins.type, (a.value == b.value) == (pred == "eq")))
        if pred in ("eq", "ne") and (oa is None or ob is None or oa is not ob):
            # different objects (or an object and null) never share an address
            if not (isinstance(a, (Const, Undef)) or isinstance(b, (Const, Undef)) or (oa and ob)):
                raise CompileError(f"{self.where(ins)}: comparison of pointers of unknown origin")
            return self.finish(res, ins.type, self.const(ins.type, pred == "ne"))
        raise CompileError(f"{self.where(ins)}: ordering pointers into different memory objects cannot be "
                           "expressed in logical-addressing SPIR-V")

    def _element_pointers(self, ins: Instr, ptr: Value, count: int):
        obj = self.plan.object_of(ptr, ins)
        var = self.object_variable(obj)
        elem_ptr_t = self.types.pointer(obj.storage_class, self.types.uint(obj.elem_bits))
        index = self._element_index(ptr, obj.elem_bytes)
        prefix = [self.u32(0)] if obj.kind == "buffer" else []
        out = []
        for k in range(count):
            i = self._add32(index, self.u32(k))
            if self.bounds_check is not None:
                i = self.bounds_check.clamp(obj, i)
            out.append(self.op("OpAccessChain", elem_ptr_t, var, *prefix, i))
        return obj, out

    def _part_of_element(self, ins: Instr, ptr: Value, bits: int):
        """For an access narrower than its object's element (private memory only, memory.py): the
        element's pointer, the element type, the bit position of the access in it (a constant where the
        offset's residue is known), and that position as a constant int or None."""
        obj, (pointer,) = self._element_pointers(ins, ptr, 1)
        elem_t = self.types.uint(obj.elem_bits)
        residue = self.plan.offsets.residue(ptr, obj.elem_bytes)
        if residue is not None:
            return pointer, elem_t, self.int_const(obj.elem_bits, residue * 8), residue * 8
        byte = self.op("OpBitwiseAnd", self.types.u32, self.value(ptr), self.u32(obj.elem_bytes - 1))
        shift = self.op("OpShiftLeftLogical", self.types.u32, byte, self.u32(3))
        if obj.elem_bits != 32:
            shift = self.op("OpUConvert", elem_t, shift)
        return pointer, elem_t, shift, None

    def _op_load(self, ins: Instr, res) -> int:
        bits = access_bits(ins)
        obj = self.plan.object_of(ins.operands[0], ins)
        if self.bounds_check is not None:
            self.bounds_check.check(obj, self.value(ins.operands[0]), bits // 8, False)
        if bits < obj.elem_bits:        # inside one element: shift it down and narrow
            pointer, elem_t, shift, known = self._part_of_element(ins, ins.operands[0], bits)
            word = self.op("OpLoad", elem_t, pointer)
            if known != 0:
                word = self.op("OpShiftRightLogical", elem_t, word, shift)
            word = self.op("OpUConvert", self.types.uint(bits), word)
            return self._loaded(ins, word, res)
        count = bits // obj.elem_bits
        _, pointers = self._element_pointers(ins, ins.operands[0], count)
        elem_t, word_t = self.types.uint(obj.elem_bits), self.types.uint(bits)
        parts = [self.op("OpLoad", elem_t, p) for p in pointers]
        word = parts[0] if len(parts) == 1 else self.op("OpUConvert", word_t, parts[0])
        for k, part in enumerate(parts[1:], 1):     # little-endian: element k holds bits k*E and up
            wide = self.op("OpUConvert", word_t, part)
            shifted = self.op("OpShiftLeftLogical", word_t, wide, self.int_const(bits, k * obj.elem_bits))
            word = self.op("OpBitwiseOr", word_t, word, shifted)
        return self._loaded(ins, word, res)

    def _loaded(self, ins: Instr, word: int, res) -> int:
        """The loaded bits (an unsigned integer of the access width) as the load's type."""
        t = ins.type
        if t.is_float:
            return self.op("OpBitcast", self.types.of(t), word, result=res)
        if t.bits == 1:
            return self.op("OpINotEqual", self.types.bool, word, self.int_const(8, 0), result=res)
        return self.finish(res, t, word)

    def _op_store(self, ins: Instr, res) -> None:
        if ins in self.plan.merges.merged:      # a byte of a wider store, made by the last of them
            return None
        wide = self.plan.merges.wide.get(ins)
        if wide is not None:
            value, ptr, bits = wide.value, wide.pointer, wide.value.type.bits
        else:
            (value, ptr), bits = ins.operands, access_bits(ins)
        obj = self.plan.object_of(ptr, ins)
        if self.bounds_check is not None:
            self.bounds_check.check(obj, self.value(ptr), bits // 8, True)
        word_t, elem_t = self.types.uint(bits), self.types.uint(obj.elem_bits)
        word = self.value(value)
        if value.type.is_float:
            word = self.op("OpBitcast", word_t, word)
        elif value.type.bits == 1:
            word = self.op("OpSelect", word_t, word, self.int_const(8, 1), self.int_const(8, 0))
        if bits < obj.elem_bits:        # inside one element: read, replace the access's bits, write
            pointer, elem_t, shift, known = self._part_of_element(ins, ptr, bits)
            ones = self.int_const(obj.elem_bits, (1 << bits) - 1)
            if known is None:
                mask = self.op("OpNot", elem_t, self.op("OpShiftLeftLogical", elem_t, ones, shift))
            else:
                mask = self.int_const(obj.elem_bits, ~(((1 << bits) - 1) << known) & ((1 << obj.elem_bits) - 1))
            part = self.op("OpUConvert", elem_t, word)
            if known != 0:
                part = self.op("OpShiftLeftLogical", elem_t, part, shift)
            kept = self.op("OpBitwiseAnd", elem_t, self.op("OpLoad", elem_t, pointer), mask)
            self.m.op("OpStore", pointer, self.op("OpBitwiseOr", elem_t, kept, part))
            return None
        count = bits // obj.elem_bits
        _, pointers = self._element_pointers(ins, ptr, count)
        for k, p in enumerate(pointers):
            part = word
            if count > 1:
                if k:
                    part = self.op("OpShiftRightLogical", word_t, word, self.int_const(bits, k * obj.elem_bits))
                part = self.op("OpUConvert", elem_t, part)
            self.m.op("OpStore", p, part)
        return None

    # ----- atomics -----
    _ATOMIC_OPS = {"add": "OpAtomicIAdd", "sub": "OpAtomicISub", "xchg": "OpAtomicExchange",
                   "inc": "OpAtomicIIncrement", "dec": "OpAtomicIDecrement", "smin": "OpAtomicSMin",
                   "smax": "OpAtomicSMax", "umin": "OpAtomicUMin", "umax": "OpAtomicUMax", "and": "OpAtomicAnd",
                   "or": "OpAtomicOr", "xor": "OpAtomicXor"}

    def _op_atomic(self, ins: Instr, res) -> int | None:
        """OpAtomic* on the element the pointer names: Workgroup scope for __local, Device otherwise;
        acquire-release semantics (acquire for loads, release for stores) on the object's storage class."""
        kind = ins.attrs["op"]
        vt = ins.operands[1].type if kind == "store" else ins.type
        if vt.bits not in (32, 64):
            raise CompileError(f"{self.where(ins)}: {vt.bits}-bit atomics have no SPIR-V form (32 or 64 bits)")
        if vt.bits == 64:
            self.m.capability("Int64Atomics")
        obj, (pointer,) = self._element_pointers(ins, ins.operands[0], 1)
        if self.bounds_check is not None:
            self.bounds_check.check(obj, self.value(ins.operands[0]), vt.bits // 8, kind != "load")
        scope = self.u32(GRAMMAR.enumerant("Scope", "Workgroup" if obj.kind == "workgroup" else "Device"))
        storage = "WorkgroupMemory" if obj.kind == "workgroup" else "UniformMemory"
        order = {"load": "Acquire", "store": "Release"}.get(kind, "AcquireRelease")
        semantics = self.u32(GRAMMAR.enumerant("MemorySemantics", order)
                             | GRAMMAR.enumerant("MemorySemantics", storage))
        if self.module.options.relaxed_atomics:  # lavapipe launches only: see SpirvOptions.relaxed_atomics
            semantics = self.u32(0)
        word_t = self.types.uint(vt.bits)

        def word(v: Value) -> int:
            x = self.value(v)
            return self.op("OpBitcast", word_t, x) if v.type.is_float else x
        if kind == "store":
            self.m.op("OpAtomicStore", pointer, scope, semantics, word(ins.operands[1]))
            return None
        if kind == "load":
            old = self.op("OpAtomicLoad", word_t, pointer, scope, semantics)
        elif kind == "cmpxchg":
            relaxed = self.u32(GRAMMAR.enumerant("MemorySemantics", storage))
            old = self.op("OpAtomicCompareExchange", word_t, pointer, scope, semantics, relaxed,
                          word(ins.operands[1]), word(ins.operands[2]))
        elif kind in ("inc", "dec"):
            old = self.op(self._ATOMIC_OPS[kind], word_t, pointer, scope, semantics)
        else:
            old = self.op(self._ATOMIC_OPS[kind], word_t, pointer, scope, semantics, word(ins.operands[1]))
        if ins.type.is_float:
            return self.op("OpBitcast", self.types.of(ins.type), old, result=res)
        return self.finish(res, ins.type, old)

    # ----- work-items and barriers -----
    def _op_workitem(self, ins: Instr, res) -> int:
        fn, dim = ins.attrs["fn"], ins.operands[0]
        if fn == "global_size":             # lowering.passes.lower_workitem makes it num_groups * local_size
            raise CompileError(f"{self.where(ins)}: get_global_size reached the SPIR-V emitter unlowered")
        if fn == "work_dim":
            return self.load_push_member(self.abi.hidden("work_dim"), ins.type, res)
        outside = 1 if fn in SIZE_FUNCTIONS else 0
        u32 = self.types.u32
        if fn == "global_offset" and isinstance(dim, Const):     # the one member, not the vector of three
            d = int(dim.value)
            comp = self.load_push_member(self.abi.hidden(f"global_offset.{'xyz'[d]}"), Type("int", 32)) \
                if d < 3 else self.u32(outside)
            return self.workitem_result(ins, comp, res)
        local = self.local_size_constant()
        if fn == "local_size":
            vec = local
        elif fn == "global_offset":
            vec = self.global_offset_vector()
        elif fn in ("local_id", "global_id") and (flat := self.flat_local_id()) is not None:
            vec = flat                      # a sub-group launch's layout (backend.spirv.subgroups)
            if fn == "global_id":
                group = self.op("OpLoad", self.types.v3u32, self.builtin_variable("WorkgroupId"))
                vec = self.op("OpIAdd", self.types.v3u32, self.op("OpIMul", self.types.v3u32, group, local), vec)
        else:
            vec = self.op("OpLoad", self.types.v3u32, self.builtin_variable(BUILTIN_VARIABLES[fn]))
        if isinstance(dim, Const):
            d = int(dim.value)
            comp = self.op("OpCompositeExtract", u32, vec, d) if d < 3 else self.u32(outside)
            if fn == "global_id" and d < 3:     # the one offset this dimension needs, not all three
                offset = self.load_push_member(self.abi.hidden(f"global_offset.{'xyz'[d]}"), Type("int", 32))
                comp = self.op("OpIAdd", u32, comp, offset)
        else:
            if fn == "global_id":
                vec = self.op("OpIAdd", self.types.v3u32, vec, self.global_offset_vector())
            d = self.value(dim)
            if dim.type.bits != 32:
                d = self.op("OpUConvert", u32, d)
            inside = self.op("OpULessThan", self.types.bool, d, self.u32(3))
            picked = self.op("OpVectorExtractDynamic", u32, vec, self.glsl(Type("int", 32), "UMin", d, self.u32(2)))
            comp = self.op("OpSelect", u32, inside, picked, self.u32(outside))
        return self.workitem_result(ins, comp, res)

    def workitem_result(self, ins: Instr, comp: int, res) -> int:
        """A work-item value computed in 32 bits, as the instruction's type."""
        if ins.type.bits == 32:
            return self.finish(res, ins.type, comp)
        self._low32[ins] = comp         # for a trunc or an address that wants the 32 bits back
        return self.op("OpUConvert", self.types.of(ins.type), comp, result=res)

    def global_offset_vector(self) -> int:
        parts = [self.load_push_member(self.abi.hidden(f"global_offset.{a}"), Type("int", 32)) for a in "xyz"]
        return self.op("OpCompositeConstruct", self.types.v3u32, *parts)

    def barrier_semantics(self, flags: Value) -> int:
        """OpControlBarrier's memory semantics for OpenCL fence flags (barrier and subgroup_barrier)."""
        semantics = 0
        for space in fence_spaces(int(flags.value) if isinstance(flags, Const) else None):
            semantics |= GRAMMAR.enumerant("MemorySemantics", FENCE_SEMANTICS[space])
        if semantics:
            semantics |= GRAMMAR.enumerant("MemorySemantics", "AcquireRelease")
        return semantics

    def _op_barrier(self, ins: Instr, res) -> None:
        semantics = self.barrier_semantics(ins.operands[0])
        workgroup = self.u32(GRAMMAR.enumerant("Scope", "Workgroup"))
        self.m.op("OpControlBarrier", workgroup, workgroup, self.u32(semantics))
        return None
