"""Instruction selection: the `gen` pipeline's tree -> the machine IR (isel_blockip.py does the CFG form).

Control flow under the execution mask: ifs as if/else/endif, loops as do ... while with break and cont,
early returns as halt; phis copied where control comes from. Values: i1 as 0/-1 dwords, 8/16-bit
integers as zero-extended dwords, 32/64-bit integers, f16 (as the f32 it equals, rounded after every
rounding operation), f32, f64. Memory through the message each object and size needs (abi.py says
which object is where). What is not covered is a one-line CompileError naming the instruction, so
nothing is compiled wrongly in silence.

Gen9 facts used (PRM vol. 7, "EU instruction set"; Mesa brw_fs_nir.cpp): D x D -> D and D x D -> Q
multiplies are native, Q x Q is not, so a 64-bit multiply is lo*lo (D x D -> Q) plus the two cross
products shifted up by 32 (one D x D -> Q when both are extended dwords); 64-bit add, shifts and logic
are native on :q; the math box divides integers 8 lanes at a time and has no 64-bit division.
"""
from __future__ import annotations

import math
import struct
from functools import partial

from isa.gen9 import messages as sm
from isa.gen9.dispatch import (
    BARRIER_ID_MASK,
    CROSS_THREAD_GRF,
    GLOBAL_OFFSET,
    LOCAL_ID_GRF,
    LOCAL_SIZE,
    NUM_GROUPS,
    WORK_DIM,
)
from isa.gen9.model import DataType, Region
from lowering.analysis.provenance import MemoryObject, Provenance
from lowering.errors import CompileError, where
from lowering.ir.core import Arg, Block, Const, Function, If, Instr, Loop, Undef, Value, first_block, last_block
from lowering.ir.opcodes import fence_spaces
from lowering.ir.types import Type

from .abi import KernelLayout, kernel_layout
from .mir import Imm, MFunction, MInstr, Operand, PReg, VReg

T = DataType
INT_OPS = {"add": "add", "sub": "add", "mul": "mul", "and": "and", "or": "or", "xor": "xor", "shl": "shl",
           "lshr": "shr", "ashr": "asr"}
FLOAT_OPS = {"fadd": "add", "fsub": "add", "fmul": "mul"}
COMMUTATIVE = ("add", "mul", "and", "or", "xor")
ICMP_MODS = {"eq": "eq", "ne": "ne", "gt": "gt", "ge": "ge", "lt": "lt", "le": "le"}
FCMP_MODS = {"oeq": "eq", "ogt": "gt", "oge": "ge", "olt": "lt", "ole": "le", "une": "ne"}
SENDS_AND_BRANCHES = ("send", "sends", "jmpi", "if", "while")
CASTS = ("zext", "sext", "trunc", "sitofp", "uitofp", "fptosi", "fptoui", "freeze")
GROUP_ID_SUBREG = (1, 6, 7)                          # r0.1 / r0.6 / r0.7
SCALAR = Region(0, 1, 0)
MATH_BOX = {"sqrt": "sqt", "rsqrt": "rsqt", "exp2": "exp", "log2": "log", "sin": "sin", "cos": "cos", "pow": "pow"}
UNORDERED_OPPOSITE = {"ueq": "one", "ugt": "ole", "uge": "olt", "ult": "oge", "ule": "ogt", "uno": "ord"}
ATOMIC_AOP = {"add": sm.AOP_ADD, "sub": sm.AOP_SUB, "xchg": sm.AOP_MOV, "inc": sm.AOP_INC, "dec": sm.AOP_DEC,
              "cmpxchg": sm.AOP_CMPWR, "smin": sm.AOP_IMIN, "smax": sm.AOP_IMAX, "umin": sm.AOP_UMIN,
              "umax": sm.AOP_UMAX, "and": sm.AOP_AND, "or": sm.AOP_OR, "xor": sm.AOP_XOR}
ROUNDED_IN_HALF = ("fadd", "fsub", "fmul", "fdiv", "fmuladd", "math", "fptrunc", "sitofp", "uitofp")
ROUNDING = {"floor": "rndd", "trunc": "rndz", "rint": "rnde"}
EXIT = "exit"                                        # the final halt's block, where returned lanes wait


def gen_type(t: Type, signed: bool = True) -> DataType:
    if t.is_int and t.bits == 1:                       # a bool lives as 0 / -1 per lane, as cmp writes it
        return T.D
    if t.is_int and t.bits in (8, 16):                 # a loaded byte or word, zero-extended in a dword
        return T.UD
    if t.is_float and t.bits == 32:
        return T.F
    if t.is_float and t.bits == 64:
        return T.DF
    if t.is_float and t.bits == 16:                    # a half lives as the f32 it equals (Selector.instruction)
        return T.F
    if t.is_int and t.bits == 32:
        return T.D if signed else T.UD
    if (t.is_int and t.bits == 64) or t.is_ptr:
        return T.Q if signed else T.UQ
    raise CompileError(f"type {t} is not supported by the Gen backend yet")


