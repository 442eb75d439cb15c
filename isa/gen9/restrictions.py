"""The restrictions the encoded-code validator checks (isa/gen9/validate.py), one row per rule: a key,
the restriction in our words and where the Skylake PRM states it.

Why its own module: the rules are data a reader (and `reconverge disasm --validate`'s output, and the
tests that build one violating instruction per rule) looks up by key, apart from the code that checks
them. Volumes: Vol 2a "Command Reference: Instructions" (a page per instruction), Vol 2b enumerations,
Vol 2d "Command Reference: Structures" (instruction formats, the message descriptor), Vol 7
"3D-Media-GPGPU" (the EU ISA chapters: registers, regions, data types). Section titles are as Mesa's
brw_eu_validate.c quotes them; iga64's -Wregions/-Wtypes checker agrees where it checks the same rule
(tests/isa/test_gen9_validate.py).
"""
from __future__ import annotations

from reconverge.records import record


@record(frozen=True)
class Rule:
    key: str        # short name, used by tests and in messages
    what: str       # the restriction, in our words
    source: str     # PRM volume and section


RULES: dict[str, Rule] = {}


def _rule(key: str, what: str, source: str) -> Rule:
    RULES[key] = Rule(key, what, source)
    return RULES[key]


V2A, V2D, V7 = "SKL PRM Vol 2a", "SKL PRM Vol 2d", "SKL PRM Vol 7"
_REGIONS = f"{V7}, Register Region Restrictions"
_GENERAL_REGION = f"{_REGIONS}: General Restrictions on Regioning Parameters"
_ALIGNMENT = f"{_REGIONS}: Region Alignment Rules"
_OPERAND_TYPES = f"{_REGIONS}: General Restrictions Based on Operand Types"
_MIXED = f"{V7}, Special Restrictions for Handling Mixed Mode Float Operations"

# ---- the rules -----------------------------------------------------------------------------------
ENCODING = _rule("encoding", "every field holds a value Gen9 defines (opcode, register file and type, "
                   "region and execution size codes, predicate, condition and math function)",
                   f"{V2D}, EU instruction formats; Vol 2b enumerations")
GRF_RANGE = _rule("grf-range", "a register operand lies within r0..r127", f"{V7}, General Register File")
ARF_NUMBER = _rule("arf-number", "an architecture-register operand names a register Gen9 has",
                     f"{V7}, Architecture Register File (ARF registers table)")
SRC_NULL = _rule("src-null", "an ALU source is not the null register (null is a destination)",
                   f"{V7}, Null Register; Mesa brw_eu_validate.c sources_not_null")
WIDTH = _rule("region-width", "ExecSize must be greater than or equal to Width", _GENERAL_REGION)
ROWS = _rule("region-vstride", "if ExecSize = Width and HorzStride != 0, VertStride = Width * HorzStride",
               _GENERAL_REGION)
WIDTH1 = _rule("region-width1", "if Width = 1, HorzStride must be 0", _GENERAL_REGION)
SCALAR1 = _rule("region-exec1", "if ExecSize = Width = 1, VertStride and HorzStride must be 0", _GENERAL_REGION)
SCALAR = _rule("region-scalar", "if VertStride = HorzStride = 0, Width must be 1", _GENERAL_REGION)
ROW_CROSS = _rule("region-row-cross", "only VertStride may cross a GRF boundary: a row of Width elements "
                    "stays in one register", _GENERAL_REGION)
DST_HSTRIDE = _rule("dst-hstride", "a destination's HorzStride is not 0", _GENERAL_REGION)
SRC_SPAN = _rule("src-span", "a source spans at most two adjacent GRFs", _ALIGNMENT)
DST_SPAN = _rule("dst-span", "a destination spans at most two adjacent GRFs", _ALIGNMENT)
MATH_SPLIT = _rule("math-dst-split", "a MATH destination spanning two registers has its elements evenly "
                     "split between them", _ALIGNMENT)
EXEC_TYPE_SIZE = _rule("exec-type-size", "ExecSize * (largest operand type size) <= 64 bytes (SIMD16 of "
                         "64-bit operands is two SIMD8 instructions)", _OPERAND_TYPES)
PACKED_BYTE = _rule("packed-byte-dst", "only a raw MOV writes a packed byte destination", _OPERAND_TYPES)
DST_STRIDE = _rule("dst-stride-exec-type", "when the execution type is wider than the destination type, "
                     "dst stride * dst type size = execution type size", _OPERAND_TYPES)
DST_ALIGN = _rule("dst-align-exec-type", "when the execution type is wider than the destination type, the "
                    "destination subregister is aligned to the execution type (byte destinations: or one byte "
                    "past)", _OPERAND_TYPES)
BYTE_64 = _rule("byte-64bit", "no direct conversion between B/UB and a 64-bit type (DF, Q, UQ)",
                  f"{V2A}, MOV")
HF_64 = _rule("hf-64bit", "no direct conversion between HF and a 64-bit type (DF, Q, UQ)", f"{V2A}, MOV")
INT_HF = _rule("int-hf-dst", "a conversion between integer and HF writes a DWord-strided, DWord-aligned "
                 "destination", _OPERAND_TYPES)
