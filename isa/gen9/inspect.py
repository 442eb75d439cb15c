"""Encodings down to the bit field: every instruction of a binary as its offset, raw bytes, text and the
value and meaning of each field of its form, and the field-level difference of two binaries.

Everything comes from the one field table (fields.py); each word is read through construct's BitStructs
of it (layout_structs.py), not the encoder's own shifts, so a field shown here is what a struct library
reads in the bits the encoder wrote. A compacted instruction also shows its compact
fields (the table indices among them) and the native word they expand to. This is what `iga64 -Xifs`
would show, which Debian's iga64 build cannot.
"""
from __future__ import annotations

import re
from dataclasses import dataclass, field

from . import fields as F
from .compaction import expand_compact
from .disassembler import block_starts, format_instruction
from .encoding import walk
from .layout import THREE_SRC_OPS, native_form, peek
from .layout_structs import parse

# field-name suffix -> how to read the raw value
_TYPE_NAMES = {v: k for k, v in F.REG_TYPE.items()}
_IMM_TYPE_NAMES = {v: k for k, v in F.IMM_TYPE.items()}
_FILE_NAMES = {0: "arf", 1: "grf", 3: "imm"}
_ENUMS = {
    "pred_ctrl": {v: (k or "normal") for k, v in F.PRED_CTRL.items()} | {0: "none"},
    "thread_ctrl": {v: k for k, v in F.THREAD_CTRL.items()} | {0: "normal"},
    "exec_size": {v: f"{k} lanes" for k, v in F.EXEC_SIZE.items()},
    "sfid": F.SFID_NAMES,
}
_STRIDES: dict[str, dict[int, object]] = {
    "hstride": {v: k for k, v in F.HSTRIDE.items()},
    "vstride": {v: k for k, v in F.VSTRIDE.items()} | {F.VSTRIDE_VXH: "VxH"},
    "width": {v: k for k, v in F.WIDTH.items()},
}


@dataclass(frozen=True)
class FieldValue:
    name: str
    hi: int
    lo: int
    value: int
    meaning: str
    doc: str = ""

    def as_dict(self) -> dict:
        return {"name": self.name, "bits": [self.hi, self.lo], "value": self.value, "meaning": self.meaning}


@dataclass
class InstructionView:
    offset: int
    raw: bytes
    text: str
    form: str                                             # the native form (of the expansion, if compacted)
    fields: list[FieldValue]
    compact_form: str | None = None                       # compacted: "compact" or "compact3"
    compact_fields: list[FieldValue] = field(default_factory=list)
    expanded: bytes | None = None                         # compacted: the native word it stands for

    def as_dict(self) -> dict:
        out = {"offset": self.offset, "size": len(self.raw), "bytes": self.raw.hex(), "text": self.text,
               "form": self.form, "fields": [f.as_dict() for f in self.fields]}
        if self.compact_form is not None:
            out["compacted"] = {"form": self.compact_form, "fields": [f.as_dict() for f in self.compact_fields],
                                "expanded": (self.expanded or b"").hex()}
        return out


