"""Benchmark: structurize generated reducible CFGs of growing size (run on demand: `make bench`).

For each size, tools.testing.cfggen makes a kernel of about N blocks (nested loops, multi-level breaks,
continues, switches, early returns), the front end reads it into CFG form (timed apart), and the
structurize pass (tree building plus SSA reconstruction) is timed alone, best of --repeat runs. The growth
exponent is the slope of log(time) over log(blocks) between consecutive sizes and over the whole range.
"""
from __future__ import annotations

import argparse
import math
import random
import sys
import time

from reconverge.lowering.frontend.llvm_module import parse_llvm_text, prepare_module
from reconverge.lowering.frontend.llvm_reader import read_kernels
from reconverge.lowering.ir.validate import validate
from reconverge.lowering.passes.structurize import structurize
from reconverge.tools.testing.cfggen import random_kernel


def measure(n_blocks: int, seed: int, repeat: int, check: bool) -> dict:
    text = str(random_kernel(random.Random(seed), n_blocks))
    best = math.inf
    for _ in range(repeat):
        t0 = time.perf_counter()
        mod = prepare_module(parse_llvm_text(text, f"cfggen-{n_blocks}"), f"cfggen-{n_blocks}")
        func = read_kernels(mod, f"cfggen-{n_blocks}", None)["k"]
        t1 = time.perf_counter()
        blocks = len(func.blocks)
        structurize(func)
        t2 = time.perf_counter()
        best = min(best, t2 - t1)
        read_time = t1 - t0
    errors = validate(func) if check else []
    if errors:
        raise SystemExit(f"invalid tree for {n_blocks} blocks: {errors[0]}")
    return {"target": n_blocks, "blocks": blocks, "read": read_time, "structurize": best}


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--sizes", default="1000,10000,100000")
    ap.add_argument("--seed", type=int, default=1)
    ap.add_argument("--repeat", type=int, default=1)
    ap.add_argument("--no-check", action="store_true", help="skip validating the result")
    opts = ap.parse_args(argv)
    sys.setrecursionlimit(100000)
    rows: list[dict] = []
    print(f"{'blocks':>8} {'read (s)':>9} {'structurize (s)':>16} {'exponent':>9}")
    for n in (int(s) for s in opts.sizes.split(",")):
        row = measure(n, opts.seed, opts.repeat, not opts.no_check)
        slope = ""
        if rows:
            prev = rows[-1]
            growth = math.log(row['structurize'] / prev['structurize']) / math.log(row['blocks'] / prev['blocks'])
            slope = f"{growth:.2f}"
        rows.append(row)
        print(f"{row['blocks']:>8} {row['read']:>9.2f} {row['structurize']:>16.3f} {slope:>9}", flush=True)
    if len(rows) > 1:
        first, last = rows[0], rows[-1]
        overall = math.log(last["structurize"] / first["structurize"]) / math.log(last["blocks"] / first["blocks"])
        print(f"growth exponent over {first['blocks']}..{last['blocks']} blocks: {overall:.2f}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
