"""Which SPIR-V instructions treat integers as signed: their operands and results get signed types.

The IR keeps signedness in its opcodes (sdiv, ashr, icmp slt ...), and so does SPIR-V: the spec lets the
instruction alone decide, so one unsigned type per width would do. glslang and DXC nevertheless always
give a signed instruction signed-typed operands and a signed-typed result, and that is the form drivers
are tested with, so the emitter gives it too: values live in the unsigned type of their width
(`OpTypeInt N 0`); an instruction named here gets its integer operands as `OpTypeInt N 1` (a constant in
the signed type, a signed instruction's own result, or an OpBitcast placed in the block that uses it)
and its integer result in the signed type; that result is bitcast back to unsigned only when some use
needs it (isel.InstructionSelector.op). (NVIDIA's 580 driver computes OpSRem as an unsigned remainder
even in this form, so srem is not emitted as OpSRem at all: isel._op_srem.)
"""
from __future__ import annotations

from reconverge.lowering.ir.core import Instr, Phi

# core instructions whose integer operands and integer result are all signed
SIGNED_INSTRUCTIONS = frozenset({
    "OpSDiv", "OpSRem", "OpSMod", "OpSNegate", "OpShiftRightArithmetic", "OpSConvert", "OpSMulExtended",
    "OpConvertSToF", "OpConvertFToS", "OpSLessThan", "OpSLessThanEqual", "OpSGreaterThan",
    "OpSGreaterThanEqual",
})
# GLSL.std.450 instructions whose integer operands and result are signed
SIGNED_GLSL = frozenset({"SAbs", "SSign", "SMin", "SMax", "SClamp", "FindSMsb"})
# GLSL.std.450 instructions with a signed integer operand among float ones: (operand index, ...)
SIGNED_GLSL_OPERANDS = {"Ldexp": (1,)}

# IR opcodes whose SPIR-V form reads the integer operands signed (for deciding where a signed result
# needs an unsigned copy at all; a value missing here only costs an extra bitcast, never correctness)
_SIGNED_IR = frozenset({"sdiv", "ashr", "smin", "smax", "abs", "sext", "sitofp", "mulhi_s"})


def reads_signed(user: Instr) -> bool:
    """Does the SPIR-V form of `user` take its integer operands in the signed type?"""
    if isinstance(user, Phi):
        return False
    if user.opcode == "icmp":
        return user.attrs["pred"][0] == "s" and not user.operands[0].type.is_ptr
    return user.opcode in _SIGNED_IR
