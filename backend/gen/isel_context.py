"""The machine function being selected: what every part of instruction selection shares.

A `SelectionContext` holds the MFunction under construction and its current block, the machine
operand of every IR value computed so far, the kernel's ABI layout and the pointers' provenance; it
appends instructions (`emit`, free of Gen's operand rules: legalize.py applies those afterwards),
opens blocks (`branch`, `start`), and makes the operand views the parts need (a 64-bit value's dword
halves, a payload's slices, a half's word, a register holding an immediate). The parts that use it:
isel_values.py (one IR instruction at a time, through its table), isel_int64.py, isel_memory.py, and
the control-flow drivers isel_structured.py and isel_blockip.py, each of which owns one context and one
value selector.
"""
from __future__ import annotations

import struct
from collections import Counter
from collections.abc import Sequence
from itertools import chain
from operator import attrgetter

from reconverge.isa.gen9 import messages as sm
from reconverge.isa.gen9.model import DataType, Region
from reconverge.isa.gen9.payload import CROSS_THREAD_GRF
from reconverge.lowering.analysis.provenance import MemoryObject, Provenance
from reconverge.lowering.errors import CompileError, NotSupported, where
from reconverge.lowering.ir.core import Arg, Block, Const, Function, If, Instr, Loop, Phi, Undef, Value
from reconverge.lowering.ir.types import Type

from .abi import KernelLayout, kernel_layout
from .isel_flags import NEGATED_MOD, FlagChain, FlagLeaf, FlagPlan, FlagPlanner
from .mir import Imm, MBlock, MFunction, MInstr, Operand, PReg, VReg

TYPE_CHECKING = False                   # not typing's: a compile's start-up does not import typing
if TYPE_CHECKING:
    from typing import Any

T = DataType
SCALAR = Region(0, 1, 0)
ICMP_MODS = {"eq": "eq", "ne": "ne", "gt": "gt", "ge": "ge", "lt": "lt", "le": "le"}
FCMP_MODS = {"oeq": "eq", "ogt": "gt", "oge": "ge", "olt": "lt", "ole": "le", "une": "ne"}
Predicate = tuple[int, int, bool]                    # (flag, subflag, inverted)


def gen_type(t: Type, signed: bool = True) -> DataType:
    """The Gen type an IR value of type `t` lives in (remembered per kind, width and signedness: selection
    asks it of nearly every operand)."""
    key = (t.kind, t.bits, signed)
    found = _GEN_TYPES.get(key)
    if found is None:
        found = _GEN_TYPES[key] = _gen_type(t, signed)
    return found


_GEN_TYPES: dict[tuple[str, int, bool], DataType] = {}


def _gen_type(t: Type, signed: bool) -> DataType:
    if t.is_int and t.bits == 1:                       # a bool lives as 0 / -1 per lane, as cmp writes it
        return T.D
    if t.is_int and t.bits in (8, 16):                 # a loaded byte or word, zero-extended in a dword
        return T.UD
    if t.is_float and t.bits == 32:
        return T.F
    if t.is_float and t.bits == 64:
        return T.DF
    if t.is_float and t.bits == 16:                    # a half lives as the f32 it equals (ValueSelector.select)
        return T.F
    if t.is_int and t.bits == 32:
        return T.D if signed else T.UD
    if (t.is_int and t.bits == 64) or t.is_ptr:
        return T.Q if signed else T.UQ
    raise NotSupported(f"type {t} is not supported by the Gen backend yet")


