"""backend/gen/mir_parser.py reads back what mir_printer.py prints: the function read equals the one
printed, field by field (a NaN immediate by its bits), and prints to the same text, for the machine IR
of real kernels in every control-flow mode, before and after register allocation (spill code included);
malformed text is a one-line error naming the line. (The whole corpus, -O2, every mode, SIMD 8 and 16,
before and after allocation: 636 functions, all exact, when this test was written; the slice below
keeps the suite fast.)"""
from __future__ import annotations

import os
import struct

import pytest

from reconverge.backend.gen import select_any
from reconverge.backend.gen.mir import Imm, MFunction, MInstr, Operand, VReg
from reconverge.backend.gen.mir_parser import parse_mfunction, parse_mfunctions
from reconverge.backend.gen.mir_printer import print_mfunction
from reconverge.backend.gen.regalloc import allocate
from reconverge.isa.gen9.model import DataType
from reconverge.lowering.errors import CompileError
from reconverge.records import fields
from reconverge.tools.filetest import GEN_CF
from reconverge.tools.targets.harness import load_program
from tests.gen.test_mir import diamond, loop, straight

ROOT = os.path.join(os.path.dirname(__file__), os.pardir, os.pardir)
KERNELS = ("float_math", "local_mem", "long_arith", "loop_multi_exit")


def _fields(x):
    """A value's fields, recursively, with floats as their bits (so NaN equals itself)."""
    if hasattr(x, "__record_fields__") and not isinstance(x, type):
        return (type(x).__name__, *(_fields(getattr(x, f.name)) for f in fields(x)))
    if isinstance(x, (list, tuple)):
        return tuple(_fields(i) for i in x)
    if isinstance(x, dict):
        return tuple((k, _fields(v)) for k, v in x.items())
    if isinstance(x, float):
        return ("float", struct.pack("<d", x))
    return x


def _round_trip(func: MFunction) -> None:
    text = print_mfunction(func)
    back = parse_mfunction(text, "rt.mir")
    assert print_mfunction(back) == text
    assert (back.name, back.simd) == (func.name, func.simd)
    assert _fields(back.blocks) == _fields(func.blocks)
    assert _fields(back.vregs) == _fields(func.vregs)


@pytest.mark.parametrize("mode", ("structured", "blockip", "hybrid"))
@pytest.mark.parametrize("kernel", KERNELS)
def test_the_machine_ir_of_real_kernels_reads_back_exactly(kernel, mode):
    program = load_program(os.path.join(ROOT, "tests", "kernels", f"{kernel}.cl"), "-O2")
    pipeline, options = GEN_CF[mode]
    for name in program.kernel_names():
        func = select_any(program.function(name, pipeline), 16, **options)
        _round_trip(func)
        _, spilled = allocate(func, 100)           # few registers: spill code, split sends, declared views
        assert spilled
        _round_trip(func)


def test_hand_made_functions_and_the_fields_text_hides_read_back():
    for make in (straight, loop, diamond):
        _round_trip(make())
    f = straight()
    payload = f.vreg(DataType.UD, uniform=True, count=4)         # never used: declared
    nan = struct.unpack("<d", struct.pack("<Q", 0x7FF8000000000123))[0]
    f.blocks[0].instrs.insert(0, MInstr("mov", 16, Operand(VReg(1, DataType.F)), [Operand(Imm(nan, DataType.F))]))
    text = print_mfunction(f)
    assert f"reg %v{payload.id}.u*4:ud" in text and "nan(0x7FF8000000000123):f" in text
    assert "reg %v1:ud" in text                   # first seen as a :f view
    _round_trip(f)


def test_several_functions_and_their_errors_name_the_line():
    text = print_mfunction(straight()) + print_mfunction(loop())
    assert [f.name for f in parse_mfunctions("; a comment\n" + text)] == ["straight", "loop"]
    broken = text.replace("mul (8) %v4:d, %v2:d, %v1.u:d", "mul (8) %v4:d, %v2:d, %v1.u:zz")
    line = broken.splitlines().index("  mul (8) %v4:d, %v2:d, %v1.u:zz") + 1
    with pytest.raises(CompileError, match=rf"^f.mir:{line}: unknown type ':zz'$"):
        parse_mfunctions(broken, "f.mir")
    for bad, message in (("gen function x", "expected 'gen function NAME SIMDn"),
                         ("gen function x SIMD8 (0 virtual registers)\nb:\n  jmpi (1) nowhere",
                          "branch to unknown block 'nowhere'"),
                         ("gen function x SIMD8 (2 virtual registers)\nb:\n  mov (8) %v0:d, 1:d",
                          "%v1 is neither declared nor used"),
                         ("gen function x SIMD8 (1 virtual registers)\n  mov (8) %v0:d, 1:d",
                          "expected 'LABEL:' or an indented instruction")):
        with pytest.raises(CompileError, match=message):
            parse_mfunction(bad)