F_HF = _rule("f-hf-dst", "a conversion to HF writes all even or all odd words (stride 2), unless it is an "
               "Align1 mixed-float instruction with an OWord-aligned packed destination", _OPERAND_TYPES)
MIXED_INDIRECT = _rule("mixed-indirect", "no indirect source when F and HF are mixed", _MIXED)
MIXED_F_SIMD = _rule("mixed-f-dst-simd8", "mixed F/HF with an F destination executes at most 8 channels",
                       _MIXED)
MIXED_HF_PACKED = _rule("mixed-packed-hf-dst", "mixed F/HF with a packed HF destination: the destination is "
                          "OWord aligned and at most 8 channels", _MIXED)
MIXED_MATH = _rule("mixed-math-hf-stride", "Align1 mixed-mode MATH reads HF inputs with a stride above 1",
                     _MIXED)
MIXED_ACC = _rule("mixed-acc", "mixed F/HF with an accumulator source and an HF destination: destination "
                    "stride 2 (and a packed one reads the accumulator at subregister 0)", _MIXED)
VECTOR_IMM = _rule("vector-imm-dst", "with a V/UV/VF immediate the destination is 16-byte aligned with a "
                     "stride of one word (V, UV) or one DWord (VF)", f"{V7}, Immediate (vector immediates)")
IMM_LAST = _rule("imm-last-source", "an immediate is only the last source", f"{V2D}, EU instruction "
                   "formats (the immediate takes the last source's bits 127:96)")
IMM64 = _rule("imm64-one-source", "a 64-bit immediate is the source of a one-source instruction",
                f"{V2D}, EU instruction formats (a 64-bit immediate takes bits 127:64)")
QW_ALIGN16 = _rule("qword-align16-exec", "an Align16 instruction with a QWord destination and a non-QWord "
                     "source executes at most 2 channels", f"{V7}, Special Requirements for Handling Double "
                     "Precision Data Types")
MUL_QWORD = _rule("mul-qword-source", "MUL takes no Q/UQ sources (D x D -> Q is the 64-bit product)",
                    f"{V2A}, MUL (source and destination types)")
MATH_TYPES = _rule("math-types", "MATH sources: F or HF for the float functions, D or UD for INT DIV; no "
                     "64-bit types", f"{V2A}, MATH / Extended Math Function (data types)")
MATH_IDIV_MOD = _rule("math-idiv-modifier", "INT DIV takes no source modifiers",
                        f"{V2A}, Extended Math Function")
MATH_IDIV_SIMD = _rule("math-idiv-simd8", "INT DIV executes at most 8 channels",
                         f"{V2A}, Extended Math Function")
SEND_SRC = _rule("send-src-grf", "a SEND payload (src0) is a directly addressed GRF", f"{V2A}, SEND")
SEND_EOT = _rule("send-eot-r112", "a SEND with EOT takes its payload from r112..r127", f"{V2A}, SEND (EOT)")
SEND_LEN = _rule("send-lengths", "message length 1..15, response length 0..16", f"{V2D}, "
                   "Message Descriptor")
SEND_R127 = _rule("send-r127-overlap", "r127 is not a return register when the payload and the response "
                    "overlap", f"{V2A}, SEND (restrictions)")
SENDS_SRC1 = _rule("sends-src1", "a split send's src1 is a GRF or null", f"{V2A}, SENDS")
SENDS_OVERLAP = _rule("sends-overlap", "a split send's two payloads do not overlap", f"{V2A}, SENDS")
JMPI = _rule("jmpi-scalar", "JMPI is scalar: ExecSize 1, NoMask", f"{V2A}, JMPI")
BRANCH_ALIGN = _rule("branch-offset-align", "JIP and UIP are byte offsets that are multiples of 8 "
                       "(instructions start on 8-byte boundaries)", f"{V2A}, IF/ELSE/ENDIF/WHILE/BREAK/CONT/"
                       "HALT/JMPI (JIP, UIP)")
BRANCH_TARGET = _rule("branch-target", "a branch lands on an instruction of the program",
                        f"{V2A}, branch instructions (JIP, UIP)")
BRANCH_DIRECTION = _rule("branch-direction", "IF, ELSE, ENDIF, BREAK, CONT and HALT jump forward with UIP "
                           "at or after JIP; WHILE jumps back", f"{V2A}, IF/ELSE/ENDIF/BREAK/CONT/HALT/WHILE")
CHANNELS = _rule("channel-group", "the channel group (QtrCtrl/NibCtrl) starts at a multiple of an ExecSize "
                   "of 8 or more and stays within 32 channels", f"{V2D}, EU instruction header (QtrCtrl, "
                   "NibCtrl)")
CMP_COND = _rule("cmp-cond-mod", "CMP and CMPN carry a conditional modifier", f"{V2A}, CMP/CMPN")
SATURATE = _rule("saturate", "saturate only on instructions that support it (not logic, bit, CMP, FRC, "
                   "ADDC)", f"{V2A}, per-instruction Saturate")
ENDS = _rule("program-end", "the last instruction ends the thread: a SEND with EOT", f"{V2A}, SEND (EOT); "
               f"{V7}, thread termination")