def meaning(name: str, value: int, form: str, values: dict) -> str:
    """What a field's raw value says, in the disassembler's terms."""
    if name == "opcode":
        return F.OPCODE_NAMES.get(value, f"unknown 0x{value:02X}")
    if name in _ENUMS:
        return str(_ENUMS[name].get(value, "reserved"))
    if name == "cond_mod":
        op = F.OPCODE_NAMES.get(values.get("opcode", -1))
        codes = F.MATH_FC if op == "math" else F.COND_MOD
        return next((k for k, v in codes.items() if v == value), "none" if value == 0 else "reserved")
    if name.endswith("_file"):
        return "grf" if name.startswith("sends_") and value else _FILE_NAMES.get(value, "reserved")
    if name.endswith("_type") or name.endswith("_type_hf"):
        src_file = values.get(name.replace("_type", "_file"))
        return (_IMM_TYPE_NAMES if src_file == 3 else _TYPE_NAMES).get(value, "reserved")
    for key, strides in _STRIDES.items():
        if name.endswith(key):
            return f"<{strides.get(value, 'reserved')}>"
    if name in ("jip", "uip", "imm32"):
        signed = value - (1 << 32) if value & 0x80000000 else value
        return f"{signed} bytes" if name != "imm32" else f"{signed} (0x{value:08X})"
    if name == "flag_reg":
        return f"f{value}"
    if name == "flag_subreg":
        return f".{value}"
    if name.endswith("_reg") and "addr" not in name:
        file = values.get(name.replace("_reg", "_file"), 1)
        return F.ARF_NAMES.get(value, f"arf 0x{value:02X}") if file == 0 else f"r{value}"
    if name in ("access_mode",):
        return "align16" if value else "align1"
    if name == "cmpt":
        return "compacted" if value else "native"
    if name == "mask_ctrl":
        return "NoMask (WE_all)" if value else "masked"
    if name in ("desc",):
        return f"0x{value:08X}"
    if value in (0, 1) and F.BY_NAME[name].width(form) == 1:
        return "set" if value else "clear"
    return str(value)


def _fields(form: str, data: bytes) -> list[FieldValue]:
    values = parse(form, data)
    return [FieldValue(n, hi, lo, values[n], meaning(n, values[n], form, values), F.BY_NAME[n].doc)
            for n, hi, lo in F.form_fields(form)]


def inspect(data: bytes) -> list[InstructionView]:
    """Every instruction of a Gen9 binary, with its fields."""
    items = walk(data)
    starts = block_starts(items, len(data))
    views = []
    for pc, inst, n in items:
        raw = bytes(data[pc:pc + n])
        text = format_instruction(inst, pc, starts).strip()
        if n == 8:
            op = F.OPCODE_NAMES.get(peek(int.from_bytes(raw, "little"), "opcode", "compact"))
            cform = "compact3" if op in THREE_SRC_OPS else "compact"
            native = expand_compact(raw)
            nform = native_form(native)
            views.append(InstructionView(pc, raw, text, nform, _fields(nform, native), cform, _fields(cform, raw),
                                         native))
        else:
            form = native_form(raw)
            views.append(InstructionView(pc, raw, text, form, _fields(form, raw)))
    return views


def operand_of(name: str) -> str | None:
    """The operand a field belongs to ("dst", "src0", "src1", "src2"), whatever the form's prefix (c_,
    c3_, t3_, sends_); None for a field of the instruction as a whole."""
    m = re.match(r"(?:c3?_|t3_|sends_)?(dst|src\d)(?:_|$)", name)
    return m.group(1) if m else None


def uses(v: InstructionView, name: str) -> bool:
    """Whether the instruction uses the field: an ALU instruction does not use the operand fields of the
    sources it does not have (a unary mov's src1_*, MATH's by function) nor, without a destination, the
    dst_* ones; everything else (instruction fields, branches, sends) counts as used."""
    from .opcodes import BY_NUMBER, num_srcs
    values = {f.name: f.value for f in v.fields}
    op = BY_NUMBER.get(values.get("opcode", -1))
    operand = operand_of(name)
    if op is None or not op.alu or operand is None:
        return True
    if operand == "dst":
        return op.dst
    fc = next((k for k, n in F.MATH_FC.items() if n == values.get("cond_mod")), None) if op.name == "math" else None
    return int(operand[3:]) < num_srcs(op.name, fc)


def field_filter(only: list[str]):
    """`disasm --fields --only A,B`: a predicate keeping the fields named (exactly, or a name's operand:
    `dst` keeps dst_type and the compact c_dst_reg, `src0` every src0 field); a name no field has is a
    ValueError."""
    known = {f.name for f in F.FIELDS} | {"dst", "src0", "src1", "src2"}
    unknown = [n for n in only if n not in known and not any(k.startswith(n + "_") for k in known)]
    if unknown:
        raise ValueError(f"no field is named {unknown[0]!r} (fields: dst, src0, src1, src2, or a name "
                         f"`disasm --fields` shows, such as exec_size or src0_type)")
    wanted = set(only)
    return lambda name: name in wanted or operand_of(name) in wanted or any(name.startswith(n + "_") for n in wanted)


