"""Kernels written to break the scopes rule above -O0 (tests/kernels_fuzzconv/redteam_*.cl: a sub-group
operation on a loop's break path, or in the loop where -O2 sinks it onto one, in the shapes LLVM deletes,
unrolls, rotates, predicates, unswitches or inlines twice). Each agrees with -O0 lane by lane or is refused
in one line (skipped), never a silent wrong answer; lowering/frontend/removed_loops.py."""
from __future__ import annotations

import glob
import os

import pytest

from reconverge.lowering.errors import CompileError
from reconverge.lowering.program import load_program
from reconverge.tools.fuzz.generator import ARG_NAMES, FuzzProgram
from reconverge.tools.fuzz.runner import Config, ProgramRun
from tests.test_fuzz_convergence import _kept, _kept_run

HERE = os.path.join(os.path.dirname(os.path.abspath(__file__)), "kernels_fuzzconv")
KERNELS = sorted(glob.glob(os.path.join(HERE, "redteam_*.cl")))
# loops written with goto have no loop statement: removed_loops spans their code instead
GOTO_LOOPS = ("redteam_c05_goto_loop.cl", "redteam_c06_goto_loop_braced.cl")


def _program_run(path: str, tmp_path, n: int) -> ProgramRun:
    """A kernel file as a convergence-mode program (compiled with -g), 32 work-items in groups of 16."""
    with open(path, encoding="utf-8") as f:
        source = f.read()
    program = FuzzProgram(1, "convergence", source, "cl", 32, 16, n_arg=n, arg_names=list(ARG_NAMES),
                          uses_subgroups=True, build_options=("-g",))
    return ProgramRun(program, str(tmp_path))


def _run(path: str, tmp_path, n: int) -> list:
    run = _program_run(path, tmp_path, n)
    return [run.run(c) for c in (Config("ir", "-O0"), Config("ir", "-O2"), Config("ir", "-O3"),
                                 Config.parse("gen-O2-simd8-hybrid"))]


@pytest.mark.parametrize("path", KERNELS, ids=lambda p: os.path.basename(p)[8:-3])
def test_an_optimised_loop_meets_lanes_as_written_or_is_refused(path, tmp_path):
    outcomes = _run(path, tmp_path, 5)
    assert all(o.status in ("ok", "skipped") for o in outcomes[1:]), [(o.config, o.message) for o in outcomes]


@pytest.mark.parametrize("name", GOTO_LOOPS)
def test_a_goto_loop_deleted_by_llvm_is_refused(name):
    """A loop written with goto has no `!llvm.loop`; -O1 and above delete it (its one exit's count is
    known) and the reduction on its break path would meet the lanes of every pass. removed_loops takes the
    span of its code in clang's module before its passes for its range: the kernel is refused naming it."""
    with pytest.raises(CompileError, match=r"@k: block \w+: subgroup: its -g scope puts it in the loop at "
                                           rf"{name}:\d+ \(written with goto\), which the optimiser removed"):
        load_program(os.path.join(HERE, name), "-O2", build_options=("-g",)).functions_for("generic", ["k"])


def test_a_goto_loop_llvm_keeps_meets_lanes_per_pass_at_O2(tmp_path):
    """The same shape with an exit LLVM cannot count: the goto loop stays, is matched by its span, and every
    target agrees with -O0's per-pass reduction."""
    outcomes = _run(os.path.join(HERE, "scopes_goto_loop_kept.cl"), tmp_path, 5)
    assert [o.status for o in outcomes] == ["ok"] * 4, [(o.config, o.message) for o in outcomes]


