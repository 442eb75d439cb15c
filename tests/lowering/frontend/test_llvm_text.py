"""The reader's text records (llvm_text.py) against llvmlite's own values: the same function, the same
errors, llvmlite's answer for every form the text parser gives up on, and no foreign calls per instruction."""
from __future__ import annotations

import gc
import os

import pytest
from llvmlite.binding import ffi

from reconverge.lowering.errors import CompileError
from reconverge.lowering.frontend import line_reader, llvm_reader, llvm_text
from reconverge.lowering.frontend.llvm_module import parse_llvm_text, prepare_module
from reconverge.lowering.ir.printer import print_function
from tests.lowering.frontend.helpers import HEADER

# one kernel holding every instruction form the parser reads (and a few it leaves to llvmlite)
EVERY_FORM = HEADER + r"""
%struct.P = type { i32, [2 x float], <2 x i16> }
@table = internal addrspace(2) constant [4 x i32] [i32 1, i32 2, i32 3, i32 -4], align 4
@"quoted name" = internal addrspace(3) global [8 x float] undef, align 4

declare i64 @_Z13get_global_idj(i32)
declare float @_Z4sqrtf(float)
declare { i32, i1 } @llvm.sadd.with.overflow.i32(i32, i32)
declare void @llvm.memset.p0.i64(ptr nocapture writeonly, i8, i64, i1 immarg)

define spir_kernel void @every(ptr addrspace(1) noundef align 4 %out, ptr addrspace(1) %vin, i32 %n, float %f) {
entry:
  %gid = tail call spir_func i64 @_Z13get_global_idj(i32 noundef 0) #0
  %i = trunc nuw i64 %gid to i32
  %priv = alloca %struct.P, align 8
  %arr = alloca i32, i32 4, align 4
  call void @llvm.memset.p0.i64(ptr align 8 %priv, i8 0, i64 16, i1 false)
  %p = getelementptr inbounds nuw %struct.P, ptr %priv, i64 0, i32 1, i64 1
  store volatile float %f, ptr %p, align 4
  %vp = getelementptr <4 x float>, ptr addrspace(1) %vin, i64 %gid
  %v = load <4 x float>, ptr addrspace(1) %vp, align 16
  %e = extractelement <4 x float> %v, i32 2
  %ins = insertelement <4 x float> %v, float 1.500000e+00, i64 0
  %sh = shufflevector <4 x float> %ins, <4 x float> poison, <2 x i32> <i32 3, i32 0>
  %sh0 = extractelement <2 x float> %sh, i32 %i
  %sum = fadd fast float %e, %sh0
  %neg = fneg float %sum
  %r = call float @_Z4sqrtf(float %neg), !fpmath !0
  %agg = call { i32, i1 } @llvm.sadd.with.overflow.i32(i32 %i, i32 %n)
  %val = extractvalue { i32, i1 } %agg, 0
  %ovf = extractvalue { i32, i1 } %agg, 1
  %agg2 = insertvalue { i32, i1 } %agg, i32 7, 0
  %val2 = extractvalue { i32, i1 } %agg2, 0
  %tab = getelementptr inbounds [4 x i32], ptr addrspace(2) @table, i64 0, i32 %i
  %t = load i32, ptr addrspace(2) %tab, align 4
  %lp = getelementptr inbounds float, ptr addrspace(3) getelementptr inbounds ([8 x float], ptr addrspace(3) @"quoted name", i64 0, i64 2), i32 %i
  store float %r, ptr addrspace(3) %lp, align 4
  %c = icmp samesign ult i32 %t, %n
  %fc = fcmp nnan olt float %r, 0x3FF0000000000000
  %sel = select i1 %c, i32 %val, i32 %val2
  %fr = freeze i32 %sel
  %ap = getelementptr i32, ptr %arr, i32 %fr
  store i32 %t, ptr %ap, align 4
  %old = atomicrmw add ptr addrspace(1) %out, i32 %t syncscope("workgroup") seq_cst, align 4
  %pair = cmpxchg ptr addrspace(1) %out, i32 %old, i32 5 seq_cst seq_cst, align 4
  %o = extractvalue { i32, i1 } %pair, 0
  %wide = sext i32 %o to i64
  %x = xor i1 %ovf, %fc
  br i1 %x, label %loop, label %"exit block"

loop:
  %k = phi i32 [ 0, %entry ], [ %k.next, %loop ], [ %k.next, %latch ]
  %acc = phi i64 [ %wide, %entry ], [ %acc.next, %loop ], [ 3, %latch ]
  %k.next = add nuw nsw i32 %k, 1
  %acc.next = mul i64 %acc, 3
  %sw = and i32 %k.next, 3
  switch i32 %sw, label %latch [
    i32 0, label %loop
    i32 -1, label %"exit block"
  ]

latch:
  %done = icmp sge i32 %k.next, %n
  br i1 %done, label %"exit block", label %loop

"exit block":
  %res = phi i64 [ 0, %entry ], [ %acc.next, %loop ], [ %acc.next, %latch ]
  %res32 = trunc i64 %res to i32
  store i32 %res32, ptr addrspace(1) %out, align 4
  ret void
}

attributes #0 = { nounwind }
!0 = !{float 3.000000e+00}
"""

