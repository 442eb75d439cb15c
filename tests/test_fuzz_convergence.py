"""Fuzz mode `convergence` (tools/fuzz/generator.py, tools/fuzz/tokens.py): sub-group operations on the
break paths of loops with several exits and in waterfall loops, as OpenCL C compiled with -g (the scopes
rule) and as clang's IR with convergence tokens placed as the source's loops nest. The mode adds programs
without changing any other mode's; clang -O2 really moves its operations out of the loops they were written
in; the tokens follow the source; and a fixed-seed slice agrees on ir, gen and spirv with the reference."""
from __future__ import annotations

import hashlib
import re

import pytest

from reconverge.lowering.errors import CompileError
from reconverge.lowering.program import load_program
from reconverge.tools.fuzz.generator import generate, with_tokens
from reconverge.tools.fuzz.runner import Config, ProgramRun
from reconverge.tools.fuzz.tokens import source_loops
from reconverge.tools.targets.harness import _scopes_move_an_operation

OLD_MODES = ("basic", "vector", "barrier", "atomic", "goto", "subgroup", "all", "cfg")


def test_the_other_modes_programs_are_unchanged(monkeypatch):
    """Seeds 0-24 of every older mode, hashed as main wrote them before the convergence mode: an old
    campaign's seed still reproduces its program. Changes since, on purpose: a float variable given to a
    float sub-group min/max reads `f + 0.0f` (fuzz subgroup-20219; test_fuzz.py), since convergence-25163
    one given to a float sub-group add as well, and a clustered reduction's operand may be an int, ulong or
    ushort (drawn from a stream of its own; NVIDIA's crash on a signed clustered min, 2026-11-27), and a
    small private array whose elements a short circuit chooses may come before a statement (its own
    stream; fuzz goto-120072), and three in ten `cfg` programs are state machines (their own stream; fuzz
    all-56733), and the private array may be filled or copied up to a run-time bound before a statement
    (its own stream; fuzz subgroup-65390), and a float may be made -1.0, 1.0 or a signed zero by a condition
    before a statement (its own stream; the NVIDIA replay of 2026-11-28): without them each program is the one
    it was."""
    from reconverge.tools.fuzz import generator
    monkeypatch.setattr(generator, "STATE_MACHINE_RATE", 0.0)
    monkeypatch.setattr(generator, "RUNTIME_FILL_RATE", 0.0)
    monkeypatch.setattr(generator, "BOOL_FLOAT_RATE", 0.0)
    monkeypatch.setattr(generator, "INT_BUILTIN_RATE", 0.0)
    monkeypatch.setattr(generator, "FUSED_RATE", 0.0)
    h = hashlib.sha256()
    for mode in OLD_MODES:
        for seed in range(25):
            p = generate(seed, mode)
            h.update(p.source.encode())
            h.update(repr((p.global_size, p.local_size, p.n_arg, p.uses_subgroups)).encode())
    assert h.hexdigest() == "8daeff96d065618d9e310260bc3ff274d7269f23845393b76136630b31099616"


def test_even_seeds_are_opencl_with_g_and_odd_seeds_ir_with_tokens():
    cl, ll = generate(0, "convergence"), generate(1, "convergence")
    assert (cl.language, cl.build_options) == ("cl", ("-g",)) and cl.uses_subgroups
    assert (ll.language, ll.build_options) == ("ll", ()) and ll.cl_source.startswith("#pragma")
    assert "@llvm.experimental.convergence.entry()" in ll.source
    assert len(ll.make_args()) == 5                     # the OpenCL C kernel's parameters, not cfg's


def test_clang_O2_moves_the_operations_out_of_the_loops_they_were_written_in(tmp_path):
    """convergence-0 at -O2 -g: a sub-group operation lies after a loop its source scope puts it in
    (the reduction of `if (c) { r = reduce(x); break; }` in the loop's exit block), which only the scopes
    rule keeps in the loop; so the llvm reference declines it (README, Reconvergence)."""
    path = tmp_path / "c.cl"
    path.write_text(generate(0, "convergence").source)
    assert _scopes_move_an_operation(load_program(str(path), "-O2", build_options=("-g",)), "k")


SOURCE = """\
__kernel void k(__global uint *out, __global const uint *in)
{
    const uint gid = get_global_id(0);
    uint r = 0u;
    for (uint i = 0u; i < 4u; i++) {
        if (in[gid] > i) {
            r += sub_group_reduce_add(i);
            break;
        }
        uint g = 0u;
        do {
            g++;
            r ^= sub_group_ballot(r > g).x;
        } while (g < in[gid] && r < 7u);
    }
    out[gid] = r + sub_group_reduce_add(r);
}
"""


