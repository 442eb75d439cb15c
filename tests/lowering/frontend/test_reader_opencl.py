"""OpenCL C compiled by clang-22 at -O0 and -O2, read into CFG form."""
from __future__ import annotations

import glob
import os

import pytest

from reconverge.lowering.errors import CompileError
from reconverge.lowering.ir.core import Const
from reconverge.lowering.ir.opcodes import OPCODES
from reconverge.lowering.ir.types import I32, I64, ptr
from tests.lowering.frontend.helpers import cl_ir, instrs, read_cl

LEVELS = ("-O0", "-O2")
CORPUS = sorted(glob.glob(os.path.join(os.path.dirname(__file__), "..", "..", "kernels", "*.cl")))


@pytest.mark.parametrize("level", LEVELS)
@pytest.mark.parametrize("path", CORPUS, ids=os.path.basename)
def test_corpus_reads_into_valid_cfg(path, level):
    from reconverge.lowering.frontend.clang import compile_opencl
    from reconverge.lowering.frontend.llvm_reader import read_llvm_text
    from reconverge.lowering.ir.validate import validate
    funcs = read_llvm_text(compile_opencl(path, level), path)
    assert funcs
    for f in funcs.values():
        assert validate(f) == []
        assert all(i.opcode in OPCODES for i in instrs(f))
        assert f.blocks[0].label


CONTROL = """
kernel void ctrl(global int *out, global const int *in, int n)
{
    int i = get_global_id(0);
    int acc = 0;
    for (int j = 0; j < n; j++) {
        int v = in[j];
        if (v < 0) continue;
        if (v > 100) break;
        switch (v - 3) {
        case 0: acc += 1; break;
        case 3: acc -= v; /* fall through */
        case 5: acc ^= 3; break;
        case -2: acc = 0; break;
        default: acc *= 2;
        }
    }
    out[i] = acc;
}
"""


@pytest.mark.parametrize("level", LEVELS)
def test_control_flow_kernel(level):
    f = read_cl(CONTROL, level)["ctrl"]
    sw = instrs(f, "switch")
    assert len(sw) == 1 and len(sw[0].attrs["cases"]) == 4
    if level == "-O0":                      # -O2 folds the subtraction into the case values
        assert sorted(sw[0].attrs["cases"]) == [-2, 0, 3, 5]
    assert instrs(f, "cbr")
    if level == "-O0":
        assert instrs(f, "alloca")          # -O0 keeps clang's allocas
        assert not instrs(f, "phi")
    assert all(b.label for b in f.blocks)


def test_O0_structure_is_kept():
    """The reader must not optimise: clang's -O0 for-loop has its cond/body/inc/end blocks."""
    src = "kernel void k(global int *p) { for (int j = 0; j < 4; j++) { p[j] = j; } }"
    f = read_cl(src, "-O0")["k"]
    assert len(f.blocks) == 5
    assert len(instrs(f, "alloca")) == 2


WORKITEMS = """
kernel void wi(global ulong *o)
{
    o[0] = get_global_id(0) + get_local_id(1) + get_group_id(2);
    o[1] = get_global_size(0) + get_local_size(0) + get_num_groups(1) + get_global_offset(0);
    o[2] = get_work_dim() + get_global_linear_id() + get_local_linear_id() + get_enqueued_local_size(0);
    barrier(CLK_LOCAL_MEM_FENCE);
    work_group_barrier(CLK_GLOBAL_MEM_FENCE | CLK_LOCAL_MEM_FENCE);
    mem_fence(CLK_GLOBAL_MEM_FENCE);
}
"""


@pytest.mark.parametrize("level", LEVELS)
def test_workitem_and_barrier_builtins(level):
    f = read_cl(WORKITEMS, level)["wi"]
    fns = [(i.attrs["fn"], i.operands[0].value if isinstance(i.operands[0], Const) else None)
           for i in instrs(f, "workitem")]
    for want in [("global_id", 0), ("local_id", 1), ("group_id", 2), ("global_size", 0), ("local_size", 0),
                 ("num_groups", 1), ("global_offset", 0), ("work_dim", 0)]:
        assert want in fns
    assert all(i.type == (I32 if i.attrs["fn"] == "work_dim" else I64) for i in instrs(f, "workitem"))
    flags = [i.operands[0].value for i in instrs(f, "barrier")]
    assert flags == [1, 3]
    assert not instrs(f, "call")


LOCAL_CONST = """
__constant float weights[4] = {0.25f, 0.5f, -1.0f, 2.0f};
__constant short small[3] = {-1, 2, 300};
kernel void lc(global float *out)
{
    __local float tile[64];
    __local int counts[8];
    int l = get_local_id(0);
    tile[l] = weights[l & 3] + small[l % 3];
    counts[l & 7] = l;
    barrier(CLK_LOCAL_MEM_FENCE);
    out[get_global_id(0)] = tile[63 - l] + counts[0];
}
"""


