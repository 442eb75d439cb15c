"""The decoded form of one Gen9 instruction: what the encoder consumes and the decoder produces.

Every other module of the ISA (binary encoding, IGA-syntax text, the simulator, the backend's instruction
selection) speaks this model, so that none of them depends on bit positions. Fields mirror the hardware's
instruction fields; names follow Intel's IGA syntax where one exists.
"""
from __future__ import annotations

from enum import Enum
from operator import attrgetter

from reconverge.isa.gen9.errors import IsaError
from reconverge.records import field, record


class RegFile(Enum):
    ARF = "arf"   # architecture registers: null, flags, accumulator, ip, ...
    GRF = "grf"   # r0..r127, 32 bytes each
    IMM = "imm"

    # members compare by identity: hashing them so too spares Enum's Python-level __hash__ (hash of the
    # name) on every dict or set lookup (the validator, encoder and simulator key tables by them)
    __hash__ = object.__hash__


_TYPE_SIZES = {"ud": 4, "d": 4, "uw": 2, "w": 2, "ub": 1, "b": 1, "f": 4, "hf": 2, "df": 8,
               "uq": 8, "q": 8, "v": 4, "uv": 4, "vf": 4}


class DataType(Enum):
    UD = "ud"; D = "d"; UW = "uw"; W = "w"; UB = "ub"; B = "b"
    F = "f"; HF = "hf"; DF = "df"; UQ = "uq"; Q = "q"
    V = "v"; UV = "uv"; VF = "vf"   # packed-vector immediates only

    size: int       # bytes of one element: a plain attribute of each member (the simulator, the backend and
    #                 the encoder ask it of nearly every operand; a property was 0.14 s of a 400-kernel compile)

    def __init__(self, value: str) -> None:
        self.size = _TYPE_SIZES[value]

    __hash__ = object.__hash__        # (as RegFile's)


VXH = -1


@record(slots=True)
class Region:
    """Align1 source region <vstride;width,hstride> (elements); for Align16 sources, swizzle is used.

    vstride == VXH (-1) is the indirect Vx1/VxH mode, written <width,hstride> (one a0 entry per row).
    """
    vstride: int = 8
    width: int = 8
    hstride: int = 1


@record(slots=True)
class Operand:
    """A destination or source operand.

    For GRF: reg (0..127) and subreg in *elements of type* (as IGA prints: r3.2:d = byte 8).
    For ARF: reg is the ARF number as encoded (null 0x00, a0 0x10, acc0 0x20, f0 0x30, f1 0x31, ip 0xA0 ...).
    For IMM: value holds the raw immediate bits (int), type says how to read them.
    """
    file: RegFile
    type: DataType
    reg: int = 0
    subreg: int = 0
    region: Region | None = None      # sources (Align1)
    hstride: int = 1                  # destinations (Align1): <1>, <2>, <4>
    abs: bool = False
    neg: bool = False
    value: int = 0                    # IMM only: raw bits
    swizzle: str = "xyzw"             # Align16 sources
    writemask: str = "xyzw"           # Align16 destinations
    rep_ctrl: bool = False            # Align16 three-source sources: replicate a scalar
    indirect: bool = False            # r[a0.<addr_subreg>, <addr_imm>]: register address from a0
    addr_subreg: int = 0              # a0 subregister (word units) holding the byte address
    addr_imm: int = 0                 # signed byte offset added to it (-512..511)

    @property
    def source_region(self) -> Region:
        """The region of a register source (which has one once parsed or decoded)."""
        if self.region is None:
            raise IsaError(f"{self.file.value} operand r{self.reg} has no region")
        return self.region


@record(slots=True)
class Predicate:
    flag_reg: int = 0          # f0 / f1
    flag_subreg: int = 0       # .0 / .1
    inverse: bool = False
    control: str = ""          # "" normal, "anyv", "allv", "any2h", "all2h", ... "any32h", "all32h"


@record(slots=True)
class Instruction:
    opcode: str                            # IGA mnemonic: "mov", "add", "if", "send", "math", ...
    exec_size: int = 8                     # 1, 2, 4, 8, 16, 32
    chan_offset: int = 0                   # M0, M4, M8, ... M28
    predicate: Predicate | None = None
    cond_mod: str | None = None            # "eq" "ne" "gt" "ge" "lt" "le" "ov" "un"
    flag_reg: int = 0                      # flag used by cond_mod (shares the predicate's field)
    flag_subreg: int = 0
    saturate: bool = False
    mask_ctrl_we_all: bool = False         # {NoMask} / (W)
    align16: bool = False
    dst: Operand | None = None
    srcs: list[Operand] = field(default_factory=list)
    # math function: "inv" "sqrt" "rsqt" "exp" "log" "sin" "cos" "pow" "fdiv" "idiv" "iqot" "irem"
    math_fc: str | None = None
    jip: int | None = None                 # branch offsets in bytes, relative as the hardware defines them
    uip: int | None = None
    branch_ctrl: bool = False              # else.b / goto.b
    sfid: int | None = None                # send: shared function id
    desc: int | None = None                # send: message descriptor (imm)
    ex_desc: int | None = None             # send: extended descriptor
    eot: bool = False
    no_dd_clr: bool = False
    no_dd_chk: bool = False
    thread_ctrl: str | None = None         # "atomic" "switch"
    acc_wr_en: bool = False
    debug: bool = False
    compacted: bool = False                # decoded from (or to be encoded as) the 64-bit compact form
    options: dict = field(default_factory=dict)  # anything else, keyed by IGA's option name

    # the fields an opcode requires, None only while an instruction is being built
    @property
    def destination(self) -> Operand:
        if self.dst is None:
            raise IsaError(f"{self.opcode}: the instruction has no destination")
        return self.dst

    @property
    def jip_bytes(self) -> int:
        if self.jip is None:
            raise IsaError(f"{self.opcode}: the branch has no JIP")
        return self.jip

    @property
    def uip_bytes(self) -> int:
        if self.uip is None:
            raise IsaError(f"{self.opcode}: the branch has no UIP")
        return self.uip


def instruction_size(inst: Instruction) -> int:
    """Bytes the instruction takes in the binary: 16 native, 8 compacted."""
    return 8 if inst.compacted else 16


_COMPACTED = attrgetter("compacted")


def layout(program: list[Instruction]) -> list[int]:
    """Byte address of each instruction; branch offsets (JIP/UIP) are differences of these. (Where every
    instruction is native, the usual, the addresses are made in C: the PRM check and Builder.program
    ask this of every kernel.)"""
    if not any(map(_COMPACTED, program)):
        return list(range(0, 16 * len(program), 16))
    addrs, a = [], 0
    for inst in program:
        addrs.append(a)
        a += instruction_size(inst)
    return addrs