def test_source_loops_reads_the_nesting():
    innermost, parent = source_loops(SOURCE)
    assert parent == {5: None, 11: 5}
    assert (innermost[3], innermost[7], innermost[13], innermost[14], innermost[16]) == (None, 5, 11, 11, None)


def test_tokens_follow_the_source_loops():
    """A heart in each loop's header, child of the loop around it; the break path's reduction (outside the
    natural loop at -O0) keeps its loop's token; every call is controlled (LLVM's verifier forbids a mix)."""
    text = with_tokens(SOURCE)
    kernel = text[text.index("spir_kernel void @k("):]
    kernel = kernel[:kernel.index("\n}\n")]
    assert '%cvt.l5 = call token @llvm.experimental.convergence.loop() [ "convergencectrl"(token %cvt.entry) ]' \
        in kernel
    assert '%cvt.l11 = call token @llvm.experimental.convergence.loop() [ "convergencectrl"(token %cvt.l5) ]' \
        in kernel
    calls = [(m.group(2)[:int(m.group(1))], m.group(3)) for m in
             re.finditer(r'call spir_func [^@]*@_Z(\d+)(\w+)\(.*"convergencectrl"\(token (%[\w.]+)\)', kernel)]
    assert ("sub_group_reduce_add", "%cvt.l5") in calls                  # the break path's
    assert ("sub_group_ballot", "%cvt.l11") in calls
    assert ("sub_group_reduce_add", "%cvt.entry") in calls               # after the loop
    assert ("get_global_id", "%cvt.entry") in calls
    assert all(" call " not in line or "convergencectrl" in line or "@llvm." in line
               for line in kernel.splitlines()[1:])


def _token_program(name: str, seed: int, global_size: int, local_size: int, n_arg: int):
    """A kept generated kernel (tests/kernels_fuzzconv) as the convergence mode's odd seeds run it: clang's
    -O0 -g module with convergence tokens as its loops nest (with_tokens)."""
    from reconverge.tools.fuzz.generator import ARG_NAMES, FuzzProgram
    with open(_kept(name), encoding="utf-8") as f:
        source = f.read()
    return FuzzProgram(seed, "convergence", with_tokens(source), "ll", global_size, local_size, n_arg=n_arg,
                       arg_names=list(ARG_NAMES), uses_subgroups=True, cl_source=source)


def test_llvm_O2_breaking_the_tokens_is_a_one_line_refusal(tmp_path):
    """LLVM 22's -O2 can leave a token module invalid by its own verifier (here, without loop unrolling
    even: a loop's heart after another convergent call in its block); reading that module again aborted
    the process. Fuzz convergence-40015."""
    path = tmp_path / "c.ll"
    path.write_text(_token_program("tokens_O2_heart_after_call_40015.cl", 40015, 64, 64, 0).source)
    with pytest.raises(CompileError, match="left the convergence-control tokens invalid"):
        load_program(str(path), "-O2")
    load_program(str(path), "-O0")


def test_a_token_module_is_optimised_without_the_unrolling_that_breaks_its_tokens(tmp_path, monkeypatch):
    """LLVM 22's loop unrolling left 35 of 60 of the mode's token modules invalid at -O2 (unrolled hearts
    after convergent calls, regions no longer nested), so those programs were never run optimised. A token
    module is now optimised without it (llvm_module.optimize_module): fuzz convergence-40013, refused
    before, agrees with the reference at -O2 on every target."""
    from reconverge.lowering.frontend import llvm_module
    program = _token_program("tokens_O2_unrolled_40013.cl", 40013, 64, 32, 6)
    unrolled = llvm_module._run_pipeline

    def with_unrolling(mod, speed_level, unroll=True):
        return unrolled(mod, speed_level)
    path = tmp_path / "u.ll"
    path.write_text(program.source)
    monkeypatch.setattr(llvm_module, "_run_pipeline", with_unrolling)   # (the child running it is forked)
    with pytest.raises(CompileError, match="left the convergence-control tokens invalid"):
        load_program(str(path), "-O2")
    monkeypatch.undo()
    run = ProgramRun(program, str(tmp_path))
    outcomes = [run.run(Config.parse(c)) for c in ("ir-O2", "spirv-O2", "gen-O2-simd16-hybrid",
                                                     "gen-O2-simd8-blockip")]
    assert [o.status for o in outcomes] == ["ok"] * 4, [(o.config, o.message) for o in outcomes]


