"""`reconverge fuzz` (tools/fuzz/): the generator is deterministic and writes programs clang accepts with
-Werror; the plan, shards and gen coverage are what the help promises; the worker pool turns a hanging or
crashing target into one reported configuration; and a fixed-seed slice of every mode agrees on every
target (the on-demand campaigns are `reconverge fuzz -n ...`)."""
from __future__ import annotations

import dataclasses
import os
import re
import signal
import subprocess
import time

import numpy as np
import pytest

from reconverge.tools.fuzz.command import DEFAULT_MODES, program_plan
from reconverge.tools.fuzz.generator import MODES, FuzzProgram, generate
from reconverge.tools.fuzz.pool import Job, run_jobs
from reconverge.tools.fuzz.runner import GEN_COMBOS, LEVELS, Config, ProgramRun, configs_for, gen_combos_for

CL_MODES = [m for m in MODES if m != "cfg"]


@pytest.mark.parametrize("mode", MODES)
def test_generator_is_deterministic(mode):
    assert generate(7, mode).source == generate(7, mode).source
    assert generate(7, mode).source != generate(8, mode).source
    a, b = generate(7, mode).make_args(), generate(7, mode).make_args()
    assert all(np.array_equal(x, y) for x, y in zip(a, b))


@pytest.mark.parametrize("mode", CL_MODES)
def test_generated_programs_compile_with_werror(mode, tmp_path):
    """clang-22 with -Werror: no warning about what the generator wrote (self-comparisons, constant
    switches, implicit conversions, shifts out of range, ...)."""
    for seed in range(6):
        path = tmp_path / f"{mode}-{seed}.cl"
        program = generate(seed, mode)
        path.write_text(program.cl_source or program.source)        # convergence: its IR's OpenCL C
        proc = subprocess.run(["clang-22", "-x", "cl", "-cl-std=CL3.0", "-Xclang", "-finclude-default-header",
                               "-target", "spir64", "-fsyntax-only", "-Werror", str(path)],
                              capture_output=True, text=True)
        assert proc.returncode == 0, f"{mode} seed {seed}: {proc.stderr[:500]}"


def test_modes_select_their_features():
    sources = {m: "".join(generate(s, m).source for s in range(8)) for m in CL_MODES}
    assert "barrier(" in sources["barrier"] and "barrier(" not in sources["basic"]
    assert "atomic_" in sources["atomic"] and "atomic_" not in sources["vector"]
    vector_variable = re.compile(r"\buint4 w\d")        # (int_builtin's vectors are in every mode)
    assert vector_variable.search(sources["vector"]) and not vector_variable.search(sources["basic"])
    assert "goto " in sources["goto"] and "goto " not in sources["basic"]
    assert all(k in sources["all"] for k in ("barrier(", "atomic_", "uint4", "goto ", "fapprox[", "sub_group_"))
    assert "sub_group_" in sources["subgroup"] and "sub_group_" not in sources["goto"]
    assert "#pragma OPENCL FP_CONTRACT OFF" in sources["basic"]


def test_shards_split_the_campaign_disjointly():
    whole = program_plan(50, 1000, ("basic", "goto"), (1, 1))
    parts = [program_plan(50, 1000, ("basic", "goto"), (k, 3)) for k in (1, 2, 3)]
    assert sorted(p for part in parts for p in part) == sorted(whole)
    assert len({p for part in parts for p in part}) == 50
    assert program_plan(50, 1000, ("basic", "goto"), (2, 3)) == parts[1]


def test_every_gen_combination_is_covered_equally():
    for level in LEVELS:
        seen = [c for seed in range(8) for c in gen_combos_for(seed, 1, level)]
        assert sorted(seen) == sorted(GEN_COMBOS)
    assert gen_combos_for(3, 8, "-O2") == list(GEN_COMBOS)


def test_configuration_names_round_trip():
    program = generate(3, "basic")
    configs = configs_for(program, 3, ("llvm", "ir", "spirv", "gen", "opencl"), 2)
    assert configs[0] == Config("llvm", "-O0")
    assert [Config.parse(c.name) for c in configs] == configs
    assert sum(c.target == "gen" for c in configs) == 4
    with pytest.raises(ValueError):
        Config.parse("gen-O2-simd4-blockip")


def _hang(*_args):
    time.sleep(600)


def _die(*_args):
    os.kill(os.getpid(), signal.SIGSEGV)


