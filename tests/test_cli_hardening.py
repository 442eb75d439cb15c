"""Hardening of the command line (issue 19): no command writes over one of its inputs (through symlinks
and hard links too), one command's outputs are all written or none, and bad option values are usage
errors."""
from __future__ import annotations

import os
import shutil

import numpy as np
import pytest

from reconverge.tools.cli import main
from tests.test_cli import ROOT

LOOP_ASM = os.path.join(ROOT, "examples", "divergent_loop.asm")
COPY_KERNEL = """
define spir_kernel void @k(ptr addrspace(1) %a, ptr addrspace(1) %b) {
entry:
  %v = load i32, ptr addrspace(1) %a
  %w = add i32 %v, 1
  store i32 %w, ptr addrspace(1) %b
  ret void
}
"""


def cli(capsys, *argv) -> tuple[int | str | None, str]:
    """(exit status, standard error) of the command run in this process."""
    code: int | str | None
    try:
        code = main([str(a) for a in argv])
    except SystemExit as exc:
        code = exc.code
    return code, capsys.readouterr().err


def alias(path, how: str) -> str:
    """`path` itself, or a symlink or hard link to it beside it."""
    if how == "same":
        return str(path)
    link = f"{path}.{how}{os.path.splitext(str(path))[1]}"
    (os.symlink if how == "symlink" else os.link)(str(path), link)
    return link


@pytest.fixture
def files(tmp_path, capsys):
    """An inputs folder: a kernel (.ll), two Gen binaries, their assembly, a .npy, a SPIR-V module."""
    d = tmp_path / "in"
    d.mkdir()
    shutil.copy(LOOP_ASM, d / "loop.asm")
    (d / "k.ll").write_text(COPY_KERNEL)
    np.save(d / "a.npy", np.arange(4, dtype=np.int32))
    np.save(d / "z.npy", np.zeros(16, dtype=np.int32))
    assert cli(capsys, "asm", d / "loop.asm", "-o", d / "loop.krn")[0] == 0
    assert cli(capsys, "asm", d / "loop.asm", "--compact", "-o", d / "loop2.krn")[0] == 0
    assert cli(capsys, "compile", d / "k.ll", "--emit", "spirv", "-o", d / "k.spv")[0] == 0
    return d


# Each command with the input its output is aimed at: (argv given the inputs folder and the output, input)
WRITERS = {
    "compile": (lambda d, o: ["compile", d / "k.ll", "-o", o], "k.ll"),
    "asm": (lambda d, o: ["asm", d / "loop.asm", "-o", o], "loop.asm"),
    "disasm": (lambda d, o: ["disasm", d / "loop.krn", "-o", o], "loop.krn"),
    "diff": (lambda d, o: ["diff", d / "loop.krn", d / "loop2.krn", "--format", "json", "-o", o], "loop2.krn"),
    "trace": (lambda d, o: ["trace", d / "loop.krn", "--simd", "16", "--surface", f"0={d / 'z.npy'}", "-o", o],
              "loop.krn"),
    "trace-surface": (lambda d, o: ["trace", d / "loop.krn", "--simd", "16", "--surface", f"0={o}", "-o", o],
                      "z.npy"),
    "check-json": (lambda d, o: ["check", d / "k.spv", "--json", o], "k.spv"),
    "check-junit": (lambda d, o: ["check", d / "k.spv", "--junit", o], "k.spv"),
    "run-trace": (lambda d, o: ["run", d / "k.ll", "--target", "gen", "--global", "1", "--arg", f"a=@{d / 'a.npy'}",
                                "--arg", "b=zeros:1:int32", "--out", d / "out", "--trace", o], "k.ll"),
}


@pytest.mark.parametrize("how", ["same", "symlink", "hardlink"])
@pytest.mark.parametrize("command", sorted(WRITERS))
def test_no_command_writes_over_an_input(files, capsys, command, how):
    argv, victim = WRITERS[command]
    path = files / victim
    before = path.read_bytes()
    output = alias(path, how)
    if command == "trace-surface":              # the surface (an input) given as the output too
        argv = WRITERS["trace"][0]
        argv = lambda d, o, base=argv: [a if a != f"0={d / 'z.npy'}" else f"0={path}" for a in base(d, o)]
    code, err = cli(capsys, *argv(files, output))
    # check's verdicts are exit 1, so a report it cannot write is exit 2
    assert code == (2 if command.startswith("check") else 1) and "refusing" in err and "input" in err, err
    assert len(err.strip().splitlines()) == 1, err
    assert path.read_bytes() == before
    assert not (files / "out").exists()


@pytest.mark.parametrize("how", ["same", "symlink", "hardlink"])
def test_run_out_never_replaces_an_arg_file(files, capsys, how):
    out = files / "out"
    out.mkdir()
    source = files / "a.npy"
    before = source.read_bytes()
    target = out / "a.npy"
    if how == "same":
        shutil.move(source, target)
        source = target
    else:
        (os.symlink if how == "symlink" else os.link)(source, target)
    code, err = cli(capsys, "run", files / "k.ll", "--target", "ir", "--global", "1", "--arg", f"a=@{target}",
                    "--arg", "b=zeros:1:int32", "--out", out)
    assert code == 1 and "refusing" in err and "input" in err, err
    assert source.read_bytes() == before
    assert not (out / "b.npy").exists()


