"""The command line as a user meets it: outputs, dumps, and one-line errors with the right exit codes
and no output file left behind."""
import os
import re
import shutil
import subprocess
import sys

import llvmlite.binding as llvm
import pytest

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
SEED = os.path.join(ROOT, "examples", "seed.cl")

IRREDUCIBLE = """
declare spir_func i32 @_Z20sub_group_reduce_addj(i32) convergent

define spir_kernel void @irr(ptr addrspace(1) %out, i1 %c, i1 %d) {
entry:
  br i1 %c, label %a, label %b
a:
  %s = call spir_func i32 @_Z20sub_group_reduce_addj(i32 1) convergent
  store i32 %s, ptr addrspace(1) %out
  br i1 %d, label %b, label %done
b:
  store i32 2, ptr addrspace(1) %out
  br i1 %d, label %a, label %done
done:
  ret void
}
"""

ATOMIC = """
define spir_kernel void @atom(ptr addrspace(1) %out) {
entry:
  %old = atomicrmw nand ptr addrspace(1) %out, i32 1 seq_cst
  ret void
}
"""


def run(*args, cwd=None):
    env = dict(os.environ, PYTHONPATH=ROOT)
    return subprocess.run([sys.executable, "-m", "reconverge.tools.cli", *args], capture_output=True, text=True,
                          cwd=cwd, env=env)


def assert_one_line_error(proc, code, *needles):
    assert proc.returncode == code, proc.stderr
    lines = proc.stderr.strip().splitlines()
    assert len(lines) == 1, proc.stderr
    assert lines[0].startswith("reconverge: error: "), lines[0]
    assert "Traceback" not in proc.stderr
    for needle in needles:
        assert needle in lines[0], (needle, lines[0])
    return lines[0]


def write(tmp_path, name, text):
    path = tmp_path / name
    path.write_text(text)
    return str(path)


def test_compile_writes_nir_to_a_file(tmp_path):
    out = tmp_path / "seed.nir"
    proc = run("compile", SEED, "-O2", "-o", str(out), "--verify-each")
    assert proc.returncode == 0, proc.stderr
    text = out.read_text()
    assert text.startswith("kernel @seed(") and "loop {" in text and "break" in text


def test_divergence_marks_read_back_as_the_same_ir(tmp_path):
    """--emit nir --divergence marks values and branches div/con; compiling the marked text again gives
    the unmarked text of the same function; the marks belong to --emit nir only."""
    marked = tmp_path / "marked.nir"
    proc = run("compile", SEED, "-O2", "--divergence", "-o", str(marked))
    assert proc.returncode == 0, proc.stderr
    text = marked.read_text()
    assert "div %" in text and ("if div " in text or "if con " in text) and "loop " in text
    again, plain = run("compile", str(marked)), run("compile", SEED, "-O2")
    assert again.returncode == 0 and again.stdout == plain.stdout, again.stderr
    assert_one_line_error(run("compile", SEED, "--divergence", "--emit", "spirv-asm"), 2, "--divergence")


@pytest.mark.parametrize("emit", ["dot-cfg", "dot-tree"])
def test_dot_output_is_accepted_by_graphviz(tmp_path, emit):
    out = tmp_path / f"seed.{emit}.dot"
    proc = run("compile", SEED, "--emit", emit, "-o", str(out))
    assert proc.returncode == 0, proc.stderr
    assert shutil.which("dot"), "graphviz (dot) must be installed: the Makefile installs it"
    rendered = subprocess.run(["dot", "-Tsvg", str(out)], capture_output=True, text=True)
    assert rendered.returncode == 0, rendered.stderr
    assert "<svg" in rendered.stdout
    if emit == "dot-tree":
        assert "cluster_" in out.read_text() and 'label="loop"' in out.read_text()


