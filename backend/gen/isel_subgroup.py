"""Sub-group operations on Gen9: a sub-group is one hardware thread's SIMD channels.

max_size is the SIMD width S; lane i of thread t is work-item t * S + i of its work-group (linear local
id, isa/gen9/dispatch.py), so the thread's index in the group is the sub-group id, its channel index the
sub-group local id, and the last thread of a group whose size is no multiple of S is the partial
sub-group (its dispatch mask enables only its work-items).

An operation works over the *active* lanes: those enabled where it runs. In every control-flow mode that
is the hardware execution mask (structured mode: if/else/endif, break/cont and halt disable lanes;
blockIP: the if around a block enables the lanes whose blockIP selects it; the predicated blockIP
scheme predicates the one instruction here that reads the mask). So each operation starts with a
*masked* copy of its operand into a register filled, on every channel (NoMask), with the operation's
identity; from there on all work runs with NoMask on all channels, inactive and undispatched ones
holding the identity:

- reduce (clustered too): log2(C) steps of t[i] = t[i] op t[i + d] (d = 1, 2, 4, ...) over a buffer of
  2S elements whose upper half holds the identity; lane j*C then holds cluster j's result, which a
  region <C;C,0> (or <0;1,0>) hands to the cluster's lanes;
- inclusive scans: Hillis and Steele's log-step scan (CACM 29(12), 1986): t[i] = t[i] op t[i - d] over
  a buffer whose lower half holds the identity; exclusive scans shift by one lane first;
- the shifted copies are movs of at most one GRF each, reading an unaligned start through the region
  <1;1,0> (a row may not cross a register: PRM vol. 7, "Region Restrictions");
- broadcast, broadcast_first: compare the lane-number vector with the (uniform) source lane, copy that
  lane's value under the flag into zeros, and OR-reduce its bits; shuffles (a lane index per lane): one
  compare and one predicated broadcast mov per source lane (S of each);
- all/any: AND/OR reductions of the 0/-1 booleans; all_equal: all(x == broadcast_first(x)); elect: the
  lane whose number is the UMIN reduction of the active lane numbers; ballot: OR reduction of
  (x & 1 << lane) (word 0; the words past S lanes are 0);
- results are written under the mask, like any other instruction's: the result's register is the
  same in every iteration of a loop around the operation, and a lane that left the loop in an earlier
  iteration keeps the value it left with there (a result written on every channel gave such lanes a
  later iteration's reduction);
- subgroup_barrier: a thread's lanes already run in lock step, so only memory needs ordering: the data
  port memory fence (with commit) of each space the flags name, as `barrier` sends before its gateway
  message, and a read of its commit register, so that no later access is issued before the fence is
  done (IGC's `mov null` after a fence; gen9-codegen-facts "Barrier and EOT").

Identities are the briefing's (OpenCL C 3.0 section 6.15.16): fadd fills with -0.0, so that x + fill = x
for every x (+0.0 is what an exclusive scan's first lane gets). i8 and i16 operations arrive as i32 ones
on zero-extended values (lowering/passes/legalize_int_widths.py), f16 as f32 values rounded to f16
after every fadd and fmul step.
"""
from __future__ import annotations

import math

from reconverge.isa.gen9.model import DataType, Region
from reconverge.isa.gen9.payload import CROSS_THREAD_GRF, LOCAL_ID_GRF, LOCAL_SIZE
from reconverge.lowering.ir.core import Const, Instr, Value
from reconverge.lowering.ir.opcodes import fence_spaces
from reconverge.lowering.ir.types import I1, I32, Type

from . import isel_int64 as int64
from .isel_context import SCALAR, SelectionContext, gen_type, half_view, retyped
from .isel_memory import fences
from .mir import GRF_BYTES, Imm, MInstr, Operand, PReg, VReg

T = DataType
FLAG = (0, 1)                        # the flag the selector's compares use; free between instructions
UNALIGNED = Region(1, 1, 0)          # one element per row: a run starting anywhere, rows may cross GRFs
UNSIGNED_ARITH = ("umin", "umax")
# the Gen instruction (and sel's conditional modifier) of each arith
GEN_OP = {"add": ("add", None), "fadd": ("add", None), "mul": ("mul", None), "fmul": ("mul", None),
          "and": ("and", None), "or": ("or", None), "xor": ("xor", None), "smin": ("sel", "lt"),
          "umin": ("sel", "lt"), "fmin": ("sel", "lt"), "smax": ("sel", "ge"), "umax": ("sel", "ge"),
          "fmax": ("sel", "ge")}
