"""encode()'s common cases without the field dictionary, packed straight into the word by shifts: an Align1
instruction of the a1 or a1imm form (not a branch, send or three-source instruction; direct register
operands; no 64-bit immediate), and the branches the backend emits (the branch form's if, else, break, cont,
halt and goto; endif, while, join and an immediate jmpi, whose JIP is a1imm's immediate).

encoding.encode builds a dictionary of field values and layout.pack places them (about 15 us an
instruction, a tenth of a many-kernel Gen compile); most of what the backend emits is this case.
The shifts and widths come from the field table (fields.form_fields), as pack's do, so no bit position
is written here. Anything outside the case, or a value the general path would refuse (out of its
field's range, not in a table), answers None and the general path encodes it (and raises its error):
the two paths give the same bytes (tests/isa/test_gen9_encoding_plain.py, on the iga64 corpus and on
compiled kernels).
"""
from __future__ import annotations

from itertools import product
from struct import Struct

from . import fields as F
from . import opcodes
from .model import VXH, DataType, Instruction, RegFile

_FORM_BYTES = 16
_A1 = {name: (lo, 1 << (hi - lo + 1)) for name, hi, lo in F.form_fields("a1")}
_A1IMM = {name: (lo, 1 << (hi - lo + 1)) for name, hi, lo in F.form_fields("a1imm")}


def _at(name: str) -> int:
    """A field's lowest bit, the same in both forms (asserted: the header, the destination, src0 and
    src1's type and file are shared by a1 and a1imm)."""
    if _A1[name] != _A1IMM[name]:
        raise AssertionError(f"field {name} differs between a1 and a1imm")
    return _A1[name][0]


def _limit(name: str) -> int:
    return _A1[name][1]


# a1's special shapes (encoding._encode_a1's early returns) and the other forms go the general way
_GENERAL = frozenset(("nop", "illegal", "call", "calla", "ret", "wait", "brd", "endif", "while", "join", "jmpi",
                      *F.BRANCH_JIP_UIP, *opcodes.SEND, *opcodes.SPLIT_SEND, *opcodes.THREE_SRC))
_OPCODE = {op: number << _at("opcode") for op, number in F.OPCODES.items()
           if op not in _GENERAL and 0 <= number < _limit("opcode")}
_EXEC = {n: code << _at("exec_size") for n, code in F.EXEC_SIZE.items()}
_PRED = {c: code << _at("pred_ctrl") for c, code in F.PRED_CTRL.items()}
_COND = {c: code << _at("cond_mod") for c, code in F.COND_MOD.items()}
_MATH = {c: code << _at("cond_mod") for c, code in F.MATH_FC.items()}
_THREAD = {c: code << _at("thread_ctrl") for c, code in F.THREAD_CTRL.items()}

_NIB, _QTR = _at("nib_ctrl"), _at("qtr_ctrl")
_NO_DD_CLR, _NO_DD_CHK, _ACC, _DEBUG, _SAT, _MASK = (_at(n) for n in (
    "no_dd_clr", "no_dd_chk", "acc_wr_en", "debug", "saturate", "mask_ctrl"))
_PRED_INV, _FLAG_REG, _FLAG_SUB = _at("pred_inv"), _at("flag_reg"), _at("flag_subreg")

_IMM_FILE = F.REG_FILE["imm"]
_IMM64 = frozenset(t for t in DataType if t.value in ("df", "q", "uq"))
_WORD_IMM = frozenset((DataType.UW, DataType.W, DataType.HF))
_FILE = {f: F.REG_FILE[f.value] for f in RegFile if f.value in F.REG_FILE}
_REG_TYPE = {t: F.REG_TYPE[t.value] for t in DataType if t.value in F.REG_TYPE}
_IMM_TYPE = {t: F.IMM_TYPE[t.value] for t in DataType if t.value in F.IMM_TYPE}
_IMM32 = _A1IMM["imm32"][0]
_VSTRIDE, _WIDTH, _HSTRIDE, _VSTRIDE_VXH = F.VSTRIDE, F.WIDTH, F.HSTRIDE, F.VSTRIDE_VXH
_NO_REGION = (F.VSTRIDE[0], F.WIDTH[1], F.HSTRIDE[0])        # a register source without a region: <0;1,0>

