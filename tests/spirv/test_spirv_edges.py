"""Edge cases where GLSL.std.450 or SPIR-V's integer types differ from what the IR means, against the CPU
reference: OpenCL's special values of pow/atan2/fmod/round/hypot/cbrt (signed zeros, infinities, NaN,
negative bases), LLVM's odd integer widths (i24, i48) in arithmetic and as parameters, and what has no
SPIR-V form at all (i128) as a one-line error."""
from __future__ import annotations

import os

import numpy as np
import pytest

from reconverge.backend.spirv import compile_spirv
from reconverge.lowering.errors import CompileError
from reconverge.tools.targets.harness import compare, load_program, program_from_llvm, run_target

HERE = os.path.dirname(__file__)

MATH = """
kernel void edges(global float *a, global float *b, global float *o) {
  int i = get_global_id(0);
  float x = a[i], y = b[i];
  o[i*8+0] = pow(x, y);   o[i*8+1] = round(x);    o[i*8+2] = hypot(x, y); o[i*8+3] = atan2(x, y);
  o[i*8+4] = fmod(x, y);  o[i*8+5] = x / y;       o[i*8+6] = round(y);    o[i*8+7] = cbrt(x);
}
"""
EXACT = (1, 4, 5, 6)          # round, fmod, division: bit for bit
A = [-2, -0.3, np.inf, 0, -0.0, 1e-30, -8, 2, -1, 1, np.nan, -0.0, 0.0, -np.inf, 3, -2.5, 0.5, -27, 2.5, -0.0]
B = [3, 2, np.inf, -1, 0, 3e-30, 2, 0.5, np.inf, np.nan, 0, -0.0, -0.0, -np.inf, -2, -3, -np.inf, 0.5, -0.5, 3]


def _same_class(want: float, got: float) -> bool:
    if np.isnan(want) or np.isnan(got):
        return bool(np.isnan(want) and np.isnan(got))
    return bool(np.signbit(want) == np.signbit(got) and np.isinf(want) == np.isinf(got)
                and (want == 0) == (got == 0))


def test_math_special_values_match_opencl(tmp_path):
    path = tmp_path / "edges.cl"
    path.write_text(MATH)
    program = load_program(str(path), "-O2")
    args = [np.float32(A), np.float32(B), np.zeros(8 * len(A), np.float32)]
    want = run_target("llvm", program, "edges", args, (len(A),), (4,))[2].reshape(-1, 8)
    got = run_target("spirv", program, "edges", args, (len(A),), (4,))[2].reshape(-1, 8)
    bad = []
    for lane in range(len(A)):
        for k in range(8):
            w, g = want[lane, k], got[lane, k]
            exact = w.tobytes() == g.tobytes() or (np.isnan(w) and np.isnan(g))
            # approximate functions: the same kind of value (sign, zero, infinity, NaN), close when finite
            close = _same_class(w, g) and (not np.isfinite(w) or abs(w - g) <= 1e-5 * abs(w) + 1e-37)
            if not (exact if k in EXACT else close):
                bad.append(f"a={A[lane]} b={B[lane]} result {k}: spirv {g!r} != llvm {w!r}")
    assert not bad, "; ".join(bad)


def test_odd_integer_widths_match_the_jit():
    """clz/ctz/bitreverse of an i48 and an ashr/sext of an i24, computed in 64/32-bit SPIR-V integers."""
    with open(os.path.join(HERE, "data", "odd_widths.ll")) as f:
        program = program_from_llvm(f.read(), "odd_widths.ll", "odd")
    rng = np.random.default_rng(7)
    values = np.concatenate([[0, 1, -1, 1 << 47, (1 << 48) - 1, 1 << 23, -(1 << 23)],
                             rng.integers(-(1 << 62), 1 << 62, 9)]).astype(np.int64)
    args = [values, np.zeros(4 * len(values), np.int64)]
    want = run_target("llvm", program, "odd", args, (len(values),), (1,))
    got = run_target("spirv", program, "odd", args, (len(values),), (1,))
    assert compare(want, got, ["in", "out"], labels=("llvm", "spirv")) == []


ODD_PARAM = """
define spir_kernel void @p(ptr addrspace(1) %out, i24 %a, i1 %b) {
entry:
  %x = sext i24 %a to i32
  %y = select i1 %b, i32 %x, i32 7
  store i32 %y, ptr addrspace(1) %out
  ret void
}
"""


@pytest.mark.parametrize("a,b", [(-5, True), ((1 << 23) - 1, True), (123, False)])
def test_odd_width_scalar_parameter(a, b):
    program = program_from_llvm(ODD_PARAM, "odd_param.ll", "p")
    args = [np.zeros(1, np.int32), a, b]
    want = run_target("ir", program, "p", args, (1,), (1,))
    got = run_target("spirv", program, "p", args, (1,), (1,))
    assert got[0][0] == want[0][0] == (a if b else 7)


def test_wider_than_64_bits_is_a_one_line_error():
    program = program_from_llvm("""
define spir_kernel void @w(ptr addrspace(1) %out, i64 %x) {
entry:
  %a = zext i64 %x to i128
  %m = mul i128 %a, %a
  %h = lshr i128 %m, 64
  %t = trunc i128 %h to i64
  store i64 %t, ptr addrspace(1) %out
  ret void
}
""", "wide.ll", "w")
    with pytest.raises(CompileError) as err:
        compile_spirv([program.function("w")])
    assert "wide.ll: @w: block" in str(err.value) and "wider than 64 bits" in str(err.value)


FREM = """
declare i64 @_Z13get_global_idj(i32)
define spir_kernel void @frem(ptr addrspace(1) %a, ptr addrspace(1) %b, ptr addrspace(1) %o) {
entry:
  %i = call i64 @_Z13get_global_idj(i32 0)
  %pa = getelementptr float, ptr addrspace(1) %a, i64 %i
  %pb = getelementptr float, ptr addrspace(1) %b, i64 %i
  %x = load float, ptr addrspace(1) %pa
  %y = load float, ptr addrspace(1) %pb
  %r = frem float %x, %y
  %po = getelementptr float, ptr addrspace(1) %o, i64 %i
  store float %r, ptr addrspace(1) %po
  ret void
}
"""


def test_llvm_frem_keeps_fmods_edges_on_spirv():
    """LLVM's frem (C's fmod) through SPIR-V: OpFRem alone loses a zero result's sign and gives NaN for
    an infinite divisor; lower_math_edges makes it exact."""
    args = [np.float32(A), np.float32(B), np.zeros(len(A), np.float32)]
    want = run_target("llvm", program_from_llvm(FREM, "frem.ll", "frem"), "frem", args, (len(A),), (4,))[2]
    got = run_target("spirv", program_from_llvm(FREM, "frem.ll", "frem"), "frem", args, (len(A),), (4,))[2]
    same = (want.view(np.uint32) == got.view(np.uint32)) | (np.isnan(want) & np.isnan(got))
    assert same.all(), [(a, b, w, g) for a, b, w, g, s in zip(A, B, want, got, same) if not s]
