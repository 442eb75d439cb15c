"""The Gen selector's parts: immediate legalization as a machine-IR pass (and the verifier rule that
checks it), the value selector's (opcode, type guard) table, and the drivers that own a selector."""
from __future__ import annotations

from typing import Any

import pytest

from reconverge.backend.gen.isel import select
from reconverge.backend.gen.isel_blockip import BlockIPDriver
from reconverge.backend.gen.isel_structured import StructuredDriver
from reconverge.backend.gen.isel_values import RULES, ValueSelector
from reconverge.backend.gen.legalize import legalize
from reconverge.backend.gen.mir import Imm, MFunction, MInstr, Operand, PReg, VReg
from reconverge.backend.gen.mir_verify import verify
from reconverge.isa.gen9.model import DataType
from reconverge.lowering.errors import CompileError
from reconverge.tools.targets.harness import program_from_llvm

T = DataType
EOT: dict[str, Any] = dict(sfid=0x7, desc=0x02000010, eot=True, no_mask=True)


def _function(*instrs: MInstr) -> MFunction:
    f = MFunction("k", 16)
    b = f.block("entry")
    for ins in instrs:
        b.append(ins)
    b.append(MInstr("send", 8, srcs=[Operand(PReg(127))], **EOT))
    return f


def test_legalization_makes_every_immediate_encodable_and_the_verifier_checks_it():
    f = MFunction("k", 16)
    x, q = Operand(f.vreg(T.D)), Operand(f.vreg(T.Q))
    d = [Operand(f.vreg(T.D)) for _ in range(3)] + [Operand(f.vreg(T.Q)) for _ in range(2)]
    code = [MInstr("mov", 16, x, [Operand(Imm(3, T.D))]),
            MInstr("mov", 16, q, [Operand(Imm(1 << 40, T.Q))]),                 # a lone 64-bit one: legal
            MInstr("add", 16, d[0], [Operand(Imm(5, T.D)), x]),                 # commutative: swapped
            MInstr("sel", 16, d[1], [Operand(Imm(32, T.D)), x], predicate=(0, 0, False)),   # into a register
            MInstr("cmp", 16, d[2], [Operand(Imm(0, T.D)), Operand(Imm(1, T.D))], cond_mod="lt", flag=(0, 1)),
            MInstr("shl", 16, d[3], [q, Operand(Imm(65, T.Q))]),                # a 32-bit count, modulo 64
            MInstr("add", 16, d[4], [q, Operand(Imm(1 << 33, T.Q))])]           # a 64-bit one: a register
    f = _function(*code)
    f.vregs = {v.id: v for v in (x.value, q.value, *(o.value for o in d)) if isinstance(v, VReg)}
    problems = verify(f)
    assert len([p for p in problems if "immediate may only be the last" in p]) == 3      # add, sel, cmp
    assert len([p for p in problems if "64-bit immediate" in p]) == 2                    # shl, add
    legalize(f)
    assert verify(f) == []
    text = [(i.opcode, [s.value for s in i.srcs]) for i in f.blocks[0].instrs]
    assert text[2] == ("add", [x.value, Imm(5, T.D)])
    assert (text[3], text[4][0]) == (("mov", [Imm(32, T.D)]), "sel")
    assert text[4][1][0] == f.blocks[0].instrs[3].dst.value                          # the mov's register
    assert [op for op, _ in text[5:7]] == ["mov", "cmp"]
    assert text[7] == ("shl", [q.value, Imm(1, T.UD)])
    assert [op for op, _ in text[8:10]] == ["mov", "add"] and text[8][1] == [Imm(1 << 33, T.Q)]


def test_every_opcode_without_a_row_that_accepts_it_is_refused_in_one_line():
    func = program_from_llvm("""
declare double @llvm.fma.f64(double, double, double)
define spir_kernel void @k(ptr addrspace(1) %out, double %a, double %b) {
entry:
  %m = call double @llvm.fma.f64(double %a, double %b, double %a)
  store double %m, ptr addrspace(1) %out
  ret void
}
""", "fma.ll").function("k", "gen")
    with pytest.raises(CompileError, match=r"fma on f64 is not selected yet \(not in the Gen backend yet\)"):
        select(func, 16)


def test_the_table_keeps_its_order_per_opcode():
    """Rows are tried in table order, so a narrower guard listed first wins (trunc to i1 before the casts)."""
    rows: dict[str, list] = {}
    for rule in RULES:
        for opcode in rule.opcodes:
            rows.setdefault(opcode, []).append(rule.handler.__name__)
    assert rows["trunc"] == ["trunc_to_bool", "cast", "narrow_int"]
    assert rows["zext"] == ["bool_extend", "cast", "narrow_int"]
    assert rows["bitcast"] == ["bitcast_value", "pointer"]


DIAMOND = """
define spir_kernel void @k(ptr addrspace(1) %out, i32 %n) {
entry:
  %c = icmp sgt i32 %n, 0
  br i1 %c, label %yes, label %done
yes:
  %s = shl i32 1, %n
  br label %done
done:
  %r = phi i32 [ 0, %entry ], [ %s, %yes ]
  store i32 %r, ptr addrspace(1) %out
  ret void
}
"""


@pytest.mark.parametrize("pipeline,driver", [("gen", StructuredDriver), ("gen-blockip", BlockIPDriver)])
def test_drivers_own_a_selector_and_selection_leaves_legal_machine_ir(pipeline, driver):
    func = program_from_llvm(DIAMOND, "diamond.ll").function("k", pipeline)
    # uniform values off: 1 << n is uniform, and isel_uniform puts a scalar's first immediate in a register
    # itself (legalization's per-lane mov would leave channel 0 stale under the mask)
    d = driver(func, 16, uniform_branches=False) if driver is StructuredDriver else driver(func, 16)
    assert isinstance(d.selector, ValueSelector) and d.selector.cx is d.cx
    free = d.run()                                   # selection alone: 1 << n has its immediate first
    assert any("immediate may only be the last" in p for p in verify(free))
    assert verify(select(func, 16).mfunc) == []
