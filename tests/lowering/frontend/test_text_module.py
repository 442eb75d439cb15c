"""text_module.TextModule (clang's text read without llvmlite) against llvmlite's parse of the same text:
the same functions read, the same parameters, the same errors, llvmlite loaded only where LLVM is needed."""
from __future__ import annotations

import glob
import json
import os
import subprocess
import sys

import llvmlite.binding as llvm
import pytest

from reconverge.lowering.errors import CompileError
from reconverge.lowering.frontend import llvm_module, llvm_reader, llvm_text
from reconverge.lowering.frontend.clang import clang_command, run_clang
from reconverge.lowering.frontend.llvm_module import find_kernels, parse_llvm_text, prepare_module
from reconverge.lowering.frontend.sroa_check import function_unchanged, sroa_changes_nothing
from reconverge.lowering.frontend.text_module import TextModule
from reconverge.lowering.frontend.value_kinds import ValueKind
from reconverge.lowering.ir.printer import print_function
from reconverge.lowering.kernel_abi import llvm_kernel_params
from tests.lowering.frontend.helpers import HEADER
from tests.lowering.frontend.test_llvm_text import BUNDLES, EVERY_FORM, SIMPLE, UNNAMED

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__)))))


def _read(mod, name: str = "t.ll", promote: bool = False) -> str:
    """Every kernel read and printed (with its blocks' source lines), or the error's message."""
    try:
        funcs = llvm_reader.read_kernels(prepare_module(mod, name, promote), name)
        return "\n".join(print_function(f) + repr([b.source_lines for b in f.blocks]) for f in funcs.values())
    except CompileError as e:
        return f"error: {e}"


def _both(text: str, name: str = "t.ll") -> tuple[str, str]:
    return _read(TextModule(text, name), name), _read(parse_llvm_text(text, name), name)


def test_value_kinds_are_numbered_as_llvmlite_numbers_them():
    assert {k.name: k.value for k in ValueKind} == {k.name: k.value for k in llvm.ValueKind}


STRUCTS = HEADER + r"""
%struct.Pair = type { i32, float }
%"struct.odd name" = type <{ i8, %struct.Pair }>
@lut = internal addrspace(2) constant [3 x %struct.Pair] [%struct.Pair { i32 1, float 2.000000e+00 }, %struct.Pair { i32 3, float 4.000000e+00 }, %struct.Pair zeroinitializer], align 4
@ext = external addrspace(1) global i32, align 4

define spir_kernel void @structs(ptr addrspace(1) %out, ptr byval(%struct.Pair) align 4 %p, <2 x i16> %v, i32 %0) {
entry:
  %f = getelementptr inbounds %struct.Pair, ptr %p, i64 0, i32 1
  %x = load float, ptr %f, align 4
  %odd = alloca %"struct.odd name", align 1
  %g = getelementptr inbounds %"struct.odd name", ptr %odd, i64 0, i32 1, i32 1
  store float %x, ptr %g, align 1
  %l = getelementptr inbounds [3 x %struct.Pair], ptr addrspace(2) @lut, i64 0, i32 %0, i32 0
  %y = load i32, ptr addrspace(2) %l, align 4
  %e = extractelement <2 x i16> %v, i32 1
  %z = sext i16 %e to i32
  %s = add i32 %y, %z
  %c = fptosi float %x to i32
  %t = add i32 %s, %c
  store i32 %t, ptr addrspace(1) %out, align 4
  ret void
}
"""


@pytest.mark.parametrize("text", [EVERY_FORM, UNNAMED, BUNDLES, SIMPLE, STRUCTS],
                         ids=["every_form", "unnamed", "bundles", "simple", "structs"])
def test_text_module_reads_what_llvmlite_reads(text):
    from_text, from_llvmlite = _both(text)
    assert not from_text.startswith("error"), from_text
    assert from_text == from_llvmlite


# a fixed slice of the OpenCL C corpus, both levels: clang's own text against llvmlite's parse of it (the
# files that build alone: kernels_real/defines.cl needs its -D and -I options)
CORPUS = [p for p in sorted(glob.glob(os.path.join(ROOT, "tests", "kernels*", "*.cl")))
          if "#include \"" not in open(p, encoding="utf-8").read()][::6]