def test_pool_reports_a_hang_and_a_crash_and_goes_on(monkeypatch):
    """Fake targets that never end or kill their process cost one configuration each; the configurations
    after them still run in a fresh worker."""
    from reconverge.tools.targets import harness
    monkeypatch.setitem(harness.TARGETS, "hang", _hang)
    monkeypatch.setitem(harness.TARGETS, "die", _die)
    program = generate(1, "basic", size=3)
    configs = [Config("llvm", "-O0"), Config("hang", "-O0"), Config("die", "-O0"), Config("ir", "-O0")]
    seen, done = [], []
    run_jobs(iter([Job(1, program, configs)]), 1, 5.0, lambda job, o: seen.append((o.config, o.status)),
             done.append, lambda: False)
    assert dict(seen) == {"llvm-O0": "ok", "hang-O0": "timeout", "die-O0": "crash", "ir-O0": "ok"}
    assert len(done) == 1


def test_two_entry_loops_count_every_pass_in_their_condition():
    """A loop entered in its middle keeps its guard count in the `while` condition: a `continue` before
    the middle label jumps straight to the condition, so a count at the label could be skipped forever
    (campaign seed 1292 never ended on the reference)."""
    import re
    loops = 0
    for seed in range(400):
        source = generate(seed, "goto").source
        for mid in re.findall(r"goto (M\d+);", source):
            loops += 1
            label = source.index(f"{mid}:")
            after = source[label:]
            assert re.match(rf"{mid}:\n\s*\{{", after), f"seed {seed}: {mid}"
            assert re.search(r"\} while \(\+\+g\d+ < \d+u && ", after), f"seed {seed}: {mid}"
    assert loops > 20


def test_campaign_seed_1292_ends_on_the_reference():
    program = generate(1292, "goto")
    seen: list[tuple[str, str]] = []
    run_jobs(iter([Job(1292, program, [Config("llvm", "-O0")])]), 1, 120.0,
             lambda job, o: seen.append((o.config, o.status)), lambda job: None, lambda: False)
    assert seen == [("llvm-O0", "ok")]


# two programs of every mode (seeds 2001-2014 of the default campaign: program_plan), about a minute of
# CPU together; the same configurations as `reconverge fuzz -n 14 --seed 2001`
SLICE = program_plan(14, 2001, DEFAULT_MODES, (1, 1))


# the targets that run sub-group operations (all but opencl: Debian's PoCL lacks cl_khr_subgroups)
SUBGROUP_TARGETS = ("llvm", "ir", "spirv", "gen")


@pytest.mark.parametrize("seed,mode", SLICE, ids=lambda v: str(v))
def test_fixed_seed_slice_agrees_on_every_target(seed, mode, tmp_path):
    program = generate(seed, mode)
    run = ProgramRun(program, str(tmp_path))
    targets = SUBGROUP_TARGETS if program.uses_subgroups else ("llvm", "ir", "spirv", "gen")
    outcomes = [run.run(c) for c in configs_for(program, seed, targets, 1)]
    assert sum(c.target == "gen" for c in configs_for(program, seed, ("gen",), 1)) == 2
    bad = [f"{o.config}: {o.status}: {o.message}" for o in outcomes if o.status not in ("ok", "skipped")
           and not _lavapipe_lacks_clustered(o)]
    assert not bad, f"{program.name}: " + "; ".join(bad)
    if not program.irreducible:
        assert all(o.status == "ok" or _lavapipe_lacks_clustered(o) for o in outcomes)


def _lavapipe_lacks_clustered(outcome) -> bool:
    """lavapipe reports no clustered sub-group operations: such a program is not for it (runner.py)."""
    return outcome.status == "unavailable" and "'clustered'" in outcome.message


def test_all_mode_programs_are_the_same_with_sub_group_statements_added():
    """Sub-group statements come from their own random stream: without them an `all` program is the one
    it was before (its fuzz regressions and campaign results stay meaningful)."""
    import re

    from reconverge.tools.fuzz import generator
    for seed in range(6):
        program = generator.generate(seed, "all")
        plain = program.source.split("\n")
        kept = [line for line in plain if "sub_group_" not in line and not re.match(r"\s*uint4 sgb\d+ =", line)]
        saved = dict(generator.FEATURES)
        try:
            generator.FEATURES["all"] = generator.FEATURES["all"] - {"subgroup"}
            before = generator.generate(seed, "all").source.split("\n")
        finally:
            generator.FEATURES.update(saved)
        assert kept == before, seed