def format_fields(views: list[InstructionView], keep=None, all_fields: bool = False) -> str:
    """The text of `disasm --fields`: per instruction a header line, then one line per field, leaving out
    the fields the instruction does not use (uses; unless all_fields) and those `keep` rejects."""
    def shown(v: InstructionView, fields: list[FieldValue]) -> list[str]:
        return [f"    {_field_line(f)}" for f in fields
                if (all_fields or uses(v, f.name)) and (keep is None or keep(f.name))]
    out = []
    for v in views:
        out.append(f"{v.offset:06x}: {v.raw.hex(' ')}    {v.text}")
        if v.compact_form is not None:
            out.append(f"  compacted ({v.compact_form}):")
            out += shown(v, v.compact_fields)
            out.append(f"  expands to {v.expanded.hex(' ') if v.expanded else ''} ({v.form}):")
            out += shown(v, v.fields)
        else:
            out.append(f"  form {v.form}:")
            out += shown(v, v.fields)
    return "\n".join(out) + "\n"


def _field_line(f: FieldValue) -> str:
    bits = f"[{f.hi}]" if f.hi == f.lo else f"[{f.hi}:{f.lo}]"
    return f"{f.name:<18} {bits:<10} {f.value:#x}".ljust(44) + f"  {f.meaning}"


@dataclass(frozen=True)
class InstructionChange:
    """One entry of a diff: an instruction of A changed into one of B (kind "changed": both indices, the
    fields that differ), only in A ("deleted") or only in B ("inserted")."""
    kind: str
    index_a: int | None
    index_b: int | None
    offset_a: int | None
    offset_b: int | None
    text_a: str
    text_b: str
    form_a: str                                            # "" when the instruction is only in the other binary
    form_b: str
    fields: list[tuple[str, int | None, int | None]]      # (name, value in a, value in b), differing only
    expanded: list[tuple[str, int | None, int | None]] = field(default_factory=list)
    meanings: list[tuple[str, str]] = field(default_factory=list)   # of `fields`: (meaning in a, in b)

    @property
    def index(self) -> int:
        return self.index_a if self.index_a is not None else self.index_b if self.index_b is not None else -1

    def as_dict(self) -> dict:
        return {"kind": self.kind, "index_a": self.index_a, "index_b": self.index_b, "offset_a": self.offset_a,
                "offset_b": self.offset_b, "text_a": self.text_a, "text_b": self.text_b, "form_a": self.form_a,
                "form_b": self.form_b,
                "fields": [{"name": n, "a": a, "b": b, "meaning_a": ma, "meaning_b": mb}
                           for (n, a, b), (ma, mb) in zip(self.fields, self.meanings)],
                "expanded": [{"name": n, "a": a, "b": b} for n, a, b in self.expanded]}


def _encoded_values(v: InstructionView) -> tuple[str, dict[str, int]]:
    """The form as encoded (compact or native) and every field of it, reserved gaps included."""
    form = v.compact_form or v.form
    return form, parse(form, v.raw, reserved=True)


def _meaning(name: str, value: int | None, form: str, values: dict) -> str:
    """A field's meaning for a diff line: "absent" where the form has no such field, "" for a reserved gap."""
    if value is None:
        return "absent"
    if name not in F.BY_NAME:
        return ""
    try:
        return meaning(name, value, form, values)
    except (KeyError, ValueError):
        return ""


def _opcode(v: InstructionView) -> str:
    return str(next((f.value for f in v.fields if f.name == "opcode"), -1))


