"""The Gen9 instruction field table: the single place where bit positions live.

Each row names one hardware field and gives its bit range (hi, lo) in every instruction *form* that has
it (absent forms have no entry).  The encoder and decoder pack and unpack words from these rows (layout.py);
the assembler, disassembler and simulator only ever see field names and the enums below.

Sources (facts only): checked with iga64 1.1.0 by assembling and flipping bits (tests/isa/test_gen9_iga.py
does so for every row); Intel's Gen9 PRM volume 2a ("Command Reference: Instructions") and Mesa's
src/intel/compiler/brw_inst.h (Gfx8/9 column) and
brw_eu_compact.c for the compact layouts and the Align16 two-source rows.  Of the latter, iga64 only
prints instructions it can convert to Align1 (identity swizzle, full writemask), which confirmed the
16-byte subregister bits (52, 68, 100) and vstride; the swizzle rows are Mesa's and unchecked.

Forms:
  a1       two-source Align1, both sources registers (also one-source ops: src1 fields are zero)
  a1imm    Align1 with a 32-bit immediate in the last source (127:96); also endif/while/jmpi (JIP there)
  a1imm64  Align1 with a 64-bit immediate (127:64): DF/Q/UQ
  a16      two-source Align16 (decode only: writemask/swizzle)
  3src     three-source Align16 (mad, ...)
  send     send/sendc: descriptor immediate
  sends    sends/sendsc: split payload
  branch   if/else/break/cont/halt/goto/brc: JIP and UIP immediates
  compact  the 64-bit compacted form of a1/a1imm
  compact3 the 64-bit compacted form of 3src
"""
from __future__ import annotations

import functools

from reconverge.records import record

from . import opcodes as _opcodes

NATIVE_FORMS = ("a1", "a1imm", "a1imm64", "a16", "3src", "send", "sends", "branch")
COMPACT_FORMS = ("compact", "compact3")
FORM_BITS = {f: 128 for f in NATIVE_FORMS} | {f: 64 for f in COMPACT_FORMS}


@record(frozen=True)
class Field:
    name: str
    bits: dict[str, tuple[int, int]]
    doc: str = ""
    alias: bool = False   # reinterprets bits of other fields (indirect addressing); not in the structs

    def width(self, form: str) -> int:
        hi, lo = self.bits[form]
        return hi - lo + 1


def _row(name: str, hi: int, lo: int, forms, doc: str = "", alias: bool = False) -> Field:
    return Field(name, {f: (hi, lo) for f in forms}, doc, alias)


ALL = NATIVE_FORMS
NOT_3SRC = tuple(f for f in NATIVE_FORMS if f != "3src")
OPS_A1 = ("a1", "a1imm", "a1imm64", "branch", "send")     # Align1 destination layout
CM_FORMS = ("a1", "a1imm", "a1imm64", "a16", "3src", "branch")  # forms with a cond-mod / math FC

