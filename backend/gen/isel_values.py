"""Value selection: one IR instruction at a time -> machine IR, through a table of
(opcode, type guard) -> handler.

The dispatch idiom: `RULES` lists rows `Rule(opcodes, guard, handler)`; an instruction goes to the
first row (in table order) that names its opcode and whose guard accepts it, and an instruction no
row accepts is a one-line CompileError naming it, so nothing is compiled wrongly in silence. A row's
guard is what decides between the ways one IR opcode is done on Gen9 (`mul` on i32 is one mul, on
i64 an expansion in isel_int64.py; `trunc` to i1, to i8/i16 and to i32 are three rows). SPIR-V's
selector (backend/spirv/isel.py) dispatches on the opcode alone, to an `_op_<name>` method, because
one SPIR-V instruction serves every width there; the Gen table is that same opcode dispatch with the
type test made a column, so that each row says which types it covers.

Values: i1 as 0/-1 dwords, 8/16-bit integers as zero-extended dwords, 32/64-bit integers, f16 (as
the f32 it equals, rounded after every rounding operation), f32, f64. Memory goes to
isel_memory.py, 64-bit expansions to isel_int64.py; control flow is not here (the drivers,
isel_structured.py and isel_blockip.py, own a ValueSelector and hand it each block's instructions).
"""
from __future__ import annotations

import math
import struct
from collections.abc import Callable

from reconverge.isa.gen9.model import DataType, Region
from reconverge.isa.gen9.payload import CROSS_THREAD_GRF, GLOBAL_OFFSET, LOCAL_ID_GRF, LOCAL_SIZE, NUM_GROUPS, WORK_DIM
from reconverge.lowering.ir.core import Const, Instr, Value
from reconverge.records import record

from . import isel_int64 as int64
from . import isel_memory as memory
from . import isel_subgroup as subgroup
from .isel_context import (
    FCMP_MODS,
    SCALAR,
    SelectionContext,
    gen_type,
    half_view,
    high_dword,
    low_dword,
    negated,
    one_cmp,
    retyped,
)
from .isel_narrow import low_dword_values, select_narrow
from .mir import Imm, MInstr, Operand, PReg

TYPE_CHECKING = False                   # not typing's: a compile's start-up does not import typing
if TYPE_CHECKING:
    from typing import Any

T = DataType
INT_OPS = {"add": "add", "sub": "add", "mul": "mul", "and": "and", "or": "or", "xor": "xor", "shl": "shl",
           "lshr": "shr", "ashr": "asr"}
FLOAT_OPS = {"fadd": "add", "fsub": "add", "fmul": "mul"}
CASTS = ("zext", "sext", "trunc", "sitofp", "uitofp", "fptosi", "fptoui", "freeze")
GROUP_ID_SUBREG = (1, 6, 7)                          # r0.1 / r0.6 / r0.7
MATH_BOX = {"sqrt": "sqt", "rsqrt": "rsqt", "exp2": "exp", "log2": "log", "sin": "sin", "cos": "cos", "pow": "pow"}
UNORDERED_OPPOSITE = {"ueq": "one", "ugt": "ole", "uge": "olt", "ult": "oge", "ule": "ogt", "uno": "ord"}
ROUNDED_IN_HALF = ("fadd", "fsub", "fmul", "fdiv", "fmuladd", "math", "fptrunc", "sitofp", "uitofp")
ROUNDING = {"floor": "rndd", "trunc": "rndz", "rint": "rnde"}

Handler = Callable[[SelectionContext, Instr], None]
Guard = Callable[[SelectionContext, Instr], bool]


@record(frozen=True)
class Rule:
    opcodes: tuple[str, ...]
    guard: Guard
    handler: Handler


