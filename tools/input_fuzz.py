"""On demand: malformed LLVM IR against the command line, which must answer it in one line, never crash.

    python -m reconverge.tools.input_fuzz [-n N] [--seed S] [--time-budget 10m] [--save-dir DIR]

Why: the standard says bad input gets a one-line error naming the file, a non-zero exit, no traceback and
no partial output; LLVM's reader aborted the whole process on an invalid module with debug info
(llvm_module._init), which no test had fed it. Each case takes a module of the corpus (clang-22's -O0 -g
and -O2 modules of tests/kernels/*.cl, tests/kernels_tokens/*.ll), applies one to three random line edits
(delete, duplicate or swap lines, another value or label in an operand, another integer type, another
metadata node, a truncation), and runs `reconverge compile` on it in a child process at -O0 or -O2 with
--emit spirv or gen. The answer is right when the process exits 0 (the edit kept the module valid: the
SPIR-V then passes spirv-val) or exits 1 with exactly one line, `reconverge: error: FILE...`, and wrote no
output; anything else (a signal, a traceback, more lines, another status, a timeout) is saved as
DIR/case-N.ll with the command and what it printed.
"""
from __future__ import annotations

import argparse
import glob
import os
import random
import re
import subprocess
import sys
import tempfile
import time

ROOT = os.path.dirname(os.path.dirname(os.path.realpath(__file__)))
_VALUE = re.compile(r"%[-\w.]+")
_INT_TYPE = re.compile(r"\bi(1|8|16|32|64)\b")
_NODE = re.compile(r"!(\d+)\b")
TIMEOUT_S = 120
# the edits, weighted towards modules that still parse (a truncation mostly tests the parser's message)
KINDS = ("delete", "duplicate", "swap", "value", "type", "node", "truncate")
WEIGHTS = (2, 1, 2, 4, 2, 2, 0.5)


def corpus_modules(work: str) -> list[tuple[str, str]]:
    """(name, LLVM IR text) of every corpus module: each kernel file at -O0 -g and -O2, and the token files."""
    modules = []
    for path in sorted(glob.glob(os.path.join(ROOT, "tests", "kernels", "*.cl"))):
        for level, extra in (("-O0", ["-g"]), ("-O2", [])):
            out = os.path.join(work, f"{os.path.basename(path)[:-3]}{level}.ll")
            done = subprocess.run(["clang-22", "-x", "cl", "-cl-std=CL2.0", "-target", "spir64", "-S",
                                   "-emit-llvm", level, *extra, "-o", out, path], capture_output=True)
            if done.returncode == 0:
                with open(out, encoding="utf-8") as f:
                    modules.append((os.path.basename(out), f.read()))
    for path in sorted(glob.glob(os.path.join(ROOT, "tests", "kernels_tokens", "*.ll"))):
        with open(path, encoding="utf-8") as f:
            modules.append((os.path.basename(path), f.read()))
    return modules


def mutate(text: str, rng: random.Random) -> tuple[str, list[str]]:
    """The module with one to three random line edits, and what each did."""
    lines = text.splitlines()
    done = []
    for _ in range(rng.randint(1, 3)):
        i = rng.randrange(len(lines))
        kind = rng.choices(KINDS, WEIGHTS)[0]
        line = lines[i]
        if kind == "delete":
            del lines[i]
        elif kind == "duplicate":
            lines.insert(i, line)
        elif kind == "swap":
            j = min(len(lines) - 1, i + rng.randint(1, 4))
            lines[i], lines[j] = lines[j], lines[i]
        elif kind == "value":
            names = _VALUE.findall(text)
            found = list(_VALUE.finditer(line))
            if not found or not names:
                continue
            m = rng.choice(found)
            lines[i] = line[:m.start()] + rng.choice(names) + line[m.end():]
        elif kind == "type":
            found = list(_INT_TYPE.finditer(line))
            if not found:
                continue
            m = rng.choice(found)
            lines[i] = line[:m.start()] + "i" + rng.choice(("1", "8", "16", "32", "64")) + line[m.end():]
        elif kind == "node":
            found = list(_NODE.finditer(line))
            if not found:
                continue
            m = rng.choice(found)
            lines[i] = line[:m.start()] + f"!{rng.randint(0, 60)}" + line[m.end():]
        else:
            lines = lines[:i] + [line[:rng.randrange(len(line) + 1)]]
        done.append(f"{kind} at line {i + 1}")
    return "\n".join(lines) + "\n", done


