"""Gen9 binary encoding: Instruction <-> 16-byte native / 8-byte compacted words.

The `construct` structs are generated from the field table in fields.py (one BitStruct per form, most
significant bit first, over the byte-swapped little-endian word), so no bit position appears here.
Decoding a compacted instruction expands it to the native word through Mesa's Gfx8/9 index tables and
then decodes that; encoding with `compacted=True` tries the reverse and falls back to native.
"""
from __future__ import annotations

import functools
import struct as _struct

from construct import BitsInteger, BitStruct, ByteSwapped, Container

from lowering.errors import CompileError

from . import fields as F
from .model import VXH, DataType, Instruction, Operand, Predicate, RegFile, Region

# ---------------------------------------------------------------------------------------------------
# construct structs, one per form, generated from the table


def _make_struct(form: str):
    parts, pos = [], F.FORM_BITS[form] - 1
    for name, hi, lo in F.form_fields(form):
        if hi > pos:
            raise AssertionError(f"field {name} overlaps in form {form}")
        if hi < pos:
            parts.append(f"_rsv{hi + 1}" / BitsInteger(pos - hi))
        parts.append(name / BitsInteger(hi - lo + 1))
        pos = lo - 1
    if pos >= 0:
        parts.append("_rsv0" / BitsInteger(pos + 1))
    return ByteSwapped(BitStruct(*parts))


STRUCTS = {form: _make_struct(form) for form in F.NATIVE_FORMS + F.COMPACT_FORMS}


def pack(form: str, values: dict) -> bytes:
    """Build one instruction word of `form` from field values (missing fields are zero).

    Alias fields (indirect addressing) are applied last, over the bits of the fields they reinterpret.
    """
    c = {name: 0 for name, _, _ in F.form_fields(form)}
    aliases = {}
    for k, v in values.items():
        if k.startswith("_"):
            continue
        if k not in c:
            f = F.BY_NAME.get(k)
            if f is None or not f.alias or form not in f.bits:
                raise KeyError(f"field {k} not in form {form}")
            aliases[k] = v
            continue
        c[k] = v
    c.update({k: 0 for k in _reserved(form)})
    data = STRUCTS[form].build(c)
    if aliases:
        w = int.from_bytes(data, "little")
        for k, v in aliases.items():
            w = _scatter(w, (F.BY_NAME[k].bits[form],), v)
        data = w.to_bytes(len(data), "little")
    return data


def alias_get(v: dict, name: str, form: str) -> int:
    """Value of an alias field, read from the raw word kept in v['_word']."""
    return _get_bits(v["_word"], *F.BY_NAME[name].bits[form])


def unpack(form: str, data: bytes, reserved: bool = False) -> dict:
    """Field values of a word of `form` (the reserved gaps too, as _rsv<lo>, if asked)."""
    c = STRUCTS[form].parse(data)
    return {k: v for k, v in c.items() if not k.startswith("_") or (reserved and k.startswith("_rsv"))}


@functools.lru_cache(maxsize=None)
def _reserved(form: str) -> list[str]:
    return [s.name for s in STRUCTS[form].subcon.subcon.subcons if s.name.startswith("_rsv")]


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


# ---------------------------------------------------------------------------------------------------
# classification

THREE_SRC_OPS = ("mad", "lrp", "bfe", "bfi2", "madm", "csel")
SEND_OPS = ("send", "sendc")
SENDS_OPS = ("sends", "sendsc")
_REG_TYPE_NAMES = {v: k for k, v in F.REG_TYPE.items()}
_IMM_TYPE_NAMES = {v: k for k, v in F.IMM_TYPE.items()}
_T3_NAMES = {v: k for k, v in F.TYPE_3SRC.items()}
_PRED_NAMES = {v: k for k, v in F.PRED_CTRL.items()}
_COND_NAMES = {v: k for k, v in F.COND_MOD.items()}
_FC_NAMES = {v: k for k, v in F.MATH_FC.items()}
_TC_NAMES = {v: k for k, v in F.THREAD_CTRL.items()}
_HS_DEC = {v: k for k, v in F.HSTRIDE.items()}
_VS_DEC = {v: k for k, v in F.VSTRIDE.items()}
_W_DEC = {v: k for k, v in F.WIDTH.items()}
_ES_DEC = {v: k for k, v in F.EXEC_SIZE.items()}
_FILE_DEC = {0: RegFile.ARF, 1: RegFile.GRF, 3: RegFile.IMM}
_SWZ = "xyzw"
IMM64 = ("df", "q", "uq")


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