def test_llvm_O2_crashing_on_the_tokens_is_skipped(tmp_path):
    """Fuzz convergence-19655: LLVM 22's -O2 aborts on the module's tokens (LoopUtils.cpp, deleteDeadLoop's
    assertion that a dead loop's values have no reachable user). The front end refuses in one line and the
    fuzzer counts that configuration skipped, as it does tokens LLVM left invalid; it counted a refusal, a
    failure of ours."""
    run = ProgramRun(generate(19655, "convergence"), str(tmp_path))
    outcome = run.run(Config("ir", "-O2"))
    assert (outcome.status, "crashed on this module's convergence tokens" in outcome.message) == ("skipped", True)


# a cheap slice (small programs; the reference, ir and one gen width x mode at -O2, lavapipe at -O0):
# convergence-2 has a reduction on a loop's break path (the llvm reference declines it: ir -O0 is the
# reference), convergence-3 is IR with tokens (the llvm reference follows them)
SLICE = [(2, "gen-O2-simd16-blockip"), (3, "gen-O2-simd8-hybrid")]


@pytest.mark.parametrize("seed,gen", SLICE, ids=str)
def test_convergence_slice_agrees(seed, gen, tmp_path):
    program = generate(seed, "convergence", size=4)
    run = ProgramRun(program, str(tmp_path))
    configs = [Config("llvm", "-O0"), Config("ir", "-O2"), Config.parse(gen), Config("spirv", "-O0")]
    outcomes = [run.run(c) for c in configs]
    bad = [f"{o.config}: {o.status}: {o.message}" for o in outcomes if o.status not in ("ok", "skipped")]
    assert not bad, f"{program.name}: " + "; ".join(bad)
    assert [o.status for o in outcomes[1:]] == ["ok", "ok", "ok"]
    assert outcomes[0].status == ("skipped" if seed == 2 else "ok")


STRAY_HEART = """\
target datalayout = "e-i64:64-v16:16-v24:32-v32:32-v48:64-v96:128-v192:256-v256:256-v512:512-v1024:1024-G1"
target triple = "spir64"

define spir_kernel void @k(ptr addrspace(1) %out) #0 {
entry:
  %e = call token @llvm.experimental.convergence.entry()
  %i = call spir_func i64 @_Z13get_global_idj(i32 0) [ "convergencectrl"(token %e) ]
  %v = trunc i64 %i to i32
  br label %once

once:
  %l = call token @llvm.experimental.convergence.loop() [ "convergencectrl"(token %e) ]
  %r = call spir_func i32 @_Z20sub_group_reduce_addj(i32 %v) [ "convergencectrl"(token %l) ]
  %dst = getelementptr inbounds i32, ptr addrspace(1) %out, i64 %i
  store i32 %r, ptr addrspace(1) %dst, align 4
  ret void
}

declare spir_func i64 @_Z13get_global_idj(i32) #0
declare spir_func i32 @_Z20sub_group_reduce_addj(i32) #0
declare token @llvm.experimental.convergence.entry()
declare token @llvm.experimental.convergence.loop()

attributes #0 = { convergent }
"""


def test_a_loop_token_outside_every_loop_header_is_its_parents(tmp_path):
    """LLVM's -O2 leaves `convergence.loop` in a block that is no loop's header once it fully unrolls or
    deletes the loop (LangRef allows it: it runs once per instance of its parent). Campaign seed 1001 at
    -O2: our validator rejected the read kernel (a crash on ir, spirv and gen); now the token is its
    parent's, here the entry's: the reduction over the whole sub-group."""
    import numpy as np

    from reconverge.tools.targets.harness import run_target
    path = tmp_path / "stray.ll"
    path.write_text(STRAY_HEART)
    program = load_program(str(path), "-O0")
    out = run_target("ir", program, "k", [np.zeros(16, np.uint32)], (16,), (16,))[0]
    assert list(out) == [sum(range(16))] * 16


def _after_loops(level: str, convergence: str):
    import os

    import numpy as np

    from reconverge.tools.targets.harness import run_target
    path = os.path.join(os.path.dirname(__file__), "kernels_fuzzconv", "scopes_switch_after_loops.cl")
    data = (np.arange(64) * 7 % 11).astype(np.uint32)
    program = load_program(path, level, build_options=("-g",), convergence=convergence)
    got = run_target("ir", program, "k", [np.zeros(16, np.uint32), data], (16,), (16,))[0]
    lanes = ((data[:16] & 1) == 0) & (data[32:48] < 8)
    return list(got), [int(lanes.sum()) if m else 0 for m in lanes]