class ValueSelector:
    """Selects the instructions of one function into its SelectionContext, row by row of RULES."""

    def __init__(self, cx: SelectionContext, readers: dict[Value, list[Instr]] | None = None):
        """`readers`: each instruction's readers (divergence.Divergence.users), where the driver has them."""
        self.cx = cx
        cx.narrowed = low_dword_values(cx.func, cx.provenance, cx.layout.flat, cx.instrs, readers)
        self.rows = _rows()

    def select(self, ins: Instr) -> None:
        """Select one instruction. A half-precision result is computed in f32 and rounded to f16 after
        every operation that rounds: f32 has 24 >= 2 * 11 + 2 significand bits, so +, -, *, / and sqrt
        done in f32 and rounded again are correctly rounded f16 operations (Figueroa, "When is double
        rounding innocuous?", SIGNUM 1995); an f16 value lives in a register as the f32 it equals."""
        cx = self.cx
        if ins in cx.select_conds:
            cx.deferred.add(ins)                        # selected into the select's flag (condition_flag)
            return
        if ins in cx.narrowed and ins.opcode != "workitem":
            select_narrow(cx, ins)
            return
        for rule in self.rows.get(ins.opcode, ()):
            guard = rule.guard
            if guard is _always or guard(cx, ins):      # (_always's answer without its call)
                rule.handler(cx, ins)
                break
        else:
            raise cx.error(ins, f"{ins.opcode} on {ins.type} is not selected yet")
        t = ins.type
        if t.bits == 16 and t.kind == "float" and ins.opcode in ROUNDED_IN_HALF:
            cx.values[ins] = _round_to_half(cx, cx.values[ins])


# ----- helpers of the handlers
def _round_to_half(cx: SelectionContext, x: Operand) -> Operand:
    """x (an f32) rounded to the nearest f16, as an f32: through an :hf view with a stride of 2."""
    x = cx.register(x)
    half, out = cx.fresh(T.UD), cx.fresh(T.F)
    cx.emit("mov", half_view(half), x)
    cx.emit("mov", out, half_view(half))
    return out


def _bool_as_one(cx: SelectionContext, src: Operand) -> Operand:
    """An i1's 0 / -1 dword as the unsigned number it means, 0 / 1 (zext and uitofp read it so)."""
    if isinstance(src.value, Imm):
        return Operand(Imm(int(src.value.value) & 1, T.D))
    one = cx.fresh(T.D)
    cx.emit("and", one, src, Operand(Imm(1, T.D)))
    return one


def _result(cx: SelectionContext, ins: Instr, opcode: str, t: DataType, *srcs: Operand, **kw: Any) -> None:
    """ins = one instruction `opcode` on `srcs` into a fresh value of type t."""
    dst = cx.fresh(t)
    cx.emit(opcode, dst, *srcs, **kw)
    cx.values[ins] = dst


def _math(cx: SelectionContext, fc: str, *srcs: Operand) -> Operand:
    """One math-box function on floats (sources in registers, as the math box wants them)."""
    ops = [cx.register(x) for x in srcs]
    dst = cx.fresh(T.F)
    cx.block.append(MInstr("math", cx.simd, dst, ops, math_fc=fc))
    return dst


# ----- handlers: integers
def integer(cx: SelectionContext, ins: Instr) -> None:
    op = ins.opcode
    signed = op != "lshr"
    t = gen_type(ins.type, signed)
    x, y = ins.operands                 # (two calls, not a generator unpacked: most instructions)
    a, b = cx.operand(x, signed), cx.operand(y, signed)
    if op == "sub":
        b = negated(b)
    if op == "mul" and t.size == 8:
        cx.values[ins] = int64.narrow_mul64(cx, ins) or int64.mul64(cx, a, b)
        return
    dst = cx.fresh(t)                   # (_result, inline: the commonest handler)
    cx.emit(INT_OPS[op], dst, a, b)
    cx.values[ins] = dst


def int_min_max(cx: SelectionContext, ins: Instr) -> None:
    signed = ins.opcode[0] == "s"
    x, y = ins.operands                 # (two calls, not a generator unpacked: most instructions)
    a, b = cx.operand(x, signed), cx.operand(y, signed)
    if isinstance(a.value, Imm):
        a, b = b, a
    _result(cx, ins, "sel", gen_type(ins.type, signed), a, b,
            cond_mod="lt" if ins.opcode.endswith("min") else "ge", flag=(0, 1))


