"""The gen target never answers wrongly without a word: an out-of-bounds access (a read past a buffer, an
undersized output buffer, through a binding-table surface or an A64 pointer) is a one-line error naming
the buffer, the work-item and the Gen instruction, as the ir target's is; a kernel that never ends stops
at a documented step limit (`--max-steps` on `run` and `trace`), and the ir target's default lets a
real key-derivation kernel (4,096 chained SHA-1 compressions per work-item) run."""
import os
import time

import numpy as np
import pytest

from reconverge.backend.gen import launch
from reconverge.lowering.errors import CompileError
from reconverge.lowering.interp import DEFAULT_MAX_STEPS as IR_DEFAULT
from reconverge.tools.targets.harness import GenRunOptions, InterpreterOptions, load_program, run_target
from tests.test_cli import ROOT, assert_one_line_error, run, write

READ_PAST = ("kernel void k(global int *out, global const int *in) {\n"
             "  int i = get_global_id(0);\n  out[i] = in[i + 4] + 1;\n}\n")
# a pointer into one of two buffers: the kernel is flat, its accesses A64 stateless messages
FLAT_READ_PAST = ("kernel void k(global int *out, global const int *a, global const int *b) {\n"
                  "  int i = get_global_id(0);\n  global const int *p = (i & 1) ? a : b;\n"
                  "  out[i] = p[i + 4];\n}\n")
ENDLESS = "kernel void spin(global int *out, int n) { int i = 0; while (i != n) i += 2; out[0] = i; }\n"
SHA1 = os.path.join(ROOT, "tests", "data", "sha1_chain.cl")


@pytest.mark.parametrize("cf", ["structured", "blockip", "hybrid"])
def test_a_read_past_a_buffer_names_buffer_work_item_and_instruction(tmp_path, cf):
    source = write(tmp_path, "k.cl", READ_PAST)
    result = run("run", source, "--target", "gen", "--cf", cf, "--simd", "8", "--global", "8",
                 "--arg", "out=zeros:8:int32", "--arg", "in=zeros:8:int32", "--out", str(tmp_path / "o"))
    line = assert_one_line_error(result, 1, "k.cl", "@k", "gen target", "out-of-bounds load from", "buffer 'in'",
                                 "(32 bytes)", "work-item (4)", "instruction ", "send")
    assert "0 bytes past the end" in line and not (tmp_path / "o").exists()


def test_an_undersized_output_buffer_is_an_error_not_a_dropped_write(tmp_path):
    program = load_program(write(tmp_path, "k.cl", READ_PAST))
    args = [np.zeros(6, np.int32), np.zeros(16, np.int32)]
    with pytest.raises(CompileError, match=r"work-item \(6\): out-of-bounds store to byte offset 24 \(4 bytes\) "
                                           r"of buffer 'out' \(24 bytes\)"):
        run_target("gen", program, "k", args, 8, 8, GenRunOptions(16, "structured"))
    args = [np.zeros(8, np.int32), np.arange(16, dtype=np.int32)]          # big enough: runs, right
    got = run_target("gen", program, "k", args, 8, 8, GenRunOptions(16, "structured"))
    assert got[0].tolist() == list(range(5, 13))


def test_a64_pointers_are_checked_too(tmp_path):
    program = load_program(write(tmp_path, "k.cl", FLAT_READ_PAST), "-O2")
    args = [np.zeros(8, np.int32), np.zeros(8, np.int32), np.zeros(8, np.int32)]
    with pytest.raises(CompileError, match=r"work-item \(4\): out-of-bounds load from byte offset 32 \(4 bytes\) "
                                           r"of buffer 'b' \(32 bytes\)"):
        run_target("gen", program, "k", args, 8, 8, GenRunOptions(8, "structured"))
    args = [np.zeros(8, np.int32), np.arange(16, dtype=np.int32), np.arange(100, 116, dtype=np.int32)]
    got = run_target("gen", program, "k", args, 8, 8, GenRunOptions(8, "structured"))
    assert got[0].tolist() == [104, 5, 106, 7, 108, 9, 110, 11]


