"""Hand-written LLVM IR through the reader: predicates, switch cases, memory layout, vectors, intrinsics."""
from __future__ import annotations

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from reconverge.lowering.ir.core import Arg, Phi, Undef
from reconverge.lowering.ir.opcodes import FCMP_PREDICATES, ICMP_PREDICATES, OPCODES
from reconverge.lowering.ir.types import I1, I16, I32, I64, ptr
from reconverge.lowering.ir.validate import validate
from tests.lowering.frontend.helpers import by_name, const_offset, instrs, read_one


@pytest.mark.parametrize("pred", ICMP_PREDICATES)
def test_icmp_predicates(pred):
    f = read_one(f"""
define spir_kernel void @k(ptr addrspace(1) %o, i32 %a, i32 %b, <2 x i64> %v) {{
  %c = icmp {pred} i32 %a, %b
  %s = icmp samesign {pred} i32 %a, 7
  %w = icmp {pred} <2 x i64> %v, zeroinitializer
  %z = zext i1 %c to i8
  store i8 %z, ptr addrspace(1) %o
  ret void
}}""")
    cmps = instrs(f, "icmp")
    assert [c.attrs["pred"] for c in cmps] == [pred] * 4
    assert all(c.type == I1 for c in cmps)
    assert cmps[1].operands[1].value == 7
    assert [c.name for c in cmps] == ["c", "s", "w.0", "w.1"]


@pytest.mark.parametrize("pred", FCMP_PREDICATES)
def test_fcmp_predicates(pred):
    f = read_one(f"""
define spir_kernel void @k(float %a, float %b) {{
  %c = fcmp {pred} float %a, %b
  %d = fcmp fast {pred} float %a, 1.5
  %e = fcmp nnan ninf {pred} <3 x float> splat (float 2.0), <float 1.0, float poison, float 3.0>
  ret void
}}""")
    cmps = instrs(f, "fcmp")
    assert [c.attrs["pred"] for c in cmps] == [pred] * 5
    assert cmps[1].operands[1].value == 1.5
    assert isinstance(cmps[3].operands[1], Undef)


def _switch_ir(values: list[int], bits: int = 64) -> str:
    cases = "\n".join(f"    i{bits} {v}, label %c{i}" for i, v in enumerate(values))
    blocks = "\n".join(f"c{i}:\n  br label %join" for i in range(len(values)))
    incoming = ", ".join(f"[ {i}, %c{i} ]" for i in range(len(values)))
    return f"""
define spir_kernel void @k(i{bits} %x, ptr addrspace(1) %o) {{
entry:
  switch i{bits} %x, label %join [
{cases}
  ]
{blocks}
join:
  %p = phi i32 [ -1, %entry ], {incoming}
  store i32 %p, ptr addrspace(1) %o
  ret void
}}"""


def test_switch_negative_and_extreme_cases():
    values = [-(1 << 63), -1, 0, 42, (1 << 63) - 1]
    f = read_one(_switch_ir(values))
    sw = f.blocks[0].instrs[-1]
    assert sw.opcode == "switch"
    assert sw.attrs["cases"] == values
    assert [t.label for t in sw.targets] == ["join"] + [f"c{i}" for i in range(len(values))]
    phi = by_name(f, "p")
    assert [b.label for b in phi.blocks] == ["entry"] + [f"c{i}" for i in range(len(values))]
    assert [o.signed() for o in phi.operands] == [-1] + list(range(len(values)))


@settings(max_examples=25, deadline=None)
@given(st.lists(st.integers(-(1 << 63), (1 << 63) - 1), min_size=1, max_size=6, unique=True))
def test_switch_case_values_round_trip(values):
    sw = read_one(_switch_ir(values)).blocks[0].instrs[-1]
    assert sw.attrs["cases"] == values


def test_switch_on_i8_and_i1():
    f = read_one(_switch_ir([-128, 127, 5], bits=8))
    assert f.blocks[0].instrs[-1].attrs["cases"] == [-128, 127, 5]
    f = read_one(_switch_ir([1], bits=1))
    assert f.blocks[0].instrs[-1].attrs["cases"] == [1]


