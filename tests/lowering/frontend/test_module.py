"""Loading modules: parse errors, bitcode, llvmlite.ir modules, inlining, kernel discovery."""
from __future__ import annotations

import llvmlite.ir as ir
import numpy as np
import pytest

from reconverge.lowering.errors import CompileError
from reconverge.lowering.frontend.llvm_module import (
    find_kernels,
    from_llvmlite_ir,
    make_inlinable,
    parse_llvm_bitcode,
    parse_llvm_text,
    prepare_module,
)
from reconverge.lowering.frontend.llvm_reader import read_kernels
from reconverge.lowering.ir.validate import validate
from tests.lowering.frontend.helpers import HEADER, cl_ir, instrs, read_ll

SIMPLE = HEADER + """
define spir_kernel void @k(ptr addrspace(1) %out) {
entry:
  store i32 1, ptr addrspace(1) %out, align 4
  ret void
}
"""


def test_truncated_text_names_file_and_line():
    text = SIMPLE[:SIMPLE.index("ret void")]
    with pytest.raises(CompileError) as e:
        parse_llvm_text(text, "trunc.ll")
    msg = str(e.value)
    assert msg.startswith("trunc.ll: line ") and "\n" not in msg
    assert "end of file" in msg


def test_garbage_text():
    with pytest.raises(CompileError, match=r"^junk\.ll: line 1: expected top-level entity$"):
        parse_llvm_text("this is not IR\n", "junk.ll")


def test_undefined_value_line_number():
    text = HEADER + "define void @f() {\n  %x = add i32 1, %y\n  ret void\n}\n"
    with pytest.raises(CompileError, match=r"^u\.ll: line 4: use of undefined value '%y'$"):
        parse_llvm_text(text, "u.ll")


def test_verifier_error_is_one_line():
    text = "define void @f() {\nentry:\n  br label %b\nb:\n  %x = phi i32 [ 1, %entry ], [ 2, %entry ]\n  ret void\n}\n"
    with pytest.raises(CompileError) as e:
        parse_llvm_text(text, "v.ll")
    assert str(e.value).startswith("v.ll: ") and "\n" not in str(e.value)


def test_bitcode_round_trip_and_garbage():
    mod = parse_llvm_text(SIMPLE, "s.ll")
    back = parse_llvm_bitcode(mod.as_bitcode(), "s.bc")
    assert find_kernels(back) == ["k"]
    with pytest.raises(CompileError, match=r"^bad\.bc: not valid LLVM bitcode"):
        parse_llvm_bitcode(b"BC\xc0\xde garbage", "bad.bc")


def test_llvmlite_ir_module():
    m = ir.Module(name="built")
    m.triple = "spir64"
    i32 = ir.IntType(32)
    p1 = ir.PointerType(addrspace=1)
    fn = ir.Function(m, ir.FunctionType(ir.VoidType(), [p1, i32]), name="k")
    fn.calling_convention = "spir_kernel"
    entry = fn.append_basic_block("entry")
    loop = fn.append_basic_block("loop")
    done = fn.append_basic_block("done")
    b = ir.IRBuilder(entry)
    b.branch(loop)
    b.position_at_end(loop)
    i = b.phi(i32, name="i")
    i.add_incoming(ir.Constant(i32, 0), entry)
    nxt = b.add(i, ir.Constant(i32, 1), name="next")
    i.add_incoming(nxt, loop)
    c = b.icmp_signed("<", nxt, fn.args[1], name="c")
    b.cbranch(c, loop, done)
    b.position_at_end(done)
    b.store(nxt, fn.args[0])
    b.ret_void()
    funcs = read_kernels(from_llvmlite_ir(m), "built")
    f = funcs["k"]
    assert validate(f) == []
    assert [blk.label for blk in f.blocks] == ["entry", "loop", "done"]
    cmp = [x for x in instrs(f, "icmp")][0]
    assert cmp.attrs["pred"] == "slt" and cmp.name == "c"
    cbr = f.blocks[1].instrs[-1]
    assert cbr.opcode == "cbr" and cbr.targets == [f.blocks[1], f.blocks[2]]