def test_an_endless_kernel_stops_at_max_steps_on_run_and_trace(tmp_path):
    source = write(tmp_path, "spin.cl", ENDLESS)
    common = ["--global", "4", "--arg", "out=zeros:1:int32", "--arg", "n=3", "--max-steps", "1000"]
    started = time.monotonic()
    assert_one_line_error(run("run", source, "--target", "gen", *common, "--out", str(tmp_path / "o")), 1,
                          "@spin", "gen target", "no end after 1000 instructions", "--max-steps")
    assert_one_line_error(run("trace", source, *common, "-o", str(tmp_path / "t.png")), 1,
                          "no end after 1000 instructions")
    assert time.monotonic() - started < 60 and os.listdir(tmp_path) == ["spin.cl"]
    ok = run("run", source, "--target", "gen", "--global", "4", "--arg", "out=zeros:1:int32", "--arg", "n=4",
             "--max-steps", "0", "--out", str(tmp_path / "o"))
    assert ok.returncode == 0, ok.stderr
    assert_one_line_error(run("run", source, "--target", "gen", *common[:-1], "-1", "--out", str(tmp_path / "o2")),
                          2, "--max-steps -1")


def test_a_hand_written_program_stops_at_traces_max_steps(tmp_path):
    asm = write(tmp_path, "spin.asm", "L0:\n(W) jmpi L0\n")
    assert_one_line_error(run("trace", asm, "--simd", "8", "--max-steps", "500", "-o", str(tmp_path / "t.png")), 1,
                          "no end after 500 instructions")


def test_the_gen_default_limit_applies_without_max_steps(tmp_path, monkeypatch):
    program = load_program(write(tmp_path, "spin.cl", ENDLESS))
    monkeypatch.setattr(launch, "DEFAULT_MAX_STEPS", 700)
    with pytest.raises(CompileError, match=r"spin.cl: kernel @spin: gen target: work-group \(0\), thread 0: "
                                           r"no end after 700 instructions"):
        run_target("gen", program, "spin", [np.zeros(1, np.int32), np.int32(3)], 1, 1, GenRunOptions(16, "structured"))


ROUNDS = 8          # the steps of sha1_chain grow linearly with its rounds: a + b * rounds, a >= 0


def test_the_ir_default_lets_4096_sha1_rounds_run_with_a_margin_of_two():
    """ROUNDS rounds run under (default / 2) * ROUNDS / 4096 steps, so 4,096 rounds fit in half the
    default (before: 5,000,000 steps refused them); the results equal the JIT's."""
    budget = IR_DEFAULT // 2 * ROUNDS // 4096
    program = load_program(SHA1, "-O0")
    args = [np.zeros(10, np.uint32), np.arange(2, dtype=np.uint32), np.int32(ROUNDS)]
    got = run_target("ir", program, "sha1_chain", args, 2, 2, InterpreterOptions(budget))
    assert got[0].tolist() == run_target("llvm", program, "sha1_chain", args, 2, 2)[0].tolist()
    with pytest.raises(CompileError, match="step limit"):          # the budget is a real bound
        run_target("ir", program, "sha1_chain", args, 2, 2, InterpreterOptions(budget // 8))


def test_the_gen_default_runs_a_long_corpus_like_kernel():
    """Gen's default (per hardware thread) is far above the corpus's most (tools/step_budget.py): 64
    SHA-1 compressions run under it, with the JIT's results."""
    program = load_program(SHA1, "-O2")
    args = [np.zeros(10, np.uint32), np.arange(2, dtype=np.uint32), np.int32(2)]
    got = run_target("gen", program, "sha1_chain", args, 2, 2, GenRunOptions(16, "hybrid",
                                                                           max_steps=launch.DEFAULT_MAX_STEPS // 32))
    assert got[0].tolist() == run_target("llvm", program, "sha1_chain", args, 2, 2)[0].tolist()


def test_spilling_past_the_scratch_messages_reach_is_a_one_line_refusal(tmp_path):
    """Scratch block messages address 128 KiB of a thread's slot: a kernel that would spill beyond it
    (1,000 nested loops in SIMD16 did) is refused, not an AssertionError in the encoder."""
    from reconverge.backend.gen import select_any
    from reconverge.backend.gen.regalloc import SCRATCH_REACH, allocate
    from tests.gen.test_gen_kernels import _pressure_kernel
    program = load_program(write(tmp_path, "pressure.cl", _pressure_kernel()), "-O2")
    mfunc = select_any(program.function("pressure", "gen"), 16)
    with pytest.raises(CompileError, match=rf"spilling needs \d+ bytes of scratch per thread; scratch block "
                                           rf"messages reach {SCRATCH_REACH}"):
        allocate(mfunc, 8, SCRATCH_REACH - 64)