class SelectionContext:
    def __init__(self, func: Function, simd: int, flag_chains: bool = True):
        self.func, self.simd = func, simd
        self.m = MFunction(func.name, simd)
        self.block = self.m.block("entry")
        self.values: dict[Value, Operand] = {}
        # the instructions in order, listed once for the analyses below and the drivers' (a walk of the
        # tree each was a tenth of a small kernel's selection set-up)
        self.instrs: list[Instr] = list(func.instructions())
        self.provenance = Provenance(func, instrs=self.instrs)
        self.layout: KernelLayout = kernel_layout(func, needs_flat_addresses(func, self.provenance, self.instrs),
                                                  self.instrs)
        self.private_base: Operand | None = None              # this lane's private frame (A32 address)
        self.uses = use_counts(func, self.instrs)
        self.deferred: set[Instr] = set()                     # compares left to the branch that reads them
        self.narrow: dict[Value, tuple[bool | None, Operand]] = {}   # i64 values that are extended i32 ones
        self.named: set[str] = set()                          # labels a branch or a start named
        self.subgroups: object | None = None                  # isel_subgroup's selector, made on first use
        self.flags = FlagPlanner(self.uses, one_cmp, flag_chains)
        self.flag_plans: dict[Value, FlagPlan] = {}           # conditions selected into a flag (isel_flags)
        self.select_conds = self._select_conditions()         # what a select reads as its flag, deferred
        self.narrowed: set[Instr] = set()     # 64-bit values kept in 32 bits (isel_narrow; the ValueSelector sets it)

    def _select_conditions(self) -> set[Instr]:
        """Conditions whose only reader is a select in their own block, planned into its flag (isel_flags:
        one cmp, where a 0/-1 dword and a cmp.ne on it took two; IGC does the same); the instructions
        the plans own."""
        for ins in self.instrs:
            if ins.opcode == "select" and ins.block is not None:
                plan = self.flags.plan(ins.operands[0], ins.block)
                if plan is not None:
                    self.flag_plans[ins.operands[0]] = plan
        return set(self.flags.taken)

    def value_type(self, v: Value) -> DataType:
        """The Gen type a value lives in: its own (gen_type), or a dword where only its low 32 bits are read."""
        return T.D if v in self.narrowed else gen_type(v.type)

    def error(self, ins: Instr | None, what: str) -> CompileError:
        return CompileError(f"{where(self.func, ins)}: {what} (not in the Gen backend yet)")

    # ----- appending code
    def emit(self, opcode: str, dst: Operand | None, *srcs: Operand, n: int | None = None, **kw: Any) -> MInstr:
        """Append one instruction to the current block (at the function's SIMD width unless `n`)."""
        # (without keywords, a plain call: unpacking even an empty dictionary takes the slower call)
        ins = MInstr(opcode, n or self.simd, dst, list(srcs), **kw) if kw else \
            MInstr(opcode, n or self.simd, dst, list(srcs))
        self.block.instrs.append(ins)             # (MBlock.append's work, without its call)
        return ins

    def fresh(self, t: DataType, uniform: bool = False, count: int = 1) -> Operand:
        vregs = self.m.vregs                # (MFunction.vreg, inline: a call less for every value)
        n = len(vregs)
        v = vregs[n] = VReg(n, t, uniform, count)
        return Operand(v)

    def branch(self, opcode: str, targets: list[str], **kw: Any) -> None:
        self.block.instrs.append(MInstr(opcode, self.simd, None, [], targets=targets, **kw))
        m = self.m                          # (new_label and block, inline: every branch)
        m.labels_made += 1
        self.block = MBlock(f"b{m.labels_made}")                # unnamed: a start may rename it
        m.blocks.append(self.block)

    def start(self, label: str) -> None:
        """Go on in a block named `label` (renaming the current one if nothing was put in it yet and no
        branch names it)."""
        if self.block.instrs or self.block.label in self.named:
            self.block = self.m.block(label)
        else:
            self.block.label = label
        self.named.add(label)

    def copy(self, src: Operand) -> Operand:
        uniform = isinstance(src.value, VReg) and src.value.uniform
        tmp = self.fresh(src.type, uniform)
        self.emit("mov", tmp, src, **_scalar_write(tmp))
        return tmp

    def phi_copies(self, phis: Sequence[Phi], pred: Block | None, predicate: Predicate | None = None) -> None:
        """The phis' values along the edge from `pred` (on the lanes `predicate` picks, if given), copied
        in parallel: sequenced so that each phi is written after every copy that reads its old value,
        and only a cycle of such reads (a swap) goes through a temporary (the parallel-copy sequencing of
        Boissinot et al., "Revisiting Out-of-SSA Translation", CGO 2009); a copy of a phi to itself is
        no copy, and neither is a copy of undef (whatever the register holds will do)."""
        assert pred is not None
        pending: list[tuple[Operand, Operand, Phi]] = []
        read, written = set(), []             # the registers the copies read and write (no comprehensions)
        for phi in phis:
            v = phi.value_for(pred)           # (once: a search of the phi's blocks)
            if isinstance(v, Undef):
                continue
            d, s = self.values[phi], self.operand(v)
            sv, dv = s.value, d.value         # (_reg_id of each, inline)
            sid, did = sv.id if type(sv) is VReg else None, dv.id if type(dv) is VReg else None
            if sid != did or s.offset or s.region:
                pending.append((d, s, phi))
                read.add(sid)
                written.append(did)
        if not read.isdisjoint(written):
            self._sequenced_copies(pending, predicate)
            return
        for dst, src, phi in pending:         # (no copy reads another's target: the loop below, in order)
            if phi in self.narrowed:
                src = retyped(low_dword(src), T.D)
            self.emit("mov", dst, src, predicate=predicate, **_scalar_write(dst))

    def _sequenced_copies(self, pending: list[tuple[Operand, Operand, Phi]], predicate: Predicate | None) -> None:
        """phi_copies' copies where one reads another's target: each emitted once no pending copy reads its
        target, a cycle broken through a temporary."""
        while pending:
            read = [_reg_id(s) for _, s, _ in pending]
            free = None                       # the first copy whose target no pending copy reads (a loop: no
            for k, (d, _, _) in enumerate(pending):     # generator made per copy sequenced)
                if _reg_id(d) not in read:
                    free = k
                    break
            if free is None:                  # a cycle: the first target's old value into a temporary
                d0 = pending[0][0]
                saved = self.copy(d0)
                pending = [(d, saved if _reg_id(s) == _reg_id(d0) else s, phi) for d, s, phi in pending]
                continue
            dst, src, phi = pending.pop(free)
            if phi in self.narrowed:
                src = retyped(low_dword(src), T.D)
            self.emit("mov", dst, src, predicate=predicate, **_scalar_write(dst))

    def end_of_thread(self) -> None:
        header = Operand(PReg(127, 0, T.UD))
        self.emit("mov", header, Operand(PReg(0, 0, T.UD), region=Region(8, 8, 1)), n=8, no_mask=True)
        self.emit("send", None, Operand(PReg(127, 0, T.UD)), n=8, no_mask=True, sfid=sm.SFID_THREAD_SPAWNER,
                  desc=sm.eot_desc(), eot=True)

    # ----- operands
    def operand(self, v: Value, signed: bool = True) -> Operand:
        op = self.values.get(v)             # (an instruction's or phi's: the values hold no constant)
        if op is None:
            if isinstance(v, Const):
                vt = v.type
                kind = vt.kind              # (gen_type, is_float and Const.signed, inline: every constant operand)
                t = _GEN_TYPES.get((kind, vt.bits, signed)) or gen_type(vt, signed)
                if kind == "float":
                    return Operand(Imm(float(v.value), t))
                if not signed:
                    return Operand(Imm(v.value, t))
                x = int(v.value)
                if kind == "int" and x >> (vt.bits - 1):
                    x -= 1 << vt.bits
                return Operand(Imm(x, t))
            if isinstance(v, Undef):
                return Operand(Imm(0, gen_type(v.type, signed)))
            if isinstance(v, Arg):
                op = self._argument(v)
            if op is None:
                if isinstance(v, Instr):
                    raise CompileError(f"internal error: {where(self.func, v)}: its value was never selected")
                raise self.error(None, f"value {v!r} is not computed")
        vt = v.type                         # (gen_type's remembered answer, without its call: every operand)
        t = _GEN_TYPES.get((vt.kind, vt.bits, signed)) or gen_type(vt, signed)
        if op.value.type is t:              # (retyped's first test, without its call: most operands)
            return op
        return retyped(op, t)

    def _argument(self, a: Arg) -> Operand:
        if a in self.layout.buffer_bti:
            return self.object_base(a)
        return self.cross_thread(self.layout.arguments[a], gen_type(a.type))

    def object_base(self, key: Arg | str) -> Operand:
        """A buffer's (or constant table's) pointer value: 0, offsets counting from its start, or in a
        flat kernel its 64-bit address from the cross-thread data."""
        if not self.layout.flat:
            return Operand(Imm(0, T.UQ))
        return self.cross_thread(self.layout.bases[key], T.UQ)

    @staticmethod
    def cross_thread(offset: int, t: DataType) -> Operand:
        reg, sub = CROSS_THREAD_GRF + offset // 32, (offset % 32) // t.size
        return Operand(PReg(reg, sub, t), region=SCALAR)

    def in_register(self, op: Operand, t: DataType | None = None) -> Operand:
        """`op` in a register of its own (of type t): an immediate made a register, or a view (a strided
        low dword, a payload scalar) made a whole per-lane value, as a message payload needs."""
        if t is not None and isinstance(op.value, VReg) and op.value.type == t and op.region is None \
                and op.offset == 0 and not op.value.uniform:
            return op
        reg = self.fresh(t or op.type)
        self.block.append(MInstr("mov", self.simd, reg, [op]))
        return reg

    def register(self, op: Operand) -> Operand:
        """`op`, or the immediate it is moved into a register (where Gen takes no immediate: a first
        source, a math-box source, an operand with a source modifier)."""
        return self.in_register(op) if isinstance(op.value, Imm) else op

    def absolute(self, op: Operand) -> Operand:
        """|op| through the abs source modifier (on a register: an immediate is moved into one first)."""
        op = self.register(op)
        return Operand(op.value, op.offset, op.region, False, True)

    def part(self, op: Operand, index: int, t: DataType) -> Operand:
        """The index-th dword-per-lane slice of a payload value (GRF-contiguous as a message wants)."""
        v = op.value
        assert isinstance(v, VReg)
        return Operand(VReg(v.id, t, v.uniform, v.count), index * 4 * self.simd)

    # ----- flags and compares (shared by the drivers' branches and the value selector)
    def defer_condition(self, cond: Value | None, block: Block) -> None:
        """`cond`, read only by the branch right after `block`, is planned into the branch's flag
        (isel_flags: a compare, or and / or / not of compares chained through the flag) and the
        instructions it owns are deferred to the branch (one cmp into f0.0 instead of a 0/-1 dword and a
        cmp.ne on it)."""
        plan = self.flags.plan(cond, block) if cond is not None else None
        if plan is not None:
            assert cond is not None
            self.flag_plans[cond] = plan
            self.deferred |= self.flags.taken

    def condition_flag(self, cond: Value) -> None:
        """f0.0 = the i1 `cond` on the enabled lanes: its plan (isel_flags), or a test of its 0/-1 dword."""
        self.flag_plan(self.flag_plans.get(cond) or FlagLeaf(cond, False))

    def flag_plan(self, plan: FlagPlan, predicate: Predicate | None = None) -> None:
        """Emit `plan` into f0.0; a chain's later compares are predicated on f0.0 itself."""
        flag = (0, 0)
        if isinstance(plan, FlagChain):
            self.flag_plan(plan.first, predicate)
            self.flag_plan(plan.then, (*flag, not plan.conjunction))
            return
        v = plan.value
        if plan.fused:
            assert isinstance(v, Instr)
            single = one_cmp(v)
            assert single is not None
            mod = NEGATED_MOD[single[0]] if plan.negated else single[0]
            self.cmp_flag(mod, v.operands[0], v.operands[1], single[1], flag, predicate)
        else:
            self.flag_from_lanes(self.operand(v), "eq" if plan.negated else "ne", predicate)

    def flag_from_lanes(self, lanes: Operand, mod: str = "ne", predicate: Predicate | None = None) -> None:
        """f0.0 = the lanes where a 0/-1 dword (an i1 value) is -1 (`mod` eq: is 0)."""
        self.emit("cmp", None, lanes, Operand(Imm(0, T.D)), cond_mod=mod, flag=(0, 0), predicate=predicate)

    def cmp(self, mod: str, x: Value, y: Value, signed: bool = True, flag: tuple[int, int] = (0, 1)) -> Operand:
        """x <mod> y into a 0/-1 dword per lane (and into `flag`)."""
        a, b = self.operand(x, signed), self.operand(y, signed)
        return self.cmp_value(self.register(a), b, mod, flag)

    def cmp_value(self, a: Operand, b: Operand, mod: str, flag: tuple[int, int]) -> Operand:
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
        self.emit("mov", dst, retyped(low_dword(wide), T.D))
        return dst

    def cmp_flag(self, mod: str, x: Value, y: Value, signed: bool, flag: tuple[int, int],
                 predicate: Predicate | None = None) -> None:
        """x <mod> y into `flag` only (on the lanes `predicate` picks, if given)."""
        a, b = self.operand(x, signed), self.operand(y, signed)
        self.emit("cmp", None, self.register(a), b, cond_mod=mod, flag=flag, predicate=predicate)

    def logic(self, opcode: str, a: Operand, b: Operand) -> Operand:
        dst = self.fresh(T.D)
        self.emit(opcode, dst, a, b)
        return dst


