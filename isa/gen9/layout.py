"""Instruction words as field values: packing and unpacking through the field table (fields.py).

Each form's fields, most significant first, over the little-endian word, so no bit position appears
outside fields.py; the gaps between fields are the reserved bits, named `_rsv<lowest bit>`. Integer
shifts, not a struct library: importing `construct` and building its structs took a tenth of a second of
every Gen compile (tests/isa/test_gen9_layout.py still checks unpack against construct's BitStruct of
the same table). Also: which form a native word uses, and how long an instruction is (8 bytes when its
CmptCtrl bit is set).
"""
from __future__ import annotations

from . import fields as F
from . import opcodes
from .errors import IsaError

THREE_SRC_OPS = opcodes.THREE_SRC
SEND_OPS = opcodes.SEND
SENDS_OPS = opcodes.SPLIT_SEND
IMM64 = ("df", "q", "uq")
_IMM_TYPE_NAMES = {v: k for k, v in F.IMM_TYPE.items()}


def _rows(form: str) -> tuple[tuple[str, int, int], ...]:
    """(name, lowest bit, mask) of every field of `form` and of every reserved gap, most significant first."""
    rows, pos = [], F.FORM_BITS[form] - 1
    for name, hi, lo in F.form_fields(form):
        if hi > pos:
            raise AssertionError(f"field {name} overlaps in form {form}")
        if hi < pos:
            rows.append((f"_rsv{hi + 1}", hi + 1, (1 << (pos - hi)) - 1))
        rows.append((name, lo, (1 << (hi - lo + 1)) - 1))
        pos = lo - 1
    if pos >= 0:
        rows.append(("_rsv0", 0, (1 << (pos + 1)) - 1))
    return tuple(rows)


ROWS = {form: _rows(form) for form in F.NATIVE_FORMS + F.COMPACT_FORMS}


def pack(form: str, values: dict) -> bytes:
    """Build one instruction word of `form` from field values (missing fields are zero).

    Alias fields (indirect addressing) are applied last, over the bits of the fields they reinterpret.
    A value that does not fit its field is an IsaError.
    """
    fields = _PLACES[form]
    if not values.keys() <= fields.keys():       # (a subset test in C) an alias or a "_" note among them
        return _pack_with_aliases(form, values)
    word = 0
    for k, v in values.items():
        if v:                                      # most fields are zero: nothing to place or check
            lo, limit = fields[k]
            if not 0 <= v < limit:
                raise IsaError(f"field {k} of form {form}: {v} is out of range (0 to {limit - 1})")
            word |= v << lo
    return word.to_bytes(_FORM_BYTES[form], "little")


def _pack_with_aliases(form: str, values: dict) -> bytes:
    """pack() of values that name alias fields (applied last) or "_" notes (ignored)."""
    fields = _PLACES[form]
    plain, aliases = {}, {}
    for k, v in values.items():
        if k in fields:
            plain[k] = v
        elif k[:1] != "_":
            f = F.BY_NAME.get(k)
            if f is None or not f.alias or form not in f.bits:
                raise KeyError(f"field {k} not in form {form}")
            aliases[k] = v
    word = int.from_bytes(pack(form, plain), "little")
    for k, v in aliases.items():
        word = _scatter(word, (F.BY_NAME[k].bits[form],), v)
    return word.to_bytes(_FORM_BYTES[form], "little")


# form -> field name -> (lowest bit, 1 << width): pack's view of the field table
_PLACES = {form: {name: (lo, 1 << (hi - lo + 1)) for name, hi, lo in F.form_fields(form)}
           for form in F.NATIVE_FORMS + F.COMPACT_FORMS}
_FORM_BYTES = {form: F.FORM_BITS[form] // 8 for form in F.NATIVE_FORMS + F.COMPACT_FORMS}


def alias_get(v: dict, name: str, form: str) -> int:
    """Value of an alias field, read from the raw word kept in v['_word']."""
    return _get_bits(v["_word"], *F.BY_NAME[name].bits[form])


def unpack(form: str, data: bytes, reserved: bool = False) -> dict:
    """Field values of a word of `form`, most significant first (the reserved gaps too, as _rsv<lo>, if
    asked)."""
    size = F.FORM_BITS[form] // 8
    if len(data) < size:
        raise IsaError(f"decode: truncated instruction ({len(data)} of {size} bytes)")
    word = int.from_bytes(data[:size], "little")
    return {name: word >> lo & mask for name, lo, mask in ROWS[form] if reserved or name[0] != "_"}


def _get_bits(word: int, hi: int, lo: int) -> int:
    return (word >> lo) & ((1 << (hi - lo + 1)) - 1)


def _gather(word: int, key) -> int:
    v = 0
    for hi, lo in key:
        v = (v << (hi - lo + 1)) | _get_bits(word, hi, lo)
    return v


def _scatter(word: int, key, value: int) -> int:
    for hi, lo in reversed(key):
        w = hi - lo + 1
        mask = ((1 << w) - 1) << lo
        word = (word & ~mask) | ((value & ((1 << w) - 1)) << lo)
        value >>= w
    return word


def _field_range(name: str, form: str) -> tuple[int, int]:
    return F.BY_NAME[name].bits[form]


def peek(word: int, name: str, form: str = "a1") -> int:
    """One field of a raw instruction word (an int), without parsing the whole struct."""
    return _get_bits(word, *F.BY_NAME[name].bits[form])


def native_form(data: bytes) -> str:
    """Which form a 16-byte word uses (decided from opcode, access mode and operand files)."""
    w = int.from_bytes(data, "little")
    a1 = {k: peek(w, k) for k in ("opcode", "access_mode", "src0_file", "src0_type", "src1_file")}
    op = F.OPCODE_NAMES.get(a1["opcode"])
    if op in SEND_OPS:
        return "send"
    if op in SENDS_OPS:
        return "sends"
    if op in F.BRANCH_JIP_UIP:
        return "branch"
    if a1["access_mode"]:
        return "3src" if op in THREE_SRC_OPS else "a16"
    if a1["src0_file"] == 3 and _IMM_TYPE_NAMES.get(a1["src0_type"]) in IMM64:
        return "a1imm64"
    if a1["src0_file"] == 3 or a1["src1_file"] == 3:
        return "a1imm"
    return "a1"


def instruction_length(data: bytes, offset: int = 0) -> int:
    return 8 if peek(int.from_bytes(data[offset:offset + 8], "little"), "cmpt", "compact") else 16