def _num_srcs(op: str) -> int:
    if op in ("mov", "not", "frc", "rndd", "rnde", "rndz", "rndu", "lzd", "bfrev", "cbit", "fbh", "fbl",
              "movi"):
        return 1
    if op in THREE_SRC_OPS:
        return 3
    if op == "nop":
        return 0
    return 2


# ---------------------------------------------------------------------------------------------------
# decode


def decode(data: bytes) -> Instruction:
    """Decode one instruction (16 bytes native, or the first 8 bytes if its CmptCtrl bit is set)."""
    if len(data) >= 8 and peek(int.from_bytes(data[:8], "little"), "cmpt", "compact"):
        inst = decode(expand_compact(bytes(data[:8])))
        inst.compacted = True
        return inst
    data = bytes(data[:16])
    if len(data) != 16:
        raise CompileError("decode: truncated instruction")
    form = native_form(data)
    v = unpack(form, data)
    v["_word"], v["_form"] = int.from_bytes(data, "little"), form
    op = F.OPCODE_NAMES.get(v["opcode"])
    if op is None:
        raise CompileError(f"decode: unknown opcode 0x{v['opcode']:02X}")
    inst = Instruction(opcode=op)
    _decode_header(inst, v, form)
    if form == "3src":
        _decode_3src(inst, v)
    elif form == "a16":
        _decode_a16(inst, v)
    elif form == "send":
        _decode_send(inst, v)
    elif form == "sends":
        _decode_sends(inst, v)
    elif form == "branch":
        inst.jip = _s32(v["jip"])
        inst.uip = _s32(v["uip"])
    else:
        _decode_a1(inst, v, form)
    return inst


def _s32(x: int) -> int:
    return x - (1 << 32) if x & 0x80000000 else x


def _decode_header(inst: Instruction, v: dict, form: str) -> None:
    inst.exec_size = 1 << v["exec_size"]
    inst.chan_offset = 4 * (2 * v["qtr_ctrl"] + v["nib_ctrl"])
    inst.flag_reg, inst.flag_subreg = v["flag_reg"], v["flag_subreg"]
    if v["pred_ctrl"]:
        inst.predicate = Predicate(v["flag_reg"], v["flag_subreg"], bool(v["pred_inv"]),
                                   _PRED_NAMES.get(v["pred_ctrl"], f"pred{v['pred_ctrl']}"))
    cm = v.get("cond_mod", 0)
    if inst.opcode == "math":
        inst.math_fc = _FC_NAMES.get(cm, f"fc{cm}")
    elif cm:
        inst.cond_mod = _COND_NAMES.get(cm, f"cm{cm}")
    inst.saturate = bool(v["saturate"])
    inst.mask_ctrl_we_all = bool(v["mask_ctrl"])
    inst.align16 = bool(v["access_mode"])
    inst.no_dd_clr, inst.no_dd_chk = bool(v["no_dd_clr"]), bool(v["no_dd_chk"])
    inst.thread_ctrl = _TC_NAMES.get(v["thread_ctrl"])
    inst.acc_wr_en = bool(v.get("acc_wr_en", 0))
    inst.branch_ctrl = bool(v.get("branch_ctrl", 0))
    inst.debug = bool(v["debug"])


def _type_size(t: str) -> int:
    return DataType(t).size


def _decode_imm(type_code: int, raw: int) -> Operand:
    t = _IMM_TYPE_NAMES.get(type_code, "ud")
    if t in ("uw", "w", "hf"):
        raw &= 0xFFFF
    return Operand(RegFile.IMM, DataType(t), value=raw)


