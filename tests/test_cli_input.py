"""The command line as a clang/llc user expects it (issue 25, "Diagnostics and input"): clang's
diagnostics whole, standard input with -x, the output kind from -o's name, no binary on a terminal,
--emit llvm, -v, --print-before and the machine passes, and one spelling and default per option."""
from __future__ import annotations

import io
import os
import pty
import subprocess
import sys
import types

import pytest

from reconverge.tools.cli import main
from tests.test_cli import ROOT, SEED, assert_one_line_error, run, write

SIMPLE = "kernel void k(global int *o) { int i = get_global_id(0); if (i < 4) o[i] = i * 2; }\n"
LL_KERNEL = """
define spir_kernel void @k(ptr addrspace(1) %a) {
entry:
  store i32 7, ptr addrspace(1) %a
  ret void
}
"""
IRREDUCIBLE = """kernel void k(global int *o, int n)
{
    int i = get_global_id(0);
    if (n > 3)
        goto inside;
    while (i < 100) {
        i += 2;
inside:
        i += sub_group_reduce_add(3);
    }
    o[0] = i;
}
"""


def cli(capsys, *argv) -> tuple[int | str | None, str]:
    """(exit status, standard error) of the command run in this process; its standard output stays in
    capsys."""
    code: int | str | None
    try:
        code = main([str(a) for a in argv])
    except SystemExit as exc:
        code = exc.code
    captured = capsys.readouterr()
    sys.stdout.write(captured.out)
    return code, captured.err


def piped(*args, stdin: bytes, env=None):
    return subprocess.run([sys.executable, "-m", "reconverge.tools.cli", *args], input=stdin, capture_output=True,
                          env=dict(os.environ, PYTHONPATH=ROOT, **(env or {})))


# ----- clang's diagnostics -----

def test_warnings_are_printed_on_success(tmp_path):
    path = write(tmp_path, "w.cl", "kernel void k(global int *o) { int unused; o[0] = 1; }\n")
    out = tmp_path / "w.nir"
    proc = run("compile", path, "--clang-arg=-Wall", "-o", str(out))
    assert proc.returncode == 0 and out.exists(), proc.stderr
    assert "w.cl:1:36: warning: unused variable 'unused' [-Wunused-variable]" in proc.stderr
    assert "^~~~~~" in proc.stderr and "1 warning generated." in proc.stderr


def test_every_error_with_its_caret_and_fix_it(tmp_path):
    path = write(tmp_path, "e.cl", "kernel void k(global int *o) {\n  o[0] = 1\n  o[1] = nope;\n}\n")
    proc = run("compile", path, "-o", str(tmp_path / "e.nir"))
    assert proc.returncode == 1 and not (tmp_path / "e.nir").exists()
    assert "e.cl:2:11: error: expected ';' after expression" in proc.stderr
    assert "e.cl:3:10: error: use of undeclared identifier 'nope'" in proc.stderr
    assert "\n      |           ;\n" in proc.stderr                     # the fix-it line
    assert proc.stderr.endswith("2 errors generated.\n") and "reconverge" not in proc.stderr


def test_colour_is_clangs_choice(tmp_path, monkeypatch):
    from reconverge.lowering.frontend.clang import _colour_by_default
    path = write(tmp_path, "w.cl", "kernel void k(global int *o) { int unused; o[0] = 1; }\n")
    forced = run("compile", path, "--clang-arg=-Wall", "--clang-arg=-fcolor-diagnostics", "-o", os.devnull)
    assert forced.returncode == 0 and "\x1b[" in forced.stderr
    assert "\x1b[" not in run("compile", path, "--clang-arg=-Wall", "-o", os.devnull).stderr   # not a terminal

    class Terminal:
        def isatty(self):
            return True
    monkeypatch.setattr(sys, "stderr", Terminal())
    monkeypatch.delenv("NO_COLOR", raising=False)
    assert _colour_by_default(())
    assert not _colour_by_default(("-fno-color-diagnostics",))
    monkeypatch.setenv("NO_COLOR", "1")
    assert not _colour_by_default(())


