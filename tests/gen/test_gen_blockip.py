"""`--cf blockip`: Beignet's per-lane blockIP scheme on the CFG form (backend/gen/isel_blockip.py).

- Beignet's unit-test scenarios (tests/gen/blockip/scenarios.cl) give Beignet's published outputs and the
  JIT's, in SIMD8 and SIMD16, at -O0 and -O2; the goto into a loop's middle is irreducible at -O0, which
  the structurizer refuses in one line while blockIP runs it.
- JOIN points on a hand-built CFG equal the rule's answer worked by hand.
- The whole corpus equals the JIT in blockip mode (the random-CFG slice: test_gen_random_cfg.py).
- Every blockip binary decodes with iga64 to our text (its jmpi's .any16h/.any8h group tests included).
"""
from __future__ import annotations

import glob
import os
import re
import subprocess

import numpy as np
import pytest

from reconverge.backend.gen import CF_MODES, compile_gen
from reconverge.backend.gen.isel_blockip import join_points, layout
from reconverge.backend.gen.launch import run_gen_kernel
from reconverge.isa.gen9.encoding import encode_program
from reconverge.lowering.errors import IrreducibleCFG
from reconverge.tools.targets.harness import (
    GenRunOptions,
    compare,
    ir_arguments,
    kernel_params,
    load_program,
    program_from_llvm,
    run_target,
)
from reconverge.tools.testing.float_policy import float_ulps
from reconverge.tools.testing.kernel_spec import parse_specs
from tests.gen.iga import iga_text

HERE = os.path.dirname(__file__)
SCENARIOS = os.path.join(HERE, "blockip", "scenarios.cl")
ROOT = os.path.join(HERE, os.pardir, os.pardir)
CORPUS = sorted(glob.glob(os.path.join(ROOT, "tests", "kernels", "*.cl"))) + \
    sorted(glob.glob(os.path.join(ROOT, "examples", "*.cl")))


def _filled(value: int, n: int = 32, head: tuple[int, int] | None = None) -> np.ndarray:
    a = np.full(n, value, np.int32)
    if head is not None:
        a[:head[0]] = head[1]
    return a


# (kernel, input, expected output over the first 16 or 32 work-items) -- Beignet's utest expectations
CASES = [
    ("into_loop", _filled(2), np.r_[np.full(16, 2), np.full(16, 1)]),
    ("into_loop", _filled(-2), np.full(32, 1)),
    ("into_loop", _filled(-2, head=(8, 2)), np.r_[np.full(8, 2), np.full(24, 1)]),
    ("crossing_gotos", _filled(2), np.full(16, 2)),
    ("crossing_gotos", _filled(-2), np.full(16, 3)),
    ("three_labels", _filled(2), np.full(16, 12)),
    ("three_labels", _filled(-2), np.full(16, -6)),
    ("skip_decrement", _filled(2), np.full(16, 2)),
    ("skip_decrement", _filled(0), np.full(16, 3)),
    ("return_under_or", _filled(2), np.r_[np.arange(11), np.full(5, 2)]),
    ("return_under_or", _filled(2, head=(4, -2)), np.r_[np.full(4, -2), np.arange(4, 11), np.full(5, 2)]),
    ("plain_if_else", _filled(2), np.full(16, 2)),
    ("plain_if_else", _filled(-1), np.full(16, -2)),
    ("plain_if_else", _filled(-1, head=(4, 2)), np.r_[np.full(3, 2), [-1], np.full(12, -2)]),
]


@pytest.mark.parametrize("level", ["-O0", "-O2"])
@pytest.mark.parametrize("simd", [8, 16])
@pytest.mark.parametrize("cf", ["structured", "blockip", "hybrid", "auto"])
def test_beignet_scenarios_give_beignets_outputs(simd, level, cf):
    program = load_program(SCENARIOS, level)
    for kernel, src, want in CASES:
        args = [src.copy(), np.zeros(32, np.int32)]
        reference = run_target("llvm", program, kernel, [src.copy(), np.zeros(32, np.int32)], (16,), (16,))
        try:
            got = run_target("gen", program, kernel, args, (16,), (16,), GenRunOptions(simd, cf))
        except IrreducibleCFG:                      # the goto into a loop, which only the tree refuses
            assert (cf, kernel) == ("structured", "into_loop")
            continue
        assert np.array_equal(got[1][:want.size], want), (kernel, level, simd, got[1][:want.size])
        assert compare(reference, got, ["src", "dst"], labels=("llvm", "gen")) == [], (kernel, level, simd)


