"""Dead-code removal on the finished module: instructions that compute a value nobody uses.

The emitter selects each IR instruction on its own, so some results end up unused: a 64-bit address
computation whose 32-bit form feeds the access (isel's element indices), a value only a folded
comparison read, a type or constant a helper made and then did not need. spirv-opt's
eliminate-dead-code-aggressive removes them; this does the same without running it: every
instruction that has no effect but its result (arithmetic, conversions, access chains, non-volatile
loads, phis, GLSL.std.450 calls, types, constants, undefs) is kept only if a kept instruction uses its
result (mark and sweep from the instructions with effects, so dead cycles of phis go too), and the
names and decorations of what is removed go with it, and so do Int8/Int16/Int64/Float16/Float64 once no
type of their width is left. Literal operands of the instructions with effects are read as possible uses
(which can only keep something), except where the grammar makes them all literals (capabilities,
execution modes, decorations, merge instructions' controls) or puts them after the ids (_IDS_BEFORE).
"""
from __future__ import annotations

from array import array

from reconverge.backend.spirv.grammar import GRAMMAR

# Opcodes laid out [opcode, result type, result, operands...] whose only effect is their result.
_PURE_VALUES = (
    "OpUndef", "OpConstantTrue", "OpConstantFalse", "OpConstant", "OpConstantComposite", "OpConstantNull",
    "OpAccessChain", "OpInBoundsAccessChain", "OpPtrAccessChain", "OpLoad", "OpCopyObject", "OpPhi",
    "OpVectorExtractDynamic", "OpVectorInsertDynamic", "OpVectorShuffle", "OpCompositeConstruct",
    "OpCompositeExtract", "OpCompositeInsert",
    "OpConvertFToU", "OpConvertFToS", "OpConvertSToF", "OpConvertUToF", "OpUConvert", "OpSConvert",
    "OpFConvert", "OpBitcast", "OpSNegate", "OpFNegate", "OpIAdd", "OpFAdd", "OpISub", "OpFSub", "OpIMul",
    "OpFMul", "OpUDiv", "OpSDiv", "OpFDiv", "OpUMod", "OpSRem", "OpSMod", "OpFRem", "OpFMod",
    "OpIAddCarry", "OpISubBorrow", "OpUMulExtended", "OpSMulExtended",
    "OpIsNan", "OpIsInf", "OpLogicalEqual", "OpLogicalNotEqual", "OpLogicalOr", "OpLogicalAnd",
    "OpLogicalNot", "OpSelect", "OpIEqual", "OpINotEqual", "OpUGreaterThan", "OpSGreaterThan",
    "OpUGreaterThanEqual", "OpSGreaterThanEqual", "OpULessThan", "OpSLessThan", "OpULessThanEqual",
    "OpSLessThanEqual", "OpFOrdEqual", "OpFUnordEqual", "OpFOrdNotEqual", "OpFUnordNotEqual",
    "OpFOrdLessThan", "OpFUnordLessThan", "OpFOrdGreaterThan", "OpFUnordGreaterThan",
    "OpFOrdLessThanEqual", "OpFUnordLessThanEqual", "OpFOrdGreaterThanEqual", "OpFUnordGreaterThanEqual",
    "OpShiftRightLogical", "OpShiftRightArithmetic", "OpShiftLeftLogical", "OpBitwiseOr", "OpBitwiseXor",
    "OpBitwiseAnd", "OpNot", "OpBitFieldInsert", "OpBitFieldSExtract", "OpBitFieldUExtract",
    "OpBitReverse", "OpBitCount",
)
# Opcodes laid out [opcode, result, operands...]: the types (OpTypeForwardPointer has no result).
_TYPES = (
    "OpTypeVoid", "OpTypeBool", "OpTypeInt", "OpTypeFloat", "OpTypeVector", "OpTypeMatrix", "OpTypeArray",
    "OpTypeRuntimeArray", "OpTypeStruct", "OpTypePointer", "OpTypeFunction",
)
# Instructions about an id (its first operand) that do not use it.
_ABOUT = ("OpName", "OpMemberName", "OpDecorate", "OpMemberDecorate", "OpDecorateId", "OpDecorateString",
          "OpMemberDecorateString")

# Instructions whose operands are literals after their first `n` words (an id there could only be a number
# that happens to equal one): (opname, words of ids after the opcode word).
_LITERALS_AFTER = (("OpCapability", 0), ("OpExtension", 0), ("OpMemoryModel", 0), ("OpSource", 0),
                   ("OpSourceExtension", 0), ("OpModuleProcessed", 0), ("OpString", 0), ("OpExecutionMode", 1),
                   ("OpSelectionMerge", 1), ("OpLoopMerge", 2))

# Instructions that use ids only in their first words, the rest being literals (a type's width or count, a
# storage class, a constant's value, a composite's indices): (opname, how many words after the opcode word
# may be ids). A literal read as an id would keep whatever instruction has that number as its result.
_IDS_BEFORE = (("OpTypeInt", 0), ("OpTypeFloat", 0), ("OpTypeVector", 2), ("OpTypeMatrix", 2),
               ("OpTypePointer", 1), ("OpConstant", 1), ("OpSpecConstant", 1), ("OpCompositeExtract", 3))