def test_a_goto_loop_with_code_in_two_files_is_refused_where_deleted_and_kept_where_kept(tmp_path):
    """Redteam2 g02: a `#line` naming another file inside a goto loop put the reduction (and the loop's
    increment) in that file, outside the span taken in the loop's first file, and -O2's deleted loop went
    unnoticed. Code in two files has no order across them: the span is every file's part of the function."""
    with pytest.raises(CompileError, match=r"in the loop at redteam2_g02_goto_loop_line_file\.cl:\d+ \(its code "
                                           r"in 2 files, by #line\), which the optimiser removed"):
        load_program(os.path.join(HERE, "redteam2_g02_goto_loop_line_file.cl"), "-O2",
                     build_options=("-g",)).functions_for("generic", ["k"])
    outcomes = _run(os.path.join(HERE, "scopes_goto_loop_kept_line_file.cl"), tmp_path, 5)
    assert [o.status for o in outcomes] == ["ok"] * 4, [(o.config, o.message) for o in outcomes]


def test_fuzz_23120_a_loop_llvm_would_end_in_closed_form_still_meets_its_lanes_per_iteration_at_O2(tmp_path):
    """The same kernel at -O2 -g: the loop's exits are computable, so IndVarSimplify rewrote each into a test
    before the loop (exit predication) and the loop went; the reduction on its break path ran once with the
    lanes of every iteration together, where -O0 (the scopes rule) meets them per iteration (ir, spirv and
    gen agreed with each other, not with -O0). clang's module before its passes names the source loop
    (lowering.frontend.removed_loops); the file is compiled again without exit predication and unrolling,
    the loop stays, and -O2 agrees with -O0."""
    from reconverge.lowering.pipeline import load_module
    assert load_module(_kept("scopes_dead_increment_23120.cl"), "-O2", ("-g",)).removed_loops == ()
    run = _kept_run("scopes_dead_increment_23120.cl", 23120, 64, 16, 6, tmp_path)
    outcomes = [run.run(Config.parse(c)) for c in ("ir-O0", "ir-O2", "spirv-O2", "gen-O2-simd16-structured")]
    assert [o.status for o in outcomes] == ["ok"] * 4, [o.message for o in outcomes]


def test_a_loop_llvm_deletes_outright_is_refused_at_O2(tmp_path):
    """A one-exit loop each lane leaves at its own iteration with a reduction (the generator's closed_loop,
    fuzz convergence-18): LoopDeletion removes it at -O2 even compiled again, so the kernel is refused in
    one line naming the loop; -O0 and --convergence=cfg compile it."""
    path = _kept("scopes_one_exit_loop_removed.cl")
    with pytest.raises(CompileError, match=r"@k: block \w+: subgroup: its -g scope puts it in the loop at "
                                           r"scopes_one_exit_loop_removed.cl:9, which the optimiser removed"):
        load_program(path, "-O2", build_options=("-g",)).function("k")
    load_program(path, "-O0", build_options=("-g",)).function("k")
    load_program(path, "-O2", build_options=("-g",), convergence="cfg").function("k")


def test_fuzz_27926_every_pipeline_refuses_a_loop_llvm_removed(tmp_path):
    """Fuzz convergence-27926 at -O2 -g: ir, spirv and Gen's structured pipeline refused the kernel, but Gen's
    CFG pipeline reads a copy of the module through SROA (a private array), the copy lost the removed loop,
    and blockIP and the hybrid ran the merged iterations' answer. The copy keeps it now."""
    run = _kept_run("scopes_removed_loop_private_27926.cl", 27926, 32, 16, 1, tmp_path)
    configs = ("ir-O0", "ir-O2", "gen-O2-simd16-structured", "gen-O2-simd16-blockip", "gen-O2-simd8-hybrid",
               "gen-O2-simd16-auto")
    outcomes = [run.run(Config.parse(c)) for c in configs]
    assert [o.status for o in outcomes] == ["ok"] + ["skipped"] * 5, [o.message for o in outcomes]
    assert all("which the optimiser removed" in o.message for o in outcomes[1:])


