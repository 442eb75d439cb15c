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
which no such rule matches. Every rewrite is semantically neutral. The selects' and phis' zeros are
hidden in every module (lowering/passes/hide_signed_zero_selects.py: NVIDIA folds them too); `--emit spirv`
keeps the plain form of the arithmetic.
"""
from __future__ import annotations

from reconverge.lowering.ir.core import Const, Function, Instr
from reconverge.lowering.passes.hide_signed_zero_selects import ZeroHider, misread_zeros

FACTORS = {"fmul": (0, 1), "fdiv": (0, 1), "frem": (0, 1), "fma": (0, 1), "fmuladd": (0, 1),
           "fadd": (0, 1), "fsub": (0, 1)}


def hide_zero_operands(func: Function) -> int:
    """Rewrite `func` in place as described above; the number of operands replaced. (The selects' and phis'
    zeros are every module's already, lowering/passes/hide_signed_zero_selects.py, where the function went
    through the spirv pipeline.)"""
    arithmetic = [(ins, i) for ins in func.instructions() if ins.opcode in FACTORS for i in FACTORS[ins.opcode]
                  if not (isinstance(x := ins.operands[i], Const) and x.value != 0)]
    selects = misread_zeros(func)
    if not arithmetic and not selects:
        return 0
    hide = ZeroHider(func)
    for ins, i in arithmetic:       # never ? 2.0 : v is v, -0.0 and NaN included
        v, block = ins.operands[i], ins.block
        assert block is not None
        if isinstance(v, Const) and v.type.is_float and v.value == 0:
            ins.operands[i] = hide(v)
        else:
            ins.operands[i] = block.insert(block.instrs.index(ins), Instr("select", [hide.never, Const(v.type, 2.0), v],
                                                                          v.type))
    for ins, i, zero in selects:
        ins.operands[i] = hide(zero)
    func.update_cfg()
    return len(arithmetic) + len(selects)