FIELDS: list[Field] = [
    # ---- header, shared by every native form -------------------------------------------------
    _row("opcode", 6, 0, ALL + COMPACT_FORMS),
    _row("access_mode", 8, 8, ALL, "1 = Align16"),
    _row("no_dd_clr", 9, 9, ALL),
    _row("no_dd_chk", 10, 10, ALL),
    _row("nib_ctrl", 11, 11, ALL, "with qtr_ctrl: channel offset M = 4*(2*qtr+nib)"),
    _row("qtr_ctrl", 13, 12, ALL),
    _row("thread_ctrl", 15, 14, ALL, "1 Atomic, 2 Switch"),
    _row("pred_ctrl", 19, 16, ALL, "see PRED_CTRL"),
    _row("pred_inv", 20, 20, ALL),
    _row("exec_size", 23, 21, ALL, "log2 of 1..32"),
    _row("cond_mod", 27, 24, CM_FORMS + COMPACT_FORMS[:1], "cond modifier, or math function (MATH_FC)"),
    _row("sfid", 27, 24, ("send", "sends"), "shared function id (low nibble of IGA's ex_desc)"),
    _row("acc_wr_en", 28, 28, ("a1", "a1imm", "a1imm64", "a16", "3src", "send", "sends"), "AccWrEn"),
    _row("branch_ctrl", 28, 28, ("branch",), "else.b / goto.b"),
    _row("cmpt", 29, 29, ALL + COMPACT_FORMS, "1 = compacted 64-bit instruction"),
    _row("debug", 30, 30, ALL, "Breakpoint"),
    _row("saturate", 31, 31, ALL),
    _row("flag_subreg", 32, 32, ALL, "one flag field for predicate and cond-mod"),
    _row("flag_reg", 33, 33, ALL),
    _row("mask_ctrl", 34, 34, ALL, "1 = WE_all (NoMask)"),

    # ---- Align1 destination ---------------------------------------------------------------------
    _row("dst_file", 36, 35, OPS_A1 + ("a16",), "REG_FILE"),
    _row("dst_type", 40, 37, OPS_A1 + ("a16",), "REG_TYPE"),
    _row("dst_subreg", 52, 48, OPS_A1, "bytes"),
    _row("dst_reg", 60, 53, OPS_A1 + ("a16", "sends")),
    _row("dst_hstride", 62, 61, OPS_A1, "0/1/2/3 = <0>/<1>/<2>/<4>"),
    _row("dst_indirect", 63, 63, OPS_A1 + ("a16",)),
    _row("dst_addr_imm9", 47, 47, ("a1", "a1imm"), "indirect: address immediate bit 9 (sign)"),
    _row("src0_addr_imm9", 95, 95, ("a1", "a1imm"), "indirect: address immediate bit 9 (sign)"),
    _row("src1_addr_imm9", 121, 121, ("a1",), "indirect: address immediate bit 9 (sign)"),
    # indirect operands reuse the subreg/reg bits [iga64 bit flips]
    _row("dst_addr_imm", 56, 48, ("a1", "a1imm", "a1imm64"), "indirect: address immediate 8:0", alias=True),
    _row("dst_addr_subreg", 60, 57, ("a1", "a1imm", "a1imm64"), "indirect: a0 subregister", alias=True),
    _row("src0_addr_imm", 72, 64, ("a1", "a1imm"), "indirect: address immediate 8:0", alias=True),
    _row("src0_addr_subreg", 76, 73, ("a1", "a1imm"), "indirect: a0 subregister", alias=True),
    _row("src1_addr_imm", 104, 96, ("a1",), "indirect: address immediate 8:0", alias=True),
    _row("src1_addr_subreg", 108, 105, ("a1",), "indirect: a0 subregister", alias=True),
    # ---- Align16 two-source destination (Mesa) --------------------------------------------------
    _row("dst_writemask", 51, 48, ("a16",)),
    _row("dst_subreg16", 52, 52, ("a16",), "16-byte units"),

    # ---- Align1 source 0 ------------------------------------------------------------------------
    _row("src0_file", 42, 41, ("a1", "a1imm", "a1imm64", "a16", "branch", "send")),
    _row("src0_type", 46, 43, ("a1", "a1imm", "a1imm64", "a16", "branch", "send")),
    _row("src0_subreg", 68, 64, ("a1", "a1imm"), "bytes"),
    _row("src0_reg", 76, 69, ("a1", "a1imm", "a16", "send", "sends")),
    _row("src0_abs", 77, 77, ("a1", "a1imm", "a16")),
    _row("src0_neg", 78, 78, ("a1", "a1imm", "a16")),
    _row("src0_indirect", 79, 79, ("a1", "a1imm", "a16")),
    _row("src0_hstride", 81, 80, ("a1", "a1imm")),
    _row("src0_width", 84, 82, ("a1", "a1imm"), "log2 of 1..16"),
    _row("src0_vstride", 88, 85, ("a1", "a1imm", "a16"), "0 or log2(v)+1; 15 = VxH"),
    # ---- Align16 two-source source 0 (Mesa) -----------------------------------------------------
    _row("src0_swz_x", 65, 64, ("a16",)),
    _row("src0_swz_y", 67, 66, ("a16",)),
    _row("src0_subreg16", 68, 68, ("a16",)),
    _row("src0_swz_z", 81, 80, ("a16",)),
    _row("src0_swz_w", 83, 82, ("a16",)),

    # ---- Align1 source 1 ------------------------------------------------------------------------
    _row("src1_file", 90, 89, ("a1", "a1imm", "a16", "send")),
    _row("src1_type", 94, 91, ("a1", "a1imm", "a16", "send")),
    _row("src1_subreg", 100, 96, ("a1",), "bytes"),
    _row("src1_reg", 108, 101, ("a1", "a16")),
    _row("src1_abs", 109, 109, ("a1", "a16")),
    _row("src1_neg", 110, 110, ("a1", "a16")),
    _row("src1_indirect", 111, 111, ("a1", "a16")),
    _row("src1_hstride", 113, 112, ("a1",)),
    _row("src1_width", 116, 114, ("a1",)),
    _row("src1_vstride", 120, 117, ("a1", "a16")),
    _row("src1_swz_x", 97, 96, ("a16",)),
    _row("src1_swz_y", 99, 98, ("a16",)),
    _row("src1_subreg16", 100, 100, ("a16",)),
    _row("src1_swz_z", 113, 112, ("a16",)),
    _row("src1_swz_w", 115, 114, ("a16",)),

    # ---- immediates and branch offsets ----------------------------------------------------------
    _row("imm32", 127, 96, ("a1imm",), "last source immediate; 16-bit values are written twice"),
    _row("imm64", 127, 64, ("a1imm64",)),
    _row("uip", 95, 64, ("branch",), "signed bytes from this instruction"),
    _row("jip", 127, 96, ("branch",), "signed bytes from this instruction"),

    # ---- three-source Align16 -------------------------------------------------------------------
    _row("src2_type_hf", 35, 35, ("3src",), "1 = src2 is HF (mixed mode)"),
    _row("src1_type_hf", 36, 36, ("3src",), "1 = src1 is HF (mixed mode)"),
    _row("t3_src0_abs", 37, 37, ("3src",)),
    _row("t3_src0_neg", 38, 38, ("3src",)),
    _row("t3_src1_abs", 39, 39, ("3src",)),
    _row("t3_src1_neg", 40, 40, ("3src",)),
    _row("t3_src2_abs", 41, 41, ("3src",)),
    _row("t3_src2_neg", 42, 42, ("3src",)),
    _row("t3_src_type", 45, 43, ("3src",), "TYPE_3SRC"),
    _row("t3_dst_type", 48, 46, ("3src",), "TYPE_3SRC"),
    _row("t3_dst_writemask", 52, 49, ("3src",)),
    _row("t3_dst_subreg", 55, 53, ("3src",), "dwords"),
    _row("t3_dst_reg", 63, 56, ("3src",)),
    _row("t3_src0_rep", 64, 64, ("3src",)),
    _row("t3_src0_swizzle", 72, 65, ("3src",)),
    _row("t3_src0_subreg", 75, 73, ("3src",), "dwords"),
    _row("t3_src0_reg", 83, 76, ("3src",)),
    _row("t3_src0_subreg_lo", 84, 84, ("3src",), "half-dword bit of the subregister"),
    _row("t3_src1_rep", 85, 85, ("3src",)),
    _row("t3_src1_swizzle", 93, 86, ("3src",)),
    _row("t3_src1_subreg", 96, 94, ("3src",)),
    _row("t3_src1_reg", 104, 97, ("3src",)),
    _row("t3_src1_subreg_lo", 105, 105, ("3src",)),
    _row("t3_src2_rep", 106, 106, ("3src",)),
    _row("t3_src2_swizzle", 114, 107, ("3src",)),
    _row("t3_src2_subreg", 117, 115, ("3src",)),
    _row("t3_src2_reg", 125, 118, ("3src",)),
    _row("t3_src2_subreg_lo", 126, 126, ("3src",)),

    # ---- send / sends ---------------------------------------------------------------------------
    _row("desc", 126, 96, ("send", "sends"), "message descriptor: mlen 28:25, rlen 24:20, header 19"),
    _row("eot", 127, 127, ("send", "sends")),
    _row("sends_dst_file", 35, 35, ("sends",)),
    _row("sends_src1_file", 36, 36, ("sends",)),
    _row("sends_src1_reg", 51, 44, ("sends",)),
    _row("sends_exmlen", 67, 64, ("sends",), "ex_desc 9:6: src1 payload length"),

    # ---- compact two-source (Mesa brw_eu_compact.c, Gfx8 layout; checked with -Xautocompact) ----
    _row("c_debug", 7, 7, ("compact",)),
    _row("c_control_index", 12, 8, ("compact",)),
    _row("c_datatype_index", 17, 13, ("compact",)),
    _row("c_subreg_index", 22, 18, ("compact",)),
    _row("c_acc_wr_en", 23, 23, ("compact",)),
    _row("c_src0_index", 34, 30, ("compact",)),
    _row("c_src1_index", 39, 35, ("compact",), "or immediate bits 12:8"),
    _row("c_dst_reg", 47, 40, ("compact",)),
    _row("c_src0_reg", 55, 48, ("compact",)),
    _row("c_src1_reg", 63, 56, ("compact",), "or immediate bits 7:0"),
    # ---- compact three-source -------------------------------------------------------------------
    _row("c3_control_index", 9, 8, ("compact3",)),
    _row("c3_source_index", 11, 10, ("compact3",)),
    _row("c3_dst_reg", 18, 12, ("compact3",)),
    _row("c3_src0_rep", 28, 28, ("compact3",)),
    _row("c3_debug", 30, 30, ("compact3",)),
    _row("c3_saturate", 31, 31, ("compact3",)),
    _row("c3_src1_rep", 32, 32, ("compact3",)),
    _row("c3_src2_rep", 33, 33, ("compact3",)),
    _row("c3_src0_subreg", 36, 34, ("compact3",)),
    _row("c3_src1_subreg", 39, 37, ("compact3",)),
    _row("c3_src2_subreg", 42, 40, ("compact3",)),
    _row("c3_src0_reg", 49, 43, ("compact3",)),
    _row("c3_src1_reg", 56, 50, ("compact3",)),
    _row("c3_src2_reg", 63, 57, ("compact3",)),
]

