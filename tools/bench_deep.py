"""Benchmark: how our passes scale with depth and width (run on demand: `python3 -m reconverge.tools.bench_deep`;
not a test, it asserts nothing).

Why: deep and wide programs used to be quadratic (a switch became one nested if per case, the SSA
rebuild walked every case for every variable) or hit Python's recursion limit. Three shapes, each at
several sizes: a switch of N cases (every third falling through), N nested loops whose bounds are
loads (so LLVM cannot fold them), and N nested ifs written as LLVM IR (clang refuses more than 2,048
nested brackets). clang-22's own time is listed apart: it is not ours, and at -O2 it is the
quadratic part. "ours" is lowering.pipeline.compile_llvm (read, structurize, promote, validator after
each pass) on clang's output, best of --repeat runs; "exponent" the slope of log(time) over log(N)
from the previous size.

With `--gen [--sizes N,N,..]`: the Gen backend on nested ifs and nested loops (test_deep_programs.py's
shapes, as LLVM IR at -O0): the middle end's function for each control-flow mode, then
compile_gen_kernel (selection, allocation, emission) timed alone per mode, and the hybrid's refusal
beyond its region search (cf_regions.MAX_ROUNDS).
"""
from __future__ import annotations

import argparse
import math
import os
import tempfile
import time

from reconverge.lowering.errors import CompileError
from reconverge.lowering.frontend.clang import compile_opencl
from reconverge.lowering.pipeline import compile_llvm
from tests.test_deep_programs import nested_ifs, wide_switch


def nested_loops_cl(n: int) -> str:
    body = "".join(f"for (int i{i} = 0; i{i} < in[{i % 16}]; i{i}++) {{ acc += in[(i{i} + {i}) & 15];\n"
                   for i in range(n))
    return ("kernel void k(global int *out, global const int *in) {\n int acc = 0;\n" + body + "}" * n
            + "\n out[get_global_id(0)] = acc; }\n")


def measure(make_ir, sizes, repeat: int):
    rows, previous = [], None
    for n in sizes:
        started = time.perf_counter()
        ir = make_ir(n)
        clang = time.perf_counter() - started
        best = min(_time(lambda: compile_llvm(ir, "bench")) for _ in range(repeat))
        slope = "" if previous is None else f"{math.log(best / previous[1]) / math.log(n / previous[0]):.2f}"
        rows.append((n, clang, best, slope))
        previous = (n, best)
    return rows


def _time(fn) -> float:
    started = time.perf_counter()
    fn()
    return time.perf_counter() - started


def measure_gen(sizes) -> None:
    """compile_gen_kernel's seconds per mode and depth (SIMD16), with the growth exponent."""
    from reconverge.backend.gen import choose_function, compile_gen_kernel
    from reconverge.tools.targets.harness import load_program
    from tests.test_deep_programs import nested_loops
    tmp = tempfile.mkdtemp(prefix="reconverge-bench-deep-gen-")
    print("| shape (-O0) | N | mode | middle end s | Gen backend s | instructions | exponent |")
    print("|---|---|---|---|---|---|---|")
    for shape, make in (("nested ifs", nested_ifs), ("nested loops", nested_loops)):
        previous: dict[str, tuple[int, float]] = {}
        for n in sizes:
            path = os.path.join(tmp, f"{shape.split()[1]}{n}.ll")
            with open(path, "w") as f:
                f.write(make(n))
            program = load_program(path, "-O0")
            for mode in ("structured", "blockip", "hybrid"):
                started = time.perf_counter()
                func, used = choose_function(program, "k", mode)
                middle = time.perf_counter() - started
                started = time.perf_counter()
                try:
                    size = str(len(compile_gen_kernel(func, 16, regions=used.regions, entry=used.entry).program))
                except CompileError as exc:
                    size = "refused: " + str(exc).split("; ")[0].split(": ", 1)[-1]
                took = time.perf_counter() - started
                slope = ""
                if mode in previous and not size.startswith("refused"):
                    m, t = previous[mode]
                    slope = f"{math.log(took / t) / math.log(n / m):.2f}"
                if not size.startswith("refused"):
                    previous[mode] = (n, took)
                print(f"| {shape} | {n} | {mode} | {middle:.2f} | {took:.2f} | {size} | {slope} |", flush=True)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--repeat", type=int, default=1)
    parser.add_argument("--opt", default="-O2")
    parser.add_argument("--gen", action="store_true", help="the Gen backend on nested ifs and loops instead")
    parser.add_argument("--sizes", default="1250,2500,5000", help="--gen: the depths (default %(default)s)")
    args = parser.parse_args()
    if args.gen:
        measure_gen([int(n) for n in args.sizes.split(",")])
        return
    tmp = tempfile.mkdtemp(prefix="reconverge-bench-deep-")

    def from_cl(make):
        def ir(n):
            path = os.path.join(tmp, f"k{n}.cl")
            with open(path, "w") as f:
                f.write(make(n))
            return compile_opencl(path, args.opt)
        return ir

    shapes = [("switch cases", from_cl(wide_switch), (2500, 5000, 10000)),
              ("nested loops", from_cl(nested_loops_cl), (100, 200, 400)),
              ("nested ifs (IR)", nested_ifs, (1000, 2000, 4000, 8000))]
    print(f"| shape ({args.opt}) | N | clang-22 s | ours s | exponent |\n|---|---|---|---|---|")
    for name, make, sizes in shapes:
        for n, clang, ours, slope in measure(make, sizes, args.repeat):
            print(f"| {name} | {n} | {clang:.2f} | {ours:.2f} | {slope} |", flush=True)


if __name__ == "__main__":
    main()