def test_float_sub_group_arithmetic_never_meets_a_negative_zero():
    """A float min/max over -0.0 and +0.0 may answer either zero (fuzz subgroup-20219: a scan's order is
    unspecified), and a sum of -0.0s is +0.0 or -0.0 as the identity is added in or not (fuzz
    convergence-25163), so a float variable goes in as `f + 0.0f`, which is never -0.0; the other operand
    form converts an integer, never -0.0 either."""
    import re
    seen = 0
    for mode in ("subgroup", "all"):
        for seed in range(120):
            for m in re.finditer(r"sub_group_\w*_(?:min|max|add)\((f\d+[^;]*?)\)\);", generate(seed, mode).source):
                assert m.group(1).endswith(" + 0.0f"), (mode, seed, m.group())
                seen += 1
    assert seen > 5                       # the slice does hold such operations


# sub-group programs of the subgroup mode (operations in divergent code in each) at the sub-group sizes
# of their configurations; and of the all mode, one of them (5) in irreducible control flow, which the llvm
# reference declines (its reference is then ir -O0's)
SUBGROUP_SLICE = [(3, "subgroup"), (8, "subgroup"), (5, "all")]


@pytest.mark.parametrize("seed,mode", SUBGROUP_SLICE, ids=str)
def test_subgroup_slice_agrees_at_each_targets_size(seed, mode, tmp_path):
    program = generate(seed, mode)
    assert program.uses_subgroups and "sub_group_non_uniform_" in program.source
    run = ProgramRun(program, str(tmp_path))
    outcomes = [run.run(c) for c in configs_for(program, seed, SUBGROUP_TARGETS, 1)]
    bad = [f"{o.config}: {o.status}: {o.message}" for o in outcomes
           if o.status not in ("ok", "skipped") and not _lavapipe_lacks_clustered(o)]
    assert not bad, f"{program.name}: " + "; ".join(bad)
    llvm = [o for o in outcomes if o.config.startswith("llvm")]
    if mode == "all":
        assert [o.status for o in llvm] == ["skipped", "skipped"] and "irreducible" in llvm[0].message
    else:
        assert [o.status for o in llvm] == ["ok", "ok"]
        assert run.reference_for(16) is run.reference
        assert run.reference_for(8) is not run.reference         # llvm -O0 again, at 8 lanes


def _no_op_target(program, kernel, args, global_size, local_size, options, global_offset):
    """A fake target that runs anything (as gen's hybrid mode runs an irreducible CFG)."""


def test_a_subgroup_program_no_reference_can_run_is_skipped_not_a_crash(monkeypatch, tmp_path):
    """all-5 has a sub-group operation in irreducible control flow: llvm declines it and ir cannot hold
    the CFG, so a target that runs it has nothing to be compared with (campaign seeds 314 and 322 on gen's
    hybrid mode were reported as crashes)."""
    from reconverge.tools.targets import harness
    monkeypatch.setitem(harness.TARGETS, "anything", _no_op_target)
    program = generate(5, "all")
    run = ProgramRun(program, str(tmp_path))
    assert run.run(Config("llvm", "-O0")).status == "skipped"
    outcome = run.run(Config("anything", "-O0"))
    assert (outcome.status, outcome.message) == ("skipped", "no reference at sub-group size 16: a sub-group "
                                                            "operation in irreducible control flow")


def test_command_line_runs_a_campaign_and_reports(tmp_path, capsys):
    from reconverge.tools.cli import main
    assert main(["fuzz", "-n", "2", "--seed", "5", "--mode", "basic", "--targets", "llvm,ir",
                 "--save-dir", str(tmp_path)]) == 0
    out = capsys.readouterr()
    assert "2 programs, 8 configurations" in out.out and "programs/min" in out.out
    assert "llvm-O2" in out.out and "ir-O0" in out.out
    assert os.listdir(tmp_path) == []           # nothing failed, nothing saved
    assert main(["fuzz", "--shard", "3/2"]) == 2
    assert "--shard" in capsys.readouterr().err


def _planted(program, kernel, args, global_size, local_size, options, global_offset):
    """A fake target with a planted bug: the llvm target's answer, but out[0] is off by one in any module
    that still has a `switch` instruction."""
    from reconverge.tools.targets.harness import TARGETS
    TARGETS["llvm"](program, kernel, args, global_size, local_size, options, global_offset)
    if "switch i32" in program.llvm_text:
        args[0][0] += 1