BY_NAME: dict[str, Field] = {f.name: f for f in FIELDS}


@functools.lru_cache(maxsize=None)
def form_fields(form: str) -> tuple[tuple[str, int, int], ...]:
    """(name, hi, lo) for every field of a form, most significant first."""
    rows = [(f.name, *f.bits[form]) for f in FIELDS if form in f.bits and not f.alias]
    rows.sort(key=lambda r: -r[1])
    return tuple(rows)


# ---- compaction index tables: "which native bits" and the table contents -------------------------
# Each key lists native bit ranges, most significant first, concatenated to form the table value
# (Mesa brw_eu_compact.c set_*_index, Gfx8/9 branch).
COMPACT_KEYS: dict[str, tuple[tuple[int, int], ...]] = {
    "control": ((33, 31), (23, 12), (10, 9), (34, 34), (8, 8)),
    "datatype": ((63, 61), (94, 89), (46, 35)),
    "subreg": ((100, 96), (68, 64), (52, 48)),
    "subreg_imm": ((68, 64), (52, 48)),
    "src0": ((88, 77),),
    "src1": ((120, 109),),
    "3src_control": ((36, 35), (34, 32), (28, 8)),
    "3src_source": ((126, 125), (105, 104), (84, 84), (83, 83), (114, 107), (93, 86), (72, 65), (55, 37)),
}