UNNAMED = HEADER + """
define spir_kernel void @k(ptr addrspace(1) %0, i32 %1) {
  %3 = icmp sgt i32 %1, 0
  br i1 %3, label %4, label %8
4:
  %5 = phi i32 [ %1, %2 ], [ %6, %4 ]
  %6 = add i32 %5, -1
  store i32 %6, ptr addrspace(1) %0, align 4
  %7 = icmp eq i32 %6, 0
  br i1 %7, label %8, label %4
8:
  ret void
}
"""


def _read(text: str, records: bool) -> str:
    """The printed function (with its blocks' source lines), or the error's message."""
    saved = llvm_reader.READ_TEXT
    llvm_reader.READ_TEXT = records
    try:
        mod = prepare_module(parse_llvm_text(text, "t.ll"), "t.ll")
        funcs = llvm_reader.read_kernels(mod, "t.ll")
        return "\n".join(print_function(f) + repr([b.source_lines for b in f.blocks]) for f in funcs.values())
    except CompileError as e:
        return f"error: {e}"
    finally:
        llvm_reader.READ_TEXT = saved


BUNDLES = HEADER + """
define spir_kernel void @waterfall(ptr addrspace(1) %out, ptr addrspace(1) %in) #0 {
entry:
  %e = call token @llvm.experimental.convergence.entry()
  %i = call spir_func i64 @_Z13get_global_idj(i32 0)
  %src = getelementptr inbounds i32, ptr addrspace(1) %in, i64 %i
  %v = load i32, ptr addrspace(1) %src, align 4
  br label %loop

loop:
  %l = call token @llvm.experimental.convergence.loop() [ "convergencectrl"(token %e) ]
  %first = call spir_func i32 @_Z25sub_group_broadcast_firsti(i32 %v) [ "convergencectrl"(token %l) ]
  %same = icmp eq i32 %v, %first
  br i1 %same, label %exit, label %loop

exit:
  %sum = call spir_func i32 @_Z20sub_group_reduce_addi(i32 %v) [ "convergencectrl"(token %l) ]
  %dst = getelementptr inbounds i32, ptr addrspace(1) %out, i64 %i
  store i32 %sum, ptr addrspace(1) %dst, align 4
  ret void
}

declare token @llvm.experimental.convergence.entry() #0
declare token @llvm.experimental.convergence.loop() #0
declare spir_func i64 @_Z13get_global_idj(i32)
declare spir_func i32 @_Z25sub_group_broadcast_firsti(i32) #0
declare spir_func i32 @_Z20sub_group_reduce_addi(i32) #0

attributes #0 = { convergent nounwind }
"""


@pytest.mark.parametrize("text", [EVERY_FORM, UNNAMED, BUNDLES], ids=["every_form", "unnamed", "bundles"])
def test_records_read_what_llvmlite_reads(text):
    printed = _read(text, True)
    assert not printed.startswith("error"), printed
    assert printed == _read(text, False)


def test_llvmlite_answers_for_forms_the_parser_gives_up_on(monkeypatch):
    """Every instruction left to llvmlite (the positional walk) still reads to the same function."""
    expected = _read(EVERY_FORM, False)
    given_up = []

    def give_up(self):
        given_up.append(self.ins.opcode)
        raise llvm_text.Unrecognised("test")

    monkeypatch.setattr(llvm_text, "_read_simple", lambda ins: False)
    monkeypatch.setattr(llvm_text._InstructionParser, "read", give_up)
    monkeypatch.setattr(llvm_reader._SimpleForms, "read", lambda self, ins, blk: None)
    assert _read(EVERY_FORM, True) == expected
    assert {"phi", "switch", "call", "br", "getelementptr"} <= set(given_up)


# the forms the reader takes straight from their tokens (llvm_reader._SimpleForms), and their near misses
SIMPLE = HEADER + r"""
define spir_kernel void @simple(ptr addrspace(1) %out, i32 %n, float %f) {
entry:
  %a = add nuw nsw i32 %n, -7
  %b = xor i1 true, false
  %c = icmp samesign ult i32 %a, 4294967295
  %d = fadd float %f, %f
  %e = fdiv float %d, %f, !fpmath !0
  %g = fmul fast float %e, 2.000000e+00
  %h = shl i64 1, 63
  %0 = sub i32 0, %a
  br i1 %b, label %later, label %same

same:
  br i1 %c, label %later, label %later

back:
  %m = mul i32 %fwd, %0
  store i32 %m, ptr addrspace(1) %out, align 4
  ret void

later:
  %fwd = or disjoint i32 %n, %a
  %z = icmp eq i64 %h, 0
  br i1 true, label %back, label %back
}
!0 = !{float 2.500000e+00}
"""


