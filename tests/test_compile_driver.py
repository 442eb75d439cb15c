"""One compile driver (lowering.program) and Gen's own choice of control-flow mode (backend.gen.compile):
the command line's dump options work with --cf auto, gen-asm says which mode each kernel got, GenOptions
refuses a bad value in one line, and a backend lowers its own input whoever calls it."""
from __future__ import annotations

import os
import shutil
import subprocess

import pytest

from reconverge.backend.gen import GenOptions, choose_function, compile, compile_gen_kernel
from reconverge.isa.gen9.encoding import encode_program
from reconverge.lowering.errors import CompileError
from reconverge.lowering.ir.printer import print_function
from reconverge.lowering.program import load_program
from reconverge.records import FrozenInstanceError
from tests.lowering.frontend.helpers import HEADER
from tests.test_cli import ROOT, SEED, assert_one_line_error, run

HYBRID = os.path.join(ROOT, "examples", "nested_break.cl")     # auto weighs both pipelines
PICKS_HYBRID = {"-O0": "loop_exits_to_targets", "-O2": "continue_outer"}    # tests/kernels: auto takes the hybrid


def test_auto_dumps_every_pass_of_each_pipeline_it_runs(tmp_path):
    dumps = tmp_path / "dumps"
    proc = run("compile", HYBRID, "--emit", "gen", "--dump-after", "all", "--dump-dir", str(dumps),
               "-o", str(tmp_path / "k.krn"))
    assert proc.returncode == 0, proc.stderr
    names = set(os.listdir(dumps))
    assert "nested_break.gen.02-structurize.tree.dot" in names                 # the tree auto weighed
    assert "nested_break.gen.07-lower_math_edges.nir" in names
    assert "nested_break.gen.09-lower_fma.nir" in names
    assert "nested_break.gen-blockip.05-lower_math_edges.nir" in names         # the CFG it compiled
    assert (tmp_path / "k.krn").stat().st_size > 0


def test_auto_prints_after_a_pass_naming_the_pipeline(tmp_path):
    proc = run("compile", HYBRID, "--emit", "gen-asm", "--print-after", "split_private_selects",
               "-o", str(tmp_path / "k.asm"))
    assert proc.returncode == 0, proc.stderr
    assert "; after split_private_selects (gen)\n" in proc.stderr
    assert "; after split_private_selects (gen-blockip)\n" in proc.stderr


def test_auto_stops_after_a_pass_and_the_backend_lowers_the_rest(tmp_path):
    dumps = tmp_path / "dumps"
    proc = run("compile", SEED, "--emit", "gen-asm", "--stop-after", "promote", "--dump-after", "all",
               "--dump-dir", str(dumps))
    assert proc.returncode == 0, proc.stderr
    names = os.listdir(dumps)
    assert any(".gen.04-promote." in n for n in names)
    assert not any(".gen.05-" in n for n in names), names                      # stopped after promote
    assert "// control flow: " in proc.stdout and "send" in proc.stdout


@pytest.mark.parametrize("level", ["-O0", "-O2"])
def test_gen_asm_names_the_mode_auto_chose_and_iga64_assembles_it(tmp_path, level):
    asm = tmp_path / "k.asm"
    kernel = PICKS_HYBRID[level]
    path = os.path.join(ROOT, "tests", "kernels", f"{kernel}.cl")
    proc = run("compile", path, level, "--emit", "gen-asm", "-o", str(asm))
    assert proc.returncode == 0, proc.stderr
    mode = choose_function(load_program(path, level), kernel)[1].name
    assert mode == "hybrid"
    assert f"// control flow: {mode} (chosen by --cf auto)\n" in asm.read_text()
    if shutil.which("iga64"):
        done = subprocess.run(["iga64", "-p=9", "-a", str(asm), "-o", str(tmp_path / "k.bin")],
                              capture_output=True, text=True)
        assert done.returncode == 0, done.stderr


def test_gen_asm_names_an_explicit_mode():
    proc = run("compile", SEED, "--emit", "gen-asm", "--cf", "blockip", "--simd", "8")
    assert proc.returncode == 0, proc.stderr
    assert "// kernel seed: SIMD8," in proc.stdout and "// control flow: blockip (--cf)\n" in proc.stdout