def test_fuzz_27368_a_loop_rotation_would_merge_into_its_break_path_is_kept_unrotated(tmp_path):
    """Fuzz convergence-27368 at -O2 -g: the loop was unrolled away (detected: removed_loops) and, compiled
    again without unrolling, rotated: the copy of its first pass's test before the loop led to the break
    path's reduction, which the loop's header then did not dominate, so the scopes rule did not anchor it and
    it met the lanes of every pass (ir, spirv and gen agreed with each other, not with -O0). A file with
    such a loop is compiled again without rotation too, and a rotated copy that still reaches an operation
    is refused (test_a_break_path_reached_from_before_its_loop_is_refused)."""
    run = _kept_run("scopes_rotated_guard_27368.cl", 27368, 32, 16, 1, tmp_path)
    configs = ("ir-O0", "ir-O2", "spirv-O2", "gen-O2-simd16-structured", "gen-O2-simd8-hybrid")
    outcomes = [run.run(Config.parse(c)) for c in configs]
    assert [o.status for o in outcomes] == ["ok"] * 5, [o.message for o in outcomes]


def test_a_break_path_reached_from_before_its_loop_is_refused(tmp_path):
    """The same kernel as LLVM rotates it (clang -O2 without unrolling or exit predication), read as it is:
    its reduction is reached from the loop's exit and from the rotated copy of the first test before it."""
    from reconverge.lowering.frontend.clang import compile_opencl
    path = tmp_path / "rotated.ll"
    path.write_text(compile_opencl(_kept("scopes_rotated_guard_27368.cl"), "-O2",
                                   ("-g", "-fno-unroll-loops", "-mllvm", "-indvars-predicate-loops=0")))
    with pytest.raises(CompileError, match=r"@k: block \w+: subgroup: its -g scope puts it in the loop at block "
                                           r"\w+, but -O2 also reaches it from before the loop"):
        load_program(str(path), "-O0").function("k")


def test_fuzz_26432_the_llvm_reference_declines_a_loop_llvm_removed(tmp_path):
    """Fuzz convergence-26432 at -O2 -g (the generator's closed_loop): the targets refused the kernel, but the
    llvm reference followed -O2's CFG, where the loop is gone, and gave the merged iterations' answer (a
    mismatch against -O0). It declines as it does where the scopes move an operation; the fuzz counts the
    refusal as skipped (a limit by design), not as a failure."""
    run = _kept_run("scopes_one_exit_loop_removed.cl", 26432, 32, 16, 1, tmp_path)
    outcomes = [run.run(Config.parse(c)) for c in ("llvm-O0", "ir-O0", "llvm-O2", "ir-O2", "spirv-O2")]
    assert [o.status for o in outcomes] == ["skipped", "ok", "skipped", "skipped", "skipped"], \
        [o.message for o in outcomes]
    assert "cannot run it as -g's scopes say" in outcomes[2].message
    assert "which the optimiser removed" in outcomes[3].message


@pytest.mark.parametrize("name, seed, sizes", [
    ("scopes_switch_continue_28376.cl", 28376, (64, 64, 6)),
    ("scopes_switch_continue_29708.cl", 29708, (16, 8, 4)),
    ("scopes_switch_continue_30644.cl", 30644, (64, 64, 6)),
], ids=["28376", "29708", "30644"])
def test_a_continue_in_a_switch_runs_the_loop_as_written_at_O2(name, seed, sizes, tmp_path):
    """Fuzz convergence-28376, 29708, 30644 (campaigns 28 and 29): a `switch` whose one case is `continue`,
    in a loop with a sub-group operation. At -O2 SimplifyCFG makes the switch a conditional branch back to
    the loop's shared latch, written deeper in the scopes than the loop's own back edge, and
    loop_separation took it for a nested do/while's test: the lanes that continued ran the next pass's
    operation without the others, on ir, spirv and gen alike. A loop statement's range must now hold the
    inner branches and not the outer ones."""
    run = _kept_run(name, seed, *sizes, tmp_path)
    configs = ("ir-O0", "ir-O2", "spirv-O2", "gen-O2-simd16-hybrid", "gen-O2-simd8-blockip")
    outcomes = [run.run(Config.parse(c)) for c in configs]
    assert [o.status for o in outcomes] == ["ok"] * len(configs), [o.message for o in outcomes]


