"""Gen9 binary encoding: Instruction <-> instruction words, and whole programs.

decode() reads field values through layout.py (from the field table, so no bit position appears here)
and builds the model; encode() does the reverse for the native
16-byte form.  Compacted 8-byte instructions are expanded to their native word first (compaction.py);
encode_program() compacts the instructions marked `compacted` when the tables allow it.

Layout:  fields.py (bits) -> layout.py (pack, unpack) -> encoding.py (model) / compaction.py (8-byte form)
"""
from __future__ import annotations

from . import fields as F
from . import opcodes
from .compaction import expand_compact, try_compact  # noqa: F401  (re-exported)
from .encoding_plain import encode_plain
from .errors import IsaError
from .layout import (  # noqa: F401
    IMM64,
    SEND_OPS,
    SENDS_OPS,
    THREE_SRC_OPS,
    alias_get,
    instruction_length,
    native_form,
    pack,
    peek,
    unpack,
)
from .model import VXH, DataType, Instruction, Operand, Predicate, RegFile, Region

_REG_TYPE_NAMES = {v: k for k, v in F.REG_TYPE.items()}


class _ByMember(dict):
    """A field table (fields.py, keyed by the IGA name) keyed by the enum member itself: Enum's `.value` is a
    Python-level descriptor, and asking it of every operand was a tenth of encoding an instruction. A
    member the table lacks raises the KeyError the name's lookup raises."""

    def __init__(self, table: dict[str, int], members) -> None:
        super().__init__((m, table[m.value]) for m in members if m.value in table)
        self.table = table

    def __missing__(self, member):
        return self.table[member.value]


_FILE_CODE = _ByMember(F.REG_FILE, RegFile)
_REG_TYPE = _ByMember(F.REG_TYPE, DataType)
_IMM_TYPE = _ByMember(F.IMM_TYPE, DataType)
_IMM64_TYPES = frozenset(t for t in DataType if t.value in IMM64)
_WORD_IMM_TYPES = frozenset((DataType.UW, DataType.W, DataType.HF))
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
        raise IsaError("decode: truncated instruction")
    form = native_form(data)
    v = unpack(form, data)
    v["_word"], v["_form"] = int.from_bytes(data, "little"), form
    op = F.OPCODE_NAMES.get(v["opcode"])
    if op is None:
        raise IsaError(f"decode: unknown opcode 0x{v['opcode']:02X}")
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
    n = opcodes.num_srcs(op, inst.math_fc)
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
    for i in range(opcodes.num_srcs(inst.opcode)):
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
    src_type = DataType(_REG_TYPE_NAMES.get(v["src0_type"], "ud"))
    inst.srcs = [Operand(_FILE_DEC.get(v["src0_file"], RegFile.ARF), src_type, reg=v["src0_reg"])]
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
    """Encode to the native 16-byte form (compaction is handled by encode_program): the common Align1 case
    by shifts alone (encoding_plain), anything else through the field values (encode_fields)."""
    word = encode_plain(inst)
    return word if word is not None else encode_fields(inst)


