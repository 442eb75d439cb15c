"""Benchmark: how our passes scale with depth and width (run on demand: `python3 -m tools.bench_deep`;
not a test, it asserts nothing).

Why: deep and wide programs used to be quadratic (a switch became one nested if per case, the SSA
rebuild walked every case for every variable) or hit Python's recursion limit. Three shapes, each at
several sizes: a switch of N cases (every third falling through), N nested loops whose bounds are
loads (so LLVM cannot fold them), and N nested ifs written as LLVM IR (clang refuses more than 2,048
nested brackets). clang-22's own time is listed apart: it is not ours, and at -O2 it is the
quadratic part. "ours" is lowering.pipeline.compile_llvm (read, structurize, promote, validator after
each pass) on clang's output, best of --repeat runs; "exponent" the slope of log(time) over log(N)
from the previous size.
"""
from __future__ import annotations

import argparse
import math
import os
import tempfile
import time

from lowering.frontend.clang import compile_opencl
from lowering.pipeline import compile_llvm
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


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--repeat", type=int, default=1)
    parser.add_argument("--opt", default="-O2")
    args = parser.parse_args()
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