def test_switch_edges_to_one_block_dedupe_phi():
    f = read_one("""
define spir_kernel void @k(i32 %x, ptr addrspace(1) %o) {
entry:
  switch i32 %x, label %a [
    i32 1, label %b
    i32 2, label %b
    i32 3, label %a
  ]
a:
  %pa = phi i32 [ 10, %entry ], [ 10, %entry ]
  br label %b
b:
  %pb = phi i32 [ 7, %entry ], [ 7, %entry ], [ %pa, %a ]
  br i1 true, label %c, label %c
c:
  store i32 %pb, ptr addrspace(1) %o
  ret void
}""")
    sw = f.blocks[0].instrs[-1]
    assert [t.label for t in sw.targets] == ["a", "b", "b", "a"]
    assert f.blocks[0].succs == [f.blocks[1], f.blocks[2]]
    assert len(by_name(f, "pa").blocks) == 1
    assert [b.label for b in by_name(f, "pb").blocks] == ["entry", "a"]
    assert f.blocks[2].instrs[-1].opcode == "br"        # both cbr edges to one block


def test_alloca_sizes_and_alignment():
    f = read_one("""
%struct.T = type { i8, double, <3 x float>, [2 x i16] }
define spir_kernel void @k() {
  %a = alloca [10 x i32], align 4
  %b = alloca %struct.T, align 16
  %c = alloca [3 x %struct.T]
  %d = alloca i64, i32 5, align 8
  %e = alloca <3 x float>, align 16
  %f = alloca { i1, ptr addrspace(1) }, align 8
  ret void
}""")
    got = {a.name: (a.attrs["size"], a.attrs["align"]) for a in instrs(f, "alloca")}
    assert got == {"a": (40, 4), "b": (48, 16), "c": (144, 16), "d": (40, 8), "e": (16, 16), "f": (16, 8)}
    assert all(a.type == ptr(0) for a in instrs(f, "alloca"))


def test_gep_offsets():
    f = read_one("""
%struct.P = type { i8, i32, double, [3 x i16] }
%struct.Q = type { %struct.P, <4 x float>, [2 x %struct.P] }
define spir_kernel void @k(ptr addrspace(1) %p, i64 %n, i32 %m) {
  %f1 = getelementptr inbounds %struct.P, ptr addrspace(1) %p, i64 2, i32 3, i64 1
  %f2 = getelementptr %struct.P, ptr addrspace(1) %p, i64 -1, i32 2
  %f3 = getelementptr %struct.Q, ptr addrspace(1) %p, i64 0, i32 2, i64 1, i32 1
  %f4 = getelementptr inbounds nuw i8, ptr addrspace(1) %p, i64 -8
  %f5 = getelementptr <4 x float>, ptr addrspace(1) %p, i64 3, i32 2
  %f6 = getelementptr [4 x [5 x i16]], ptr addrspace(1) %p, i32 -1, i32 2, i32 -3
  %v1 = getelementptr %struct.Q, ptr addrspace(1) %p, i64 %n, i32 2, i32 %m, i32 2
  %z = getelementptr [4 x i32], ptr addrspace(1) %p, i64 0, i64 0
  store ptr addrspace(1) %z, ptr addrspace(1) %f1
  ret void
}""")
    offs = {n: const_offset(by_name(f, n)) for n in ("f1", "f2", "f3", "f4", "f5", "f6")}
    # P: i8@0 i32@4 double@8 [3 x i16]@16, size 24, align 8; Q: P@0 <4 x float>@32 [2 x P]@48, size 96
    assert offs == {"f1": 66, "f2": -16, "f3": 48 + 24 + 4, "f4": -8, "f5": 56, "f6": -40 + 20 - 6}
    v1 = by_name(f, "v1")
    assert v1.opcode == "ptradd" and v1.operands[0].name == "p"
    ops = [i.opcode for i in instrs(f) if i.type == I64]
    assert ops.count("mul") == 2 and "sext" in ops             # %m (i32) is sign-extended to i64
    muls = sorted(i.operands[1].value for i in instrs(f, "mul"))
    assert muls == [24, 96]
    store = instrs(f, "store")[0]
    assert isinstance(store.operands[0], Arg)                  # zero-offset GEP is the pointer itself