@pytest.mark.parametrize("level,convergence", [("-O2", "auto"), ("-O2", "cfg"), ("-O0", "cfg")])
def test_an_operation_after_two_loops_in_a_switch_case(level, convergence):
    """At -O2 the do/while's break is taken on a loop-invariant test, so LLVM unswitches it and deletes the
    empty loop left: every leaving lane leaves in the first pass, so nothing merges, and the removed loop is
    not refused (lowering.frontend.first_pass_exits)."""
    got, want = _after_loops(level, convergence)
    assert got == want


# fuzz convergence-104 at -O0 -g: the reduction written after both loops was homed into the waterfall loop and
# refused (a strict xfail until main's scopes fixes; it passes on main since, as the count of the if's lanes)
def test_an_operation_after_two_loops_in_a_switch_case_scopes_O0():
    got, want = _after_loops("-O0", "auto")
    assert got == want


def _kept(name: str) -> str:
    import os
    return os.path.join(os.path.dirname(__file__), "kernels_fuzzconv", name)


def _kept_run(name: str, seed: int, global_size: int, local_size: int, n_arg: int, tmp_path) -> ProgramRun:
    """A kept OpenCL C program of the convergence mode (compiled with -g), ready to run configurations."""
    from reconverge.tools.fuzz.generator import ARG_NAMES, FuzzProgram
    with open(_kept(name), encoding="utf-8") as f:
        source = f.read()
    program = FuzzProgram(seed, "convergence", source, "cl", global_size, local_size, n_arg=n_arg,
                          arg_names=list(ARG_NAMES), uses_subgroups=True, build_options=("-g",))
    return ProgramRun(program, str(tmp_path))


def test_fuzz_1004_reads_at_O2_with_g(tmp_path):
    """Fuzz convergence-1004 at -O2 -g: LLVM fully unrolls the outer loop, leaving two copies of the inner
    loop, and both touch the reduction's scopes; the scopes rule anchored the reduction in the second copy
    to the first copy's header (the cycle rule: the validator rejected the read kernel, a crash). The
    reduction runs in its own copy now: -O2 agrees with -O0 and with the reference on ir and gen."""
    run = _kept_run("scopes_cycle_rule_1004.cl", 1004, 32, 8, 3, tmp_path)
    configs = [Config("llvm", "-O0"), Config("ir", "-O2"), Config.parse("gen-O2-simd8-blockip")]
    outcomes = [run.run(c) for c in configs]
    assert [o.status for o in outcomes] == ["ok"] * 3, [o.message for o in outcomes]


def test_fuzz_12140_each_unrolled_copy_keeps_its_own_operation(tmp_path):
    """Fuzz convergence-12140 at -O2 -g: LLVM fully unrolls a 5-trip loop around a waterfall loop, leaving five
    copies one after another at the top level; every copy dominates the later copies' reductions and touches
    their scopes, and the scopes rule took the first copy for all five (the wrong lanes met: ir, spirv and gen
    agreed with each other, not with -O0). The nearest copy is each operation's home now."""
    run = _kept_run("scopes_unrolled_copies_12140.cl", 12140, 128, 32, 2, tmp_path)
    outcomes = [run.run(Config.parse(c)) for c in ("llvm-O0", "ir-O0", "ir-O2", "gen-O2-simd16-structured")]
    assert [o.status for o in outcomes][1:] == ["ok"] * 3, [o.message for o in outcomes]


def test_fuzz_13266_pulling_a_region_into_its_loop_reads_the_cfg_before_the_latch_exists(tmp_path):
    """Fuzz convergence-13266 (and 9530) at -O2 -g: the convergence pass asked for the loop's members after
    redirecting the region's edges to its new latch but before the latch was in the function, so the CFG
    held a block of a stale index and the kernel was refused as irreducible (a wrong layout where the
    stale index happened to look reducible). The loop's members are taken first now."""
    run = _kept_run("scopes_pull_stale_latch_13266.cl", 13266, 32, 16, 2, tmp_path)
    outcomes = [run.run(Config.parse(c)) for c in ("llvm-O0", "ir-O0", "ir-O2", "gen-O2-simd8-blockip")]
    assert [o.status for o in outcomes][1:] == ["ok"] * 3, [o.message for o in outcomes]


