"""legalize_int_widths keeps what every lane computes: a kernel full of odd widths (i24 arithmetic,
division, shifts, compares, min/max and casts, i48/i12 bit counts, an i24 argument, phis and selects)
legalized for SPIR-V runs on the interpreter and on lavapipe like the LLVM module on the CPU JIT, and
after the pass no odd width is left but the argument's own."""
from __future__ import annotations

import os

import numpy as np
import pytest

from reconverge.lowering.errors import CompileError
from reconverge.lowering.target import LEGAL_WIDTHS, lower_for
from reconverge.tools.targets.harness import program_from_llvm, run_target

TESTS = os.path.abspath(os.path.join(os.path.dirname(__file__), os.pardir, os.pardir))
with open(os.path.join(TESTS, "data", "odd_arith.ll")) as f:
    ODD = f.read()


def _inputs(k: int) -> list:
    rng = np.random.default_rng(11)
    edges = [0, 1, -1, (1 << 23) - 1, -(1 << 23), 1 << 23, (1 << 24) - 1, 1 << 47, (1 << 48) - 1, 7 << 40]
    values = np.concatenate([edges, rng.integers(-(1 << 62), 1 << 62, 22)]).astype(np.int64)
    return [values, np.zeros(16 * len(values), np.int64), k]


@pytest.mark.parametrize("k", [5, -3, (1 << 23) - 1, -(1 << 23)])
def test_legalized_on_the_interpreter_agrees_with_the_jit(k):
    args = _inputs(k)
    n = len(args[0])
    want = run_target("llvm", program_from_llvm(ODD, "odd.ll", "odd"), "odd", args, (n,), (8,))
    program = program_from_llvm(ODD, "odd.ll", "odd")
    func = program.function("odd")
    lower_for([func], "spirv")
    odd = [ins for ins in func.instructions() for v in (ins, *ins.operands)
           if v.type.is_int and v.type.bits not in LEGAL_WIDTHS]
    assert not odd, odd
    got = run_target("ir", program, "odd", args, (n,), (8,))
    np.testing.assert_array_equal(got[1].reshape(n, 16), want[1].reshape(n, 16))


def test_legalized_on_lavapipe_agrees_with_the_jit():
    args = _inputs(-77)
    n = len(args[0])
    want = run_target("llvm", program_from_llvm(ODD, "odd.ll", "odd"), "odd", args, (n,), (8,))
    got = run_target("spirv", program_from_llvm(ODD, "odd.ll", "odd"), "odd", args, (n,), (8,))
    np.testing.assert_array_equal(got[1].reshape(n, 16), want[1].reshape(n, 16))


def test_odd_width_memory_is_a_one_line_error():
    text = ODD.replace("%x = load i64, ptr addrspace(1) %pi", "%x24 = load i24, ptr addrspace(1) %pi\n"
                       "  %x = sext i24 %x24 to i64")
    func = program_from_llvm(text, "odd.ll", "odd").function("odd")
    with pytest.raises(CompileError, match=r"odd.ll: @odd: .*load: a i24 load is not supported"):
        lower_for([func], "spirv")


ODD_ARG = """
define spir_kernel void @p(ptr addrspace(1) %out, i24 %a) {
entry:
  %n = sub i24 0, %a
  %s = sext i24 %n to i32
  store i32 %s, ptr addrspace(1) %out
  ret void
}
"""


@pytest.mark.parametrize("a", [5, -(1 << 23), (1 << 23) - 1, 0])
def test_an_odd_width_argument_is_widened_once_at_the_entry(a):
    program = program_from_llvm(ODD_ARG, "arg.ll", "p")
    func = program.function("p")
    lower_for([func], "spirv")
    first = func.entry().instrs[0]
    assert first.opcode == "zext" and first.operands[0] is func.args[1] and first.type.bits == 32
    got = run_target("ir", program, "p", [np.zeros(1, np.int32), a], (1,), (1,))
    assert got[0][0] == ((-a + (1 << 23)) % (1 << 24)) - (1 << 23)


SUBGROUP_I8 = """
kernel @s(ptr1 %out, i32 %a) {
  block b0:
    %x = trunc i8 %a
    %m = subgroup.exclusive_scan i8 %x, arith "smin"
    %b = subgroup.broadcast i8 %x, i32 0
    %w = zext i32 %m
    store i32 %w, %out, align 4
    %v = zext i32 %b
    store i32 %v, %out, align 4
}
"""


def test_a_narrow_subgroup_scan_is_done_wide_and_clamped_to_the_narrow_identity():
    """On Gen (legal widths 32 and 64) an i8 smin scan works on sign-extended i32 values; its result is
    clamped to the i8 identity (127: the i32 one, INT_MAX, is what an exclusive scan's first lane gets)
    and masked back to 8 bits; a broadcast moves the zero-extended value unchanged."""
    from reconverge.lowering.ir.parser import parse_module
    func = parse_module(SUBGROUP_I8).functions["s"]
    lower_for([func], "gen")
    scan = next(i for i in func.instructions() if i.opcode == "subgroup" and i.attrs["op"] == "exclusive_scan")
    assert scan.type.bits == 32 and scan.operands[0].opcode == "ashr"
    clamp = next(i for i in func.instructions() if scan in i.operands)
    assert clamp.opcode == "smin" and clamp.operands[1].value == 127
    mask = next(i for i in func.instructions() if clamp in i.operands)
    assert mask.opcode == "and" and mask.operands[1].value == 255
    broadcast = next(i for i in func.instructions() if i.opcode == "subgroup" and i.attrs["op"] == "broadcast")
    assert broadcast.type.bits == 32 and not any(broadcast in i.operands and i.opcode == "and"
                                                 for i in func.instructions())
