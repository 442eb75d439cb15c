"""On demand: how many steps the kernels of the test corpora need, beside the step limits' defaults.

    python -m reconverge.tools.step_budget [--quick]

For every kernel of tests/kernels, examples, tests/kernels_real and tests/kernels_barrier (at -O0 and
-O2, with their test inputs): the most IR instructions one work-item runs on the `ir` target, and the
most instructions one hardware thread runs on the `gen` target (SIMD8 and SIMD16; structured, blockip
and hybrid control flow); then tests/data/sha1_chain.cl, 4,096 chained SHA-1 compressions per
work-item, counted at 16 rounds and scaled (its steps grow linearly with the rounds). Why: a default
limit must stop an endless kernel without refusing a real one; the README states the margin.
"""
from __future__ import annotations

import argparse
import os

import numpy as np

from reconverge.lowering.interp import run as interp_run
from reconverge.tools.targets.harness import load_program, run_target

ROOT = os.path.dirname(os.path.dirname(os.path.realpath(__file__)))
GEN_MODES = ("structured", "blockip", "hybrid")


def corpus():
    """(name, path, build options, kernel, make_args, global size, local size, global offset)."""
    import glob

    from reconverge.tools.testing import barrier_cases
    from reconverge.tools.testing.kernel_spec import parse_specs
    from tests.test_real_kernels import CASES as REAL
    from tests.test_real_kernels import HERE as REAL_DIR
    for path in sorted(glob.glob(os.path.join(ROOT, "tests", "kernels", "*.cl"))) + \
            sorted(glob.glob(os.path.join(ROOT, "examples", "*.cl"))):
        for spec in parse_specs(path):
            yield (f"{os.path.basename(path)}:{spec.kernel}", path, (), spec.kernel, lambda s=spec: s.make_args(1),
                   spec.global_size, spec.local_size, spec.global_offset)
    for case in REAL.values():
        yield (case.file, os.path.join(REAL_DIR, case.file), case.options, case.file[:-3],
               lambda c=case: c.make_args(np.random.default_rng(1)), case.global_size, case.local_size, 0)
    for case in barrier_cases.CASES:
        yield (f"{case.file}:{case.kernel}", os.path.join(barrier_cases.KERNELS, case.file), (), case.kernel,
               lambda c=case: barrier_cases.fresh_args(c), case.global_size, case.local_size, 0)


def ir_steps(program, kernel, args, global_size, local_size, offset) -> int:
    """The most interpreter steps one work-item took (counted between the items' switches)."""
    most, state = [0], {"item": None, "at": 0}
    original = interp_run.Interpreter._set_item

    def settle(interp) -> None:
        if state["item"] is not None:
            used[state["item"]] = used.get(state["item"], 0) + interp.steps - state["at"]
            most[0] = max(most[0], used[state["item"]])

    def spy(self, item):
        settle(self)
        state["item"], state["at"], state["interp"] = item, self.steps, self
        return original(self, item)
    used: dict = {}
    interp_run.Interpreter._set_item = spy           # type: ignore[method-assign]   # a spy, put back below
    try:
        from reconverge.tools.targets.harness import InterpreterOptions
        run_target("ir", program, kernel, args, global_size, local_size, InterpreterOptions(0), global_offset=offset)
        settle(state["interp"])                  # the last item
    finally:
        interp_run.Interpreter._set_item = original  # type: ignore[method-assign]
    return most[0]


def gen_steps(program, kernel, args, global_size, local_size, offset, simd: int, cf: str) -> int:
    from reconverge.backend.gen import choose_function
    from reconverge.backend.gen.launch import run_gen_kernel
    from reconverge.tools.targets.harness import ir_arguments
    func, mode = choose_function(program, kernel, cf)
    return run_gen_kernel(func, ir_arguments(func, args), global_size, local_size, simd, offset,
                          max_steps=0, regions=mode.regions, entry=mode.entry)


def main(argv: list[str] | None = None) -> None:
    ap = argparse.ArgumentParser(prog="python -m reconverge.tools.step_budget", description=__doc__.splitlines()[0])
    ap.add_argument("--quick", action="store_true", help="-O2, SIMD16 and the auto mode only")
    args = ap.parse_args(argv)
    levels = ("-O2",) if args.quick else ("-O0", "-O2")
    setups = [(16, "auto")] if args.quick else [(simd, cf) for simd in (8, 16) for cf in GEN_MODES]
    worst_ir, worst_gen = ("", 0), ("", 0)
    print("| kernel | level | ir steps per work-item | gen steps per thread (most over modes) |\n|---|---|---|---|")
    for name, path, options, kernel, make, gsize, lsize, offset in corpus():
        for level in levels:
            program = load_program(path, level, build_options=options)
            ir = ir_steps(program, kernel, make(), gsize, lsize, offset)
            gen = max(gen_steps(program, kernel, make(), gsize, lsize, offset, simd, cf) for simd, cf in setups)
            print(f"| {name} | {level} | {ir} | {gen} |", flush=True)
            worst_ir = max(worst_ir, (name + " " + level, ir), key=lambda x: x[1])
            worst_gen = max(worst_gen, (name + " " + level, gen), key=lambda x: x[1])
    sha1 = os.path.join(ROOT, "tests", "data", "sha1_chain.cl")
    for level in levels:
        program = load_program(sha1, level)
        counts = {}
        for rounds in (8, 16):
            make = lambda: [np.zeros(10, np.uint32), np.arange(2, dtype=np.uint32), np.int32(rounds)]  # noqa: E731
            counts[rounds] = (ir_steps(program, "sha1_chain", make(), 1, 1, 0),
                              max(gen_steps(program, "sha1_chain", make(), 1, 1, 0, simd, cf) for simd, cf in setups))
        scaled = [counts[16][i] + (counts[16][i] - counts[8][i]) * (4096 - 16) // 8 for i in (0, 1)]
        print(f"| sha1_chain (4,096 rounds, scaled from 8 and 16) | {level} | {scaled[0]} | {scaled[1]} |", flush=True)
    from reconverge.backend.gen.launch import DEFAULT_MAX_STEPS as GEN_DEFAULT
    from reconverge.lowering.interp import DEFAULT_MAX_STEPS as IR_DEFAULT
    print(f"\ncorpus: most ir steps {worst_ir[1]} ({worst_ir[0]}), default {IR_DEFAULT}; most gen steps "
          f"{worst_gen[1]} ({worst_gen[0]}), default {GEN_DEFAULT}")


if __name__ == "__main__":
    main()
