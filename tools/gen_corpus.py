"""On demand: run the kernel corpus on the Gen target and count kernels that agree with the llvm
reference, are refused (with the reasons, most common first) or disagree.

    python -m reconverge.tools.gen_corpus [-O0 -O2 ...] [--simd 8|16 ...] [--verbose]
"""
from __future__ import annotations

import argparse
import glob
import os
from collections import Counter

from reconverge.lowering.errors import CompileError
from reconverge.tools.targets.harness import GenRunOptions, compare, load_program, run_target
from reconverge.tools.testing.float_policy import float_ulps
from reconverge.tools.testing.kernel_spec import parse_specs

ROOT = os.path.dirname(os.path.dirname(os.path.realpath(__file__)))
CORPUS = sorted(glob.glob(os.path.join(ROOT, "tests", "kernels", "*.cl"))) + \
    sorted(glob.glob(os.path.join(ROOT, "examples", "*.cl")))


def run_corpus(level: str, simd: int, verbose: bool = False) -> tuple[int, Counter, list[str]]:
    agree, refused, wrong = 0, Counter[str](), []
    for path in CORPUS:
        program = load_program(path, level)
        for spec in parse_specs(path):
            name = f"{os.path.basename(path)}:{spec.kernel}"
            want = run_target("llvm", program, spec.kernel, spec.make_args(1), spec.global_size,
                              spec.local_size, global_offset=spec.global_offset)
            try:
                got = run_target("gen", program, spec.kernel, spec.make_args(1), spec.global_size,
                                 spec.local_size, GenRunOptions(simd), global_offset=spec.global_offset)
            except CompileError as exc:
                reason = str(exc).split(": ", 1)[-1].split(" (the Gen backend")[0]
                refused[reason] += 1
                if verbose:
                    print(f"refused {name}: {exc}")
                continue
            problems = compare(want, got, [a.name for a in spec.args], labels=("llvm", "gen"),
                               float_ulps=float_ulps(program.function(spec.kernel, "gen")))
            if problems:
                wrong.append(f"{name}: {problems[0]}")
            else:
                agree += 1
    return agree, refused, wrong


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(prog="python -m reconverge.tools.gen_corpus")
    ap.add_argument("-O", dest="levels", action="append", choices=("0", "1", "2", "3"))
    ap.add_argument("--simd", type=int, action="append", choices=(8, 16))
    ap.add_argument("--verbose", action="store_true")
    args = ap.parse_args(argv)
    bad = 0
    for level in [f"-O{o}" for o in args.levels or ["0", "2"]]:
        for simd in args.simd or [8, 16]:
            agree, refused, wrong = run_corpus(level, simd, args.verbose)
            print(f"{level} SIMD{simd}: {agree} agree, {sum(refused.values())} refused, {len(wrong)} wrong")
            for reason, count in refused.most_common():
                print(f"  {count:3} refused: {reason}")
            for w in wrong:
                print(f"  WRONG {w}")
            bad += len(wrong)
    return 1 if bad else 0


if __name__ == "__main__":
    raise SystemExit(main())
