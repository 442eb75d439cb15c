"""hide_signed_zero_selects: the zero of a select or phi beside a 1.0 or -1.0 of the other sign (the b2f
pattern NVIDIA's compiler and Mesa's NIR fold to the wrong zero) becomes `never ? 2.0 : zero`; zeros that
such a fold reads right, and other literals, stay."""
from __future__ import annotations

import numpy as np

from reconverge.lowering.interp import run_kernel
from reconverge.lowering.ir.core import Const, Instr
from reconverge.lowering.ir.parser import parse_module
from reconverge.lowering.ir.printer import print_function
from reconverge.lowering.ir.validate import check
from reconverge.lowering.passes import PASSES
from reconverge.lowering.target import CAPS, PIPELINES

KERNEL = """\
kernel @k(ptr1 %out, ptr1 %a) {
  block b0:
    %0 = workitem.global_id i64 i32 0
    %1 = mul i64 %0, 4
    %2 = ptradd ptr1 %a, %1
    %3 = load f32 %2, align 4
    %c = fcmp.ogt f32 %3, 0.0
    %m = select f32 %c, -1.0, 0.0
    %p = select f32 %c, 1.0, -0.0
    %same = select f32 %c, 1.0, 0.0
    %other = select f32 %c, 2.0, -0.0
    %bits = select i32 %c, 1065353216, 2147483648
    %x = bitcast i32 %m
    %y = bitcast i32 %p
    %z = bitcast i32 %same
    %w = bitcast i32 %other
    %v = xor i32 %x, %y
    %u = xor i32 %v, %z
    %t = xor i32 %u, %w
    %s = xor i32 %t, %bits
    %o = ptradd ptr1 %out, %1
    store i32 %s, %o, align 4
}
"""


def _select_operands(func, name: str) -> list:
    ins = next(i for i in func.instructions() if i.opcode == "select" and i.name == name)
    return ins.operands[1:]


def test_the_misread_zeros_are_hidden_and_the_rest_kept():
    func = parse_module(KERNEL, "t.nir").functions["k"]
    before = parse_module(KERNEL, "t.nir").functions["k"]
    assert PASSES["hide_signed_zero_selects"].run(func, CAPS["spirv"])
    assert not check(func)
    for name in ("m", "p", "bits"):         # -1.0 beside +0.0, 1.0 beside -0.0, and their bit patterns as i32
        one, zero = _select_operands(func, name)
        assert isinstance(one, Const) and isinstance(zero, Instr) and zero.opcode == "select", name
    for name in ("same", "other"):          # b2f reads 1.0/+0.0 right; 2.0 matches no such rule
        assert all(isinstance(v, Const) for v in _select_operands(func, name)), name
    args = lambda: [np.zeros(8, np.uint32), np.array([-2, -1, 0, 1, 2, -0.0, 3, -3], np.float32)]  # noqa: E731
    want, got = args(), args()
    run_kernel(before, want, (8,), (8,))
    run_kernel(func, got, (8,), (8,))
    np.testing.assert_array_equal(got[0], want[0])
    assert not PASSES["hide_signed_zero_selects"].run(func, CAPS["spirv"])     # nothing left to hide
    assert "hide_signed_zero_selects" in PIPELINES["spirv"] and "hide_signed_zero_selects" not in PIPELINES["gen"]
    assert print_function(func).count("workitem.num_groups") == 1


def test_a_phi_of_one_literal_counts_as_that_literal():
    """A phi whose inputs are all one literal (through a select) beside the other sign's one is hidden too."""
    text = """\
kernel @k(ptr1 %out, i32 %n) {
  block b0:
    %c = icmp.slt i32 %n, 3
    cbr i1 %c, b1, b2
  block b1:
    %z = select f32 %c, 0.0, 0.0
    br b2
  block b2:
    %r = phi f32 [b0: -1.0], [b1: %z]
    store f32 %r, %out
    ret
}
"""
    func = parse_module(text, "t.nir").functions["k"]
    assert PASSES["hide_signed_zero_selects"].run(func, CAPS["spirv"])
    phi = next(i for i in func.instructions() if i.opcode == "phi")
    assert isinstance(phi.operands[1], Instr) and phi.operands[1].opcode == "select" and \
        phi.operands[1].operands[1].value == 2.0


def test_a_signed_conversion_of_a_bool_is_a_select_with_its_zero_hidden():
    """sitofp of an i1 is -1.0 or +0.0; the emitter would write `c ? -1.0 : 0.0`, so the pass writes that select
    itself with the zero hidden; uitofp (1.0 or +0.0, which b2f reads right) stays."""
    text = """\
kernel @k(ptr1 %out, i32 %n) {
  block b0:
    %c = icmp.slt i32 %n, 3
    %s = sitofp f32 %c
    %u = uitofp f32 %c
    store f32 %s, %out
}
"""
    func = parse_module(text, "t.nir").functions["k"]
    assert PASSES["hide_signed_zero_selects"].run(func, CAPS["spirv"])
    assert not check(func)
    s = next(i for i in func.instructions() if i.name == "s")
    assert s.opcode == "select" and s.operands[1].value == -1.0 and s.operands[2].opcode == "select"
    assert next(i for i in func.instructions() if i.name == "u").opcode == "uitofp"
    for n in (0, 5):
        out = [np.zeros(1, np.float32), n]
        run_kernel(func, out, (1,), (1,))
        assert out[0].view(np.uint32)[0] == (0xBF800000 if n < 3 else 0)