@pytest.mark.parametrize("path", CORPUS, ids=[os.path.basename(p) for p in CORPUS])
def test_corpus_reads_the_same_both_ways(path):
    for level in ("-O0", "-O2"):
        text = run_clang(path, level).llvm_text
        module = TextModule(text, path)
        assert find_kernels(module, text) == find_kernels(parse_llvm_text(text, path))
        from_text, from_llvmlite = _both(text, path)
        assert from_text == from_llvmlite, (path, level)
        parsed = parse_llvm_text(text, path)
        for kernel in find_kernels(parsed):
            assert llvm_kernel_params(module, text, kernel, path) == llvm_kernel_params(parsed, text, kernel, path)


SROA_KEPT = [*CORPUS[:3], os.path.join(ROOT, "examples", "bench", "control_flow.cl")]   # the last: allocas


@pytest.mark.parametrize("path", SROA_KEPT, ids=[os.path.basename(p) for p in SROA_KEPT])
def test_sroa_changes_nothing_where_prepare_module_skips_it(monkeypatch, path):
    """prepare_module(promote=True) keeps a module without allocas, or whose allocas SROA gives up on
    (sroa_check: control_flow.cl's private sort), as it is, and a text module then needs no llvmlite:
    LLVM's SROA, forced to run, reads to the same kernels."""
    text = run_clang(path, "-O2").llvm_text
    assert sroa_changes_nothing(text)
    module = TextModule(text, path)
    assert prepare_module(module, path, promote=True) is module
    kept = _read(module, path, promote=True)
    monkeypatch.setattr(llvm_module, "_sroa_needed", lambda text: True)
    assert _read(TextModule(text, path), path, promote=True) == kept


_SORT = HEADER + """
define spir_kernel void @k(ptr addrspace(1) %out, i32 %n, i1 %c) {
entry:
  %a = alloca [8 x i32], align 4
  call void @llvm.lifetime.start.p0(ptr nonnull %a)
  %i = zext i32 %n to i64
  %p = getelementptr inbounds i32, ptr %a, i64 %i
  store i32 %n, ptr %p, align 4, !nontemporal !0
  %q = getelementptr inbounds i32, ptr %a, i64 INDEX
  %v = load i32, ptr %q, align 4
  store i32 %v, ptr addrspace(1) %out, align 4
  call void @llvm.lifetime.end.p0(ptr nonnull %a)
  ret void
}
declare void @llvm.lifetime.start.p0(ptr)
declare void @llvm.lifetime.end.p0(ptr)
!0 = !{i32 1}
"""


@pytest.mark.parametrize("index, kept", [("%i", True), ("3", False), ("%s", False)])
def test_sroa_check_gives_up_on_shapes_sroa_may_rewrite(index, kept):
    """A variable-offset store makes SROA leave the alloca; a constant offset beside it is outside the
    shape recognised (LLVM is asked), and so is an index that is a select, which SROA's
    AggLoadStoreRewriter may unfold. Either way the kernels read the same as after LLVM's SROA."""
    text = _SORT.replace("INDEX", index)
    if index == "%s":
        text = text.replace("  %q =", "  %s = select i1 %c, i64 1, i64 2\n  %q =")
    assert sroa_changes_nothing(text) is kept
    from_text = _read(TextModule(text, "t.ll"), promote=True)
    assert not from_text.startswith("error") and from_text == _read(parse_llvm_text(text, "t.ll"), promote=True)
    store_only = text.replace("  store i32 %n, ptr %p, align 4, !nontemporal !0\n", "")
    assert not sroa_changes_nothing(store_only)              # no variable-offset store: SROA may promote