# The capabilities a type of that width needs (spec 3.31); dead once no such type is left.
_WIDTH_CAPABILITIES = {("int", 8): "Int8", ("int", 16): "Int16", ("int", 64): "Int64", ("float", 16): "Float16",
                       ("float", 64): "Float64"}

_tables: tuple | None = None


def _opcodes():
    global _tables
    if _tables is None:
        _tables = (frozenset(GRAMMAR.opcode(n) for n in _PURE_VALUES), frozenset(GRAMMAR.opcode(n) for n in _TYPES),
                   frozenset(GRAMMAR.opcode(n) for n in _ABOUT), GRAMMAR.opcode("OpLoad"),
                   GRAMMAR.opcode("OpExtInst"), GRAMMAR.opcode("OpExtInstImport"),
                   {GRAMMAR.opcode(n): k for n, k in _LITERALS_AFTER}, GRAMMAR.opcode("OpEntryPoint"),
                   GRAMMAR.opcode("OpDecorateId"), {GRAMMAR.opcode(n): k for n, k in _IDS_BEFORE},
                   GRAMMAR.opcode("OpTypePointer"), GRAMMAR.opcode("OpVariable"))
    return _tables


def _id_words(s: int, e: int, op: int, literals_after: dict, decorate_id: int, about: frozenset) -> tuple[int, int]:
    """The range of the words of the instruction at [s, e) that may be ids it uses (OpEntryPoint aside)."""
    if op in literals_after:
        return s + 1, s + 1 + literals_after[op]
    if op in about:         # the target is what the instruction is about, not a use
        return (s + 3, e) if op == decorate_id else (s, s)
    return s + 1, e


def remove_dead_code(words: array) -> array:
    """The module (header included) without the results nobody uses."""
    (pure, types, about, op_load, op_ext_inst, op_import, literals_after, entry_point, decorate_id, ids_before,
     type_pointer, variable) = _opcodes()
    starts: list[int] = []
    defined: dict[int, int] = {}        # result id of a removable instruction -> its index in starts
    glsl_set = None
    n, i = len(words), 5
    while i < n:
        word = words[i]
        count, op = word >> 16, word & 0xFFFF
        if count == 0:
            raise ValueError(f"SPIR-V word {i}: an instruction of 0 words")
        k = len(starts)
        starts.append(i)
        if op in pure:
            if not (op == op_load and count > 4 and words[i + 4] & 1):     # a volatile load stays
                defined[words[i + 2]] = k
        elif op in types:
            defined[words[i + 1]] = k
        elif op == op_ext_inst:
            if words[i + 3] == glsl_set:
                defined[words[i + 2]] = k
        elif op == op_import and bytes(words[i + 2:i + count].tobytes()).rstrip(b"\0") == b"GLSL.std.450":
            glsl_set = words[i + 1]
        i += count
    starts.append(n)
    live: set[int] = set()
    work: list[int] = []

    def use(first: int, end: int) -> None:
        for w in words[first:end]:
            if w in defined and w not in live:
                live.add(w)
                work.append(w)

    removable = set(defined.values())
    for k in range(len(starts) - 1):
        if k in removable:
            continue
        s, e = starts[k], starts[k + 1]
        op = words[s] & 0xFFFF
        if op == entry_point:       # model, function, name, interface: the function and the interface
            use(s + 2, s + 3)
            name_end = s + 3
            while name_end < e and words[name_end] >> 24:      # a string's last word ends in a 0 byte
                name_end += 1
            use(name_end + 1, e)
            continue
        if op == variable:          # [op, type, result, storage class, initializer?]
            use(s + 1, s + 2)
            use(s + 4, e)
            continue
        use(*_id_words(s, e, op, literals_after, decorate_id, about))
    while work:
        k = defined[work.pop()]
        s, e = starts[k], starts[k + 1]
        op = words[s] & 0xFFFF
        if op == type_pointer:
            use(s + 3, e)
        elif op in ids_before:
            use(s + 1, min(e, s + 1 + ids_before[op]))
        else:
            use(s + 1, e)
    kept: list[tuple[int, int]] = []
    for k in range(len(starts) - 1):
        s, e = starts[k], starts[k + 1]
        op = words[s] & 0xFFFF
        if k in removable:
            result = words[s + 1] if op in types else words[s + 2]
            if result not in live:
                continue
        elif op in about and words[s + 1] in defined and words[s + 1] not in live:
            continue
        kept.append((s, e))
    unneeded = _unneeded_capabilities(words, kept)
    capability = (2 << 16) | GRAMMAR.opcode("OpCapability")
    out = array("I", words[:5])
    for s, e in kept:
        if words[s] != capability or words[s + 1] not in unneeded:
            out.extend(words[s:e])
    return out


def _unneeded_capabilities(words: array, kept: list[tuple[int, int]]) -> set[int]:
    """The width capabilities (Int8, Int64, Float16, ...) of widths no kept type has any more."""
    type_int, type_float = GRAMMAR.opcode("OpTypeInt"), GRAMMAR.opcode("OpTypeFloat")
    widths = {(words[s] & 0xFFFF, words[s + 2]) for s, _ in kept if words[s] & 0xFFFF in (type_int, type_float)}
    return {GRAMMAR.enumerant("Capability", name) for (kind, bits), name in _WIDTH_CAPABILITIES.items()
            if ((type_int if kind == "int" else type_float), bits) not in widths}
