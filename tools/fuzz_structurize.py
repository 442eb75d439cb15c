"""On-demand differential fuzzing of the structurizer and the SPIR-V backend (the tests run fixed slices).

    python -m reconverge.tools.fuzz_structurize [--target ir|spirv] [--seconds 300] [--max-blocks 400] [--seed 0]
                                     [--count N] [--keep-going] [--out fuzz-failures]

Each round generates a reducible kernel (tools.testing.cfggen) from its seed and structurizes and validates it.

--target ir (the default) runs the tree on the IR interpreter and llvmlite's JIT of the original IR runs
    the LLVM kernel, with random inputs; every lane must agree.
--target spirv compiles the tree to SPIR-V (backend.spirv.compile_spirv), which spirv-val must accept for
    Vulkan 1.3, and runs it on the Vulkan driver (lavapipe) with the inputs the JIT gets; every lane of
    every buffer must agree (tools.targets.harness.compare). The launch geometry (a local size that divides the
    global size) and the inputs are drawn from the seed too. A mismatch is rerun with local size 1 and the
    message says whether that agrees (invocations compute alone: a result that depends on the grouping
    points at the driver's SIMD code, or at undefined behaviour in the module).

A failing kernel is written to --out as a .ll file named by its seed (plus the .spv module, when one was
produced) and the run exits 1: at the first failure, or at the end with --keep-going. `--seed S --count 1`
repeats the check of one seed.
"""
from __future__ import annotations

import argparse
import os
import random
import sys
import time

import numpy as np

TARGETS = ("ir", "spirv")


def kernel_for(seed: int, max_blocks: int):
    """The generated kernel (an llvmlite.ir.Module) a seed stands for."""
    from reconverge.tools.testing.cfggen import random_kernel
    rng = random.Random(seed)
    return random_kernel(rng, rng.randrange(4, max_blocks), max_loop_depth=rng.randrange(1, 5))


def check(module, data_seed: int) -> str | None:
    """None if the kernel behaves on inputs drawn from data_seed, else one line saying what went wrong."""
    from reconverge.lowering.interp import run_kernel
    from reconverge.lowering.ir.validate import validate
    from reconverge.lowering.pipeline import compile_llvmlite
    from reconverge.tools.targets.jit_oracle import run_llvm_kernel

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


# ----- the spirv target -----

SPIRV_GLOBAL_SIZES = (64, 96, 128)
SPIRV_LOCAL_SIZES = (1, 2, 4, 8, 16, 32, 64)


def spirv_launch(data_seed: int) -> tuple[int, int, np.ndarray]:
    """(global size, local size, input data) for the spirv target: the local size divides the global size;
    half the lanes get small inputs (near the generator's comparison constants), half any int32."""
    rng = np.random.default_rng(data_seed)
    global_size = int(rng.choice(SPIRV_GLOBAL_SIZES))
    local_size = int(rng.choice([ls for ls in SPIRV_LOCAL_SIZES if global_size % ls == 0]))
    wide = rng.integers(-2**31, 2**31, global_size, dtype=np.int64).astype(np.int32)
    small = rng.integers(-40, 41, global_size, dtype=np.int64).astype(np.int32)
    data = np.where(rng.random(global_size) < 0.5, small, wide).astype(np.int32)
    return global_size, local_size, data