_DST = tuple(_at(f"dst_{n}") for n in ("file", "type", "reg", "subreg", "hstride"))
_DST_REG_LIMIT, _DST_SUB_LIMIT = _limit("dst_reg"), _limit("dst_subreg")
# the destination's file, type and stride codes already shifted into place (as the sources' below)
_DST_FILE_AT = {f: code << _DST[0] for f, code in _FILE.items()}
_DST_TYPE_AT = {t: code << _DST[1] for t, code in _REG_TYPE.items()}
_DST_HSTRIDE_AT = {h: code << _DST[4] for h, code in _HSTRIDE.items()}
_DST_REG_AT, _DST_SUB_AT = _DST[2], _DST[3]
# (file, type) shifts of each source as an immediate; (file, type, reg, subreg, abs, neg, vstride, width,
# hstride) shifts of each as a register (src1's register fields exist in a1 only)
_SRC_IMM = tuple((_at(f"src{i}_file"), _at(f"src{i}_type")) for i in range(2))
if any(_A1[f"src0_{n}"] != _A1IMM[f"src0_{n}"] for n in ("reg", "subreg", "abs", "neg", "vstride", "width",
                                                              "hstride")):
    raise AssertionError("src0's register fields differ between a1 and a1imm")
_SRC_REG = tuple(tuple(_A1[f"src{i}_{n}"][0] for n in ("file", "type", "reg", "subreg", "abs", "neg", "vstride",
                                                        "width", "hstride")) for i in range(2))
_SRC_REG_LIMIT = tuple((_limit(f"src{i}_reg"), _limit(f"src{i}_subreg")) for i in range(2))
# each register source's file, type and region codes already shifted into place (its reg and subreg, and its
# modifiers where set, are shifted per instruction): one lookup a field, no shift of the 128-bit word's
# parts for them; a missing key is a value the general path decides (as the tables above)
_SRC_FILE_AT = tuple({f: code << at[0] for f, code in _FILE.items()} for at in _SRC_REG)
_SRC_TYPE_AT = tuple({t: code << at[1] for t, code in _REG_TYPE.items()} for at in _SRC_REG)
_SRC_VSTRIDE_AT = tuple({**{v: code << at[6] for v, code in _VSTRIDE.items()}, VXH: _VSTRIDE_VXH << at[6]}
                        for at in _SRC_REG)
_SRC_WIDTH_AT = tuple({w: code << at[7] for w, code in _WIDTH.items()} for at in _SRC_REG)
_SRC_HSTRIDE_AT = tuple({h: code << at[8] for h, code in _HSTRIDE.items()} for at in _SRC_REG)
_SRC_REG_AT = tuple((at[2], at[3]) for at in _SRC_REG)     # reg, subreg
_SRC_NO_REGION_AT = tuple(_NO_REGION[0] << at[6] | _NO_REGION[1] << at[7] | _NO_REGION[2] << at[8] for at in _SRC_REG)


# branches (encoding.encode_fields' branch form; endif, while, join and an immediate jmpi in a1imm): the
# header as above, fixed operand fields, the offsets (brc and brd, with ip operands, go the general way)
_BRANCH = {name: (lo, 1 << (hi - lo + 1)) for name, hi, lo in F.form_fields("branch")}
if any(_BRANCH[n] != _A1[n] for n in _BRANCH if n in _A1):
    raise AssertionError("a field shared by a1 and the branch form differs")
