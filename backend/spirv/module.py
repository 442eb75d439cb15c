"""SpirvModule: collects SPIR-V instructions into the logical layout's sections and assembles the binary.

Over 600 lines: one builder class, most of it the grammar-driven operand encoder every section uses.

The emitter talks in opcode and enumerant names; every instruction is checked against and encoded
from the official grammar (grammar.py) as it is added, so an operand-count or operand-kind mistake
is a ValueError naming the opcode at the point of the bug, not a spirv-val complaint about word 4711.
Each instruction is encoded to a list of words once; assemble() only concatenates the sections.
"""
from __future__ import annotations

import sys
from array import array

from reconverge.backend.spirv.grammar import GRAMMAR
from reconverge.lazy_regex import LazyModule

TYPE_CHECKING = False                   # math and struct (extension modules) load for float constants only
if TYPE_CHECKING:
    import math
    import struct
else:
    math = LazyModule("math")
    struct = LazyModule("struct")

# Instructions that end a block (spec 2.2.4 "Termination Instruction", plus the extension ones).
TERMINATORS = frozenset({
    "OpBranch", "OpBranchConditional", "OpSwitch", "OpReturn", "OpReturnValue", "OpKill",
    "OpUnreachable", "OpTerminateInvocation", "OpIgnoreIntersectionKHR", "OpTerminateRayKHR",
    "OpEmitMeshTasksEXT",
})

# Module-level instructions and the section of the logical layout (spec 2.4) each belongs to.
_SECTION_OF = {
    "OpCapability": "capabilities", "OpExtension": "extensions", "OpExtInstImport": "imports",
    "OpMemoryModel": "memory_model", "OpEntryPoint": "entry_points",
    "OpExecutionMode": "execution_modes", "OpExecutionModeId": "execution_modes",
    "OpString": "debug_sources", "OpSourceExtension": "debug_sources", "OpSource": "debug_sources",
    "OpSourceContinued": "debug_sources", "OpName": "debug_names", "OpMemberName": "debug_names",
    "OpModuleProcessed": "debug_processed",
}
# Spec 2.4 "Logical Layout of a Module": the order of the sections after the 5-word header.
_SECTIONS = ("capabilities", "extensions", "imports", "memory_model", "entry_points",
             "execution_modes", "debug_sources", "debug_names", "debug_processed", "annotations",
             "globals", "function_declarations", "function_definitions")
# Instructions only begin_function/begin_block/end_function may emit (they manage the structure).
_STRUCTURAL = frozenset({"OpFunction", "OpLabel", "OpFunctionEnd"})

_WORD = 0xFFFFFFFF
# The scalar widths SPIR-V has (all but 32 need a capability: Int8, Int16, Int64, Float16, Float64).
_WIDTHS = {"OpTypeInt": (8, 16, 32, 64), "OpTypeFloat": (16, 32, 64)}


def _string_words(text: str) -> list[int]:
    """A LiteralString: UTF-8, nul-terminated, zero-padded to whole little-endian words (spec 2.2.1)."""
    data = text.encode("utf-8") + b"\0"
    data += b"\0" * (-len(data) % 4)
    return [int.from_bytes(data[k:k + 4], "little") for k in range(0, len(data), 4)]


# Memos of what the grammar answers the same way every time (the encoder asks once per operand).
_CATEGORIES: dict[str, str] = {}                                   # operand kind -> its category
_VALUE_ENUMS: dict[tuple[str, object], tuple[str, int, list[tuple[str, str]]]] = {}   # (kind, name or number)
                                                                   # -> (name, number, parameters)


def _category(kind: str) -> str:
    category = _CATEGORIES[kind] = GRAMMAR.category(kind)
    return category


