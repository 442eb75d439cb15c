"""What the LLVM reader and the built-in lowerings share: their error and the LLVM -> IR scalar type map.

Why a module of its own: builtins.py lowers calls for the reader (llvm_reader.py imports it), so anything
both need lives here, below both, instead of in a function-level import back into the reader.
"""
from __future__ import annotations

from reconverge.lowering.frontend.llvm_types import LType
from reconverge.lowering.ir.types import TOKEN, Type, float_type, int_type, ptr


class Unsupported(Exception):
    """Raised while lowering one instruction; the reader adds file/function/block/instruction."""


_SCALAR: dict[tuple[str, int], Type] = {}


def scalar_type(lt: LType) -> Type:
    """The IR type of a scalar LLVM type (vectors are split per lane before this is asked); types are
    immutable, so each is made once (the reader asks for one per operand)."""
    hit = _SCALAR.get((lt.kind, lt.bits))
    if hit is None:
        hit = _SCALAR[(lt.kind, lt.bits)] = _scalar_type(lt)
    return hit


def _scalar_type(lt: LType) -> Type:
    if lt.kind == "int":
        return int_type(lt.bits)
    if lt.kind == "float":
        return float_type(lt.bits)
    if lt.kind == "ptr":
        return ptr(lt.bits)
    if lt.kind == "token":
        return TOKEN
    raise Unsupported(f"type {lt} is not a scalar")