def test_an_irreducible_loop_runs_under_blockip_and_the_tree_through_a_guard_loop():
    program = load_program(SCENARIOS, "-O0")
    assert program.function("into_loop").guarded_cycles == 1
    for cf in ("blockip", "structured"):
        got = run_target("gen", program, "into_loop", [_filled(2), np.zeros(32, np.int32)], (16,), (16,),
                         GenRunOptions(16, cf))
        assert got[1].tolist() == [2] * 16 + [1] * 16, cf


DIAMOND_LOOP = """
define spir_kernel void @k(ptr addrspace(1) %out, i32 %n) {
b0:
  %c0 = icmp sgt i32 %n, 0
  br i1 %c0, label %b1, label %b3
b1:
  %i = phi i32 [ 0, %b0 ], [ %next, %b2 ]
  br label %b2
b2:
  %next = add i32 %i, 1
  %again = icmp slt i32 %next, %n
  br i1 %again, label %b1, label %b3
b3:
  %r = phi i32 [ 0, %b0 ], [ %next, %b2 ]
  store i32 %r, ptr addrspace(1) %out
  ret void
}
"""


def test_join_points_follow_the_pending_block_rule():
    """Layout b0..b3, exit 4. b0: nothing pending, so the exit. b0 sends lanes to 1 and 3. b1: 1 leaves,
    the backward branch b2 -> b1 adds its fall-through 3: JOIN 3. b2: 2 leaves, 3 stays: JOIN 3. b3: none
    pending: the exit."""
    func = program_from_llvm(DIAMOND_LOOP, "diamond.ll").function("k", "gen-blockip")
    assert [len(b.phis and list(b.phis())) for b in layout(func)] == [0, 1, 0, 1]     # b0 b1 b2 b3 in order
    assert join_points(func) == {0: 4, 1: 3, 2: 3, 3: 4}


@pytest.mark.parametrize("level", ["-O0", "-O2"])
@pytest.mark.parametrize("path", CORPUS, ids=lambda p: os.path.basename(p)[:-3])
@pytest.mark.parametrize("cf", ["blockip", "blockip-predicated", "hybrid"])
def test_the_corpus_runs_right_under_blockip(path, level, cf):
    """blockIP with each of Beignet's entry sequences, and the hybrid."""
    program = load_program(path, level)
    for spec in parse_specs(path):
        func = program.function(spec.kernel, "gen-blockip")
        reference = run_target("llvm", program, spec.kernel, spec.make_args(3), spec.global_size, spec.local_size,
                               global_offset=spec.global_offset)
        for simd in (8, 16):
            got = spec.make_args(3)
            run_gen_kernel(func, ir_arguments(func, got), spec.global_size, spec.local_size, simd,
                           spec.global_offset, regions=CF_MODES[cf].regions, entry=CF_MODES[cf].entry)
            problems = compare(reference, got, [p.name for p in kernel_params(func)], float_ulps=float_ulps(func),
                               labels=("llvm", "gen"))
            assert not problems, f"{spec.kernel} {level} SIMD{simd} {cf}: {problems[0]}"


def test_auto_takes_the_hybrid_where_it_is_estimated_clearly_cheaper_or_the_structurizer_gives_up():
    from reconverge.backend.gen import choose_function

    def chosen(path, kernel, level="-O2"):
        return choose_function(load_program(os.path.join(ROOT, path), level), kernel)[1].name
    assert chosen("tests/kernels/continue_outer.cl", "continue_outer") == "hybrid"   # continues to an outer loop
    assert chosen("tests/kernels/loop_multi_exit.cl", "loop_multi_exit") == "hybrid"  # a loop leaving twice
    # irreducible: the tree's guard loop is weighed like any tree; a sub-group operation in the cycle has none
    assert chosen("tests/gen/blockip/scenarios.cl", "into_loop", "-O0") == "structured"
    assert chosen("tests/gen/blockip/lanes_irreducible_subgroup.ll", "irreducible", "-O0") == "hybrid"
    # the hybrid executes more here (README, "Gen control-flow modes"), and is not estimated clearly cheaper
    for path, kernel in (("tests/kernels/if_else_chain.cl", "if_else_chain"), ("tests/kernels/early_return.cl",
                                                                               "early_return")):
        assert chosen(path, kernel) == "structured", kernel
    assert chosen("tests/kernels/int_math.cl", "int_math") == "structured"      # no branch: nothing to gain


