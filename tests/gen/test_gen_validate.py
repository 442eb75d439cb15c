"""The backend's output against the PRM's restrictions (isa/gen9/validate.py): compile_gen_kernel refuses
code the validator rejects (so every Gen test's compile checks its binary), a fixed corpus slice is clean
in every control-flow mode and width through the encoded binary, and the 64-bit compare the validator
caught writing a packed dword destination now compares into a 64-bit temporary (and still computes what
the CPU reference does). The whole corpus: python -m reconverge.tools.gen_validate_corpus."""
from __future__ import annotations

import os

import pytest

from reconverge.backend.gen import CF_MODES, compile_gen_kernel
from reconverge.isa.gen9.builder import grf
from reconverge.isa.gen9.encoding import encode_program
from reconverge.isa.gen9.model import DataType, Instruction, RegFile
from reconverge.isa.gen9.validate import validate_binary, validate_program
from reconverge.lowering.errors import CompileError
from reconverge.tools.targets.harness import GenRunOptions, compare, kernel_params, load_program, run_target
from reconverge.tools.testing.kernel_spec import parse_specs

ROOT = os.path.join(os.path.dirname(__file__), os.pardir, os.pardir)
SLICE = ("global_offset.cl", "long_arith.cl", "switch_in_loop.cl")    # fixed and cheap: 64-bit, CFG shapes
MODES = ("structured", "blockip", "hybrid")


def _kernel(name: str) -> str:
    return os.path.join(ROOT, "tests", "kernels", name)


def test_compile_refuses_code_the_validator_rejects(monkeypatch):
    """A backend bug that emits an illegal instruction is an internal error, not a binary."""
    import reconverge.backend.gen.emit as emit_module
    real = emit_module.emit

    def broken(func, home, notes=None, bounds=None):
        bad = Instruction("mov", 16, dst=grf(10, DataType.Q), srcs=[grf(20, DataType.Q, region=(8, 8, 1))])
        return [bad, *real(func, home, notes, bounds)]
    monkeypatch.setattr(emit_module, "emit", broken)
    program = load_program(_kernel("global_offset.cl"), "-O0")
    func = program.function(program.kernel_names()[0], "gen")
    with pytest.raises(CompileError, match=r"internal error: @\w+: invalid Gen code: #0 @0: mov \(16\|M0\)"):
        compile_gen_kernel(func, 16)


@pytest.mark.parametrize("name", SLICE)
def test_corpus_slice_binaries_are_valid(name):
    program = load_program(_kernel(name), "-O2")
    for kernel in program.kernel_names():
        for mode in MODES:
            cf = CF_MODES[mode]
            func = program.function(kernel, cf.pipeline)
            for simd in (8, 16):
                insts = compile_gen_kernel(func, simd, False, cf.regions, cf.entry).program
                found = validate_binary(encode_program(insts))
                assert found == [], f"{name} @{kernel} {mode} SIMD{simd}: {found[0]}"
                assert validate_program(insts) == []       # the model the backend checks says the same


def test_a_64bit_compare_value_is_computed_in_a_64bit_destination():
    """cmp on :q sources has a 64-bit execution type: its destination is :q (then the low dwords are
    kept), never a packed :d the hardware does not write (it did before, in global_offset -O2)."""
    path = _kernel("global_offset.cl")
    program = load_program(path, "-O2")
    spec = parse_specs(path)[0]
    func = program.function(spec.kernel, "gen")
    for simd in (8, 16):
        insts = compile_gen_kernel(func, simd, verify=False).program
        wide = [i for i in insts if i.opcode == "cmp" and i.srcs[0].type.size == 8]
        assert wide and all(i.destination.type.size == 8 or i.destination.file == RegFile.ARF for i in wide)
        assert validate_program(insts) == []
    reference = run_target("llvm", program, spec.kernel, spec.make_args(7), spec.global_size, spec.local_size,
                           global_offset=spec.global_offset)
    for simd in (8, 16):
        got = run_target("gen", program, spec.kernel, spec.make_args(7), spec.global_size, spec.local_size,
                         GenRunOptions(simd, "structured"), global_offset=spec.global_offset)
        assert not compare(reference, got, [p.name for p in kernel_params(func)], labels=("llvm", "gen"))


def test_emission_splits_as_its_three_rules_say():
    """emit._instruction splits (answers None for the whole instruction) where its three rules together
    say: an operand over two GRFs (_footprint), an integer division, a float result of half-float sources."""
    from reconverge.backend.gen import selection
    from reconverge.backend.gen.emit import INT_DIV, _footprint, _instruction, _mixed_float_f32_dst
    from reconverge.backend.gen.mir import GRF_BYTES
    seen = split = 0
    for name in (*SLICE, "int_division.cl"):
        path = _kernel(name)
        if not os.path.exists(path):
            continue
        program = load_program(path, "-O2")
        for kernel in program.kernel_names():
            for mode in ("structured", "hybrid"):
                m = CF_MODES[mode]
                try:
                    mfunc = selection(program.function(kernel, m.pipeline), 16, m.regions).mfunc
                except CompileError:
                    continue
                home = dict.fromkeys(mfunc.vregs, 2)
                for block in mfunc.blocks:
                    for ins in block.instrs:
                        if ins.exec_size != 16:
                            continue
                        rules = _footprint(ins) > 2 * GRF_BYTES or ins.math_fc in INT_DIV or _mixed_float_f32_dst(ins)
                        assert (_instruction(ins, home, 0, 1) is None) == rules, ins
                        seen += 1
                        split += rules
    assert seen > 100 and split > 5