@pytest.mark.parametrize("text", [EVERY_FORM, UNNAMED, BUNDLES, SIMPLE],
                         ids=["every_form", "unnamed", "bundles", "simple"])
def test_simple_forms_read_as_the_general_way(monkeypatch, text):
    """An instruction taken straight from its tokens is the one the general way makes (its near misses,
    a forward reference, a float literal, fdiv's !fpmath, left to the general way)."""
    monkeypatch.setattr(llvm_reader, "ONE_PASS", False)       # the records' reader, whose simple forms these are
    taken = []
    original = llvm_reader._SimpleForms.read

    def counting(self, ins, blk):
        made = original(self, ins, blk)
        if made is not None:
            taken.append(made.opcode)
        return made

    monkeypatch.setattr(llvm_reader._SimpleForms, "read", counting)
    printed = _read(text, True)
    assert not printed.startswith("error"), printed
    if text is SIMPLE:
        # not mul (a forward reference), fdiv (!fpmath), fmul (a float literal)
        assert sorted(taken) == ["add", "br", "br", "cbr", "fadd", "icmp", "icmp", "or", "shl", "sub", "xor"], taken
    monkeypatch.setattr(llvm_reader._SimpleForms, "read", lambda self, ins, blk: None)
    assert printed == _read(text, True)


# switches as line_reader takes them (and its near misses): case values wrapped to their type's width and
# signed, an i1 and an empty one, a condition read further down, metadata after the cases
SWITCHES = HEADER + r"""
define spir_kernel void @switches(ptr addrspace(1) %out, i8 %c, i64 %w) {
entry:
  switch i8 %c, label %a [
    i8 -1, label %b
    i8 127, label %a
    i8 -128, label %done
  ]

a:
  switch i64 %w, label %b [
    i64 -9223372036854775808, label %done
    i64 9223372036854775807, label %b
  ]

b:
  %t = icmp eq i8 %c, 3
  switch i1 %t, label %done [
    i1 true, label %e
  ]

d:
  switch i32 %later, label %done [
  ]

e:
  %later = add i32 0, 1
  switch i32 %later, label %done [
    i32 1, label %d
  ], !prof !0

done:
  ret void
}
!0 = !{!"branch_weights", i32 1, i32 2}
"""


# fuzz subgroup-24143's shape: a vector built in a block laid out before the one defining its lane (%f), a
# phi of it completed at the end and an extract of it after %f's definition; the placeholder for %f stays in
# the vector's lane list after %f is defined
LATER_LANES = HEADER + """
define spir_kernel void @later_lanes(ptr addrspace(1) %out, i32 %n) #0 {
entry:
  br label %b

a:
  %w = insertelement <2 x float> poison, float %f, i64 0
  %w2 = insertelement <2 x float> %w, float 1.0, i64 1
  %x = extractelement <2 x float> %w2, i64 0
  br label %c

b:
  %f = sitofp i32 %n to float
  br label %a

c:
  %p = phi <2 x float> [ %w2, %a ]
  %e = extractelement <2 x float> %p, i64 0
  %s = fadd float %e, %x
  store float %s, ptr addrspace(1) %out, align 4
  ret void
}
"""


@pytest.mark.parametrize("text", [EVERY_FORM, UNNAMED, BUNDLES, SIMPLE, SWITCHES, LATER_LANES],
                         ids=["every_form", "unnamed", "bundles", "simple", "switches", "later_lanes"])
def test_one_pass_reads_what_the_records_read(monkeypatch, text):
    """A body read line by line (line_reader.py) is the function the two-pass records make, whether its
    lines are taken straight from their words or each read the general way; and it is read in one pass
    (no form here sends it back to the records)."""
    again = []
    original = llvm_reader.FunctionReader.read

    def counting(self, is_kernel=True, one_pass=True):
        again.append(one_pass)
        return original(self, is_kernel, one_pass)

    monkeypatch.setattr(llvm_reader.FunctionReader, "read", counting)
    one_pass = _read(text, True)
    assert not one_pass.startswith("error") and "Forward" not in one_pass, one_pass
    assert False not in again
    monkeypatch.setattr(line_reader, "FAST_LINES", False)
    assert _read(text, True) == one_pass
    monkeypatch.setattr(llvm_reader, "ONE_PASS", False)
    assert _read(text, True) == one_pass


