"""How the IR interpreter represents values, and conversions between host (numpy) and IR values.

One representation per kind, chosen so that every operation is exact and cheap in Python:
  - integers of any width: a Python int holding the bit pattern, masked to the width (i1 is 0 or 1);
    signedness lives in the opcode, as in LLVM, so `signed()` reinterprets on demand;
  - floats: numpy float16/float32/float64 scalars, so arithmetic rounds exactly as the CPU does;
  - pointers: a Python int, the 64-bit address in the interpreter's flat memory (see memory).
"""
from __future__ import annotations

from typing import Any

import numpy as np

from reconverge.lowering.ir.core import Const, Function, Instr, Undef, Value
from reconverge.lowering.ir.opcodes import OPCODES, Opcode
from reconverge.lowering.ir.types import Type
from reconverge.lowering.ndrange import NDRange, ndrange

Val = Any     # an interpreter value: an int (integers, pointers) or a numpy float scalar of the type's width
FLOAT_DTYPES: dict[int, type[np.floating[Any]]] = {16: np.float16, 32: np.float32, 64: np.float64}
UINT_DTYPES = {16: np.uint16, 32: np.uint32, 64: np.uint64}
MASK64 = (1 << 64) - 1


class InterpreterError(Exception):
    """The kernel did something the IR leaves undefined, or the interpreter cannot run it.

    The executor prefixes the message with the function, block and instruction at fault."""


def mask(bits: int) -> int:
    return (1 << bits) - 1


def signed(value: int, bits: int) -> int:
    """Two's complement reading of a masked bit pattern."""
    return value - (1 << bits) if value >> (bits - 1) & 1 else value


def float_dtype(ty: Type) -> type[np.floating[Any]]:
    try:
        return FLOAT_DTYPES[ty.bits]
    except KeyError:
        raise InterpreterError(f"unsupported float type {ty}") from None


def float_to_bits(x: Val, bits: int) -> int:
    """The IEEE bit pattern of a float value (exact: no conversion through Python floats)."""
    return int(np.asarray(x, dtype=FLOAT_DTYPES[bits]).view(UINT_DTYPES[bits]))


def bits_to_float(n: int, bits: int) -> Val:
    return np.asarray(n & mask(bits), dtype=UINT_DTYPES[bits]).view(FLOAT_DTYPES[bits])[()]


def zero(ty: Type) -> Val:
    """All bits zero."""
    if ty.is_float:
        return float_dtype(ty)(0)
    return 0


def filled(ty: Type, byte: int) -> Val:
    """The value whose every byte is `byte`: what undef reads as when uninitialized data is filled."""
    if byte == 0:
        return zero(ty)
    bits = int.from_bytes(bytes([byte]) * 8, "little")
    if ty.is_float:
        return bits_to_float(bits, ty.bits)
    return bits & mask(ty.bits)


def from_host(ty: Type, x: Any) -> Val:
    """Convert a host value (Python or numpy scalar) to the interpreter's value of type `ty`.

    Integers are taken modulo 2**bits, so both signed and unsigned host values work; floats are rounded to
    the type (a numpy scalar of the right dtype is kept bit for bit)."""
    if ty.is_float:
        dt = float_dtype(ty)
        return x if type(x) is dt else dt(x)
    if ty.is_int or ty.is_ptr:
        if isinstance(x, (float, np.floating)):
            raise InterpreterError(f"a float {x!r} was given for an argument of type {ty}")
        return int(x) & mask(ty.bits)
    raise InterpreterError(f"no values of type {ty}")


def const_value(v: Value, undef_byte: int = 0) -> Val:
    """The interpreter value of a constant operand (Const, or Undef: every byte `undef_byte`)."""
    if isinstance(v, Undef):
        return filled(v.type, undef_byte)
    if isinstance(v, Const):
        return from_host(v.type, v.value)
    raise TypeError(f"{v!r} is not a constant")


def launch_range(func: Function, args: Any, global_size: Any, local_size: Any, global_offset: Any) -> NDRange:
    """A launch's NDRange (local size None: one group), with both interpreters' errors for a bad geometry
    or argument count."""
    try:
        rng = ndrange(global_size, local_size if local_size is not None else global_size, global_offset)
    except ValueError as exc:
        raise InterpreterError(str(exc)) from None
    if len(args) != len(func.args):
        raise InterpreterError(f"{func.name} takes {len(func.args)} arguments, {len(args)} given")
    return rng


def opcode_of(ins: Instr) -> Opcode:
    """The table entry of an instruction both interpreters are about to compile, its operand count checked."""
    spec = OPCODES.get(ins.opcode)
    if spec is None:
        raise InterpreterError(f"unknown opcode {ins.opcode!r}")
    if spec.n_operands >= 0 and len(ins.operands) != spec.n_operands:
        raise InterpreterError(f"{ins.opcode} takes {spec.n_operands} operands, has {len(ins.operands)}")
    return spec