def test_dump_after_all_writes_each_pass(tmp_path):
    dump = tmp_path / "dumps"
    proc = run("compile", SEED, "--dump-after", "all", "--dump-dir", str(dump), "-o", str(tmp_path / "x.nir"))
    assert proc.returncode == 0, proc.stderr
    names = sorted(os.listdir(dump))
    assert "seed.00-read.nir" in names and "seed.00-read.cfg.dot" in names
    assert "seed.02-structurize.nir" in names and "seed.02-structurize.tree.dot" in names
    assert "cbr" in (dump / "seed.00-read.nir").read_text()        # the CFG form still has branches


def test_stop_after_read_prints_the_cfg_form(tmp_path):
    proc = run("compile", SEED, "--stop-after", "read")
    assert proc.returncode == 0, proc.stderr
    assert "cbr " in proc.stdout and "loop {" not in proc.stdout


def test_bitcode_input(tmp_path):
    llvm.initialize_native_target()
    text = """
define spir_kernel void @tiny(ptr addrspace(1) %out, i32 %n) {
entry:
  %c = icmp sgt i32 %n, 0
  br i1 %c, label %pos, label %done
pos:
  store i32 %n, ptr addrspace(1) %out
  br label %done
done:
  ret void
}
"""
    bc = tmp_path / "tiny.bc"
    bc.write_bytes(llvm.parse_assembly(text).as_bitcode())
    proc = run("compile", str(bc))
    assert proc.returncode == 0, proc.stderr
    assert "kernel @tiny(" in proc.stdout and "if " in proc.stdout