def test_one_pass_gives_way_to_the_records(monkeypatch):
    """A form only llvmlite's values answer (here: every general-way parse given up) sends a body read in
    one pass back to the two-pass records, which read it to the same function."""
    expected = _read(EVERY_FORM, False)
    again = []
    original = llvm_reader.FunctionReader.read

    def counting(self, is_kernel=True, one_pass=True):
        again.append(one_pass)
        return original(self, is_kernel, one_pass)

    def give_up(self):
        raise llvm_text.Unrecognised("test")

    monkeypatch.setattr(llvm_text._InstructionParser, "read", give_up)
    monkeypatch.setattr(llvm_reader.FunctionReader, "read", counting)
    assert _read(EVERY_FORM, True) == expected
    assert again == [True, False]


@pytest.mark.parametrize("body", [
    # the same one-line error either way: an unsupported instruction, a vector GEP, an indirect call
    "  fence syncscope(\"workgroup\") acquire\n  ret void",
    "  %v = getelementptr i32, ptr addrspace(1) %out, <2 x i64> <i64 0, i64 1>\n  ret void",
    "  %fp = inttoptr i64 16 to ptr\n  call void %fp()\n  ret void",
    "  %a = add i32 %undefined.later, 1\n  ret void",
])
def test_errors_are_the_same(body):
    text = HEADER + f"define spir_kernel void @k(ptr addrspace(1) %out) {{\nentry:\n{body}\n}}\n"
    with_records = _read(text, True)
    assert with_records == _read(text, False)
    assert with_records.startswith("error: t.ll")


def _foreign_calls(monkeypatch, text: str) -> int:
    mod = prepare_module(parse_llvm_text(text, "t.ll"), "t.ll")
    calls = [0]
    original = ffi._lib_fn_wrapper.__call__

    def counting(self, *args, **kwargs):
        calls[0] += 1
        return original(self, *args, **kwargs)

    # llvmlite objects freed by a garbage collection mid-read call LLVM's dispose functions; those calls
    # depend on what earlier tests left behind, not on the reader, so no collection runs while counting
    gc.collect()
    gc.disable()
    try:
        monkeypatch.setattr(ffi._lib_fn_wrapper, "__call__", counting)
        llvm_reader.read_kernels(mod, "t.ll")
    finally:
        monkeypatch.setattr(ffi._lib_fn_wrapper, "__call__", original)
        gc.enable()
    return calls[0]


def _chain(blocks: int) -> str:
    body = "".join(f"b{i}:\n  %x{i + 1} = add i32 %x{i}, {i}\n  %c{i} = icmp slt i32 %x{i + 1}, 100\n"
                   f"  br i1 %c{i}, label %b{i + 1}, label %done\n" for i in range(blocks))
    return HEADER + ("define spir_kernel void @k(ptr addrspace(1) %out, i32 %x0) {\nentry:\n  br label %b0\n"
                     f"{body}b{blocks}:\n  br label %done\ndone:\n  store i32 %x0, ptr addrspace(1) %out, align 4\n"
                     "  ret void\n}\n")


def test_foreign_calls_do_not_grow_with_the_function(monkeypatch):
    """llvmlite is asked about the function, its arguments and the module, never once per instruction."""
    _foreign_calls(monkeypatch, _chain(1))                  # one-time set-up calls are not counted below
    small, large = _foreign_calls(monkeypatch, _chain(10)), _foreign_calls(monkeypatch, _chain(200))
    assert large <= small, (small, large)


def test_source_lines_of_a_debug_switch():
    """Under -g clang ends a switch with `], !dbg !N`: the printed text is still split where LLVM splits it
    (the old reader lost count there and printed each instruction alone, numbering metadata its own way:
    the entry block had no source line and the others line 0)."""
    from reconverge.lowering.frontend.clang import compile_opencl
    path = os.path.join(os.path.dirname(__file__), "..", "..", "kernels", "continue_outer.cl")
    text = compile_opencl(path, "-O2", ("-g",))
    assert "], !dbg" in text
    mod = prepare_module(parse_llvm_text(text, "co.ll"), "co.ll")
    func = llvm_reader.read_kernels(mod, "co.ll")["continue_outer"]
    first, last = func.blocks[0].source_lines
    assert first.endswith("continue_outer.cl:5:15") and last.endswith("continue_outer.cl:7:5"), (first, last)


@pytest.mark.parametrize("seed", [1, 2, 3])
def test_one_pass_reads_generated_kernels_as_the_records_do(monkeypatch, seed):
    """Generated CFGs (nested loops, multi-level breaks, switches, early returns: forward references to
    values and blocks everywhere) read line by line to the function the records make."""
    import random

    from reconverge.tools.testing.cfggen import random_kernel
    text = str(random_kernel(random.Random(seed), 150))
    one_pass = _read(text, True)
    assert not one_pass.startswith("error"), one_pass
    monkeypatch.setattr(llvm_reader, "ONE_PASS", False)
    assert _read(text, True) == one_pass
