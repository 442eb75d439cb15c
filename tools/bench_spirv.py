"""Benchmark: the SPIR-V backend on the kernel corpus and on generated kernels (run on demand:
`make bench-spirv` or `python3 -m reconverge.tools.bench_spirv`; it is not a test and asserts nothing).

Why: to know what compiling to SPIR-V costs a user next to LLVM's own SPIR-V backend, how big our
modules are before and after spirv-opt, and whether emission stays linear in the input size.

How to read the output (Markdown tables):
1. Per corpus file (tests/kernels/*.cl, examples/*.cl): wall time of one whole process per file,
   `python3 -m reconverge.tools.cli compile FILE -O2 --emit spirv -o OUT.spv` ("ours") next to
   `clang-22 ... -target spirv64 -O2 -c FILE` ("clang"); then the word counts of our module, of the same
   module after `spirv-opt -O` (re-validated with spirv-val for --target-env), and of clang's module.
   Clang emits the OpenCL (Kernel) flavour with unstructured control flow, we emit Vulkan (Shader)
   SPIR-V with structured control flow: its word count is a reference, not a like-for-like target.
2. Totals and the ratio ours/clang; then, in one warm process (imports done, grammar loaded by a
   warm-up compile), the time of `lowering.program.compile_path` (clang-22 to LLVM IR, read,
   structurize, promote) and of `backend.spirv.compile_spirv` (emission) summed over the corpus. What
   the whole-process time has on top of these two is Python start-up, imports and one-time loads.
3. Generated kernels (tools.testing.cfggen.random_kernel, seed --seed) of --sizes blocks, structured once,
   then `compile_spirv` timed alone (best of --repeat, after an untimed warm-up), once as users run it
   and once with Python's cyclic garbage collector off: its full collections walk every live object,
   so at large sizes they add a superlinear term that is not the emitter's. "exponent" is the slope of
   log(time) over log(tree blocks) from the previous size, as in tools/bench_structurize.py.
Failures (a clang error, an error or invalid SPIR-V from us) are counted and listed, never fatal.
"""
from __future__ import annotations

import argparse
import gc
import glob
import math
import os
import random
import subprocess
import sys
import tempfile
import time
from typing import Any

import reconverge.backend.spirv.emit  # noqa: F401  (imported here so that no timed call pays for it)
from reconverge.backend.spirv import compile_spirv
from reconverge.backend.spirv import tools as spirv_tools
from reconverge.backend.spirv.options import SpirvOptions
from reconverge.lowering.pipeline import Options, compile_llvmlite
from reconverge.lowering.program import compile_path
from reconverge.tools.testing.cfggen import random_kernel

ROOT = os.path.dirname(os.path.dirname(os.path.realpath(__file__)))
CORPUS_GLOBS = ("tests/kernels/*.cl", "examples/*.cl")
CLANG = ("clang-22", "-x", "cl", "-cl-std=CL3.0", "-Xclang", "-finclude-default-header",
         "-target", "spirv64", "-O2", "-c")
OPT_LEVEL = "-O2"


def corpus_files() -> list[str]:
    """Corpus paths relative to the repository root, in a stable order."""
    return [os.path.relpath(p, ROOT) for pattern in CORPUS_GLOBS
            for p in sorted(glob.glob(os.path.join(ROOT, pattern)))]


def first_line(text: str) -> str:
    lines = [line for line in text.strip().splitlines() if line.strip()]
    return lines[0][:200] if lines else "no message"


def timed_process(cmd: list[str]) -> tuple[float, str | None]:
    """Wall time of one process run from the repository root, and its first error line if it failed."""
    t0 = time.perf_counter()
    result = subprocess.run(cmd, cwd=ROOT, capture_output=True, text=True, check=False)
    seconds = time.perf_counter() - t0
    return seconds, None if result.returncode == 0 else first_line(result.stderr + result.stdout)


def spv_words(path: str) -> int | None:
    return os.path.getsize(path) // 4 if os.path.exists(path) else None


def ours_command(path: str, out: str) -> list[str]:
    return [sys.executable, "-m", "reconverge.tools.cli", "compile", path, OPT_LEVEL, "--emit", "spirv", "-o", out]


def optimized_words(binary: bytes, target_env: str, what: str) -> tuple[int | None, str | None]:
    """Word count after spirv-opt -O, checked by spirv-val; (None, message) if either complains."""
    try:
        optimized = spirv_tools.optimize(binary, what=what)
        spirv_tools.validate(optimized, target_env, f"{what} after spirv-opt -O")
    except Exception as exc:  # a report, not a crash: the caller lists it
        return None, str(exc)
    return len(optimized) // 4, None