def test_a_clang_error_is_one_line_where_one_line_is_wanted(tmp_path):
    from reconverge.lowering.frontend.clang import ClangError
    from reconverge.lowering.program import load_program
    path = write(tmp_path, "e.cl", "kernel void k(global int *o) { o[0] = a; o[1] = b; }\n")
    with pytest.raises(ClangError) as info:
        load_program(path)
    assert str(info.value).endswith("e.cl:1:39: error: use of undeclared identifier 'a' (and 1 more errors)")
    assert "2 errors generated." in info.value.diagnostics


def test_irreducible_error_names_the_source_lines_from_dbg(tmp_path):
    """A goto into a loop holding a sub-group operation: the cycle has two entries, and which lanes meet
    there is not defined, so SPIR-V refuses it naming the entries (their lines with -g)."""
    path = write(tmp_path, "irr.cl", IRREDUCIBLE)
    plain = assert_one_line_error(run("compile", path, "-O2", "--emit", "spirv", "-o", os.devnull), 1,
                                  "irreducible", "entered at %6 and %11 holds a sub-group operation")
    assert "irr.cl:" not in plain.split("@k")[1]
    assert_one_line_error(run("compile", path, "-O2", "--clang-arg=-g", "--emit", "spirv", "-o", os.devnull), 1,
                          f"entered at %6 and %11 ({path}:6:14, {path}:9:14) holds")
    assert run("compile", path, "-O2", "--emit", "gen", "-o", os.devnull).returncode == 0    # blockIP runs it


def test_reader_errors_name_the_source_line_from_dbg(tmp_path, capsys):
    path = write(tmp_path, "p.cl", 'kernel void k(global int *o)\n{\n    printf("%d", o[0]);\n}\n')
    code, err = cli(capsys, "compile", path, "--clang-arg=-g", "-o", os.devnull)
    assert code == 1 and "unknown function @printf" in err and err.rstrip().endswith(f"(source line {path}:3:5)")


# an invalid module with current debug info: LLVM's reader verified it while upgrading the debug info and
# aborted the whole process ("LLVM ERROR: Broken module found", exit 134), as fuzz convergence-283's token
# module (a call in a loop using the entry token) did
BROKEN_WITH_DEBUG_INFO = """\
define void @k(ptr %p) !dbg !5 {
  %a = add i32 %b, 1, !dbg !8
  %b = add i32 1, 1, !dbg !8
  ret void, !dbg !8
}
!llvm.dbg.cu = !{!0}
!llvm.module.flags = !{!3}
!0 = distinct !DICompileUnit(language: DW_LANG_OpenCL, file: !1, producer: "t", isOptimized: false, runtimeVersion: 0, emissionKind: FullDebug)
!1 = !DIFile(filename: "b.cl", directory: "/tmp")
!3 = !{i32 2, !"Debug Info Version", i32 3}
!5 = distinct !DISubprogram(name: "k", scope: !1, file: !1, line: 1, type: !6, unit: !0)
!6 = !DISubroutineType(types: !7)
!7 = !{null}
!8 = !DILocation(line: 2, column: 1, scope: !5)
"""


# LLVM's verifier itself asserts on a lexical block whose scope is a type (llvm::cast<DILocalScope>):
# tools/input_fuzz.py's case 1056, made from a corpus module by pointing one node at another
SCOPE_IS_A_TYPE = BROKEN_WITH_DEBUG_INFO.replace("%a = add i32 %b, 1, !dbg !8\n  %b = add i32 1, 1, !dbg !8",
                                                 "store i32 1, ptr %p, align 4, !dbg !9") + """\
!9 = !DILocation(line: 3, column: 1, scope: !10)
!10 = distinct !DILexicalBlock(scope: !11, file: !1, line: 3, column: 1)
!11 = !DIBasicType(name: "int", size: 32, encoding: DW_ATE_signed)
"""


@pytest.mark.parametrize("level", ["-O0", "-O2"])
@pytest.mark.parametrize("text, complaint", [
    (BROKEN_WITH_DEBUG_INFO, "Instruction does not dominate all uses! %b = add i32 1, 1"),
    (SCOPE_IS_A_TYPE, "LLVM's verifier crashed on its debug info")], ids=["dominance", "scope-is-a-type"])
