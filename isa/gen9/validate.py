"""The encoded-code validator: the PRM's restrictions checked on every instruction of a Gen9 binary.

Over 600 lines: one check per family of PRM rules (regions, types, register spans, sends, branches) and
the dispatch that runs only an instruction's classes' checks; they share the operand and region helpers
here, which a split would only pass back and forth.

Why: the encoder writes whatever the model holds, and iga64 disassembles most illegal regions without a
word, so an operand that crosses three registers or a byte destination the hardware cannot write would
reach a GPU unnoticed. This is the role Mesa's brw_eu_validate.c plays for brw; the rules, each with its
PRM citation, are isa/gen9/restrictions.py (facts as the PRM states them; the code and wording are ours).
Every violation of every instruction is collected, not the first, each naming the instruction's index
and byte offset, its text and the rule.

    validate_binary(data)          decode a kernel's bytes (compacted or native), then check them
    validate_program(insts)        check a model program (assembler, builder or backend output)
    check_instruction(inst)        one instruction's (rule, detail) pairs

The region and type rules cover two-source-format Align1 instructions; three-source (Align16) ones get
the register-span rules. The instruction classes (branches, no saturate) are the opcode table's
(isa/gen9/opcodes.py); the classes below that are rules of this module, not opcode facts, stay here.
"""
from __future__ import annotations

from collections.abc import Callable, Iterator

from reconverge.records import record

from . import fields as F
from . import opcodes
from . import restrictions as R
from .disassembler import format_instruction
from .encoding import decode
from .errors import IsaError
from .layout import SEND_OPS, SENDS_OPS, THREE_SRC_OPS, instruction_length, native_form, peek
from .model import VXH, DataType, Instruction, Operand, RegFile, Region, instruction_size, layout
from .registers import ARF_ACC, ARF_NULL, GRF_SIZE, NUM_GRF
from .restrictions import RULES, Rule  # noqa: F401  (re-exported: the rules checked here)

T = DataType


@record(frozen=True)
class Violation:
    index: int              # instruction number in the program
    offset: int             # byte offset of the instruction
    text: str               # the instruction as disassembled
    rule: Rule
    detail: str = ""        # which operand, which values

    def __str__(self) -> str:
        detail = f" ({self.detail})" if self.detail else ""
        return (f"#{self.index} @{self.offset}: {self.text}: {self.rule.key}: {self.rule.what}{detail} "
                f"[{self.rule.source}]")


Problem = tuple[Rule, str]

# ---- instruction classes: the opcode table's, and this module's own groupings ---------------------------
BRANCHES = opcodes.BRANCHES
NO_SATURATE = opcodes.NO_SATURATE     # iga64 drops (sat) on these (tests/isa/test_opcodes_iga.py)
NO_OPERANDS = ("nop", "illegal", "wait")
INT_DIV = ("idiv", "iqot", "irem")
IMPLICIT_ACC = ("mac", "mach", "sada2")
FLOAT_TYPES = (T.F, T.HF, T.DF, T.VF)
VECTOR_IMM = (T.V, T.UV, T.VF)
WIDE = (T.DF, T.Q, T.UQ)
BYTES = (T.B, T.UB)
# ARF number's high nibble -> how many registers the bank has where that is certain (null; a0; acc0-1 and
# the madm accumulators acc2-9; f0-1), None where only the bank is checked; 0xF0 is IGA's dbg0.
_ARF_BANKS: dict[int, int | None] = {0x00: 1, 0x10: 1, 0x20: 10, 0x30: 2, 0x40: None, 0x50: None, 0x60: None,
                                     0x70: None, 0x80: None, 0x90: None, 0xA0: 1, 0xB0: None, 0xC0: None,
                                     0xF0: None}


# what no two-source-format (Align1 ALU) instruction is, as one set (asked of every instruction)
_NOT_ALU = frozenset(THREE_SRC_OPS + SEND_OPS + SENDS_OPS + BRANCHES + NO_OPERANDS)
_SENDS = frozenset(SEND_OPS + SENDS_OPS)
_BRANCH_SET = frozenset(BRANCHES)
_THREE_SRC_SET = frozenset(THREE_SRC_OPS)
_GRF, _ARF, _IMM = RegFile.GRF, RegFile.ARF, RegFile.IMM


def _alu(inst: Instruction) -> bool:
    """A two-source-format instruction with a destination and register regions (Align1)."""
    return inst.dst is not None and not inst.align16 and inst.opcode not in _NOT_ALU


def _is_null(o: Operand) -> bool:
    return o.file is _ARF and o.reg == ARF_NULL and not o.indirect


def _is_acc(o: Operand) -> bool:
    return o.file is _ARF and o.reg & 0xF0 == ARF_ACC


def _scalar(o: Operand) -> bool:
    r = o.region
    return r is not None and r.vstride == 0 and r.width == 1 and r.hstride == 0


def _exec_class(t: DataType) -> DataType:
    """The execution type a source type contributes (PRM Vol 7 "Execution Data Type")."""
    if t == T.VF:
        return T.F
    if t in (T.Q, T.UQ):
        return T.Q
    if t in (T.D, T.UD):
        return T.D
    if t in (T.W, T.UW, T.B, T.UB, T.V, T.UV):
        return T.W
    return t


