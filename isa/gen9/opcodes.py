"""The Gen9 opcode table: every fact about an opcode that more than one module needs, in one place.

The encoder and decoder (encoding.py, layout.py, compaction.py), the assembler and disassembler, the
simulator (simulator.py, sim_alu.py) and the machine-IR verifier (backend/gen/mir_verify.py) read these
rows instead of keeping their own lists of names.  Field bit positions live in fields.py; this table
says what each opcode *is*.

Sources (facts only, nothing copied):
- numbers and mnemonics: Intel's Skylake PRM vol. 2a ("Command Reference: Instructions", the opcode
  encodings) and Mesa src/intel/compiler/brw_eu_defines.h (enum opcode, Gfx8/9 values); the mnemonic set
  is the one `iga64 -p=9 -Xlist-ops` prints;
- source and destination counts: Mesa brw_eu.c's opcode description table (nsrc/ndst) and the PRM's
  per-instruction syntax; `iga64 -p=9 -a` accepts exactly `srcs` sources in the generic form;
- operand classes (integer only, float only): the PRM vol. 2a "Restrictions" of each instruction (logic,
  shift, bit-field, carry/borrow, average and high-multiply operations take integers; the round,
  fraction, dot-product, plane/line, lrp and math-macro instructions floats).  Only classes the PRM
  states plainly are recorded; the others are ANY (mad and csel among them: the three-source type field
  has D and UD, and iga64 assembles them with integers);
- saturate and conditional modifier: what iga64 1.1.0 encodes.  It accepts `(sat)` and `(cc)` on every
  ALU instruction but silently drops them where the instruction has none (found by assembling each
  opcode with them; tests/isa/test_opcodes_iga.py repeats that check row by row);
- the negate modifier of the logic instructions is a bitwise NOT on Gen8+ (PRM vol. 2a, "Source
  Modifier"; Mesa brw_eu_validate.c);
- branch kinds: which branches carry JIP and UIP (the "branch" form) and which only a JIP
  (PRM vol. 2a per-instruction formats; Mesa brw_inst.h jip/uip accessors; checked with iga64).
"""
from __future__ import annotations

import enum

from reconverge.records import record

TYPE_CHECKING = False                   # not typing's: a compile's start-up does not import typing
if TYPE_CHECKING:
    from typing import Callable


class Operands(enum.Enum):
    """Which data types an instruction's sources take."""
    ANY = "any"          # integer or float (the result is converted to the destination type)
    INT = "int"          # integers only
    FLOAT = "float"      # floats only


class Branch(enum.Enum):
    NONE = "none"
    JIP_UIP = "jip_uip"    # if/else/break/cont/halt/goto/brc: the branch form with two offsets
    JIP_ONLY = "jip_only"  # endif/while/join/brd: one offset in the last source
    JMPI = "jmpi"          # scalar jump, an offset from the next instruction or a register
    CALL = "call"          # call/calla: return address in the destination, target in the last source
    RET = "ret"            # ret: the return address in src0


class Send(enum.Enum):
    NONE = "none"
    SEND = "send"      # send/sendc: one payload, descriptor immediate
    SPLIT = "split"    # sends/sendsc: two payloads (split send)


@record(frozen=True)
class Opcode:
    """One Gen9 opcode.  `srcs` counts register/immediate sources in the instruction's own form (math: the
    most any function takes, MATH_SOURCES has each one's); branch targets are not sources."""
    name: str
    number: int
    srcs: int
    dst: bool
    operands: Operands = Operands.ANY
    saturate: bool = True          # (sat) is encoded
    cond_mod: bool = True          # a conditional modifier is encoded (math uses the field for its function)
    three_src: bool = False        # the three-source Align16 form
    logic: bool = False            # the negate source modifier is a bitwise NOT
    branch: Branch = Branch.NONE
    send: Send = Send.NONE

    @property
    def alu(self) -> bool:
        """Computes a value from sources into a destination (not a branch, message or no-op)."""
        return self.dst and self.branch is Branch.NONE and self.send is Send.NONE and self.name != "wait"


