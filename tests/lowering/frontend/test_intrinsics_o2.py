"""Intrinsics LLVM 22's -O2/-O3 pipelines produce for ordinary OpenCL C, run on the ir target against the
llvm target (the original module on the JIT), lane by lane."""
import numpy as np
import pytest

from reconverge.tools.targets.harness import compare, load_program, program_from_llvm, run_target

SEARCH = """
kernel void search(global int *out, global const int *in, int n) {
    int g = get_global_id(0), i = 0;
    while (i < n) { if (i * 3 > in[g]) break; i++; }
    out[g] = i;
}
"""


@pytest.mark.parametrize("level", ["-O2", "-O3"])
def test_a_search_loop_vectorized_into_cttz_elts(tmp_path, level):
    path = tmp_path / "search.cl"
    path.write_text(SEARCH)
    program = load_program(str(path), level)
    assert "llvm.experimental.cttz.elts" in program.llvm_text
    data = np.random.default_rng(1).integers(-5, 200, 64).astype(np.int32)
    for n in (0, 3, 17, 100):
        args = [np.zeros(64, np.int32), data, np.int32(n)]
        ref, got = (run_target(t, program, "search", args, 64, 16) for t in ("llvm", "ir"))
        assert compare(ref, got, ["out", "in", "n"]) == []


FPCLASS = """
define spir_kernel void @classify(ptr addrspace(1) %out, ptr addrspace(1) %in) {
entry:
  %g = call i64 @_Z13get_global_idj(i32 0)
  %pi = getelementptr float, ptr addrspace(1) %in, i64 %g
  %x = load float, ptr addrspace(1) %pi
  %bits = insertelement <1 x i32> zeroinitializer, i32 0, i32 0
""" + "".join(f"""  %t{k} = call i1 @llvm.is.fpclass.f32(float %x, i32 {mask})
  %z{k} = zext i1 %t{k} to i32
  %s{k} = shl i32 %z{k}, {k}
""" for k, mask in enumerate([3, 4, 8, 16, 32, 64, 128, 256, 512, 0x3FF, 0x204, 0x60, 0x90])) + """
  %a0 = or i32 %s0, %s1
""" + "".join(f"  %a{k} = or i32 %a{k - 1}, %s{k + 1}\n" for k in range(1, 12)) + """
  %po = getelementptr i32, ptr addrspace(1) %out, i64 %g
  store i32 %a11, ptr addrspace(1) %po
  ret void
}
declare i64 @_Z13get_global_idj(i32)
declare i1 @llvm.is.fpclass.f32(float, i32)
"""


def test_is_fpclass_on_every_class():
    program = program_from_llvm(FPCLASS, "fpclass.ll", "classify")
    values = np.array([np.nan, -np.inf, np.inf, -1.5, 1.5, -0.0, 0.0, 1e-40, -1e-40, 3.4e38, -1e-45, 1.0,
                       np.float32(1.17549435e-38), -np.float32(1.17549435e-38), 2.0, 7.0], np.float32)
    args = [np.zeros(16, np.int32), values]
    ref, got = (run_target(t, program, "classify", args, 16, 16) for t in ("llvm", "ir"))
    assert compare(ref, got, ["out", "in"]) == []
    assert len(set(ref[0].tolist())) >= 8          # the classes really differ


REVERSE = """
define spir_kernel void @rev(ptr addrspace(1) %out, <4 x i32> %v) {
entry:
  %r = call <4 x i32> @llvm.vector.reverse.v4i32(<4 x i32> %v)
  store <4 x i32> %r, ptr addrspace(1) %out
  ret void
}
declare <4 x i32> @llvm.vector.reverse.v4i32(<4 x i32>)
"""


def test_vector_reverse():
    program = program_from_llvm(REVERSE, "rev.ll", "rev")
    out = run_target("ir", program, "rev", [np.zeros(4, np.int32), np.array([1, 2, 3, 4], np.int32)], 1, 1)
    assert out[0].tolist() == [4, 3, 2, 1]