def _reg_id(op: Operand) -> int | None:
    """The virtual register an operand reads or writes (None for an immediate or a payload register)."""
    v = op.value
    return v.id if type(v) is VReg else None      # (VReg has no subclasses)


def _scalar_write(dst: Operand) -> dict[str, Any]:
    """How to write a uniform register (isel_uniform): once, on channel 0, with the mask off (keywords to
    unpack: two shared dictionaries, not one made per copy)."""
    return _SCALAR_WRITE if isinstance(dst.value, VReg) and dst.value.uniform else _ANY_WRITE


_SCALAR_WRITE: dict[str, Any] = {"n": 1, "no_mask": True}
_ANY_WRITE: dict[str, Any] = {}


# ----- operand views that need no context
def retyped(op: Operand, t: DataType) -> Operand:
    """The same bits read as another type of the same size (:d as :ud, :q as :uq)."""
    v = op.value
    now = v.type                            # (op.type, read once: a property, asked of nearly every operand)
    if now == t or now.size != t.size:
        return op
    if isinstance(v, VReg):
        return Operand(VReg(v.id, t, v.uniform, v.count), op.offset, op.region, op.neg, op.abs)
    if isinstance(v, Imm):
        return Operand(Imm(v.value, t))
    return Operand(PReg(v.reg, v.subreg * now.size // t.size, t), op.offset, op.region)


def negated(op: Operand) -> Operand:
    """-op: a negated immediate, or the negate source modifier flipped."""
    if isinstance(op.value, Imm):
        return Operand(Imm(-op.value.value, op.type))
    return Operand(op.value, op.offset, op.region, not op.neg, op.abs)


def low_dword(op: Operand) -> Operand:
    """The low 32 bits of a 64-bit value: every other dword, <2;1,0> (little-endian)."""
    if isinstance(op.value, Imm):
        return Operand(Imm(int(op.value.value) & 0xFFFFFFFF, T.UD))
    if op.type.size != 8:
        return op
    v = op.value
    if isinstance(v, VReg):
        return Operand(VReg(v.id, T.UD, v.uniform), op.offset, SCALAR if v.uniform else Region(16, 8, 2))
    return Operand(PReg(v.reg, v.subreg * 2, T.UD), region=SCALAR)


def high_dword(op: Operand) -> Operand:
    """The high 32 bits of a 64-bit value (the dword after each low one)."""
    if isinstance(op.value, Imm):
        return Operand(Imm((int(op.value.value) >> 32) & 0xFFFFFFFF, T.UD))
    v = op.value
    if isinstance(v, VReg):
        return Operand(VReg(v.id, T.UD, v.uniform), op.offset + 4, SCALAR if v.uniform else Region(16, 8, 2))
    return Operand(PReg(v.reg, v.subreg * 2 + 1, T.UD), region=SCALAR)


def half_view(op: Operand) -> Operand:
    """The low half-float word of each lane's dword (Gen9 writes :hf at a stride of 2 here)."""
    v = op.value
    assert isinstance(v, VReg)
    return Operand(VReg(v.id, T.HF, v.uniform, v.count), op.offset, Region(16, 8, 2))


def raw_bits(op: Operand) -> Operand:
    """A 32-bit operand's bits as :ud (a float immediate as its IEEE pattern), for moving unconverted."""
    if isinstance(op.value, Imm) and op.type == T.F:
        return Operand(Imm(int.from_bytes(struct.pack("<f", op.value.value), "little"), T.UD))
    return retyped(op, T.UD)


# ----- facts about the IR function
def one_cmp(ins: Instr) -> tuple[str, bool] | None:
    """(conditional modifier, signed) of a compare Gen does in one cmp: every icmp, and the fcmps that
    are false on NaN (or une, true on it); None for the others (isel_values.compare builds those)."""
    pred = ins.attrs.get("pred", "")
    if ins.opcode == "icmp":
        return ICMP_MODS[pred[1:] if pred[0] in "su" else pred], pred[0] != "u"
    if ins.opcode == "fcmp" and pred in FCMP_MODS:
        return FCMP_MODS[pred], True
    return None




_OPERANDS = attrgetter("operands")


def use_counts(func: Function, instrs: list[Instr] | None = None) -> dict[Value, int]:
    """How many times each value is read: operands (phi sources included) and if conditions (`instrs`:
    the function's instructions, where the caller has listed them)."""
    # (counted in C: Counter over the operand lists chained, each list taken by attrgetter through map, not a
    # dictionary update per operand in Python nor a generator's step per instruction)
    counts: dict[Value, int] = Counter(chain.from_iterable(
        map(_OPERANDS, func.instructions() if instrs is None else instrs)))
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


def needs_flat_addresses(func: Function, provenance: Provenance, instrs: list[Instr] | None = None) -> bool:
    """Does some memory access go through a pointer whose object is not known at compile time, or does
    the kernel turn pointers into integers or back? Then its pointers are 64-bit addresses (abi.py)."""
    for ins in func.instructions() if instrs is None else instrs:
        op = ins.opcode
        if op in _FLAT_TESTS:                # (one set asked of every instruction, then which of them)
            if op == "ptrtoint" or op == "inttoptr":
                return True
            ptr = ins.operands[1] if op == "store" else ins.operands[0]
            if not isinstance(provenance.base.get(ptr), MemoryObject):
                return True
    return False


_FLAT_TESTS = frozenset(("ptrtoint", "inttoptr", "load", "store", "atomic"))