def judge(path: str, out: str, proc: subprocess.CompletedProcess, emit: str) -> str:
    """'' where the answer is right, else what is wrong with it."""
    err = proc.stderr.strip().splitlines()
    if proc.returncode == 0:
        if emit == "spirv":
            val = subprocess.run(["spirv-val", "--target-env", "vulkan1.3", out], capture_output=True, text=True)
            if val.returncode != 0:
                return f"exit 0 with an invalid module: {val.stderr.strip()[:300]}"
        return ""
    if proc.returncode != 1:
        return f"exit status {proc.returncode}: {' | '.join(err[-3:])[:400]}"
    if len(err) != 1 or not err[0].startswith(f"reconverge: error: {path}"):
        return f"not one line naming the file: {' | '.join(err[:4])[:400]}"
    if "Traceback" in proc.stderr:
        return "a traceback"
    if os.path.exists(out):
        return "an output file written by a failed command"
    return ""


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="input_fuzz", description=__doc__.split("\n\n")[0])
    parser.add_argument("-n", type=int, default=200, help="cases (default 200)")
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--time-budget", default="", help="stop after this long (90, 90s, 10m or 2h)")
    parser.add_argument("--save-dir", default="input-fuzz-failures")
    args = parser.parse_args(argv)
    from reconverge.tools.fuzz.command import parse_duration
    from reconverge.tools.usage import UsageError
    try:
        budget = parse_duration(args.time_budget) if args.time_budget else 0.0
    except UsageError as exc:
        parser.error(str(exc))
    start, failing, done = time.monotonic(), 0, 0
    with tempfile.TemporaryDirectory() as work:
        modules = corpus_modules(work)
        for case in range(args.n):
            if budget and time.monotonic() - start > budget:
                break
            failing += bool(run_case(args.seed + case, modules, work, args.save_dir))
            done += 1
            print(f"[{done}/{args.n}] failing {failing}", flush=True)
    print(f"{done} cases, {failing} failing")
    return 1 if failing else 0


def run_case(seed: int, modules: list[tuple[str, str]], work: str, save_dir: str | None) -> str:
    """One malformed module compiled in a child: '' where it was answered right, else what went wrong."""
    rng = random.Random(seed)
    name, text = rng.choice(modules)
    mutated, edits = mutate(text, rng)
    level, emit = rng.choice(("-O0", "-O2")), rng.choice(("spirv", "gen"))
    path, out = os.path.join(work, f"case-{seed}.ll"), os.path.join(work, f"case-{seed}.out")
    with open(path, "w", encoding="utf-8") as f:
        f.write(mutated)
    command = [sys.executable, "-m", "reconverge.tools.cli", "compile", path, level, "--emit", emit, "-o", out]
    try:
        proc = subprocess.run(command, capture_output=True, text=True, timeout=TIMEOUT_S,
                              env=dict(os.environ, PYTHONPATH=ROOT))
        wrong = judge(path, out, proc, emit)
    except subprocess.TimeoutExpired:
        wrong = f"no answer in {TIMEOUT_S} s"
    if wrong and save_dir:
        os.makedirs(save_dir, exist_ok=True)
        with open(os.path.join(save_dir, f"case-{seed}.ll"), "w", encoding="utf-8") as f:
            f.write(f"; from {name}, {', '.join(edits)}; reconverge compile {level} --emit {emit}\n; {wrong}\n")
            f.write(mutated)
    for leftover in (path, out):
        if os.path.exists(leftover):
            os.remove(leftover)
    return wrong


if __name__ == "__main__":
    sys.exit(main())