@pytest.fixture
def planted(monkeypatch):
    from reconverge.tools.fuzz import runner
    from reconverge.tools.targets import harness
    monkeypatch.setitem(harness.TARGETS, "planted", _planted)
    monkeypatch.setattr(runner, "TARGETS", runner.TARGETS + ("planted",))


def test_reducer_keeps_the_planted_bug_and_rejects_undefined_behaviour(planted, tmp_path):
    """The interestingness test C-Vise runs: the original program with the planted bug is interesting; the
    same program with a signed overflow added is not (the sanitized native run traps), nor is one with
    the switch gone (the failure is lost)."""
    from reconverge.tools.fuzz.reducer import _signature, is_interesting, record_of
    program = generate(6, "basic", size=4)
    assert "switch (" in program.source
    record = dict(record_of(program), config="planted-O0", signature=_signature("mismatch", ""))
    assert is_interesting(record, program.source, str(tmp_path)) == (True, "")
    overflow = program.source.replace("    uint h = 0u;\n",
                                      "    int big = as_int(in[gid & 255u] | 0x40000000u);\n"
                                      "    v0 += (uint)(big * 4);\n    uint h = 0u;\n")
    assert overflow != program.source
    ok, why = is_interesting(record, overflow, str(tmp_path))
    assert not ok and why.startswith("undefined behaviour"), why
    no_switch = generate(0, "basic", size=2)
    assert "switch (" not in no_switch.source
    ok, why = is_interesting(dict(record_of(no_switch), config="planted-O0", signature="mismatch"),
                             no_switch.source, str(tmp_path))
    assert not ok and "planted-O0 now: ok" in why, why


def test_an_optimised_subgroup_program_without_g_is_compared_at_its_own_level(tmp_path):
    """Without -g the CFG decides which lanes run a sub-group operation together, and LLVM's -O2 folds
    `if (as_int(1u) >= -48)` that kept a reduction in the loop at -O0 (fuzz subgroup-70655; the kernel of
    test_oracle_subgroups.py): an -O2 configuration agrees with llvm -O2, not with -O0; with -g (the
    scopes rule) the reference stays -O0's."""
    from tests.test_oracle_subgroups import BRANCH_CLANG_FOLDS_ONLY_WHEN_INLINING as source
    program = FuzzProgram(1, "subgroup", source, "cl", 16, 16, arg_names=["out", "in"], uses_subgroups=True)
    program.make_args = lambda: [np.zeros(16, np.uint32), np.arange(16, dtype=np.uint32) * 2]  # type: ignore
    run = ProgramRun(program, str(tmp_path))
    for config in ("llvm-O0", "ir-O0", "ir-O2", "spirv-O2", "gen-O2-simd16-structured"):
        outcome = run.run(Config.parse(config))
        assert outcome.status == "ok", f"{config}: {outcome.message}"
    assert run.reference_for(16, "-O2")[0].tolist() != run.reference_for(16)[0].tolist()
    assert run.reference_level(Config("ir", "-O2")) == "-O2"
    scoped = ProgramRun(dataclasses.replace(program, build_options=("-g",)), str(tmp_path / "g"))
    assert scoped.reference_level(Config("ir", "-O2")) == "-O0"


def test_clustered_reductions_take_signed_and_wide_operands():
    """A signed clustered min/max (OpGroupNonUniformSMin/SMax with ClusterSize) had its operands swapped,
    which only NVIDIA's compiler showed (by crashing): the generator, which gave clustered reductions only
    uint operands, now gives them int, ulong and ushort ones too."""
    import re
    sources = [generate(seed, "subgroup").source for seed in range(150)]
    operands = {m for src in sources for m in re.findall(r"clustered_reduce_(?:min|max)\((as_int|\(ulong\)|\(ushort\))", src)}
    assert operands == {"as_int", "(ulong)", "(ushort)"}, operands