def int_min_max64(cx: SelectionContext, ins: Instr) -> None:
    """64-bit min and max: a cmp into the flag and a predicated sel (the form 64-bit selects take), as the
    sel with a conditional modifier above is for dwords."""
    signed = ins.opcode[0] == "s"
    x, y = ins.operands
    cx.cmp_flag("lt" if ins.opcode.endswith("min") else "gt", x, y, signed, (0, 1))
    a, b = cx.operand(x, signed), cx.operand(y, signed)
    _result(cx, ins, "sel", gen_type(ins.type, signed), cx.register(a), b, predicate=(0, 1, False))


def int_abs(cx: SelectionContext, ins: Instr) -> None:
    src = cx.operand(ins.operands[0])             # (abs) of INT_MIN wraps to INT_MIN, as abs does
    dst = cx.fresh(gen_type(ins.type))
    cx.emit("mov", dst, cx.absolute(src))
    cx.values[ins] = dst


def mulhi32(cx: SelectionContext, ins: Instr) -> None:
    signed = ins.opcode == "mulhi_s"
    x, y = ins.operands                 # (two calls, not a generator unpacked: most instructions)
    a, b = cx.operand(x, signed), cx.operand(y, signed)
    if isinstance(a.value, Imm):
        a, b = b, a
    wide, dst = cx.fresh(T.Q if signed else T.UQ), cx.fresh(T.D if signed else T.UD)
    cx.emit("mul", wide, cx.register(a), b)
    cx.emit("mov", dst, high_dword(wide))
    cx.values[ins] = dst


def mulhi64(cx: SelectionContext, ins: Instr) -> None:
    cx.values[ins] = int64.mulhi64(cx, ins.opcode == "mulhi_s", *(cx.operand(x) for x in ins.operands))


def divide32(cx: SelectionContext, ins: Instr) -> None:
    signed = ins.opcode[0] == "s"
    x, y = ins.operands                 # (two calls, not a generator unpacked: most instructions)
    a, b = cx.operand(x, signed), cx.operand(y, signed)
    a, b = cx.register(a), cx.register(b)
    _result(cx, ins, "math", gen_type(ins.type, signed), a, b,
            math_fc="iqot" if ins.opcode.endswith("div") else "irem")


def divide64(cx: SelectionContext, ins: Instr) -> None:
    op = ins.opcode
    cx.values[ins] = int64.divide64(cx, op, *(cx.operand(x, op[0] == "s") for x in ins.operands))


def bit_count(cx: SelectionContext, ins: Instr) -> None:
    """cbit, lzd, fbl and bfrev (PRM vol. 7): popcount, clz (lzd(0) = 32 as clz wants), ctz as
    fbl with fbl(0) = -1 turned into 32, bitreverse."""
    op = ins.opcode
    src = cx.register(cx.operand(ins.operands[0], False))
    dst = cx.fresh(T.UD)
    if op == "ctz":
        low = cx.fresh(T.UD)
        cx.emit("fbl", low, src)
        cx.emit("cmp", None, src, Operand(Imm(0, T.UD)), cond_mod="eq", flag=(0, 0))
        cx.emit("sel", dst, Operand(Imm(32, T.UD)), low, predicate=(0, 0, False))
    else:
        cx.emit({"popcount": "cbit", "clz": "lzd", "bitreverse": "bfrev"}[op], dst, src)
    cx.values[ins] = dst


def ptradd(cx: SelectionContext, ins: Instr) -> None:
    _result(cx, ins, "add", gen_type(ins.type), *(cx.operand(x) for x in ins.operands))


# ----- handlers: conversions
def bool_extend(cx: SelectionContext, ins: Instr) -> None:
    dst = cx.fresh(gen_type(ins.type))
    src = cx.operand(ins.operands[0])           # 0 / -1: sext is a copy, zext keeps one bit
    if ins.opcode == "zext":
        cx.emit("and", dst, src, Operand(Imm(1, T.D)))
    else:
        cx.emit("mov", dst, src)
    cx.values[ins] = dst