def execution_type(inst: Instruction) -> DataType:
    """The execution data type: the sources' types widened, F when F and HF mix (Vol 7 "Execution Data
    Type"); a lone HF source executes in the destination's type."""
    dst = inst.destination.type
    kinds = [_EXEC_CLASS[s.type] for s in inst.srcs]
    if len(kinds) == 1:
        return dst if kinds[0] == T.HF else kinds[0]
    if T.F in kinds + [dst] and T.HF in kinds + [dst]:
        return T.F
    for wide in (T.Q, T.D, T.W, T.DF, T.F, T.HF):
        if wide in kinds:
            return wide
    return kinds[0]


_EXEC_CLASS = {t: _exec_class(t) for t in DataType}


def is_mixed_float(inst: Instruction) -> bool:
    """F and HF among the destination's and the sources' types."""
    d = inst.destination.type
    has_f, has_hf = d is T.F, d is T.HF
    for s in inst.srcs:
        if s.type is T.F:
            has_f = True
        elif s.type is T.HF:
            has_hf = True
    return has_f and has_hf


def _raw_move(inst: Instruction) -> bool:
    """A MOV that copies bits: same type (signedness aside), no saturate, no source modifier."""
    s, d = inst.srcs[0], inst.destination
    if s.file == RegFile.IMM and s.type in VECTOR_IMM:
        return False
    signless = {T.UD: T.D, T.UW: T.W, T.UB: T.B, T.UQ: T.Q}
    return (inst.opcode == "mov" and not inst.saturate and not s.abs and not s.neg
            and signless.get(s.type, s.type) == signless.get(d.type, d.type))


# ---- which bytes an operand touches -----------------------------------------------------------------
Bytes = tuple[int, int]      # first and last byte, counted over the whole register file
_SIZE = {t: t.size for t in DataType}