def test_gen_options_are_frozen_and_checked():
    options = GenOptions(8, "hybrid")
    with pytest.raises(FrozenInstanceError):
        options.simd = 16                                   # type: ignore[misc]
    with pytest.raises(CompileError, match="SIMD32"):
        GenOptions(32)
    with pytest.raises(CompileError, match="unknown control-flow mode 'tree'"):
        GenOptions(cf="tree")


@pytest.mark.parametrize("command", [["compile", SEED, "--emit", "gen"],
                                     ["run", SEED, "--target", "gen", "--global", "16", "--out", "unused"]])
def test_a_bad_simd_width_is_a_one_line_usage_error(command, tmp_path):
    proc = run(*command, "--simd", "32", cwd=tmp_path)
    assert_one_line_error(proc, 2, "--simd", "SIMD32")
    assert not (tmp_path / "unused").exists()


def test_the_gen_backend_lowers_its_own_input():
    """Both backends run their target's lowerings: a generic (unlowered) tree compiles to the bytes the gen
    pipeline's function does, and the driver's copies for gen and generic are separate."""
    program = load_program(SEED, "-O2")
    generic = program.function("seed", "generic")
    before = print_function(generic)
    lowered = compile(program, "seed", GenOptions(16, "structured"))
    assert program.function("seed", "gen") is not generic
    assert print_function(generic) == before                           # lowering a clone left it alone
    unlowered = generic.clone()
    assert encode_program(compile_gen_kernel(unlowered, 16).program) == encode_program(lowered.program)
    assert print_function(unlowered) == print_function(program.function("seed", "gen"))


def test_ir_text_in_structured_form_takes_the_tree_under_auto(tmp_path):
    text = run("compile", HYBRID, "-O2", "--emit", "nir")
    (tmp_path / "k.nir").write_text(text.stdout)
    proc = run("compile", str(tmp_path / "k.nir"), "--emit", "gen-asm")
    assert proc.returncode == 0, proc.stderr
    assert "// control flow: structured (chosen by --cf auto)" in proc.stdout


def test_one_pipeline_lowers_the_generic_tree_itself_and_reads_again_if_asked():
    """A Program for one structured pipeline (the command line's SPIR-V compile) hands that pipeline the
    generic tree instead of a clone; a later request for the generic tree gets a fresh read, not the tree
    the target's passes changed (lower_workitem rewrites this kernel's work-item queries for SPIR-V)."""
    path = os.path.join(ROOT, "tests", "kernels", "work_item_2d.cl")
    shared = load_program(path, "-O2", one_pipeline=True)
    kernel = shared.kernel_names()[0]
    lowered = shared.function(kernel, "spirv")
    plain = load_program(path, "-O2")
    assert print_function(lowered) == print_function(plain.function(kernel, "spirv"))
    generic = shared.function(kernel, "generic")
    assert print_function(generic) == print_function(plain.function(kernel, "generic"))
    assert print_function(generic) != print_function(lowered)


def test_a_function_the_pipeline_lowered_is_not_lowered_again():
    """Gen's legalize_int_widths is not idempotent (narrow loads widened twice gave other, longer code):
    the backend's own lower_for must skip what the driver's pipeline ran."""
    from reconverge.lowering.target import lower_for
    program = load_program(os.path.join(ROOT, "tests", "kernels", "char_short.cl"))
    func = program.function("char_short", "gen")
    before = print_function(func)
    lower_for([func], "gen")
    assert print_function(func) == before
    clone = func.clone()
    lower_for([clone], "gen")
    assert print_function(clone) == before


@pytest.mark.parametrize("level, shared", [("-O2", 1), ("-O0", 0)])
def test_auto_reads_a_kernel_once_where_sroa_has_nothing_to_change(monkeypatch, level, shared):
    """--cf auto weighs the tree against the CFG: at -O2 (no private variable left) both come from one
    read, and the CFG so shared prints as a read of the SROA'd module would; at -O0 (allocas) the CFG is
    read again, from the module SROA promoted."""
    import reconverge.lowering.frontend.llvm_reader as reader
    reads = []
    real = reader.read_kernels
    monkeypatch.setattr(reader, "read_kernels", lambda *a, **k: reads.append(1) or real(*a, **k))
    program = load_program(HYBRID, level)
    assert compile(program, "nested_break").mode == "structured"     # weighed against the hybrid (cost.py)
    assert (len(reads), program.reads_shared) == (2 - shared, shared)
    fresh = load_program(HYBRID, level).function("nested_break", "gen-blockip")
    assert print_function(program.function("nested_break", "gen-blockip")) == print_function(fresh)