def trunc_to_bool(cx: SelectionContext, ins: Instr) -> None:
    low = cx.fresh(T.D)                           # bit 0, then 0 / -1 as a bool lives
    src = cx.register(low_dword(cx.operand(ins.operands[0], False)))
    cx.emit("and", low, src, Operand(Imm(1, T.D)))
    dst = cx.fresh(T.D)
    cx.emit("mov", dst, negated(low))
    cx.values[ins] = dst


def cast(cx: SelectionContext, ins: Instr) -> None:
    op = ins.opcode
    signed = op in ("sext", "sitofp", "fptosi", "trunc", "freeze")
    src = cx.operand(ins.operands[0], signed)
    dst = cx.fresh(gen_type(ins.type, op != "fptoui"))
    if op == "uitofp" and ins.operands[0].type.bits == 1:
        src = _bool_as_one(cx, src)              # true is 1.0 unsigned (-1.0 is sitofp's)
    if op == "trunc":
        if ins.operands[0] in cx.narrowed and src.type.size == 4:   # computed as the dword it is truncated to
            cx.values[ins] = retyped(src, dst.type)                   # (a payload word, a local id, is copied)
            return
        src = low_dword(src)
    cx.emit("mov", dst, src)
    cx.values[ins] = dst
    if op in ("zext", "sext") and ins.type.bits == 64 and ins.operands[0].type.bits == 32:
        cx.narrow[ins] = (op == "sext", src)


def narrow_int(cx: SelectionContext, ins: Instr) -> None:
    _result(cx, ins, "and", T.UD, low_dword(cx.operand(ins.operands[0], False)),   # bytes and words stay
            Operand(Imm((1 << ins.type.bits) - 1, T.UD)))                           # zero-extended dwords


def bitcast_value(cx: SelectionContext, ins: Instr) -> None:
    src = cx.operand(ins.operands[0])
    t = gen_type(ins.type)
    if isinstance(src.value, Imm):
        raw = int(src.value.value) & ((1 << 8 * t.size) - 1) if src.type not in (T.F, T.DF) else \
            int.from_bytes(struct.pack("<f" if src.type == T.F else "<d", src.value.value), "little")
        src = Operand(Imm(struct.unpack("<f" if t == T.F else "<d", raw.to_bytes(t.size, "little"))[0]
                          if t in (T.F, T.DF) else raw, t))
    cx.values[ins] = retyped(src, t) if not isinstance(src.value, Imm) else src


def pointer_int(cx: SelectionContext, ins: Instr) -> None:
    """ptrtoint and inttoptr in a flat kernel: a pointer is its 64-bit address."""
    cx.values[ins] = retyped(cx.operand(ins.operands[0]), gen_type(ins.type))


# ----- handlers: floats
def float_arith(cx: SelectionContext, ins: Instr) -> None:
    x, y = ins.operands
    a, b = cx.operand(x), cx.operand(y)
    if ins.opcode == "fsub":
        b = negated(b)
    _result(cx, ins, FLOAT_OPS[ins.opcode], gen_type(ins.type), a, b)


def fmuladd(cx: SelectionContext, ins: Instr) -> None:
    x, y, z = ins.operands
    a, b, c = cx.operand(x), cx.operand(y), cx.operand(z)
    product, dst = cx.fresh(gen_type(ins.type)), cx.fresh(gen_type(ins.type))
    cx.emit("mul", product, a, b)                 # two roundings, as fmuladd means here
    if ins.type.bits == 16:
        product = _round_to_half(cx, product)
    cx.emit("add", dst, product, c)
    cx.values[ins] = dst


def fneg(cx: SelectionContext, ins: Instr) -> None:
    _result(cx, ins, "mov", gen_type(ins.type), negated(cx.operand(ins.operands[0])))