def test_the_generator_writes_goto_loops_and_a_deleted_one_is_refused(tmp_path):
    """The fuzz generator's goto_loop (convergence mode) reaches the class of redteam c05: fuzz
    convergence-31042, whose goto loop -O2 deletes, ran its operation with the lanes of every pass on every
    target before goto loops had a range; now -O0 runs and -O2 refuses in one line."""
    from reconverge.tools.fuzz.generator import generate
    assert sum("goto yl1;" in generate(seed, "convergence").source for seed in range(31000, 31100)) >= 3
    run = _kept_run("scopes_goto_loop_removed_31042.cl", 31042, 16, 8, 6, tmp_path)
    outcomes = [run.run(Config.parse(c)) for c in ("ir-O0", "ir-O2", "gen-O2-simd8-hybrid")]
    assert [o.status for o in outcomes] == ["ok", "skipped", "skipped"], [o.message for o in outcomes]
    assert "which the optimiser removed" in outcomes[1].message


def test_the_generator_writes_line_directives_and_a_goto_loop_across_files_is_refused_where_deleted(tmp_path):
    """The generator's `#line` (convergence mode, even seeds) reaches redteam2 g02's class: fuzz
    convergence-158 puts one before a goto loop's operation; -O2 deletes the loop, and the kernel is refused
    naming the loop's two files. Odd seeds (token IR, whose loops tokens.py finds by source line) draw none."""
    from reconverge.tools.fuzz.generator import generate
    sources = {seed: generate(seed, "convergence").source for seed in range(150, 250)}
    assert not any("#line" in sources[seed] for seed in sources if seed % 2)
    in_goto_loop = [seed for seed, text in sources.items()
                    if "#line" in text.split("yl1:", 1)[-1].split("goto yl1;", 1)[0] and "yl1:" in text]
    assert len(in_goto_loop) >= 3, in_goto_loop
    run = _kept_run("scopes_goto_loop_line_file_158.cl", 158, 16, 8, 4, tmp_path)
    outcomes = [run.run(Config.parse(c)) for c in ("ir-O0", "ir-O2", "gen-O2-simd8-hybrid")]
    assert [o.status for o in outcomes] == ["ok", "skipped", "skipped"], [o.message for o in outcomes]
    assert "(its code in 2 files, by #line), which the optimiser removed" in outcomes[1].message


@pytest.mark.parametrize("name, seed, sizes", [
    ("scopes_goto_loop_hoisted_init_36562.cl", 36562, (32, 16, 5)),
    ("scopes_goto_loop_hoisted_init_36742.cl", 36742, (64, 64, 1))], ids=["36562", "36742"])
def test_an_operation_after_a_goto_loop_keeps_its_scope_when_O2_hoists_the_loops_initialisation(
        tmp_path, name, seed, sizes):
    """A goto loop whose initialisation (`yk = ...; yj = 0;`) runs before it in its braces, and a reduction
    after it there: -O0's lexical rule meets every lane at the reduction (code in the braces runs before
    the loop, so they are not its body). -O2 hoists that code out of the loops without a location, the
    braces then held nothing before the loop, and the reduction met the lanes per pass of the goto loop on
    every target. The goto loop's span in clang's module before its passes (removed_loops) is now its
    range at -O2 (source_scopes._LoopRanges)."""
    run = _kept_run(name, seed, *sizes, tmp_path)
    outcomes = [run.run(Config.parse(c)) for c in ("ir-O0", "ir-O2", "spirv-O2", "gen-O2-simd16-hybrid")]
    assert [o.status for o in outcomes] == ["ok"] * 4, [(o.config, o.message) for o in outcomes]


