"""On-demand differential fuzzing of the structurizer (the tests run a fixed slice of the same check).

    python -m tools.fuzz_structurize [--seconds 300] [--max-blocks 400] [--seed 0] [--out fuzz-failures]

Each round generates a reducible kernel (tools.cfggen), structurizes and validates it, and runs it on
the IR interpreter and on llvmlite's JIT of the original IR with random inputs; every lane must agree.
A failing kernel is written to --out as a .ll file named by its seed, and the run exits 1.
"""
from __future__ import annotations

import argparse
import os
import random
import sys
import time

import numpy as np


def kernel_for(seed: int, max_blocks: int):
    """The generated kernel (an llvmlite.ir.Module) a seed stands for."""
    from tools.cfggen import random_kernel
    rng = random.Random(seed)
    return random_kernel(rng, rng.randrange(4, max_blocks), max_loop_depth=rng.randrange(1, 5))


def check(module, data_seed: int) -> str | None:
    """None if the kernel behaves on inputs drawn from data_seed, else one line saying what went wrong."""
    from lowering.interp import run_kernel
    from lowering.ir.validate import validate
    from lowering.pipeline import compile_llvmlite
    from tools.jit_oracle import run_llvm_kernel

    func = compile_llvmlite(module)["k"]
    errors = validate(func)
    if errors:
        return f"invalid tree: {errors[0]}"
    data = np.random.default_rng(data_seed).integers(-2**31, 2**31, 32, dtype=np.int64).astype(np.int32)
    want, got = np.zeros(32, np.int32), np.zeros(32, np.int32)
    run_llvm_kernel(str(module), "k", [want, data.copy()], 32, 8)
    run_kernel(func, [got, data.copy()], 32, 8)
    bad = np.flatnonzero(got != want)
    return f"lanes {bad.tolist()} differ" if bad.size else None


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--seconds", type=float, default=300)
    ap.add_argument("--max-blocks", type=int, default=400)
    ap.add_argument("--seed", type=int, default=0, help="first seed")
    ap.add_argument("--out", default="fuzz-failures")
    opts = ap.parse_args(argv)
    deadline = time.monotonic() + opts.seconds
    seed = opts.seed
    while time.monotonic() < deadline:
        module = kernel_for(seed, opts.max_blocks)
        try:
            problem = check(module, seed)
        except Exception as exc:          # a crash is a finding too
            problem = f"{type(exc).__name__}: {' '.join(str(exc).split())}"
        if problem:
            os.makedirs(opts.out, exist_ok=True)
            path = os.path.join(opts.out, f"seed{seed}.ll")
            with open(path, "w") as f:
                f.write(str(module))
            print(f"seed {seed}: {problem} (kernel: {path})")
            return 1
        seed += 1
    print(f"{seed - opts.seed} kernels, seeds {opts.seed}..{seed - 1}: all valid, all lanes agree")
    return 0


if __name__ == "__main__":
    sys.exit(main())