def float_min_max(cx: SelectionContext, ins: Instr) -> None:
    x, y = ins.operands
    a, b = cx.operand(x), cx.operand(y)     # sel.l / sel.ge return the non-NaN operand
    if isinstance(a.value, Imm):
        a, b = b, a
    _result(cx, ins, "sel", gen_type(ins.type), a, b, cond_mod="lt" if ins.opcode == "fmin" else "ge", flag=(0, 1))


def float_convert(cx: SelectionContext, ins: Instr) -> None:
    dst = cx.fresh(gen_type(ins.type))
    cx.emit("mov", dst, cx.operand(ins.operands[0]))
    cx.values[ins] = dst


def fdiv(cx: SelectionContext, ins: Instr) -> None:
    cx.values[ins] = _math(cx, "fdiv", *(cx.operand(x) for x in ins.operands))


def math_builtin(cx: SelectionContext, ins: Instr) -> None:
    """The relaxed math functions the gen pipeline leaves (lowering/target.py GEN9.math_functions;
    lower_math_edges has added OpenCL's edge values around them): the math box's sqt, rsqt, exp,
    log (base 2), sin, cos, pow, fdiv; rndd/rndz/rnde rounding; natural exp and log through a
    scale by log2(e) and ln(2)."""
    fn = ins.attrs["fn"]
    xs = [cx.operand(x) for x in ins.operands]
    if fn in MATH_BOX:
        out = _math(cx, MATH_BOX[fn], *xs)
    elif fn in ("exp", "log"):
        if fn == "exp":
            scaled = cx.fresh(T.F)
            cx.emit("mul", scaled, cx.register(xs[0]), Operand(Imm(math.log2(math.e), T.F)))
            out = _math(cx, "exp", scaled)
        else:
            out = cx.fresh(T.F)
            cx.emit("mul", out, _math(cx, "log", xs[0]), Operand(Imm(math.log(2.0), T.F)))
    elif fn == "tan":
        out = _math(cx, "fdiv", _math(cx, "sin", xs[0]), _math(cx, "cos", xs[0]))
    elif fn in ROUNDING:
        out = cx.fresh(T.F)
        cx.emit(ROUNDING[fn], out, cx.register(xs[0]))
    elif fn == "ceil":                                  # ceil(x) = -floor(-x)
        down = cx.fresh(T.F)
        cx.emit("rndd", down, negated(cx.register(xs[0])))
        out = cx.fresh(T.F)
        cx.emit("mov", out, negated(down))
    elif fn == "fabs":
        out = cx.fresh(T.F)
        cx.emit("mov", out, cx.absolute(xs[0]))
    else:
        raise cx.error(ins, f"the math function {fn}")
    cx.values[ins] = out


# ----- handlers: compares and selects
def compare(cx: SelectionContext, ins: Instr) -> None:
    """A compare into a 0/-1 dword per lane. Gen's cmp is false on a NaN for every condition but ne
    (PRM vol. 7, "cmp"), so the ordered compares and une are one cmp; one is lt or gt, ord is
    a == a and b == b, and each unordered compare is the negation of the ordered opposite."""
    pred = ins.attrs["pred"]
    a, b = ins.operands
    single = one_cmp(ins)
    if single is not None:
        cx.values[ins] = cx.cmp(single[0], a, b, signed=single[1])
    elif pred in ("true", "false"):
        _result(cx, ins, "mov", T.D, Operand(Imm(-1 if pred == "true" else 0, T.D)))
    else:
        negate = pred in UNORDERED_OPPOSITE
        ordered = UNORDERED_OPPOSITE.get(pred, pred)
        if ordered == "one":
            value = cx.logic("or", cx.cmp("lt", a, b), cx.cmp("gt", a, b))
        elif ordered == "ord":
            value = cx.logic("and", cx.cmp("eq", a, a), cx.cmp("eq", b, b))
        else:
            value = cx.cmp(FCMP_MODS[ordered], a, b)
        cx.values[ins] = cx.logic("xor", value, Operand(Imm(-1, T.D))) if negate else value


