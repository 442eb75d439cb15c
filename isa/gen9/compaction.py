"""The 64-bit compacted form: expand it to the native word, or find the compact word for one.

Gen8/9 compaction replaces groups of native fields by 5-bit (2-bit for three-source) indices into
fixed tables (Mesa brw_eu_compact.c, Gfx8 tables, shared by Gen9: facts in fields.py); a compacted
immediate keeps 13 bits, sign-extended.  iga64 -Xautocompact agrees with these tables except that it
also compacts instructions with NibCtrl set, silently losing it (see try_compact).
"""
from __future__ import annotations

import functools

from . import fields as F
from .layout import (
    SEND_OPS,
    SENDS_OPS,
    THREE_SRC_OPS,
    _field_range,
    _gather,
    _get_bits,
    _scatter,
    native_form,
    pack,
    peek,
    unpack,
)

# Native bits with no place in the compact form (Mesa has_unmapped_bits, Gfx8/9): NibCtrl, Dst.AddrImm[9],
# Src0.AddrImm[9] / Imm64 high bits.
_UNMAPPED_BITS = tuple(_field_range(n, "a1")[0] for n in ("nib_ctrl", "dst_addr_imm9", "src0_addr_imm9"))


# a compacted immediate: 13 bits, src1_index holding the high part and src1_reg the low part
_C_IMM_LO = F.BY_NAME["c_src1_reg"].width("compact")
_C_IMM_HI = F.BY_NAME["c_src1_index"].width("compact")


def _sext13(x: int) -> int:
    return (x | ~0x1FFF) & 0xFFFFFFFF if x & 0x1000 else x


@functools.lru_cache(maxsize=4096)
def expand_compact(data: bytes) -> bytes:
    """Expand an 8-byte compacted instruction to the 16-byte native word it stands for."""
    op = F.OPCODE_NAMES.get(peek(int.from_bytes(data, "little"), "opcode", "compact"))
    if op in THREE_SRC_OPS:
        c = unpack("compact3", data)
        w = _scatter(0, F.COMPACT_KEYS["3src_control"], F.CONTROL_3SRC_TABLE[c["c3_control_index"]])
        w = _scatter(w, F.COMPACT_KEYS["3src_source"], F.SOURCE_3SRC_TABLE[c["c3_source_index"]])
        vals = unpack("3src", w.to_bytes(16, "little"))
        vals.update(opcode=c["opcode"], debug=c["c3_debug"], saturate=c["c3_saturate"], cmpt=0,
                    t3_dst_reg=c["c3_dst_reg"] | vals["t3_dst_reg"])
        for i in range(3):
            vals[f"t3_src{i}_rep"] = c[f"c3_src{i}_rep"]
            vals[f"t3_src{i}_subreg"] = c[f"c3_src{i}_subreg"]
            vals[f"t3_src{i}_reg"] = c[f"c3_src{i}_reg"] | vals[f"t3_src{i}_reg"]
        return pack("3src", vals)
    c = unpack("compact", data)
    w = _scatter(0, F.COMPACT_KEYS["control"], F.CONTROL_TABLE[c["c_control_index"]])
    w = _scatter(w, F.COMPACT_KEYS["datatype"], F.DATATYPE_TABLE[c["c_datatype_index"]])
    a1 = unpack("a1", w.to_bytes(16, "little"))
    is_imm = a1["src0_file"] == 3 or a1["src1_file"] == 3
    w = _scatter(w, F.COMPACT_KEYS["subreg"], F.SUBREG_TABLE[c["c_subreg_index"]])
    w = _scatter(w, F.COMPACT_KEYS["src0"], F.SRC_INDEX_TABLE[c["c_src0_index"]])
    vals = unpack("a1", w.to_bytes(16, "little"))
    vals.update(opcode=c["opcode"], debug=c["c_debug"], acc_wr_en=c["c_acc_wr_en"], cond_mod=c["cond_mod"],
                cmpt=0, dst_reg=c["c_dst_reg"], src0_reg=c["c_src0_reg"])
    if not is_imm:
        w2 = _scatter(int.from_bytes(pack("a1", vals), "little"), F.COMPACT_KEYS["src1"],
                      F.SRC_INDEX_TABLE[c["c_src1_index"]])
        vals = unpack("a1", w2.to_bytes(16, "little"))
        vals["src1_reg"] = c["c_src1_reg"]
        return pack("a1", vals)
    imm = _sext13(c["c_src1_index"] << _C_IMM_LO | c["c_src1_reg"])
    vals = {k: x for k, x in vals.items() if k in dict((n, 0) for n, _, _ in F.form_fields("a1imm"))}
    vals["imm32"] = imm
    return pack("a1imm", vals)