def test_make_inlinable_keeps_lines_and_names():
    text = ('attributes #0 = { noinline optnone nounwind }\n'
            'define void @noinline_f(i32 %noinline) noinline {\n  ret void\n}\n'
            'attributes #1 = { "noinline" }\n')
    out = make_inlinable(text)
    assert out.count("\n") == text.count("\n")
    assert "{ alwaysinline  nounwind }" in out
    assert "@noinline_f(i32 %noinline) alwaysinline {" in out
    assert '"noinline"' in out


def test_kernels_skip_clang_twins_and_helpers_are_inlined():
    src = """
    int helper(int x) { return x * 3; }
    kernel void first(global int *p) { p[0] = helper(p[1]); }
    kernel void second(global int *p) { first(p); p[2] = 1; }
    """
    for level in ("-O0", "-O2"):
        mod = prepare_module(parse_llvm_text(cl_ir(src, level), "s.cl"), "s.cl")
        assert sorted(find_kernels(mod)) == ["first", "second"]
        funcs = read_kernels(mod, "s.cl", prepared=True)
        for f in funcs.values():
            assert validate(f) == []
            assert not instrs(f, "call")


def test_optnone_input_is_inlined():
    """clang -O0 without -disable-O0-optnone: the kernel is a call into its optnone twin."""
    import subprocess
    import tempfile
    with tempfile.NamedTemporaryFile("w", suffix=".cl", delete=False) as tmp:
        tmp.write("kernel void k(global int *p) { int i = get_global_id(0); if (i < 4) p[i] = i * 2; }\n")
    text = subprocess.run(["clang-22", "-x", "cl", "-cl-std=CL3.0", "-Xclang", "-finclude-default-header",
                           "-target", "spir64", "-emit-llvm", "-S", "-O0", "-o", "-", tmp.name],
                          capture_output=True, text=True, check=True).stdout
    assert "optnone" in text
    from reconverge.lowering.frontend.llvm_reader import read_llvm_text
    f = read_llvm_text(text, "opt.ll")["k"]
    assert validate(f) == []
    assert [i.attrs["fn"] for i in instrs(f, "workitem")] == ["global_id"]
    assert len(instrs(f, "cbr")) == 1


def test_unknown_kernel_lists_available():
    with pytest.raises(CompileError) as e:
        read_ll(SIMPLE[len(HEADER):], kernel="nope", name="s.ll")
    assert str(e.value) == "s.ll: no kernel named 'nope' (available: k)"


def test_module_without_spir_kernels_uses_uncalled_functions():
    body = """
define i32 @helper(i32 %x) {
  %y = mul i32 %x, 2
  ret i32 %y
}
define i32 @main_fn(i32 %a) {
  %r = call i32 @helper(i32 %a)
  ret i32 %r
}
"""
    funcs = read_ll(body)
    assert list(funcs) == ["main_fn"]
    f = funcs["main_fn"]
    assert [i.opcode for i in instrs(f)] == ["mul", "ret"]
    assert str(f.return_type) == "i32"


def test_recursion_is_reported():
    body = """
define spir_func i32 @rec(i32 %x) {
  %c = icmp eq i32 %x, 0
  br i1 %c, label %done, label %more
more:
  %y = sub i32 %x, 1
  %r = call spir_func i32 @rec(i32 %y)
  ret i32 %r
done:
  ret i32 0
}
define spir_kernel void @k(ptr addrspace(1) %p) {
  %v = call spir_func i32 @rec(i32 3)
  store i32 %v, ptr addrspace(1) %p
  ret void
}
"""
    with pytest.raises(CompileError, match=r"^r\.ll: function @k, block %\w+: unsupported instruction: .*call"
                                           r".*could not be inlined"):
        read_ll(body, name="r.ll")


