"""tools/targets/harness.py: compare() finds and names differing lanes (integers exactly, floats within n ulps,
NaN equal to NaN); run_target gives the same buffers on llvm and ir for corpus kernels, on fresh copies."""
from __future__ import annotations

import os

import numpy as np
import pytest

from reconverge.lowering.errors import CompileError
from reconverge.lowering.ndrange import default_local_size
from reconverge.tools.targets import harness
from reconverge.tools.targets.harness import compare, kernel_params, load_program, run_target
from reconverge.tools.testing.kernel_spec import parse_specs

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
KERNELS = os.path.join(ROOT, "tests", "kernels")
LLVM_IR = ("llvm", "ir")


def test_equal_buffers_give_no_lines():
    a = [np.arange(8, dtype=np.int32), np.float32(2.0), np.array([1.5, np.nan], np.float32)]
    b = [x.copy() for x in a]
    assert compare(a, b, ["out", "k", "f"]) == []


def test_first_differing_lane_is_reported_with_labels_and_count():
    ref = np.arange(32, dtype=np.int32)
    got = ref.copy()
    got[17], got[20], got[30] = 3, 0, 0
    lines = compare([ref], [got], ["out"], labels=("llvm", "spirv"))
    assert lines == ["buffer 'out' [17]: spirv 3 != llvm 17 (and 2 more lanes differ)"]


def test_integers_are_exact_even_with_ulps():
    ref = np.array([5, 6], np.uint8)
    got = np.array([5, 7], np.uint8)
    assert compare([ref], [got], ["b"], float_ulps=10) == ["buffer 'b' [1]: result 7 != reference 6"]


def test_multidimensional_lane_index_and_scalars_ignored():
    ref = np.zeros((4, 3), np.int16)
    got = ref.copy()
    got[2, 1] = -1
    lines = compare([np.int32(1), ref], [np.int32(2), got], ["n", "v"])
    assert lines == ["buffer 'v' [2, 1]: result -1 != reference 0"]


def test_shape_and_dtype_mismatch():
    assert "float32[4] != reference int32[4]" in compare([np.zeros(4, np.int32)], [np.zeros(4, np.float32)],
                                                            ["x"])[0]
    assert "[3] != reference int32[4]" in compare([np.zeros(4, np.int32)], [np.zeros(3, np.int32)], ["x"])[0]


@pytest.mark.parametrize("dtype", [np.float16, np.float32, np.float64])
def test_float_ulps(dtype):
    one = dtype(1.0)
    up1 = np.nextafter(one, dtype(2))
    up2 = np.nextafter(up1, dtype(2))
    ref = np.array([one, one, -one], dtype)
    got = np.array([up1, up2, np.nextafter(-one, dtype(-2))], dtype)
    assert len(compare([ref], [got], ["f"])) == 1                          # 0 ulps: bit-exact
    assert compare([ref], [got], ["f"], float_ulps=0)[0].startswith("buffer 'f' [0]: ")
    assert compare([ref], [got], ["f"], float_ulps=1)[0].startswith("buffer 'f' [1]: ")
    assert compare([ref], [got], ["f"], float_ulps=2) == []


def test_signed_zero_and_tiny_values_across_zero():
    ref = np.array([0.0, np.float32(1e-45)], np.float32)       # +0 and the smallest subnormal
    got = np.array([-0.0, -np.float32(1e-45)], np.float32)
    assert compare([ref], [got], ["z"])[0].startswith("buffer 'z' [0]: result -0.0 != reference 0.0")
    assert compare([ref], [got], ["z"], float_ulps=1)[0].startswith("buffer 'z' [1]: ")   # 2 ulps apart
    assert compare([ref], [got], ["z"], float_ulps=2) == []


def test_nan_equals_nan_but_not_a_number():
    ref = np.array([np.nan, np.nan, 1.0, np.inf], np.float64)
    quiet_other = np.frombuffer(np.uint64(0x7FF8000000000123).tobytes(), np.float64)[0]
    assert compare([ref], [np.array([np.nan, quiet_other, 1.0, np.inf])], ["f"], float_ulps=0) == []
    assert compare([ref], [np.array([np.nan, 1.0, np.nan, np.inf])], ["f"], float_ulps=1000) == [
        "buffer 'f' [1]: result 1.0 != reference nan (and 1 more lanes differ)"]
    big = np.finfo(np.float64).max
    assert compare([ref[3:]], [np.array([big])], ["f"], float_ulps=1) == []   # inf is one ulp above max
    assert compare([np.array([-big])], [np.array([big])], ["f"], float_ulps=2**62)   # no overflow


def test_default_local_size():
    assert default_local_size((48,)) == (48,)
    assert default_local_size((96, 5)) == (48, 1)
    assert default_local_size((7,)) == (7,)
    assert default_local_size((128, 2, 2)) == (64, 1, 1)
    assert default_local_size((67,)) == (1,)
    assert default_local_size((32, 4), (8, 2, 1)) == (8, 2)