def _decode_a1(inst: Instruction, v: dict, form: str) -> None:
    op = inst.opcode
    if op in ("nop", "illegal"):
        return
    if op in ("call", "calla"):                  # dst saves the return IP; JIP (calla: absolute) in src1
        inst.dst = _decode_a1_dst(v)
        inst.jip = _s32(v["imm32"])
        return
    if op in ("ret", "wait"):                    # the return IP / the notification register
        inst.srcs = [_decode_a1_src(v, 0)]
        if op == "wait":
            inst.dst = _decode_a1_dst(v)
        return
    if op in ("endif", "while", "join", "brd"):
        inst.jip = _s32(v["imm32"])
        return
    if op == "jmpi":
        if v["src1_file"] == 3:
            inst.jip = _s32(v["imm32"])
        else:
            inst.srcs = [_decode_a1_src(v, 1)]
        return
    inst.dst = _decode_a1_dst(v)
    n = _num_srcs(op) if op != "math" else (1 if inst.math_fc in ("inv", "log", "exp", "sqt", "rsqt",
                                                                   "sin", "cos", "rsqtm") else 2)
    srcs = []
    for i in range(n):
        if v[f"src{i}_file"] == 3:
            raw = v["imm64"] if form == "a1imm64" else v["imm32"]
            srcs.append(_decode_imm(v[f"src{i}_type"], raw))
        else:
            srcs.append(_decode_a1_src(v, i))
    inst.srcs = srcs


def _sext10(x: int) -> int:
    return x - 1024 if x & 512 else x


def _indirect(v: dict, op: Operand, p: str) -> Operand:
    """Fill an operand's indirect address from the alias fields of prefix p ('dst', 'src0', 'src1')."""
    form = v["_form"]
    op.indirect = True
    op.reg = op.subreg = 0
    op.addr_subreg = alias_get(v, f"{p}_addr_subreg", form)
    op.addr_imm = _sext10(alias_get(v, f"{p}_addr_imm", form) | v.get(f"{p}_addr_imm9", 0) << 9)
    return op