# i1 arithmetic on 0/-1 booleans: add is xor, mul and, signed min (true = -1 < 0) or, ...
BOOL_ARITH = {"add": "xor", "mul": "and", "smin": "or", "smax": "and", "umin": "and", "umax": "or",
              "and": "and", "or": "or", "xor": "xor"}


def _identity(arith: str, bits: int) -> int | float:
    """The value an inactive lane holds for `arith` on `bits`-wide values (see the module docstring)."""
    if arith == "fadd":
        return -0.0
    ones = (1 << bits) - 1
    return {"add": 0, "or": 0, "xor": 0, "umax": 0, "mul": 1, "fmul": 1.0, "and": -1 if bits != 64 else ones,
            "umin": ones, "smin": (1 << (bits - 1)) - 1, "smax": -(1 << (bits - 1)),
            "fmin": math.inf, "fmax": -math.inf}[arith]


class SubgroupSelector:
    """The sub-group instructions of one function (one per SelectionContext, made on first use)."""

    def __init__(self, cx: SelectionContext):
        self.cx = cx
        self.simd = cx.simd
        self._lanes: Operand | None = None

    # ----- the lane-number vector, computed once at the function's entry
    def lanes(self) -> Operand:
        """Each channel's number, 0 .. S-1 as :ud (a packed-vector immediate, 8 lanes at a time, as
        isel_memory._private_base builds it), made in the entry block so every block may read it."""
        if self._lanes is None:
            cx = self.cx
            words = Operand(cx.m.vreg(T.UW))
            lanes = cx.fresh(T.UD)
            code = [MInstr("mov", 8, words, [Operand(Imm(0x76543210, T.V))], no_mask=True)]
            if self.simd == 16:
                code.append(MInstr("add", 8, Operand(words.value, 16), [Operand(words.value, 0),
                                                                         Operand(Imm(8, T.UW))], no_mask=True))
            code.append(MInstr("mov", self.simd, lanes, [words], no_mask=True))
            cx.m.blocks[0].instrs[0:0] = code
            self._lanes = lanes
        return self._lanes

    # ----- small pieces, all on every channel (NoMask) unless said
    def _wide(self, opcode: str, dst: Operand | None, *srcs: Operand, n: int | None = None, **kw) -> MInstr:
        return self.cx.emit(opcode, dst, *srcs, n=n or self.simd, no_mask=True, **kw)

    def _buffer(self, t: DataType, fill: int | float) -> Operand:
        """2S elements of type t, all `fill`, on every channel."""
        buf = self.cx.fresh(t, count=2)
        self._wide("mov", self._at(buf, 0), Operand(Imm(fill, t)))
        self._wide("mov", self._at(buf, self.simd), Operand(Imm(fill, t)))
        return buf

    def _whole(self, x: Operand, t: DataType) -> Operand:
        """x in a per-lane register of type t of its own, so that its elements can be read by number."""
        if isinstance(x.value, VReg) and not x.value.uniform and x.value.type.size == t.size and x.offset == 0 \
                and x.region is None:
            return retyped(x, t)
        own = self.cx.fresh(t)
        self._wide("mov", own, x)
        return own

    @staticmethod
    def _at(op: Operand, lane: int, region: Region | None = None) -> Operand:
        """A view of a per-lane register from element `lane` on."""
        v = op.value
        assert isinstance(v, VReg)
        return Operand(v, op.offset + lane * v.type.size, region)

    def _copy(self, dst: Operand, src: Operand, src_lane: int) -> None:
        """dst[0, S) = src[src_lane, src_lane + S), one GRF of destination per mov."""
        t = src.type
        per_grf = GRF_BYTES // t.size
        for first in range(0, self.simd, per_grf):
            n = min(per_grf, self.simd - first)
            lane = src_lane + first
            region = None if lane % per_grf == 0 else UNALIGNED
            self._wide("mov", self._at(dst, first), self._at(src, lane, region), n=n)

    def _combine(self, arith: str, t: DataType, into: Operand, a: Operand, b: Operand, half: bool) -> None:
        """into = a arith b on every channel (`into` may be `a`: element by element, the same lanes)."""
        cx = self.cx
        if arith == "mul" and t.size == 8:             # no Q x Q multiply on Gen9: isel_int64's expansion
            block, start = cx.block, len(cx.block.instrs)
            out = int64.mul64(cx, a, b)
            assert cx.block is block
            for ins in block.instrs[start:]:
                ins.no_mask = True
            self._wide("mov", into, out)
            return
        opcode, mod = GEN_OP[arith]
        self._wide(opcode, into, a, b, cond_mod=mod, flag=FLAG if mod else (0, 0))
        if half and arith in ("fadd", "fmul"):         # f16: rounded after every operation, as one f16 op
            bits = cx.fresh(T.UD)
            self._wide("mov", half_view(bits), into)
            self._wide("mov", into, half_view(bits))

    def _steps(self, arith: str, t: DataType, buf: Operand, data: int, distances: list[int],
               direction: int, half: bool) -> None:
        """For each d: buf[data + i] = buf[data + i] arith buf[data + i + direction * d] (the shifted
        operand copied first: no instruction reads elements another one of its halves writes)."""
        for d in distances:
            shifted = self.cx.fresh(t)
            self._copy(shifted, buf, data + direction * d)
            self._combine(arith, t, self._at(buf, data), self._at(buf, data), shifted, half)

    def _masked_into(self, buf: Operand, lane: int, x: Operand) -> None:
        """buf[lane + i] = x on the active channels only (the one instruction that reads the mask)."""
        self.cx.emit("mov", self._at(buf, lane), x)

    # ----- reductions and scans
    def _value_type(self, arith: str, t: Type) -> DataType:
        return gen_type(t, arith not in UNSIGNED_ARITH)

    def reduce_buffer(self, arith: str, t: Type, x: Operand, cluster: int) -> tuple[Operand, DataType]:
        """The buffer whose lane j*cluster holds cluster j's reduction of the active lanes' x."""
        gt = self._value_type(arith, t)
        buf = self._buffer(gt, _identity(arith, 8 * gt.size))
        self._masked_into(buf, 0, retyped(x, gt))
        self._steps(arith, gt, buf, 0, [1 << k for k in range(cluster.bit_length() - 1)], 1,
                    t.is_float and t.bits == 16)
        return buf, gt

    def _scan(self, arith: str, t: Type, x: Operand, exclusive: bool) -> Operand:
        s = self.simd
        gt = self._value_type(arith, t)
        fill = _identity(arith, 8 * gt.size)
        buf = self._buffer(gt, fill)
        self._masked_into(buf, s, retyped(x, gt))
        if exclusive:                                   # shift one lane up: lane 0 gets the identity
            shifted = self._buffer(gt, fill)
            dst = self._at(shifted, s)
            self._copy(dst, buf, s - 1)
            if arith == "fadd":
                self._wide("mov", self._at(shifted, s), Operand(Imm(0.0, gt)), n=1)
            buf = shifted
        self._steps(arith, gt, buf, s, [1 << k for k in range(s.bit_length() - 1)], -1,
                    t.is_float and t.bits == 16)
        out = self.cx.fresh(gt)
        self.cx.emit("mov", out, self._at(buf, s))
        return out

    # ----- lanes picked by number
    def first_active_lane(self) -> Operand:
        """The lowest active lane's number, as a scalar (<0;1,0>) view."""
        buf, _ = self.reduce_buffer("umin", I32, self.lanes(), self.simd)
        return self._at(buf, 0, SCALAR)

    def pick(self, x: Operand, lane: Operand, t: Type) -> Operand:
        """Every lane gets x's value in lane `lane` (an immediate, or the same in every active lane)."""
        cx = self.cx
        gt = gen_type(t)
        if isinstance(x.value, Imm):
            return x
        if isinstance(lane.value, Imm):
            own = self._whole(x, gt)
            out = cx.fresh(gt)
            cx.emit("mov", out, self._at(own, int(lane.value.value) % self.simd, SCALAR))
            return out
        if not (lane.region == SCALAR or isinstance(lane.value, VReg) and lane.value.uniform):
            lane = self.scalar_of(lane)
        raw = T.UQ if gt.size == 8 else T.UD
        buf = self._buffer(raw, 0)
        self._wide("cmp", None, self.lanes(), retyped(lane, T.UD), cond_mod="eq", flag=FLAG)
        self._wide("mov", self._at(buf, 0), retyped(x, raw), predicate=(*FLAG, False))
        self._steps("or", raw, buf, 0, [1 << k for k in range(self.simd.bit_length() - 1)], 1, False)
        out = cx.fresh(gt)
        cx.emit("mov", out, retyped(self._at(buf, 0, SCALAR), gt))
        return out

    def scalar_of(self, v: Operand) -> Operand:
        """A value the same in every active lane, as a scalar view (the UMAX of the active lanes')."""
        buf, _ = self.reduce_buffer("umax", I32, retyped(v, T.UD), self.simd)
        return self._at(buf, 0, SCALAR)

    def shuffle(self, x: Operand, index: Operand, t: Type) -> Operand:
        """Lane i gets x's value in lane index[i]: per source lane j, lanes asking for j take it."""
        cx = self.cx
        gt = gen_type(t)
        if isinstance(x.value, Imm):
            return x
        if isinstance(index.value, Imm):
            return self.pick(x, index, t)
        own = self._whole(x, gt)
        index = cx.register(retyped(index, T.UD))
        gathered, out = cx.fresh(gt), cx.fresh(gt)
        self._wide("mov", gathered, Operand(Imm(0, gt)))
        for j in range(self.simd):
            self._wide("cmp", None, index, Operand(Imm(j, T.UD)), cond_mod="eq", flag=FLAG)
            self._wide("mov", gathered, self._at(own, j, SCALAR), predicate=(*FLAG, False))
        cx.emit("mov", out, gathered)
        return out

    # ----- the opcodes
    def select(self, ins: Instr) -> None:
        cx = self.cx
        if ins.opcode == "subgroup_info":
            cx.values[ins] = self.info(ins.attrs["fn"])
            return
        if ins.opcode == "subgroup_barrier":
            flags = ins.operands[0]
            for done in fences(cx, fence_spaces(int(flags.value) if isinstance(flags, Const) else None)):
                self._wide("mov", cx.fresh(T.UD, uniform=True, count=8), done, n=8)   # wait for the commit
            return
        op = ins.attrs["op"]
        cx.values[ins] = getattr(self, "_" + op)(ins, *ins.operands)

    def _operand(self, v: Value, arith: str | None = None) -> Operand:
        return self.cx.operand(v, arith not in UNSIGNED_ARITH)

    def _reduce(self, ins: Instr, x: Value) -> Operand:
        arith, t = self._arith(ins), ins.type
        cluster = min(int(ins.attrs.get("cluster", self.simd)), self.simd)
        buf, gt = self.reduce_buffer(arith, t, self._operand(x, arith), cluster)
        out = self.cx.fresh(gt)
        self.cx.emit("mov", out, self._at(buf, 0, SCALAR if cluster == self.simd else Region(cluster, cluster, 0)))
        return out

    def _inclusive_scan(self, ins: Instr, x: Value) -> Operand:
        arith = self._arith(ins)
        return self._scan(arith, ins.type, self._operand(x, arith), False)

    def _exclusive_scan(self, ins: Instr, x: Value) -> Operand:
        arith = self._arith(ins)
        return self._scan(arith, ins.type, self._operand(x, arith), True)

    def _arith(self, ins: Instr) -> str:
        arith = ins.attrs["arith"]
        return BOOL_ARITH[arith] if ins.type.bits == 1 else arith

    def _broadcast(self, ins: Instr, x: Value, lane: Value) -> Operand:
        return self.pick(self._operand(x), self._operand(lane), ins.type)

    def _broadcast_first(self, ins: Instr, x: Value) -> Operand:
        return self.pick(self._operand(x), self.first_active_lane(), ins.type)

    def _shuffle(self, ins: Instr, x: Value, lane: Value) -> Operand:
        return self.shuffle(self._operand(x), self._operand(lane), ins.type)

    def _relative(self, ins: Instr, x: Value, by: Value, opcode: str, negate: bool = False) -> Operand:
        """A shuffle whose source lane is this lane's number combined with `by` (xor, +, -)."""
        cx = self.cx
        amount = cx.operand(by, False)
        index = cx.fresh(T.UD)
        if negate:
            amount = Operand(Imm(-int(amount.value.value), T.D)) if isinstance(amount.value, Imm) else \
                Operand(amount.value, amount.offset, amount.region, True)
        cx.emit(opcode, index, self.lanes(), retyped(amount, T.D) if negate else amount)
        return self.shuffle(self._operand(x), index, ins.type)

    def _shuffle_xor(self, ins: Instr, x: Value, mask: Value) -> Operand:
        return self._relative(ins, x, mask, "xor")

    def _shuffle_down(self, ins: Instr, x: Value, delta: Value) -> Operand:
        return self._relative(ins, x, delta, "add")

    def _shuffle_up(self, ins: Instr, x: Value, delta: Value) -> Operand:
        return self._relative(ins, x, delta, "add", negate=True)

    def _vote(self, arith: str, x: Operand) -> Operand:
        buf, _ = self.reduce_buffer(arith, I1, x, self.simd)
        out = self.cx.fresh(T.D)
        self.cx.emit("mov", out, self._at(buf, 0, SCALAR))
        return out

    def _all(self, ins: Instr, x: Value) -> Operand:
        return self._vote("and", self._operand(x))

    def _any(self, ins: Instr, x: Value) -> Operand:
        return self._vote("or", self._operand(x))

    def _all_equal(self, ins: Instr, x: Value) -> Operand:
        t = ins.operands[0].type
        value = self._operand(x)
        first = self.pick(value, self.first_active_lane(), t)
        same = self.cx.cmp_value(self.cx.register(value), first, "eq", FLAG)
        return self._vote("and", same)

    def _elect(self, ins: Instr) -> Operand:
        out = self.cx.fresh(T.D)
        self.cx.emit("cmp", out, self.lanes(), self.first_active_lane(), cond_mod="eq", flag=FLAG)
        return out

    def _ballot(self, ins: Instr, x: Value) -> Operand:
        cx = self.cx
        if 32 * int(ins.attrs["word"]) >= self.simd:
            out = cx.fresh(T.D)
            cx.emit("mov", out, Operand(Imm(0, T.D)))
            return out
        one, bits = cx.fresh(T.UD), cx.fresh(T.UD)
        self._wide("mov", one, Operand(Imm(1, T.UD)))
        self._wide("shl", bits, one, self.lanes())
        buf = self._buffer(T.UD, 0)
        cx.emit("and", self._at(buf, 0), bits, retyped(self._operand(x), T.UD))
        self._steps("or", T.UD, buf, 0, [1 << k for k in range(self.simd.bit_length() - 1)], 1, False)
        out = cx.fresh(T.D)
        cx.emit("mov", out, retyped(self._at(buf, 0, SCALAR), T.D))
        return out

    # ----- sizes and ids
    def info(self, fn: str) -> Operand:
        cx = self.cx
        s = self.simd
        if fn == "local_id":
            return retyped(self.lanes(), T.D)
        if fn == "max_size":
            return Operand(Imm(s, T.D))
        scalar = self._scalar_info(fn)
        out = cx.fresh(T.D)
        self._wide("mov", out, scalar)
        return out

    def _scalar_info(self, fn: str) -> Operand:
        """num, id or size as a scalar, from the local sizes (cross-thread data) and lane 0's local id
        (lane 0 of thread t is work-item t * S: it is always dispatched)."""
        s, shift = self.simd, self.simd.bit_length() - 1

        def scalar() -> Operand:
            return Operand(self.cx.m.vreg(T.UD, uniform=True))

        def size(d: int) -> Operand:
            offset = LOCAL_SIZE + 4 * d
            return Operand(PReg(CROSS_THREAD_GRF + offset // 32, (offset % 32) // 4, T.UD), region=SCALAR)

        def local_id(d: int) -> Operand:
            return Operand(PReg(LOCAL_ID_GRF + d, 0, T.UW), region=SCALAR)

        total = scalar()
        self._wide("mul", total, size(0), size(1), n=1)
        self._wide("mul", total, total, size(2), n=1)
        if fn == "num":
            out = scalar()
            self._wide("add", out, total, Operand(Imm(s - 1, T.UD)), n=1)
            self._wide("shr", out, out, Operand(Imm(shift, T.UD)), n=1)
            return out
        first = scalar()                                # lane 0's linear local id: x + lx * (y + ly * z)
        self._wide("mul", first, local_id(2), size(1), n=1)
        self._wide("add", first, first, local_id(1), n=1)
        self._wide("mul", first, first, size(0), n=1)
        self._wide("add", first, first, local_id(0), n=1)
        if fn == "id":
            out = scalar()
            self._wide("shr", out, first, Operand(Imm(shift, T.UD)), n=1)
            return out
        left, out = scalar(), scalar()                  # size: min(S, items from lane 0 on)
        self._wide("add", left, total, Operand(first.value, first.offset, first.region, True), n=1)
        self._wide("sel", out, left, Operand(Imm(s, T.UD)), cond_mod="lt", flag=FLAG, n=1)
        return out


def select_subgroup(cx: SelectionContext, ins: Instr) -> None:
    """The value table's handler (isel_values.RULES): the function's SubgroupSelector selects `ins`."""
    if cx.subgroups is None:
        cx.subgroups = SubgroupSelector(cx)
    selector = cx.subgroups
    assert isinstance(selector, SubgroupSelector)
    selector.select(ins)