def test_auto_shares_the_read_of_a_kernel_with_private_variables_where_preparing_changed_nothing(monkeypatch):
    """private_sort keeps its private array at -O2, but nothing in the file is inlined and SROA would change
    nothing (sroa_check): both pipelines read one module object, so --cf auto reads the kernel once (and,
    sharing the read, may leave the hybrid unweighed: cost.hybrid_may_win); the CFG taken from that read
    prints as a fresh read of it."""
    import reconverge.lowering.frontend.llvm_reader as reader
    reads = []
    real = reader.read_kernels
    monkeypatch.setattr(reader, "read_kernels", lambda *a, **k: reads.append(1) or real(*a, **k))
    path = os.path.join(ROOT, "examples", "bench", "control_flow.cl")
    program = load_program(path, "-O2")
    assert compile(program, "private_sort").mode == "structured"
    assert program.shares_read("private_sort", "gen-blockip")
    cfg = program.function("private_sort", "gen-blockip")
    assert (len(reads), program.reads_shared) == (1, 1)
    assert any(ins.opcode == "alloca" for block in cfg.blocks for ins in block.instrs)
    assert print_function(cfg) == print_function(load_program(path, "-O2").function("private_sort", "gen-blockip"))


_SORT_AND_SCALAR = HEADER + """
define spir_kernel void @sort(ptr addrspace(1) %out, i32 %n) {
entry:
  %a = alloca [8 x i32], align 4
  %i = zext i32 %n to i64
  %p = getelementptr inbounds i32, ptr %a, i64 %i
  store i32 %n, ptr %p, align 4
  %v = load i32, ptr %p, align 4
  store i32 %v, ptr addrspace(1) %out, align 4
  ret void
}

define spir_kernel void @scalar(ptr addrspace(1) %out, i32 %n) {
entry:
  %s = alloca i32, align 4
  store i32 %n, ptr %s, align 4
  %v = load i32, ptr %s, align 4
  store i32 %v, ptr addrspace(1) %out, align 4
  ret void
}
"""


def test_auto_shares_a_read_where_sroa_would_leave_that_kernel_alone_whatever_the_others_need(monkeypatch, tmp_path):
    """SROA is a function pass: in a module where it promotes one kernel's scalar, another kernel's array
    that it gives up on (sroa_check) reads alike from both modules, so that kernel's CFG is a copy of its
    tree's read, and prints as a read of the module LLVM's SROA rewrote; the scalar's kernel is read
    again."""
    import reconverge.lowering.frontend.llvm_reader as reader
    path = tmp_path / "two.ll"
    path.write_text(_SORT_AND_SCALAR)
    reads = []
    real = reader.read_kernels
    monkeypatch.setattr(reader, "read_kernels", lambda *a, **k: reads.append(a[2]) or real(*a, **k))
    program = load_program(str(path))
    for kernel in ("sort", "scalar"):
        program.function(kernel, "gen", then="gen-blockip")
    assert program.shares_read("sort", "gen-blockip") and not program.shares_read("scalar", "gen-blockip")
    shared = program.function("sort", "gen-blockip")
    assert program.reads_shared == 1 and any(i.opcode == "alloca" for b in shared.blocks for i in b.instrs)
    fresh = load_program(str(path)).function("sort", "gen-blockip")
    assert print_function(shared) == print_function(fresh)
    program.function("scalar", "gen-blockip")
    assert reads == ["sort", "scalar", "sort", "scalar"]


@pytest.mark.parametrize("kernel, weighed, mode", [("count_words", False, "structured"), ("gcd", False, "structured"),
                                                   ("multi_exit", True, "hybrid"), ("skip_continue", False, "structured")])
