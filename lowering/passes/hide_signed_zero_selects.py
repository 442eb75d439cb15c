"""Zero literals of selects and phis hidden where drivers read them as the zero of the other sign.

`c ? 1.0f : -0.0f` is b2f(c) to an algebraic optimizer that matches constants by value, and b2f(false) is
+0.0; likewise `c ? -1.0f : 0.0f` and -b2f(c). Mesa's nir_opt_algebraic.py has these rules for 16-, 32- and
64-bit bcsel, matching bits, not types (an integer select of those patterns too: clang -O2 makes one of
`c ? 1.0f : -0.0f`), and NIR makes bcsel of small ifs' phis. NVIDIA's 580 driver does the same: on an H200
`c ? 1.0f : -0.0f` came out +0.0 for a false c even in a module declaring SignedZeroInfNanPreserve
(tests/kernels/signed_zero_select.cl, 30 of 64 lanes; `c ? -1.0f : 0.0f` was right there with the mode).
OpenCL C keeps the sign, so every SPIR-V module hides such a zero: the operand becomes `never ? 2.0 : zero`,
made once in the entry block, where `never` is get_group_id(2) >= get_num_groups(2), which no driver can
decide (a select on `never` with the other literal would be folded with it: NIR merges nested selects on one
condition). An operand that is a phi or select of one literal throughout (`x * (c ? -1.0f : 0.0f)` at -O2,
whose 0.0 came through three nested ifs' phis, fuzz convergence-38706) is that literal to such an optimizer,
so it is read as its literal and hidden the same way. A `sitofp` of an i1 (clang -O2's `(float)(c ? -1 : 0)`),
which the emitter writes as `c ? -1.0 : 0.0`, becomes that select with its zero hidden: lavapipe gave -0.0
for a false c. Semantically neutral; lavapipe's launches hide more (backend/spirv/zero_operands.py).
"""
from __future__ import annotations

import struct

from reconverge.lowering.ir.builder import become
from reconverge.lowering.ir.core import Const, Function, Instr, Value
from reconverge.lowering.ir.types import I1, I32, I64, Type
from reconverge.lowering.target import TargetCaps

NAME, FORM = "hide_signed_zero_selects", "any"

ONE_BITS = {16: 0x3C00, 32: 0x3F800000, 64: 0x3FF0000000000000}     # 1.0 at each float width
_MAX_DEPTH = 32


def run(func: Function, caps: TargetCaps) -> bool:
    found = misread_zeros(func)
    signed_bools = [ins for ins in func.instructions() if ins.opcode == "sitofp" and ins.operands[0].type.bits == 1]
    if not found and not signed_bools:
        return False
    hide = ZeroHider(func)
    for ins, i, zero in found:
        ins.operands[i] = hide(zero)
    for ins in signed_bools:        # the emitter's OpSelect c, -1.0, +0.0: the same fold
        become(ins, "select", [ins.operands[0], Const(ins.type, -1.0), hide(Const(ins.type, 0.0))])
    func.update_cfg()
    return True


def literal_bits(c: Const) -> int | None:
    """A scalar literal's bits (a float's IEEE encoding), or None for other widths and kinds."""
    t = c.type
    if t.bits not in ONE_BITS or not (t.is_int or t.is_float):
        return None
    if t.is_int:
        return int(c.value)
    return int.from_bytes(struct.pack({16: "<e", 32: "<f", 64: "<d"}[t.bits], c.value), "little")


def one_literal(v: Value, known: dict[Instr, Const | None], depth: int = 0) -> Const | None:
    """v's literal: v itself, or the one literal every input of a phi or select is (through others);
    None where there is none, or where the inputs close a cycle or run deeper than _MAX_DEPTH (unknown,
    so not hidden: the answer must be exact, as the operand is replaced by the literal). Memoized in
    `known`."""
    if isinstance(v, Const):
        return v
    if not isinstance(v, Instr) or v.opcode not in ("phi", "select") or depth > _MAX_DEPTH:
        return None
    if v in known:
        return known[v]
    known[v] = None                                  # met again on a cycle: none
    found: Const | None = None
    for x in v.operands[1:] if v.opcode == "select" else v.operands:
        c = one_literal(x, known, depth + 1)
        if c is None or (found is not None and (c.type != found.type or literal_bits(c) != literal_bits(found))):
            return None
        if found is None:
            found = c
    known[v] = found
    return found


def misread_zeros(func: Function) -> list[tuple[Instr, int, Const]]:
    """(select or phi, operand position, its zero literal) for each zero a b2f rule would read as the zero
    of the other sign: a +-0.0 (bits) beside a literal 1.0 or -1.0 whose sign differs (either of them a
    literal, or a phi or select of one literal: one_literal)."""
    known: dict[Instr, Const | None] = {}
    found = []
    for ins in func.instructions():
        if ins.opcode not in ("select", "phi"):
            continue
        first = 1 if ins.opcode == "select" else 0
        literals = [one_literal(v, known) for v in ins.operands[first:]]
        bits = [literal_bits(c) if c is not None else None for c in literals]
        width = ins.type.bits
        sign = 1 << (width - 1)
        ones = {b & sign for b in bits if b is not None and b & ~sign == ONE_BITS.get(width, -1)}
        for i, (b, c) in enumerate(zip(bits, literals)):
            if b is not None and c is not None and b & ~sign == 0 and (b & sign) ^ sign in ones:
                found.append((ins, first + i, c))
    return found


class ZeroHider:
    """`never ? 2.0 : zero` for a zero literal (2 for an integer), made once per literal after `never`, which
    is made once, at the top of the function's entry block (after its allocas)."""

    def __init__(self, func: Function):
        self.entry = entry = func.entry()
        position = sum(1 for ins in entry.instrs if ins.opcode == "alloca")
        group = entry.insert(position, Instr("workitem", [Const(I32, 2)], I64, {"fn": "group_id"}))
        groups = entry.insert(position + 1, Instr("workitem", [Const(I32, 2)], I64, {"fn": "num_groups"}))
        self.never = entry.insert(position + 2, Instr("icmp", [group, groups], I1, {"pred": "uge"}))
        self.hidden: dict[tuple[Type, int], Instr] = {}

    def __call__(self, zero: Const) -> Instr:
        key = (zero.type, literal_bits(zero) or 0)
        if key not in self.hidden:
            two = Const(zero.type, 2.0 if zero.type.is_float else 2)
            self.hidden[key] = self.entry.insert(self.entry.instrs.index(self.never) + 1,
                                                 Instr("select", [self.never, two, zero], zero.type))
        return self.hidden[key]
