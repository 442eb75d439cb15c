"""LLVM's odd integer widths (an i2 counter, an i24, an i48) computed in the target's legal widths.

LLVM (LangRef, "Integer Type") allows any width from 1 to 2^23 bits, and its optimizer makes odd ones
out of narrow loops and bit-field code; a GPU computes in 8, 16, 32 and 64 bits. Every value of an odd
width N becomes a value of W, the narrowest legal width >= N, with one invariant: **it is kept
zero-extended** (bits N..W-1 are zero). Then and/or/xor, logical shifts right, unsigned division,
remainder, min/max and compares, equality, selects, phis and conversions from unsigned need nothing;
operations that can carry into the upper bits (add, sub, mul, shl, negative results) are masked back to
N bits; signed operations (ashr, sdiv, srem, smin, smax, abs, signed compares, sext, sitofp) first
sign-extend their operands inside W (shl then ashr by W - N). Bit counts correct for the spare bits.

An odd-width argument keeps its type (the kernel ABI and the launchers read it: its value arrives
zero-extended in a legal slot), and its uses go through one `zext` at the top of the entry block, the
only odd-width operand left. A target whose memory takes a width it does not compute in (Gen: bytes
and words) keeps such loads and stores, with a zext after the load and a trunc before the store. Other
odd-width memory accesses, atomics, pointer casts and bitcasts have no
form a target can take and are one-line errors naming the instruction; so are widths over 64 bits.
"""
from __future__ import annotations

from reconverge.lowering.errors import NotSupported, where
from reconverge.lowering.ir.builder import InsertBefore, become, replace_uses
from reconverge.lowering.ir.core import Const, Function, Instr, Undef, Value
from reconverge.lowering.ir.opcodes import SUBGROUP_SCANS
from reconverge.lowering.ir.types import Type, int_type
from reconverge.lowering.target import TargetCaps

NAME, FORM = "legalize_int_widths", "any"

WRAPPING = ("add", "sub", "mul", "shl")                      # may carry into the spare bits
SIGNED = ("ashr", "sdiv", "srem", "smin", "smax", "abs")     # read their operands as signed
UNCHANGED = ("and", "or", "xor", "lshr", "udiv", "urem", "umin", "umax", "select", "phi", "freeze", "popcount",
             "uitofp", "store", "ret", "return", "switch", "cbr")
REFUSED = ("load", "store", "atomic", "bitcast", "ptrtoint", "inttoptr", "mulhi_s", "mulhi_u")


def run(func: Function, caps: TargetCaps) -> bool:
    legal = tuple(sorted(caps.int_widths))
    if not legal:
        return False
    return _Legalizer(func, legal, caps.memory_widths).run()