@functools.lru_cache(maxsize=4096)
def try_compact(native: bytes, drop_nib_ctrl: bool = False) -> bytes | None:
    """The 8-byte compacted form of a native instruction, or None if the tables cannot express it.

    NibCtrl has no place in the compact form (Mesa: an unmapped bit, so no compaction).  iga64 1.1.0's
    -Xautocompact compacts anyway and loses it ((4|M4) becomes (4|M0)); drop_nib_ctrl=True mimics that
    for bit-exactness with iga64 and should not be used to generate code.
    """
    w = int.from_bytes(native, "little")
    nib = _field_range("nib_ctrl", "a1")[1]
    if drop_nib_ctrl and w >> nib & 1 and F.OPCODE_NAMES.get(peek(w, "opcode")) not in THREE_SRC_OPS:
        w &= ~(1 << nib)
        native = w.to_bytes(16, "little")
    op = F.OPCODE_NAMES.get(peek(w, "opcode"))
    if op in THREE_SRC_OPS:
        v = unpack("3src", native, reserved=True)
        if any(x for k, x in v.items() if k.startswith("_rsv")):
            return None
        try:
            ci = F.CONTROL_3SRC_TABLE.index(_gather(w, F.COMPACT_KEYS["3src_control"]))
            si = F.SOURCE_3SRC_TABLE.index(_gather(w, F.COMPACT_KEYS["3src_source"]))
        except ValueError:
            return None
        if v["t3_dst_reg"] >> F.BY_NAME["c3_dst_reg"].width("compact3") or v["t3_dst_subreg"]:
            return None
        c = dict(opcode=v["opcode"], c3_control_index=ci, c3_source_index=si, c3_dst_reg=v["t3_dst_reg"],
                 cmpt=1, c3_debug=v["debug"], c3_saturate=v["saturate"])
        for i in range(3):
            c[f"c3_src{i}_rep"] = v[f"t3_src{i}_rep"]
            c[f"c3_src{i}_subreg"] = v[f"t3_src{i}_subreg"]
            c[f"c3_src{i}_reg"] = v[f"t3_src{i}_reg"] & ((1 << F.BY_NAME["c3_src0_reg"].width("compact3")) - 1)
        out = pack("compact3", c)
        return out if expand_compact(out) == native else None
    if op in SEND_OPS + SENDS_OPS or op in F.BRANCH_JIP_UIP or peek(w, "access_mode"):
        return None
    if any(_get_bits(w, b, b) for b in _UNMAPPED_BITS):
        return None
    form = native_form(native)
    if form not in ("a1", "a1imm"):
        return None
    v = unpack(form, native)
    is_imm = form == "a1imm"
    try:
        ci = F.CONTROL_TABLE.index(_gather(w, F.COMPACT_KEYS["control"]))
        di = F.DATATYPE_TABLE.index(_gather(w, F.COMPACT_KEYS["datatype"]))
        sri = F.SUBREG_TABLE.index(_gather(w, F.COMPACT_KEYS["subreg_imm" if is_imm else "subreg"]))
        s0 = F.SRC_INDEX_TABLE.index(_gather(w, F.COMPACT_KEYS["src0"]))
        if is_imm:
            imm = v["imm32"]
            if _sext13(imm & 0x1FFF) != imm:
                return None
            s1, s1reg = imm >> _C_IMM_LO & ((1 << _C_IMM_HI) - 1), imm & ((1 << _C_IMM_LO) - 1)
        else:
            s1 = F.SRC_INDEX_TABLE.index(_gather(w, F.COMPACT_KEYS["src1"]))
            s1reg = v["src1_reg"]
    except ValueError:
        return None
    c = dict(opcode=v["opcode"], c_debug=v["debug"], c_control_index=ci, c_datatype_index=di,
             c_subreg_index=sri, c_acc_wr_en=v["acc_wr_en"], cond_mod=v["cond_mod"], cmpt=1, c_src0_index=s0,
             c_src1_index=s1, c_dst_reg=v["dst_reg"], c_src0_reg=v["src0_reg"], c_src1_reg=s1reg)
    out = pack("compact", c)
    return out if expand_compact(out) == native else None
