"""tools/input_fuzz.py: malformed LLVM IR gets one line or compiles right, never a crash (a fixed-seed slice;
`python -m reconverge.tools.input_fuzz -n 2000` runs more on demand)."""
from __future__ import annotations

import os
import subprocess

from reconverge.tools import input_fuzz

KERNEL = os.path.join(input_fuzz.ROOT, "tests", "kernels", "binary_search.cl")


def test_a_slice_of_malformed_modules_is_answered_in_one_line_or_compiled(tmp_path):
    modules = input_fuzz.corpus_modules(str(tmp_path))
    assert len(modules) >= 90                  # every corpus kernel at -O0 -g and -O2, and the token files
    wrong = {seed: input_fuzz.run_case(seed, modules, str(tmp_path), None) for seed in range(1, 13)}
    assert not any(wrong.values()), wrong


def test_the_judge_tells_a_crash_and_a_long_error_from_a_right_answer(tmp_path):
    path, out = str(tmp_path / "m.ll"), str(tmp_path / "m.spv")

    def done(code: int, stderr: str) -> subprocess.CompletedProcess:
        return subprocess.CompletedProcess([], code, "", stderr)
    assert input_fuzz.judge(path, out, done(1, f"reconverge: error: {path}: line 3: expected type\n"), "gen") == ""
    assert input_fuzz.judge(path, out, done(-6, "LLVM ERROR: Broken module found\n"), "gen").startswith(
        "exit status -6")
    assert input_fuzz.judge(path, out, done(1, f"reconverge: error: {path}: x\nTraceback\n"), "gen").startswith(
        "not one line")
    open(out, "w").close()
    assert input_fuzz.judge(path, out, done(1, f"reconverge: error: {path}: x\n"), "gen") == \
        "an output file written by a failed command"


def test_mutations_change_the_module_and_are_reproducible():
    import random
    text = "define void @k() {\nentry:\n  %a = add i32 1, 2\n  %b = add i32 %a, 3\n  ret void\n}\n"
    first = input_fuzz.mutate(text, random.Random(7))
    assert first == input_fuzz.mutate(text, random.Random(7))
    assert any(input_fuzz.mutate(text, random.Random(seed))[0] != text for seed in range(5))