def test_constant_expressions_and_module_data():
    f = read_one("""
@tab = internal addrspace(2) constant [3 x { i16, float }] [{ i16, float } { i16 -2, float 1.0 }, { i16, float } zeroinitializer, { i16, float } { i16 7, float 0x3FB99999A0000000 }], align 4
@buf = internal addrspace(3) global [32 x i32] undef, align 16
@cnt = addrspace(1) global i32 5, align 4
define spir_kernel void @k(ptr addrspace(1) %o) {
  %a = load float, ptr addrspace(2) getelementptr inbounds ([3 x { i16, float }], ptr addrspace(2) @tab, i64 0, i64 2, i32 1), align 4
  %b = load i32, ptr addrspace(3) getelementptr inbounds nuw (i8, ptr addrspace(3) @buf, i64 12), align 4
  %c = load i32, ptr addrspace(1) @cnt, align 4
  %i = ptrtoint ptr addrspace(3) getelementptr (i8, ptr addrspace(3) @buf, i64 4) to i64
  store float %a, ptr addrspace(1) %o
  ret void
}""")
    assert const_offset(by_name(f, "a").operands[0]) == 20
    assert const_offset(by_name(f, "b").operands[0]) == 12
    addrs = {i.attrs["symbol"]: i.type for i in instrs(f, "global_addr")}
    assert addrs == {"tab": ptr(2), "buf": ptr(3), "cnt": ptr(1)}
    assert [(d.symbol, d.size, d.align, d.init, d.writable) for d in f.local_memory] == [
        ("buf", 128, 16, None, True)]
    data = {d.symbol: d for d in f.constant_data}
    assert data["tab"].init == (b"\xfe\xff\x00\x00\x00\x00\x80\x3f" + bytes(8) +
                                b"\x07\x00\x00\x00\xcd\xcc\xcc\x3d")
    assert not data["tab"].writable and data["cnt"].writable and data["cnt"].init == b"\x05\x00\x00\x00"
    # constant expressions are computed once, in the entry block, before any use
    entry = f.blocks[0].instrs
    assert [i.opcode for i in entry[:3]] == ["global_addr", "ptradd", "global_addr"]


def test_vectors_are_scalarized():
    f = read_one("""
define spir_kernel void @k(ptr addrspace(1) %o, <4 x float> %v, i32 %i, <4 x i32> %m) {
entry:
  %x = extractelement <4 x float> %v, i32 %i
  %y = insertelement <4 x float> %v, float %x, i32 %i
  %s = shufflevector <4 x float> %y, <4 x float> %v, <8 x i32> <i32 7, i32 0, i32 poison, i32 4, i32 1, i32 1, i32 3, i32 2>
  %t = shufflevector <4 x float> %v, <4 x float> poison, <4 x i32> zeroinitializer
  %a = fadd fast <4 x float> %t, %v
  %c = icmp slt <4 x i32> %m, splat (i32 0)
  %sel = select <4 x i1> %c, <4 x float> %a, <4 x float> %v
  %b = bitcast <4 x float> %sel to <2 x i64>
  %h = bitcast <2 x i64> %b to <8 x i16>
  %back = bitcast <8 x i16> %h to <4 x float>
  %n = fneg <4 x float> %back
  %fz = freeze <4 x float> %n
  br label %next
next:
  %p = phi <4 x float> [ %fz, %entry ]
  %e = shufflevector <4 x float> %p, <4 x float> poison, <3 x i32> <i32 0, i32 1, i32 2>
  store <3 x float> %e, ptr addrspace(1) %o, align 16
  %ld = load <3 x i16>, ptr addrspace(1) %o, align 2
  %w = extractelement <8 x i16> %h, i64 5
  ret void
}""")
    assert validate(f) == []
    for ins in instrs(f):
        assert ins.type.kind in ("int", "float", "ptr", "void")
    assert [i.name for i in instrs(f, "fadd")] == ["a.0", "a.1", "a.2", "a.3"]
    assert len(instrs(f, "phi")) == 4
    assert [const_offset(s.operands[1]) for s in instrs(f, "store")] == [0, 4, 8]
    loads = [i for i in instrs(f, "load")]
    assert [const_offset(l.operands[0]) for l in loads] == [0, 2, 4] and loads[0].type == I16
    # shuffle lanes are the source lanes themselves (lane 2 is undef)
    sel = [i for i in instrs(f, "select") if i.name.startswith("sel.")]
    assert [s.name for s in sel] == ["sel.0", "sel.1", "sel.2", "sel.3"]
    fadds = instrs(f, "fadd")
    args = {a.name: a for a in f.args}
    assert all(a.operands[0] is args["v.0"] for a in fadds)          # splat of lane 0
    # the i16 view is rebuilt from the 64-bit halves: lane 5 = bits 16..31 of the second i64
    w_lane = by_name(f, "h.5")
    assert w_lane.opcode == "trunc" and w_lane.operands[0].operands[1].value == 16
    # round trip through integers ends in float bitcasts
    assert [i.opcode for i in instrs(f) if i.name.startswith("back.")] == ["bitcast"] * 4