def test_an_invalid_module_with_debug_info_is_one_line_not_an_abort(tmp_path, level, text, complaint):
    path = write(tmp_path, "broken.ll", text)
    out = tmp_path / "broken.spv"
    assert_one_line_error(run("compile", path, level, "-o", str(out)), 1, f"{path}: invalid module: {complaint}")
    assert not out.exists()


# ----- standard input and -x -----

def stdin_cli(capsys, monkeypatch, data: bytes, *argv) -> tuple[int | str | None, str, str]:
    """(exit status, standard output, standard error) of the command run in this process on `data` as
    its standard input."""
    monkeypatch.setattr(sys, "stdin", types.SimpleNamespace(buffer=io.BytesIO(data)))
    code, err = cli(capsys, *argv)
    return code, capsys.readouterr().out, err


def test_compile_reads_standard_input(tmp_path, capsys, monkeypatch):
    assert cli(capsys, "compile", write(tmp_path, "k.cl", SIMPLE))[0] == 0
    want = capsys.readouterr().out.replace(str(tmp_path / "k.cl"), "<stdin>")
    assert stdin_cli(capsys, monkeypatch, SIMPLE.encode(), "compile", "-") == (0, want, "")   # by its content
    assert stdin_cli(capsys, monkeypatch, SIMPLE.encode(), "compile", "-", "-x", "cl") == (0, want, "")
    code, ll, _ = stdin_cli(capsys, monkeypatch, LL_KERNEL.encode(), "compile", "-")        # LLVM IR text
    assert code == 0 and "kernel @k" in ll
    assert stdin_cli(capsys, monkeypatch, ll.encode(), "compile", "-") == (0, ll, "")        # `kernel @`
    from reconverge.lowering.frontend.llvm_module import parse_llvm_text
    bitcode = parse_llvm_text(LL_KERNEL, "k.ll").as_bitcode()
    assert stdin_cli(capsys, monkeypatch, bitcode, "compile", "-") == (0, ll, "")            # bitcode magic


def test_kind_from_content_and_x():
    from reconverge.lowering.input_kind import kind_from_content
    assert kind_from_content(b"BC\xc0\xde\x35\x14") == "bc"
    assert kind_from_content(b"\xde\xc0\x17\x0b\x00") == "bc"                # the bitcode wrapper
    assert kind_from_content(LL_KERNEL.encode()) == "ll"
    assert kind_from_content(b"kernel @k() {\n}\n") == "nir"
    assert kind_from_content(SIMPLE.encode()) == "cl"
    assert kind_from_content(b"int x;\n") is None


def test_stdin_errors_name_stdin_and_x_names_the_kind(tmp_path, capsys, monkeypatch):
    code, _, err = stdin_cli(capsys, monkeypatch, b"int x;\n", "compile", "-")
    assert code == 1 and err.startswith("reconverge: error: <stdin>: cannot tell") and "-x cl|ll|bc|nir" in err
    code, _, err = stdin_cli(capsys, monkeypatch, b"kernel void k(global int *o) { o[0] = q; }\n",
                             "compile", "-", "-x", "cl")
    assert code == 1 and err.startswith("<stdin>:1:39: error: use of undeclared identifier 'q'")
    # the content tells a file with another extension; -x overrides the extension
    assert cli(capsys, "compile", write(tmp_path, "k.txt", LL_KERNEL))[0] == 0
    assert cli(capsys, "compile", write(tmp_path, "wrong.cl", LL_KERNEL), "-x", "ll")[0] == 0
    code, err = cli(capsys, "compile", SEED, "-x", "ll", "-DX=1")
    assert code == 2 and "-DX=1: build options only apply to OpenCL C" in err