def test_modules_and_contexts_survive_garbage_cycles():
    """Each module owns a private LLVM context; collecting both in one cycle must not crash or leak."""
    import gc
    for _ in range(40):
        mod = parse_llvm_text(SIMPLE, "s.ll")
        fn = mod.get_function("k")
        cycle = [mod, fn, list(fn.blocks), fn.global_value_type]
        cycle.append(cycle)
        with pytest.raises(CompileError):
            parse_llvm_text(SIMPLE[:60], "t.ll")
    del mod, fn, cycle
    gc.collect()
    # a struct type keeps its name when a second module defines it too (private contexts)
    text = HEADER + "%struct.S = type { i32 }\n@g = global %struct.S zeroinitializer\n"
    a, b = parse_llvm_text(text, "a.ll"), parse_llvm_text(text, "b.ll")
    assert str(b.get_global_variable("g").global_value_type).startswith("%struct.S ")
    assert a.get_struct_type("struct.S") is not None


def test_make_inlinable_leaves_strings_comments_and_quoted_names_alone():
    text = ('@msg = constant [24 x i8] c"noinline optnone \\22; x\\00"  ; noinline in a comment\n'
            'define void @"my noinline optnone f"() noinline optnone {\n  ret void\n}\n')
    out = make_inlinable(text)
    assert 'c"noinline optnone \\22; x\\00"' in out and "; noinline in a comment" in out
    assert '@"my noinline optnone f"() alwaysinline  {' in out


def test_a_string_mentioning_noinline_runs(tmp_path):
    from tests.test_cli import run
    src = tmp_path / "s.cl"
    src.write_text('constant char msg[] = "noinline optnone";\n'
                   'kernel void k(global char *out) { out[get_global_id(0)] = msg[get_global_id(0)]; }\n')
    result = run("run", str(src), "--target", "ir", "--global", "8", "--arg", "out=zeros:8:int8",
                 "--out", str(tmp_path / "o"))
    assert result.returncode == 0, result.stderr
    assert bytes(np.load(tmp_path / "o" / "out.npy").view(np.uint8)) == b"noinline"


def test_an_opencl_file_without_a_kernel_is_an_error(tmp_path):
    from tests.test_cli import assert_one_line_error, run
    src = tmp_path / "lib.cl"
    src.write_text("float helper(float x) { return x * 2.0f; }\n")
    assert_one_line_error(run("compile", str(src)), 1, str(src), "no kernel")
    assert_one_line_error(run("run", str(src), "--target", "ir", "--global", "1", "--out", str(tmp_path / "o")),
                          1, "no kernel")


def test_a_module_with_nothing_to_inline_is_its_own_prepared_form():
    """prepare_module skips printing, re-parsing and inlining when no defined function is named anywhere
    but on its own define line; the reader then slices each function from the kept module text."""
    mod = parse_llvm_text(SIMPLE, "s.ll")
    assert prepare_module(mod, "s.ll") is mod
    helper = HEADER + """
define internal i32 @twice(i32 %x) {
  %y = add i32 %x, %x
  ret i32 %y
}
define spir_kernel void @k(ptr addrspace(1) %out) {
entry:
  %v = call i32 @twice(i32 21)
  store i32 %v, ptr addrspace(1) %out, align 4
  ret void
}
"""
    called = parse_llvm_text(helper, "h.ll")
    prepared = prepare_module(called, "h.ll")
    assert prepared is not called                       # a call to a definition: inlined into a copy
    body = str(prepared.get_function("k"))
    assert "call" not in body


def test_a_function_sliced_from_the_module_text_reads_as_printed_alone():
    from reconverge.lowering.frontend.llvm_reader import ModuleContext
    text = cl_ir("kernel void k(global int *o, int n) { for (int i = 0; i < n; i++) o[i] = i * n; }", "-O0")
    mod = prepare_module(parse_llvm_text(text, "s.cl"), "s.cl")
    ctx = ModuleContext(mod, "s.cl")
    ctx._module_text = str(mod)
    for fn in mod.functions:
        if not fn.is_declaration:
            sliced, alone = ctx.function_text(fn), str(fn)
            assert sliced.startswith("define") and sliced.endswith("\n}")
            strip = __import__("re").compile(r" #\d+")    # attribute group numbers differ, nothing else
            assert strip.sub("", sliced) == strip.sub("", alone[alone.index("define"):]).rstrip("\n")