def test_check_emit_dir_never_replaces_an_input(files, capsys, monkeypatch):
    report = files.parent / "rep" / "in" / "k.spv.structure.txt"
    report.parent.mkdir(parents=True)
    report.write_text("an input\n")
    monkeypatch.chdir(files.parent)
    code, err = cli(capsys, "check", "in/k.spv", str(report.relative_to(files.parent)), "--emit-dir", "rep")
    assert code == 2 and "refusing" in err, err
    assert report.read_text() == "an input\n"


@pytest.mark.parametrize("value", ["inf", "1e300", "nan", "-1", "0", "soon"])
@pytest.mark.parametrize("command", ["run", "check"])
def test_a_timeout_that_is_not_a_finite_positive_number_is_a_usage_error(files, capsys, command, value):
    argv = ["run", files / "k.ll", "--target", "llvm", "--global", "1", "--arg", f"a=@{files / 'a.npy'}",
            "--arg", "b=zeros:1:int32", "--out", files / "out"] if command == "run" else ["check", files / "k.spv"]
    code, err = cli(capsys, *argv, "--timeout", value)
    assert code == 2 and err.startswith("reconverge: error: argument --timeout") and len(err.splitlines()) == 1, err
    assert not (files / "out").exists()


def test_run_writes_its_arrays_and_its_trace_together_or_neither(files, capsys):
    argv = ["run", files / "k.ll", "--target", "gen", "--global", "1", "--arg", f"a=@{files / 'a.npy'}",
            "--arg", "b=zeros:1:int32", "--out", files / "out"]
    code, err = cli(capsys, *argv, "--trace", files / "nodir" / "t.png")
    assert code == 1 and "nodir" in err, err
    assert not (files / "out").exists()
    code, err = cli(capsys, *argv, "--trace", files / "t.png")
    assert code == 0, err
    assert (files / "t.png").read_bytes()[:4] == b"\x89PNG" and np.load(files / "out" / "b.npy")[0] == 1


def test_check_reports_of_inputs_with_one_name_do_not_meet(files, capsys, monkeypatch):
    for sub in ("a", "b"):
        (files / sub).mkdir()
        shutil.copy(files / "k.spv", files / sub / "m.spv")
    monkeypatch.chdir(files)
    code, err = cli(capsys, "check", "a/m.spv", "b/m.spv", os.path.abspath("k.spv"), "--emit-dir", "rep")
    assert code == 0, err
    written = sorted(os.path.relpath(os.path.join(r, f), "rep") for r, _, fs in os.walk("rep") for f in fs)
    assert [w for w in written if w.endswith(".txt")] == [
        "a/m.spv.structure.txt", "b/m.spv.structure.txt",
        os.path.join(*os.path.abspath("k.spv").strip("/").split("/")) + ".structure.txt"]


@pytest.mark.parametrize("flag", ["--junit", "--json", "--emit-dir"])
def test_a_check_report_that_cannot_be_written_exits_2(files, capsys, flag):
    target = files / "nodir" / "x.xml" if flag != "--emit-dir" else files / "k.spv"    # a file, not a folder
    code, err = cli(capsys, "check", files / "k.spv", flag, target)
    assert code == 2 and "cannot write the report" in err and len(err.splitlines()) == 1, err


def test_two_parameters_with_one_name_are_refused(tmp_path, capsys):
    kernel = tmp_path / "twins.ll"
    kernel.write_text(COPY_KERNEL.replace("@k(ptr addrspace(1) %a, ptr addrspace(1) %b)",
                                          "@k(ptr addrspace(1) %a, ptr addrspace(1) %b) !kernel_arg_name !0")
                      + '!0 = !{!"x", !"x"}\n')
    code, err = cli(capsys, "run", kernel, "--target", "ir", "--global", "1", "--arg", "arg0=zeros:1:int32",
                    "--arg", "arg1=zeros:1:int32", "--out", tmp_path / "o")
    assert code == 1 and "parameters 0 and 1 are both named 'x'" in err and len(err.splitlines()) == 1, err
    assert not (tmp_path / "o").exists()


INTERNAL_ONLY = "define internal void @k() {\nentry:\n  ret void\n}\n"
WITH_HELPER = COPY_KERNEL.replace("spir_kernel ", "") + "define internal void @helper() {\nentry:\n  ret void\n}\n"


@pytest.mark.parametrize("emit", ["nir", "spirv", "gen", "gen-asm"])
@pytest.mark.parametrize("text", [INTERNAL_ONLY, "", "; only a comment\n"], ids=["internal", "empty", "comment"])
def test_a_module_without_an_externally_visible_kernel_is_one_error_on_every_emit(tmp_path, capsys, emit, text):
    module = tmp_path / "m.ll"
    module.write_text(text)
    code, err = cli(capsys, "compile", module, "--emit", emit, "-o", tmp_path / "out")
    assert code == 1 and err == f"reconverge: error: {module}: no kernels in the module\n", err
    assert not (tmp_path / "out").exists()


def test_an_uncalled_internal_function_is_a_helper_not_a_kernel(tmp_path, capsys):
    module = tmp_path / "m.ll"
    module.write_text(WITH_HELPER)
    code, err = cli(capsys, "compile", module, "--emit", "nir", "-o", tmp_path / "m.nir")
    assert code == 0, err
    out = (tmp_path / "m.nir").read_text()
    assert "k(" in out and "helper" not in out, out