def check_spirv(module, data_seed: int, artifacts: dict | None = None, *, execute: bool = True) -> str | None:
    """None if the kernel's SPIR-V is valid for Vulkan 1.3 and (execute) computes on the Vulkan driver, lane
    by lane, what llvmlite's JIT computes from the original IR; else one line saying what went wrong.
    `artifacts`, when given, receives the module as 'spirv' (bytes) once it is compiled."""
    from reconverge.backend.spirv import compile_spirv
    from reconverge.backend.spirv.options import SpirvOptions
    from reconverge.backend.spirv.tools import validate
    from reconverge.lowering.errors import CompileError
    from reconverge.tools.targets.harness import compare, program_from_llvm, run_target

    global_size, local_size, data = spirv_launch(data_seed)
    program = program_from_llvm(str(module), "<cfggen>", "k")     # validates the tree after every pass
    func = program.function("k")
    options = SpirvOptions(local_size=(local_size, 1, 1))
    binary = compile_spirv([func], options)
    if artifacts is not None:
        artifacts["spirv"] = binary
    try:
        validate(binary, options.target_env, "@k")
    except CompileError as exc:
        return f"invalid SPIR-V: {' '.join(str(exc).split())}"
    if not execute:
        return None
    args = [np.zeros(global_size, np.int32), data]
    want = run_target("llvm", program, "k", args, (global_size,), (local_size,))
    got = run_target("spirv", program, "k", args, (global_size,), (local_size,), options)
    problems = compare(want, got, ["out", "in"], labels=("llvm", "spirv"))
    if not problems:
        return None
    problem = f"global {global_size} local {local_size}: " + "; ".join(problems)
    if local_size > 1:
        # Triage: each invocation computes alone, so a result that depends on how invocations are grouped
        # points at the driver's SIMD code generation, or at undefined behaviour in the module.
        alone = run_target("spirv", program, "k", args, (global_size,), (1,), SpirvOptions(local_size=(1, 1, 1)))
        agree = not compare(want, alone, ["out", "in"])
        problem += f" [with local size 1: {'all lanes agree' if agree else 'lanes differ too'}]"
    return problem


def save_failure(out: str, seed: int, module, artifacts: dict) -> str:
    """Write the failing kernel (and its SPIR-V, if any) to `out`; the .ll file's path."""
    os.makedirs(out, exist_ok=True)
    path = os.path.join(out, f"seed{seed}.ll")
    with open(path, "w") as f:
        f.write(str(module))
    if artifacts.get("spirv"):
        with open(os.path.join(out, f"seed{seed}.spv"), "wb") as f:
            f.write(artifacts["spirv"])
    return path


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--target", choices=TARGETS, default="ir",
                    help="ir: tree on the interpreter vs the JIT (default); spirv: spirv-val + lavapipe vs the JIT")
    ap.add_argument("--seconds", type=float, default=300)
    ap.add_argument("--max-blocks", type=int, default=400)
    ap.add_argument("--seed", type=int, default=0, help="first seed")
    ap.add_argument("--count", type=int, default=None, help="stop after this many kernels")
    ap.add_argument("--keep-going", action="store_true", help="save every failure and go on; exit 1 at the end")
    ap.add_argument("--out", default="fuzz-failures")
    opts = ap.parse_args(argv)
    if opts.max_blocks <= 4:
        ap.error("--max-blocks must be more than 4")
    deadline = time.monotonic() + opts.seconds
    seed = opts.seed
    failures = 0
    while time.monotonic() < deadline and (opts.count is None or seed - opts.seed < opts.count):
        module = kernel_for(seed, opts.max_blocks)
        artifacts: dict = {}
        try:
            if opts.target == "spirv":
                problem = check_spirv(module, seed, artifacts)
            else:
                problem = check(module, seed)
        except Exception as exc:          # a crash is a finding too
            problem = f"{type(exc).__name__}: {' '.join(str(exc).split())}"
        if problem:
            path = save_failure(opts.out, seed, module, artifacts)
            print(f"seed {seed}: {problem} (kernel: {path})", flush=True)
            failures += 1
            # a dispatch that timed out leaves the device busy: nothing after it can be trusted
            if not opts.keep_going or "did not finish" in problem:
                return 1
        seed += 1
    count = seed - opts.seed
    what = "all valid, all lanes agree" if opts.target == "ir" else \
        "all valid SPIR-V (vulkan1.3), all lanes agree with the JIT"
    if failures:
        print(f"{count} kernels ({opts.target}), seeds {opts.seed}..{seed - 1}: {failures} failed "
              f"(saved in {opts.out})")
        return 1
    print(f"{count} kernels ({opts.target}), seeds {opts.seed}..{seed - 1}: {what}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