def test_fuzz_23120_a_block_clang_left_unreachable_needs_no_dominance_repair(tmp_path):
    """Fuzz convergence-23120 at -O0 -g: a `for` whose body always breaks leaves clang's increment block with
    no predecessor; pulling the outer loop's break-path reduction into the loop then found the dead block's
    loads not dominated by their allocas and refused the kernel (a one-line refusal on ir, spirv and gen).
    A use the entry does not reach never runs and is left as it is now."""
    run = _kept_run("scopes_dead_increment_23120.cl", 23120, 64, 16, 6, tmp_path)
    configs = ("llvm-O0", "ir-O0", "spirv-O0", "gen-O0-simd16-structured", "gen-O0-simd8-blockip",
               "gen-O0-simd16-hybrid")
    outcomes = [run.run(Config.parse(c)) for c in configs]
    assert [o.status for o in outcomes][1:] == ["ok"] * 5, [o.message for o in outcomes]


def test_fuzz_14008_merged_loops_that_llvm_would_unroll_stay_loops(tmp_path):
    """Fuzz convergence-14008 at -O2 -g (the generator's nested do/while, constant trip counts): LLVM merged the
    do/while into its outer loop and then unrolled it fully, so each copy of the do body met lanes of
    different outer iterations and no loop was left to separate; ir, spirv and gen agreed with each other,
    not with -O0. clang copying a sub-group call with its location now recompiles the file with
    -fno-unroll-loops (pipeline.unrolled_convergent_calls), and the loop separation takes the merged loop."""
    from reconverge.lowering.frontend.clang import compile_opencl
    from reconverge.lowering.pipeline import unrolled_convergent_calls
    path = _kept("scopes_merged_unrolled_14008.cl")
    assert unrolled_convergent_calls(compile_opencl(path, "-O2", ("-g",)))
    assert not unrolled_convergent_calls(compile_opencl(path, "-O2", ("-g", "-fno-unroll-loops")))
    run = _kept_run("scopes_merged_unrolled_14008.cl", 14008, 16, 8, 6, tmp_path)
    outcomes = [run.run(Config.parse(c)) for c in ("llvm-O0", "ir-O0", "ir-O2", "gen-O2-simd8-structured")]
    assert [o.status for o in outcomes][1:] == ["ok"] * 3, [o.message for o in outcomes]


def test_fuzz_15056_the_llvm_reference_declines_a_loop_the_scopes_separate(tmp_path):
    """Fuzz convergence-15056 at -O2 -g, compiled again without unrolling (a sub-group call was copied): LLVM
    merged a do/while into its outer loop, the scopes split it again (so ir and gen meet lanes as -O0 does),
    but the llvm reference follows the merged CFG and gave other answers; it declines such a kernel now, as it
    declines one whose operations the scopes anchor in a loop."""
    run = _kept_run("scopes_separated_llvm_declines_15056.cl", 15056, 64, 64, 3, tmp_path)
    outcomes = [run.run(Config.parse(c)) for c in ("ir-O0", "llvm-O2", "ir-O2")]
    # (compiled again without rotation since (lowering/frontend/removed_loops.py), LLVM no longer merges the
    # loops, and the llvm reference's CFG then agrees: it runs it)
    assert [o.status for o in outcomes][::2] == ["ok", "ok"] and outcomes[1].status in ("ok", "skipped"), \
        [o.message for o in outcomes]


def test_fuzz_17432_a_shared_latch_with_phis_is_looked_through(tmp_path):
    """Fuzz convergence-17432 at -O2 -g: the merged loop's one latch held phis of the value both loops carry, and
    the separation looked only through a latch that held nothing but its branch, so the loop stayed merged
    (ir, spirv and gen agreed with each other, not with -O0). The latch is looked through now; the llvm
    reference declines the separated kernel."""
    run = _kept_run("scopes_merged_latch_phis_17432.cl", 17432, 32, 16, 1, tmp_path)
    configs = ("llvm-O0", "llvm-O2", "ir-O2", "spirv-O2", "gen-O2-simd16-structured", "gen-O2-simd8-blockip")
    outcomes = [run.run(Config.parse(c)) for c in configs]
    # (llvm -O2 runs it since the file is compiled again without rotation: the loops stay apart)
    assert [o.status for o in outcomes][2:] == ["ok"] * 4 and outcomes[1].status in ("ok", "skipped"), \
        [o.message for o in outcomes]


