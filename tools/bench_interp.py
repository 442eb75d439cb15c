"""Benchmark (run on demand, not a test): `reconverge run --target ir` against `--target llvm`.

    python -m reconverge.tools.bench_interp [--items 4096,16384,65536] [--reps 3] [--kernels loop,subgroup]

Each measurement is the wall time of one whole `reconverge run` command (Python start-up, compiling,
running, writing the buffers), the minimum of --reps repetitions, so the numbers are what a user waits for;
`ir run` is the interpreter alone (in this process, the program compiled once beforehand): how the cost
grows with the work-items.
Kernels: `loop`, a per-item loop of 64 iterations of float and integer work reading a buffer, and
`subgroup`, a sub-group reduction and inclusive scan (the llvm target runs it once it models sub-groups;
until then its column says why not). Prints a table: items, kernel, ir seconds, llvm seconds, ratio.
"""
from __future__ import annotations

import argparse
import os
import subprocess
import sys
import tempfile
import time

import numpy as np

LOOP = """
kernel void loop(global float *out, global const float *in, global int *hist, int n) {
    int g = get_global_id(0);
    float s = 0.0f;
    int h = g;
    for (int i = 0; i < n; i++) {
        float v = in[(g + i * 7) & 4095];
        s = s * 0.5f + v;
        h = (h * 1103515245 + 12345) ^ (h >> 7);
        if (h & 1) s += 1.0f;
    }
    out[g] = s;
    hist[g] = h;
}
"""

SUBGROUP = """
kernel void subgroup(global int *out, global const int *in) {
    int g = get_global_id(0);
    int x = in[g];
    int total = sub_group_reduce_add(x);
    int prefix = sub_group_scan_inclusive_add(x);
    if (x & 1) prefix += sub_group_reduce_max(x);
    out[g] = total + prefix;
}
"""


def _run(path: str, kernel: str, target: str, items: int, args: list[str], out: str) -> tuple[float, str]:
    cmd = [sys.executable, "-m", "reconverge.tools.cli", "run", path, "--kernel", kernel, "--target", target,
           "--global", str(items), "--local", "64", "--out", out, "-O2"]
    for a in args:
        cmd += ["--arg", a]
    start = time.perf_counter()
    proc = subprocess.run(cmd, capture_output=True, text=True)
    elapsed = time.perf_counter() - start
    return elapsed, "" if proc.returncode == 0 else (proc.stderr.strip().splitlines() or ["failed"])[-1]


def _ir_run_time(path: str, kernel: str, items: int, reps: int, tmp: str) -> float:
    """The interpreter alone: harness.run_target("ir") on an already compiled program, best of reps."""
    from reconverge.tools import run_args
    from reconverge.tools.targets import harness
    program = harness.load_program(path, "-O2")
    values = run_args.bind_args(program.params(kernel), _ARGS[kernel](items, tmp), kernel)
    best = float("inf")
    for _ in range(reps):
        start = time.perf_counter()
        harness.run_target("ir", program, kernel, values, (items,), (64,))
        best = min(best, time.perf_counter() - start)
    return best


_ARGS = {"loop": lambda items, tmp: [f"out=zeros:{items}:float32", f"in=@{tmp}/in_f.npy",
                                     f"hist=zeros:{items}:int32", "n=64"],
         "subgroup": lambda items, tmp: [f"out=zeros:{items}:int32", f"in=@{tmp}/in_i.npy"]}


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--items", default="4096,16384,65536")
    ap.add_argument("--reps", type=int, default=3)
    ap.add_argument("--kernels", default="loop,subgroup")
    opts = ap.parse_args(argv)
    sizes = [int(x) for x in opts.items.split(",")]
    with tempfile.TemporaryDirectory() as tmp:
        sources = {"loop": LOOP, "subgroup": SUBGROUP}
        for name, text in sources.items():
            with open(os.path.join(tmp, f"{name}.cl"), "w") as f:
                f.write(text)
        np.save(os.path.join(tmp, "in_f.npy"), np.random.default_rng(1).random(4096).astype(np.float32))
        print(f"{'items':>7} {'kernel':>9} {'ir s':>7} {'llvm s':>7} {'ir/llvm':>7} {'ir run s':>8}")
        for items in sizes:
            np.save(os.path.join(tmp, "in_i.npy"), np.random.default_rng(2).integers(0, 1000, items, np.int32))
            args = {k: make(items, tmp) for k, make in _ARGS.items()}
            for kernel in opts.kernels.split(","):
                row = {}
                for target in ("ir", "llvm"):
                    times, why = [], ""
                    for rep in range(opts.reps):
                        t, why = _run(os.path.join(tmp, f"{kernel}.cl"), kernel, target, items, args[kernel],
                                      os.path.join(tmp, f"o_{target}_{rep}"))
                        if why:
                            break
                        times.append(t)
                    row[target] = (min(times), "") if times else (None, why)
                ir, llvm = row["ir"][0], row["llvm"][0]
                ratio = f"{ir / llvm:7.2f}" if ir and llvm else "    n/a"
                alone = _ir_run_time(os.path.join(tmp, f"{kernel}.cl"), kernel, items, opts.reps, tmp)
                print(f"{items:>7} {kernel:>9} {ir or float('nan'):7.2f} {llvm or float('nan'):7.2f} {ratio}"
                      f" {alone:8.3f}"
                      + "".join(f"  ({t}: {row[t][1]})" for t in row if row[t][1]), flush=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