def test_a_nested_loops_exit_into_the_shared_latch_is_no_merged_loops_back_edge(tmp_path):
    """At -O2 a `while` in an `if` in a `for (;;)` exits into the for's latch, which the if's else reaches
    too. Loop separation took the while's exit test (a conditional branch deeper than the if's) for the
    back edge of a `do` LLVM had merged into the for, split the for's header, and lanes that took the if
    went round again without those that had not: the reduction met other lanes than at -O0 on every
    target (fuzz convergence-50046). A branch in a nested CFG loop leaves that loop; it is now never a
    merged loop's back edge (loop_separation._split_one)."""
    run = _kept_run("scopes_while_exit_into_shared_latch_50046.cl", 50046, 64, 16, 6, tmp_path)
    outcomes = [run.run(Config.parse(c)) for c in ("ir-O0", "ir-O2", "spirv-O2", "gen-O2-simd16-hybrid")]
    assert [o.status for o in outcomes] == ["ok"] * 4, [(o.config, o.message) for o in outcomes]


def test_a_waterfall_loop_moved_after_its_loops_exit_is_pulled_back_in(tmp_path):
    """-O2 moves a waterfall loop written in a for loop's body after that loop's exit, before an operation of
    the for; the waterfall's own anchor was a token from elsewhere to the convergence pass, which refused
    the pull (fuzz convergence-51088, 51131, 51270: 3 of 385 programs of campaign 41, ir/spirv/gen). An
    anchor means the same inside the loop (passes/convergence._moves_along)."""
    run = _kept_run("scopes_waterfall_moved_after_exit_51088.cl", 51088, 64, 64, 6, tmp_path)
    outcomes = [run.run(Config.parse(c)) for c in ("ir-O0", "ir-O2", "spirv-O2", "gen-O2-simd16-hybrid")]
    assert [o.status for o in outcomes] == ["ok"] * 4, [(o.config, o.message) for o in outcomes]


def test_a_kept_loop_is_not_taken_for_removed_by_its_phis_locations(tmp_path):
    """Fuzz convergence-31080: a phi's location is its variable's declaration (mem2reg's), before the loop;
    removed_loops counted it as the optimised loop's code, found code outside the source loop's range, and
    refused a kernel whose loops all stayed. Phis are not code written anywhere: it compiles and agrees."""
    run = _kept_run("scopes_phi_location_kept_loop_31080.cl", 31080, 64, 16, 2, tmp_path)
    outcomes = [run.run(Config.parse(c)) for c in ("ir-O0", "ir-O2", "gen-O2-simd16-structured")]
    assert [o.status for o in outcomes] == ["ok"] * 3, [o.message for o in outcomes]


# the second red team's kernels (2026-11-27): the rules of that day (loop_separation's statement rule, goto
# loops' ranges, one-pass bounds) attacked; 12 were silent wrong answers above -O0, all now fixed
REDTEAM2 = sorted(glob.glob(os.path.join(HERE, "redteam2_*.cl")))


@pytest.mark.parametrize("path", REDTEAM2, ids=lambda p: os.path.basename(p)[9:-3])
def test_the_second_red_team_kernels_meet_lanes_as_written_or_are_refused(path, tmp_path):
    outcomes = _run(path, tmp_path, 1)
    assert outcomes[0].status == "ok", outcomes[0].message
    assert all(o.status in ("ok", "skipped") for o in outcomes[1:]), [(o.config, o.message) for o in outcomes]


def test_blockip_keeps_an_inner_loop_exit_that_goes_back_waiting_for_the_inner_loop(tmp_path):
    """Redteam2 b01: a reduction in a one-pass `for` with a `break` before it, at the end of a `while`. At
    -O2 the `for`'s exit branches straight back to the `while`'s header; blockIP jumped back as soon as a
    lane broke out, the broken lanes ran the next `while` pass and met the lanes still waiting at the
    reduction. The outer loop now goes back through one latch laid out after the inner loop."""
    run = _program_run(os.path.join(HERE, "redteam2_b01_blockip_break_once_for.cl"), tmp_path, 1)
    configs = ("ir-O0", "gen-O2-simd8-blockip", "gen-O2-simd16-blockip", "gen-O2-simd16-hybrid")
    outcomes = [run.run(Config.parse(c)) for c in configs]
    assert [o.status for o in outcomes] == ["ok"] * 4, [o.message for o in outcomes]