def _shape(v: InstructionView) -> str:
    """The text with every number blanked: the same operation on other registers, widths or immediates."""
    return re.sub(r"[0-9A-Fa-f]+", "#", re.sub(r"\b0x[0-9A-Fa-f]+|\d+", "#", v.text))


# What `align` matches on, level by level: the whole text, then the shape, then the opcode.
_ALIGN_KEYS = (lambda v: v.text, _shape, _opcode)


def align(va: list[InstructionView], vb: list[InstructionView]) -> list[tuple[int | None, int | None]]:
    """The two instruction sequences aligned as `diff` aligns two iga64 listings: a longest common
    subsequence of the instructions' texts (difflib.SequenceMatcher, no junk heuristic) anchors them; in
    each stretch between anchors, a common subsequence of their shapes (the text with numbers blanked),
    then of their opcodes, pairs the instructions that changed (a register, a type, the width) and leaves
    the rest deleted (a, None) or inserted (None, b). SequenceMatcher's cost grows with the product of
    the lengths in the worst case, about linearly for mostly-equal sequences."""
    pairs: list[tuple[int | None, int | None]] = []
    _align(va, vb, range(len(va)), range(len(vb)), 0, pairs)
    return pairs


def _align(va, vb, ia: range, ib: range, level: int, pairs: list) -> None:
    from difflib import SequenceMatcher
    if level == len(_ALIGN_KEYS):
        pairs += [(i, None) for i in ia] + [(None, j) for j in ib]
        return
    key = _ALIGN_KEYS[level]
    matcher = SequenceMatcher(None, [key(va[i]) for i in ia], [key(vb[j]) for j in ib], autojunk=False)
    for tag, i1, i2, j1, j2 in matcher.get_opcodes():
        if tag == "equal":
            pairs += zip(ia[i1:i2], ib[j1:j2])
        else:
            _align(va, vb, ia[i1:i2], ib[j1:j2], level + 1, pairs)


def diff(a: bytes, b: bytes) -> list[InstructionChange]:
    """The difference of two binaries, aligned (align): each paired instruction whose bytes differ with the
    fields of the encoded form that differ (reserved gaps as _rsv<lo>, so a one-bit change is one field)
    and their meanings; when both are compacted, `expanded` lists the native fields their expansions differ
    in; each instruction only one side has as deleted or inserted."""
    va, vb = inspect(a), inspect(b)
    changes = []
    for i, j in align(va, vb):
        x = va[i] if i is not None else None
        y = vb[j] if j is not None else None
        if x is not None and y is not None and x.raw == y.raw:
            continue
        fields: list[tuple[str, int | None, int | None]] = []
        meanings: list[tuple[str, str]] = []
        expanded: list[tuple[str, int | None, int | None]] = []
        if x is not None and y is not None:
            (form_x, fx), (form_y, fy) = _encoded_values(x), _encoded_values(y)
            if form_x == form_y:
                fields = [(n, fx[n], fy[n]) for n in fx if fx[n] != fy.get(n)]
            else:
                fields = [(n, fx.get(n), fy.get(n)) for n in dict.fromkeys([*fx, *fy]) if fx.get(n) != fy.get(n)]
            meanings = [(_meaning(n, va_, form_x, fx), _meaning(n, vb_, form_y, fy)) for n, va_, vb_ in fields]
            if x.compact_form and y.compact_form and x.form == y.form:
                nx = {f.name: f.value for f in x.fields}
                ny = {f.name: f.value for f in y.fields}
                expanded = [(n, nx[n], ny[n]) for n in nx if nx[n] != ny[n]]
        kind = "changed" if x is not None and y is not None else "deleted" if x is not None else "inserted"
        form_a = (x.compact_form or x.form) if x else ""
        form_b = (y.compact_form or y.form) if y else ""
        changes.append(InstructionChange(kind, i, j, x.offset if x else None, y.offset if y else None,
                                         x.text if x else "", y.text if y else "", form_a, form_b, fields, expanded,
                                         meanings))
    return changes
