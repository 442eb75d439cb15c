"""The instruction layouts as `construct` BitStructs: a declarative reading of a word by a library we did
not write, built from the same field table (fields.py) as layout.py's shifts.

The compiler packs and unpacks with integer shifts (layout.py: importing construct and building these
structs took a tenth of a second of every Gen compile). The field-level inspection an engineer reads
(`reconverge disasm --fields`, `reconverge diff`: inspect.py) parses each word through these structs
instead, so what it shows does not rest on the encoder's own arithmetic; tests/isa/test_gen9_layout.py
checks that both read every form alike, reserved gaps included.
"""
from __future__ import annotations

import functools

from construct import BitsInteger, BitStruct, ByteSwapped, StreamError

from . import fields as F
from .errors import IsaError


@functools.cache
def struct(form: str):
    """`form`'s fields, most significant first, over the byte-swapped little-endian word; the gaps between
    fields are the reserved bits, named `_rsv<lowest bit>` as layout.unpack names them."""
    parts, pos = [], F.FORM_BITS[form] - 1
    for name, hi, lo in F.form_fields(form):
        if hi < pos:
            parts.append(f"_rsv{hi + 1}" / BitsInteger(pos - hi))
        parts.append(name / BitsInteger(hi - lo + 1))
        pos = lo - 1
    if pos >= 0:
        parts.append("_rsv0" / BitsInteger(pos + 1))
    return ByteSwapped(BitStruct(*parts))


def parse(form: str, data: bytes, reserved: bool = False) -> dict[str, int]:
    """Field values of a word of `form` as construct reads them, most significant first (with the
    reserved gaps if asked)."""
    size = F.FORM_BITS[form] // 8
    try:
        values = struct(form).parse(data[:size])
    except StreamError:
        raise IsaError(f"decode: truncated instruction ({len(data)} of {size} bytes)") from None
    return {k: v for k, v in values.items() if not k.startswith("_") or (reserved and k.startswith("_rsv"))}
