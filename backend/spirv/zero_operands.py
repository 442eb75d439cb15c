"""Factors of float products and terms of float sums hidden from lavapipe's zero shortcuts, in its launches
only.

Mesa 22.3's lavapipe turns a product with a factor it knows to be 0.0 into +0.0 whatever the other
factor: `0.0 * x` for a negative x gives +0.0, not -0.0; a division of 0.0 and an fma with a 0.0 factor
do the same. It does so with NoContraction on the instruction, with glslang's output for GLSL's `precise
float r = 0.0 * z`, and even with the SignedZeroInfNanPreserve execution mode, which it advertises
(shaderSignedZeroInfNanPreserveFloat32). The zero need not be a constant of the module: NIR finds it
(`w * (float)(ushort_value > 65535u)`, from `reconverge fuzz --seed 2000 --mode all`, which differed in
68 of 128 lanes at -O0). A factor chosen by a condition NIR cannot decide is never known to be 0.0, so
`run --target spirv` on lavapipe (backend.spirv.launch, on a copy of the kernel) makes each factor of
fmul, fdiv, frem, fma and fmuladd that is not a nonzero constant `never ? 2.0 : factor`, where never is
get_group_id(2) >= get_num_groups(2) (`factor - zero` with a hidden zero is not enough: a known 0.0
minus it came out -0.0). Sums have the same fault: NIR drops a term it knows to be 0.0, so `0.0 - w` for
w = +0.0 and `x + 0.0` for x = -0.0 came out -0.0 (`reconverge fuzz --seed 364 --mode basic`, 7 of 64
lanes at -O2), so the operands of fadd and fsub are hidden the same way.

A select also loses a signed zero there: NIR's algebraic rules turn `c ? 1.0 : 0.0` into b2f(c) and
`c ? -1.0 : -0.0` into -b2f(c) (Mesa's nir_opt_algebraic.py, for 16-, 32- and 64-bit bcsel), and their
constant match takes -0.0 for 0.0 and 0.0 for -0.0, so `c ? 1.0 : -0.0` came out +0.0 and `c ? -1.0 :
0.0` -0.0. NIR matches bits, not types: an integer select of those bit patterns (clang -O2 makes one of
`c ? 1.0f : -0.0f`) went wrong too, as did the hiding above, `never ? 1.0 : -0.0`, for a literal -0.0
factor (`reconverge fuzz --seed 16248 --mode convergence`: `f * (0.0f * -5.0f)` at -O0, 62 of 64 lanes).
So a zero literal is hidden as `never ? 2.0 : zero`, made once in the entry block: in place of a zero
operand of the arithmetic above, and of the zero of a select or phi (NIR makes bcsel of small ifs' phis)
whose other literal is 1.0 or -1.0 of the other sign (a select on `never` itself would still be folded
with the hidden one: NIR merges nested selects on one condition). A phi or select whose every input is
one literal (after the launches' zeroing of undefined phi inputs: loop_live_outs) is that literal to NIR,
which folds it: `x * (c ? -1.0f : 0.0f)` at -O2, whose 0.0 came through three nested ifs' phis, gave
-0.0 (`reconverge fuzz --seed 38706 --mode convergence`, 23 of 32 lanes), so such an operand is read as
its literal and hidden the same way. NIR also folds what our IR keeps, `(float)clz(0xffffffffu) * -18.0f`
to a known zero, and `never ? 1.0 : known 0.0` to b2f(never), whose product with x < 0 came out -0.0, not
0.0 (`reconverge fuzz --seed 40694 --mode subgroup`, every lane); so every factor is hidden behind 2.0,
which no such rule matches. Every rewrite is semantically neutral; `--emit spirv` keeps the
plain form.
"""
from __future__ import annotations

import struct

from reconverge.lowering.ir.core import Const, Function, Instr, Value, first_block
from reconverge.lowering.ir.types import I1, I32, I64, Type

FACTORS = {"fmul": (0, 1), "fdiv": (0, 1), "frem": (0, 1), "fma": (0, 1), "fmuladd": (0, 1),
           "fadd": (0, 1), "fsub": (0, 1)}


