"""Scalar types. Vectors are scalarized by the front end, so the IR never sees them."""
from __future__ import annotations

from reconverge.records import record


@record(frozen=True, slots=True)
class Type:
    kind: str          # "int", "float", "ptr", "void", "token" (a convergence-control token: convergence.py)
    bits: int = 0
    addrspace: int = 0  # pointers: 0 private, 1 global, 2 constant, 3 local (OpenCL/SPIR numbering)

    def __str__(self) -> str:
        if self.kind == "int":
            return f"i{self.bits}"
        if self.kind == "float":
            return {16: "f16", 32: "f32", 64: "f64"}[self.bits]
        if self.kind == "ptr":
            return f"ptr{self.addrspace}"
        return self.kind   # void, token

    @property
    def is_token(self) -> bool:
        return self.kind == "token"

    @property
    def is_int(self) -> bool:
        return self.kind == "int"

    @property
    def is_float(self) -> bool:
        return self.kind == "float"

    @property
    def is_ptr(self) -> bool:
        return self.kind == "ptr"

    @property
    def size(self) -> int:
        """Size in bytes in memory (i1 is stored as a byte)."""
        return max(1, self.bits // 8)


VOID = Type("void")
TOKEN = Type("token")   # LLVM's `token`: names a dynamic instance of a convergence.* instruction; no bits
I1, I8, I16, I32, I64 = (Type("int", b) for b in (1, 8, 16, 32, 64))
F16, F32, F64 = (Type("float", b) for b in (16, 32, 64))
ADDRSPACE_NAMES = {0: "private", 1: "global", 2: "constant", 3: "local", 4: "generic"}


def int_type(bits: int) -> Type:
    return Type("int", bits)


def float_type(bits: int) -> Type:
    return Type("float", bits)


def ptr(addrspace: int = 0) -> Type:
    return Type("ptr", 64, addrspace)


def parse_type(text: str) -> Type:
    """Inverse of str(Type), for the text IR."""
    if text == "void":
        return VOID
    if text == "token":
        return TOKEN
    if text.startswith("ptr"):
        return ptr(int(text[3:] or 0))
    if text[0] == "i":
        return int_type(int(text[1:]))
    if text[0] == "f":
        return float_type(int(text[1:]))
    raise ValueError(f"unknown type {text!r}")