def test_truncated_ll_is_a_one_line_error_without_output(tmp_path):
    full = IRREDUCIBLE.replace("@irr", "@t")
    path = write(tmp_path, "trunc.ll", full[: len(full) // 2])
    out = tmp_path / "out.nir"
    proc = run("compile", path, "-o", str(out))
    assert_one_line_error(proc, 1, "trunc.ll", "line")
    assert not out.exists() and os.listdir(tmp_path) == ["trunc.ll"]


def test_garbage_ll(tmp_path):
    path = write(tmp_path, "garbage.ll", "this is not LLVM IR\n")
    assert_one_line_error(run("compile", path), 1, "garbage.ll")


def test_unknown_kernel_names_the_available_ones(tmp_path):
    assert_one_line_error(run("compile", SEED, "--kernel", "nope"), 1, "nope", "seed")


def test_unsupported_instruction_names_function_block_and_instruction(tmp_path):
    path = write(tmp_path, "atom.ll", ATOMIC)
    line = assert_one_line_error(run("compile", path), 1, "atom.ll", "@atom", "entry", "atomicrmw")
    assert "unsupported" in line


def test_irreducible_cfg_names_the_blocks(tmp_path):
    path = write(tmp_path, "irr.ll", IRREDUCIBLE)
    out = tmp_path / "irr.nir"
    assert_one_line_error(run("compile", path, "-o", str(out)), 1, "irr.ll", "@irr", "irreducible", "%a", "%b")
    assert not out.exists()


def test_invalid_opencl_gives_clangs_diagnostics_whole(tmp_path):
    """clang's own report, every line of it (the source line, the caret), once: no 'reconverge: error:'
    before clang's 'error:', exit 1, no output file."""
    path = write(tmp_path, "bad.cl", "kernel void f(global int *o) {\n  o[0] = undefined_name;\n}\n")
    out = tmp_path / "bad.nir"
    proc = run("compile", path, "-o", str(out))
    assert proc.returncode == 1 and not out.exists()
    lines = proc.stderr.splitlines()
    assert lines[0].endswith("bad.cl:2:10: error: use of undeclared identifier 'undefined_name'"), proc.stderr
    assert lines[1].strip() == "2 |   o[0] = undefined_name;" and lines[2].strip().endswith("^~~~~~~~~~~~~~")
    assert lines[-1] == "1 error generated." and "reconverge" not in proc.stderr and "Traceback" not in proc.stderr


@pytest.mark.parametrize("args,needle", [
    (["compile"], "input"),
    (["compile", SEED, "-O7"], "-O"),
    (["compile", SEED, "--emit", "asm"], "--emit"),
    (["compile", SEED, "--no-such-flag"], "--no-such-flag"),
    (["compile", SEED, "--dump-after", "nopass"], "nopass"),
    (["frobnicate"], "frobnicate"),
    ([], "command"),
])
def test_bad_usage_exits_2(args, needle):
    assert_one_line_error(run(*args), 2, needle)


def test_missing_input_and_unwritable_output(tmp_path):
    assert_one_line_error(run("compile", str(tmp_path / "none.cl")), 1, "none.cl")
    assert_one_line_error(run("compile", SEED, "-o", str(tmp_path / "no" / "dir.nir")), 1, "does not exist")


def test_unknown_input_kind(tmp_path):
    path = write(tmp_path, "k.txt", "hello")
    assert_one_line_error(run("compile", path), 1, "k.txt", ".cl")


def test_ll_input_is_optimised_at_the_level_asked(tmp_path):
    """For .ll input, -O2 runs LLVM's own pipeline (clang does it for .cl): -O0 keeps clang's allocas
    (until our own promote pass, so stop before it)."""
    ll = tmp_path / "seed.ll"
    text = subprocess.run(["clang-22", "-x", "cl", "-cl-std=CL3.0", "-Xclang", "-finclude-default-header",
                           "-target", "spir64", "-emit-llvm", "-S", "-O0", "-Xclang", "-disable-O0-optnone",
                           SEED, "-o", "-"], capture_output=True, text=True, check=True).stdout
    ll.write_text(text)
    o0, o2 = run("compile", str(ll), "-O0", "--stop-after", "structurize"), run("compile", str(ll), "-O2")
    assert o0.returncode == 0 and o2.returncode == 0, o0.stderr + o2.stderr
    assert "alloca" in o0.stdout and "phi" not in o0.stdout
    assert "alloca" not in o2.stdout and "phi" in o2.stdout


def test_version_and_help():
    version = run("--version")
    assert version.returncode == 0 and version.stdout.startswith("reconverge ")
    for tool in ("clang", "spirv-val", "iga64", "llvmlite"):      # each names what it found, where
        line = next(line for line in version.stdout.splitlines() if line.strip().startswith(tool + ":"))
        assert "not found" not in line and "(" in line, line


def test_version_names_a_missing_tool_instead_of_failing(tmp_path):
    env = {**os.environ, "RECONVERGE_CLANG": str(tmp_path / "no-such-clang")}
    version = subprocess.run([sys.executable, "-m", "reconverge.tools.cli", "--version"], capture_output=True, text=True,
                             env=env, cwd=ROOT)
    assert version.returncode == 0 and "clang: not found on PATH" in version.stdout
    helptext = run("compile", "--help")
    assert helptext.returncode == 0 and "--emit" in helptext.stdout and "--dump-after" in helptext.stdout


@pytest.mark.parametrize("clang", ["no-such-clang", "a-directory", "not-executable"])
def test_a_missing_clang_is_a_one_line_error_naming_it(clang, tmp_path):
    (tmp_path / "a-directory").mkdir()
    (tmp_path / "not-executable").write_text("#!/bin/sh\n")
    source = tmp_path / "k.cl"
    source.write_text("kernel void k(global int *p) { p[0] = 1; }\n")
    env = {**os.environ, "PYTHONPATH": ROOT, "RECONVERGE_CLANG": str(tmp_path / clang)}
    proc = subprocess.run([sys.executable, "-m", "reconverge.tools.cli", "compile", str(source), "-o",
                           str(tmp_path / "k.spv")], capture_output=True, text=True, env=env, cwd=ROOT)
    assert_one_line_error(proc, 1, f"{tmp_path / clang} not found: install it")
    assert not (tmp_path / "k.spv").exists()


@pytest.mark.parametrize("args,needles", [
    (["--emit", "nir", "--spirv-version", "1.3"], ["--spirv-version only applies to --emit spirv"]),
    (["--emit", "dot-cfg", "--validate"], ["--validate only applies"]),
    (["--emit", "spirv", "--spirv-version", "1.6", "--target-env", "vulkan1.0"], ["SPIR-V 1.6", "vulkan1.0"]),
    (["--emit", "spirv", "--spirv-version", "1.7"], ["SPIR-V version 1.7"]),
    (["--emit", "spirv-asm", "--spirv-version", "one"], ["bad SPIR-V version 'one'"]),
    (["--emit", "dot-spirv", "--target-env", "opencl2.0"], ["target environment 'opencl2.0'"]),
    (["--emit", "spirv", "--local-size", "8,0"], ["--local", "'8,0'"]),
    (["--emit", "spirv", "--local", "1,2,3,4"], ["--local", "'1,2,3,4'"]),
    (["--emit", "spirv", "--stop-after", "read"], ["--emit spirv needs the structurize pass"]),
])
def test_spirv_options_are_checked_before_compiling(tmp_path, args, needles):
    out = tmp_path / "seed.spv"
    assert_one_line_error(run("compile", SEED, *args, "-o", str(out)), 2, *needles)
    assert not out.exists()


def test_spirv_options_build_the_backend_options():
    from reconverge.backend.spirv.options import SpirvOptions
    from reconverge.tools.cli import build_parser
    from reconverge.tools.spirv_args import compile_spirv_options as _compile_spirv_options
    parse = build_parser().parse_args
    default = _compile_spirv_options(parse(["compile", SEED, "--emit", "spirv"]))
    assert default == SpirvOptions(version=(1, 3), target_env="vulkan1.3", local_size=None, validate=False)
    chosen = _compile_spirv_options(parse(["compile", SEED, "--emit", "spirv-asm", "--spirv-version", "1.0",
                                           "--target-env", "vulkan1.0", "--local-size", "8,4", "--validate"]))
    assert chosen == SpirvOptions(version=(1, 0), target_env="vulkan1.0", local_size=(8, 4, 1), validate=True)
    assert _compile_spirv_options(parse(["compile", SEED])) is None


def test_run_command_end_to_end(tmp_path):
    proc = run("run", SEED, "--target", "ir", "--global", "16", "--arg", "out=zeros:16:int32",
               "--arg", "foo=zeros:16:int32", "--arg", "bar=zeros:16:int32", "--arg", "baz=zeros:16:int32",
               "--out", str(tmp_path / "o"))
    assert proc.returncode == 0, proc.stderr
    assert sorted(os.listdir(tmp_path / "o")) == ["bar.npy", "baz.npy", "foo.npy", "out.npy"]
    helptext = run("run", "--help")
    assert helptext.returncode == 0 and "largest divisor" in helptext.stdout


def test_run_prints_a_one_line_summary_and_with_print_the_buffers(tmp_path):
    proc = run("run", SEED, "--target", "ir", "--global", "16", "--local", "8", "--arg", "out=zeros:16:int32",
               "--arg", "foo=zeros:16:int32", "--arg", "bar=zeros:16:int32", "--arg", "baz=zeros:16:int32",
               "--print")
    assert proc.returncode == 0, proc.stderr
    lines = proc.stdout.splitlines()
    assert lines[-1].startswith("@") and " on ir: global 16, local 8 (ir " in lines[-1], lines[-1]
    assert "wrote" not in lines[-1] and not os.listdir(tmp_path)          # --print alone writes nothing
    assert any(line.startswith("out = [") and line.endswith("(16 x int32)") for line in lines), lines


def test_run_compare_agrees_on_the_seed_kernel():
    proc = run("run", SEED, "--compare", "llvm,ir,gen", "--global", "16", "--arg", "out=zeros:16:int32",
               "--arg", "foo=zeros:16:int32", "--arg", "bar=zeros:16:int32", "--arg", "baz=zeros:16:int32")
    assert proc.returncode == 0, proc.stderr
    assert "ir: all buffers equal to llvm's" in proc.stdout and "gen: all buffers equal to llvm's" in proc.stdout
    assert proc.stdout.splitlines()[-1].endswith("every target agrees with llvm")


def test_run_compare_names_the_first_differing_element_and_exits_1(monkeypatch, capsys):
    """A target that computes something else (here: the ir launcher, made to add 1 to one lane) is
    reported with the buffer, the element and both values."""
    from reconverge.tools import cli
    from reconverge.tools.targets import harness
    real = harness.TARGETS["ir"]

    def off_by_one(program, kernel, args, *rest):
        real(program, kernel, args, *rest)
        args[0][5] += 1
    monkeypatch.setitem(harness.TARGETS, "ir", off_by_one)
    code = cli.main(["run", SEED, "--compare", "llvm,ir", "--global", "16", "--arg", "out=zeros:16:int32",
                     "--arg", "foo=zeros:16:int32", "--arg", "bar=zeros:16:int32", "--arg", "baz=zeros:16:int32"])
    out = capsys.readouterr().out
    assert code == 1
    assert "ir: buffer 'out' [5]: ir " in out and "!= llvm" in out, out
    assert out.splitlines()[-1].endswith("1 of 1 target(s) differ from llvm")


def test_run_compare_says_when_sub_group_sizes_differ(tmp_path):
    """A reduction over sub-groups of 16 lanes (llvm, gen) is not one over 8: compared, they differ by design,
    and the run says so, with the flags that run both at one size (which then agree)."""
    src = tmp_path / "k.cl"
    src.write_text("kernel void k(global uint *out) { uint g = get_global_id(0);\n"
                   "    out[g] = sub_group_reduce_add(g * g + 1u); }\n")
    common = ("run", str(src), "--global", "32", "--local", "32", "--arg", "out=zeros:32:uint32")
    proc = run(*common, "--compare", "llvm,gen", "--simd", "8")
    assert proc.returncode == 1, proc.stdout + proc.stderr
    assert "note: @k has sub-group operations and the targets ran sub-groups of different sizes (llvm 16, gen 8 " \
           "lanes), so their results may differ by design: --subgroup-size 8 --simd 8 runs them at one size" \
           in proc.stdout, proc.stdout
    proc = run(*common, "--compare", "llvm,gen", "--simd", "8", "--subgroup-size", "8")
    assert proc.returncode == 0 and "note:" not in proc.stdout, proc.stdout + proc.stderr


@pytest.mark.parametrize("args,needle", [
    (["--compare", "llvm"], "name at least two different targets"),
    (["--compare", "llvm,llvm"], "name at least two different targets"),
    (["--compare", "llvm,cuda"], "unknown target 'cuda'"),
    (["--compare", "llvm,ir", "--target", "ir"], "--compare and --target"),
    (["--compare", "llvm,ir", "--simd", "8"], "--simd only applies to --target gen"),
    (["--target", "ir"], "--out (or --print, --stats, or --compare)"),
    (["--target", "ir", "--stats"], "--stats only applies to --target gen"),
    ([], "--target (or --compare"),
])
def test_run_target_choices_are_checked(args, needle):
    proc = run("run", SEED, "--global", "16", "--arg", "out=zeros:16:int32", *args)
    assert_one_line_error(proc, 2, needle)


def test_run_stats_on_gen_counts_what_the_simulator_executed():
    """--stats sums every hardware thread: 32 items in SIMD8 are 4 threads; a structured kernel with a
    loop executes branches; the numbers agree with a direct count from the launcher."""
    proc = run("run", SEED, "--target", "gen", "--simd", "8", "--cf", "structured", "--global", "32",
               "--arg", "out=zeros:32:int32", "--arg", "foo=zeros:32:int32", "--arg", "bar=zeros:32:int32",
               "--arg", "baz=zeros:32:int32", "--stats")
    assert proc.returncode == 0, proc.stderr
    line = next(line for line in proc.stdout.splitlines() if line.startswith("gen: "))
    m = re.match(r"gen: structured control flow \(--cf\), SIMD8, 4 threads: ([\d,]+) instructions executed "
                 r"\(([\d.]+) of 8 lanes enabled on average\), ([\d,]+) branches, ([\d,]+) sends", line)
    assert m, line
    instructions, lanes, branches, sends = (float(g.replace(",", "")) for g in m.groups())
    assert 0 < branches < instructions and 4 <= sends < instructions and 0 < lanes <= 8
