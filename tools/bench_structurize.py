"""Benchmark: structurize generated reducible CFGs of growing size (run on demand: `make bench`).

For each size, tools.testing.cfggen makes a kernel of about N blocks (nested loops, multi-level breaks,
continues, switches, early returns), the front end reads it into CFG form (timed apart), and the
structurize pass (tree building plus SSA reconstruction) is timed alone, best of --repeat runs. The growth
exponent is the slope of log(time) over log(blocks) between consecutive sizes and over the whole range.
"""
from __future__ import annotations

import argparse
import gc
import math
import random
import statistics
import sys
import time

from reconverge.lowering.frontend.llvm_module import parse_llvm_text, prepare_module
from reconverge.lowering.frontend.llvm_reader import read_kernels
from reconverge.lowering.ir.validate import validate
from reconverge.lowering.passes.structurize import structurize
from reconverge.tools.testing.cfggen import random_kernel


def measure(n_blocks: int, seed: int, repeat: int, check: bool) -> dict:
    """Seconds to read (parse, prepare, read: the front end) and to structurize, wall and CPU (`*_cpu`):
    the structurizer's best of `repeat` runs, the last run's read."""
    text = str(random_kernel(random.Random(seed), n_blocks))
    best = best_cpu = math.inf
    for _ in range(repeat):
        func, run = _front_end(text, n_blocks)
        best, best_cpu = min(best, run["structurize"]), min(best_cpu, run["structurize_cpu"])
    errors = validate(func) if check else []
    if errors:
        raise SystemExit(f"invalid tree for {n_blocks} blocks: {errors[0]}")
    return {**run, "structurize": best, "structurize_cpu": best_cpu}


def _front_end(text: str, n_blocks: int) -> tuple:
    """One run of the front end and the structurizer on a generated kernel's text: the function, and the
    seconds of each (wall, and CPU as `*_cpu`). An earlier run's cyclic garbage is collected first, as a
    compile's process starts without it (left, the collector walked it inside a later run: 5.8 s against 4.8)."""
    gc.collect()
    t0, c0 = time.perf_counter(), time.process_time()
    mod = prepare_module(parse_llvm_text(text, f"cfggen-{n_blocks}"), f"cfggen-{n_blocks}")
    func = read_kernels(mod, f"cfggen-{n_blocks}", None)["k"]
    t1, c1 = time.perf_counter(), time.process_time()
    blocks = len(func.blocks)
    structurize(func)
    t2, c2 = time.perf_counter(), time.process_time()
    return func, {"target": n_blocks, "blocks": blocks, "read": t1 - t0, "structurize": t2 - t1,
                  "read_cpu": c1 - c0, "structurize_cpu": c2 - c1}


def front_end_growth(sizes: tuple[int, ...] = (10_000, 30_000, 100_000), seed: int = 1, runs: int = 3) -> dict:
    """The front end (parse, prepare, read) and the structurizer on generated kernels of each size, in CPU
    seconds (the machine is shared: wall time is not the program's), with each one's growth exponent (the
    least-squares slope of log(seconds) over log(blocks)). For `make bench`'s table: each figure the median
    of `runs` runs (one run of the 100k-block kernel read anywhere from 4.86 to 5.01 s in one hour), the
    sizes taken in turn."""
    texts = [str(random_kernel(random.Random(seed), n)) for n in sizes]
    samples = [[_front_end(text, n)[1] for text, n in zip(texts, sizes)] for _ in range(runs)]
    rows = []
    for at in range(len(sizes)):
        runs_of_size = [sample[at] for sample in samples]
        row = dict(runs_of_size[0])
        for key in ("read", "structurize", "read_cpu", "structurize_cpu"):
            row[key] = statistics.median(r[key] for r in runs_of_size)
        row["total_cpu"] = statistics.median(r["read_cpu"] + r["structurize_cpu"] for r in runs_of_size)
        rows.append(row)
    return {"rows": rows,
            "read_exponent": _slope([(r["blocks"], r["read_cpu"]) for r in rows]),
            "structurize_exponent": _slope([(r["blocks"], r["structurize_cpu"]) for r in rows])}


def _slope(points: list[tuple[int, float]]) -> float:
    xs = [math.log(n) for n, _ in points]
    ys = [math.log(max(s, 1e-6)) for _, s in points]
    mx, my = sum(xs) / len(xs), sum(ys) / len(ys)
    return sum((x - mx) * (y - my) for x, y in zip(xs, ys)) / sum((x - mx) ** 2 for x in xs)


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--sizes", default="1000,10000,100000")
    ap.add_argument("--seed", type=int, default=1)
    ap.add_argument("--repeat", type=int, default=1)
    ap.add_argument("--no-check", action="store_true", help="skip validating the result")
    opts = ap.parse_args(argv)
    sys.setrecursionlimit(100000)
    rows: list[dict] = []
    print(f"{'blocks':>8} {'read (s)':>9} {'read CPU':>9} {'structurize (s)':>16} {'CPU':>7} {'exponent':>9}")
    for n in (int(s) for s in opts.sizes.split(",")):
        row = measure(n, opts.seed, opts.repeat, not opts.no_check)
        slope = ""
        if rows:
            prev = rows[-1]
            growth = math.log(row['structurize'] / prev['structurize']) / math.log(row['blocks'] / prev['blocks'])
            slope = f"{growth:.2f}"
        rows.append(row)
        print(f"{row['blocks']:>8} {row['read']:>9.2f} {row['read_cpu']:>9.2f} {row['structurize']:>16.3f} "
              f"{row['structurize_cpu']:>7.2f} {slope:>9}", flush=True)
    if len(rows) > 1:
        first, last = rows[0], rows[-1]
        overall = math.log(last["structurize"] / first["structurize"]) / math.log(last["blocks"] / first["blocks"])
        print(f"growth exponent over {first['blocks']}..{last['blocks']} blocks: {overall:.2f} (structurize), "
              f"{_slope([(r['blocks'], r['read_cpu']) for r in rows]):.2f} (read, CPU)")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