def test_fuzz_1010_a_phis_location_is_not_the_loops_code(tmp_path):
    """Fuzz convergence-1010 at -O0 on Gen hybrid: a loop header's phi, located at its variable's declaration
    at the top of the function, made the loop's common scope the function's, so the scopes rule homed
    ballots written after the loop into it (the convergence pass refused the kernel); phis no longer count
    as located code. Gen agrees with ir (the reference here: the llvm one declines what scopes move)."""
    run = _kept_run("scopes_phi_location_1010.cl", 1010, 128, 32, 4, tmp_path)
    outcomes = [run.run(Config.parse(c)) for c in ("llvm-O0", "ir-O0", "gen-O0-simd16-hybrid")]
    assert [o.status for o in outcomes] == ["skipped", "ok", "ok"], [o.message for o in outcomes]


def _tokens_program(name: str, seed: int):
    """A kept OpenCL C kernel as the convergence mode's odd seeds run it: clang's IR with tokens."""
    import os

    from reconverge.tools.fuzz.generator import ARG_NAMES, FuzzProgram
    path = os.path.join(os.path.dirname(__file__), "kernels_fuzzconv", name)
    with open(path, encoding="utf-8") as f:
        source = f.read()
    return FuzzProgram(seed, "convergence", with_tokens(source), "ll", 32, 32, n_arg=0, arg_names=list(ARG_NAMES),
                       uses_subgroups=True, cl_source=source)


def _program_1049():
    return _tokens_program("blockip_tokens_1049.cl", 1049)


def test_fuzz_1049_structured_gen_agrees(tmp_path):
    run = ProgramRun(_program_1049(), str(tmp_path))
    assert run.run(Config.parse("gen-O2-simd8-structured")).status == "ok"


# Fuzz convergence-1049 (and its reduction below) failed on blockIP and the hybrid, SIMD8 and SIMD16, before
# cf_regions.layout laid each loop's units out together: the tokens keep LLVM -O2 from rotating a loop
# whose body holds a waterfall loop (its header holds the loop token), so the header leaves by its true
# arm; reverse postorder then laid the code after the loop (another waterfall loop, with its sub-group
# operations) before the loop's body, and min-IP ran it once per batch of lanes leaving, not once with all.
BLOCKIP_MODES = ("gen-O2-simd8-blockip", "gen-O2-simd16-blockip", "gen-O2-simd8-hybrid", "gen-O2-simd16-hybrid")


def test_fuzz_1049_blockip_agrees(tmp_path):
    run = ProgramRun(_program_1049(), str(tmp_path))
    for config in BLOCKIP_MODES:
        outcome = run.run(Config.parse(config))
        assert outcome.status == "ok", (config, outcome.message)


def test_a_waterfall_after_a_top_tested_loop_meets_every_lane_on_blockip(tmp_path):
    """1049 reduced: a waterfall loop after a loop left by its header (unrotated: a waterfall inside it
    holds its token) runs each round with every lane that left the first loop (before the fix: 5 lanes
    of 32 differed at SIMD8, 15 at SIMD16, on blockIP and the hybrid)."""
    run = ProgramRun(_tokens_program("blockip_tokens_1049_reduced.cl", 1049), str(tmp_path))
    for config in BLOCKIP_MODES:
        outcome = run.run(Config.parse(config))
        assert outcome.status == "ok", (config, outcome.message)


def test_a_reduction_after_a_loop_left_only_by_a_break_meets_every_lane_on_blockip(tmp_path):
    """Not tokens-specific: OpenCL C at -O0, no tokens, no -g. Before cf_regions laid each loop out
    together, blockIP laid the exit block (reached from the break alone) before the loop's latch and ran
    the reduction once per batch of lanes leaving (31 of 32 lanes differed at SIMD8). The convergence
    mode writes its `while` loops this way since."""
    import os

    from reconverge.tools.fuzz.generator import ARG_NAMES, FuzzProgram
    with open(os.path.join(os.path.dirname(__file__), "kernels_fuzzconv", "blockip_break_only_loop.cl"),
              encoding="utf-8") as f:
        source = f.read()
    run = ProgramRun(FuzzProgram(0, "convergence", source, "cl", 32, 32, n_arg=0, arg_names=list(ARG_NAMES),
                                 uses_subgroups=True), str(tmp_path))
    for config in ("gen-O0-simd8-blockip", "gen-O0-simd16-blockip"):
        outcome = run.run(Config.parse(config))
        assert outcome.status == "ok", (config, outcome.message)
    assert any("for (;;)" in generate(seed, "convergence").source for seed in range(0, 20, 2))


