"""On demand: the Gen simulator's speed on compiled kernels, the batched engine (isa/gen9/sim_batch.py)
against the one-thread reference (simulator.Thread, `run_ndrange(batched=False)`). Not a test: the
numbers go into the README's benchmark section.

For every corpus kernel (tests/kernels and examples, their RUN launch, SIMD16, `--cf auto`, -O2) it
measures the CPU seconds spent in the simulator only (compiling is excluded) and the lane-instructions
executed (enabled lanes summed over executed instructions), for each engine; then the same kernels with
the launch's first dimension, every buffer sized by it and an integer argument equal to it scaled by
--scale (default 64: 4,096 work-items for a 64-item launch) on the batched engine, beside the llvm
target (the JIT) on the same launch. Both engines' buffers must agree exactly (floats within 1e-5 of
the JIT's), or the line says DIFF.

    python -m reconverge.tools.bench_sim [--files PATTERN] [--scale 64] [--no-old] [--old-scaled]
"""
from __future__ import annotations

import argparse
import dataclasses
import glob
import math
import os
import time

import numpy as np

from reconverge.lowering.errors import CompileError

ROOT = os.path.dirname(os.path.dirname(os.path.realpath(__file__)))


class _Meter:
    """Wraps dispatch.run_ndrange for the gen launcher: CPU seconds inside it and lane-instructions run."""

    def __init__(self, batched: bool):
        from reconverge.backend.gen import launch
        from reconverge.isa.gen9 import dispatch
        self.launch, self.original = launch, launch.run_ndrange
        self.batched, self.seconds, self.lanes = batched, 0.0, 0
        self.run_ndrange = dispatch.run_ndrange

    def __enter__(self) -> _Meter:
        def measured(*args, on_group=None, **kw):
            def count(group):
                self.lanes += sum(t.lane_steps for t in group.threads)
                if on_group is not None:
                    on_group(group)
            start = time.process_time()
            try:
                return self.run_ndrange(*args, on_group=count, batched=self.batched, **kw)
            finally:
                self.seconds += time.process_time() - start
        self.launch.run_ndrange = measured
        return self

    def __exit__(self, *exc) -> None:
        self.launch.run_ndrange = self.original


def _launches(pattern: str):
    from reconverge.tools.targets.harness import load_program
    from reconverge.tools.testing.kernel_spec import parse_specs
    paths = sorted(glob.glob(os.path.join(ROOT, "tests", "kernels", pattern))) + \
        sorted(glob.glob(os.path.join(ROOT, "examples", pattern)))
    for path in paths:
        if not path.endswith(".cl"):
            continue
        program = load_program(path, "-O2")
        for spec in parse_specs(path):
            yield program, spec


def _scaled(spec, scale: int):
    """The spec with its first dimension, the buffers sized by the work-item count and an integer argument
    equal to it (an element count) `scale` times larger."""
    items = math.prod(spec.global_size)

    def grown(a):
        if a.is_buffer and a.count and a.count % items == 0:
            return dataclasses.replace(a, count=a.count * scale)
        if not a.is_buffer and a.init == "value" and isinstance(a.value, int) and a.value == items:
            return dataclasses.replace(a, value=a.value * scale)
        return a
    args = tuple(grown(a) for a in spec.args)
    size = (spec.global_size[0] * scale,) + tuple(spec.global_size[1:])
    return dataclasses.replace(spec, global_size=size, args=args)


def _run(target: str, program, spec, batched: bool = True):
    """(buffers after the run, simulator CPU seconds, lane-instructions) of one launch; llvm: its seconds."""
    from reconverge.tools.targets.harness import GenRunOptions, run_target
    args = spec.make_args(1)
    if target == "llvm":
        start = time.process_time()
        out = run_target("llvm", program, spec.kernel, args, spec.global_size, spec.local_size,
                         global_offset=spec.global_offset)
        return out, time.process_time() - start, 0
    with _Meter(batched) as meter:
        out = run_target("gen", program, spec.kernel, args, spec.global_size, spec.local_size,
                         GenRunOptions(16, "auto"), global_offset=spec.global_offset)
    return out, meter.seconds, meter.lanes