def _alu(name: str, number: int, srcs: int, operands: Operands = Operands.ANY, *, sat: bool = True,
         cm: bool = True, logic: bool = False) -> Opcode:
    return Opcode(name, number, srcs, True, operands, sat, cm, srcs == 3, logic)


def _branch(name: str, number: int, kind: Branch, srcs: int = 0, dst: bool = False) -> Opcode:
    return Opcode(name, number, srcs, dst, Operands.ANY, False, False, branch=kind)


def _control(name: str, number: int, srcs: int = 0, dst: bool = False) -> Opcode:
    return Opcode(name, number, srcs, dst, Operands.ANY, False, False)


_I, _F = Operands.INT, Operands.FLOAT

TABLE: tuple[Opcode, ...] = (
    _control("illegal", 0x00),
    _alu("mov", 0x01, 1),
    _alu("sel", 0x02, 2),
    _alu("movi", 0x03, 1, _I, cm=False),
    _alu("not", 0x04, 1, _I, sat=False, logic=True),
    _alu("and", 0x05, 2, _I, sat=False, logic=True),
    _alu("or", 0x06, 2, _I, sat=False, logic=True),
    _alu("xor", 0x07, 2, _I, sat=False, logic=True),
    _alu("shr", 0x08, 2, _I),
    _alu("shl", 0x09, 2, _I),
    _alu("smov", 0x0A, 2, _I, sat=False, cm=False),
    _alu("asr", 0x0C, 2, _I),
    _alu("cmp", 0x10, 2, sat=False),
    _alu("cmpn", 0x11, 2, sat=False),
    _alu("csel", 0x12, 3),
    _alu("bfrev", 0x17, 1, _I, sat=False, cm=False),
    _alu("bfe", 0x18, 3, _I, sat=False, cm=False),
    _alu("bfi1", 0x19, 2, _I, sat=False, cm=False),
    _alu("bfi2", 0x1A, 3, _I, sat=False, cm=False),
    _branch("jmpi", 0x20, Branch.JMPI),
    _branch("brd", 0x21, Branch.JIP_ONLY),
    _branch("if", 0x22, Branch.JIP_UIP),
    _branch("brc", 0x23, Branch.JIP_UIP),
    _branch("else", 0x24, Branch.JIP_UIP),
    _branch("endif", 0x25, Branch.JIP_ONLY),
    _branch("while", 0x27, Branch.JIP_ONLY),
    _branch("break", 0x28, Branch.JIP_UIP),
    _branch("cont", 0x29, Branch.JIP_UIP),
    _branch("halt", 0x2A, Branch.JIP_UIP),
    _branch("calla", 0x2B, Branch.CALL, dst=True),
    _branch("call", 0x2C, Branch.CALL, dst=True),
    _branch("ret", 0x2D, Branch.RET, srcs=1),
    _branch("goto", 0x2E, Branch.JIP_UIP),
    _branch("join", 0x2F, Branch.JIP_ONLY),
    _control("wait", 0x30, srcs=1, dst=True),        # waits on a notification register (dst = src0)
    Opcode("send", 0x31, 1, True, saturate=False, cond_mod=False, send=Send.SEND),
    Opcode("sendc", 0x32, 1, True, saturate=False, cond_mod=False, send=Send.SEND),
    Opcode("sends", 0x33, 2, True, saturate=False, cond_mod=False, send=Send.SPLIT),
    Opcode("sendsc", 0x34, 2, True, saturate=False, cond_mod=False, send=Send.SPLIT),
    _alu("math", 0x38, 2, cm=False),
    _alu("add", 0x40, 2),
    _alu("mul", 0x41, 2),
    _alu("avg", 0x42, 2, _I),
    _alu("frc", 0x43, 1, _F, sat=False),
    _alu("rndu", 0x44, 1, _F),
    _alu("rndd", 0x45, 1, _F),
    _alu("rnde", 0x46, 1, _F),
    _alu("rndz", 0x47, 1, _F),
    _alu("mac", 0x48, 2),
    _alu("mach", 0x49, 2, _I, cm=False),
    _alu("lzd", 0x4A, 1, _I),
    _alu("fbh", 0x4B, 1, _I, sat=False, cm=False),
    _alu("fbl", 0x4C, 1, _I, sat=False, cm=False),
    _alu("cbit", 0x4D, 1, _I, sat=False, cm=False),
    _alu("addc", 0x4E, 2, _I, sat=False),
    _alu("subb", 0x4F, 2, _I),
    _alu("sad2", 0x50, 2, _I),
    _alu("sada2", 0x51, 2, _I),
    _alu("dp4", 0x54, 2, _F),
    _alu("dph", 0x55, 2, _F),
    _alu("dp3", 0x56, 2, _F),
    _alu("dp2", 0x57, 2, _F),
    _alu("line", 0x59, 2, _F),
    _alu("pln", 0x5A, 2, _F),
    _alu("mad", 0x5B, 3),
    _alu("lrp", 0x5C, 3, _F),
    _alu("madm", 0x5D, 3, _F),
    _control("nop", 0x7E),
)

