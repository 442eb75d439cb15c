"""Kernel metadata the front end reads from clang's IR: parameter names (-cl-kernel-arg-info), the source
parameter each IR argument came from, and reqd_work_group_size."""
from __future__ import annotations

import pytest

from reconverge.lowering.errors import CompileError
from reconverge.lowering.frontend.llvm_reader import parse_kernel_metadata
from reconverge.lowering.ir.printer import print_function
from tests.lowering.frontend.helpers import read_cl, read_ll

SOURCE = """
kernel __attribute__((reqd_work_group_size(16, 2, 1)))
void k(global float *out, global const float *in, float4 v, int n)
{
    size_t i = get_global_id(0);
    out[i] = in[i] * v.x + v.w + n;
}
kernel void plain(global int *dst) { dst[get_global_id(0)] = 1; }
"""


@pytest.mark.parametrize("level", ["-O0", "-O2"])
def test_parameter_names_and_indices(level):
    funcs = read_cl(SOURCE, level)
    k = funcs["k"]
    assert [(a.name, a.index, a.param) for a in k.args] == [
        ("out", 0, 0), ("in", 1, 1), ("v.0", 2, 2), ("v.1", 3, 2), ("v.2", 4, 2), ("v.3", 5, 2), ("n", 6, 3)]
    assert print_function(k).startswith("kernel @k(ptr1 %out, ptr1 %in, f32 %v.0,")


@pytest.mark.parametrize("level", ["-O0", "-O2"])
def test_reqd_work_group_size(level):
    funcs = read_cl(SOURCE, level)
    assert funcs["k"].reqd_work_group_size == (16, 2, 1)
    assert funcs["plain"].reqd_work_group_size is None
    assert [a.name for a in funcs["plain"].args] == ["dst"]


def test_hand_written_ir_keeps_its_own_names_and_reads_the_attachment():
    funcs = read_ll("""
define spir_kernel void @h(ptr addrspace(1) %buf, <2 x i32> %pair) !reqd_work_group_size !0 !kernel_arg_name !1 {
  ret void
}
!0 = !{i32 8, i32 4, i32 2}
!1 = !{!"ignored", !"also_ignored"}
""")
    h = funcs["h"]
    assert h.reqd_work_group_size == (8, 4, 2)
    assert [(a.name, a.param) for a in h.args] == [("buf", 0), ("pair.0", 1), ("pair.1", 1)]


def test_unnamed_parameters_without_metadata_stay_unnamed():
    funcs = read_ll("""
define spir_kernel void @u(ptr addrspace(1) %0, i32 %1) {
  ret void
}
""")
    assert [(a.name, a.index, a.param) for a in funcs["u"].args] == [("", 0, 0), ("", 1, 1)]
    assert funcs["u"].reqd_work_group_size is None


def test_bad_work_group_size_names_the_kernel():
    with pytest.raises(CompileError, match=r"t\.ll: kernel @k: bad !reqd_work_group_size"):
        parse_kernel_metadata("define void @k() !reqd_work_group_size !3 {",
                              "!3 = !{i32 0, i32 1, i32 1}\n", "t.ll: kernel @k")