def _same(a: list, b: list, close: bool = False) -> bool:
    """Equal buffers (close: floats within 1e-5 relative, what the simulator's float64-then-round math and
    the JIT's float32 math can differ by)."""
    def eq(x, y) -> bool:
        x, y = np.asarray(x), np.asarray(y)
        if close and x.dtype.kind == "f":
            return bool(np.allclose(x, y, rtol=1e-5, atol=1e-6, equal_nan=True))
        return bool(np.array_equal(x, y, equal_nan=x.dtype.kind == "f"))
    return all(eq(x, y) for x, y in zip(a, b))


def lane_rate(quick: bool = False, scale: int = 64) -> tuple[float, str]:
    """For `make bench`: the batched engine's lane-instructions per CPU second over the corpus launches scaled
    `scale` times (quick: 16 times), and the slowest scaled launch, which the issue wants under 10 s."""
    scale = 16 if quick else scale
    lanes = seconds = 0.0
    slowest = ("", 0.0)
    count = 0
    for program, spec in _launches("*.cl"):
        try:
            _, s, n = _run("gen", program, _scaled(spec, scale))
        except CompileError:
            continue
        count += 1
        lanes, seconds = lanes + n, seconds + s
        slowest = max(slowest, (spec.kernel, s), key=lambda x: x[1])
    notes = (f"{count} corpus launches x{scale}, {lanes:,.0f} lane-instr in {seconds:.1f} CPU s; "
             f"slowest {slowest[0]} {slowest[1]:.2f} s")
    return lanes / seconds, notes


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(prog="python -m reconverge.tools.bench_sim")
    ap.add_argument("--files", default="*.cl", help="glob on corpus file names")
    ap.add_argument("--scale", type=int, default=64, help="work-items multiplier of the scaled launches")
    ap.add_argument("--no-old", action="store_true", help="skip the one-thread reference engine")
    ap.add_argument("--old-scaled", action="store_true", help="also run the reference on the scaled launches")
    args = ap.parse_args(argv)
    launches = list(_launches(args.files))
    totals = {"old": [0.0, 0], "new": [0.0, 0], "scaled": [0.0, 0], "old-scaled": [0.0, 0]}
    print("| kernel | items | lane-instr | reference (s) | batched (s) | speed-up | scaled items | batched (s) "
          "| llvm (s) | vs llvm |" + (" reference (s) |" if args.old_scaled else ""))
    print("|---|---|---|---|---|---|---|---|---|---|" + ("---|" if args.old_scaled else ""))
    worst = 0.0
    for program, spec in launches:
        try:
            new, new_s, lanes = _run("gen", program, spec)
        except CompileError as exc:
            print(f"| {spec.kernel} | refused: {exc} |")
            continue
        cells = [spec.kernel, str(math.prod(spec.global_size)), str(lanes)]
        if args.no_old:
            cells += ["-", f"{new_s:.3f}", "-"]
        else:
            old, old_s, _ = _run("gen", program, spec, batched=False)
            totals["old"][0] += old_s
            totals["old"][1] += lanes
            cells += [f"{old_s:.3f}", f"{new_s:.3f}" + ("" if _same(old, new) else " DIFF"), f"{old_s / new_s:.1f}x"]
        totals["new"][0] += new_s
        totals["new"][1] += lanes
        big = _scaled(spec, args.scale)
        try:
            out, big_s, big_lanes = _run("gen", program, big)
            ref, llvm_s, _ = _run("llvm", program, big)
            totals["scaled"][0] += big_s
            totals["scaled"][1] += big_lanes
            worst = max(worst, big_s)
            agree = "" if _same(out, ref, close=True) else " DIFF"
            cells += [str(math.prod(big.global_size)), f"{big_s:.2f}{agree}", f"{llvm_s:.3f}", f"{big_s / llvm_s:.1f}x"]
            if args.old_scaled:
                old, old_s, _ = _run("gen", program, big, batched=False)
                totals["old-scaled"][0] += old_s
                totals["old-scaled"][1] += big_lanes
                cells.append(f"{old_s:.2f}" + ("" if _same(old, out) else " DIFF"))
        except CompileError as exc:
            cells += ["not scalable: " + str(exc).split(":")[-1].strip()[:60], "-", "-", "-"]
        print("| " + " | ".join(cells) + " |")
    print()
    for name, (seconds, lanes) in totals.items():
        if seconds:
            print(f"{name}: {lanes:,} lane-instructions in {seconds:.2f} CPU s = {lanes / seconds:,.0f} per CPU second")
    print(f"slowest scaled launch: {worst:.2f} s")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