def in_process(path: str, options: SpirvOptions) -> tuple[float, float, bytes]:
    """Seconds in compile_path (front end + structurize) and in compile_spirv, and the module."""
    t0 = time.perf_counter()
    funcs = compile_path(path, OPT_LEVEL, Options(verify_each=False))
    t1 = time.perf_counter()
    binary = compile_spirv(list(funcs.values()), options)
    return t1 - t0, time.perf_counter() - t1, binary


def corpus_row(path: str, tmp: str, options: SpirvOptions) -> dict:
    """Everything measured on one corpus file; errors go into row['errors']."""
    stem = os.path.join(tmp, os.path.basename(path))
    errors: list[str] = []
    row: dict[str, Any] = {"file": path, "errors": errors}
    row["ours_s"], err = timed_process(ours_command(path, stem + ".ours.spv"))
    if err:
        errors.append(f"ours (process): {err}")
    row["clang_s"], row["clang_error"] = timed_process([*CLANG, path, "-o", stem + ".clang.spv"])
    row["clang_words"] = None if row["clang_error"] else spv_words(stem + ".clang.spv")
    try:
        row["front_s"], row["emit_s"], binary = in_process(os.path.join(ROOT, path), options)
        spirv_tools.validate(binary, options.target_env, path)
    except Exception as exc:
        errors.append(f"ours (in process): {exc}")
        return row
    row["words"] = len(binary) // 4
    row["opt_words"], err = optimized_words(binary, options.target_env, path)
    if err:
        errors.append(err)
    return row


def fmt(value, spec: str = "") -> str:
    return "-" if value is None else format(value, spec)


def total(rows: list[dict], key: str) -> float:
    return sum(r.get(key) or 0 for r in rows)


def print_corpus_table(rows: list[dict]) -> None:
    print("| file | ours (s) | clang (s) | words | after spirv-opt -O | clang words (Kernel) |")
    print("|---|---:|---:|---:|---:|---:|")
    for r in rows:
        print(f"| {r['file']} | {r['ours_s']:.2f} | {r['clang_s']:.3f} | {fmt(r.get('words'), ',')} "
              f"| {fmt(r.get('opt_words'), ',')} | {fmt(r.get('clang_words'), ',')} |")


def print_totals(rows: list[dict], startup_s: float) -> None:
    n = len(rows)
    ours, clang = total(rows, "ours_s"), total(rows, "clang_s")
    front, emit = total(rows, "front_s"), total(rows, "emit_s")
    words, opt_words = total(rows, "words"), total(rows, "opt_words")
    both = [r for r in rows if r.get("words") and r.get("opt_words")]
    print(f"\n| {n} files | value |\n|---|---:|")
    print(f"| ours, whole processes (s) | {ours:.2f} |")
    print(f"| clang-22 -target spirv64, whole processes (s) | {clang:.2f} |")
    print(f"| ratio ours / clang | {ours / clang:.1f} |")
    print(f"| ours in process: compile_path, front end + structurize (s) | {front:.2f} |")
    print(f"| ours in process: compile_spirv, emission (s) | {emit:.2f} |")
    print(f"| ours: start-up, imports, one-time loads, I/O (s) | {ours - front - emit:.2f} "
          f"({(ours - front - emit) / n:.2f} per process) |")
    print(f"| for scale: `{os.path.basename(sys.executable)} -c pass` (s per process) | {startup_s:.3f} |")
    print(f"| our words, total | {words:,.0f} |")
    print(f"| after spirv-opt -O, total ({len(both)} files) | {opt_words:,.0f} "
          f"({opt_words / max(1, total(both, 'words')):.0%} of ours on those files) |")
    print(f"| clang words, total (Kernel flavour, {sum(1 for r in rows if r.get('clang_words'))} files) "
          f"| {total(rows, 'clang_words'):,.0f} |")


def print_failures(rows: list[dict]) -> None:
    clang_failed = [r for r in rows if r["clang_error"]]
    ours_failed = [r for r in rows if r["errors"]]
    print(f"\nclang-22 failed on {len(clang_failed)} file(s); ours reported problems on {len(ours_failed)}.")
    for r in clang_failed:
        print(f"- clang: {r['file']}: {r['clang_error']}")
    for r in ours_failed:
        for err in r["errors"]:
            print(f"- ours: {r['file']}: {err}")


