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
fmul, fdiv, frem, fma and fmuladd that is not a nonzero constant `never ? 1.0 : factor`, where never is
get_group_id(2) >= get_num_groups(2) (`factor - zero` with a hidden zero is not enough: a known 0.0
minus it came out -0.0). Sums have the same fault: NIR drops a term it knows to be 0.0, so `0.0 - w` for
w = +0.0 and `x + 0.0` for x = -0.0 came out -0.0 (`reconverge fuzz --seed 364 --mode basic`, 7 of 64
lanes at -O2), so the operands of fadd and fsub are hidden the same way. The rewrite is semantically
neutral; `--emit spirv` keeps the plain form.
"""
from __future__ import annotations

from reconverge.lowering.ir.core import Const, Function, Instr, first_block
from reconverge.lowering.ir.types import I1, I32, I64

FACTORS = {"fmul": (0, 1), "fdiv": (0, 1), "frem": (0, 1), "fma": (0, 1), "fmuladd": (0, 1),
           "fadd": (0, 1), "fsub": (0, 1)}


def hide_zero_operands(func: Function) -> int:
    """Rewrite `func` in place as described above; the number of operands replaced."""
    todo = [(ins, i) for ins in func.instructions() if ins.opcode in FACTORS for i in FACTORS[ins.opcode]
            if not (isinstance(x := ins.operands[i], Const) and x.value != 0)]
    if not todo:
        return 0
    entry = first_block(func.body)
    position = sum(1 for ins in entry.instrs if ins.opcode == "alloca")
    group = entry.insert(position, Instr("workitem", [Const(I32, 2)], I64, {"fn": "group_id"}))
    groups = entry.insert(position + 1, Instr("workitem", [Const(I32, 2)], I64, {"fn": "num_groups"}))
    never = entry.insert(position + 2, Instr("icmp", [group, groups], I1, {"pred": "uge"}))
    for ins, i in todo:             # never ? 1.0 : v is v, -0.0 and NaN included
        v, block = ins.operands[i], ins.block
        assert block is not None
        ins.operands[i] = block.insert(block.instrs.index(ins),
                                       Instr("select", [never, Const(v.type, 1.0), v], v.type))
    func.update_cfg()
    return len(todo)