class Selector:
    def __init__(self, func: Function, simd: int):
        self.func, self.simd = func, simd
        self.m = MFunction(func.name, simd)
        self.block = self.m.block("entry")
        self.values: dict[Value, Operand] = {}
        self.provenance = Provenance(func)
        self.layout: KernelLayout = kernel_layout(func, needs_flat_addresses(func, self.provenance))
        self.private_base: Operand | None = None              # this lane's private frame (A32 address)
        self.uses = use_counts(func)
        self.deferred: set[Instr] = set()                     # compares left to the branch that reads them
        self.narrow: dict[Value, tuple[bool | None, Operand]] = {}   # i64 values that are extended i32 ones
        self.loops: list[tuple[str, str, list, list]] = []   # (latch, end, header phis, exit phis)
        self.returned = False                                 # an early return emitted a halt
        self.named: set[str] = set()                          # labels a branch or a _start named

    def error(self, ins: Instr | None, what: str) -> CompileError:
        return CompileError(f"{where(self.func, ins)}: {what} (not in the Gen backend yet)")

    def emit(self, opcode: str, dst: Operand | None, *srcs: Operand, n: int | None = None, **kw) -> MInstr:
        ops = list(srcs)
        if len(ops) == 2 and opcode not in SENDS_AND_BRANCHES:
            ops = self._legal_immediates(opcode, ops)
        return self.block.append(MInstr(opcode, n or self.simd, dst, ops, **kw))

    def _legal_immediates(self, opcode: str, ops: list[Operand]) -> list[Operand]:
        """Gen encodes an immediate only as the last source, and a 64-bit one only as a lone source
        (PRM vol. 7, "Immediate operands"): swap a commutative pair, give shifts a 32-bit count, and
        move anything else into a register first."""
        if isinstance(ops[0].value, Imm) and not isinstance(ops[1].value, Imm) and opcode in COMMUTATIVE:
            ops = [ops[1], ops[0]]
        if isinstance(ops[0].value, Imm):
            ops[0] = self._in_register(ops[0])
        last = ops[1].value
        if isinstance(last, Imm) and last.type.size == 8:
            if opcode in ("shl", "shr", "asr"):
                ops[1] = Operand(Imm(int(last.value) & 63, T.UD))
            else:
                ops[1] = self._in_register(ops[1])
        return ops

    def _in_register(self, op: Operand, t: DataType | None = None) -> Operand:
        """`op` in a register of its own (of type t): an immediate made a register, or a view (a strided
        low dword, a payload scalar) made a whole per-lane value, as a message payload needs."""
        if t is not None and isinstance(op.value, VReg) and op.value.type == t and op.region is None \
                and op.offset == 0 and not op.value.uniform:
            return op
        reg = self.fresh(t or op.type)
        self.block.append(MInstr("mov", self.simd, reg, [op]))
        return reg

    def _register(self, op: Operand) -> Operand:
        """`op`, or the immediate it is moved into a register (where Gen takes no immediate: a first
        source, a math-box source, an operand with a source modifier)."""
        return self._in_register(op) if isinstance(op.value, Imm) else op

    @staticmethod
    def _negated(op: Operand) -> Operand:
        """-op: a negated immediate, or the negate source modifier flipped."""
        if isinstance(op.value, Imm):
            return Operand(Imm(-op.value.value, op.type))
        return Operand(op.value, op.offset, op.region, not op.neg, op.abs)

    def _absolute(self, op: Operand) -> Operand:
        """|op| through the abs source modifier (on a register: an immediate is moved into one first)."""
        op = self._register(op)
        return Operand(op.value, op.offset, op.region, False, True)

    def fresh(self, t: DataType, uniform: bool = False, count: int = 1) -> Operand:
        return Operand(self.m.vreg(t, uniform, count))

    # ----- operands
    def operand(self, v: Value, signed: bool = True) -> Operand:
        if isinstance(v, Const):
            t = gen_type(v.type, signed)
            return Operand(Imm(float(v.value) if v.type.is_float else v.signed() if signed else v.value, t))
        if isinstance(v, Undef):
            return Operand(Imm(0, gen_type(v.type, signed)))
        op = self.values.get(v)
        if op is None and isinstance(v, Arg):
            op = self._argument(v)
        if op is None:
            raise self.error(None, f"value {v!r} is not computed")
        return self._retyped(op, gen_type(v.type, signed))

    @staticmethod
    def _retyped(op: Operand, t: DataType) -> Operand:
        """The same bits read as another type of the same size (:d as :ud, :q as :uq)."""
        if op.type == t or op.type.size != t.size:
            return op
        v = op.value
        if isinstance(v, VReg):
            return Operand(VReg(v.id, t, v.uniform, v.count), op.offset, op.region, op.neg, op.abs)
        if isinstance(v, Imm):
            return Operand(Imm(v.value, t))
        return Operand(PReg(v.reg, v.subreg * op.type.size // t.size, t), op.offset, op.region)

    def _argument(self, a: Arg) -> Operand:
        if a in self.layout.buffer_bti:
            return self._object_base(a)
        return self._cross_thread(self.layout.arguments[a], gen_type(a.type))

    def _object_base(self, key) -> Operand:
        """A buffer's (or constant table's) pointer value: 0, offsets counting from its start, or in a
        flat kernel its 64-bit address from the cross-thread data."""
        if not self.layout.flat:
            return Operand(Imm(0, T.UQ))
        return self._cross_thread(self.layout.bases[key], T.UQ)

    def _cross_thread(self, offset: int, t: DataType) -> Operand:
        reg, sub = CROSS_THREAD_GRF + offset // 32, (offset % 32) // t.size
        return Operand(PReg(reg, sub, t), region=SCALAR)

    # ----- the function
    def run(self) -> MFunction:
        self.cf_list(self.func.body)
        if self.returned:
            self._start(EXIT)
            eot = self.m.new_label("eot")
            self._branch("halt", [eot])
            self._start(eot)
        self._end_of_thread()
        return self.m

    def cf_list(self, nodes: list) -> None:
        """A CF list: blocks in order, an if as Gen's if/else/endif with the execution mask (PRM vol. 7,
        "Structured control flow"); the phis of the block after an if are copied into at the end of each
        arm, where only that arm's lanes are enabled."""
        for i, node in enumerate(nodes):
            if isinstance(node, Block):
                branch_on = nodes[i + 1].cond if i + 1 < len(nodes) and isinstance(nodes[i + 1], If) else None
                for ins in node.instrs:
                    if ins is branch_on and self._fusable(ins):
                        self.deferred.add(ins)              # selected into the if's flag
                        continue
                    if ins.opcode == "phi":
                        continue                            # filled where control comes from
                    if ins.is_jump:
                        self._jump(ins, node)
                    else:
                        self.instruction(ins)
            elif isinstance(node, If):
                after = nodes[i + 1]
                phis = list(after.phis())
                for phi in phis:
                    self.values[phi] = self.fresh(gen_type(phi.type))
                self._condition_flag(node.cond)
                endif, other = self.m.new_label("endif"), self.m.new_label("else")
                self._branch("if", [other], predicate=(0, 0, False))
                self.cf_list(node.then_list)
                self._phi_copies(phis, last_block(node.then_list))
                self._branch("else", [endif])
                self._start(other)
                self.cf_list(node.else_list)
                self._phi_copies(phis, last_block(node.else_list))
                self._branch("endif", [])
                self._start(endif)
            else:
                self._loop(node, nodes[i - 1], nodes[i + 1])

    def _fusable(self, cond: Value) -> bool:
        """A compare whose only use is the branch right after its block: it writes the branch's flag
        itself (one cmp into f0.0 instead of a 0/-1 dword and a cmp.ne on it)."""
        return isinstance(cond, Instr) and self.uses.get(cond, 0) == 1 and one_cmp(cond) is not None

    def _condition_flag(self, cond: Value) -> None:
        """f0.0 = the i1 `cond` on the enabled lanes: a fused compare, or a test of its 0/-1 dword."""
        if cond in self.deferred:
            assert isinstance(cond, Instr)
            mod, signed = one_cmp(cond)                         # type: ignore[misc]
            self._cmp(mod, cond.operands[0], cond.operands[1], signed, (0, 0), value=False)
        else:
            self._flag_from_lanes(self.operand(cond))

    def _flag_from_lanes(self, lanes: Operand) -> None:
        """f0.0 = the lanes where a 0/-1 dword (an i1 value) is -1."""
        self.emit("cmp", None, lanes, Operand(Imm(0, T.D)), cond_mod="ne", flag=(0, 0))

    def _loop(self, loop: Loop, before: Block, after: Block) -> None:
        """An infinite loop as Gen's do ... while: `break` disables a lane until the loop ends, `cont`
        until the while, which runs the body again while any lane is enabled. The header's phis get
        their values where control enters (before the loop, at each continue and at the body's end),
        the phis after the loop at each break."""
        header_phis, exit_phis = list(first_block(loop.body).phis()), list(after.phis())
        for phi in header_phis + exit_phis:
            self.values[phi] = self.fresh(gen_type(phi.type))
        self._phi_copies(header_phis, before)
        head, latch, end = self.m.new_label("loop"), self.m.new_label("latch"), self.m.new_label("endloop")
        self._start(head)
        self.loops.append((latch, end, header_phis, exit_phis))
        self.cf_list(loop.body)
        last = last_block(loop.body)
        if last.jump is None:
            self._phi_copies(header_phis, last)
        self.loops.pop()
        self._start(latch)
        self._branch("while", [head])
        self._start(end)

    def _jump(self, ins: Instr, block: Block) -> None:
        """break and continue as Gen's; an early return as `halt`, whose lanes wait, disabled, at the
        final halt before the end of the thread (the placeholder HALT of Mesa's brw_fs_generator: every
        lane that halted to a UIP must reach it, and the last halt releases them all)."""
        if ins.opcode == "return":
            self.returned = True
            self._branch("halt", [EXIT])
            return
        latch, end, header_phis, exit_phis = self.loops[-1]
        if ins.opcode == "break":
            self._phi_copies(exit_phis, block)
            self._branch("break", [end])
        else:
            self._phi_copies(header_phis, block)
            self._branch("cont", [latch])

    def _branch(self, opcode: str, targets: list[str], **kw) -> None:
        self.block.append(MInstr(opcode, self.simd, None, [], targets=targets, **kw))
        self.block = self.m.block(self.m.new_label("b"))        # unnamed: a _start may rename it

    def _start(self, label: str) -> None:
        """Go on in a block named `label` (renaming the current one if nothing was put in it yet and no
        branch names it)."""
        if self.block.instrs or self.block.label in self.named:
            self.block = self.m.block(label)
        else:
            self.block.label = label
        self.named.add(label)

    def _phi_copies(self, phis: list, pred: Block | None, predicate: tuple[int, int, bool] | None = None) -> None:
        """The phis' values along the edge from `pred` (on the lanes `predicate` picks, if given), copied
        in parallel: through temporaries when a source is itself one of the phis (a swap would otherwise
        read a value already overwritten)."""
        assert pred is not None
        sources = [self.operand(phi.value_for(pred)) for phi in phis]
        targets = {v.id for phi in phis if isinstance(v := self.values[phi].value, VReg)}
        if any(isinstance(src.value, VReg) and src.value.id in targets for src in sources):
            sources = [self._copy(src) for src in sources]
        for phi, src in zip(phis, sources):
            self.emit("mov", self.values[phi], src, predicate=predicate)

    def _bool_as_one(self, src: Operand) -> Operand:
        """An i1's 0 / -1 dword as the unsigned number it means, 0 / 1 (zext and uitofp read it so)."""
        if isinstance(src.value, Imm):
            return Operand(Imm(int(src.value.value) & 1, T.D))
        one = self.fresh(T.D)
        self.emit("and", one, src, Operand(Imm(1, T.D)))
        return one

    def _copy(self, src: Operand) -> Operand:
        tmp = self.fresh(src.type)
        self.emit("mov", tmp, src)
        return tmp

    def instruction(self, ins: Instr) -> None:
        """Select one instruction. A half-precision result is computed in f32 and rounded to f16 after
        every operation that rounds: f32 has 24 >= 2 * 11 + 2 significand bits, so +, -, *, / and sqrt
        done in f32 and rounded again are correctly rounded f16 operations (Figueroa, "When is double
        rounding innocuous?", SIGNUM 1995); an f16 value lives in a register as the f32 it equals."""
        self._select(ins)
        if ins.type.is_float and ins.type.bits == 16 and ins.opcode in ROUNDED_IN_HALF:
            self.values[ins] = self._round_to_half(self.values[ins])

    def _round_to_half(self, x: Operand) -> Operand:
        """x (an f32) rounded to the nearest f16, as an f32: through an :hf view with a stride of 2."""
        x = self._register(x)
        half, out = self.fresh(T.UD), self.fresh(T.F)
        self.emit("mov", self._half_view(half), x)
        self.emit("mov", out, self._half_view(half))
        return out

    @staticmethod
    def _half_view(op: Operand) -> Operand:
        """The low half-float word of each lane's dword (Gen9 writes :hf at a stride of 2 here)."""
        v = op.value
        assert isinstance(v, VReg)
        return Operand(VReg(v.id, T.HF, v.uniform, v.count), op.offset, Region(16, 8, 2))

    def _select(self, ins: Instr) -> None:
        op = ins.opcode
        if op in INT_OPS and ins.type.is_int and (ins.type.bits in (32, 64) or
                                                   ins.type.bits == 1 and op in ("and", "or", "xor")):
            self._integer(ins)
        elif op in FLOAT_OPS and ins.type.is_float:
            a, b = (self.operand(x) for x in ins.operands)
            if op == "fsub":
                b = self._negated(b)
            dst = self.fresh(gen_type(ins.type))
            self.emit(FLOAT_OPS[op], dst, a, b)
            self.values[ins] = dst
        elif op == "fmuladd" and ins.type.is_float:
            a, b, c = (self.operand(x) for x in ins.operands)
            product, dst = self.fresh(gen_type(ins.type)), self.fresh(gen_type(ins.type))
            self.emit("mul", product, a, b)                 # two roundings, as fmuladd means here
            if ins.type.bits == 16:
                product = self._round_to_half(product)
            self.emit("add", dst, product, c)
            self.values[ins] = dst
        elif op in ("zext", "sext") and ins.operands[0].type.bits == 1 and ins.type.bits in (32, 64):
            dst = self.fresh(gen_type(ins.type))
            src = self.operand(ins.operands[0])           # 0 / -1: sext is a copy, zext keeps one bit
            self.emit("and" if op == "zext" else "mov", dst, src, *([Operand(Imm(1, T.D))] if op == "zext" else []))
            self.values[ins] = dst
        elif op == "trunc" and ins.type.is_int and ins.type.bits == 1:
            low = self.fresh(T.D)                           # bit 0, then 0 / -1 as a bool lives
            src = self._register(self._low_dword(self.operand(ins.operands[0], False)))
            self.emit("and", low, src, Operand(Imm(1, T.D)))
            dst = self.fresh(T.D)
            self.emit("mov", dst, self._negated(low))
            self.values[ins] = dst
        elif op in CASTS and (ins.type.bits in (32, 64) or ins.type.is_float or op == "freeze"):
            signed = op in ("sext", "sitofp", "fptosi", "trunc", "freeze")
            src = self.operand(ins.operands[0], signed)
            dst = self.fresh(gen_type(ins.type, op != "fptoui"))
            if op == "uitofp" and ins.operands[0].type.bits == 1:
                src = self._bool_as_one(src)              # true is 1.0 unsigned (-1.0 is sitofp's)
            if op == "trunc":
                src = self._low_dword(src)
            self.emit("mov", dst, src)
            self.values[ins] = dst
            if op in ("zext", "sext") and ins.type.bits == 64 and ins.operands[0].type.bits == 32:
                self.narrow[ins] = (op == "sext", src)
        elif op in ("smin", "smax", "umin", "umax") and ins.type.is_int and ins.type.bits == 32:
            signed = op[0] == "s"
            a, b = (self.operand(x, signed) for x in ins.operands)
            if isinstance(a.value, Imm):
                a, b = b, a
            dst = self.fresh(gen_type(ins.type, signed))
            self.emit("sel", dst, a, b, cond_mod="lt" if op.endswith("min") else "ge", flag=(0, 1))
            self.values[ins] = dst
        elif op == "abs" and ins.type.is_int and ins.type.bits in (32, 64):
            src = self.operand(ins.operands[0])             # (abs) of INT_MIN wraps to INT_MIN, as abs does
            dst = self.fresh(gen_type(ins.type))
            self.emit("mov", dst, self._absolute(src))
            self.values[ins] = dst
        elif op == "fneg" and ins.type.is_float:
            src = self.operand(ins.operands[0])
            dst = self.fresh(gen_type(ins.type))
            self.emit("mov", dst, self._negated(src))
            self.values[ins] = dst
        elif op in ("fmin", "fmax") and ins.type.is_float:
            a, b = (self.operand(x) for x in ins.operands)     # sel.l / sel.ge return the non-NaN operand
            if isinstance(a.value, Imm):
                a, b = b, a
            dst = self.fresh(gen_type(ins.type))
            self.emit("sel", dst, a, b, cond_mod="lt" if op == "fmin" else "ge", flag=(0, 1))
            self.values[ins] = dst
        elif op in ("fpext", "fptrunc") and ins.type.is_float:
            dst = self.fresh(gen_type(ins.type))
            self.emit("mov", dst, self.operand(ins.operands[0]))
            self.values[ins] = dst
        elif op == "fdiv" and ins.type.is_float and ins.type.bits in (16, 32):
            self.values[ins] = self._math("fdiv", *(self.operand(x) for x in ins.operands))
        elif op == "math" and ins.type.is_float and ins.type.bits in (16, 32):
            self._math_builtin(ins)
        elif op in ("trunc", "zext") and ins.type.is_int and ins.type.bits in (8, 16):
            dst = self.fresh(T.UD)                          # bytes and words stay zero-extended dwords
            self.emit("and", dst, self._low_dword(self.operand(ins.operands[0], False)),
                      Operand(Imm((1 << ins.type.bits) - 1, T.UD)))
            self.values[ins] = dst
        elif op == "bitcast" and not ins.type.is_ptr and ins.type.size == ins.operands[0].type.size:
            src = self.operand(ins.operands[0])
            t = gen_type(ins.type)
            if isinstance(src.value, Imm):
                raw = int(src.value.value) & ((1 << 8 * t.size) - 1) if src.type not in (T.F, T.DF) else \
                    int.from_bytes(struct.pack("<f" if src.type == T.F else "<d", src.value.value), "little")
                src = Operand(Imm(struct.unpack("<f" if t == T.F else "<d", raw.to_bytes(t.size, "little"))[0]
                                  if t in (T.F, T.DF) else raw, t))
            self.values[ins] = self._retyped(src, t) if not isinstance(src.value, Imm) else src
        elif op in ("mulhi_s", "mulhi_u") and ins.type.is_int and ins.type.bits == 32:
            signed = op == "mulhi_s"
            a, b = (self.operand(x, signed) for x in ins.operands)
            if isinstance(a.value, Imm):
                a, b = b, a
            wide, dst = self.fresh(T.Q if signed else T.UQ), self.fresh(T.D if signed else T.UD)
            self.emit("mul", wide, self._register(a), b)
            self.emit("mov", dst, self._high_dword(wide))
            self.values[ins] = dst
        elif op in ("mulhi_s", "mulhi_u") and ins.type.is_int and ins.type.bits == 64:
            self.values[ins] = self._mulhi64(op == "mulhi_s", *(self.operand(x) for x in ins.operands))
        elif op in ("popcount", "clz", "ctz", "bitreverse") and ins.type.is_int and ins.type.bits == 32:
            self._bit_count(ins)
        elif op == "unreachable":
            pass
        elif op in ("sdiv", "srem", "udiv", "urem") and ins.type.is_int and ins.type.bits == 32:
            signed = op[0] == "s"
            a, b = (self.operand(x, signed) for x in ins.operands)
            a, b = (self._register(x) for x in (a, b))
            dst = self.fresh(gen_type(ins.type, signed))
            self.emit("math", dst, a, b, math_fc="iqot" if op.endswith("div") else "irem")
            self.values[ins] = dst
        elif op in ("sdiv", "srem", "udiv", "urem") and ins.type.is_int and ins.type.bits == 64:
            self.values[ins] = self._divide64(op, *(self.operand(x, op[0] == "s") for x in ins.operands))
        elif op in ("icmp", "fcmp"):
            self._compare(ins)
        elif op == "select":
            cond, yes, no = ins.operands
            self._condition_flag(cond)
            dst = self.fresh(gen_type(ins.type))
            self.emit("sel", dst, self.operand(yes), self.operand(no), predicate=(0, 0, False))
            self.values[ins] = dst
        elif op == "ptradd":
            self._integer_op("add", ins, gen_type(ins.type), *(self.operand(x) for x in ins.operands))
        elif op == "workitem":
            self._workitem(ins)
        elif op == "barrier":
            self._barrier(ins)
        elif op in ("load", "store"):
            self._memory(ins)
        elif op == "atomic":
            self._atomic(ins)
        elif op in ("alloca", "global_addr", "addrspacecast", "bitcast") and ins.type.is_ptr:
            self._pointer(ins)
        elif op in ("ptrtoint", "inttoptr") and self.layout.flat and ins.type.bits == 64:
            self.values[ins] = self._retyped(self.operand(ins.operands[0]), gen_type(ins.type))
        else:
            raise self.error(ins, f"{op} on {ins.type} is not selected yet")

    def _math(self, fc: str, *srcs: Operand) -> Operand:
        """One math-box function on floats (sources in registers, as the math box wants them)."""
        ops = [self._register(x) for x in srcs]
        dst = self.fresh(T.F)
        self.block.append(MInstr("math", self.simd, dst, ops, math_fc=fc))
        return dst

    def _math_builtin(self, ins: Instr) -> None:
        """The relaxed math functions the gen pipeline leaves (lowering/target.py GEN9.math_functions;
        lower_math_edges has added OpenCL's edge values around them): the math box's sqt, rsqt, exp,
        log (base 2), sin, cos, pow, fdiv; rndd/rndz/rnde rounding; natural exp and log through a
        scale by log2(e) and ln(2)."""
        fn = ins.attrs["fn"]
        xs = [self.operand(x) for x in ins.operands]
        if fn in MATH_BOX:
            out = self._math(MATH_BOX[fn], *xs)
        elif fn in ("exp", "log"):
            if fn == "exp":
                scaled = self.fresh(T.F)
                self.emit("mul", scaled, self._register(xs[0]), Operand(Imm(math.log2(math.e), T.F)))
                out = self._math("exp", scaled)
            else:
                out = self.fresh(T.F)
                self.emit("mul", out, self._math("log", xs[0]), Operand(Imm(math.log(2.0), T.F)))
        elif fn == "tan":
            out = self._math("fdiv", self._math("sin", xs[0]), self._math("cos", xs[0]))
        elif fn in ROUNDING:
            out = self.fresh(T.F)
            self.emit(ROUNDING[fn], out, self._register(xs[0]))
        elif fn == "ceil":                                  # ceil(x) = -floor(-x)
            down = self.fresh(T.F)
            self.emit("rndd", down, self._negated(self._register(xs[0])))
            out = self.fresh(T.F)
            self.emit("mov", out, self._negated(down))
        elif fn == "fabs":
            out = self.fresh(T.F)
            self.emit("mov", out, self._absolute(xs[0]))
        else:
            raise self.error(ins, f"the math function {fn}")
        self.values[ins] = out

    def _bit_count(self, ins: Instr) -> None:
        """cbit, lzd, fbl and bfrev (PRM vol. 7): popcount, clz (lzd(0) = 32 as clz wants), ctz as
        fbl with fbl(0) = -1 turned into 32, bitreverse."""
        op = ins.opcode
        src = self.operand(ins.operands[0], False)
        src = self._register(src)
        dst = self.fresh(T.UD)
        if op == "ctz":
            low = self.fresh(T.UD)
            self.emit("fbl", low, src)
            self.emit("cmp", None, src, Operand(Imm(0, T.UD)), cond_mod="eq", flag=(0, 0))
            self.emit("sel", dst, Operand(Imm(32, T.UD)), low, predicate=(0, 0, False))
        else:
            self.emit({"popcount": "cbit", "clz": "lzd", "bitreverse": "bfrev"}[op], dst, src)
        self.values[ins] = dst

    def _compare(self, ins: Instr) -> None:
        """A compare into a 0/-1 dword per lane. Gen's cmp is false on a NaN for every condition but ne
        (PRM vol. 7, "cmp"), so the ordered compares and une are one cmp; one is lt or gt, ord is
        a == a and b == b, and each unordered compare is the negation of the ordered opposite."""
        pred = ins.attrs["pred"]
        a, b = ins.operands
        single = one_cmp(ins)
        if single is not None:
            self.values[ins] = self._cmp(single[0], a, b, signed=single[1])
        elif pred in ("true", "false"):
            dst = self.fresh(T.D)
            self.emit("mov", dst, Operand(Imm(-1 if pred == "true" else 0, T.D)))
            self.values[ins] = dst
        else:
            negate = pred in UNORDERED_OPPOSITE
            ordered = UNORDERED_OPPOSITE.get(pred, pred)
            if ordered == "one":
                value = self._logic("or", self._cmp("lt", a, b), self._cmp("gt", a, b))
            elif ordered == "ord":
                value = self._logic("and", self._cmp("eq", a, a), self._cmp("eq", b, b))
            else:
                value = self._cmp(FCMP_MODS[ordered], a, b)
            self.values[ins] = self._logic("xor", value, Operand(Imm(-1, T.D))) if negate else value

    def _cmp(self, mod: str, x: Value, y: Value, signed: bool = True, flag: tuple[int, int] = (0, 1),
             value: bool = True) -> Operand:
        """x <mod> y into a 0/-1 dword per lane (or, without `value`, only into `flag`)."""
        a, b = self.operand(x, signed), self.operand(y, signed)
        if not value:
            self.emit("cmp", None, self._register(a), b, cond_mod=mod, flag=flag)
            return None                                             # type: ignore[return-value]
        return self._cmp_value(self._register(a), b, mod, flag)

    def _cmp_value(self, a: Operand, b: Operand, mod: str, flag: tuple[int, int]) -> Operand:
        """cmp into a 0/-1 dword per lane. 64-bit sources make the execution type 64-bit, and a destination
        narrower than the execution type must be strided to its size (PRM vol. 7, "General Restrictions
        Based on Operand Types"; isa/gen9/validate.py's dst-stride-exec-type): such a cmp writes a 64-bit
        temporary whose low dwords are the result, as Mesa's brw_fs does."""
        dst = self.fresh(T.D)
        if a.type.size != 8:
            self.emit("cmp", dst, a, b, cond_mod=mod, flag=flag)
            return dst
        wide = self.fresh(T.Q)
        self.emit("cmp", wide, a, b, cond_mod=mod, flag=flag)
        self.emit("mov", dst, self._retyped(self._low_dword(wide), T.D))
        return dst

    def _logic(self, opcode: str, a: Operand, b: Operand) -> Operand:
        dst = self.fresh(T.D)
        self.emit(opcode, dst, a, b)
        return dst

    def _integer(self, ins: Instr) -> None:
        op = ins.opcode
        signed = op != "lshr"
        t = gen_type(ins.type, signed)
        a, b = (self.operand(x, signed) for x in ins.operands)
        if op == "sub":
            b = self._negated(b)
        if op == "mul" and t.size == 8:
            self.values[ins] = self._narrow_mul64(ins) or self._mul64(a, b)
            return
        self._integer_op(INT_OPS[op], ins, t, a, b)

    def _narrow_mul64(self, ins: Instr) -> Operand | None:
        """A 64-bit multiply that needs no emulation: by a power of two, a shift; of two values that are
        32-bit ones extended the same way (or a constant that fits), one D x D -> Q multiply."""
        x, y = ins.operands
        if isinstance(x, Const):
            x, y = y, x
        c = int(y.value) if isinstance(y, Const) else 0
        if c > 0 and c & (c - 1) == 0:
            dst = self.fresh(T.Q)
            self.emit("shl", dst, self.operand(x), Operand(Imm(c.bit_length() - 1, T.UD)))
            return dst
        fx, fy = self._narrow_form(x), self._narrow_form(y)
        if fx is None or fy is None or fx[0] is None or (fy[0] is not None and fy[0] != fx[0]):
            return None                                  # fx: never a constant (constants went to y)
        signed, a, b = bool(fx[0]), fx[1], fy[1]
        dst = self.fresh(T.Q if signed else T.UQ)
        self.emit("mul", dst, self._retyped(a, T.D if signed else T.UD), self._retyped(b, T.D if signed else T.UD))
        return self._retyped(dst, T.Q)

    def _narrow_form(self, v: Value) -> tuple[bool | None, Operand] | None:
        """(signed, the 32-bit operand) when `v` is a 32-bit value zero- or sign-extended to 64 bits; a
        constant below 2^31 is both (signed None)."""
        if isinstance(v, Const):
            return (None, Operand(Imm(int(v.value), T.UD))) if 0 <= v.value < 1 << 31 else None
        return self.narrow.get(v)

    def _integer_op(self, opcode: str, ins: Instr, t: DataType, a: Operand, b: Operand) -> None:
        dst = self.fresh(t)
        self.emit(opcode, dst, a, b)
        self.values[ins] = dst

    def _low_dword(self, op: Operand) -> Operand:
        """The low 32 bits of a 64-bit value: every other dword, <2;1,0> (little-endian)."""
        if isinstance(op.value, Imm):
            return Operand(Imm(int(op.value.value) & 0xFFFFFFFF, T.UD))
        if op.type.size != 8:
            return op
        v = op.value
        if isinstance(v, VReg):
            return Operand(VReg(v.id, T.UD, v.uniform), op.offset,
                           SCALAR if v.uniform else Region(16, 8, 2))
        return Operand(PReg(v.reg, v.subreg * 2, T.UD), region=SCALAR)

    def _high_dword(self, op: Operand) -> Operand:
        if isinstance(op.value, Imm):
            return Operand(Imm((int(op.value.value) >> 32) & 0xFFFFFFFF, T.UD))
        v = op.value
        if isinstance(v, VReg):
            return Operand(VReg(v.id, T.UD, v.uniform), op.offset + 4, SCALAR if v.uniform else Region(16, 8, 2))
        return Operand(PReg(v.reg, v.subreg * 2 + 1, T.UD), region=SCALAR)

    def _mul64(self, a: Operand, b: Operand) -> Operand:
        """lo(a)*lo(b) as D x D -> Q, plus (lo(a)*hi(b) + hi(a)*lo(b)) << 32."""
        lo_a, lo_b, hi_a, hi_b = self._low_dword(a), self._low_dword(b), self._high_dword(a), self._high_dword(b)
        low = self.fresh(T.UQ)
        self.emit("mul", low, lo_a, lo_b)
        c1, c2 = self.fresh(T.UD), self.fresh(T.UD)
        self.emit("mul", c1, lo_a, hi_b)
        self.emit("mul", c2, hi_a, lo_b)
        cross = self.fresh(T.UD)
        self.emit("add", cross, c1, c2)
        wide = self.fresh(T.UQ)
        self.emit("mov", wide, cross)
        shifted = self.fresh(T.UQ)
        self.emit("shl", shifted, wide, Operand(Imm(32, T.UD)))
        out = self.fresh(T.Q)
        self.emit("add", out, low, self._retyped(shifted, T.UQ))
        return out

    def _divide64(self, op: str, n: Operand, d: Operand) -> Operand:
        """64-bit division and remainder: Gen9's math box divides 32-bit integers only, so the quotient
        is found a bit at a time (restoring division: 64 trips of shift, compare, conditional subtract,
        the same trip count in every lane), on magnitudes for the signed forms; the quotient is negated
        when the signs differ, the remainder takes the dividend's sign."""
        signed = op[0] == "s"
        if signed:
            n_neg, d_neg = self._is_negative(n), self._is_negative(d)
            n, d = self._magnitude(n, n_neg), self._magnitude(d, d_neg)
        n, d = (self._in_register(x, T.UQ) if isinstance(x.value, Imm) else self._retyped(x, T.UQ) for x in (n, d))
        quotient, remainder, bit, count = self.fresh(T.UQ), self.fresh(T.UQ), self.fresh(T.UQ), self.fresh(T.D)
        self.emit("mov", quotient, n)
        self.emit("mov", remainder, Operand(Imm(0, T.UQ)))
        self.emit("mov", count, Operand(Imm(64, T.D)))
        head = self.m.new_label("div")
        self._start(head)
        self.emit("shr", bit, quotient, Operand(Imm(63, T.UD)))
        self.emit("shl", remainder, remainder, Operand(Imm(1, T.UD)))
        self.emit("or", remainder, remainder, bit)
        self.emit("shl", quotient, quotient, Operand(Imm(1, T.UD)))
        self.emit("cmp", None, remainder, d, cond_mod="ge", flag=(0, 0))
        self.emit("add", remainder, remainder, self._negated(d), predicate=(0, 0, False))
        self.emit("or", quotient, quotient, Operand(Imm(1, T.UD)), predicate=(0, 0, False))
        self.emit("add", count, count, Operand(Imm(-1, T.D)), cond_mod="gt", flag=(0, 0))
        self._branch("while", [head], predicate=(0, 0, False))
        self._start(self.m.new_label("divided"))
        result = quotient if op.endswith("div") else remainder
        if not signed:
            return self._retyped(result, T.UQ)
        flip = self._logic("xor", n_neg, d_neg) if op == "sdiv" else n_neg
        return self._magnitude(self._retyped(result, T.Q), flip)

    def _is_negative(self, x: Operand) -> Operand:
        """0/-1 per lane: x < 0 (for a 64-bit x)."""
        x = self._register(x)
        return self._cmp_value(self._retyped(x, T.Q), Operand(Imm(0, T.Q)), "lt", (0, 1))

    def _magnitude(self, x: Operand, negative: Operand) -> Operand:
        """x negated in the lanes where `negative` is -1 (|x| when it is x < 0)."""
        x = self._in_register(x) if isinstance(x.value, Imm) else self._retyped(x, T.Q)
        dst = self.fresh(T.Q)
        self._flag_from_lanes(negative)
        self.emit("sel", dst, self._negated(x), x, predicate=(0, 0, False))
        return dst

    def _mulhi64(self, signed: bool, a: Operand, b: Operand) -> Operand:
        """The high 64 bits of a 64 x 64 product from four D x D -> Q products of the dword halves:
        hi(a1 b1 + hi(a1 b0) + hi(a0 b1) + carry of hi(a0 b0) + lo(a1 b0) + lo(a0 b1)); the signed form
        subtracts b where a < 0 and a where b < 0."""
        a0, a1, b0, b1 = self._low_dword(a), self._high_dword(a), self._low_dword(b), self._high_dword(b)
        a0, a1 = (self._register(x) for x in (a0, a1))

        def product(x: Operand, y: Operand) -> Operand:
            out = self.fresh(T.UQ)
            self.emit("mul", out, x, y)
            return out

        def widened(x: Operand) -> Operand:
            out = self.fresh(T.UQ)
            self.emit("mov", out, x)
            return out

        def add(x: Operand, y: Operand) -> Operand:
            out = self.fresh(T.UQ)
            self.emit("add", out, x, y)
            return out
        p00, p01, p10, p11 = product(a0, b0), product(a0, b1), product(a1, b0), product(a1, b1)
        mid = add(add(widened(self._high_dword(p00)), widened(self._low_dword(p01))), widened(self._low_dword(p10)))
        high = add(add(add(p11, widened(self._high_dword(p01))), widened(self._high_dword(p10))),
                   widened(self._high_dword(mid)))
        if not signed:
            return high
        for sign_of, other in ((a, b), (b, a)):
            self._flag_from_lanes(self._is_negative(sign_of))
            o = self._in_register(other) if isinstance(other.value, Imm) else self._retyped(other, T.UQ)
            fixed = self.fresh(T.UQ)
            self.emit("mov", fixed, high)
            self.emit("add", fixed, high, self._negated(o), predicate=(0, 0, False))
            high = fixed
        return self._retyped(high, T.Q)

    def _workitem(self, ins: Instr) -> None:
        fn = ins.attrs["fn"]
        dim = ins.operands[0] if ins.operands else Const(ins.type, 0)
        if not isinstance(dim, Const):
            raise self.error(ins, "a work-item function of a variable dimension")
        d = int(dim.value)
        dst = self.fresh(gen_type(ins.type))
        if fn == "work_dim":
            self.emit("mov", dst, Operand(PReg(CROSS_THREAD_GRF + WORK_DIM // 32, (WORK_DIM % 32) // 4, T.UD),
                                          region=SCALAR))
        elif d > 2:
            self.emit("mov", dst, Operand(Imm(1 if fn in ("local_size", "num_groups") else 0, dst.type)))
        elif fn == "local_id":
            self.emit("mov", dst, Operand(PReg(LOCAL_ID_GRF + d, 0, T.UW), region=Region(16, 16, 1)
                                          if self.simd == 16 else Region(8, 8, 1)))
        elif fn == "group_id":
            self.emit("mov", dst, Operand(PReg(0, GROUP_ID_SUBREG[d], T.UD), region=SCALAR))
        elif fn in ("local_size", "num_groups", "global_offset"):
            base = {"local_size": LOCAL_SIZE, "num_groups": NUM_GROUPS, "global_offset": GLOBAL_OFFSET}[fn]
            offset = base + 4 * d
            self.emit("mov", dst, Operand(PReg(CROSS_THREAD_GRF + offset // 32, (offset % 32) // 4, T.UD),
                                          region=SCALAR))
        else:
            raise self.error(ins, f"work-item function {fn} (the gen pipeline lowers it)")
        self.values[ins] = dst
        if ins.type.bits == 64:                      # ids and sizes are below 2^32: zero-extended dwords
            self.narrow[ins] = (False, self._low_dword(dst))

    def _memory(self, ins: Instr, result: Instr | None = None) -> None:
        """A load or store through the message its object and size need (PRM vol. 7, "Data port messages";
        Mesa brw_eu.h): dwords by untyped surface read/write, qwords as two channels of one (the low
        dword at the address, the high one after it), bytes and words by byte scattered messages (a
        read's upper bytes are not promised, so they are masked off). A known object is reached by its
        binding-table index; a pointer whose object is not known (a flat kernel) by the A64 forms of the
        same messages, whose payload carries the 64-bit address as two dword blocks."""
        ptr = ins.operands[0] if ins.opcode == "load" else ins.operands[1]
        value_type = ins.type if ins.opcode == "load" else ins.operands[0].type
        size = value_type.size
        if size not in (1, 2, 4, 8) or value_type.bits == 1:
            raise self.error(ins, f"a {value_type} access")
        align = int(ins.attrs.get("align", size))         # a power of two (LLVM's rule)
        obj = self.provenance.base.get(ptr)
        if isinstance(obj, MemoryObject):                 # by binding-table index: a 32-bit offset per lane
            bti = self._surface(ins, ptr)
            address, address_type = self._low_dword(self._offset_into(obj, self.operand(ptr))), T.UD
            dwords = partial(sm.untyped_surface_desc, bti, self.simd)
            small, small_sfid = partial(sm.byte_scattered_desc, bti, self.simd), sm.SFID_DC0
        elif ptr.type.addrspace in (1, 2):                # A64 stateless: the 64-bit address per lane
            address, address_type = self.operand(ptr), T.UQ
            dwords = partial(sm.a64_untyped_surface_desc, self.simd)
            small, small_sfid = partial(sm.a64_byte_scattered_desc, self.simd), sm.SFID_DC1
        else:
            raise self.error(ins, f"a {ptr.type} pointer whose memory object is not known at compile time "
                                  "(only __global and __constant pointers may be addresses)")
        address_blocks = address_type.size // 4           # dword-per-lane blocks the address takes
        t = gen_type(value_type)
        if align < min(size, 4):
            self._unaligned(ins, result, address, address_type, partial(small, align), small_sfid, align)
            return
        if ins.opcode == "load":
            dst = self.fresh(t)
            address = self._in_register(address, address_type)
            if size < 4:
                raw = self.fresh(T.UD)
                self.emit("send", raw, address, sfid=small_sfid, desc=small(size, False))
                if value_type.is_float:                     # a half: its low word, converted to f32
                    self.emit("mov", dst, self._half_view(raw))
                else:
                    self.emit("and", dst, raw, Operand(Imm((1 << 8 * size) - 1, T.UD)))
            elif size == 4:
                self.emit("send", dst, address, sfid=sm.SFID_DC1, desc=dwords(1, False))
            else:
                halves = self.fresh(T.UQ)                 # two dword-per-lane blocks: low, then high
                self.emit("send", self._part(halves, 0, T.UD), address, sfid=sm.SFID_DC1, desc=dwords(2, False))
                self.emit("mov", self._low_dword(dst), self._part(halves, 0, T.UD))
                self.emit("mov", self._high_dword(dst), self._part(halves, 1, T.UD))
            self.values[result or ins] = dst
            return
        value = self.operand(ins.operands[0])
        data = address_blocks                             # the payload: the address blocks, then the data
        payload = Operand(self.m.vreg(T.UD, False, data + (2 if size == 8 else 1)))
        self.emit("mov", self._part(payload, 0, address_type), address)
        if size == 8:
            self.emit("mov", self._part(payload, data, T.UD), self._low_dword(value))
            self.emit("mov", self._part(payload, data + 1, T.UD), self._high_dword(value))
            desc, sfid = dwords(2, True), sm.SFID_DC1
        else:
            part = self._part(payload, data, t if size == 4 else T.UD)
            self.emit("mov", self._half_view(part) if value_type.is_float and size == 2 else part, value)
            desc, sfid = (dwords(1, True), sm.SFID_DC1) if size == 4 else (small(size, True), small_sfid)
        self.emit("send", None, self._part(payload, 0, T.UD), sfid=sfid, desc=desc)

    def _unaligned(self, ins: Instr, result: Instr | None, address: Operand, address_type: DataType,
                   piece_desc, sfid: int, piece: int) -> None:
        """An access aligned to less than its size (at most 4) as one byte scattered message per `piece`
        bytes (its alignment: 1 or 2), each at an address aligned to its size, as the data port needs
        (PRM vol. 7, "Byte scattered read/write"); the pieces are shifted into (or out of) little-endian
        dwords."""
        value_type = ins.type if ins.opcode == "load" else ins.operands[0].type
        size, t = value_type.size, gen_type(value_type)
        mask, per_dword = (1 << 8 * piece) - 1, 4 // piece

        def address_of(k: int) -> Operand:
            if k == 0:
                return self._in_register(address, address_type)
            at = self.fresh(address_type)
            self.emit("add", at, address, Operand(Imm(k * piece, address_type)))
            return at
        if ins.opcode == "load":
            words = []
            for j in range(max(1, size // 4)):
                word: Operand | None = None
                for k in range(j * per_dword, min(size // piece, (j + 1) * per_dword)):
                    raw, bits = self.fresh(T.UD), self.fresh(T.UD)
                    self.emit("send", raw, address_of(k), sfid=sfid, desc=piece_desc(False))
                    self.emit("and", bits, raw, Operand(Imm(mask, T.UD)))
                    if word is not None:
                        shifted, merged = self.fresh(T.UD), self.fresh(T.UD)
                        self.emit("shl", shifted, bits, Operand(Imm(8 * piece * (k % per_dword), T.UD)))
                        self.emit("or", merged, word, shifted)
                        bits = merged
                    word = bits
                assert word is not None
                words.append(word)
            dst = self.fresh(t)
            if size == 8:
                self.emit("mov", self._low_dword(dst), words[0])
                self.emit("mov", self._high_dword(dst), words[1])
            elif size == 2 and value_type.is_float:       # a half: its bits, converted to f32
                self.emit("mov", dst, self._half_view(words[0]))
            else:
                self.emit("mov", self._retyped(dst, T.UD), words[0])
            self.values[result or ins] = dst
            return
        value = self.operand(ins.operands[0])
        if size == 8:
            words = [self._low_dword(value), self._high_dword(value)]
        elif size == 2 and value_type.is_float:           # f32 -> the half's bits in a dword's low word
            bits = self.fresh(T.UD)
            self.emit("mov", bits, Operand(Imm(0, T.UD)))
            self.emit("mov", self._half_view(bits), value)
            words = [bits]
        else:
            words = [self._raw_bits(value)]
        blocks = address_type.size // 4
        for k in range(size // piece):
            payload = Operand(self.m.vreg(T.UD, False, blocks + 1))
            self.emit("mov", self._part(payload, 0, address_type), address_of(k))
            data, shift = self._part(payload, blocks, T.UD), 8 * piece * (k % per_dword)
            word = words[k // per_dword]
            if shift:
                self.emit("shr", data, self._register(word), Operand(Imm(shift, T.UD)))
            else:
                self.emit("mov", data, word)
            self.emit("send", None, self._part(payload, 0, T.UD), sfid=sfid, desc=piece_desc(True))

    def _offset_into(self, obj: MemoryObject, ptr: Operand) -> Operand:
        """A pointer as a byte offset into its object's surface: itself, except in a flat kernel, where
        buffer and constant-table pointers are addresses and the object's base comes off."""
        if not self.layout.flat or obj.kind not in ("buffer", "constant"):
            return ptr
        base = self._object_base(obj.arg if obj.kind == "buffer" else obj.name)
        ptr = self._register(ptr)
        offset = self.fresh(T.Q)
        self.emit("add", offset, self._retyped(ptr, T.Q), self._negated(base))
        return offset

    def _atomic(self, ins: Instr) -> None:
        """A 32-bit atomic through an untyped atomic message, which returns the old value (PRM vol. 7,
        "Untyped atomic operation"; Mesa brw_eu.h BRW_AOP_*): the address block, then the operands
        (cmpxchg: the compared value, then the new one). Atomic loads and stores are plain dword
        accesses: the data port orders a lane's accesses to one address."""
        fn = ins.attrs["op"]
        value_type = ins.type if fn != "store" else ins.operands[1].type
        if value_type.bits != 32 or not (value_type.is_int or fn in ("xchg", "load", "store")):
            raise self.error(ins, f"an atomic {fn} on {value_type}")
        if fn in ("load", "store"):
            if fn == "store":
                self._memory(Instr("store", [ins.operands[1], ins.operands[0]], ins.type, {"align": 4}))
            else:
                self._memory(Instr("load", [ins.operands[0]], ins.type, {"align": 4}), ins)
            return
        bti = self._surface(ins, ins.operands[0])
        sources = [ins.operands[2], ins.operands[1]] if fn == "cmpxchg" else list(ins.operands[1:])
        payload = Operand(self.m.vreg(T.UD, False, 1 + len(sources)))
        self.emit("mov", self._part(payload, 0, T.UD), self._low_dword(self.operand(ins.operands[0])))
        for k, src in enumerate(sources):
            self.emit("mov", self._part(payload, k + 1, T.UD), self._raw_bits(self.operand(src, False)))
        dst = self.fresh(gen_type(value_type))
        self.emit("send", dst, self._part(payload, 0, T.UD), sfid=sm.SFID_DC1,
                  desc=sm.untyped_atomic_desc(bti, self.simd, ATOMIC_AOP[fn], True))
        self.values[ins] = dst

    def _raw_bits(self, op: Operand) -> Operand:
        """A 32-bit operand's bits as :ud (a float immediate as its IEEE pattern), for moving unconverted."""
        if isinstance(op.value, Imm) and op.type == T.F:
            return Operand(Imm(int.from_bytes(struct.pack("<f", op.value.value), "little"), T.UD))
        return self._retyped(op, T.UD)

    def _surface(self, ins: Instr, ptr: Value) -> int:
        """The binding-table index of the object `ptr` points into; a pointer whose object is not known
        at compile time (it may point into two, or was loaded or made from an integer) is refused."""
        obj = self.provenance.base.get(ptr)
        if not isinstance(obj, MemoryObject):
            raise self.error(ins, "a pointer whose memory object is not known at compile time")
        if obj.kind == "buffer":
            assert obj.arg is not None
            return self.layout.buffer_bti[obj.arg]
        if obj.kind == "constant":
            return self.layout.constants[obj.name][0]
        if obj.kind == "workgroup":
            return sm.BTI_SLM
        return sm.BTI_STATELESS

    def _pointer(self, ins: Instr) -> None:
        """alloca, global_addr and pointer casts: a pointer is a byte offset into its object's surface."""
        op = ins.opcode
        if op == "alloca":
            address, dst = self.fresh(T.UD), self.fresh(T.UQ)
            self.emit("add", address, self._private_base(), Operand(Imm(self.layout.private[ins], T.UD)))
            self.emit("mov", dst, address)
        elif op == "global_addr":
            sym = ins.attrs["symbol"]
            dst = self._object_base(sym) if sym in self.layout.constants else Operand(Imm(self.layout.slm[sym], T.UQ))
        else:                                           # addrspacecast, bitcast: the same offset
            dst = self.operand(ins.operands[0])
        self.values[ins] = dst

    def _private_base(self) -> Operand:
        """This lane's private frame in the scratch space: (r0.5 & ~1023) + lane * private_bytes, computed
        once in the entry block (lane numbers from a packed-vector immediate, 8 at a time)."""
        if self.private_base is not None:
            return self.private_base
        lanes = Operand(self.m.vreg(T.UW))
        entry = self.m.blocks[0]
        code = [MInstr("mov", 8, lanes, [Operand(Imm(0x76543210, T.V))], no_mask=True)]
        if self.simd == 16:
            code.append(MInstr("add", 8, Operand(lanes.value, 16), [Operand(lanes.value, 0), Operand(Imm(8, T.UW))],
                               no_mask=True))
        slot, offsets, base = self.fresh(T.UD, uniform=True), self.fresh(T.UD), self.fresh(T.UD)
        code += [MInstr("and", 1, slot, [Operand(PReg(0, 5, T.UD), region=SCALAR), Operand(Imm(0xFFFFFC00, T.UD))],
                        no_mask=True),
                 MInstr("mul", self.simd, offsets, [lanes, Operand(Imm(self.layout.private_bytes, T.UW))]),
                 MInstr("add", self.simd, base, [offsets, slot])]
        entry.instrs[0:0] = code
        self.private_base = base
        return base

    def _part(self, op: Operand, index: int, t: DataType) -> Operand:
        """The index-th dword-per-lane slice of a payload value (GRF-contiguous as a message wants)."""
        v = op.value
        assert isinstance(v, VReg)
        return Operand(VReg(v.id, t, v.uniform, v.count), index * 4 * self.simd)

    def _barrier(self, ins: Instr) -> None:
        """Fences for the memory the flags name (SLM, then the rest), then the gateway barrier, whose
        payload carries r0.2's barrier id, and `wait` on n0 until every thread of the group has sent
        one (Mesa brw_fs_nir.cpp emit_barrier; PRM vol. 7, "Message gateway")."""
        flags = ins.operands[0]
        spaces = fence_spaces(int(flags.value) if isinstance(flags, Const) else None)
        for bti in ([sm.BTI_SLM] if "local" in spaces else []) + ([0] if "global" in spaces else []):
            done = self.fresh(T.UD, uniform=True, count=8)
            self.emit("send", done, Operand(PReg(0, 0, T.UD)), n=8, no_mask=True, sfid=sm.SFID_DC0,
                      desc=sm.memory_fence_desc(bti))
        payload = self.fresh(T.UD, uniform=True, count=8)
        self.emit("mov", payload, Operand(Imm(0, T.UD)), n=8, no_mask=True)
        self.emit("and", Operand(payload.value, 8), Operand(PReg(0, 2, T.UD), region=SCALAR),
                  Operand(Imm(BARRIER_ID_MASK, T.UD)), n=1, no_mask=True)
        self.emit("send", None, payload, n=1, no_mask=True, sfid=sm.SFID_GATEWAY, desc=sm.barrier_desc())
        self.emit("wait", None, n=1, no_mask=True)

    def _end_of_thread(self) -> None:
        header = Operand(PReg(127, 0, T.UD))
        self.emit("mov", header, Operand(PReg(0, 0, T.UD), region=Region(8, 8, 1)), n=8, no_mask=True)
        self.emit("send", None, Operand(PReg(127, 0, T.UD)), n=8, no_mask=True, sfid=sm.SFID_THREAD_SPAWNER,
                  desc=sm.eot_desc(), eot=True)


def one_cmp(ins: Instr) -> tuple[str, bool] | None:
    """(conditional modifier, signed) of a compare Gen does in one cmp: every icmp, and the fcmps that
    are false on NaN (or une, true on it); None for the others (Selector._compare builds those)."""
    pred = ins.attrs.get("pred", "")
    if ins.opcode == "icmp":
        return ICMP_MODS[pred[1:] if pred[0] in "su" else pred], pred[0] != "u"
    if ins.opcode == "fcmp" and pred in FCMP_MODS:
        return FCMP_MODS[pred], True
    return None


def use_counts(func: Function) -> dict[Value, int]:
    """How many times each value is read: operands (phi sources included) and if conditions."""
    counts: dict[Value, int] = {}
    for ins in func.instructions():
        for v in ins.operands:
            counts[v] = counts.get(v, 0) + 1
    if func.is_structured:
        stack = [func.body]
        while stack:
            for node in stack.pop():
                if isinstance(node, If):
                    counts[node.cond] = counts.get(node.cond, 0) + 1
                    stack += [node.then_list, node.else_list]
                elif isinstance(node, Loop):
                    stack.append(node.body)
    return counts


def needs_flat_addresses(func: Function, provenance: Provenance) -> bool:
    """Does some memory access go through a pointer whose object is not known at compile time, or does
    the kernel turn pointers into integers or back? Then its pointers are 64-bit addresses (abi.py)."""
    for ins in func.instructions():
        if ins.opcode in ("ptrtoint", "inttoptr"):
            return True
        if ins.opcode in ("load", "store", "atomic"):
            ptr = ins.operands[1] if ins.opcode == "store" else ins.operands[0]
            if not isinstance(provenance.base.get(ptr), MemoryObject):
                return True
    return False


def select(func: Function, simd: int = 16) -> MFunction:
    if simd not in (8, 16):
        raise CompileError(f"{where(func)}: SIMD{simd} (8 or 16)")
    return Selector(func, simd).run()