def python_startup() -> float:
    return min(timed_process([sys.executable, "-c", "pass"])[0] for _ in range(3))


def run_corpus(options: SpirvOptions) -> None:
    files = corpus_files()
    in_process(os.path.join(ROOT, files[0]), options)      # warm-up: lazy grammar load, first-call caches
    with tempfile.TemporaryDirectory(prefix="bench-spirv-") as tmp:
        rows = []
        for path in files:
            rows.append(corpus_row(path, tmp, options))
            print(f"  {path}", file=sys.stderr, flush=True)
    print_corpus_table(rows)
    print_totals(rows, python_startup())
    print_failures(rows)


def best_time(work, repeat: int) -> float:
    best = math.inf
    for _ in range(repeat):
        t0 = time.perf_counter()
        work()
        best = min(best, time.perf_counter() - t0)
    return best


def growth_row(n_blocks: int, seed: int, repeat: int, options: SpirvOptions) -> dict:
    """Structure one generated kernel, then time compile_spirv on it alone (best of `repeat`), with
    Python's cyclic garbage collector on (as users run it) and off (the emitter's own cost)."""
    funcs = list(compile_llvmlite(random_kernel(random.Random(seed), n_blocks),
                                  options=Options(verify_each=False)).values())
    binary = compile_spirv(funcs, options)     # untimed warm-up: lazy grammar load, first-call caches
    row: dict[str, Any] = {"target": n_blocks, "blocks": sum(len(f.all_blocks()) for f in funcs),
           "instrs": sum(1 for f in funcs for _ in f.instructions()), "words": len(binary) // 4}
    row["emit_s"] = best_time(lambda: compile_spirv(funcs, options), repeat)
    gc.disable()
    try:
        row["emit_nogc_s"] = best_time(lambda: compile_spirv(funcs, options), repeat)
    finally:
        gc.enable()
    try:
        spirv_tools.validate(binary, options.target_env, f"cfggen {n_blocks} blocks, seed {seed}")
        row["valid"] = "yes"
    except Exception as exc:
        row["valid"] = f"no: {exc}"
    return row


def exponent(prev: dict, row: dict, key: str) -> float:
    """Slope of log(row[key]) over log(tree blocks) between two rows."""
    return math.log(row[key] / prev[key]) / math.log(row["blocks"] / prev["blocks"])


def run_growth(sizes: list[int], seed: int, repeat: int, options: SpirvOptions) -> None:
    print(f"\n| cfggen blocks (seed {seed}) | tree blocks | instructions | words | compile_spirv (s) "
          f"| exponent | same, gc off (s) | exponent, gc off | spirv-val |")
    print("|---:|---:|---:|---:|---:|---:|---:|---:|---|")
    rows: list[dict] = []
    for n in sizes:
        row = growth_row(n, seed, repeat, options)
        slopes = [f"{exponent(rows[-1], row, k):.2f}" if rows else "" for k in ("emit_s", "emit_nogc_s")]
        rows.append(row)
        print(f"| {n:,} | {row['blocks']:,} | {row['instrs']:,} | {row['words']:,} | {row['emit_s']:.3f} "
              f"| {slopes[0]} | {row['emit_nogc_s']:.3f} | {slopes[1]} | {row['valid']} |", flush=True)
    if len(rows) > 2:
        print(f"\ngrowth exponent over {rows[0]['blocks']:,}..{rows[-1]['blocks']:,} tree blocks: "
              f"{exponent(rows[0], rows[-1], 'emit_s'):.2f} ({exponent(rows[0], rows[-1], 'emit_nogc_s'):.2f}"
              f" with the garbage collector off)")


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--sizes", default="1000,10000", help="generated kernel sizes, in blocks")
    ap.add_argument("--seed", type=int, default=1)
    ap.add_argument("--repeat", type=int, default=3, help="best of this many emissions per size")
    ap.add_argument("--skip-corpus", action="store_true")
    ap.add_argument("--skip-growth", action="store_true")
    opts = ap.parse_args(argv)
    sys.setrecursionlimit(100000)
    options = SpirvOptions()        # the command line's defaults: SPIR-V 1.3, vulkan1.3
    if not opts.skip_corpus:
        run_corpus(options)
    if not opts.skip_growth:
        run_growth([int(s) for s in opts.sizes.split(",")], opts.seed, opts.repeat, options)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