class _Plan:
    """How to encode one opcode: what the grammar says, digested once per opname."""
    __slots__ = ("opname", "opcode", "has_type", "has_result", "rest", "fixed_ids", "section", "is_type")

    def __init__(self, opname: str):
        self.opname = opname
        self.opcode = GRAMMAR.opcode(opname)
        operands = GRAMMAR.operands(opname)
        self.has_type = bool(operands) and operands[0][0] == "IdResultType"
        if self.has_type:
            operands = operands[1:]
        self.has_result = bool(operands) and operands[0][0] == "IdResult"
        if self.has_result:
            operands = operands[1:]
        self.rest = operands
        self.is_type = (not self.has_type and self.has_result
                        and GRAMMAR.instruction_class(opname) == "Type-Declaration")
        # Fast path: a fixed number of plain ids (OpIAdd, OpLoad without memory operands, ...).
        plain = all(q == "" and GRAMMAR.category(k) == "Id" for k, q in operands)
        self.fixed_ids = len(operands) if plain else None
        self.section: str | None
        if opname in _SECTION_OF:
            self.section = _SECTION_OF[opname]
        elif GRAMMAR.instruction_class(opname) == "Annotation":
            self.section = "annotations"
        else:
            self.section = None     # the current function's code, or the globals outside functions