def test_a_program_tokens_cannot_be_added_to_stays_c_with_g():
    """Seed 9179: clang -O0 lays a nested loop's header after its latch, which tools/fuzz/tokens.py does not
    read; the generator keeps the C form with -g instead of stopping the whole campaign."""
    program = generate(9179, "convergence")
    assert program.language == "cl" and program.build_options == ("-g",)


def test_nested_do_while_blocks_leave_the_rest_of_each_program_as_it_was(monkeypatch):
    """Seed 004's nested do/while (generator.nested_do) comes from a stream of its own: without it, each
    convergence seed's OpenCL C is its program less those blocks, so older campaigns' seeds still hold."""
    import reconverge.tools.fuzz.generator as generator
    with_blocks = {seed: generate(seed, "convergence") for seed in range(0, 24)}
    monkeypatch.setattr(generator, "NESTED_DO_RATE", 0.0)
    added = 0
    for seed, program in with_blocks.items():
        full = (program.cl_source or program.source).splitlines()
        plain = generate(seed, "convergence")
        lines = iter(full)
        assert all(any(line == other for other in lines) for line in (plain.cl_source or plain.source).splitlines())
        added += len(full) > len((plain.cl_source or plain.source).splitlines())
    assert added >= 3


@pytest.mark.parametrize("rate", ["CONTINUE_LOOP_RATE", "SIGNED_ZERO_RATE"])
def test_the_continue_loops_and_signed_zeros_leave_the_rest_of_each_program_as_it_was(rate, monkeypatch):
    """The classes of subgroup-16441 (a while loop gone back to from two places) and convergence-16248 (a
    select of 1.0 and a zero of the other sign) come from streams of their own, as nested_do: without them
    each convergence seed's OpenCL C is its program less those lines."""
    import reconverge.tools.fuzz.generator as generator
    full = {seed: generate(seed, "convergence") for seed in range(0, 24)}
    monkeypatch.setattr(generator, rate, 0.0)
    added = 0
    for seed, program in full.items():
        text = (program.cl_source or program.source).splitlines()
        plain = generate(seed, "convergence")
        plain_text = (plain.cl_source or plain.source).splitlines()
        lines = iter(text)
        assert all(any(line == other for other in lines) for line in plain_text)
        added += len(text) > len(plain_text)
    assert added >= 3


def test_a_nested_do_while_merged_by_llvm_is_separated_and_agrees(tmp_path, monkeypatch):
    """Seed 62: clang -O2 merges the nested do/while into one loop with two back edges, the front end
    separates them (lowering/frontend/loop_separation.py: the generator is how the fuzzer reaches it; read
    here from clang's own -O2 module, since an OpenCL C file with a sub-group operation in a loop is now
    compiled without rotation, which is what merges them: lowering/frontend/removed_loops.py), and the
    hybrid Gen code at -O2 agrees with -O0's lane by lane."""
    from reconverge.lowering.frontend import loop_separation
    program = generate(62, "convergence")
    assert "do {" in program.source and program.build_options == ("-g",)
    separated = []
    original = loop_separation.separate_merged_loops

    def counting(func, notes):
        bodies = original(func, notes)
        separated.append(len(bodies))
        return bodies

    monkeypatch.setattr(loop_separation, "separate_merged_loops", counting)
    from reconverge.lowering.frontend.clang import compile_opencl
    source = tmp_path / "k.cl"
    source.write_text(program.source)
    path = tmp_path / "k.ll"
    path.write_text(compile_opencl(str(source), "-O2", ("-g", "-fno-unroll-loops")))
    load_program(str(path), "-O0").functions_for("generic", ["k"])
    assert any(separated)
    run = ProgramRun(program, str(tmp_path))
    configs = [Config("llvm", "-O0"), Config("ir", "-O0"), Config.parse("gen-O2-simd16-hybrid")]
    outcomes = [run.run(c) for c in configs]
    # (the llvm reference declines where the scopes move an operation: ir -O0 is the reference then)
    assert outcomes[0].status in ("ok", "skipped") and [o.status for o in outcomes][1:] == ["ok", "ok"], \
        [o.message for o in outcomes]