def test_one_function_is_judged_as_the_module_of_it_alone():
    """function_unchanged (the compile driver's question for one kernel) answers as sroa_changes_nothing
    does for a module holding just that function, whatever another function of the module needs: a
    scalar alloca beside the kept array makes the module's answer False and leaves the array's function
    True."""
    for index, kept in (("%i", True), ("3", False)):
        text = _SORT.replace("INDEX", index)
        body = text[text.index("define "):text.index("\n}\n") + 3]
        assert function_unchanged(body) is kept is sroa_changes_nothing(text)
    scalar = "define void @h(i32 %x) {\n  %s = alloca i32, align 4\n  store i32 %x, ptr %s, align 4\n  ret void\n}\n"
    assert not function_unchanged(scalar)
    assert not sroa_changes_nothing(_SORT.replace("INDEX", "%i") + scalar)
    assert function_unchanged("define void @g() {\n  %w = load [2 x i32], ptr null, align 4\n  ret void\n}\n")
    aggregate = _SORT.replace("INDEX", "%i").replace("  ret void", "  %w = load [2 x i32], ptr %a, align 4\n  ret void")
    assert not function_unchanged(aggregate[aggregate.index("define "):])


@pytest.mark.parametrize("line, aggregate", [
    ("  %w = load [2 x i32], ptr %o", True), ("  %w = load atomic volatile {i32}, ptr %o", True),
    ("  %w = load %struct.S, ptr %o", True), ("  %w = load <{ i8 }>, ptr %o", True), ("  %w = load i32, ptr %o", False),
    ("  store [2 x i32] %w, ptr %o", True), ("  store atomic volatile { i32 } %w, ptr %o", True),
    ("  store i32 %w, ptr %o", False), ("x  store [2 x i32] %w, ptr %o", False), ("   store [2 x i32] %w", False),
])
def test_an_aggregate_load_or_store_anywhere_in_the_module_asks_llvm(line, aggregate):
    """The aggregate-access test (two patterns beginning with a literal, where one multiline alternation
    was ten times slower on a 400-kernel module) finds a store at a line's start only, first line or not."""
    text = _SORT.replace("INDEX", "%i")
    assert sroa_changes_nothing(text)
    for where in (line + "\n" + text, text.replace("  ret void\n", line + "\n  ret void\n")):
        assert sroa_changes_nothing(where) is not aggregate


def test_parameters_and_globals_as_llvmlite_gives_them():
    module, parsed = TextModule(STRUCTS, "t.ll"), parse_llvm_text(STRUCTS, "t.ll")
    assert llvm_kernel_params(module, STRUCTS, "structs", "t.ll") == \
        llvm_kernel_params(parsed, STRUCTS, "structs", "t.ll")
    assert llvm_kernel_params(module, STRUCTS, "structs", "t.ll")[1].byval_size == 8
    for g, real in zip(module.global_variables, parsed.global_variables):
        assert (g.name, g.is_declaration) == (real.name, real.is_declaration)
        assert str(g).split("\n")[0] == str(real).split("\n")[0]
    assert str(module.get_function("structs")) == str(parsed.get_function("structs"))


@pytest.mark.parametrize("body", [
    "  fence syncscope(\"workgroup\") acquire\n  ret void",
    "  %v = getelementptr i32, ptr addrspace(1) %out, <2 x i64> <i64 0, i64 1>\n  ret void",
    "  %fp = inttoptr i64 16 to ptr\n  call void %fp()\n  ret void",
])
@pytest.mark.parametrize("params", ["ptr addrspace(1) %out", "ptr addrspace(1) %out, bfloat %b",
                                    "ptr addrspace(1) %out, <vscale x 2 x i32> %s"])
def test_errors_are_the_same(body, params):
    text = HEADER + f"define spir_kernel void @k({params}) {{\nentry:\n{body}\n}}\n"
    from_text, from_llvmlite = _both(text)
    assert from_text == from_llvmlite
    assert from_text.startswith("error: t.ll: function @k")


def test_llvmlite_answers_for_a_text_module_where_the_parser_gives_up(monkeypatch):
    """Forms left to llvmlite (the positional walk, parameters included) read the same from a text module."""
    expected = _read(parse_llvm_text(EVERY_FORM, "t.ll"))
    module = TextModule(EVERY_FORM, "t.ll")
    monkeypatch.setattr(llvm_text, "_read_simple", lambda ins: False)
    monkeypatch.setattr(llvm_text._InstructionParser, "read", lambda self: (_ for _ in ()).throw(
        llvm_text.Unrecognised("test")))
    monkeypatch.setattr(llvm_reader._SimpleForms, "read", lambda self, ins, blk: None)
    assert _read(module) == expected
    assert module._llvm is not None              # it did ask llvmlite