OPCODES: dict[str, Opcode] = {o.name: o for o in TABLE}
BY_NUMBER: dict[int, Opcode] = {o.number: o for o in TABLE}

# Math functions (the FC in the conditional-modifier field) and how many sources each takes
# (PRM vol. 2a "math"; Mesa brw_eu_defines.h BRW_MATH_FUNCTION_*; iga64 accepts exactly these counts).
MATH_FC: dict[str, int] = {"inv": 1, "log": 2, "exp": 3, "sqt": 4, "rsqt": 5, "sin": 6, "cos": 7,
                           "fdiv": 9, "pow": 10, "idiv": 11, "iqot": 12, "irem": 13, "invm": 14, "rsqtm": 15}
MATH_SOURCES: dict[str, int] = {"inv": 1, "log": 1, "exp": 1, "sqt": 1, "rsqt": 1, "sin": 1, "cos": 1,
                                "fdiv": 2, "pow": 2, "idiv": 2, "iqot": 2, "irem": 2, "invm": 2, "rsqtm": 1}
MATH_INT = frozenset({"idiv", "iqot", "irem"})     # the integer-division functions; the others take floats


def lookup(name: str) -> Opcode | None:
    return OPCODES.get(name)


def num_srcs(name: str, math_fc: str | None = None) -> int:
    """Sources of an instruction in its generic form: a math function's own count, else the table's."""
    if name == "math" and math_fc in MATH_SOURCES:
        return MATH_SOURCES[str(math_fc)]
    o = OPCODES.get(name)
    return o.srcs if o is not None else 2


def names(pred: Callable[[Opcode], bool]) -> tuple[str, ...]:
    """The mnemonics of the rows for which pred(row) holds, in opcode order."""
    return tuple(o.name for o in TABLE if pred(o))


THREE_SRC = names(lambda o: o.three_src)
SEND = names(lambda o: o.send is Send.SEND)
SPLIT_SEND = names(lambda o: o.send is Send.SPLIT)
SENDS_ALL = SEND + SPLIT_SEND
BRANCH_JIP_UIP = names(lambda o: o.branch is Branch.JIP_UIP)
BRANCH_JIP_ONLY = names(lambda o: o.branch is Branch.JIP_ONLY)
BRANCHES = names(lambda o: o.branch is not Branch.NONE)
LOGIC = names(lambda o: o.logic)
INT_ONLY = names(lambda o: o.operands is Operands.INT)
FLOAT_ONLY = names(lambda o: o.operands is Operands.FLOAT)
NO_SATURATE = names(lambda o: o.alu and not o.saturate)
NO_COND_MOD = names(lambda o: o.alu and not o.cond_mod)
