"""Check a SPIR-V module's signed instructions for signed-typed operands and results, as glslang and DXC
emit them (and as NVIDIA's driver needs: it reads OpSRem's signedness from its operands' type).

The module is read through spirv-dis (a disassembler we did not write), so the check does not share the
emitter's idea of what it wrote. The instruction list comes from the SPIR-V spec (every instruction that
reads or makes a signed integer), not from the emitter's table.
"""
from __future__ import annotations

import subprocess

# core instructions whose integer operands and integer results are signed (SPIR-V 1.6 spec, 3.52)
SIGNED_CORE = frozenset({
    "OpSDiv", "OpSRem", "OpSMod", "OpSNegate", "OpShiftRightArithmetic", "OpSConvert", "OpSMulExtended",
    "OpConvertSToF", "OpConvertFToS", "OpSLessThan", "OpSLessThanEqual", "OpSGreaterThan",
    "OpSGreaterThanEqual", "OpBitFieldSExtract", "OpAtomicSMin", "OpAtomicSMax", "OpSatConvertSToU",
})
# GLSL.std.450 instructions on signed integers (GLSL.std.450 spec, 2.1-2.2)
SIGNED_GLSL = frozenset({"SAbs", "SSign", "SMin", "SMax", "SClamp", "FindSMsb"})
# GLSL.std.450 instructions with one signed integer operand (index among the instruction's operands)
SIGNED_GLSL_OPERAND = {"Ldexp": 1}


def disassemble(binary: bytes) -> list[list[str]]:
    """The module's instructions as token lists (`%12 = OpSRem %7 %10 %11` -> its 6 tokens)."""
    proc = subprocess.run(["spirv-dis", "--raw-id", "--no-header", "--no-color", "-"], input=binary,
                          capture_output=True, check=True)
    return [line.split() for line in proc.stdout.decode().splitlines() if line.strip()]


def violations(binary: bytes) -> list[str]:
    """One line per signed instruction with an unsigned-typed integer operand or result."""
    lines = disassemble(binary)
    ints: dict[str, bool] = {}          # OpTypeInt id -> signed
    members: dict[str, list[str]] = {}  # OpTypeStruct id -> member types
    pointee: dict[str, str] = {}        # OpTypePointer id -> pointee type
    value_type: dict[str, str] = {}
    for t in lines:
        if len(t) > 3 and t[1] == "=":
            result, op, args = t[0], t[2], t[3:]
            if op == "OpTypeInt":
                ints[result] = args[1] == "1"
            elif op == "OpTypeStruct":
                members[result] = args
            elif op == "OpTypePointer":
                pointee[result] = args[1]
            elif not op.startswith("OpType") and args[0].startswith("%"):
                value_type[result] = args[0]

    def unsigned(type_id: str | None) -> bool:
        if type_id in members:
            return any(unsigned(m) for m in members[type_id])
        return ints.get(type_id or "") is False

    bad = []
    for t in lines:
        if len(t) < 4 or t[1] != "=":
            continue
        op, result_type, operands = t[2], t[3], t[4:]
        if op == "OpExtInst":
            name, operands = operands[1], operands[2:]
            if name in SIGNED_GLSL_OPERAND:
                operands, result_type = [operands[SIGNED_GLSL_OPERAND[name]]], ""
            elif name not in SIGNED_GLSL:
                continue
        elif op not in SIGNED_CORE:
            continue
        elif op.startswith("OpAtomic"):     # the pointer's pointee type is the operation's type
            operands = [operands[-1]]
            if value_type.get(t[4]) in pointee and unsigned(pointee[value_type[t[4]]]):
                bad.append(" ".join(t) + "   (points to an unsigned integer)")
                continue
        typed = [x for x in operands if x.startswith("%")]
        if unsigned(result_type) or any(unsigned(value_type.get(x)) for x in typed):
            bad.append(" ".join(t))
    return bad