_JIP_UIP = frozenset(op for op in F.BRANCH_JIP_UIP if op != "brc")
_JUMP_OPCODE = {op: F.OPCODES[op] << _at("opcode") for op in (*_JIP_UIP, "endif", "while", "join", "jmpi")}
_JIP, _UIP, _BRANCH_CTRL = _BRANCH["jip"][0], _BRANCH["uip"][0], _BRANCH["branch_ctrl"][0]
_BRANCH_FIXED = 1 << _BRANCH["dst_hstride"][0] | _IMM_FILE << _BRANCH["src0_file"][0] \
    | F.IMM_TYPE["d"] << _BRANCH["src0_type"][0]
_JIP_ONLY_FIXED = 1 << _A1IMM["dst_hstride"][0] | _IMM_FILE << _A1IMM["src1_file"][0] \
    | F.IMM_TYPE["d"] << _A1IMM["src1_type"][0]
_IP_DST_SRC0 = F.ARF["ip"] << _A1IMM["dst_reg"][0] | F.ARF["ip"] << _A1IMM["src0_reg"][0]


def encode_plain(inst: Instruction) -> bytes | None:
    """The native 16-byte word of `inst` when it is the common case (see the module), else None."""
    op = inst.opcode
    word = _OPCODE.get(op)
    if word is None:
        jump = _JUMP_OPCODE.get(op)
        if jump is None:
            send = _SEND_OPCODE.get(op)
            return None if send is None or inst.align16 else _encode_send(inst, op, send)
        return None if inst.align16 else _encode_jump(inst, op, jump)
    if inst.align16:
        return None
    word = _header(inst, op, word)
    if word is None:
        return None
    # the destination (encoding._encode_a1), then the sources: registers, the last one perhaps a 32-bit
    # immediate (then the a1imm form); each field's code already in place, from a table (a value the
    # table lacks raises KeyError: the general path decides). Built as the word's four dwords (no field
    # crosses one: _in_dword), so that every | and << is on a machine-sized int, not on the 128-bit word:
    # the header in dword 0 (its flag and mask bits in dword 1), the destination and src0's file and type
    # in dword 1, src0's register and src1's file and type in dword 2, src1's register or the immediate in 3
    d = inst.dst
    if d is None or d.indirect:
        return None
    srcs = inst.srcs
    last = len(srcs) - 1
    if last > 1:
        return None
    dw0, dw1 = word & 0xFFFFFFFF, word >> 32
    dw2 = dw3 = 0
    try:
        t = d.type
        dw1 |= _DST_FIELDS_IN_1[d.file, t, d.hstride] | _DST_REG_IN_1[d.reg] | _DST_SUB_IN_1[d.subreg * t.size]
        for i, s in enumerate(srcs):
            t = s.type
            if s.file is _IMM:
                if i != last:
                    return None
                raw = s.value & 0xFFFFFFFF
                if t in _WORD_IMM:
                    raw = (raw & 0xFFFF) | (raw & 0xFFFF) << 16
                if i:
                    dw2 |= _SRC1_IMM_IN_2[t]
                else:
                    dw1 |= _SRC0_IMM_IN_1[t]
                dw3 = raw                         # (imm32: all of dword 3)
                continue
            if s.indirect:
                return None
            r = s.region
            if i:
                dw2 |= _SRC1_FILE_TYPE_IN_2[s.file, t]
                dw3 |= _SRC1_MODIFIERS_IN_3[s.abs, s.neg] | _SRC1_REG_IN_3[s.reg] | _SRC1_SUB_IN_3[s.subreg * t.size] \
                    | (_SRC1_NO_REGION_IN_3 if r is None else _SRC1_REGION_IN_3[r.vstride, r.width, r.hstride])
            else:
                dw1 |= _SRC0_FILE_TYPE_IN_1[s.file, t]
                dw2 |= _SRC0_MODIFIERS_IN_2[s.abs, s.neg] | _SRC0_REG_IN_2[s.reg] | _SRC0_SUB_IN_2[s.subreg * t.size] \
                    | (_SRC0_NO_REGION_IN_2 if r is None else _SRC0_REGION_IN_2[r.vstride, r.width, r.hstride])
    except KeyError:
        return None
    return _DWORDS(dw0, dw1, dw2, dw3)