ONE_BITS = {16: 0x3C00, 32: 0x3F800000, 64: 0x3FF0000000000000}     # 1.0 at each float width


def _bits(c: Const) -> int | None:
    """A scalar literal's bits (a float's IEEE encoding), or None for other widths and kinds."""
    t = c.type
    if t.bits not in ONE_BITS or not (t.is_int or t.is_float):
        return None
    if t.is_int:
        return int(c.value)
    return int.from_bytes(struct.pack({16: "<e", 32: "<f", 64: "<d"}[t.bits], c.value), "little")


def _literal(v: Value, known: dict[Instr, Const | None], depth: int = 0) -> Const | None:
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
        c = _literal(x, known, depth + 1)
        if c is None or (found is not None and (c.type != found.type or _bits(c) != _bits(found))):
            return None
        if found is None:
            found = c
    known[v] = found
    return found


_MAX_DEPTH = 32


def _zeros_nir_misreads(ins: Instr, known: dict[Instr, Const | None]) -> list[int]:
    """The operand positions of a select's or phi's zero literals that NIR's b2f rules would read as the
    zero of the other sign: a +-0.0 (bits) beside a literal 1.0 or -1.0 whose sign differs (either of them
    a literal, or a phi or select of one literal: _literal)."""
    values = ins.operands[1:] if ins.opcode == "select" else ins.operands
    first = 1 if ins.opcode == "select" else 0
    literals = [_literal(v, known) for v in values]
    bits = [_bits(c) if c is not None else None for c in literals]
    width = ins.type.bits
    sign = 1 << (width - 1)
    ones = {b & sign for b in bits if b is not None and b & ~sign == ONE_BITS.get(width, -1)}
    return [first + i for i, b in enumerate(bits) if b is not None and b & ~sign == 0 and (b & sign) ^ sign in ones]


def hide_zero_operands(func: Function) -> int:
    """Rewrite `func` in place as described above; the number of operands replaced."""
    arithmetic = [(ins, i) for ins in func.instructions() if ins.opcode in FACTORS for i in FACTORS[ins.opcode]
                  if not (isinstance(x := ins.operands[i], Const) and x.value != 0)]
    known: dict[Instr, Const | None] = {}
    selects = [(ins, i, _literal(ins.operands[i], known)) for ins in func.instructions()
               if ins.opcode in ("select", "phi") for i in _zeros_nir_misreads(ins, known)]
    if not arithmetic and not selects:
        return 0
    entry = first_block(func.body)
    position = sum(1 for ins in entry.instrs if ins.opcode == "alloca")
    group = entry.insert(position, Instr("workitem", [Const(I32, 2)], I64, {"fn": "group_id"}))
    groups = entry.insert(position + 1, Instr("workitem", [Const(I32, 2)], I64, {"fn": "num_groups"}))
    never = entry.insert(position + 2, Instr("icmp", [group, groups], I1, {"pred": "uge"}))
    hidden: dict[tuple[Type, int], Instr] = {}

    def hide(zero: Const) -> Instr:
        """`never ? 2.0 : zero` (2 for an integer), once per literal, after `never` in the entry block."""
        key = (zero.type, _bits(zero) or 0)
        if key not in hidden:
            two = Const(zero.type, 2.0 if zero.type.is_float else 2)
            hidden[key] = entry.insert(entry.instrs.index(never) + 1, Instr("select", [never, two, zero], zero.type))
        return hidden[key]

    for ins, i in arithmetic:       # never ? 2.0 : v is v, -0.0 and NaN included
        v, block = ins.operands[i], ins.block
        assert block is not None
        if isinstance(v, Const) and v.type.is_float and v.value == 0:
            ins.operands[i] = hide(v)
        else:
            ins.operands[i] = block.insert(block.instrs.index(ins), Instr("select", [never, Const(v.type, 2.0), v],
                                                                          v.type))
    for ins, i, zero in selects:
        assert zero is not None
        ins.operands[i] = hide(zero)
    func.update_cfg()
    return len(arithmetic) + len(selects)