def test_forward_references_across_block_order():
    """A block that uses a value defined in a block printed after it."""
    f = read_one("""
define spir_kernel void @k(ptr addrspace(1) %o, i32 %n) {
entry:
  br label %def
use:
  %u = add i32 %d, 1
  store i32 %u, ptr addrspace(1) %o
  ret void
def:
  %d = mul i32 %n, 3
  br label %use
}""")
    u = by_name(f, "u")
    assert u.operands[0] is by_name(f, "d")


def test_loop_phi_self_reference():
    f = read_one("""
define spir_kernel void @k(ptr addrspace(1) %o, i32 %n) {
entry:
  br label %loop
loop:
  %i = phi i32 [ 0, %entry ], [ %next, %loop ]
  %acc = phi <2 x i32> [ zeroinitializer, %entry ], [ %acc2, %loop ]
  %ins = insertelement <2 x i32> poison, i32 %i, i64 0
  %spl = shufflevector <2 x i32> %ins, <2 x i32> poison, <2 x i32> zeroinitializer
  %acc2 = add <2 x i32> %acc, %spl
  %next = add nuw nsw i32 %i, 1
  %c = icmp ult i32 %next, %n
  br i1 %c, label %loop, label %exit
exit:
  %r = extractelement <2 x i32> %acc2, i64 1
  store i32 %r, ptr addrspace(1) %o
  ret void
}""")
    i = by_name(f, "i")
    assert isinstance(i, Phi) and i.value_for(f.blocks[1]) is by_name(f, "next")
    assert by_name(f, "acc.1").value_for(f.blocks[1]) is by_name(f, "acc2.1")
    cbr = f.blocks[1].instrs[-1]
    assert cbr.opcode == "cbr" and [t.label for t in cbr.targets] == ["loop", "exit"]