def test_a_call_to_a_defined_function_is_inlined_by_llvm():
    text = HEADER + """
define internal i32 @twice(i32 %x) {
  %y = add i32 %x, %x
  ret i32 %y
}

define spir_kernel void @k(ptr addrspace(1) %out, i32 %n) {
entry:
  %t = call i32 @twice(i32 %n)
  store i32 %t, ptr addrspace(1) %out, align 4
  ret void
}
"""
    from_text, from_llvmlite = _both(text)
    assert from_text == from_llvmlite and "call" not in from_text


_LLVMLITE_LOADED = """
import json, sys
from reconverge.tools.cli import main
for argv in json.loads(sys.argv[1]):
    assert main(argv) == 0, argv
print(json.dumps("llvmlite" in sys.modules))
"""


def _llvmlite_loaded(*commands: list[str]) -> bool:
    proc = subprocess.run([sys.executable, "-c", _LLVMLITE_LOADED, json.dumps(commands)], cwd=ROOT,
                          capture_output=True, text=True, timeout=300)
    assert proc.returncode == 0, proc.stderr
    return json.loads(proc.stdout.splitlines()[-1])


def test_an_opencl_c_compile_never_loads_llvmlite(tmp_path):
    """To SPIR-V and to Gen (every --cf mode): clang's text is read as it is; .ll input, which LLVM must
    parse and verify, does load it (the probe can see it)."""
    source = tmp_path / "k.cl"
    source.write_text("kernel void k(global int *a, int n) {\n  int i = get_global_id(0);\n"
                      "  for (int j = 0; j < n; j++) { if (a[i] > j) a[i] -= j; else break; }\n}\n")
    out = str(tmp_path / "k")
    gen = (["compile", str(source), "-O2", "--emit", "gen", "--cf", cf, "-o", f"{out}-{cf}.krn"]
           for cf in ("auto", "structured", "blockip"))       # -O2: no private variable left for SROA
    assert not _llvmlite_loaded(["compile", str(source), "-O2", "--emit", "spirv", "-o", out + ".spv"], *gen)
    assert os.path.getsize(out + ".spv") > 0 and os.path.getsize(out + "-auto.krn") > 0
    ll = tmp_path / "k.ll"
    ll.write_text(run_clang(str(source), "-O2").llvm_text)
    assert _llvmlite_loaded(["compile", str(ll), "--emit", "spirv", "-o", out + "-ll.spv"])


def test_clang_runs_llvm_s_verifier_on_the_text_we_read(tmp_path):
    """The text is read without LLVM parsing it again because clang verified it: -fverify-intermediate-code
    puts VerifierPass in clang's pipeline (a release clang passes -disable-llvm-verifier otherwise)."""
    source = tmp_path / "k.cl"
    source.write_text("kernel void k(global int *a) { a[get_global_id(0)] = 1; }\n")
    for level in ("-O0", "-O2"):
        command = clang_command(str(source), level, ("-Xclang", "-fdebug-pass-manager"))
        passes = subprocess.run(command, capture_output=True, text=True, check=True).stderr
        assert passes.count("Running pass: VerifierPass") == 2, passes      # first and last
        without = [c for c in command if c != "-fverify-intermediate-code"]
        assert "VerifierPass" not in subprocess.run(without, capture_output=True, text=True, check=True).stderr


def test_a_clang_argument_pair_stays_a_pair_at_O0():
    """-O0's -Xclang -disable-O0-optnone was inserted before the last build option, splitting a pair given
    through --clang-arg (`-Xclang -fdebug-pass-manager`: clang then rejected -fdebug-pass-manager)."""
    command = clang_command("k.cl", "-O0", ("-DN=1", "-Xclang", "-fdebug-pass-manager"))
    at = command.index("-fdebug-pass-manager")
    assert command[at - 1] == "-Xclang" and command[at - 2] == "-DN=1"
    assert command[-3:] == ["-o", "-", "k.cl"]