def select(cx: SelectionContext, ins: Instr) -> None:
    cond, yes, no = ins.operands
    cx.condition_flag(cond)
    a, b, inverted = cx.operand(yes), cx.operand(no), False
    if isinstance(a.value, Imm) and not isinstance(b.value, Imm):   # the immediate last, the flag inverted:
        a, b, inverted = b, a, True                                 # no register copy of it
    _result(cx, ins, "sel", gen_type(ins.type), a, b, predicate=(0, 0, inverted))


# ----- handlers: the thread payload
def workitem(cx: SelectionContext, ins: Instr) -> None:
    fn = ins.attrs["fn"]
    dim = ins.operands[0] if ins.operands else Const(ins.type, 0)
    if not isinstance(dim, Const):
        raise cx.error(ins, "a work-item function of a variable dimension")
    d = int(dim.value)
    if ins in cx.narrowed:                       # read only as a dword: the payload's own, no copy
        cx.values[ins] = retyped(_payload_view(cx, fn, d), T.D)
        return
    dst = cx.fresh(gen_type(ins.type))
    if fn == "work_dim":
        cx.emit("mov", dst, Operand(PReg(CROSS_THREAD_GRF + WORK_DIM // 32, (WORK_DIM % 32) // 4, T.UD),
                                    region=SCALAR))
    elif d > 2:
        cx.emit("mov", dst, Operand(Imm(1 if fn in ("local_size", "num_groups") else 0, dst.type)))
    elif fn == "local_id":
        cx.emit("mov", dst, Operand(PReg(LOCAL_ID_GRF + d, 0, T.UW), region=Region(16, 16, 1)
                                    if cx.simd == 16 else Region(8, 8, 1)))
    elif fn == "group_id":
        cx.emit("mov", dst, Operand(PReg(0, GROUP_ID_SUBREG[d], T.UD), region=SCALAR))
    elif fn in ("local_size", "num_groups", "global_offset"):
        base = {"local_size": LOCAL_SIZE, "num_groups": NUM_GROUPS, "global_offset": GLOBAL_OFFSET}[fn]
        offset = base + 4 * d
        cx.emit("mov", dst, Operand(PReg(CROSS_THREAD_GRF + offset // 32, (offset % 32) // 4, T.UD),
                                    region=SCALAR))
    else:
        raise cx.error(ins, f"work-item function {fn} (the gen pipeline lowers it)")
    cx.values[ins] = dst
    if ins.type.bits == 64 and ins not in cx.narrowed:   # ids and sizes are below 2^32: zero-extended dwords
        cx.narrow[ins] = (False, low_dword(dst))


def _payload_view(cx: SelectionContext, fn: str, d: int) -> Operand:
    """Where the thread payload holds a work-item function's dword (isa/gen9/dispatch.py), as an operand."""
    if fn == "work_dim":
        return Operand(PReg(CROSS_THREAD_GRF + WORK_DIM // 32, (WORK_DIM % 32) // 4, T.UD), region=SCALAR)
    if d > 2:
        return Operand(Imm(1 if fn in ("local_size", "num_groups") else 0, T.UD))
    if fn == "local_id":
        return Operand(PReg(LOCAL_ID_GRF + d, 0, T.UW), region=Region(16, 16, 1) if cx.simd == 16 else Region(8, 8, 1))
    if fn == "group_id":
        return Operand(PReg(0, GROUP_ID_SUBREG[d], T.UD), region=SCALAR)
    if fn in ("local_size", "num_groups", "global_offset"):
        base = {"local_size": LOCAL_SIZE, "num_groups": NUM_GROUPS, "global_offset": GLOBAL_OFFSET}[fn]
        offset = base + 4 * d
        return Operand(PReg(CROSS_THREAD_GRF + offset // 32, (offset % 32) // 4, T.UD), region=SCALAR)
    raise cx.error(None, f"work-item function {fn} (the gen pipeline lowers it)")


def nothing(cx: SelectionContext, ins: Instr) -> None:
    """unreachable: no code (the lanes that get here are undefined behaviour)."""


# ----- the table: the first row naming the opcode whose guard holds selects it
def _bits(*widths: int) -> Guard:
    return lambda cx, ins: ins.type.kind == "int" and ins.type.bits in widths     # (is_int, inline: a guard a value)


def _float(*widths: int) -> Guard:
    return lambda cx, ins: ins.type.kind == "float" and (not widths or ins.type.bits in widths)


def _always(cx: SelectionContext, ins: Instr) -> bool:
    return True


RULES: tuple[Rule, ...] = (
    Rule(tuple(INT_OPS), lambda cx, ins: ins.type.kind == "int" and (
        ins.type.bits in (32, 64) or ins.type.bits == 1 and ins.opcode in ("and", "or", "xor")), integer),
    Rule(tuple(FLOAT_OPS), _float(), float_arith),
    Rule(("fmuladd",), _float(), fmuladd),
    Rule(("zext", "sext"), lambda cx, ins: ins.operands[0].type.bits == 1 and ins.type.bits in (32, 64),
         bool_extend),
    Rule(("trunc",), _bits(1), trunc_to_bool),
    Rule(CASTS, lambda cx, ins: ins.type.bits in (32, 64) or ins.type.is_float or ins.opcode == "freeze", cast),
    Rule(("smin", "smax", "umin", "umax"), _bits(32), int_min_max),
    Rule(("smin", "smax", "umin", "umax"), _bits(64), int_min_max64),
    Rule(("abs",), _bits(32, 64), int_abs),
    Rule(("fneg",), _float(), fneg),
    Rule(("fmin", "fmax"), _float(), float_min_max),
    Rule(("fpext", "fptrunc"), _float(), float_convert),
    Rule(("fdiv",), _float(16, 32), fdiv),
    Rule(("math",), _float(16, 32), math_builtin),
    Rule(("trunc", "zext"), _bits(8, 16), narrow_int),
    Rule(("bitcast",), lambda cx, ins: not ins.type.is_ptr and ins.type.size == ins.operands[0].type.size,
         bitcast_value),
    Rule(("mulhi_s", "mulhi_u"), _bits(32), mulhi32),
    Rule(("mulhi_s", "mulhi_u"), _bits(64), mulhi64),
    Rule(("popcount", "clz", "ctz", "bitreverse"), _bits(32), bit_count),
    Rule(("unreachable",), _always, nothing),
    Rule(("sdiv", "srem", "udiv", "urem"), _bits(32), divide32),
    Rule(("sdiv", "srem", "udiv", "urem"), _bits(64), divide64),
    Rule(("icmp", "fcmp"), _always, compare),
    Rule(("select",), _always, select),
    Rule(("ptradd",), _always, ptradd),
    Rule(("workitem",), _always, workitem),
    Rule(("barrier",), _always, memory.barrier),
    Rule(("subgroup_info", "subgroup", "subgroup_barrier"),       # i8/i16 ones are i32 by now (legalize_int_widths)
         lambda cx, ins: not any(v.type.is_int and v.type.bits in (8, 16) for v in [ins, *ins.operands[:1]]),
         subgroup.select_subgroup),
    Rule(("load", "store"), _always, memory.memory),
    Rule(("atomic",), _always, memory.atomic),
    Rule(("alloca", "global_addr", "addrspacecast", "bitcast"), lambda cx, ins: ins.type.is_ptr, memory.pointer),
    Rule(("ptrtoint", "inttoptr"), lambda cx, ins: cx.layout.flat and ins.type.bits == 64, pointer_int),
)


_ROWS: dict[str, list[Rule]] = {}


def _rows() -> dict[str, list[Rule]]:
    """RULES by opcode, in table order (made once: every kernel's selector reads the same table)."""
    if not _ROWS:
        for rule in RULES:
            for opcode in rule.opcodes:
                _ROWS.setdefault(opcode, []).append(rule)
    return _ROWS
