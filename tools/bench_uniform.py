"""On demand: what the Gen backend's use of the divergence analysis saves on the kernel corpus. Not a
test: the numbers go into the README ("Uniform branches").

For every corpus kernel at -O0 and -O2, SIMD8 and SIMD16, in a control-flow mode (default: structured,
where the tree's uniform ifs become scalar jmpi; auto too with --cf auto): the static instruction count
and the instructions the simulator executes for the corpus launch (summed over hardware threads), with
`GenOptions.uniform_branches` on and off, and the ifs the analysis finds uniform and divergent. Both
builds' output buffers must be equal (the tests compare each with the llvm reference).

    python -m reconverge.tools.bench_uniform [--files PATTERN] [--cf structured|auto] [--per-kernel]
"""
from __future__ import annotations

import argparse
import glob
import os

import numpy as np

from reconverge.lowering.ir.core import If
from reconverge.tools.bench_gen import _Executed

ROOT = os.path.dirname(os.path.dirname(os.path.realpath(__file__)))


def _ifs(func) -> tuple[int, int]:
    """(uniform ifs, divergent ifs) of a tree, by the divergence analysis."""
    from reconverge.lowering.analysis.divergence import analyze
    from reconverge.lowering.ir.core import cf_lists
    result = analyze(func)
    ifs = [n for nodes in cf_lists(func) for n in nodes if isinstance(n, If)]
    divergent = sum(1 for n in ifs if n in result.branches)
    return len(ifs) - divergent, divergent


def _run(program, spec, simd: int, cf: str, uniform: bool) -> tuple[int, int, list]:
    """(static instructions, executed instructions, output buffers) of one corpus launch."""
    from reconverge.backend.gen import GenOptions, compile
    from reconverge.tools.targets.harness import GenRunOptions, run_target
    static = len(compile(program, spec.kernel, GenOptions(simd, cf, uniform_branches=uniform)).program)
    with _Executed() as count:
        out = run_target("gen", program, spec.kernel, spec.make_args(1), spec.global_size, spec.local_size,
                         GenRunOptions(simd, cf, uniform_branches=uniform), global_offset=spec.global_offset)
    return static, count.instructions, out


def main(argv: list[str] | None = None) -> int:
    from reconverge.tools.targets.harness import load_program
    from reconverge.tools.testing.kernel_spec import parse_specs
    ap = argparse.ArgumentParser(prog="python -m reconverge.tools.bench_uniform")
    ap.add_argument("--files", default="*.cl", help="corpus files (tests/kernels) matching this pattern")
    ap.add_argument("--cf", default="structured", choices=("structured", "auto"))
    ap.add_argument("--per-kernel", action="store_true", help="a row per kernel where a count changes")
    args = ap.parse_args(argv)
    paths = sorted(glob.glob(os.path.join(ROOT, "tests", "kernels", args.files))) + \
        (sorted(glob.glob(os.path.join(ROOT, "examples", "*.cl"))) if args.files == "*.cl" else [])
    if args.per_kernel:
        print("| kernel | level | SIMD | uniform / divergent ifs | static without / with | executed without / with |")
        print("|---|---|---|---|---|---|")
    bad = 0
    for level in ("-O0", "-O2"):
        for simd in (8, 16):
            totals = [0, 0, 0, 0, 0, 0, 0]    # kernels, uniform ifs, divergent ifs, static off/on, executed off/on
            for path in paths:
                program = load_program(path, level)
                for spec in parse_specs(path):
                    uniform_ifs, divergent_ifs = _ifs(program.function(spec.kernel, "gen"))
                    s0, e0, out0 = _run(program, spec, simd, args.cf, False)
                    s1, e1, out1 = _run(program, spec, simd, args.cf, True)
                    if any(np.asarray(a).tobytes() != np.asarray(b).tobytes() for a, b in zip(out0, out1)):
                        print(f"DIFFERENT OUTPUT {spec.kernel} {level} SIMD{simd}")
                        bad += 1
                    for i, v in enumerate((1, uniform_ifs, divergent_ifs, s0, s1, e0, e1)):
                        totals[i] += v
                    if args.per_kernel and (s0, e0) != (s1, e1):
                        print(f"| {spec.kernel} | {level} | {simd} | {uniform_ifs} / {divergent_ifs} | {s0} / {s1} "
                              f"| {e0} / {e1} |")
            k, ui, di, s0, s1, e0, e1 = totals
            print(f"{level} SIMD{simd} cf {args.cf}: {k} kernels, {ui} uniform ifs, {di} divergent; static "
                  f"{s0} -> {s1} ({100 * (s1 - s0) / s0:+.1f}%), executed {e0} -> {e1} ({100 * (e1 - e0) / e0:+.1f}%)")
    return 1 if bad else 0


if __name__ == "__main__":
    raise SystemExit(main())