def test_intrinsics():
    f = read_one("""
define spir_kernel void @k(ptr addrspace(1) %o, i32 %a, i32 %b, float %x, <2 x float> %v, i8 %byte) {
  %priv = alloca [8 x i32], align 8
  call void @llvm.lifetime.start.p0(ptr %priv)
  call void @llvm.assume(i1 true)
  call void @llvm.experimental.noalias.scope.decl(metadata !0)
  %1 = call float @llvm.fmuladd.f32(float %x, float %x, float 1.0)
  %2 = call <2 x float> @llvm.fma.v2f32(<2 x float> %v, <2 x float> %v, <2 x float> %v)
  %3 = call i32 @llvm.smin.i32(i32 %a, i32 %b)
  %4 = call i32 @llvm.umax.i32(i32 %a, i32 %b)
  %5 = call i32 @llvm.abs.i32(i32 %a, i1 true)
  %6 = call float @llvm.fabs.f32(float %x)
  %7 = call <2 x float> @llvm.sqrt.v2f32(<2 x float> %v)
  %8 = call i32 @llvm.ctlz.i32(i32 %a, i1 false)
  %9 = call i32 @llvm.fshl.i32(i32 %a, i32 %a, i32 %b)
  %10 = call { i32, i1 } @llvm.sadd.with.overflow.i32(i32 %a, i32 %b)
  %11 = call i32 @llvm.vector.reduce.add.v4i32(<4 x i32> <i32 1, i32 2, i32 3, i32 4>)
  %12 = call float @llvm.maxnum.f32(float %x, float 0.0)
  %13 = call i32 @llvm.ctpop.i32(i32 %a)
  %14 = call i32 @llvm.bswap.i32(i32 %a)
  call void @llvm.memset.p0.i64(ptr align 4 %priv, i8 %byte, i64 10, i1 false)
  call void @llvm.memcpy.p1.p0.i64(ptr addrspace(1) align 8 %o, ptr align 8 %priv, i64 24, i1 false)
  call void @llvm.lifetime.end.p0(ptr %priv)
  ret void
}
declare void @llvm.lifetime.start.p0(ptr)
declare void @llvm.lifetime.end.p0(ptr)
declare void @llvm.assume(i1)
declare void @llvm.experimental.noalias.scope.decl(metadata)
declare float @llvm.fmuladd.f32(float, float, float)
declare <2 x float> @llvm.fma.v2f32(<2 x float>, <2 x float>, <2 x float>)
declare i32 @llvm.smin.i32(i32, i32)
declare i32 @llvm.umax.i32(i32, i32)
declare i32 @llvm.abs.i32(i32, i1)
declare float @llvm.fabs.f32(float)
declare <2 x float> @llvm.sqrt.v2f32(<2 x float>)
declare i32 @llvm.ctlz.i32(i32, i1)
declare i32 @llvm.fshl.i32(i32, i32, i32)
declare { i32, i1 } @llvm.sadd.with.overflow.i32(i32, i32)
declare i32 @llvm.vector.reduce.add.v4i32(<4 x i32>)
declare float @llvm.maxnum.f32(float, float)
declare i32 @llvm.ctpop.i32(i32)
declare i32 @llvm.bswap.i32(i32)
declare void @llvm.memset.p0.i64(ptr, i8, i64, i1)
declare void @llvm.memcpy.p1.p0.i64(ptr addrspace(1), ptr, i64, i1)
!0 = !{!1}
!1 = distinct !{!1, !2}
!2 = distinct !{!2}
""")
    ops = [i.opcode for i in instrs(f)]
    for op in ("fmuladd", "fma", "smin", "umax", "abs", "clz", "popcount", "fmax"):
        assert op in ops, op
    assert [i.attrs["fn"] for i in instrs(f, "math")] == ["fabs", "sqrt", "sqrt"]
    assert all(op in OPCODES for op in ops)
    # memset of 10 bytes at align 4: 4 + 4 + 2 byte stores of the splatted byte
    stores = instrs(f, "store")
    assert [s.operands[0].type.bits for s in stores[:3]] == [32, 32, 16]
    # memcpy of 24 bytes at align 8: three i64 loads, then three stores
    assert [l.type for l in instrs(f, "load")] == [I64] * 3
    assert [const_offset(s.operands[1]) for s in stores[3:]] == [0, 8, 16]


@pytest.mark.parametrize("text,what", [
    ("%r = atomicrmw nand ptr addrspace(1) %p, i32 1 seq_cst, align 4", "atomicrmw"),
    ("%r = atomicrmw fadd ptr addrspace(1) %p, float 1.000000e+00 seq_cst, align 4", "atomicrmw"),
    ("fence seq_cst", "fence"),
    ("%r = call i32 %fp(i32 1)", "indirect call"),
    ("%r = call float @_Z4erfcf(float 1.000000e+00)", "erfc"),
    ("%r = call i32 @mystery(i32 1)", "unknown function"),
    ("%r = call i32 asm \"nop\", \"=r\"()", "asm"),
])
def test_unsupported_instruction_messages(text, what):
    body = f"""
define spir_kernel void @kern(ptr addrspace(1) %p, ptr %fp) {{
entry:
  br label %work
work:
  {text}
  ret void
}}
declare float @_Z4erfcf(float)
declare i32 @mystery(i32)
"""
    from reconverge.lowering.errors import CompileError
    with pytest.raises(CompileError) as e:
        read_one(body, name="bad.ll")
    msg = str(e.value)
    assert "\n" not in msg
    norm = " ".join(text.split())
    assert msg.startswith(f"bad.ll: function @kern, block %work: unsupported instruction: {norm}"), msg


def test_undef_and_poison_operands():
    f = read_one("""
define spir_kernel void @k(ptr addrspace(1) %o) {
  %a = add i32 undef, 1
  %b = fadd <2 x float> poison, <float 1.0, float 2.0>
  store i32 %a, ptr addrspace(1) %o
  ret void
}""")
    a = by_name(f, "a")
    assert isinstance(a.operands[0], Undef) and a.operands[0].type == I32
    assert [x.operands[1].value for x in instrs(f, "fadd")] == [1.0, 2.0]


def test_non_void_function_return():
    f = read_one("""
define i32 @f(i32 %x) {
  %y = shl i32 %x, 2
  ret i32 %y
}""")
    assert f.blocks[0].instrs[-1].operands == [by_name(f, "y")]