def _header(inst: Instruction, op: str, word: int) -> int | None:
    """`word` (the opcode's bits) with the header's fields, or None where the general path decides."""
    # (encoding._encode_header, from tables: the six one-bit flags as one key, a flag register and
    # subregister as one; a value a table lacks raises KeyError)
    try:
        word |= _EXEC[inst.exec_size] | _CHANNEL[inst.chan_offset] | _FLAGS[
            inst.no_dd_clr, inst.no_dd_chk, inst.acc_wr_en, inst.debug, inst.saturate, inst.mask_ctrl_we_all]
        if inst.thread_ctrl:
            word |= _THREAD.get(inst.thread_ctrl, 0)
        p = inst.predicate
        if p is None:
            word |= _FLAG_AT[inst.flag_reg, inst.flag_subreg]
        else:
            word |= _PRED_AT[p.control, p.inverse] | _FLAG_AT[p.flag_reg, p.flag_subreg]
        if op == "math":
            return word | _MATH[str(inst.math_fc)]
        return word | _COND[inst.cond_mod] if inst.cond_mod else word
    except KeyError:
        return None


# the header's tables: each channel offset (M0, M4 ... M28: nib_ctrl and qtr_ctrl); the flags (no_dd_clr,
# no_dd_chk, acc_wr_en, debug, saturate, mask_ctrl) keyed by their values; a flag register and subregister;
# a predicate's control and inversion
_CHANNEL = {co: (co // 4 % 2) << _NIB | (co // 8) << _QTR for co in range(0, 32, 4)}
_FLAGS = {bits: sum(b << at for b, at in zip(bits, (_NO_DD_CLR, _NO_DD_CHK, _ACC, _DEBUG, _SAT, _MASK)))
          for bits in product((False, True), repeat=6)}
_FLAG_AT = {(f, sub): f << _FLAG_REG | sub << _FLAG_SUB for f in (0, 1) for sub in (0, 1)}
_PRED_AT = {(c, inv): code | inv << _PRED_INV for c, code in _PRED.items() for inv in (False, True)}
# the sources' tables: an immediate's file and type (no 64-bit one), a register's file and type, its
# modifiers (abs, neg) and its region (vstride, width, hstride), each in place for source i
_SRC_IMM_AT = tuple({t: _IMM_FILE << f_at | code << t_at for t, code in _IMM_TYPE.items() if t not in _IMM64}
                    for f_at, t_at in _SRC_IMM)
_SRC_FILE_TYPE_AT: tuple[dict[tuple[RegFile, DataType], int], ...] = tuple(
    {(f, t): fc | tc for f, fc in files.items() if f is not RegFile.IMM for t, tc in types.items()}
    for files, types in zip(_SRC_FILE_AT, _SRC_TYPE_AT))
_SRC_MODIFIERS_AT = tuple({(a, ng): a << at[4] | ng << at[5] for a in (False, True) for ng in (False, True)}
                          for at in _SRC_REG)
_SRC_REGION_AT = tuple({(v, w, h): vc | wc | hc for v, vc in vs.items() for w, wc in ws.items()
                        for h, hc in hs.items()}
                       for vs, ws, hs in zip(_SRC_VSTRIDE_AT, _SRC_WIDTH_AT, _SRC_HSTRIDE_AT))
_IMM = RegFile.IMM


def _in_dword(value: int, k: int) -> int:
    """`value` (bits of the 128-bit word) as bits of its dword k; AssertionError where it has bits outside it."""
    if value >> 32 * k >> 32 or value & ((1 << 32 * k) - 1):
        raise AssertionError(f"bits {value:#x} are not all in dword {k}")
    return value >> 32 * k


def _table_in_dword(table: dict, k: int) -> dict:
    return {key: _in_dword(value, k) for key, value in table.items()}


def _shift_in_dword(at: int, k: int) -> int:
    if not 32 * k <= at < 32 * k + 32:
        raise AssertionError(f"bit {at} is not in dword {k}")
    return at - 32 * k


def _numbers_in_dword(at: int, limit: int, k: int) -> dict[int, int]:
    """Each value 0 .. limit - 1 of the field at bit `at` of the word, as bits of its dword k."""
    shift = _shift_in_dword(at, k)
    if shift + limit.bit_length() - 1 > 32:
        raise AssertionError(f"the field at bit {at} is not all in dword {k}")
    return {n: n << shift for n in range(limit)}


# encode_plain's fields as bits of their dword (see there): the destination's file, type and stride as one
# key, its register and (byte) subregister; each source's file and type (as a register or as an immediate),
# modifiers, region, register and subregister. A register or subregister table holds every value its field
# takes (a value outside the field raises KeyError, as a missing one of the other tables)
_DWORDS = Struct("<4I").pack
_DST_FIELDS_IN_1 = {(f, t, h): _in_dword(fc | tc | hc, 1) for f, fc in _DST_FILE_AT.items()
                    for t, tc in _DST_TYPE_AT.items() for h, hc in _DST_HSTRIDE_AT.items()}
_DST_REG_IN_1, _DST_SUB_IN_1 = _numbers_in_dword(_DST_REG_AT, _DST_REG_LIMIT, 1), \
    _numbers_in_dword(_DST_SUB_AT, _DST_SUB_LIMIT, 1)
_SRC0_IMM_IN_1, _SRC1_IMM_IN_2 = _table_in_dword(_SRC_IMM_AT[0], 1), _table_in_dword(_SRC_IMM_AT[1], 2)
_SRC0_FILE_TYPE_IN_1 = _table_in_dword(_SRC_FILE_TYPE_AT[0], 1)
_SRC1_FILE_TYPE_IN_2 = _table_in_dword(_SRC_FILE_TYPE_AT[1], 2)
_SRC0_MODIFIERS_IN_2 = _table_in_dword(_SRC_MODIFIERS_AT[0], 2)
_SRC1_MODIFIERS_IN_3 = _table_in_dword(_SRC_MODIFIERS_AT[1], 3)
_SRC0_REGION_IN_2, _SRC1_REGION_IN_3 = _table_in_dword(_SRC_REGION_AT[0], 2), _table_in_dword(_SRC_REGION_AT[1], 3)
_SRC0_NO_REGION_IN_2 = _in_dword(_SRC_NO_REGION_AT[0], 2)
_SRC1_NO_REGION_IN_3 = _in_dword(_SRC_NO_REGION_AT[1], 3)
_SRC0_REG_IN_2, _SRC0_SUB_IN_2 = (_numbers_in_dword(at, limit, 2)
                                  for at, limit in zip(_SRC_REG_AT[0], _SRC_REG_LIMIT[0]))
_SRC1_REG_IN_3, _SRC1_SUB_IN_3 = (_numbers_in_dword(at, limit, 3)
                                  for at, limit in zip(_SRC_REG_AT[1], _SRC_REG_LIMIT[1]))
if _shift_in_dword(_IMM32, 3) or _A1IMM["imm32"][1] != 1 << 32:
    raise AssertionError("imm32 is not all of dword 3")


def _encode_jump(inst: Instruction, op: str, opcode_bits: int) -> bytes | None:
    """A branch's word (encoding.encode_fields' branch form, _encode_a1's endif, while, join and immediate
    jmpi): the header, then the fixed operand fields and the offsets; the operands themselves are not
    encoded (as there)."""
    word = _header(inst, op, opcode_bits)
    if word is None:
        return None
    jip = (inst.jip or 0) & 0xFFFFFFFF
    if op in _JIP_UIP:                          # the branch form: no acc_wr_en (the general path drops it)
        ctrl = int(inst.branch_ctrl)
        if inst.acc_wr_en or ctrl >> 1:
            return None
        word |= _BRANCH_FIXED | ctrl << _BRANCH_CTRL | jip << _JIP | ((inst.uip or 0) & 0xFFFFFFFF) << _UIP
    else:                                       # a1imm: the JIP as src1's immediate
        word |= _JIP_ONLY_FIXED | jip << _IMM32
        if op == "jmpi":
            if inst.srcs:                       # (a register jmpi: the general path)
                return None
            word |= _IP_DST_SRC0
    return word.to_bytes(_FORM_BYTES, "little")


# sends (encoding.encode_fields' send form, encoding._encode_send): the header as above with the SFID where
# an ALU instruction has its conditional modifier, the destination and src0 registers, src1's file as an
# immediate, the descriptor's 31 bits and EOT (split sends, sends, go the general way)
_SEND = {name: (lo, 1 << (hi - lo + 1)) for name, hi, lo in F.form_fields("send")}
if any(_SEND[n] != _A1[n] for n in ("opcode", "access_mode", "no_dd_clr", "no_dd_chk", "nib_ctrl", "qtr_ctrl",
                                    "thread_ctrl", "pred_ctrl", "pred_inv", "exec_size", "acc_wr_en", "debug",
                                    "saturate", "mask_ctrl", "flag_reg", "flag_subreg")) \
        or _SEND["sfid"] != _A1["cond_mod"]:
    raise AssertionError("the send form's header differs from a1's")
_SEND_OPCODE = {op: F.OPCODES[op] << _at("opcode") for op in opcodes.SEND}
_S_DST = tuple(_SEND[f"dst_{n}"][0] for n in ("file", "type", "reg", "hstride"))
_S_SRC0 = tuple(_SEND[f"src0_{n}"][0] for n in ("file", "type", "reg"))
_S_FIXED = F.REG_FILE["imm"] << _SEND["src1_file"][0] | 1 << _S_DST[3]        # src1_file=3, dst_hstride=1
_S_SFID, _S_DESC, _S_EOT = _SEND["sfid"][0], _SEND["desc"][0], _SEND["eot"][0]
_S_SFID_LIMIT, _S_DST_REG_LIMIT, _S_SRC0_REG_LIMIT = _SEND["sfid"][1], _SEND["dst_reg"][1], _SEND["src0_reg"][1]


def _encode_send(inst: Instruction, op: str, opcode_bits: int) -> bytes | None:
    """A send's word, or None where the general path decides (a conditional modifier, which it does not
    encode; no destination or source; a value outside its field or table)."""
    if inst.cond_mod:
        return None
    word = _header(inst, op, opcode_bits)
    d, srcs = inst.dst, inst.srcs
    if word is None or d is None or not srcs:
        return None
    s0 = srcs[0]
    sfid = inst.sfid if inst.sfid is not None else (inst.ex_desc or 0) & 0xF
    d_file, d_type, s_file, s_type = _FILE.get(d.file), _REG_TYPE.get(d.type), _FILE.get(s0.file), \
        _REG_TYPE.get(s0.type)
    eot = int(inst.eot)
    if d_file is None or d_type is None or s_file is None or s_type is None or eot >> 1 or \
            not 0 <= sfid < _S_SFID_LIMIT or not 0 <= d.reg < _S_DST_REG_LIMIT or not 0 <= s0.reg < _S_SRC0_REG_LIMIT:
        return None
    word |= _S_FIXED | sfid << _S_SFID | d_file << _S_DST[0] | d_type << _S_DST[1] | d.reg << _S_DST[2] \
        | s_file << _S_SRC0[0] | s_type << _S_SRC0[1] | s0.reg << _S_SRC0[2] \
        | ((inst.desc or 0) & 0x7FFFFFFF) << _S_DESC | eot << _S_EOT
    return word.to_bytes(_FORM_BYTES, "little")