def test_gen_asm_marks_blocks_and_join_targets():
    import sys
    cli = subprocess.run([sys.executable, "-m", "reconverge.tools.cli", "compile", SCENARIOS, "-O2", "--emit", "gen-asm",
                          "--kernel", "three_labels", "--cf", "blockip"], capture_output=True, text=True,
                         cwd=ROOT)
    assert cli.returncode == 0, cli.stderr
    assert "// block B0: lanes with blockIP <= 0 run it" in cli.stdout and "// JOIN -> B" in cli.stdout


@pytest.mark.parametrize("simd", [8, 16])
def test_blockip_binaries_decode_with_iga64(tmp_path, simd):
    program = load_program(SCENARIOS, "-O0")
    for kernel in ("into_loop", "three_labels", "return_under_or"):
        text = iga_text(encode_program(compile_gen(program.function(kernel, "gen-blockip"), simd)), tmp_path, kernel)
        assert f".any{simd}h" in text


@pytest.mark.parametrize("simd", [8, 16])
def test_hybrid_and_scheme_a_binaries_decode_with_iga64(tmp_path, simd):
    """The hybrid's predicated break, cont and while, and scheme A's flag juggling, as iga64 reads them."""
    import random

    from reconverge.lowering.pipeline import Options, compile_llvm
    from reconverge.tools.testing.cfggen import random_kernel
    funcs = [load_program(os.path.join(ROOT, path), "-O2").function(kernel, "gen-blockip") for path, kernel in (
        ("tests/kernels/while_continue.cl", "while_continue"), ("tests/kernels/bit_loops.cl", "bit_loops"),
        ("examples/nested_break.cl", "nested_break"), ("tests/kernels/gcd_lcm.cl", "gcd_lcm"))]
    for n_blocks, seed in [(45, 7), (80, 8), (120, 5)]:            # random CFGs whose loops break and continue
        funcs.append(compile_llvm(str(random_kernel(random.Random(seed), n_blocks)), source_name="cfggen",
                                  options=Options(kernel="k", pipeline="gen-blockip"))["k"])
    texts = []
    for i, func in enumerate(funcs):
        for options in ({"regions": True}, {"entry": "predicate"}):
            code = encode_program(compile_gen(func, simd, **options))
            texts.append(iga_text(code, tmp_path, f"{func.name}{i}-{len(texts)}"))
    text = "\n".join(texts)
    for predicated in ("break", "cont", "while"):
        assert re.search(rf"\(~?f0\.0\)\s+{predicated}\b", text), predicated


@pytest.mark.parametrize("level", ["-O0", "-O2"])
def test_a_block_no_lane_wants_never_runs_with_an_empty_mask(level):
    """All lanes take the first goto of crossing_gotos, so the blocks between it and its target are
    wanted by none: their entry test jumps to the JOIN point, and the trace shows no ALU or send that ran
    with no lane enabled (only NoMask bookkeeping, branches, and instructions whose own predicate picks
    no lane run for nobody)."""
    from reconverge.isa.gen9.sim_trace import CF_OPS
    from reconverge.isa.gen9.simulator import Trace
    func = load_program(SCENARIOS, level).function("crossing_gotos", "gen-blockip")
    trace = Trace()
    run_gen_kernel(func, [_filled(2), np.zeros(32, np.int32)], (16,), (16,), 16, trace=trace)
    assert trace.labels
    idle = [e for e in trace.events
            if not e.we_all and not e.predicated and e.opcode not in CF_OPS and not e.mask.any()]
    assert idle == [], idle[:3]
    entered = {trace.labels[e.address] for e in trace.events if e.address in trace.labels}
    if level == "-O0":                               # -O2 folds the skipped blocks into selects
        assert len(entered) < len(trace.labels)      # some block's entry was jumped over


def test_run_draws_a_compiled_kernels_lane_activity_with_block_labels(tmp_path):
    import sys
    np.save(tmp_path / "in.npy", _filled(2))
    cli = subprocess.run([sys.executable, "-m", "reconverge.tools.cli", "run", SCENARIOS, "-O0", "--kernel", "into_loop",
                          "--target", "gen", "--cf", "blockip", "--global", "16", "--arg", f"in=@{tmp_path}/in.npy",
                          "--arg", "out=zeros:32:int32", "--out", str(tmp_path / "res"), "--trace",
                          str(tmp_path / "lanes.png")], capture_output=True, text=True, cwd=ROOT)
    assert cli.returncode == 0, cli.stderr
    assert (tmp_path / "lanes.png").read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"
    assert np.load(tmp_path / "res" / "out.npy").tolist() == [2] * 16 + [1] * 16