@pytest.mark.parametrize("level", LEVELS)
def test_local_and_constant_module_data(level):
    f = read_cl(LOCAL_CONST, level)["lc"]
    local = {d.symbol: (d.size, d.addrspace) for d in f.local_memory}
    assert local == {"lc.tile": (256, 3), "lc.counts": (32, 3)}
    const = {d.symbol: d for d in f.constant_data}
    assert const["weights"].init == bytes.fromhex("0000803e 0000003f 000080bf 00000040".replace(" ", ""))
    assert const["small"].init == bytes.fromhex("ffff02002c01")
    assert {i.type for i in instrs(f, "global_addr")} == {ptr(2), ptr(3)}


VECTORS = """
kernel void vec(global float4 *out, global const float4 *a, global const int4 *m, global float *s, int k)
{
    int i = get_global_id(0);
    float4 x = a[i];
    int4 sel = m[i];
    float4 y = x.wzyx * 2.0f + x;
    float4 z = select(y, x, sel);
    float3 w = z.xyz;
    float8 e = (float8)(x, y);
    z.y = e.s5 + w.z;
    z[k & 3] = 1.0f;
    out[i] = z + fmax(x, (float4)(0.5f)) + clamp(y, -1.0f, 1.0f);
    vstore4(vload4(i, s) * 3.0f, i + 1, s);
    s[i] = dot(x, y) + length(w) + z[k & 3];
}
"""


@pytest.mark.parametrize("level", LEVELS)
def test_vector_kernel_is_scalarized(level):
    f = read_cl(VECTORS, level)["vec"]
    for ins in instrs(f):
        assert ins.type.kind in ("int", "float", "ptr", "void")
        for o in ins.operands:
            assert o.type.kind in ("int", "float", "ptr")
    stores = instrs(f, "store")
    assert len(stores) >= 4 + 4 + 1
    assert {"fmax", "fmin", "select"} <= {i.opcode for i in instrs(f)}


BUILTINS = """
kernel void b(global float *f, global int *n, global uint *u, global long *l)
{
    int i = get_global_id(0);
    float x = f[i];
    int a = n[i];
    uint c = u[i];
    f[i] = sqrt(x) + exp(x) + pow(x, 2.5f) + fabs(x) + floor(x) + native_sin(x) + half_cos(x) + mad(x, x, x)
         + fma(x, x, 1.0f) + mix(x, 1.0f, 0.5f) + fmin(x, 2.0f) + rsqrt(x) + log2(x);
    n[i] = min(a, 3) + max(a, -3) + clamp(a, 0, 9) + abs(a) + popcount(a) + clz(a) + mul_hi(a, a) + rotate(a, 3);
    u[i] = min(c, 3u) + max(c, 9u) + clamp(c, 1u, 5u) + mul_hi(c, c) + abs_diff(c, 7u) + add_sat(c, c);
    l[i] = convert_long(x) + convert_int_sat(l[i + 1]) + convert_int_rte(x) + as_int(x);
}
"""


def test_builtin_mapping_O0():
    f = read_cl(BUILTINS, "-O0")["b"]
    ops = [i.opcode for i in instrs(f)]
    maths = {i.attrs["fn"] for i in instrs(f, "math")}
    assert {"sqrt", "exp", "pow", "fabs", "floor", "sin", "cos", "rsqrt", "log2", "rint"} <= maths
    for op in ("fmuladd", "fma", "fmin", "smin", "smax", "umin", "umax", "abs", "popcount", "clz",
               "mulhi_s", "mulhi_u", "fptosi"):
        assert op in ops, op
    assert not instrs(f, "call")


def test_builtins_O2_read():
    f = read_cl(BUILTINS, "-O2")["b"]
    assert not instrs(f, "call")


def test_unsupported_builtin_error_is_located():
    src = "kernel void at(global float *p) { if (p[1]) p[0] = erfc(p[2]); }"
    with pytest.raises(CompileError) as e:
        read_cl(src, "-O0")
    msg = str(e.value)
    assert msg.startswith("snippet.cl: function @at, block %") and "\n" not in msg
    assert "unsupported instruction: " in msg and "erfc" in msg


def test_unknown_kernel_name_from_opencl():
    src = "kernel void one(global int *p) { p[0] = 1; }\nkernel void two(global int *p) { p[0] = 2; }"
    with pytest.raises(CompileError, match=r"no kernel named 'three' \(available: one, two\)"):
        read_cl(src, "-O0", kernel="three")
    assert list(read_cl(src, "-O2", kernel="two")) == ["two"]


def test_values_and_blocks_keep_llvm_names():
    text = cl_ir("kernel void nm(global int *p, int n) { if (n > 2) p[0] = n; }", "-O2")
    from reconverge.lowering.frontend.llvm_reader import read_llvm_text
    f = read_llvm_text(text, "nm.cl")["nm"]
    labels = [b.label for b in f.blocks]
    assert all(lab.isdigit() for lab in labels)          # clang's blocks are unnamed: their slot numbers
    for lab in labels[1:]:
        assert f"\n{lab}:" in text
    cmp = instrs(f, "icmp")[0]
    assert "= icmp sgt i32 %1, 2" in text and cmp.name == ""   # a numbered value (%3) is unnamed
    assert [a.name for a in f.args] == ["p", "n"]
