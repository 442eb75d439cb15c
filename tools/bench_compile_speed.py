"""On demand: compile-speed figures of issue 26, each with its anchor or its growth exponent. Not a test.

    startup()               `reconverge --help` beside `clang-22 --version` (whole processes, interleaved,
                            medians): the start-up every command pays, installed from a wheel as a user
                            has it (installed_command) and in this development install
    many_kernels(sizes)     one OpenCL C file of N kernels (many_kernels_source) compiled to Gen (--cf auto)
                            and to SPIR-V, CPU seconds of each whole process, and Gen's growth exponent
    regions(sizes)          backend/gen/cf_regions.py on tools/testing/cfggen's random CFGs of N blocks,
                            CPU seconds, and the growth exponent

Each returns plain rows (dicts) for the `make bench` table; main() prints them as Markdown.
The exponent is the slope of log(time) over log(size), between consecutive sizes and over the range.

    python -m reconverge.tools.bench_compile_speed [--runs 15] [--kernels 50,100,200,400]
                                                   [--blocks 400,800,1600,3200,6400]
"""
from __future__ import annotations

import argparse
import math
import os
import random
import resource
import statistics
import subprocess
import sys
import tempfile
import time

ROOT = os.path.dirname(os.path.dirname(os.path.realpath(__file__)))
CLI = [sys.executable, "-m", "reconverge.tools.cli"]


def _env() -> dict:
    """The child's environment: bytecode caches written (as an installed package has them)."""
    return {k: v for k, v in os.environ.items() if k != "PYTHONDONTWRITEBYTECODE"}


def _wall(cmd: list[str]) -> float:
    start = time.perf_counter()
    subprocess.run(cmd, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, check=True, cwd=ROOT, env=_env())
    return time.perf_counter() - start


def _cpu(cmd: list[str]) -> float:
    """User + system CPU seconds of one whole child process."""
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    subprocess.run(cmd, stdout=subprocess.DEVNULL, check=True, cwd=ROOT, env=_env())
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    return (after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime)


def exponents(sizes: list[float], seconds: list[float]) -> tuple[list[float | None], float]:
    """The growth exponent between consecutive sizes (None for the first) and over the whole range."""
    steps: list[float | None] = [None] + [math.log(seconds[i] / seconds[i - 1]) / math.log(sizes[i] / sizes[i - 1])
                                          for i in range(1, len(sizes))]
    return steps, math.log(seconds[-1] / seconds[0]) / math.log(sizes[-1] / sizes[0])


def installed_command(work: str, dependencies: bool = False) -> str:
    """The `reconverge` script as a user's `pip install` leaves it: this checkout built as a wheel and installed
    in a fresh virtual environment under `work`. The development install (`pip install -e`) runs setuptools'
    editable finder in every interpreter's start-up (pathlib, urllib.parse, importlib.util: about 30 ms, more
    than the whole start-up of a plain `python`), which no user's install has. The wheel goes in without its
    dependencies (no network); with `dependencies` (a compile needs llvmlite, construct, numpy) a `.pth` file
    puts this interpreter's site-packages after the venv's own: a plain path line, so that directory's own
    `.pth` files, the editable finder's among them, are not run."""
    wheels, venv = os.path.join(work, "wheel"), os.path.join(work, "venv")
    subprocess.run([sys.executable, "-m", "pip", "wheel", "-q", "--no-deps", "--no-build-isolation", "-w", wheels,
                    ROOT], check=True, cwd=ROOT, stdout=subprocess.DEVNULL)
    subprocess.run([sys.executable, "-m", "venv", venv], check=True)
    wheel = next(os.path.join(wheels, name) for name in os.listdir(wheels) if name.endswith(".whl"))
    python = os.path.join(venv, "bin", "python")
    subprocess.run([python, "-m", "pip", "install", "-q", "--no-deps", wheel], check=True, stdout=subprocess.DEVNULL)
    if dependencies:
        import site
        own = subprocess.run([python, "-c", "import sysconfig; print(sysconfig.get_path('purelib'))"], check=True,
                             capture_output=True, text=True).stdout.strip()
        with open(os.path.join(own, "zz_reconverge_dependencies.pth"), "w") as f:
            f.write("".join(f"{path}\n" for path in site.getsitepackages()))
    return os.path.join(venv, "bin", "reconverge")


def startup(runs: int = 15) -> list[dict]:
    """Median wall seconds of `reconverge --help` (installed from a wheel, and this development install's
    `python -m reconverge.tools.cli`) and `clang-22 --version`, run in turn `runs` times."""
    with tempfile.TemporaryDirectory(prefix="reconverge-startup-") as work:
        commands = {"installed": [installed_command(work), "--help"], "development": CLI + ["--help"]}
        for command in commands.values():
            _wall(command)                           # writes the bytecode caches
        times: dict[str, list[float]] = {"clang": [], **{name: [] for name in commands}}
        for _ in range(runs):
            times["clang"].append(_wall(["clang-22", "--version"]))
            for name, command in commands.items():
                times[name].append(_wall(command))
    clang_s = statistics.median(times["clang"])
    return [{"figure": f"reconverge --help ({name})", "ours_s": statistics.median(times[name]),
             "anchor": "clang-22 --version", "anchor_s": clang_s, "ratio": statistics.median(times[name]) / clang_s}
            for name in commands]