# Table contents are facts from Mesa's gfx8 tables (shared by Gen9).
CONTROL_TABLE = [
    0b0000000000000000010, 0b0000100000000000000, 0b0000100000000000001, 0b0000100000000000010,
    0b0000100000000000011, 0b0000100000000000100, 0b0000100000000000101, 0b0000100000000000111,
    0b0000100000000001000, 0b0000100000000001001, 0b0000100000000001101, 0b0000110000000000000,
    0b0000110000000000001, 0b0000110000000000010, 0b0000110000000000011, 0b0000110000000000100,
    0b0000110000000000101, 0b0000110000000000111, 0b0000110000000001001, 0b0000110000000001101,
    0b0000110000000010000, 0b0000110000100000000, 0b0001000000000000000, 0b0001000000000000010,
    0b0001000000000000100, 0b0001000000100000000, 0b0010110000000000000, 0b0010110000000010000,
    0b0011000000000000000, 0b0011000000100000000, 0b0101000000000000000, 0b0101000000100000000,
]
DATATYPE_TABLE = [
    0b001000000000000000001, 0b001000000000001000000, 0b001000000000001000001, 0b001000000000011000001,
    0b001000000000101011101, 0b001000000010111011101, 0b001000000011101000001, 0b001000000011101000101,
    0b001000000011101011101, 0b001000001000001000001, 0b001000011000001000000, 0b001000011000001000001,
    0b001000101000101000101, 0b001000111000101000100, 0b001000111000101000101, 0b001011100011101011101,
    0b001011101011100011101, 0b001011101011101011100, 0b001011101011101011101, 0b001011111011101011100,
    0b000000000010000001100, 0b001000000000001011101, 0b001000000000101000101, 0b001000001000001000000,
    0b001000101000101000100, 0b001000111000100000100, 0b001001001001000001001, 0b001010111011101011101,
    0b001011111011101011101, 0b001001111001101001100, 0b001001001001001001000, 0b001001011001001001000,
]
SUBREG_TABLE = [
    0b000000000000000, 0b000000000000001, 0b000000000001000, 0b000000000001111,
    0b000000000010000, 0b000000010000000, 0b000000100000000, 0b000000110000000,
    0b000001000000000, 0b000001000010000, 0b000001010000000, 0b001000000000000,
    0b001000000000001, 0b001000010000001, 0b001000010000010, 0b001000010000011,
    0b001000010000100, 0b001000010000111, 0b001000010001000, 0b001000010001110,
    0b001000010001111, 0b001000110000000, 0b001000111101000, 0b010000000000000,
    0b010000110000000, 0b011000000000000, 0b011110010000111, 0b100000000000000,
    0b101000000000000, 0b110000000000000, 0b111000000000000, 0b111000000011100,
]
SRC_INDEX_TABLE = [
    0b000000000000, 0b000000000010, 0b000000010000, 0b000000010010,
    0b000000011000, 0b000000100000, 0b000000101000, 0b000001001000,
    0b000001010000, 0b000001110000, 0b000001111000, 0b001100000000,
    0b001100000010, 0b001100001000, 0b001100010000, 0b001100010010,
    0b001100100000, 0b001100101000, 0b001100111000, 0b001101000000,
    0b001101000010, 0b001101001000, 0b001101010000, 0b001101100000,
    0b001101101000, 0b001101110000, 0b001101110001, 0b001101111000,
    0b010001101000, 0b010001101001, 0b010001101010, 0b010110001000,
]
CONTROL_3SRC_TABLE = [
    0b00100000000110000000000001, 0b00000000000110000000000001,
    0b00000000001000000000000001, 0b00000000001000000000100001,
]
SOURCE_3SRC_TABLE = [
    0b0000001110010011100100111001000001111000000000000,
    0b0000001110010011100100111001000001111000000000010,
    0b0000001110010011100100111001000001111000000001000,
    0b0000001110010011100100111001000001111000000100000,
]

