"""IR types as SPIR-V type ids, with the capability each type needs declared on first use."""
from __future__ import annotations

from reconverge.lowering.ir.types import Type

_INT_CAPABILITIES = {8: "Int8", 16: "Int16", 64: "Int64"}
LEGAL_INT_BITS = (8, 16, 32, 64)


def legal_bits(bits: int) -> int:
    """The SPIR-V integer width that holds an iN. Odd widths (an i2 counter, an i24) reach the emitter only
    as an odd argument (lowering.passes.legalize_int_widths widens everything else), which arrives
    zero-extended in a legal push-constant member."""
    for w in LEGAL_INT_BITS:
        if bits <= w:
            return w
    raise ValueError(f"i{bits} is wider than 64 bits")


def is_odd_int(t: Type) -> bool:
    return t.is_int and t.bits != 1 and t.bits not in LEGAL_INT_BITS
_FLOAT_CAPABILITIES = {16: "Float16", 64: "Float64"}


class TypeTable:
    """Every integer value is unsigned in SPIR-V (signedness lives in the opcodes, as in the IR), except
    the operands and results of signed instructions (signedness.py); i1 is bool; a pointer value is its
    byte offset into its memory object, a u32."""

    def __init__(self, module):
        self.m = module
        # width -> type id, once its capability is declared and its type made: the emitter asks for u32 and
        # friends about a thousand times a compile, each a request the module answers the same way
        self._known: dict[tuple[str, int], int] = {}
        self.void = module.type("OpTypeVoid")
        self.bool = module.type("OpTypeBool")
        self.u32 = self.uint(32)
        self.v3u32 = module.type("OpTypeVector", self.u32, 3)

    def uint(self, bits: int) -> int:
        found = self._known.get(("u", bits))
        if found is None:
            found = self._known[("u", bits)] = self._uint(bits)
        return found

    def _uint(self, bits: int) -> int:
        bits = legal_bits(bits)
        if bits in _INT_CAPABILITIES:
            self.m.capability(_INT_CAPABILITIES[bits])
        return self.m.type("OpTypeInt", bits, 0)

    def sint(self, bits: int) -> int:
        """The signed integer type of a width: only signed instructions' operands and results have it."""
        bits = legal_bits(bits)
        if bits in _INT_CAPABILITIES:
            self.m.capability(_INT_CAPABILITIES[bits])
        return self.m.type("OpTypeInt", bits, 1)

    def float(self, bits: int) -> int:
        if bits in _FLOAT_CAPABILITIES:
            self.m.capability(_FLOAT_CAPABILITIES[bits])
        return self.m.type("OpTypeFloat", bits)

    def of(self, t: Type) -> int:
        if t.is_ptr:
            return self.u32
        if t.is_int:
            return self.bool if t.bits == 1 else self.uint(t.bits)
        if t.is_float:
            return self.float(t.bits)
        return self.void

    def pointer(self, storage_class: str, pointee: int) -> int:
        return self.m.type("OpTypePointer", storage_class, pointee)