def test_run_and_check_read_standard_input(tmp_path, capsys, monkeypatch):
    out = tmp_path / "out"
    code, _, err = stdin_cli(capsys, monkeypatch, LL_KERNEL.encode(), "run", "-", "--target", "ir", "--global",
                             "4", "--arg", "a=zeros:1:int32", "--out", out)
    assert code == 0, err
    import numpy as np
    assert np.load(out / "a.npy").tolist() == [7]
    source = b"kernel void k(global int *o) { o[0] = N; }\n"
    code, report, err = stdin_cli(capsys, monkeypatch, source, "check", "-", "-DN=3", "-j", "1")
    assert code == 0 and "1 passed" in report, report + err
    code, report, err = stdin_cli(capsys, monkeypatch, source, "check", "-", "-j", "1")
    assert code == 1 and "undeclared identifier 'N'" in report + err


# ----- output kind from the file name; no binary on a terminal -----

@pytest.mark.parametrize("name,head", [
    ("k.spv", b"\x03\x02\x23\x07"), ("k.krn", None), ("k.s", b"// kernel k: SIMD16"),
    ("k.asm", b"// kernel k: SIMD16"), ("k.ll", b"; ModuleID"), ("k.nir", b"kernel @k"),
    ("k.spvasm", b"; SPIR-V"), ("k.txt", b"kernel @k"),
])
def test_output_kind_follows_the_file_name(tmp_path, capsys, name, head):
    source = write(tmp_path, "k.cl", SIMPLE)
    assert cli(capsys, "compile", source, "-o", tmp_path / name)[0] == 0
    data = (tmp_path / name).read_bytes()
    if head is None:                                                   # a Gen kernel container
        from reconverge.isa.gen9.container import unpack_container
        assert [k.name for k in unpack_container(data)] == ["k"]
    else:
        assert data.startswith(head), data[:40]


def test_a_binary_is_never_written_to_a_terminal(tmp_path, capsys, monkeypatch):
    source = write(tmp_path, "k.cl", SIMPLE)
    primary, secondary = pty.openpty()
    try:
        proc = subprocess.run([sys.executable, "-m", "reconverge.tools.cli", "compile", source, "--emit", "spirv"],
                              stdout=secondary, stderr=subprocess.PIPE, env=dict(os.environ, PYTHONPATH=ROOT))
    finally:
        os.close(secondary)
        os.close(primary)
    assert proc.returncode == 1 and proc.stderr.decode().count("\n") == 1
    assert proc.stderr.decode().startswith("reconverge: error: not writing binary output to a terminal")
    from reconverge.lowering.output import is_binary
    assert is_binary(b"\x03\x02\x23\x07") and is_binary(b"\xff\xfe") and not is_binary("text") \
        and not is_binary(b"disasm text\n")
    into_pipe = piped("compile", source, "--emit", "spirv", "-o", "-", stdin=b"")      # not a terminal: fine
    assert into_pipe.returncode == 0 and into_pipe.stdout.startswith(b"\x03\x02\x23\x07")


# ----- --emit llvm, -v, --print-before, machine passes -----

def test_emit_llvm_is_what_clang_produced(tmp_path, capsys):
    source = write(tmp_path, "k.cl", SIMPLE)
    assert cli(capsys, "compile", source, "--emit", "llvm", "-O2")[0] == 0
    text = capsys.readouterr().out
    assert 'target triple = "spir64"' in text and "spir_kernel void @k(" in text
    assert "alloca" not in text                                         # clang's -O2
    code, err = cli(capsys, "compile", source, "--emit", "llvm", "--stop-after", "read")
    assert code == 2 and "--stop-after does not apply to --emit llvm" in err


def test_verbose_shows_every_tool_run(tmp_path):
    source = write(tmp_path, "k.cl", SIMPLE)
    proc = run("compile", source, "-v", "-Os", "--emit", "spirv", "--validate", "-o", str(tmp_path / "k.spv"))
    assert proc.returncode == 0, proc.stderr
    lines = proc.stderr.splitlines()
    assert any(line.startswith(" clang-22 -x cl ") and " -Os " in line and line.endswith(source) for line in lines)
    assert " spirv-val --target-env vulkan1.3 -" in lines