def many_kernels_source(n: int) -> str:
    """OpenCL C with n kernels, each a loop with a two-way branch and an early exit (different constants,
    so no two are the same)."""
    return "\n".join(f"""kernel void k{i}(global int *out, global const int *in, int n)
{{
    int gid = get_global_id(0);
    int acc = {i};
    for (int j = 0; j < n; j++) {{
        int v = in[(gid + j) & 255];
        if (v > {i % 7}) acc += v * {i % 5 + 1};
        else if (v < 0) break;
        else acc ^= j;
    }}
    out[gid] = acc;
}}
""" for i in range(n))


def many_kernels(sizes: tuple[int, ...] = (50, 100, 200, 400)) -> list[dict]:
    """CPU seconds of whole-process compiles (-O2) of an N-kernel file to SPIR-V and to Gen (--cf auto)."""
    rows: list[dict] = []
    with tempfile.TemporaryDirectory() as tmp:
        for n in sizes:
            path = os.path.join(tmp, f"k{n}.cl")
            with open(path, "w") as f:
                f.write(many_kernels_source(n))
            spirv = _cpu(CLI + ["compile", path, "-O2", "--emit", "spirv", "-o", os.path.join(tmp, "out.spv")])
            gen = _cpu(CLI + ["compile", path, "-O2", "--emit", "gen", "-o", os.path.join(tmp, "out.krn")])
            rows.append({"kernels": n, "spirv_cpu_s": spirv, "gen_cpu_s": gen, "ratio": gen / spirv})
    steps, whole = exponents([r["kernels"] for r in rows], [r["gen_cpu_s"] for r in rows])
    for row, step in zip(rows, steps):
        row["gen_exponent"], row["gen_exponent_whole"] = step, whole
    return rows


def regions(sizes: tuple[int, ...] = (400, 800, 1600, 3200, 6400), repeat: int = 3) -> list[dict]:
    """CPU seconds (best of `repeat`) of cf_regions.structured_regions on a random reducible CFG of about
    N blocks (cfggen, seed N), through the gen-blockip pipeline first."""
    from reconverge.backend.gen.cf_regions import structured_regions
    from reconverge.lowering.pipeline import Options, compile_llvm
    from reconverge.tools.testing.cfggen import random_kernel
    sys.setrecursionlimit(max(sys.getrecursionlimit(), 100000))
    rows: list[dict] = []
    for n in sizes:
        func = compile_llvm(str(random_kernel(random.Random(n), n)), source_name="cfggen",
                            options=Options(kernel="k", pipeline="gen-blockip", verify_each=False))["k"]
        best, units = math.inf, 0
        for _ in range(repeat):
            start = time.process_time()
            units = len(structured_regions(func))
            best = min(best, time.process_time() - start)
        rows.append({"blocks": len(func.blocks), "units": units, "cpu_s": best})
    steps, whole = exponents([r["blocks"] for r in rows], [r["cpu_s"] for r in rows])
    for row, step in zip(rows, steps):
        row["exponent"], row["exponent_whole"] = step, whole
    return rows


def _slope(x: float | None) -> str:
    return "" if x is None else f"{x:.2f}"


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(prog="python -m reconverge.tools.bench_compile_speed")
    ap.add_argument("--runs", type=int, default=15, help="start-up: runs of each command")
    ap.add_argument("--kernels", default="50,100,200,400", help="many_kernels sizes")
    ap.add_argument("--blocks", default="400,800,1600,3200,6400", help="regions sizes")
    args = ap.parse_args(argv)
    print("| figure | ours (s) | anchor | anchor (s) | ratio |\n|---|---|---|---|---|")
    for s in startup(args.runs):
        print(f"| {s['figure']} | {s['ours_s']:.3f} | {s['anchor']} | {s['anchor_s']:.3f} | {s['ratio']:.2f} |")
    print()
    rows = many_kernels(tuple(int(x) for x in args.kernels.split(",")))
    print("| kernels | SPIR-V (CPU s) | Gen, --cf auto (CPU s) | Gen / SPIR-V | Gen exponent |\n|---|---|---|---|---|")
    for r in rows:
        print(f"| {r['kernels']} | {r['spirv_cpu_s']:.2f} | {r['gen_cpu_s']:.2f} | {r['ratio']:.2f} | "
              f"{_slope(r['gen_exponent'])} |")
    print(f"\nGen growth exponent over the range: {rows[-1]['gen_exponent_whole']:.2f}\n")
    rows = regions(tuple(int(x) for x in args.blocks.split(",")))
    print("| blocks | units | cf_regions (CPU s) | exponent |\n|---|---|---|---|")
    for r in rows:
        print(f"| {r['blocks']} | {r['units']} | {r['cpu_s']:.3f} | {_slope(r['exponent'])} |")
    print(f"\ncf_regions growth exponent over the range: {rows[-1]['exponent_whole']:.2f}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