def encode_fields(inst: Instruction) -> bytes:
    """encode() of any instruction: its field values, packed (layout.pack)."""
    op = inst.opcode
    if op not in F.OPCODES:
        raise IsaError(f"encode: unknown opcode '{op}'")
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
        raise IsaError(f"encode: bad execution size {inst.exec_size}")
    if inst.chan_offset % 4 or not 0 <= inst.chan_offset <= 28:
        raise IsaError(f"encode: bad channel offset M{inst.chan_offset}")
    q, n = divmod(inst.chan_offset // 4, 2)
    v = {"opcode": F.OPCODES[inst.opcode], "access_mode": int(inst.align16 or inst.opcode in THREE_SRC_OPS),
         "no_dd_clr": int(inst.no_dd_clr), "no_dd_chk": int(inst.no_dd_chk), "nib_ctrl": n, "qtr_ctrl": q,
         "thread_ctrl": F.THREAD_CTRL.get(inst.thread_ctrl or "", 0), "exec_size": F.EXEC_SIZE[inst.exec_size],
         "acc_wr_en": int(inst.acc_wr_en), "debug": int(inst.debug), "saturate": int(inst.saturate),
         "mask_ctrl": int(inst.mask_ctrl_we_all), "flag_reg": inst.flag_reg, "flag_subreg": inst.flag_subreg}
    p = inst.predicate
    if p is not None:
        v.update(pred_ctrl=F.PRED_CTRL[p.control], pred_inv=int(p.inverse), flag_reg=p.flag_reg,
                 flag_subreg=p.flag_subreg)
    if inst.opcode == "math":
        v["cond_mod"] = F.MATH_FC[str(inst.math_fc)]
    elif inst.opcode in SEND_OPS + SENDS_OPS:
        v["cond_mod"] = inst.sfid if inst.sfid is not None else (inst.ex_desc or 0) & 0xF
    else:
        v["cond_mod"] = F.COND_MOD[inst.cond_mod] if inst.cond_mod else 0
    return v


def _file_code(o: Operand) -> int:
    return _FILE_CODE[o.file]


def _encode_a1(inst: Instruction, v: dict) -> str:
    op = inst.opcode
    if op in ("nop", "illegal"):
        return "a1"
    if op in ("call", "calla"):
        d = inst.destination
        v.update(dst_file=_file_code(d), dst_type=_REG_TYPE[d.type], dst_reg=d.reg,
                 dst_subreg=d.subreg * d.type.size, dst_hstride=1, src0_vstride=F.VSTRIDE[2],
                 src0_width=F.WIDTH[2], src0_hstride=F.HSTRIDE[1], src1_file=3, src1_type=F.IMM_TYPE["d"],
                 imm32=(inst.jip or 0) & 0xFFFFFFFF)
        return "a1imm"
    if op in ("ret", "wait"):
        _encode_a1_src(inst.srcs[0], 0, v)
        d = inst.dst or Operand(RegFile.ARF, DataType.UD)
        v.update(dst_file=_file_code(d), dst_type=_REG_TYPE[d.type], dst_reg=d.reg,
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
    if inst.dst is None:
        raise IsaError(f"encode: {op} needs a destination")
    d = inst.dst
    v.update(dst_file=_file_code(d), dst_type=_REG_TYPE[d.type], dst_reg=d.reg,
             dst_subreg=d.subreg * d.type.size, dst_hstride=F.HSTRIDE[d.hstride])
    if d.indirect:
        _encode_indirect(d, "dst", v)
    for i, s in enumerate(inst.srcs):
        if s.file == RegFile.IMM:
            if i != len(inst.srcs) - 1:
                raise IsaError(f"encode: {op}: only the last source may be an immediate")
            v[f"src{i}_file"] = 3
            v[f"src{i}_type"] = _IMM_TYPE[s.type]
            if s.type in _IMM64_TYPES:
                if i != 0:
                    raise IsaError(f"encode: {op}: 64-bit immediate must be src0")
                form = "a1imm64"
                v["imm64"] = s.value & (1 << 64) - 1
            else:
                form = "a1imm"
                raw = s.value & 0xFFFFFFFF
                if s.type in _WORD_IMM_TYPES:
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
        raise IsaError("encode: indirect address out of range")
    imm = o.addr_imm & 0x3FF
    v.update({f"{p}_indirect": 1, f"{p}_reg": 0, f"{p}_subreg": 0, f"{p}_addr_subreg": o.addr_subreg,
              f"{p}_addr_imm": imm & 0x1FF, f"{p}_addr_imm9": imm >> 9})


# the field names of source i (an f-string per field and source was a fifth of encoding a source)
_SRC_FIELDS = [tuple(f"src{i}_{name}" for name in ("file", "type", "reg", "subreg", "abs", "neg", "vstride", "width",
                                                     "hstride")) for i in range(3)]


def _encode_a1_src(s: Operand, i: int, v: dict) -> None:
    r = s.region or Region(0, 1, 0)
    file, type_, reg, subreg, abs_, neg, vstride, width, hstride = _SRC_FIELDS[i]
    try:
        v[file] = _file_code(s)
        v[type_] = _REG_TYPE[s.type]
        v[reg] = s.reg
        v[subreg] = s.subreg * s.type.size
        v[abs_] = int(s.abs)
        v[neg] = int(s.neg)
        v[vstride] = F.VSTRIDE_VXH if r.vstride == VXH else F.VSTRIDE[r.vstride]
        v[width] = F.WIDTH[r.width]
        v[hstride] = F.HSTRIDE[r.hstride]
    except KeyError as e:
        raise IsaError(f"encode: bad region or type {e}") from None
    if s.indirect:
        _encode_indirect(s, f"src{i}", v)


def _encode_a16(inst: Instruction, v: dict) -> None:
    d = inst.destination
    v.update(dst_file=_file_code(d), dst_type=_REG_TYPE[d.type], dst_reg=d.reg,
             dst_subreg16=d.subreg * d.type.size // 16,
             dst_writemask=sum((1 << _SWZ.index(c) for c in d.writemask), 0))
    for i, s in enumerate(inst.srcs):
        v.update({f"src{i}_file": _file_code(s), f"src{i}_type": _REG_TYPE[s.type],
                  f"src{i}_reg": s.reg, f"src{i}_subreg16": s.subreg * s.type.size // 16,
                  f"src{i}_abs": int(s.abs), f"src{i}_neg": int(s.neg), f"src{i}_vstride": 2})
        for k, c in enumerate(_SWZ):
            v[f"src{i}_swz_{c}"] = _SWZ.index(s.swizzle[k])


def _encode_3src(inst: Instruction, v: dict) -> None:
    d = inst.dst
    if d is None or len(inst.srcs) != 3:
        raise IsaError(f"encode: {inst.opcode} needs a destination and three sources")
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
        raise IsaError(f"encode: {inst.opcode}: type {e} not allowed in three-source form") from None
    for i, s in enumerate(inst.srcs):
        byte = s.subreg * s.type.size
        if i and s.type.value == "hf":
            v[f"src{i}_type_hf"] = 1
        v.update({f"t3_src{i}_reg": s.reg, f"t3_src{i}_subreg": byte // 4, f"t3_src{i}_subreg_lo": byte % 4 // 2,
                  f"t3_src{i}_rep": int(s.rep_ctrl), f"t3_src{i}_swizzle": _swz_bits(s.swizzle),
                  f"t3_src{i}_abs": int(s.abs), f"t3_src{i}_neg": int(s.neg)})


def _encode_send(inst: Instruction, v: dict) -> None:
    d, s0 = inst.destination, inst.srcs[0]
    v.update(dst_file=_file_code(d), dst_type=_REG_TYPE[d.type], dst_reg=d.reg, dst_hstride=1,
             src0_file=_file_code(s0), src0_type=_REG_TYPE[s0.type], src0_reg=s0.reg,
             src1_file=3, desc=(inst.desc or 0) & 0x7FFFFFFF, eot=int(inst.eot))


def _encode_sends(inst: Instruction, v: dict) -> None:
    d, s0, s1 = inst.destination, inst.srcs[0], inst.srcs[1]
    v.update(sends_dst_file=int(d.file == RegFile.GRF), dst_reg=d.reg, src0_reg=s0.reg,
             sends_src1_file=int(s1.file == RegFile.GRF), sends_src1_reg=s1.reg,
             sends_exmlen=((inst.ex_desc or 0) >> 6) & 0xF, desc=(inst.desc or 0) & 0x7FFFFFFF, eot=int(inst.eot))


# ---------------------------------------------------------------------------------------------------
# programs


def encode_program(insts: list[Instruction]) -> bytes:
    """Concatenate instructions; those marked `compacted` use 8 bytes when the tables allow it."""
    out = bytearray()
    for inst in insts:
        native = encode_plain(inst)             # (encode's two paths, without its call per instruction)
        if native is None:
            native = encode_fields(inst)
        if inst.compacted:
            small = try_compact(native)
            if small is not None:
                native = small
        out += native
    return bytes(out)


def walk(data: bytes) -> list[tuple[int, Instruction, int]]:
    """(byte offset, decoded instruction, size) of every instruction of a program, compacted (8-byte)
    and native (16-byte) mixed."""
    out, pc = [], 0
    while pc < len(data):
        n = instruction_length(data, pc)
        if pc + n > len(data):
            raise IsaError(f"decode: truncated instruction at byte {pc} ({len(data) - pc} of {n} bytes)")
        out.append((pc, decode(data[pc:pc + n]), n))
        pc += n
    return out


def decode_program(data: bytes) -> list[Instruction]:
    """Decode a mix of compacted (8-byte) and native (16-byte) instructions."""
    return [inst for _, inst, _ in walk(data)]


def decode_program_with_offsets(data: bytes) -> list[tuple[int, Instruction]]:
    out, pc = [], 0
    while pc < len(data):
        n = instruction_length(data, pc)
        if pc + n > len(data):
            raise IsaError(f"decode: truncated instruction at byte {pc}")
        out.append((pc, decode(data[pc:pc + n])))
        pc += n
    return out