def _corpus_cases():
    for name in ("two_kernels", "gcd_lcm", "switch_in_loop", "float_math", "work_item_2d"):
        path = os.path.join(KERNELS, f"{name}.cl")
        for spec in parse_specs(path):
            yield pytest.param(path, spec, id=f"{name}-{spec.kernel}")


@pytest.mark.parametrize("path,spec", list(_corpus_cases()))
def test_llvm_and_ir_agree_on_corpus_kernels(path, spec):
    program = load_program(path, "-O2", spec.kernel)
    assert program._functions == {}                       # nothing structurized before a target asks
    names = [p.name for p in program.params(spec.kernel)]
    assert names == [a.name for a in spec.args]          # -cl-kernel-arg-info names = the RUN header's
    assert [(p.name, p.types) for p in kernel_params(program.function(spec.kernel))] == \
        [(p.name, p.types) for p in program.params(spec.kernel)]
    args = spec.make_args(7)
    before = [a.copy() if isinstance(a, np.ndarray) else a for a in args]
    results = {t: run_target(t, program, spec.kernel, args, spec.global_size, spec.local_size,
                             global_offset=spec.global_offset) for t in LLVM_IR}
    for a, b in zip(args, before):                       # the caller's arrays are left alone
        assert np.array_equal(a, b)
    assert compare(results["llvm"], results["ir"], names, labels=LLVM_IR) == []
    out = [i for i, a in enumerate(spec.args) if a.is_buffer]
    assert any(not np.array_equal(results["ir"][i], before[i]) for i in out), "the kernel wrote nothing"


def test_a_broken_result_is_caught(tmp_path):
    path = os.path.join(KERNELS, "gcd_lcm.cl")
    spec = parse_specs(path)[0]
    program = load_program(path, "-O0")
    args = spec.make_args(1)
    ref = run_target("llvm", program, spec.kernel, args, spec.global_size, spec.local_size)
    got = run_target("ir", program, spec.kernel, args, spec.global_size, spec.local_size)
    got[0].ravel()[5] += 1
    lines = compare(ref, got, [a.name for a in spec.args], labels=LLVM_IR)
    assert len(lines) == 1 and lines[0].startswith(f"buffer '{spec.args[0].name}' [5]: ir ")


def test_vector_parameters_on_ir_and_errors(tmp_path):
    path = tmp_path / "v.cl"
    path.write_text("kernel void v(global int *o, int2 p) { o[get_global_id(0)] = p.x * 10 + p.y; }")
    program = load_program(str(path))
    params = kernel_params(program.functions["v"])
    assert [(p.name, p.is_buffer, p.is_vector) for p in params] == [("o", True, False), ("p", False, True)]
    (out, _), = [run_target("ir", program, "v", [np.zeros(4, np.int32), np.array([3, 4], np.int32)], 4, 2)]
    assert out.tolist() == [34] * 4
    with pytest.raises(CompileError, match="llvm target cannot pass by-value vector"):
        run_target("llvm", program, "v", [np.zeros(4, np.int32), np.array([3, 4], np.int32)], 4, 2)
    with pytest.raises(CompileError, match="unknown target 'gpu'"):
        run_target("gpu", program, "v", [], 4, 2)
    with pytest.raises(CompileError, match="no kernel named 'w'"):
        run_target("ir", program, "w", [], 4, 2)


def test_targets_registry_is_open():
    seen = []
    harness.TARGETS["echo"] = lambda program, kernel, args, g, l, options, offset: seen.append((kernel, g, l))
    try:
        program = harness.Program("p.cl", "-O0", "")
        assert run_target("echo", program, "k", [np.zeros(2)], (8,), (4,))[0].tolist() == [0, 0]
        assert seen == [("k", (8,), (4,))]
    finally:
        del harness.TARGETS["echo"]


def test_program_from_llvm_text():
    text = """
define spir_kernel void @twice(ptr addrspace(1) %buf) {
entry:
  %i = call i64 @_Z13get_global_idj(i32 0)
  %p = getelementptr i32, ptr addrspace(1) %buf, i64 %i
  %v = load i32, ptr addrspace(1) %p
  %w = shl i32 %v, 1
  store i32 %w, ptr addrspace(1) %p
  ret void
}
declare i64 @_Z13get_global_idj(i32)
"""
    program = harness.program_from_llvm(text, "gen.ll")
    args = [np.arange(8, dtype=np.int32)]
    ref, got = (run_target(t, program, "twice", args, 8, 4) for t in LLVM_IR)
    assert compare(ref, got, ["buf"]) == [] and got[0].tolist() == [0, 2, 4, 6, 8, 10, 12, 14]