def test_global_address_space_and_pointer_typed_globals():
    f = read_one("""
@p = global ptr addrspace(1) null, align 8
@q = external addrspace(1) global i32
@s = internal addrspace(2) constant [6 x i8] c"hi\\00\\01\\02\\03", align 1
define spir_kernel void @k(ptr addrspace(1) %o) {
  %a = load ptr addrspace(1), ptr @p
  %b = load i32, ptr addrspace(1) @q
  %c = load i8, ptr addrspace(2) getelementptr (i8, ptr addrspace(2) @s, i64 3)
  store i32 %b, ptr addrspace(1) %a
  ret void
}""")
    data = {d.symbol: d for d in f.constant_data}
    assert (data["p"].addrspace, data["p"].size, data["p"].init, data["p"].writable) == (0, 8, bytes(8), True)
    assert (data["q"].addrspace, data["q"].init) == (1, None)
    assert (data["s"].addrspace, data["s"].init, data["s"].writable) == (2, b"hi\x00\x01\x02\x03", False)
    assert {i.attrs["symbol"]: i.type for i in instrs(f, "global_addr")} == {"p": ptr(0), "q": ptr(1), "s": ptr(2)}


def test_forward_reference_to_a_lane_of_a_forward_vector():
    f = read_one("""
define spir_kernel void @k(ptr addrspace(1) %o, <2 x i32> %v) {
entry:
  br label %b2
b1:
  %s = add i32 %a, 1
  store i32 %s, ptr addrspace(1) %o
  ret void
b3:
  %a = extractelement <2 x i32> %w, i64 1
  br label %b1
b2:
  %w = mul <2 x i32> %v, <i32 3, i32 5>
  br label %b3
}""")
    assert by_name(f, "s").operands[0] is by_name(f, "w.1")


def test_image_argument_is_reported():
    from reconverge.lowering.errors import CompileError
    from tests.lowering.frontend.helpers import read_cl
    src = "kernel void img(read_only image2d_t im, global float4 *o) { o[0] = (float4)(1.0f); }"
    with pytest.raises(CompileError, match=r"^snippet\.cl: function @img: unsupported type of argument 0: "):
        read_cl(src)


def test_memory_intrinsic_limits():
    from reconverge.lowering.errors import CompileError
    body = """
define spir_kernel void @k(ptr addrspace(1) %o, i64 %n) {
  call void @llvm.memset.p1.i64(ptr addrspace(1) align 1 %o, i8 0, i64 LEN, i1 false)
  ret void
}
declare void @llvm.memset.p1.i64(ptr addrspace(1), i8, i64, i1)
"""
    f = read_one(body.replace("LEN", "7"))
    assert [s.operands[0].type.bits for s in instrs(f, "store")] == [8] * 7       # align 1: byte stores
    long = read_one(body.replace("LEN", "100000"))      # past 16 KiB: the run-time length's loop, not stores
    assert len(instrs(long, "store")) == 1 and any(b.phis() for b in long.blocks)
    moved = body.replace("memset.p1.i64(ptr addrspace(1) align 1 %o, i8 0",
                         "memmove.p1.p1.i64(ptr addrspace(1) %o, ptr addrspace(1) %q")
    moved = moved.replace("(ptr addrspace(1), i8,", "(ptr addrspace(1), ptr addrspace(1),")
    moved = moved.replace("i64 %n) {", "i64 %n, ptr addrspace(1) %q) {")
    with pytest.raises(CompileError, match=r"@k, block %0: unsupported instruction: .*memmove of a run-time "
                                           r"length between pointers of no known order"):
        read_one(moved.replace("LEN", "%n"))


@pytest.mark.parametrize("dst, src, backward", [("%a", "%a4", False), ("%a4", "%a", True), ("%a", "%b", False)])
def test_a_memmove_of_a_run_time_length_copies_in_the_direction_its_overlap_needs(dst, src, backward):
    """What the idiom makes of `a[i] = a[i + 1]` up to a bound: a memmove within one private array. The
    destination below the source copies from the first byte up, above it from the last byte down (the
    index is length - 1 - i); two private variables never overlap."""
    f = read_one(f"""
define spir_kernel void @k(ptr addrspace(1) %o, i64 %n) {{
entry:
  %a = alloca [8 x i32], align 4
  %b = alloca [8 x i32], align 4
  %a4 = getelementptr inbounds i8, ptr %a, i64 4
  call void @llvm.memmove.p0.p0.i64(ptr align 4 {dst}, ptr align 4 {src}, i64 %n, i1 false)
  ret void
}}
declare void @llvm.memmove.p0.p0.i64(ptr, ptr, i64, i1)
""")
    assert validate(f) == []
    loop = f.blocks[1]
    count = loop.instrs[0]
    address = next(i for i in loop.instrs if i.opcode == "ptradd")
    assert (address.operands[1] is not count) == backward
    if backward:
        assert address.operands[1].opcode == "sub" and address.operands[1].operands[1] is count