# ---- enums -------------------------------------------------------------------------------------
# opcode numbers: the opcode table (opcodes.py) owns them and every other fact about an opcode
OPCODES = {o.name: o.number for o in _opcodes.TABLE}
OPCODE_NAMES = {v: k for k, v in OPCODES.items()}

# Register-operand types and immediate types use different codes [IGA].
REG_TYPE = {"ud": 0, "d": 1, "uw": 2, "w": 3, "ub": 4, "b": 5, "df": 6, "f": 7, "uq": 8, "q": 9, "hf": 10}
IMM_TYPE = {"ud": 0, "d": 1, "uw": 2, "w": 3, "uv": 4, "vf": 5, "v": 6, "f": 7, "uq": 8, "q": 9,
            "df": 10, "hf": 11}
TYPE_3SRC = {"f": 0, "d": 1, "ud": 2, "df": 3, "hf": 4}
REG_FILE = {"arf": 0, "grf": 1, "imm": 3}

PRED_CTRL = {"": 1, "anyv": 2, "allv": 3, "any2h": 4, "all2h": 5, "any4h": 6, "all4h": 7,
             "any8h": 8, "all8h": 9, "any16h": 10, "all16h": 11, "any32h": 12, "all32h": 13}
COND_MOD = {"eq": 1, "ne": 2, "gt": 3, "ge": 4, "lt": 5, "le": 6, "ov": 8, "un": 9}
MATH_FC = _opcodes.MATH_FC
THREAD_CTRL = {"atomic": 1, "switch": 2}
HSTRIDE = {0: 0, 1: 1, 2: 2, 4: 3}            # element stride -> encoding
VSTRIDE = {0: 0, 1: 1, 2: 2, 4: 3, 8: 4, 16: 5, 32: 6}
VSTRIDE_VXH = 15                               # indirect Vx1 / VxH
WIDTH = {1: 0, 2: 1, 4: 2, 8: 3, 16: 4}
EXEC_SIZE = {1: 0, 2: 1, 4: 2, 8: 3, 16: 4, 32: 5}

# ARF register numbers as encoded in the reg field [IGA, PRM]
ARF = {"null": 0x00, "a0": 0x10, "acc0": 0x20, "acc1": 0x21, "f0": 0x30, "f1": 0x31, "ce": 0x40,
       "msg0": 0x50, "sp": 0x60, "sr0": 0x70, "cr0": 0x80, "n0": 0x90, "ip": 0xA0, "tdr0": 0xB0,
       "tm0": 0xC0}
ARF_NAMES = {v: k for k, v in ARF.items()}

# Shared function ids (IGA names)
SFID_NAMES = {0x0: "null", 0x2: "sampler", 0x3: "gateway", 0x4: "hdc.dc2", 0x5: "hdc.rc", 0x6: "hdc.urb",
              0x7: "spawner", 0x8: "vme", 0x9: "hdc.dcro", 0xA: "hdc.dc0", 0xB: "pixi", 0xC: "hdc.dc1",
              0xD: "cre"}

# Branch opcodes: which use the branch (JIP+UIP) form, which carry only a JIP in src1 (opcodes.py).
BRANCH_JIP_UIP = _opcodes.BRANCH_JIP_UIP
BRANCH_JIP_ONLY = _opcodes.BRANCH_JIP_ONLY