def test_private_arrays_chosen_by_a_short_circuit_reach_every_target(tmp_path):
    """clang -O2 split a private array whose index a short circuit chose into one variable per element,
    storing through a phi of pointers to them (fuzz goto-120072): spirv and gen's tree refused it. The
    generator's `chosen_element` statement (its own stream) writes that class; basic-42 is one, which
    main refused before the phi web was tagged (spirv -O2: 'may point into different memory objects')."""
    from reconverge.lowering.frontend.clang import compile_opencl
    program = generate(42, "basic")
    assert "zq1[((uint)(" in program.source
    path = tmp_path / "k.cl"
    path.write_text(program.source)
    kernel = compile_opencl(str(path), "-O2").split("define dso_local spir_kernel")[1].split("\n}\n")[0]
    assert "phi ptr [" in kernel and " = alloca i32" in kernel
    run = ProgramRun(program, str(tmp_path))
    for config in ("llvm-O0", "spirv-O2", "gen-O2-simd16-structured", "gen-O2-simd8-hybrid"):
        outcome = run.run(Config.parse(config))
        assert outcome.status == "ok", f"{config}: {outcome.message}"


def test_fills_and_copies_of_a_run_time_length_reach_every_target(tmp_path):
    """clang -O2 made a loop zeroing a private array up to a computed bound one llvm.memset call of a
    run-time length (fuzz subgroup-65390), which every target refused. The generator's `runtime_fill`
    statement (its own stream) writes fills and copies from `in` of that kind; basic-13 has both, as a
    memset and a memcpy (from global memory) of a run-time length, and every target now runs it as the
    reference does."""
    import re

    from reconverge.lowering.frontend.clang import compile_opencl
    program = generate(13, "basic")
    assert "zf1" in program.source and "zf2" in program.source
    path = tmp_path / "k.cl"
    path.write_text(program.source)
    calls = re.findall(r"call void @llvm\.(memset|memcpy)\.[^\n]*, i64 %", compile_opencl(str(path), "-O2"))
    assert set(calls) == {"memset", "memcpy"}
    run = ProgramRun(program, str(tmp_path))
    for config in ("llvm-O0", "ir-O2", "spirv-O2", "gen-O2-simd16-structured", "gen-O2-simd8-hybrid",
                   "gen-O2-simd16-blockip"):
        outcome = run.run(Config.parse(config))
        assert outcome.status == "ok", f"{config}: {outcome.message}"


def test_floats_a_condition_makes_minus_one_or_zero_keep_the_zeros_sign(tmp_path):
    """`(float)(c ? -1 : 0)` is a sitofp of an i1 at -O2, which the SPIR-V emitter wrote as `c ? -1.0 : 0.0`:
    lavapipe folded it to -0.0 for a false c, and our vector interpreter computed it as a negation (-0.0 too).
    The generator's `bool_float` statement (its own stream; NVIDIA's replay of 2026-11-28 found the select
    forms) writes such floats; basic-13 has three, and the spirv and ir targets now run it as the reference."""
    from reconverge.lowering.frontend.clang import compile_opencl
    program = generate(13, "basic")
    path = tmp_path / "k.cl"
    path.write_text(program.source)
    assert "sitofp i1" in compile_opencl(str(path), "-O2")
    run = ProgramRun(program, str(tmp_path))
    for config in ("llvm-O0", "ir-O2", "spirv-O2", "spirv-O0", "gen-O2-simd16-structured"):
        outcome = run.run(Config.parse(config))
        assert outcome.status == "ok", f"{config}: {outcome.message}"


@pytest.mark.parametrize("seed,mode", [(56, "basic"), (156, "vector")])
def test_integer_builtins_on_every_type_agree_and_are_free_of_undefined_behaviour(seed, mode, tmp_path):
    """The generator's `int_builtin` statement (its own stream): OpenCL C's integer built-ins on chars to
    longs, scalar and vector, saturating and rounding conversions, shuffles. Programs like these found
    mad_sat missing on every target, mul_hi of chars and shorts refused, Gen's 64-bit min/max and the low
    dword of `(ulong)a << 32` at -O0, and the reference missing integer _sat conversions, shuffles, bitselect
    and 64-bit mad_hi and mad_sat. basic-56 has mad_sat, upsample, abs and a conversion; vector-156
    bitselect, mad_sat and mul_hi. Both also run clean natively under the sanitizers (ubcheck)."""
    from reconverge.tools.fuzz.ubcheck import check_program
    program = generate(seed, mode)
    assert program.source.count(" ib = ") >= 2
    run = ProgramRun(program, str(tmp_path))
    for config in ("llvm-O0", "llvm-O2", "ir-O0", "spirv-O0", "spirv-O2", "gen-O0-simd16-structured",
                   "gen-O2-simd8-hybrid", "gen-O0-simd8-blockip"):
        outcome = run.run(Config.parse(config))
        assert outcome.status == "ok", f"{config}: {outcome.message}"
    check_program(program)