def test_trace_draws_a_kernel_source_as_run_does_and_refuses_what_it_cannot_launch(tmp_path):
    import sys
    np.save(tmp_path / "in.npy", _filled(2))
    launch = ["-O0", "--kernel", "into_loop", "--cf", "hybrid", "--global", "16", "--arg", f"in=@{tmp_path}/in.npy",
              "--arg", "out=zeros:32:int32"]

    def cli(*argv):
        return subprocess.run([sys.executable, "-m", "reconverge.tools.cli", *argv], capture_output=True, text=True, cwd=ROOT)
    traced = cli("trace", SCENARIOS, *launch, "-o", str(tmp_path / "trace.png"))
    assert traced.returncode == 0, traced.stderr
    ran = cli("run", SCENARIOS, *launch, "--target", "gen", "--out", str(tmp_path / "res"), "--trace",
              str(tmp_path / "run.png"))
    assert ran.returncode == 0, ran.stderr
    assert (tmp_path / "trace.png").read_bytes() == (tmp_path / "run.png").read_bytes()
    for argv, message in ((["trace", SCENARIOS, "--kernel", "into_loop"], "needs --global"),
                          (["trace", SCENARIOS, *launch, "--threads", "2"], "--threads applies to .krn/.asm")):
        refused = cli(*argv, "-o", str(tmp_path / "no.png"))
        assert refused.returncode == 2 and message in refused.stderr and "Traceback" not in refused.stderr
        assert not (tmp_path / "no.png").exists()


@pytest.mark.parametrize("cf", ["blockip", "hybrid"])
def test_a_goto_state_machine_in_a_divergent_loop_with_a_reduction_before_it(cf, tmp_path):
    """Fuzz all-110769: a `while` that half the lanes run, an `if` around a sub-group reduce_and, then a goto
    state machine (an irreducible cycle without sub-group operations). At -O2 the state machine's units were
    laid out after the one unit going back to the loop's header, so lanes leaving the machine early ran the
    next pass's reduction while one lane still in it waited (3 of 64 lanes wrong at SIMD8 and SIMD16);
    such a loop now goes back through a latch unit after all its units (cf_regions.share_latches)."""
    _agrees("blockip_state_machine_in_divergent_loop_110769.cl", 110769, 64, 32, 4, "-O2", 8, cf, tmp_path)


def _agrees(name: str, seed: int, global_size: int, local_size: int, n_arg: int, level: str, simd: int, cf: str,
            tmp_path) -> None:
    """The `all`-mode fuzz program kept as tests/kernels_fuzzconv/NAME runs on gen as the campaign ran it,
    and agrees with its reference (the runner's: llvm -O0, or ir where llvm declines)."""
    from reconverge.tools.fuzz.generator import ARG_NAMES, FuzzProgram
    from reconverge.tools.fuzz.runner import Config, ProgramRun
    with open(os.path.join(os.path.dirname(os.path.dirname(__file__)), "kernels_fuzzconv", name),
              encoding="utf-8") as f:
        source = f.read()
    program = FuzzProgram(seed, "all", source, "cl", global_size, local_size, irreducible=True, n_arg=n_arg,
                          arg_names=list(ARG_NAMES), uses_subgroups=True)
    outcome = ProgramRun(program, str(tmp_path)).run(Config("gen", level, simd, cf))
    assert outcome.status == "ok", outcome.message


@pytest.mark.parametrize("simd", [8, 16])
@pytest.mark.parametrize("cf", ["blockip", "hybrid"])
def test_a_scan_after_a_goto_state_machine_meets_every_lane_that_left_it(cf, simd, tmp_path):
    """Fuzz all-56733: a goto state machine entered at two labels (an irreducible cycle), then, outside
    it, a sub_group_scan_exclusive_min. At -O0 one unit of the cycle was laid out after the scan's, so
    the scan ran once for the lanes that had left the cycle and again for the last ones, and one lane of
    two sub-groups got the scan of only itself (2 of 32 lanes wrong, SIMD8 and SIMD16); every cycle's
    units now stand together (cf_regions.cycles_together). The reference is ir's (llvm declines a
    sub-group operation in an irreducible CFG)."""
    _agrees("blockip_scan_after_goto_machine_56733.cl", 56733, 32, 8, 7, "-O0", simd, cf, tmp_path)