def _subgroup_program(name: str, seed: int, n_arg: int = 6):
    """A kept OpenCL C program as the subgroup mode runs it (no -g), at campaign 14's launch of 16441."""
    import os

    from reconverge.tools.fuzz.generator import ARG_NAMES, FuzzProgram
    with open(os.path.join(os.path.dirname(__file__), "kernels_fuzzconv", name), encoding="utf-8") as f:
        source = f.read()
    return FuzzProgram(seed, "subgroup", source, "cl", 64, 32, n_arg=n_arg, arg_names=list(ARG_NAMES),
                       uses_subgroups=True)


# Fuzz subgroup-16441 (campaign 14) on blockIP at -O0, SIMD8 and SIMD16: a while loop gone back to from two
# places (the `continue` of `if (fl2 == 2u) { fl2 = 0u; continue; }` after an inner for loop, and the end of
# the body). blockIP jumped back from the first at once, so its lanes ran the next pass's reduction before
# the lanes still at the second had come round (16 of 32 lanes differed at SIMD8, 57 of 64 at SIMD16).
# cf_regions.share_latches sends such a loop's lanes going back through one latch at its end now.
def test_fuzz_16441_blockip_meets_the_lanes_of_one_pass(tmp_path):
    run = ProgramRun(_subgroup_program("blockip_subgroup_16441.cl", 16441), str(tmp_path))
    outcome = run.run(Config.parse("gen-O0-simd8-blockip"))
    assert outcome.status == "ok", outcome.message


@pytest.mark.parametrize("name,configs", [
    ("blockip_subgroup_16441_reduced.cl", ("gen-O0-simd8-blockip", "gen-O0-simd16-blockip")),
    # a `continue` in a switch: the hybrid keeps the switch's blocks as units too (both failed before)
    ("blockip_continue_in_switch.cl", ("gen-O0-simd8-blockip", "gen-O0-simd16-hybrid")),
], ids=["16441-reduced", "continue-in-switch"])
def test_a_loop_gone_back_to_from_two_places_meets_every_lane_of_a_pass(name, configs, tmp_path):
    run = ProgramRun(_subgroup_program(name, 16441), str(tmp_path))
    for config in configs:
        outcome = run.run(Config.parse(config))
        assert outcome.status == "ok", (config, outcome.message)


def test_only_loops_with_a_sub_group_operation_get_a_shared_latch(tmp_path):
    """The latch is added where a sub-group operation can tell (identity: a kernel without one keeps its
    code), at the end of the loop's units, and the units going back reach it instead of the header."""
    import os

    from reconverge.backend.gen.isel_blockip import join_points, layout
    with open(os.path.join(os.path.dirname(__file__), "kernels_fuzzconv", "blockip_continue_in_switch.cl"),
              encoding="utf-8") as f:
        source = f.read()
    plain = tmp_path / "plain.cl"
    plain.write_text(source.replace("sub_group_non_uniform_reduce_or(1u << lid)", "(1u << lid)"))
    with_op = tmp_path / "with_op.cl"
    with_op.write_text(source)
    func = load_program(str(plain), "-O0").function("k", "gen-blockip")
    assert all(b in func.blocks for b in layout(func))
    func = load_program(str(with_op), "-O0").function("k", "gen-blockip")
    blocks = layout(func)
    (latch,) = [i for i, b in enumerate(blocks) if b not in func.blocks]
    header = blocks.index(next(b for b in func.blocks if any(i.opcode == "subgroup" for i in b.instrs)))
    assert header < latch and all(blocks[k] in func.blocks for k in range(latch + 1, len(blocks)))
    assert join_points(func)[latch] > latch


def test_fuzz_17042_a_continue_beside_its_reduction_is_no_inner_loop(tmp_path):
    """Fuzz convergence-17042 (the generator's continue_loop), reduced: `if (c) { r += reduce(1); continue; }`
    in a while loop. The continue's branch back is written around the reduction and deeper than the loop's
    own test, so loop_separation split the loop at -O0 as if it were a do/while's, and ir -O0 (the reference
    where llvm declines) ran the reduction in a loop that does not exist; ir, spirv and gen at -O2 were right
    and reported as mismatches. A `do`'s test is a conditional branch; a continue is not."""
    run = _kept_run("scopes_continue_in_if_17042.cl", 17042, 32, 16, 2, tmp_path)
    outcomes = [run.run(Config.parse(c)) for c in ("llvm-O0", "ir-O0", "ir-O2", "gen-O0-simd16-blockip")]
    assert [o.status for o in outcomes] == ["ok"] * 4, [o.message for o in outcomes]