def test_ubcheck_traps_a_conversion_out_of_range_without_sat():
    """The native UB check defines the conversions the way OpenCL C does: without _sat, a float beyond the
    destination's range is undefined, and the sanitized run traps on it (int_builtin writes such a
    conversion only into int and long, which hold every value the program's floats can take)."""
    from reconverge.tools.fuzz.ubcheck import UBFound, check_program
    program = generate(56, "basic")
    check_program(program)
    bad = program.source.replace("uint h = 0u;", "v1 ^= (uint)convert_uchar_rtz((float)gid * 300.0f + 300.0f);\n"
                                                  "    uint h = 0u;", 1)
    assert bad != program.source
    with pytest.raises(UBFound, match="trapped"):
        check_program(program, bad)


def test_a_product_residual_through_fma_catches_an_fma_that_rounds_twice(monkeypatch, tmp_path):
    """The generator's `fused_residual` statement (its own stream): `fma(a, b, -(a * b))` of floats whose
    product is not exact is the product's rounding error, 0.0 where the multiply and the add round apart,
    as Vulkan's GLSL Fma may and lavapipe's did. basic-4 has one: right on spirv and gen now, and a spirv
    module emitting that Fma again (the caps saying SPIR-V fuses) gives lavapipe's wrong answer."""
    from reconverge.lowering import target
    from reconverge.records import replace
    from reconverge.tools.fuzz.ubcheck import check_program
    program = generate(4, "basic")
    assert "fma(" in program.source
    run = ProgramRun(program, str(tmp_path))
    for config in ("llvm-O0", "spirv-O0", "spirv-O2", "gen-O2-simd16-structured", "gen-O0-simd8-hybrid"):
        outcome = run.run(Config.parse(config))
        assert outcome.status == "ok", f"{config}: {outcome.message}"
    check_program(program)
    monkeypatch.setitem(target.CAPS, "spirv", replace(target.CAPS["spirv"], fused_fma_widths=(16, 32, 64)))
    (tmp_path / "fused").mkdir()
    fused = ProgramRun(program, str(tmp_path / "fused"))
    assert fused.run(Config.parse("llvm-O0")).status == "ok"
    outcome = fused.run(Config.parse("spirv-O0"))
    assert outcome.status == "mismatch", outcome.message


def test_a_gen_configuration_gets_the_interpreters_step_budget(monkeypatch, tmp_path):
    """goto-97843's state machine runs 2.5 million instructions a SIMD16 thread (right once let finish): the
    gen configurations stopped it at `run`'s default of 1,000,000 and counted a refusal. A fuzz
    configuration gets the interpreter's budget per work-item instead (a loop that never ends still meets
    --timeout)."""
    from reconverge.backend.gen import launch
    from reconverge.lowering.interp import DEFAULT_MAX_STEPS
    seen = []
    real = launch.run_gen_kernel

    def spy(*args, **kwargs):
        seen.append(kwargs.get("max_steps"))
        return real(*args, **kwargs)
    monkeypatch.setattr(launch, "run_gen_kernel", spy)
    run = ProgramRun(generate(3, "basic"), str(tmp_path))
    assert run.run(Config.parse("llvm-O0")).status == "ok"
    outcome = run.run(Config.parse("gen-O2-simd16-structured"))
    assert outcome.status == "ok", outcome.message
    assert seen == [DEFAULT_MAX_STEPS] and DEFAULT_MAX_STEPS > launch.DEFAULT_MAX_STEPS


def test_a_constant_memmove_too_long_to_expand_becomes_a_loop(tmp_path):
    """barrier-99065 at -O2: LLVM made a shift loop on a path never taken a memmove of 2^34 - 4 bytes (it
    could bound the loop only by its counter's wrap-around); the reader refused a constant length over 16 KiB
    in one line, a refusal of a legal program. It is a loop now, as a run-time length is."""
    from reconverge.lowering.frontend.clang import compile_opencl
    program = generate(99065, "barrier")
    path = tmp_path / "k.cl"
    path.write_text(program.source)
    assert "i64 17179869180, i1 false)" in compile_opencl(str(path), "-O2")
    run = ProgramRun(program, str(tmp_path))
    for config in ("llvm-O0", "ir-O2", "spirv-O2", "gen-O2-simd8-blockip", "gen-O2-simd16-structured"):
        outcome = run.run(Config.parse(config))
        assert outcome.status == "ok", f"{config}: {outcome.message}"