@pytest.mark.parametrize("call, declared, copy", [
    ("memset.p1.i64(ptr addrspace(1) align 4 %o, i8 %b, i64 %n, i1 false)",
     "memset.p1.i64(ptr addrspace(1), i8, i64, i1)", False),
    ("memcpy.p1.p3.i32(ptr addrspace(1) align 4 %o, ptr addrspace(3) %s, i32 %m, i1 false)",
     "memcpy.p1.p3.i32(ptr addrspace(1), ptr addrspace(3), i32, i1)", True),
])
def test_a_memory_intrinsic_of_a_run_time_length_becomes_a_loop_of_byte_stores(call, declared, copy):
    """LLVM's loop idiom recognition makes a fill or copy loop of a run-time trip count one memset or
    memcpy call (fuzz subgroup-65390: a private array zeroed up to a computed bound). The reader splits
    the call's block: the head skips a zero length, the loop stores byte i (memcpy: loaded from the
    source) until the length (an i32 one zero-extended), and the tail keeps the rest, so the successor's
    phi names the tail."""
    f = read_one(f"""
define spir_kernel void @k(ptr addrspace(1) %o, ptr addrspace(3) %s, i8 %b, i64 %n, i32 %m, i1 %c) {{
entry:
  %x = add i32 %m, 1
  call void @llvm.{call}
  br i1 %c, label %next, label %done
next:
  br label %done
done:
  %p = phi i32 [ %x, %entry ], [ 0, %next ]
  store i32 %p, ptr addrspace(1) %o, align 4
  ret void
}}
declare void @llvm.{declared}
""")
    assert validate(f) == []
    head, loop, tail, nxt, done = f.blocks
    assert (loop.label, tail.label) == ("entry.memloop0", "entry.memdone0")
    assert head.succs == [tail, loop] and loop.succs == [loop, tail] and tail.succs == [nxt, done]
    index = loop.instrs[0]
    assert isinstance(index, Phi) and index.blocks == [head, loop]
    stores = [i for i in loop.instrs if i.opcode == "store"]
    assert len(stores) == 1 and stores[0].operands[0].type.bits == 8 and stores[0].attrs["align"] == 1
    assert any(i.opcode == "load" for i in loop.instrs) == copy
    length = next(i for i in loop.instrs if i.opcode == "icmp").operands[1]
    assert length.type == I64 and (getattr(length, "opcode", "") == "zext") == copy
    phi = done.instrs[0]
    assert isinstance(phi, Phi) and phi.blocks[0] is tail


def test_a_memmove_up_within_one_array_runs_as_llvm_runs_it(tmp_path):
    """The backward copy on every target against LLVM's own JIT of the module: lengths of 0 to 21 bytes,
    one word up, so a forward copy would smear a[0] over the moved words."""
    import os

    import numpy as np

    from tests.test_cli import ROOT, run
    np.save(tmp_path / "in.npy", np.arange(64, dtype=np.int32))
    path = os.path.join(ROOT, "tests", "data", "memmove_backward.ll")
    args = [path, "--global", "8", "--local", "8", "--arg", "out=zeros:64:int32", "--arg", f"in=@{tmp_path / 'in.npy'}",
            "--arg", "n=3"]
    proc = run("run", *args, "--compare", "llvm,ir,spirv,gen")
    assert proc.returncode == 0 and "every target agrees with llvm" in proc.stdout, proc.stdout + proc.stderr
    proc = run("run", *args, "--target", "gen", "--out", str(tmp_path / "o"))
    assert proc.returncode == 0, proc.stderr
    out = np.load(tmp_path / "o" / "out.npy").reshape(8, 8)
    assert list(out[0]) == [0, 0, 1, 2, 4, 5, 6, 7]          # 9 bytes up by 4: a[1..2] = a[0..1], a[3]'s low byte 2