def _decode_a1_dst(v: dict) -> Operand:
    t = _REG_TYPE_NAMES.get(v["dst_type"], "ud")
    op = Operand(_FILE_DEC[v["dst_file"]], DataType(t), reg=v["dst_reg"],
                 subreg=v["dst_subreg"] // _type_size(t), hstride=_HS_DEC[v["dst_hstride"]])
    return _indirect(v, op, "dst") if v.get("dst_indirect") else op


def _decode_a1_src(v: dict, i: int) -> Operand:
    t = _REG_TYPE_NAMES.get(v[f"src{i}_type"], "ud")
    vs = v[f"src{i}_vstride"]
    op = Operand(_FILE_DEC.get(v[f"src{i}_file"], RegFile.ARF), DataType(t), reg=v[f"src{i}_reg"],
                 subreg=v[f"src{i}_subreg"] // _type_size(t),
                 region=Region(VXH if vs == F.VSTRIDE_VXH else _VS_DEC.get(vs, 0), _W_DEC.get(v[f"src{i}_width"], 1),
                               _HS_DEC[v[f"src{i}_hstride"]]),
                 abs=bool(v[f"src{i}_abs"]), neg=bool(v[f"src{i}_neg"]))
    return _indirect(v, op, f"src{i}") if v.get(f"src{i}_indirect") else op


def _swz_text(x: int) -> str:
    return "".join(_SWZ[(x >> (2 * k)) & 3] for k in range(4))


def _swz_bits(s: str) -> int:
    return sum(_SWZ.index(c) << (2 * k) for k, c in enumerate(s))


def _wm_text(m: int) -> str:
    return "".join(c for k, c in enumerate(_SWZ) if m >> k & 1)


def _decode_a16(inst: Instruction, v: dict) -> None:
    t = _REG_TYPE_NAMES.get(v["dst_type"], "ud")
    inst.dst = Operand(_FILE_DEC[v["dst_file"]], DataType(t), reg=v["dst_reg"],
                       subreg=16 * v["dst_subreg16"] // _type_size(t), writemask=_wm_text(v["dst_writemask"]))
    srcs = []
    for i in range(_num_srcs(inst.opcode)):
        st = _REG_TYPE_NAMES.get(v[f"src{i}_type"], "ud")
        swz = "".join(_SWZ[v[f"src{i}_swz_{c}"]] for c in _SWZ)
        srcs.append(Operand(_FILE_DEC.get(v[f"src{i}_file"], RegFile.ARF), DataType(st), reg=v[f"src{i}_reg"],
                            subreg=16 * v[f"src{i}_subreg16"] // _type_size(st), swizzle=swz,
                            abs=bool(v[f"src{i}_abs"]), neg=bool(v[f"src{i}_neg"])))
    inst.srcs = srcs


def _t3_src_type(v: dict, i: int) -> str:
    st = _T3_NAMES.get(v["t3_src_type"], "f")
    if i == 0 or st not in ("f", "hf"):
        return st
    return "hf" if v[f"src{i}_type_hf"] else "f"


def _decode_3src(inst: Instruction, v: dict) -> None:
    dt = _T3_NAMES.get(v["t3_dst_type"], "f")
    inst.dst = Operand(RegFile.GRF, DataType(dt), reg=v["t3_dst_reg"],
                       subreg=4 * v["t3_dst_subreg"] // _type_size(dt), writemask=_wm_text(v["t3_dst_writemask"]))
    srcs = []
    for i in range(3):
        st = _t3_src_type(v, i)
        byte = 4 * v[f"t3_src{i}_subreg"] + 2 * v[f"t3_src{i}_subreg_lo"]
        srcs.append(Operand(RegFile.GRF, DataType(st), reg=v[f"t3_src{i}_reg"], subreg=byte // _type_size(st),
                            swizzle=_swz_text(v[f"t3_src{i}_swizzle"]), rep_ctrl=bool(v[f"t3_src{i}_rep"]),
                            abs=bool(v[f"t3_src{i}_abs"]), neg=bool(v[f"t3_src{i}_neg"])))
    inst.srcs = srcs
    if inst.exec_size == 4 and inst.dst.writemask == "x":
        inst.exec_size = 1        # iga64 writes Align16 SIMD1 as SIMD4 with writemask .x


def _decode_send(inst: Instruction, v: dict) -> None:
    inst.dst = _decode_a1_dst(v)
    inst.srcs = [Operand(_FILE_DEC.get(v["src0_file"], RegFile.ARF), DataType(_REG_TYPE_NAMES.get(v["src0_type"], "ud")),
                         reg=v["src0_reg"])]
    inst.sfid, inst.desc, inst.eot = v["sfid"], v["desc"], bool(v["eot"])
    inst.ex_desc = v["sfid"] | (inst.eot << 5)


def _decode_sends(inst: Instruction, v: dict) -> None:
    inst.dst = Operand(RegFile.GRF if v["sends_dst_file"] else RegFile.ARF, DataType.UD, reg=v["dst_reg"])
    inst.srcs = [Operand(RegFile.GRF, DataType.UD, reg=v["src0_reg"]),
                 Operand(RegFile.GRF if v["sends_src1_file"] else RegFile.ARF, DataType.UD,
                         reg=v["sends_src1_reg"])]
    inst.sfid, inst.desc, inst.eot = v["sfid"], v["desc"], bool(v["eot"])
    inst.ex_desc = v["sfid"] | (inst.eot << 5) | (v["sends_exmlen"] << 6)


# ---------------------------------------------------------------------------------------------------
# encode


def encode(inst: Instruction) -> bytes:
    """Encode to the native 16-byte form (compaction is handled by encode_program)."""
    op = inst.opcode
    if op not in F.OPCODES:
        raise CompileError(f"encode: unknown opcode '{op}'")
    v = _encode_header(inst)
    if op in SEND_OPS:
        form = "send"
        _encode_send(inst, v)
    elif op in SENDS_OPS:
        form = "sends"
        _encode_sends(inst, v)
    elif op in F.BRANCH_JIP_UIP:
        form = "branch"
        v.update(dst_hstride=1, src0_file=3, src0_type=F.IMM_TYPE["d"], jip=(inst.jip or 0) & 0xFFFFFFFF,
                 uip=(inst.uip or 0) & 0xFFFFFFFF)
        if op == "brc":                                  # brc names ip:d as its destination [iga64]
            v.update(dst_reg=F.ARF["ip"], dst_type=F.REG_TYPE["d"])
        v.pop("acc_wr_en", None)
        v["branch_ctrl"] = int(inst.branch_ctrl)
    elif op in THREE_SRC_OPS:
        form = "3src"
        _encode_3src(inst, v)
    elif inst.align16:
        form = "a16"
        _encode_a16(inst, v)
    else:
        form = _encode_a1(inst, v)
    if form != "branch":
        v.pop("branch_ctrl", None)
    if form in ("send", "sends"):
        v["sfid"] = v.pop("cond_mod")
    return pack(form, v)


def _encode_header(inst: Instruction) -> dict:
    if inst.exec_size not in F.EXEC_SIZE:
        raise CompileError(f"encode: bad execution size {inst.exec_size}")
    if inst.chan_offset % 4 or not 0 <= inst.chan_offset <= 28:
        raise CompileError(f"encode: bad channel offset M{inst.chan_offset}")
    q, n = divmod(inst.chan_offset // 4, 2)
    v = dict(opcode=F.OPCODES[inst.opcode], access_mode=int(inst.align16 or inst.opcode in THREE_SRC_OPS),
             no_dd_clr=int(inst.no_dd_clr), no_dd_chk=int(inst.no_dd_chk), nib_ctrl=n, qtr_ctrl=q,
             thread_ctrl=F.THREAD_CTRL.get(inst.thread_ctrl or "", 0), exec_size=F.EXEC_SIZE[inst.exec_size],
             acc_wr_en=int(inst.acc_wr_en), debug=int(inst.debug), saturate=int(inst.saturate),
             mask_ctrl=int(inst.mask_ctrl_we_all), flag_reg=inst.flag_reg, flag_subreg=inst.flag_subreg)
    p = inst.predicate
    if p is not None:
        v.update(pred_ctrl=F.PRED_CTRL[p.control], pred_inv=int(p.inverse), flag_reg=p.flag_reg,
                 flag_subreg=p.flag_subreg)
    if inst.opcode == "math":
        v["cond_mod"] = F.MATH_FC[inst.math_fc]
    elif inst.opcode in SEND_OPS + SENDS_OPS:
        v["cond_mod"] = inst.sfid if inst.sfid is not None else (inst.ex_desc or 0) & 0xF
    else:
        v["cond_mod"] = F.COND_MOD[inst.cond_mod] if inst.cond_mod else 0
    return v


def _file_code(o: Operand) -> int:
    return F.REG_FILE[o.file.value]


def _encode_a1(inst: Instruction, v: dict) -> str:
    op = inst.opcode
    if op in ("nop", "illegal"):
        return "a1"
    if op in ("call", "calla"):
        d = inst.dst
        v.update(dst_file=_file_code(d), dst_type=F.REG_TYPE[d.type.value], dst_reg=d.reg,
                 dst_subreg=d.subreg * d.type.size, dst_hstride=1, src0_vstride=F.VSTRIDE[2],
                 src0_width=F.WIDTH[2], src0_hstride=F.HSTRIDE[1], src1_file=3, src1_type=F.IMM_TYPE["d"],
                 imm32=(inst.jip or 0) & 0xFFFFFFFF)
        return "a1imm"
    if op in ("ret", "wait"):
        _encode_a1_src(inst.srcs[0], 0, v)
        d = inst.dst or Operand(RegFile.ARF, DataType.UD)
        v.update(dst_file=_file_code(d), dst_type=F.REG_TYPE[d.type.value], dst_reg=d.reg,
                 dst_subreg=d.subreg * d.type.size, dst_hstride=1)
        return "a1"
    if op == "brd":                                      # ip:d destination, JIP as src0 [iga64]
        v.update(dst_hstride=1, dst_reg=F.ARF["ip"], dst_type=F.REG_TYPE["d"], src0_file=3,
                 src0_type=F.IMM_TYPE["d"], imm32=(inst.jip or 0) & 0xFFFFFFFF)
        return "a1imm"
    if op in ("endif", "while", "join"):
        v.update(dst_hstride=1, src1_file=3, src1_type=F.IMM_TYPE["d"], imm32=(inst.jip or 0) & 0xFFFFFFFF)
        return "a1imm"
    if op == "jmpi":
        ip = F.ARF["ip"]
        v.update(dst_hstride=1, dst_reg=ip, src0_reg=ip)
        if inst.srcs:
            _encode_a1_src(inst.srcs[0], 1, v)
            return "a1"
        v.update(src1_file=3, src1_type=F.IMM_TYPE["d"], imm32=(inst.jip or 0) & 0xFFFFFFFF)
        return "a1imm"
    form = "a1"
    d = inst.dst
    if d is None:
        raise CompileError(f"encode: {op} needs a destination")
    v.update(dst_file=_file_code(d), dst_type=F.REG_TYPE[d.type.value], dst_reg=d.reg,
             dst_subreg=d.subreg * d.type.size, dst_hstride=F.HSTRIDE[d.hstride])
    if d.indirect:
        _encode_indirect(d, "dst", v)
    for i, s in enumerate(inst.srcs):
        if s.file == RegFile.IMM:
            if i != len(inst.srcs) - 1:
                raise CompileError(f"encode: {op}: only the last source may be an immediate")
            v[f"src{i}_file"] = 3
            v[f"src{i}_type"] = F.IMM_TYPE[s.type.value]
            if s.type.value in IMM64:
                if i != 0:
                    raise CompileError(f"encode: {op}: 64-bit immediate must be src0")
                form = "a1imm64"
                v["imm64"] = s.value & (1 << 64) - 1
            else:
                form = "a1imm"
                raw = s.value & 0xFFFFFFFF
                if s.type.value in ("uw", "w", "hf"):
                    raw = (raw & 0xFFFF) | (raw & 0xFFFF) << 16
                v["imm32"] = raw
        else:
            _encode_a1_src(s, i, v)
    if form == "a1imm64":
        for k in [k for k in v if k.startswith("src0_") and k not in ("src0_file", "src0_type")]:
            del v[k]
    return form


def _encode_indirect(o: Operand, p: str, v: dict) -> None:
    if not -512 <= o.addr_imm < 512 or not 0 <= o.addr_subreg < 16:
        raise CompileError("encode: indirect address out of range")
    imm = o.addr_imm & 0x3FF
    v.update({f"{p}_indirect": 1, f"{p}_reg": 0, f"{p}_subreg": 0, f"{p}_addr_subreg": o.addr_subreg,
              f"{p}_addr_imm": imm & 0x1FF, f"{p}_addr_imm9": imm >> 9})


def _encode_a1_src(s: Operand, i: int, v: dict) -> None:
    r = s.region or Region(0, 1, 0)
    try:
        v.update({f"src{i}_file": _file_code(s), f"src{i}_type": F.REG_TYPE[s.type.value],
                  f"src{i}_reg": s.reg, f"src{i}_subreg": s.subreg * s.type.size,
                  f"src{i}_abs": int(s.abs), f"src{i}_neg": int(s.neg),
                  f"src{i}_vstride": F.VSTRIDE_VXH if r.vstride == VXH else F.VSTRIDE[r.vstride],
                  f"src{i}_width": F.WIDTH[r.width], f"src{i}_hstride": F.HSTRIDE[r.hstride]})
    except KeyError as e:
        raise CompileError(f"encode: bad region or type {e}") from None
    if s.indirect:
        _encode_indirect(s, f"src{i}", v)


def _encode_a16(inst: Instruction, v: dict) -> None:
    d = inst.dst
    v.update(dst_file=_file_code(d), dst_type=F.REG_TYPE[d.type.value], dst_reg=d.reg,
             dst_subreg16=d.subreg * d.type.size // 16, dst_writemask=sum(1 << _SWZ.index(c) for c in d.writemask))
    for i, s in enumerate(inst.srcs):
        v.update({f"src{i}_file": _file_code(s), f"src{i}_type": F.REG_TYPE[s.type.value],
                  f"src{i}_reg": s.reg, f"src{i}_subreg16": s.subreg * s.type.size // 16,
                  f"src{i}_abs": int(s.abs), f"src{i}_neg": int(s.neg), f"src{i}_vstride": 2})
        for k, c in enumerate(_SWZ):
            v[f"src{i}_swz_{c}"] = _SWZ.index(s.swizzle[k])


def _encode_3src(inst: Instruction, v: dict) -> None:
    d = inst.dst
    if d is None or len(inst.srcs) != 3:
        raise CompileError(f"encode: {inst.opcode} needs a destination and three sources")
    try:
        if inst.exec_size == 1:   # Align16 has no SIMD1: SIMD4 with writemask .x
            v["exec_size"] = F.EXEC_SIZE[4]
            d = Operand(d.file, d.type, d.reg, d.subreg, writemask="x")
        v.update(t3_dst_type=F.TYPE_3SRC[d.type.value], t3_dst_reg=d.reg,
                 t3_dst_subreg=d.subreg * d.type.size // 4,
                 t3_dst_writemask=sum(1 << _SWZ.index(c) for c in d.writemask))
        st = inst.srcs[0].type.value
        v["t3_src_type"] = F.TYPE_3SRC[st]
    except KeyError as e:
        raise CompileError(f"encode: {inst.opcode}: type {e} not allowed in three-source form") from None
    for i, s in enumerate(inst.srcs):
        byte = s.subreg * s.type.size
        if i and s.type.value == "hf":
            v[f"src{i}_type_hf"] = 1
        v.update({f"t3_src{i}_reg": s.reg, f"t3_src{i}_subreg": byte // 4, f"t3_src{i}_subreg_lo": byte % 4 // 2,
                  f"t3_src{i}_rep": int(s.rep_ctrl), f"t3_src{i}_swizzle": _swz_bits(s.swizzle),
                  f"t3_src{i}_abs": int(s.abs), f"t3_src{i}_neg": int(s.neg)})


def _encode_send(inst: Instruction, v: dict) -> None:
    d, s0 = inst.dst, inst.srcs[0]
    v.update(dst_file=_file_code(d), dst_type=F.REG_TYPE[d.type.value], dst_reg=d.reg, dst_hstride=1,
             src0_file=_file_code(s0), src0_type=F.REG_TYPE[s0.type.value], src0_reg=s0.reg,
             src1_file=3, desc=(inst.desc or 0) & 0x7FFFFFFF, eot=int(inst.eot))


def _encode_sends(inst: Instruction, v: dict) -> None:
    d, s0, s1 = inst.dst, inst.srcs[0], inst.srcs[1]
    v.update(sends_dst_file=int(d.file == RegFile.GRF), dst_reg=d.reg, src0_reg=s0.reg,
             sends_src1_file=int(s1.file == RegFile.GRF), sends_src1_reg=s1.reg,
             sends_exmlen=((inst.ex_desc or 0) >> 6) & 0xF, desc=(inst.desc or 0) & 0x7FFFFFFF, eot=int(inst.eot))


# ---------------------------------------------------------------------------------------------------
# compaction


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


# ---------------------------------------------------------------------------------------------------
# programs


def encode_program(insts: list[Instruction]) -> bytes:
    """Concatenate instructions; those marked `compacted` use 8 bytes when the tables allow it."""
    out = bytearray()
    for inst in insts:
        native = encode(inst)
        small = try_compact(native) if inst.compacted else None
        out += small if small is not None else native
    return bytes(out)


def instruction_length(data: bytes, offset: int = 0) -> int:
    return 8 if peek(int.from_bytes(data[offset:offset + 8], "little"), "cmpt", "compact") else 16


def decode_program(data: bytes) -> list[Instruction]:
    """Decode a mix of compacted (8-byte) and native (16-byte) instructions."""
    out, pc = [], 0
    while pc < len(data):
        n = instruction_length(data, pc)
        if pc + n > len(data):
            raise CompileError(f"decode: truncated instruction at byte {pc}")
        out.append(decode(data[pc:pc + n]))
        pc += n
    return out


def decode_program_with_offsets(data: bytes) -> list[tuple[int, Instruction]]:
    out, pc = [], 0
    while pc < len(data):
        n = instruction_length(data, pc)
        if pc + n > len(data):
            raise CompileError(f"decode: truncated instruction at byte {pc}")
        out.append((pc, decode(data[pc:pc + n])))
        pc += n
    return out


def float_bits(x: float, t: str) -> int:
    """Raw bits of a float literal for type t (IGA parses as double, then narrows)."""
    if t == "df":
        return int.from_bytes(_struct.pack("<d", x), "little")
    if t == "f":
        try:
            return int.from_bytes(_struct.pack("<f", x), "little")
        except OverflowError:
            return 0xFF800000 if x < 0 else 0x7F800000
    if t == "hf":
        try:
            return int.from_bytes(_struct.pack("<e", x), "little")
        except OverflowError:
            return 0xFC00 if x < 0 else 0x7C00
    raise ValueError(t)