def test_print_before_and_the_machine_passes(tmp_path, capsys):
    source = write(tmp_path, "k.cl", SIMPLE)
    code, err = cli(capsys, "compile", source, "--print-before", "structurize", "--print-after", "structurize",
                    "-o", os.devnull)
    assert code == 0 and err.index("; before structurize\n") < err.index("; after structurize\n")
    code, err = cli(capsys, "compile", source, "--emit", "gen-asm", "--print-after", "isel", "--print-after",
                    "regalloc", "-o", os.devnull)
    assert code == 0, err
    isel, regalloc = err.index("; after isel (SIMD16)\ngen function k"), err.index("; after regalloc (SIMD16, ")
    assert isel < regalloc and "; registers: %v0 r" in err
    code, err = cli(capsys, "compile", source, "--print-after", "regalloc")
    assert code == 2 and "a Gen machine pass" in err
    code, err = cli(capsys, "compile", source, "--print-before", "read")
    assert code == 2 and "no IR before the read pass" in err


# ----- one spelling and one default per option -----

def test_opt_levels_are_clangs(tmp_path, capsys):
    from reconverge.tools.cli import build_parser
    parser = build_parser()
    for command in (["compile", SEED], ["run", SEED, "--target", "ir", "--global", "1", "--out", "o"],
                    ["check", SEED], ["trace", SEED, "-o", "t.png"]):
        assert parser.parse_args(command).opt == "0"
        assert parser.parse_args([*command, "-Os"]).opt == "s"
    for command in ("compile", "run", "check"):
        assert cli(capsys, command, "--help")[0] == 0
        assert "-O0 (the default)" in " ".join(capsys.readouterr().out.split())
    source = write(tmp_path, "k.cl", SIMPLE)
    assert cli(capsys, "compile", source, "-O")[0] == 0                    # -O alone: -O2
    bare = capsys.readouterr().out
    assert cli(capsys, "compile", "-O2", source)[0] == 0
    assert capsys.readouterr().out == bare
    assert cli(capsys, "compile", "-O0", source)[0] == 0
    assert capsys.readouterr().out != bare


def test_local_is_one_spelling_and_build_options_reach_check_and_trace(tmp_path, capsys):
    source = write(tmp_path, "k.cl", "kernel void k(global int *o) { o[get_global_id(0)] = N; }\n")
    for flag in ("--local", "--local-size"):
        assert cli(capsys, "compile", source, "-DN=1", "--emit", "spirv-asm", flag, "8")[0] == 0
        assert "OpExecutionMode %k LocalSize 8 1 1" in capsys.readouterr().out
    assert cli(capsys, "compile", "--help")[0] == 0 and "--local-size" not in capsys.readouterr().out
    assert cli(capsys, "check", source, "-DN=2", "-cl-std=CL2.0", "-j", "1")[0] == 0
    png = tmp_path / "t.png"
    assert cli(capsys, "trace", source, "-DN=3", "--global", "8", "--arg", "o=zeros:8:int32", "-o", png)[0] == 0
    assert png.read_bytes().startswith(b"\x89PNG")
    assert cli(capsys, "trace", source, "-DN=3", "--global", "8", "--arg", "o=zeros:8:int32", "--compare-cf",
               "structured,blockip", "-o", png)[0] == 0


@pytest.mark.parametrize("env,version", [
    ("vulkan1.4", (1, 3)), ("vulkan1.1spv1.4", (1, 3)), ("opengl4.5", (1, 0)), ("spv1.6", (1, 3)),
    ("universal1.2", (1, 2)), ("vulkan1.0", (1, 0)),
])
def test_target_env_takes_what_spirv_val_takes(tmp_path, capsys, env, version):
    from reconverge.backend.spirv.options import SpirvOptions
    from reconverge.tools.spirv_args import spirv_options
    assert spirv_options(None, env) == SpirvOptions(version=version, target_env=env)
    source = write(tmp_path, "k.cl", SIMPLE)
    code, err = cli(capsys, "compile", source, "--target-env", env, "--validate", "-o", tmp_path / "k.spv")
    assert code == 0, err


def test_opencl_environments_are_refused_in_one_line(capsys):
    code, err = cli(capsys, "compile", SEED, "--emit", "spirv", "--target-env", "opencl1.2")
    assert code == 2 and "OpenCL environments do not take" in err and len(err.splitlines()) == 1
