"""The ULP error of exp (and exp10) on each target over a sweep of float inputs, run on demand.

OpenCL C 3.0 (section 7.4, "Relative Error as ULPs", full profile) bounds exp and exp10 to 3 ULP; the
relaxed primitive both backends have is exp2 (GLSL.std.450 Exp2, which Vulkan's "Precision and Operation
of SPIR-V Instructions" bounds only to 3 + 2|x| ULP, and Gen's math box), so the lowering
(lowering/passes/lower_math_edges.py) has to keep its argument small. The reference is math.exp in double
precision, which is within a hair of the exact value; the error is reported in ULPs of the float result
(the spacing of floats at the true value, 2^-149 for subnormals).

    python -m reconverge.tools.exp_accuracy                        # ir, spirv, gen (SIMD16); 100k points per function
    python -m reconverge.tools.exp_accuracy --points 20000 --targets spirv gen
"""
from __future__ import annotations

import argparse
import math
import os
import tempfile

import numpy as np

from reconverge.tools.targets.harness import GenRunOptions, load_program, run_target

KERNEL = """
kernel void sweep(global const float *x, global float *e, global float *t) {
  int i = get_global_id(0);
  e[i] = exp(x[i]);
  t[i] = exp10(x[i]);
}
"""
# the finite results' ranges plus a little: below these the results are 0, above them inf
RANGES = {"exp": (-104.0, 89.0, math.exp), "exp10": (-45.5, 38.6, lambda v: 10.0 ** v)}
LOCAL = 64


def inputs(lo: float, hi: float, points: int) -> np.ndarray:
    """`points` evenly spaced floats in [lo, hi] plus the edges, padded to a whole number of groups."""
    xs = np.linspace(lo, hi, points).astype(np.float32)
    edges = np.array([lo, hi, -0.0, 0.0, 1e-30, -1e-30, 0.5, -0.5, 88.72, 88.73, -87.5, -103.97, -6.5536,
                      38.5, -45.0, -37.9], dtype=np.float32)
    xs = np.concatenate([xs, edges])
    return np.concatenate([xs, np.zeros(-len(xs) % LOCAL, np.float32)])


def ulp_errors(xs: np.ndarray, got: np.ndarray, exact) -> np.ndarray:
    """|got - exact(x)| in ULPs of the float at exact(x); 0 where both overflow to the same infinity."""
    out = np.zeros(len(xs))
    for i, (x, g) in enumerate(zip(xs.astype(float), got.astype(float))):
        try:
            want = exact(x)
        except OverflowError:
            want = math.inf
        if math.isinf(want) or want > float(np.finfo(np.float32).max):
            out[i] = 0.0 if g == math.inf else math.inf
            continue
        if math.isnan(g) or math.isinf(g):
            out[i] = math.inf
            continue
        ulp = 2.0 ** max(math.frexp(want)[1] - 1 - 23, -149) if want else 2.0 ** -149
        out[i] = abs(g - want) / ulp
    return out


def measure(targets: list[str], points: int) -> dict[str, dict[str, tuple[float, float, float]]]:
    """target -> function -> (max ULP error over normal results, the input where it is, max over subnormal
    results: Vulkan lets a driver flush those to zero, and lavapipe does)."""
    with tempfile.TemporaryDirectory() as tmp:
        path = os.path.join(tmp, "sweep.cl")
        with open(path, "w", encoding="utf-8") as f:
            f.write(KERNEL)
        program = load_program(path, "-O2")
        results: dict[str, dict[str, tuple[float, float, float]]] = {}
        for target in targets:
            results[target] = {}
            for column, (fn, (lo, hi, exact)) in enumerate(RANGES.items()):
                xs = inputs(lo, hi, points)
                args = [xs, np.zeros_like(xs), np.zeros_like(xs)]
                options = GenRunOptions(simd=16) if target == "gen" else None
                got = run_target(target, program, "sweep", args, (len(xs),), (LOCAL,), options)[1 + column]
                err = ulp_errors(xs, got, exact)
                tiny = np.array([exact(float(x)) < float(np.finfo(np.float32).tiny) for x in xs])
                normal = np.where(tiny, 0.0, err)
                worst = int(np.argmax(normal))
                results[target][fn] = (float(normal[worst]), float(xs[worst]), float(np.max(err[tiny])))
    return results


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--targets", nargs="+", default=["ir", "spirv", "gen"])
    parser.add_argument("--points", type=int, default=100_000)
    args = parser.parse_args(argv)
    for target, fns in measure(args.targets, args.points).items():
        for fn, (err, x, sub) in fns.items():
            print(f"{target:6} {fn:6} normal results: max {err:6.2f} ULP at x = {x!r:22} subnormal results: "
                  f"max {sub:.3g} ULP")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