def test_auto_weighs_a_guard_free_tree_only_where_its_exit_arms_could_pay(monkeypatch, kernel, weighed, mode):
    """A tree without guard variables has the CFG's own ifs and loops, so the hybrid can save only the ifs
    around arms that leave a loop (and a little elsewhere: cost.hybrid_may_win). count_words and gcd pass
    the branches-and-moves test but have no such arm worth it, nor has skip_continue (one exit arm in
    its loop, where the hybrid would save 0.15 of the tree, short of the margin's 0.25): auto selects
    only the tree, and the binary is --cf structured's; multi_exit's four exits are weighed and the
    hybrid is taken."""
    import reconverge.backend.gen.isel as isel
    from reconverge.backend.gen.cost import exit_arm_cost, hybrid_may_win
    calls = []
    real = isel.select
    monkeypatch.setattr(isel, "select", lambda *a, **k: calls.append(a[0]) or real(*a, **k))
    path = os.path.join(ROOT, "examples", "bench", "control_flow.cl")
    program = load_program(path, "-O2")
    auto = compile(program, kernel, GenOptions(16, "auto"))
    assert (auto.mode, len(calls)) == (mode, 2 if weighed else 1)
    tree = calls[0]
    assert not tree.guard_variables and program.shares_read(kernel, "gen-blockip") == (not weighed)
    mfunc = real(tree, 16).mfunc
    assert hybrid_may_win(mfunc) and hybrid_may_win(mfunc, guarded=False) == weighed
    assert (exit_arm_cost(mfunc) > 0) == (kernel != "count_words" and kernel != "gcd")
    if not weighed:
        structured = compile(load_program(path, "-O2"), kernel, GenOptions(16, "structured"))
        assert encode_program(auto.program) == encode_program(structured.program)


def test_a_compile_runs_with_the_collector_tuned_and_leaves_it_as_it_was(monkeypatch, tmp_path):
    """The command line's compile freezes the objects of the imported compiler and collects young objects
    less often (lowering/gcpause.tuned_for_compile), and undoes both: an in-process caller keeps its own."""
    import gc

    import reconverge.tools.cli as cli
    from reconverge.lowering.gcpause import COMPILE_THRESHOLD
    seen = []
    real = cli.load_source
    monkeypatch.setattr(cli, "load_source", lambda *a, **k: seen.append((gc.get_threshold()[0],
                                                                         gc.get_freeze_count())) or real(*a, **k))
    before = (gc.get_threshold(), gc.get_freeze_count())
    assert cli.main(["compile", SEED, "--emit", "gen", "-o", str(tmp_path / "k.krn")]) == 0
    assert seen[0][0] == COMPILE_THRESHOLD and seen[0][1] > 0
    assert (gc.get_threshold(), gc.get_freeze_count()) == before


@pytest.mark.parametrize("cf, selections", [("auto", 2), ("structured", 1), ("hybrid", 1)])
def test_a_kernel_is_selected_once_per_mode_it_weighs(monkeypatch, cf, selections):
    """--cf auto selects the tree and the hybrid once each to weigh them and compiles the winner from its
    selection (a third selection of the chosen mode used to follow); an explicit mode selects once."""
    import reconverge.backend.gen.isel as isel
    calls = []
    real = isel.select
    monkeypatch.setattr(isel, "select", lambda *a, **k: calls.append(1) or real(*a, **k))
    compile(load_program(HYBRID, "-O2"), "nested_break", GenOptions(16, cf))
    assert len(calls) == selections


@pytest.mark.parametrize("level, selections", [("-O2", 1), ("-O0", 2)])
def test_auto_selects_only_the_tree_where_the_hybrid_cannot_win(monkeypatch, level, selections):
    """gcd_lcm's loops at -O2: the tree's branches and moves are too small a part of its cost for the
    hybrid, made from the same read, to reach the margin (cost.hybrid_may_win), so auto neither makes the
    CFG's pipeline nor selects it; at -O0 the CFG is read from the SROA'd module (other values), and
    auto weighs both as before. The binary is the one --cf structured makes either way."""
    import reconverge.backend.gen.isel as isel
    from reconverge.backend.gen.cost import hybrid_may_win
    from reconverge.isa.gen9.encoding import encode_program
    calls = []
    real = isel.select
    monkeypatch.setattr(isel, "select", lambda *a, **k: calls.append(a[0]) or real(*a, **k))
    path = os.path.join(ROOT, "tests", "kernels", "gcd_lcm.cl")
    program = load_program(path, level)
    auto = compile(program, "gcd_lcm", GenOptions(16, "auto"))
    assert (auto.mode, len(calls)) == ("structured", selections)
    assert not hybrid_may_win(isel.select(calls[0], 16).mfunc)
    assert ((program.function("gcd_lcm", "gen") is calls[0]) and
            (("gcd_lcm", "gen-blockip") in program._functions) == (selections == 2))
    structured = compile(load_program(path, level), "gcd_lcm", GenOptions(16, "structured"))
    assert encode_program(auto.program) == encode_program(structured.program)