def source_rows(o: Operand, exec_size: int) -> list[Bytes]:
    """The bytes each row of an Align1 direct source region spans (a row: Width elements HorzStride
    apart; rows VertStride apart)."""
    r = o.source_region
    size = _SIZE[o.type]
    width = min(max(r.width, 1), exec_size)
    base = o.reg * GRF_SIZE + o.subreg * size
    reach = (width - 1) * r.hstride * size + size - 1
    return [(base + row * r.vstride * size, base + row * r.vstride * size + reach)
            for row in range(max(exec_size // width, 1))]


def source_span(o: Operand, exec_size: int) -> Bytes:
    """The first and last byte of source_rows (rows go up: VertStride is not negative outside VxH)."""
    r = o.source_region
    size = _SIZE[o.type]
    width = min(max(r.width, 1), exec_size)
    base = o.reg * GRF_SIZE + o.subreg * size
    last_row = (max(exec_size // width, 1) - 1) * r.vstride * size
    return base, base + last_row + (width - 1) * r.hstride * size + size - 1


def _row_crosses(o: Operand, exec_size: int) -> bool:
    """Whether a row of source_rows(o, exec_size) spans two registers (the rows, without the list)."""
    r = o.source_region
    size = o.type.size
    width = min(max(r.width, 1), exec_size)
    base = o.reg * GRF_SIZE + o.subreg * size
    reach = (width - 1) * r.hstride * size + size - 1
    if reach < GRF_SIZE and base % GRF_SIZE + reach < GRF_SIZE and r.vstride * size % GRF_SIZE == 0:
        return False                  # every row starts where the first does within its register
    step = r.vstride * size
    for row in range(max(exec_size // width, 1)):
        first = base + row * step
        if first // GRF_SIZE != (first + reach) // GRF_SIZE:
            return True
    return False


def destination_bytes(o: Operand, exec_size: int) -> Bytes:
    size = _SIZE[o.type]
    base = o.reg * GRF_SIZE + o.subreg * size
    return base, base + (exec_size - 1) * o.hstride * size + size - 1


def _regs(span: Bytes) -> tuple[int, int]:
    return span[0] // GRF_SIZE, span[1] // GRF_SIZE


# ---- per-instruction checks -----------------------------------------------------------------------
def check_instruction(inst: Instruction) -> list[Problem]:
    """Every restriction `inst` breaks, as (rule, detail); [] when it is legal on its own."""
    alu = _alu(inst)
    if alu and _plainly_legal(inst):
        return []
    return _every_check(inst, alu)


def _every_check(inst: Instruction, alu: bool) -> list[Problem]:
    """check_instruction without _plainly_legal's shortcut (`alu`: _alu(inst))."""
    out = _check_registers(inst, alu)
    out += _check_control(inst)
    op = inst.opcode
    # each check below finds nothing outside its class (its own first test): only the checks of the
    # instruction's classes run, in the same order (a backend validates every instruction it emits)
    if alu:                            # (each check's own first test, once)
        out += _regions(inst)
        out += _spans(inst)
        mixed = is_mixed_float(inst)
        out += _types(inst, mixed)
        if mixed:
            out += _mixed(inst)
    else:
        if op in _THREE_SRC_SET:
            out += _check_spans(inst)
        elif inst.align16:
            out += _check_types(inst)
    if inst.srcs:
        out += _check_immediates(inst)
    if op == "math":
        out += _check_math(inst)
    elif op in _SENDS:
        out += _check_send(inst)
    elif op in _BRANCH_SET:
        out += _check_branch(inst)
    return out


def _bare_branch_checks(inst: Instruction) -> list[Problem]:
    """_every_check of a branch with no destination, no source and no Align16 (what the backend emits:
    if, else, endif, while, break, cont, halt, jmpi): of its checks only the control and the branch rules
    can find anything there (no operand to check, not an ALU, three-source or Align16 instruction)."""
    return _check_control(inst) + _check_branch(inst)


# the bare branches the backend emits (with jmpi), and those of them whose UIP is checked too: _plain_branch
_PLAIN_BRANCHES = frozenset(("if", "else", "endif", "while", "break", "cont", "halt"))
_PLAIN_UIP = _PLAIN_BRANCHES & frozenset(F.BRANCH_JIP_UIP)


def _plain_branch(inst: Instruction, pc: int, starts: set[int]) -> bool:
    """True only where a bare branch (_bare_branch_checks' kind) at byte `pc` breaks no rule and each of
    its targets is an instruction's start (in `starts`: validate_program's target check); False says
    nothing. The control and branch rules and the targets of the backend's branches (jmpi, if, else,
    endif, while, break, cont, halt) in one pass, with no problem or target list made
    (tests/isa/test_gen9_validate_plain.py holds it to the checks)."""
    op, jip = inst.opcode, inst.jip
    if inst.saturate or jip is None or jip % 8:
        return False                              # (_check_control's saturate, _check_branch's alignment)
    if op == "jmpi":                              # (no channel rule; the JMPI rule; from the next instruction)
        return inst.exec_size == 1 and bool(inst.mask_ctrl_we_all) and pc + 16 + jip in starts
    if op not in _PLAIN_BRANCHES:
        return False
    n, m = inst.exec_size, inst.chan_offset
    if m + n > 32 or (n >= 8 and m % n):
        return False                              # (_check_control's channels)
    if op == "while":                             # (backward; no UIP)
        return jip <= 0 and pc + jip in starts
    if jip <= 0:
        return False                              # (the others jump forward)
    uip = inst.uip
    if op in _PLAIN_UIP and uip is not None and (uip % 8 or uip < jip or pc + uip not in starts):
        return False
    return pc + jip in starts


# The common ALU instruction (nine tenths of the backend's ALU code): dword or float operands only, direct
# GRF registers (or a null destination) and at most a last immediate, no math. _plainly_legal is a
# sufficient condition for check_instruction finding nothing, tested in one pass with no problem list
# made; anything it does not vouch for goes through every check (tests/isa/test_gen9_validate_plain.py
# holds the two to the same answers). For these types the type rules (_types) find nothing at ExecSize 16
# or less: execution type, destination and sources are all 4 bytes, none half-float, byte or 64-bit; a
# null destination has no region, span or stride to check.
_PLAIN_TYPES = frozenset((T.D, T.UD, T.F))
_CMPS = frozenset(("cmp", "cmpn"))


class _Shapes(dict[tuple[int, ...], int]):
    """A key's answer made by `rule` the first time it is asked (a table of the few keys a program uses)."""

    def __init__(self, rule: Callable[..., int]) -> None:
        super().__init__()
        self.rule = rule

    def __missing__(self, key: tuple[int, ...]) -> int:
        made = self[key] = self.rule(*key)
        return made


def _highest_source_register(v: int, w: int, h: int, n: int, subreg: int) -> int:
    """The highest register a dword source with region <v;w,h> at `subreg` (0..7) of it can start in for
    _regions, _row_crosses and _spans to find nothing at ExecSize n; -1 where no register will do (or the
    subregister is outside one register: every check decides)."""
    if (v < 0 or w < 1 or h < 0 or not 0 <= subreg < GRF_SIZE // 4
            or n < w or (n == w and h != 0 and v != w * h) or (w == 1 and h != 0)
            or (n == 1 and w == 1 and (v != 0 or h != 0)) or (v == 0 and h == 0 and w != 1)):
        return -1                                    # (_regions' rules)
    width = min(w, n)
    at = subreg * 4                                  # (the first byte's offset in its register)
    end = at + (max(n // width, 1) - 1) * v * 4 + (width - 1) * h * 4 + 3
    if end >= 2 * GRF_SIZE or _row_crosses(Operand(_GRF, T.D, 0, subreg, Region(v, w, h)), n):
        return -1                                    # (_spans: two registers at most; rows in one each)
    return NUM_GRF - 1 - end // GRF_SIZE             # (_spans: the last one a GRF)


def _highest_destination_register(n: int, h: int, subreg: int) -> int:
    """_highest_source_register's answer for a dword destination of stride h (_spans' destination)."""
    if h < 1 or not 0 <= subreg < GRF_SIZE // 4:
        return -1
    end = subreg * 4 + (n - 1) * h * 4 + 3
    return -1 if end >= 2 * GRF_SIZE else NUM_GRF - 1 - end // GRF_SIZE


# the channels _check_control finds nothing in: (ExecSize, channel offset); the highest register a
# destination by (ExecSize, HorzStride, subregister) and a source region by (VertStride, Width, HorzStride,
# ExecSize, subregister) can start in with nothing found (-1: none)
_PLAIN_CHANNELS = frozenset((n, m) for n in (1, 2, 4, 8, 16) for m in range(32)
                            if m + n <= 32 and not (n >= 8 and m % n))
_PLAIN_DESTINATIONS = _Shapes(_highest_destination_register)
_PLAIN_SOURCES = _Shapes(_highest_source_register)


def _plainly_legal(inst: Instruction) -> bool:
    """True only where check_instruction(inst) of an ALU instruction (_alu) is []; False says nothing."""
    op = inst.opcode
    n = inst.exec_size
    if op == "math" or (n, inst.chan_offset) not in _PLAIN_CHANNELS:
        return False                                        # (_check_control's channels)
    if (inst.saturate and op in NO_SATURATE) or (op in _CMPS and not inst.cond_mod):
        return False
    d = inst.dst
    if d is None or d.indirect or d.type not in _PLAIN_TYPES:
        return False
    if d.file is not _GRF:                                   # the null register (a compare's) has no span
        if d.file is not _ARF or d.reg != ARF_NULL:
            return False
    elif not 0 <= d.reg <= _PLAIN_DESTINATIONS[n, d.hstride, d.subreg]:
        return False                                         # (_spans' destination)
    srcs = inst.srcs
    count = len(srcs)
    if not 1 <= count <= 2:
        return False
    for i, s in enumerate(srcs):
        if s.type not in _PLAIN_TYPES or s.indirect:
            return False
        if s.file is _IMM:                                   # (_check_immediates: the last source only)
            if i != count - 1:
                return False
            continue
        if s.file is not _GRF:
            return False
        r = s.region
        if r is None:
            if not 0 <= s.reg < NUM_GRF or s.subreg < 0:
                return False
        elif not 0 <= s.reg <= _PLAIN_SOURCES[r.vstride, r.width, r.hstride, n, s.subreg]:
            return False                                     # (_regions, _row_crosses, _spans)
    return True


def _operands(inst: Instruction) -> Iterator[tuple[str, Operand]]:
    if inst.dst is not None:
        yield "dst", inst.dst
    for i, s in enumerate(inst.srcs):
        yield f"src{i}", s


def _check_registers(inst: Instruction, alu: bool | None = None) -> list[Problem]:
    """`alu`: _alu(inst), where the caller knows it."""
    out: list[Problem] = []
    dst = inst.dst
    ops = inst.srcs if dst is None else [dst, *inst.srcs]
    for k, o in enumerate(ops):                   # (an operand's name is spelled out only for a problem)
        if o.indirect:
            continue
        if o.file is _GRF:
            if o.reg >= NUM_GRF:
                out.append((R.GRF_RANGE, f"{_name(dst, k)} is r{o.reg}"))
        elif o.file is _ARF:
            bank = o.reg & 0xF0
            count = _ARF_BANKS.get(bank, 0)
            if bank not in _ARF_BANKS or (count is not None and o.reg & 0xF >= count):
                out.append((R.ARF_NUMBER, f"{_name(dst, k)} is ARF 0x{o.reg:02X}"))
    if (_alu(inst) if alu is None else alu) or inst.opcode in _THREE_SRC_SET:
        for i, s in enumerate(inst.srcs):
            if _is_null(s):
                out.append((R.SRC_NULL, f"src{i}"))
    return out


def _name(dst: Operand | None, k: int) -> str:
    """The name of operand k of [dst, *srcs] (of srcs alone when there is no destination)."""
    if dst is None:
        return f"src{k}"
    return "dst" if k == 0 else f"src{k - 1}"


def _check_control(inst: Instruction) -> list[Problem]:
    out: list[Problem] = []
    n, m = inst.exec_size, inst.chan_offset
    if inst.opcode not in ("jmpi", "nop", "illegal", "wait") and (m + n > 32 or (n >= 8 and m % n)):
        out.append((R.CHANNELS, f"({n}|M{m})"))
    if inst.opcode in ("cmp", "cmpn") and not inst.cond_mod:
        out.append((R.CMP_COND, ""))
    if inst.saturate and (inst.opcode in NO_SATURATE or inst.opcode in BRANCHES or inst.opcode in SEND_OPS + SENDS_OPS):
        out.append((R.SATURATE, inst.opcode))
    return out


def _check_regions(inst: Instruction) -> list[Problem]:
    """General Restrictions on Regioning Parameters, for every register source and the destination."""
    return _regions(inst) if _alu(inst) else []


def _regions(inst: Instruction) -> list[Problem]:
    """_check_regions of an ALU instruction."""
    out: list[Problem] = []
    n = inst.exec_size
    for i, s in enumerate(inst.srcs):
        r = s.region
        if s.file is _IMM or r is None or r.vstride == VXH:
            continue
        v, w, h = r.vstride, r.width, r.hstride
        if (n < w or (n == w and h != 0 and v != w * h) or (w == 1 and h != 0)
                or (n == 1 and w == 1 and (v != 0 or h != 0)) or (v == 0 and h == 0 and w != 1)):
            name = f"src{i} <{v};{w},{h}>"    # (spelled out only for a problem)
            if n < w:
                out.append((R.WIDTH, f"{name}, ExecSize {n}"))
            if n == w and h != 0 and v != w * h:
                out.append((R.ROWS, name))
            if w == 1 and h != 0:
                out.append((R.WIDTH1, name))
            if n == 1 and w == 1 and (v != 0 or h != 0):
                out.append((R.SCALAR1, name))
            if v == 0 and h == 0 and w != 1:
                out.append((R.SCALAR, name))
        if not s.indirect and _row_crosses(s, n):
            out.append((R.ROW_CROSS, f"src{i} <{v};{w},{h}>"))
    d = inst.destination
    if d.hstride == 0 and not _is_null(d):
        out.append((R.DST_HSTRIDE, "dst <0>"))
    return out


def _check_spans(inst: Instruction) -> list[Problem]:
    """Region Alignment Rules: no operand beyond two registers; MATH splits its destination evenly."""
    return _spans(inst, _alu(inst))


def _spans(inst: Instruction, alu: bool = True) -> list[Problem]:
    """_check_spans of an instruction that is (alu) or is not an ALU one."""
    out: list[Problem] = []
    n = inst.exec_size
    if alu:
        for i, s in enumerate(inst.srcs):
            r = s.region
            if s.file is _IMM or s.indirect or r is None or r.vstride == VXH:
                continue
            size = s.type.size                   # source_span, inline: asked of every source
            width = min(max(r.width, 1), n)
            start = s.reg * GRF_SIZE + s.subreg * size
            end = start + (max(n // width, 1) - 1) * r.vstride * size + (width - 1) * r.hstride * size + size - 1
            first, last = start // GRF_SIZE, end // GRF_SIZE
            if last - first + 1 > 2:
                out.append((R.SRC_SPAN, f"src{i} covers r{first}..r{last}"))
            if s.file is _GRF and last >= NUM_GRF > s.reg:
                out.append((R.GRF_RANGE, f"src{i} reaches r{last}"))
        d = inst.destination
        if not d.indirect and not _is_null(d):
            size = d.type.size                   # destination_bytes, inline: asked of every instruction
            start = d.reg * GRF_SIZE + d.subreg * size
            first, last = start // GRF_SIZE, (start + (n - 1) * d.hstride * size + size - 1) // GRF_SIZE
            if last - first + 1 > 2:
                out.append((R.DST_SPAN, f"dst covers r{first}..r{last}"))
            if d.file is _GRF and last >= NUM_GRF > d.reg:
                out.append((R.GRF_RANGE, f"dst reaches r{last}"))
            if inst.opcode == "math" and last == first + 1 and d.hstride:
                step = d.hstride * size
                low = min(n, -(-((first + 1) * GRF_SIZE - start) // step))   # channels starting in `first`
                if 2 * low != n:
                    out.append((R.MATH_SPLIT, f"{low} of {n} channels in r{first}"))
    elif inst.opcode in THREE_SRC_OPS and inst.dst is not None:     # Align16: packed operands
        for name, o in _operands(inst):
            count = 1 if o.rep_ctrl else n
            base = o.reg * GRF_SIZE + o.subreg * _SIZE[o.type]
            first, last = _regs((base, base + count * _SIZE[o.type] - 1))
            if last - first + 1 > 2:
                out.append((R.DST_SPAN if name == "dst" else R.SRC_SPAN, f"{name} covers r{first}..r{last}"))
            if last >= NUM_GRF > o.reg:
                out.append((R.GRF_RANGE, f"{name} reaches r{last}"))
    return out


def _check_types(inst: Instruction) -> list[Problem]:
    """General Restrictions Based on Operand Types, the MOV conversion limits, MUL's 64-bit sources and
    the Align16 QWord rule."""
    if not (_alu(inst) or (inst.align16 and inst.dst is not None and inst.opcode not in THREE_SRC_OPS)):
        return []
    return _types(inst)


def _types(inst: Instruction, mixed: bool | None = None) -> list[Problem]:
    """_check_types of an instruction it applies to (`mixed`: is_mixed_float(inst), where the caller knows it)."""
    out: list[Problem] = []
    n, d = inst.exec_size, inst.destination
    src_types = [s.type for s in inst.srcs]
    sizes = {t.size for t in src_types}
    largest = max(max(sizes, default=0), d.type.size)
    if n * largest > 64:
        out.append((R.EXEC_TYPE_SIZE, f"{n} x {largest} bytes"))
    if 8 in sizes or d.type in WIDE:                 # (the rules of 64-bit operands: sizes tell them apart)
        if inst.opcode == "mul" and any(t in (T.Q, T.UQ) for t in src_types):
            out.append((R.MUL_QWORD, ""))
        if (d.type in BYTES and any(t in WIDE for t in src_types)) or \
                (d.type in WIDE and any(t in BYTES for t in src_types)):
            out.append((R.BYTE_64, f"{'/'.join(t.value for t in src_types)} -> {d.type.value}"))
        if (d.type == T.HF and any(t in WIDE for t in src_types)) or (d.type in WIDE and T.HF in src_types):
            out.append((R.HF_64, f"{'/'.join(t.value for t in src_types)} -> {d.type.value}"))
    if inst.align16:
        if _SIZE[d.type] == 8 and any(_SIZE[t] != 8 for t in src_types) and n > 2:
            out.append((R.QW_ALIGN16, f"ExecSize {n}"))
        return out
    if n == 1 or _is_null(d) or d.indirect:
        return out
    stride, sub_bytes = d.hstride, d.subreg * _SIZE[d.type]
    if d.type in BYTES and stride == 1:
        if not _raw_move(inst):
            out.append((R.PACKED_BYTE, f"{inst.opcode} to :{d.type.value}<1>"))
        return out
    exec_size = _SIZE[execution_type(inst)]
    if mixed is None:
        mixed = is_mixed_float(inst)
    if d.type == T.HF or T.HF in src_types:
        int_hf = ((d.type == T.HF and any(t not in FLOAT_TYPES for t in src_types))
                  or (d.type not in FLOAT_TYPES and T.HF in src_types))
        if int_hf:
            if stride * _SIZE[d.type] != 4 or sub_bytes % 4:
                out.append((R.INT_HF, f"dst <{stride}> at byte {sub_bytes}"))
        elif d.type == T.HF and any(t != T.HF for t in src_types):
            if stride != 2 and not (mixed and stride == 1 and sub_bytes % 16 == 0):
                out.append((R.F_HF, f"dst <{stride}> at byte {sub_bytes}"))
    if not mixed and exec_size > _SIZE[d.type]:
        if not (d.type in BYTES and _raw_move(inst)) and stride * _SIZE[d.type] != exec_size:
            out.append((R.DST_STRIDE, f"dst :{d.type.value}<{stride}>, execution type {exec_size} bytes"))
        if sub_bytes % exec_size and not (d.type in BYTES and sub_bytes % exec_size == 1):
            out.append((R.DST_ALIGN, f"dst at byte {sub_bytes}, execution type {exec_size} bytes"))
    return out


def _check_mixed(inst: Instruction) -> list[Problem]:
    """Special Restrictions for Handling Mixed Mode Float Operations (Align1)."""
    if not _alu(inst) or not is_mixed_float(inst):
        return []
    return _mixed(inst)


def _mixed(inst: Instruction) -> list[Problem]:
    """_check_mixed of a mixed-float ALU instruction."""
    out: list[Problem] = []
    n, d = inst.exec_size, inst.destination
    if any(s.indirect for s in inst.srcs):
        out.append((R.MIXED_INDIRECT, ""))
    if d.type == T.F and n > 8:
        out.append((R.MIXED_F_SIMD, f"ExecSize {n}"))
    sub_bytes = d.subreg * _SIZE[d.type]
    if d.type == T.HF and d.hstride == 1 and (n > 8 or sub_bytes % 16):
        out.append((R.MIXED_HF_PACKED, f"ExecSize {n}, dst at byte {sub_bytes}"))
    if inst.opcode == "math":
        for i, s in enumerate(inst.srcs):
            if s.type == T.HF and s.file != RegFile.IMM and (s.region is None or s.region.hstride <= 1):
                out.append((R.MIXED_MATH, f"src{i}"))
    reads_acc = inst.opcode in IMPLICIT_ACC or any(_is_acc(s) for s in inst.srcs)
    if d.type == T.HF and reads_acc:
        if d.hstride != 2:
            out.append((R.MIXED_ACC, f"dst <{d.hstride}>"))
        for i, s in enumerate(inst.srcs):
            if d.hstride == 1 and _is_acc(s) and s.type in (T.F, T.HF) and s.subreg:
                out.append((R.MIXED_ACC, f"src{i} at acc subregister {s.subreg}"))
    return out


def _check_immediates(inst: Instruction) -> list[Problem]:
    out: list[Problem] = []
    imms = [i for i, s in enumerate(inst.srcs) if s.file is _IMM]
    if not imms or inst.opcode in _BRANCH_SET:
        return out
    last = len(inst.srcs) - 1
    for i in imms:
        if i != last or inst.opcode in THREE_SRC_OPS:
            out.append((R.IMM_LAST, f"src{i} of {len(inst.srcs)}"))
        if inst.srcs[i].type in WIDE and len(inst.srcs) != 1:
            out.append((R.IMM64, f"src{i}:{inst.srcs[i].type.value} of {len(inst.srcs)} sources"))
        t = inst.srcs[i].type
        if t in VECTOR_IMM and inst.dst is not None:
            d = inst.destination
            want = 4 if t == T.VF else 2
            if (d.subreg * _SIZE[d.type]) % 16 or d.hstride * _SIZE[d.type] != want:
                out.append((R.VECTOR_IMM, f":{t.value} into :{d.type.value}<{d.hstride}> at byte "
                                          f"{d.subreg * _SIZE[d.type]}"))
    return out


def _check_math(inst: Instruction) -> list[Problem]:
    if inst.opcode != "math":
        return []
    out: list[Problem] = []
    int_div = inst.math_fc in INT_DIV
    allowed = (T.D, T.UD) if int_div else (T.F, T.HF)
    for name, o in _operands(inst):
        if o.type not in allowed and not (name == "dst" and _is_null(o)):
            out.append((R.MATH_TYPES, f"{inst.math_fc} {name}:{o.type.value}"))
    if int_div:
        if any(s.abs or s.neg for s in inst.srcs):
            out.append((R.MATH_IDIV_MOD, ""))
        if inst.exec_size > 8:
            out.append((R.MATH_IDIV_SIMD, f"ExecSize {inst.exec_size}"))
    return out


def _check_send(inst: Instruction) -> list[Problem]:
    if inst.opcode not in SEND_OPS + SENDS_OPS:
        return []
    out: list[Problem] = []
    desc = inst.desc or 0
    mlen, rlen = desc >> 25 & 0xF, desc >> 20 & 0x1F
    src0, dst = inst.srcs[0], inst.destination
    if src0.file != RegFile.GRF or src0.indirect:
        out.append((R.SEND_SRC, f"src0 {src0.file.value}"))
    if not 1 <= mlen <= 15 or rlen > 16:
        out.append((R.SEND_LEN, f"mlen {mlen}, rlen {rlen}"))
    if src0.file == RegFile.GRF and src0.reg + mlen > NUM_GRF:
        out.append((R.GRF_RANGE, f"payload r{src0.reg} + {mlen}"))
    if dst.file == RegFile.GRF and dst.reg + rlen > NUM_GRF:
        out.append((R.GRF_RANGE, f"response r{dst.reg} + {rlen}"))
    if inst.eot and src0.reg < 112:
        out.append((R.SEND_EOT, f"src0 r{src0.reg}"))
    if inst.opcode in SENDS_OPS:
        src1 = inst.srcs[1]
        ex_mlen = (inst.ex_desc or 0) >> 6 & 0xF
        if src1.file != RegFile.GRF and not _is_null(src1):
            out.append((R.SENDS_SRC1, f"src1 ARF 0x{src1.reg:02X}"))
        if src1.file == RegFile.GRF:
            if inst.eot and src1.reg < 112:
                out.append((R.SEND_EOT, f"src1 r{src1.reg}"))
            if src0.reg <= src1.reg < src0.reg + mlen or src1.reg <= src0.reg < src1.reg + max(ex_mlen, 1):
                out.append((R.SENDS_OVERLAP, f"r{src0.reg}+{mlen} and r{src1.reg}+{ex_mlen}"))
    elif dst.file == RegFile.GRF and not _is_null(dst) and dst.reg + rlen > 127 and src0.reg + mlen > dst.reg:
        out.append((R.SEND_R127, f"response r{dst.reg}+{rlen}, payload r{src0.reg}+{mlen}"))
    return out


def _check_branch(inst: Instruction) -> list[Problem]:
    op = inst.opcode
    out: list[Problem] = []
    if op == "jmpi" and (inst.exec_size != 1 or not inst.mask_ctrl_we_all):
        out.append((R.JMPI, f"ExecSize {inst.exec_size}{'' if inst.mask_ctrl_we_all else ', not NoMask'}"))
    offsets = [("JIP", inst.jip), ("UIP", inst.uip if op in F.BRANCH_JIP_UIP else None)]
    for name, value in offsets:
        if value is not None and op in BRANCHES and value % 8:
            out.append((R.BRANCH_ALIGN, f"{name} {value}"))
    if op == "while" and inst.jip is not None and inst.jip > 0:
        out.append((R.BRANCH_DIRECTION, f"JIP {inst.jip}"))
    if op in ("if", "else", "endif", "break", "cont", "halt"):
        if inst.jip is not None and inst.jip <= 0:
            out.append((R.BRANCH_DIRECTION, f"JIP {inst.jip}"))
        if op != "endif" and inst.uip is not None and inst.jip is not None and inst.uip < inst.jip:
            out.append((R.BRANCH_DIRECTION, f"UIP {inst.uip} before JIP {inst.jip}"))
    return out


# ---- raw fields the model does not keep ---------------------------------------------------------------
_USED_SOURCES = {"a1": 2, "a1imm": 2, "a1imm64": 1, "a16": 2}


def check_encoding(word: bytes) -> list[Problem]:
    """Field values that decode() reads leniently or cannot represent (a 16-byte native word)."""
    w = int.from_bytes(word, "little")
    form = native_form(word)
    out: list[Problem] = []

    def bad(field: str, value: int) -> None:
        out.append((R.ENCODING, f"{field} = {value}"))

    op = F.OPCODE_NAMES.get(peek(w, "opcode", form))
    if peek(w, "exec_size", form) > 5:
        bad("exec_size", peek(w, "exec_size", form))
    if peek(w, "pred_ctrl", form) > 13:
        bad("pred_ctrl", peek(w, "pred_ctrl", form))
    if form in F.BY_NAME["cond_mod"].bits:
        cm = peek(w, "cond_mod", form)
        if op == "math" and cm not in F.MATH_FC.values():
            bad("math function", cm)
        elif op != "math" and cm and cm not in F.COND_MOD.values():
            bad("cond_mod", cm)
    if form not in _USED_SOURCES or op in BRANCHES or op in NO_OPERANDS:
        return out
    operands = ["dst", *(f"src{i}" for i in range(_sources(op, form, w)))]
    for p in operands:
        file = peek(w, f"{p}_file", form)
        if file == 2:
            bad(f"{p}_file", file)
        table = F.IMM_TYPE if file == 3 else F.REG_TYPE
        if peek(w, f"{p}_type", form) not in table.values():
            bad(f"{p}_type", peek(w, f"{p}_type", form))
        if file == 3 and p != operands[-1]:
            out.append((R.IMM_LAST, f"{p} of {len(operands) - 1}"))
        if p != "dst" and file != 3 and form != "a16" and f"{p}_width" in _form_fields(form):
            if peek(w, f"{p}_width", form) > 4:
                bad(f"{p}_width", peek(w, f"{p}_width", form))
            vs = peek(w, f"{p}_vstride", form)
            if vs > 6 and vs != F.VSTRIDE_VXH:
                bad(f"{p}_vstride", vs)
    return out


def _form_fields(form: str) -> set[str]:
    return {name for name, _, _ in F.form_fields(form)}


def _sources(op: str | None, form: str, w: int) -> int:
    if op == "math":
        return 1 if peek(w, "cond_mod", form) in (1, 2, 3, 4, 5, 6, 7, 14, 15) else 2
    one = ("mov", "not", "frc", "rndd", "rnde", "rndz", "rndu", "lzd", "bfrev", "cbit", "fbh", "fbl", "movi")
    return 1 if op in one else min(2, _USED_SOURCES[form])


# ---- programs ------------------------------------------------------------------------------------
def _text(inst: Instruction, pc: int) -> str:
    try:
        return " ".join(format_instruction(inst, pc).split())
    except (IsaError, KeyError, ValueError, TypeError):
        return inst.opcode


_JIP_UIP = frozenset(F.BRANCH_JIP_UIP)
_JIP = frozenset(F.BRANCH_JIP_UIP + F.BRANCH_JIP_ONLY)


def _targets(inst: Instruction, pc: int) -> list[tuple[str, int]]:
    op = inst.opcode
    if op == "jmpi":
        return [("JIP", pc + 16 + inst.jip)] if inst.jip is not None else []
    out: list[tuple[str, int]] = []
    if op not in _JIP:                           # (not a branch: asked of every instruction)
        return out
    if inst.jip is not None:
        out.append(("JIP", pc + inst.jip))
    if op in _JIP_UIP and inst.uip is not None:
        out.append(("UIP", pc + inst.uip))
    return out


def validate_program(insts: list[Instruction], offsets: list[int] | None = None,
                     kernel: bool = True) -> list[Violation]:
    """Every violation in a program (model instructions at `offsets`, by default laid out from 0).
    `kernel`: also require the program to end its thread (a whole kernel, not a fragment)."""
    if offsets is None:
        offsets = layout(insts)
    end = offsets[-1] + instruction_size(insts[-1]) if insts else 0
    starts = set(offsets)
    out: list[Violation] = []
    for index, (inst, pc) in enumerate(zip(insts, offsets)):
        # check_instruction, inline: a plainly legal ALU instruction (no branch) has nothing to report
        alu = inst.dst is not None and not inst.align16 and inst.opcode not in _NOT_ALU     # (_alu)
        if alu and _plainly_legal(inst):
            continue
        if inst.dst is None and not inst.srcs and not inst.align16 and inst.opcode in _BRANCH_SET:
            if _plain_branch(inst, pc, starts):
                continue                            # (nothing to report: its checks and its targets)
            problems = _bare_branch_checks(inst)    # (a fifth of the backend's code: if, endif, break ...)
        else:
            problems = _every_check(inst, alu)
        if inst.opcode in _BRANCH_SET:
            for name, target in _targets(inst, pc):
                if target not in starts:
                    problems.append((R.BRANCH_TARGET, f"{name} -> byte {target} of {end}"))
        if problems:
            out += [Violation(index, pc, _text(inst, pc), rule, detail) for rule, detail in problems]
    if kernel and insts and not (insts[-1].opcode in SEND_OPS + SENDS_OPS and insts[-1].eot):
        out.append(Violation(len(insts) - 1, offsets[-1], _text(insts[-1], offsets[-1]), R.ENDS, ""))
    return out


def validate_binary(data: bytes, kernel: bool = True) -> list[Violation]:
    """Every violation in a binary kernel (compacted and native instructions mixed). An instruction that
    does not decode is reported as an `encoding` violation and the walk stops there (its length is known,
    but not whether what follows is code)."""
    insts: list[Instruction] = []
    offsets: list[int] = []
    raw: list[Violation] = []
    pc = 0
    while pc < len(data):
        n = instruction_length(data, pc)
        problems: list[Problem] = []
        chunk = data[pc:pc + n]
        if len(chunk) < n:
            raw.append(Violation(len(insts), pc, "(truncated)", R.ENCODING, f"{len(chunk)} of {n} bytes"))
            break
        try:
            problems = check_encoding(chunk if n == 16 else _expanded(chunk))
            inst = decode(chunk)
        except (IsaError, KeyError, ValueError) as e:
            known = [Violation(len(insts), pc, f"({chunk.hex()})", rule, detail) for rule, detail in problems]
            raw += known or [Violation(len(insts), pc, f"({chunk.hex()})", R.ENCODING, f"does not decode: {e}")]
            break
        raw += [Violation(len(insts), pc, _text(inst, pc), rule, detail) for rule, detail in problems]
        insts.append(inst)
        offsets.append(pc)
        pc += n
    found = validate_program(insts, offsets, kernel) if insts else []
    return sorted(raw + found, key=lambda v: (v.index, v.offset))


def _expanded(chunk: bytes) -> bytes:
    from .compaction import expand_compact
    return expand_compact(chunk)


def report(violations: list[Violation]) -> str:
    """One line per violation, in program order."""
    return "".join(f"{v}\n" for v in violations)