class SpirvModule:
    """One SPIR-V module under construction; ids come from new_id() (or from the methods that create)."""

    def __init__(self, version: tuple[int, int] = (1, 3)):
        major, minor = version
        if not (0 <= major <= 255 and 0 <= minor <= 255):
            raise ValueError(f"bad SPIR-V version {version!r}")
        self.version = (major, minor)
        self._bound = 1
        self._pending: set[int] = set()              # ids from new_id() not defined yet
        self._plans: dict[str, _Plan] = {}
        self._sections: dict[str, list[int]] = {name: [] for name in _SECTIONS}
        self._capabilities: set[int] = set()
        self._extensions: set[str] = set()
        self._imports: dict[str, int] = {}
        self._types: dict[tuple, int] = {}
        self._type_requests: dict[tuple, int] = {}  # (opname, *args) of a shared type asked for before -> its id
        self._type_info: dict[int, tuple] = {}       # type id -> ("int", width, signed) / ("float", width) / ("bool",)
        self._value_types: dict[int, int] = {}       # value id -> its result type id
        self._constants: dict[tuple, int] = {}
        self._int_constants: dict[int, int] = {}    # OpConstant id of an integer type -> its value, unsigned
        self._undefs: set[int] = set()              # module-level OpUndef ids
        self.block: int | None = None               # the label of the block being built
        # The function being built: OpFunction + parameters + first OpLabel, its OpVariables, the rest.
        self._in_function = False
        self._in_block = False
        self._fn_head: list[int] = []
        self._fn_vars: list[int] = []
        self._fn_entry: list[int] = []      # instructions at the top of the first block, after its variables
        self._fn_body: list[int] = []
        self._code: list[int] = self._fn_head
        self._fn_blocks = 0

    # ---- ids and encoding ------------------------------------------------------------------------

    def new_id(self) -> int:
        """A fresh id to define later with result=/label= (forward references: branch targets, phis)."""
        result = self._bound
        self._bound += 1
        self._pending.add(result)
        return result

    def _fresh(self) -> int:
        result = self._bound
        self._bound += 1
        return result

    @property
    def bound(self) -> int:
        return self._bound

    def type_width(self, type_id: int) -> int | None:
        """The bit width of an OpTypeInt/OpTypeFloat this module created, else None."""
        info = self._type_info.get(type_id)
        return info[1] if info and info[0] in ("int", "float") else None

    def float_widths(self) -> list[int]:
        """The widths of the OpTypeFloat types this module created, in increasing order."""
        return sorted(info[1] for info in self._type_info.values() if info[0] == "float")

    def int_type(self, type_id: int) -> tuple[int, bool] | None:
        """(width, signed) of an OpTypeInt this module created, else None."""
        info = self._type_info.get(type_id)
        return (info[1], info[2]) if info and info[0] == "int" else None

    def int_constant_value(self, value_id: int) -> int | None:
        """The value (as an unsigned number) of an integer OpConstant this module created, else None."""
        return self._int_constants.get(value_id)

    def is_undef(self, value_id: int) -> bool:
        return value_id in self._undefs

    def type_of(self, value_id: int) -> int | None:
        """The result type of a value this module created (None for types, labels, unknown ids)."""
        return self._value_types.get(value_id)

    def _plan(self, opname: str) -> _Plan:
        plan = self._plans.get(opname)
        if plan is None:
            plan = self._plans[opname] = _Plan(opname)
        return plan

    def _check_id(self, opname: str, value) -> int:
        if value.__class__ is not int or not 0 < value < self._bound:
            raise ValueError(f"{opname}: expected an id allocated by this module, got {value!r}")
        return value

    def _encode(self, plan: _Plan, result_type, args: tuple, result) -> tuple[list[int], int | None]:
        """The instruction's words (word count and opcode first) and its result id."""
        opname = plan.opname
        inst = [0]
        if plan.has_type:
            inst.append(self._check_id(opname, result_type))
        if plan.has_result:
            if result is None:
                result = self._bound
                self._bound += 1
            elif result not in self._pending:
                raise ValueError(f"{opname}: result id {result!r} was not allocated by new_id() "
                                 "or is already defined")
            inst.append(result)
        elif result is not None:
            raise ValueError(f"{opname} has no result id, but result={result!r} was given")
        n = plan.fixed_ids
        if n is not None:
            if len(args) != n:
                raise ValueError(f"{opname}: expected {n} operand(s) after the result, got {len(args)}: {args!r}")
            bound = self._bound
            for a in args:
                if a.__class__ is not int or not 0 < a < bound:
                    raise ValueError(f"{opname}: expected an id allocated by this module, got {a!r}")
            inst.extend(args)
        else:
            context = result_type
            if opname == "OpSwitch" and args:
                context = self._value_types.get(args[0])    # case literals are as wide as the selector
            i = self._operands(opname, plan.rest, args, 0, inst, context)
            if i < len(args):
                raise ValueError(f"{opname}: {len(args) - i} operand(s) too many: {args[i:]!r}")
        count = len(inst)
        if count > 0xFFFF:
            raise ValueError(f"{opname}: {count} words is more than an instruction can hold")
        inst[0] = (count << 16) | plan.opcode
        self._pending.discard(result)
        return inst, result

    def _operands(self, opname: str, kinds, args: tuple, i: int, out: list[int], context) -> int:
        """Encode args[i:] against a (kind, quantifier) list into out; returns the next unused index."""
        n = len(args)
        for kind, quantifier in kinds:
            if quantifier == "":
                if i >= n:
                    raise ValueError(f"{opname}: missing {kind} operand (got {n} operand(s): {args!r})")
                i = self._operand(opname, kind, args, i, out, context)
            elif quantifier == "?":
                if i < n:
                    i = self._operand(opname, kind, args, i, out, context)
            else:
                while i < n:
                    i = self._operand(opname, kind, args, i, out, context)
        return i

    def _operand(self, opname: str, kind: str, args: tuple, i: int, out: list[int], context) -> int:
        """Encode one operand of the given kind (with its enumerant parameters or pair halves)."""
        value = args[i]
        category = _CATEGORIES.get(kind) or _category(kind)
        if category == "Id":
            out.append(self._check_id(opname, value))
        elif category == "ValueEnum":
            known = _VALUE_ENUMS.get((kind, value))
            if known is None:
                name = self._enum_name(opname, kind, value)
                known = _VALUE_ENUMS[(kind, value)] = (name, GRAMMAR.enumerant(kind, name),
                                                       GRAMMAR.enumerant_parameters(kind, name))
            name, number, params = known
            out.append(number)
            if params:
                return self._operands(f"{opname} {name}", params, args, i + 1, out, context)
        elif category == "BitEnum":
            mask = self._mask(opname, kind, value)
            out.append(mask)
            i += 1
            bit = 1
            while bit <= mask:
                if mask & bit:
                    name = GRAMMAR.enumerant_name(kind, bit)
                    params = GRAMMAR.enumerant_parameters(kind, name)
                    if params:
                        i = self._operands(f"{opname} {name}", params, args, i, out, context)
                bit <<= 1
            return i
        elif category == "Composite":
            if kind == "PairLiteralIntegerIdRef" and opname == "OpSwitch":
                if i + 1 >= len(args):
                    raise ValueError(f"{opname}: incomplete (literal, label) pair at the end: {args[i:]!r}")
                if context in self._type_info:
                    out.extend(self._number_words(opname, context, self._literal_int(opname, value, signed_ok=True)))
                else:
                    out.append(self._literal_int(opname, value, signed_ok=True) & _WORD)
                out.append(self._check_id(opname, args[i + 1]))
                return i + 2
            for base in GRAMMAR.bases(kind):
                if i >= len(args):
                    raise ValueError(f"{opname}: incomplete {kind} at the end: {args!r}")
                i = self._operand(opname, base, args, i, out, context)
            return i
        elif kind == "LiteralInteger":
            value = self._literal_int(opname, value)
            if value > _WORD:
                raise ValueError(f"{opname}: literal {value} does not fit in a word")
            out.append(value)
        elif kind == "LiteralString":
            if not isinstance(value, str):
                raise ValueError(f"{opname}: expected a string, got {value!r}")
            out.extend(_string_words(value))
        elif kind == "LiteralContextDependentNumber":
            if context not in self._type_info:
                raise ValueError(f"{opname}: the result type {context!r} is not an int/float type of this module")
            out.extend(self._number_words(opname, context, value))
        elif kind == "LiteralExtInstInteger":
            out.append(GRAMMAR.glsl(value) if isinstance(value, str) else self._literal_int(opname, value))
        elif kind == "LiteralSpecConstantOpInteger":
            out.append(GRAMMAR.opcode(value) if isinstance(value, str) else self._literal_int(opname, value))
        else:
            raise ValueError(f"{opname}: operand kind {kind} is not supported")
        return i + 1

    @staticmethod
    def _literal_int(opname: str, value, signed_ok: bool = False) -> int:
        if value.__class__ is not int or (value < 0 and not signed_ok):
            raise ValueError(f"{opname}: expected a non-negative integer literal, got {value!r}")
        return value

    @staticmethod
    def _enum_name(opname: str, kind: str, value) -> str:
        if isinstance(value, str):
            try:
                GRAMMAR.enumerant(kind, value)
            except KeyError:
                raise ValueError(f"{opname}: unknown {kind} {value!r}") from None
            return value
        if value.__class__ is int:
            try:
                return GRAMMAR.enumerant_name(kind, value)
            except KeyError:
                raise ValueError(f"{opname}: unknown {kind} value {value}") from None
        raise ValueError(f"{opname}: expected a {kind} name or number, got {value!r}")

    @staticmethod
    def _mask(opname: str, kind: str, value) -> int:
        if value.__class__ is int:
            mask = value
        elif isinstance(value, str):
            mask = 0
            for name in value.split("|"):
                try:
                    mask |= GRAMMAR.enumerant(kind, name.strip())
                except KeyError:
                    raise ValueError(f"{opname}: unknown {kind} {name.strip()!r}") from None
        else:
            raise ValueError(f"{opname}: expected {kind} names ('A|B') or a mask, got {value!r}")
        bit = 1
        while bit <= mask:
            if mask & bit:
                try:
                    GRAMMAR.enumerant_name(kind, bit)
                except KeyError:
                    raise ValueError(f"{opname}: unknown {kind} bit {bit:#x}") from None
            bit <<= 1
        if not 0 <= mask <= _WORD:
            raise ValueError(f"{opname}: {kind} mask {mask:#x} out of range")
        return mask

    def _number_words(self, opname: str, type_id: int, value) -> list[int]:
        """The words of a numeric literal of the given type (spec 2.2.1 "Literal": low-order word first,
        narrow signed ints sign-extended to 32 bits, narrow unsigned ints and floats zero-extended)."""
        info = self._type_info.get(type_id)
        if info is None or info[0] not in ("int", "float"):
            raise ValueError(f"{opname}: type %{type_id} is not an int or float type of this module")
        width = info[1]
        if info[0] == "int":
            if value.__class__ is not int:
                if _is_integral(value) and not isinstance(value, bool):
                    value = int(value)
                else:
                    raise ValueError(f"{opname}: expected an int for a {width}-bit integer, got {value!r}")
            bits = value & ((1 << width) - 1)
            if width < 32 and info[2] and bits >> (width - 1):
                bits |= _WORD ^ ((1 << width) - 1)
        else:
            if value.__class__ is not float and (isinstance(value, bool) or not _is_real(value)):
                raise ValueError(f"{opname}: expected a float for a {width}-bit float, got {value!r}")
            value = float(value)
            if width == 16:
                try:
                    bits = struct.unpack("<H", struct.pack("<e", value))[0]
                except OverflowError:      # finite but beyond float16: rounds to infinity
                    bits = struct.unpack("<H", struct.pack("<e", math.copysign(math.inf, value)))[0]
            elif width == 32:
                try:
                    bits = struct.unpack("<I", struct.pack("<f", value))[0]
                except OverflowError:      # finite but beyond float32: rounds to infinity
                    bits = struct.unpack("<I", struct.pack("<f", math.copysign(math.inf, value)))[0]
            elif width == 64:
                bits = struct.unpack("<Q", struct.pack("<d", value))[0]
            else:
                raise ValueError(f"{opname}: {width}-bit floats are not supported")
        if width <= 32:
            return [bits]
        return [(bits >> shift) & _WORD for shift in range(0, width, 32)]

    # ---- generic instructions --------------------------------------------------------------------

    def op(self, opname: str, *args, result: int | None = None) -> int | None:
        """Add an instruction: op("OpIAdd", result_type, a, b) -> result id (None if it has none).

        The result type is the first argument when the grammar gives the opcode an IdResultType;
        the result id is allocated unless result= passes a pre-allocated one. Module-level opcodes
        go to their section; others go to the current block, or to the globals outside functions.
        """
        plan = self._plans.get(opname) or self._plan(opname)
        if opname in _STRUCTURAL:
            raise ValueError(f"{opname}: use begin_function/begin_block/end_function")
        if plan.is_type:
            return self.type(opname, *args, result=result)
        if plan.has_type:
            if not args:
                raise ValueError(f"{opname}: missing the result type")
            result_type, args = args[0], args[1:]
        else:
            result_type = None
        inst, result = self._encode(plan, result_type, args, result)
        if plan.section is not None:
            self._sections[plan.section].extend(inst)
        elif self._in_function:
            if not self._in_block:
                if opname != "OpFunctionParameter" or self._fn_blocks:
                    raise ValueError(f"{opname}: outside a block (the previous block was terminated; "
                                     "call begin_block first)")
            elif opname == "OpFunctionParameter":
                raise ValueError("OpFunctionParameter: after the function's first block")
            self._code.extend(inst)
            if opname in TERMINATORS:
                self._in_block = False
        else:
            if opname == "OpFunctionParameter":
                raise ValueError("OpFunctionParameter: outside a function")
            self._sections["globals"].extend(inst)
        if result_type is not None and result is not None:     # (the grammar gives a result type a result)
            self._value_types[result] = result_type
        return result

    def op_id(self, opname: str, *args, result: int | None = None) -> int:
        """op() of an instruction that has a result id: that id (a ValueError for one without)."""
        rid = self.op(opname, *args, result=result)
        if rid is None:
            raise ValueError(f"{opname}: has no result id")
        return rid

    def _global(self, opname: str, result_type, *args, result: int | None = None) -> int:
        inst, result = self._encode(self._plan(opname), result_type, args, result)
        assert result is not None, f"{opname} has a result id"
        self._sections["globals"].extend(inst)
        if result_type is not None:
            self._value_types[result] = result_type
        return result

    # ---- module-level sections (spec 2.4) ------------------------------------------------------

    def capability(self, name: str | int) -> None:
        """OpCapability, once per capability, in first-use order."""
        value = GRAMMAR.enumerant("Capability", name) if isinstance(name, str) else name
        if value not in self._capabilities:
            self._capabilities.add(value)
            self.op("OpCapability", name)

    def extension(self, name: str) -> None:
        """OpExtension, once per name."""
        if name not in self._extensions:
            self._extensions.add(name)
            self.op("OpExtension", name)

    def ext_inst_import(self, name: str) -> int:
        """The OpExtInstImport id of an extended instruction set, imported once."""
        result = self._imports.get(name)
        if result is None:
            result = self._imports[name] = self.op_id("OpExtInstImport", name)
        return result

    def memory_model(self, addressing: str, model: str) -> None:
        """OpMemoryModel (exactly one per module: a second call replaces the first)."""
        self._sections["memory_model"].clear()
        self.op("OpMemoryModel", addressing, model)

    def entry_point(self, model: str, function: int, name: str, interface=()) -> None:
        self.op("OpEntryPoint", model, function, name, *interface)

    def execution_mode(self, function: int, mode: str, *params) -> None:
        """OpExecutionMode, or OpExecutionModeId when the mode's parameters are ids."""
        kinds = GRAMMAR.enumerant_parameters("ExecutionMode", self._enum_name("OpExecutionMode", "ExecutionMode", mode))
        opname = "OpExecutionModeId" if any(GRAMMAR.category(k) == "Id" for k, _ in kinds) else "OpExecutionMode"
        self.op(opname, function, mode, *params)

    def name(self, target: int, text: str) -> None:
        self.op("OpName", target, text)

    def member_name(self, struct_id: int, index: int, text: str) -> None:
        self.op("OpMemberName", struct_id, index, text)

    def _decorate_opname(self, base: str, decoration) -> str:
        kinds = GRAMMAR.enumerant_parameters("Decoration", self._enum_name(base, "Decoration", decoration))
        if base == "OpDecorate" and any(GRAMMAR.category(k) == "Id" for k, _ in kinds):
            return "OpDecorateId"
        if self.version >= (1, 4) and any(k == "LiteralString" for k, _ in kinds):
            return base + "String"
        return base

    def decorate(self, target: int, decoration: str | int, *params) -> None:
        """OpDecorate (OpDecorateId / OpDecorateString when the decoration's parameters need it)."""
        self.op(self._decorate_opname("OpDecorate", decoration), target, decoration, *params)

    def member_decorate(self, struct_id: int, member: int, decoration: str | int, *params) -> None:
        self.op(self._decorate_opname("OpMemberDecorate", decoration), struct_id, member, decoration, *params)

    # ---- types, constants, global variables ------------------------------------------------------

    def type(self, opname: str, *args, unique: bool = False, result: int | None = None) -> int:
        """A type declaration, shared with an identical earlier one unless unique=True.

        result= defines a pre-allocated id (e.g. a struct a forward pointer refers to); such a
        type is never shared, but later identical requests reuse it.
        """
        request = None
        if not unique and result is None and all(a.__class__ is int or a.__class__ is str for a in args):
            request = (opname, *args)        # the same words as before: skip encoding them (a third of a
            found = self._type_requests.get(request)   # SPIR-V compile's type() time: u32 is asked for often)
            if found is not None:
                return found
        plan = self._plan(opname)
        if not plan.is_type:
            raise ValueError(f"{opname} is not a type declaration")
        operands: list[int] = []
        i = self._operands(opname, plan.rest, args, 0, operands, None)
        if i < len(args):
            raise ValueError(f"{opname}: {len(args) - i} operand(s) too many: {args[i:]!r}")
        if opname in ("OpTypeInt", "OpTypeFloat") and operands[0] not in _WIDTHS[opname]:
            raise ValueError(f"{opname}: {operands[0]}-bit types do not exist in SPIR-V "
                             f"(widths {', '.join(map(str, _WIDTHS[opname]))})")
        key = (plan.opcode, tuple(operands))
        if not unique and result is None:
            found = self._types.get(key)
            if found is not None:
                if request is not None:
                    self._type_requests[request] = found
                return found
        if result is None:
            result = self._fresh()
        elif result in self._pending:
            self._pending.discard(result)
        else:
            raise ValueError(f"{opname}: result id {result!r} was not allocated by new_id() or is already defined")
        inst = [((len(operands) + 2) << 16) | plan.opcode, result, *operands]
        self._sections["globals"].extend(inst)
        if not unique:
            self._types.setdefault(key, result)
            if request is not None:
                self._type_requests[request] = result
        if opname == "OpTypeInt":
            self._type_info[result] = ("int", operands[0], operands[1] != 0)
        elif opname == "OpTypeFloat":
            self._type_info[result] = ("float", operands[0])
        elif opname == "OpTypeBool":
            self._type_info[result] = ("bool",)
        return result

    def constant(self, type_id: int, value) -> int:
        """A scalar constant: OpConstant with the type's width of words, or OpConstantTrue/False."""
        info = self._type_info.get(type_id)
        if info is None:
            raise ValueError(f"constant: %{type_id} is not a scalar type created by this module")
        if info[0] == "bool":
            if not isinstance(value, (bool, int)) and type(value).__name__ != "bool_":
                raise ValueError(f"constant: expected a bool, got {value!r}")
            found = self._constants.get((type_id, bool(value)))
            if found is None:
                found = self._constants[(type_id, bool(value))] = self._global(
                    "OpConstantTrue" if value else "OpConstantFalse", type_id)
            return found
        words = self._number_words("OpConstant", type_id, value)
        key = (type_id, tuple(words))
        found = self._constants.get(key)
        if found is None:
            result = self._fresh()
            self._sections["globals"].extend(
                [((len(words) + 3) << 16) | GRAMMAR.opcode("OpConstant"), type_id, result, *words])
            self._value_types[result] = type_id
            found = self._constants[key] = result
            if info[0] == "int":
                self._int_constants[result] = int(value) & ((1 << info[1]) - 1)
        return found

    def spec_constant(self, type_id: int, default: int, spec_id: int) -> int:
        """An OpSpecConstant (never shared) decorated with SpecId `spec_id`: the pipeline may set it."""
        words = self._number_words("OpConstant", type_id, default)
        result = self._fresh()
        self._sections["globals"].extend(
            [((len(words) + 3) << 16) | GRAMMAR.opcode("OpSpecConstant"), type_id, result, *words])
        self._value_types[result] = type_id
        self.decorate(result, "SpecId", spec_id)
        return result

    def constant_composite(self, type_id: int, constituents) -> int:
        """OpConstantComposite, shared with an identical earlier one."""
        key = ("composite", type_id, tuple(constituents))
        found = self._constants.get(key)
        if found is None:
            found = self._constants[key] = self._global("OpConstantComposite", type_id, *constituents)
        return found

    def null(self, type_id: int) -> int:
        """OpConstantNull of the type, one per type."""
        key = ("null", type_id)
        found = self._constants.get(key)
        if found is None:
            found = self._constants[key] = self._global("OpConstantNull", type_id)
        return found

    def undef(self, type_id: int) -> int:
        """A module-level OpUndef of the type, one per type."""
        key = ("undef", type_id)
        found = self._constants.get(key)
        if found is None:
            found = self._constants[key] = self._global("OpUndef", type_id)
            self._undefs.add(found)
        return found

    def global_variable(self, pointer_type: int, storage_class: str | int, initializer: int | None = None,
                        result: int | None = None) -> int:
        """A module-level OpVariable (never shared); result= defines an id from new_id()."""
        args = (storage_class,) if initializer is None else (storage_class, initializer)
        return self._global("OpVariable", pointer_type, *args, result=result)

    # ---- functions and blocks ------------------------------------------------------------------

    def begin_function(self, result_type: int, function_type: int, control: str | int = "None",
                       result: int | None = None) -> int:
        """OpFunction; parameters (op("OpFunctionParameter", type)) may follow before the first block."""
        if self._in_function:
            raise ValueError("begin_function: the previous function was not ended")
        self._in_function = True
        self._in_block = False
        self._fn_blocks = 0
        self._fn_head, self._fn_vars, self._fn_entry, self._fn_body = [], [], [], []
        self._code = self._fn_head
        inst, result = self._encode(self._plan("OpFunction"), result_type, (control, function_type), result)
        assert result is not None
        self._fn_head.extend(inst)
        self._value_types[result] = result_type
        return result

    def function_parameter(self, type_id: int, result: int | None = None) -> int:
        return self.op_id("OpFunctionParameter", type_id, result=result)

    def begin_block(self, label: int | None = None) -> int:
        """OpLabel starting a block; label may be an id allocated earlier by new_id()."""
        if not self._in_function:
            raise ValueError("begin_block: outside a function")
        if self._in_block:
            raise ValueError("begin_block: the previous block has no terminator")
        inst, label = self._encode(self._plan("OpLabel"), None, (), label)
        assert label is not None
        self._code.extend(inst)
        if self._fn_blocks == 0:
            self._code = self._fn_body     # OpVariables go between the first OpLabel and this
        self._fn_blocks += 1
        self._in_block = True
        self.block = label
        return label

    def function_variable(self, pointer_type: int, initializer: int | None = None) -> int:
        """OpVariable Function, placed at the start of the function's first block (spec 2.4: all
        OpVariable Function instructions must be the first instructions of the first block)."""
        if not self._in_function:
            raise ValueError("function_variable: outside a function")
        args = ("Function",) if initializer is None else ("Function", initializer)
        inst, result = self._encode(self._plan("OpVariable"), pointer_type, args, None)
        assert result is not None
        self._fn_vars.extend(inst)
        self._value_types[result] = pointer_type
        return result

    def entry_op_id(self, opname: str, result_type: int, *args) -> int:
        """An instruction placed in the function's first block, after its variables and before the rest:
        for a value every block may use (its operands must be module-level or those variables)."""
        if not self._fn_blocks:
            raise ValueError(f"{opname}: no first block to place it in")
        inst, result = self._encode(self._plan(opname), result_type, args, None)
        assert result is not None
        self._fn_entry.extend(inst)
        self._value_types[result] = result_type
        return result

    def ext_inst(self, result_type: int, name: str, *args, result: int | None = None) -> int:
        """OpExtInst of a GLSL.std.450 instruction (the set is imported on first use)."""
        instruction = GRAMMAR.glsl(name)
        expected = GRAMMAR.glsl_operands(name)
        if not any(q == "*" for _, q in expected) and len(args) != len(expected):
            raise ValueError(f"OpExtInst {name}: expected {len(expected)} operand(s), got {len(args)}")
        return self.op_id("OpExtInst", result_type, self.ext_inst_import("GLSL.std.450"), instruction, *args,
                       result=result)

    def end_function(self) -> None:
        """OpFunctionEnd; the function goes to the declarations if it has no blocks."""
        if not self._in_function:
            raise ValueError("end_function: outside a function")
        if self._in_block:
            raise ValueError("end_function: the last block has no terminator")
        if self._fn_vars and not self._fn_blocks:
            raise ValueError("end_function: a function with variables needs a block")
        end = [(1 << 16) | GRAMMAR.opcode("OpFunctionEnd")]
        section = "function_definitions" if self._fn_blocks else "function_declarations"
        self._sections[section].extend(self._fn_head + self._fn_vars + self._fn_entry + self._fn_body + end)
        self._in_function = False
        self._fn_head, self._fn_vars, self._fn_entry, self._fn_body = [], [], [], []
        self._code = self._fn_head

    # ---- binary ----------------------------------------------------------------------------------

    def words(self) -> array:
        """The module as an array of 32-bit words (spec 2.3 "Physical Layout": 5-word header first)."""
        if self._in_function:
            raise ValueError("assemble: a function is still open (call end_function)")
        major, minor = self.version
        out = array("I", [GRAMMAR.magic_number, (major << 16) | (minor << 8), 0, self._bound, 0])
        assert out.itemsize == 4, "array('I') must hold 32-bit words"
        for name in _SECTIONS:
            out.extend(self._sections[name])
        return out

    def assemble(self) -> bytes:
        """The module as little-endian bytes."""
        out = self.words()
        if sys.byteorder != "little":
            out.byteswap()
        return out.tobytes()


def _is_integral(value) -> bool:
    """numbers.Integral's test (numpy's integers pass it), importing numbers only for a value that is not an
    int: a compile's literals are ints and floats, and importing numbers was 1.3M instructions of its start-up."""
    import numbers
    return isinstance(value, numbers.Integral)


def _is_real(value) -> bool:
    """numbers.Real's test, imported as in _is_integral (a float never asks)."""
    import numbers
    return isinstance(value, numbers.Real)