class _Legalizer:
    def __init__(self, func: Function, legal: tuple[int, ...], memory: tuple[int, ...] = ()):
        self.func, self.legal, self.memory = func, legal, memory
        self.bits: dict[Value, int] = {}       # a retyped value -> its width in the source

    def in_memory_width(self, ins: Instr) -> bool:
        """A load or store of a width the target's memory accesses take though it computes wider (Gen:
        bytes and words through byte scattered messages): it stays that wide, its value goes through a
        zext after the load or a trunc before the store."""
        value = ins if ins.opcode == "load" else ins.operands[0] if ins.opcode == "store" else None
        return value is not None and value.type.is_int and value.type.bits in self.memory

    def odd(self, t: Type) -> bool:
        return t.is_int and t.bits not in self.legal

    def wide(self, bits: int, ins: Instr | None = None) -> Type:
        for w in self.legal:
            if w >= bits:
                return int_type(w)
        raise NotSupported(f"{where(self.func, ins)}: integers wider than {self.legal[-1]} bits are not supported")

    def _any_odd(self, instrs: list[Instr]) -> bool:
        """Whether an instruction, an operand or an argument has an odd width (most functions have none: the
        test of every value, inline, without odd()'s call and a tuple per instruction)."""
        legal = self.legal
        for ins in instrs:
            t = ins.type
            if t.kind == "int" and t.bits not in legal:
                return True
            for v in ins.operands:
                t = v.type
                if t.kind == "int" and t.bits not in legal:
                    return True
        return any(self.odd(a.type) for a in self.func.args)

    def source_bits(self, v: Value) -> int:
        return self.bits.get(v, v.type.bits)

    def run(self) -> bool:
        func = self.func
        instrs = list(func.instructions())
        if not self._any_odd(instrs):
            return False
        for ins in instrs:
            if ins.opcode in REFUSED and any(self.odd(v.type) for v in (ins, *ins.operands)) and \
                    not self.in_memory_width(ins):
                odd = next(v.type for v in (ins, *ins.operands) if self.odd(v.type))
                raise NotSupported(f"{where(func, ins)}: a {odd} {ins.opcode} is not supported (odd integer "
                                   f"widths are computed in {', '.join(map(str, self.legal))} bits)")
        self._arguments()
        for ins in instrs:                                   # results first: phis may use later values
            if self.odd(ins.type):
                self.bits[ins] = ins.type.bits
                ins.type = self.wide(ins.type.bits, ins)
        for ins in instrs:
            ins.operands = [self._constant(v, ins) for v in ins.operands]
            self._fix(ins)
        return True

    def _arguments(self) -> None:
        """Every use of an odd argument reads one zext at the top of the entry block instead."""
        widened: dict[Value, Instr] = {}
        for a in self.func.args:
            if self.odd(a.type):
                widened[a] = Instr("zext", [a], self.wide(a.type.bits))
                self.bits[widened[a]] = a.type.bits
        replace_uses(self.func, widened)            # before the zexts are placed: they keep the argument
        for z in widened.values():
            self.func.entry().insert(0, z)

    def _constant(self, v: Value, user: Instr) -> Value:
        if isinstance(v, (Const, Undef)) and self.odd(v.type):
            new: Value = Undef(self.wide(v.type.bits, user)) if isinstance(v, Undef) else \
                Const(self.wide(v.type.bits, user), v.value)
            self.bits[new] = v.type.bits
            return new
        return v

    # ----- the rewrites
    def _mask(self, b: InsertBefore, x: Value, n: int) -> Value:
        return b.binary("and", x, Const(x.type, (1 << n) - 1))

    def _sign_extended(self, b: InsertBefore, x: Value) -> Value:
        n, w = self.source_bits(x), x.type.bits
        if n == w:
            return x
        if isinstance(x, Const):
            bits = int(x.value)        # an integer constant
            value = bits - (1 << n) if bits >> (n - 1) & 1 else bits
            return Const(x.type, value)
        spare = Const(x.type, w - n)
        return b.binary("ashr", b.binary("shl", x, spare), spare)

    def _keep_raw(self, ins: Instr, b: InsertBefore) -> Instr:
        """A copy of `ins` placed before it, so that `ins` itself can become the fix-up of its result."""
        return b.op(ins.opcode, list(ins.operands), ins.type, **ins.attrs)

    def _fix(self, ins: Instr) -> None:
        op = ins.opcode
        n = self.bits.get(ins)                                # the result's source width, if odd
        operand_odd = any(v in self.bits for v in ins.operands)
        if n is None and not operand_odd:
            return
        b = InsertBefore(ins)
        if op == "load" and n is not None:
            become(ins, "zext", [b.op("load", list(ins.operands), int_type(n), **ins.attrs)])
        elif op == "store" and operand_odd:
            ins.operands[0] = b.cast("trunc", ins.operands[0], int_type(self.source_bits(ins.operands[0])))
        elif op in WRAPPING and n is not None:
            become(ins, "and", [self._keep_raw(ins, b), Const(ins.type, (1 << n) - 1)])
        elif op in SIGNED and n is not None:
            ins.operands = [self._sign_extended(b, v) if v in self.bits else v for v in ins.operands] \
                if op != "ashr" else [self._sign_extended(b, ins.operands[0]), ins.operands[1]]
            become(ins, "and", [self._keep_raw(ins, b), Const(ins.type, (1 << n) - 1)])
        elif op in ("clz", "ctz", "bitreverse") and n is not None:
            self._bit_count(ins, b, n)
        elif op == "icmp" and ins.attrs.get("pred", "")[:1] == "s":
            ins.operands = [self._sign_extended(b, v) for v in ins.operands]
        elif op in ("trunc", "zext", "sext", "fptoui", "fptosi", "sitofp"):
            self._cast(ins, b, n)
        elif op == "subgroup":
            self._subgroup(ins, b, n)
        elif op not in UNCHANGED and op != "icmp":
            raise NotSupported(f"{where(self.func, ins)}: {op} on odd integer widths is not supported")

    def _subgroup(self, ins: Instr, b: InsertBefore, n: int | None) -> None:
        """Moves, votes and compares of zero-extended values need nothing; a reduction or scan is done in
        W on sign-extended operands for smin/smax, then clamped to N bits' identity (what an exclusive
        scan's first lane gets is W's INT_MAX or INT_MIN) and masked back to N bits."""
        if ins.attrs["op"] not in SUBGROUP_SCANS or n is None:
            return
        arith = ins.attrs["arith"]
        if arith in ("smin", "smax"):
            ins.operands = [self._sign_extended(b, ins.operands[0])]
        raw: Value = self._keep_raw(ins, b)
        if arith in ("smin", "smax"):
            limit = (1 << (n - 1)) - 1 if arith == "smin" else -(1 << (n - 1))
            raw = b.binary(arith, raw, Const(ins.type, limit))
        become(ins, "and", [raw, Const(ins.type, (1 << n) - 1)])

    def _bit_count(self, ins: Instr, b: InsertBefore, n: int) -> None:
        spare = ins.type.bits - n
        x = ins.operands[0]
        if ins.opcode == "ctz":                              # a sentinel bit: ctz(0) = n
            ins.operands = [b.binary("or", x, Const(x.type, 1 << n))]
        elif ins.opcode == "clz":
            become(ins, "sub", [self._keep_raw(ins, b), Const(ins.type, spare)])
        else:
            become(ins, "lshr", [self._keep_raw(ins, b), Const(ins.type, spare)])

    def _cast(self, ins: Instr, b: InsertBefore, n: int | None) -> None:
        op, x = ins.opcode, ins.operands[0]
        to_bits = ins.type.bits
        if op == "sitofp":
            ins.operands = [self._sign_extended(b, x)]
            return
        if op in ("fptoui", "fptosi"):
            if n is not None:
                become(ins, "and", [self._keep_raw(ins, b), Const(ins.type, (1 << n) - 1)])
            return
        if op == "sext" and x in self.bits:
            if n is None and x.type == ins.type and not isinstance(x, Const):   # the extension is the result
                spare = Const(x.type, x.type.bits - self.source_bits(x))
                become(ins, "ashr", [b.binary("shl", x, spare), spare])
                return
            x = self._sign_extended(b, x)
        from_bits = x.type.bits
        step = ("sext" if op == "sext" else "zext") if from_bits < to_bits else "trunc" if from_bits > to_bits \
            else "freeze"
        if n is not None and op in ("trunc", "sext"):         # bits above n may be set: mask them off
            value = x if step == "freeze" else b.cast(step, x, ins.type)
            become(ins, "and", [value, Const(ins.type, (1 << n) - 1)])
        else:
            become(ins, step, [x])
