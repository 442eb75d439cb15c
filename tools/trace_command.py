"""`reconverge trace`: run a Gen9 program on the simulator and draw its lane activity as a PNG.

    reconverge trace INPUT.krn|INPUT.asm --simd 8|16|32 [--threads N] [--dispatch-mask M]
                     [--surface BTI=FILE.npy ...] -o OUT.png
    reconverge trace INPUT.cl|.ll|.bc|.nir --global N [--local L] --arg NAME=VALUE ... [--kernel K]
                     [--simd 8|16] [--cf MODE] [-O0..3] -o OUT.png

A kernel source is compiled for Gen and launched exactly as `run --target gen --trace` does (the same
code path), so the picture shows its block labels and the first work-group's threads.

Why a separate module: the main CLI (tools/cli.py) only calls add_commands(subparsers); everything
about tracing lives here. Bad input raises CompileError with a one-line message; the PNG is written
atomically, so a failed run leaves no file behind.
"""
from __future__ import annotations

import os
import sys

from isa.gen9.errors import IsaError
from lowering.errors import CompileError
from lowering.output import write_output
from tools.usage import UsageError


def _read(path: str) -> bytes:
    try:
        with open(path, "rb") as f:
            return f.read()
    except OSError as e:
        raise CompileError(f"{path}: cannot read: {e.strerror or e}") from None


def _load_program(path: str):
    if not os.path.isfile(path):
        raise CompileError(f"{path}: no such file")
    ext = os.path.splitext(path)[1].lower()
    try:
        from isa.gen9.encoding import decode_program
    except ImportError:
        raise CompileError(f"{path}: the Gen9 decoder (isa.gen9.encoding) is not available") from None
    if ext == ".asm":
        try:
            from isa.gen9.assembler import assemble
        except ImportError:
            raise CompileError(f"{path}: the Gen9 assembler (isa.gen9.assembler) is not available") from None
        try:
            data = assemble(_read(path).decode("utf-8", errors="replace"), path)
        except IsaError as e:
            raise CompileError(str(e)) from None
    elif ext in (".krn", ".bin"):
        data = _read(path)
    else:
        raise CompileError(f"{path}: expected a .krn (binary) or .asm (iga64 text) file")
    if not data:
        raise CompileError(f"{path}: empty program")
    try:
        program = decode_program(data)
    except IsaError as e:
        raise CompileError(f"{path}: {e}") from None
    except Exception as e:
        raise CompileError(f"{path}: cannot decode: {e}") from None
    return program


def _load_surfaces(specs: list[str]):
    import numpy as np
    surfaces = {}
    for spec in specs or []:
        bti, sep, file = spec.partition("=")
        if not sep or not bti.strip().isdigit() or not file:
            raise UsageError(f"--surface {spec}: expected BTI=FILE.npy")
        n = int(bti)
        if n >= 252:
            raise UsageError(f"--surface {spec}: binding table index {n} is reserved (252..255)")
        try:
            arr = np.load(file, allow_pickle=False)
        except (OSError, ValueError) as e:
            raise CompileError(f"--surface {spec}: cannot load {file}: {' '.join(str(e).split())}") from None
        surfaces[n] = np.ascontiguousarray(arr).copy()
    return surfaces


SOURCES = (".cl", ".ll", ".bc", ".nir")
DEFAULT_PROGRAM_STEPS = 200_000       # per thread, for a hand-written .krn/.asm program


def _trace_compiled_kernel(args) -> None:
    """A kernel source: compiled for Gen and launched as `run --target gen` would (the same --kernel,
    --global, --local, --arg, --cf, --simd, -O and build options), the picture showing block labels."""
    import argparse

    from tools import cli
    if args.global_size is None:
        raise UsageError(f"{args.input}: a kernel source needs --global (and --arg for its parameters)")
    for flag, value in (("--threads", args.threads != 1), ("--dispatch-mask", args.dispatch_mask is not None),
                        ("--surface", bool(args.surface))):
        if value:
            raise UsageError(f"{flag} applies to .krn/.asm input; a kernel source takes --global, --local, --arg")
    if args.simd not in (None, 8, 16):
        raise UsageError(f"--simd {args.simd}: a compiled kernel runs in SIMD8 or SIMD16")
    _check_max_steps(args)
    run = argparse.Namespace(**vars(args))
    run.__dict__.update(target="gen", trace=args.output, out=None, timeout=None, platform=None,
                        device=None, vk_device=None, spirv_version=None, target_env=None, verify_each=False,
                        trace_only=True)
    cli._run(run)


def _check_max_steps(args) -> None:
    if args.max_steps is not None and args.max_steps < 0:
        raise UsageError(f"--max-steps {args.max_steps}: expected a number of instructions >= 0 (0: no limit)")


def _launch_options_given(args) -> bool:
    return any((args.kernel, args.global_size, args.local, args.arg, args.cf, args.opt != "0", args.define,
                args.include, args.clang_arg))


def run_trace(args) -> None:
    from isa.gen9.sim_trace import trace_png
    from isa.gen9.simulator import SimulationError, Trace, run_program

    if os.path.splitext(args.input)[1].lower() in SOURCES:
        _trace_compiled_kernel(args)
        return
    if args.simd is None:
        raise UsageError("--simd is required for .krn/.asm input (8, 16 or 32)")
    if _launch_options_given(args):
        raise UsageError("--kernel, --global, --local, --arg, --cf, -O and build options apply to kernel sources")
    if args.simd not in (8, 16, 32):
        raise UsageError(f"--simd {args.simd}: expected 8, 16 or 32")
    if args.threads < 1 or args.threads > 64:
        raise UsageError(f"--threads {args.threads}: expected 1..64")
    _check_max_steps(args)
    max_steps = DEFAULT_PROGRAM_STEPS if args.max_steps is None else args.max_steps or sys.maxsize
    out_dir = os.path.dirname(os.path.abspath(args.output))
    if not os.path.isdir(out_dir):
        raise CompileError(f"{args.output}: cannot write: directory {out_dir} does not exist")
    program = _load_program(args.input)
    surfaces = _load_surfaces(args.surface)
    masks = None
    if args.dispatch_mask is not None:
        try:
            m = int(args.dispatch_mask, 0)
        except ValueError:
            raise UsageError(f"--dispatch-mask {args.dispatch_mask}: expected an integer") from None
        masks = [m] * args.threads
    trace = Trace()
    try:
        run_program(program, args.simd, args.threads, surfaces=surfaces, dispatch_masks=masks, trace=trace,
                    max_steps=max_steps)
    except SimulationError as e:
        raise CompileError(f"{args.input}: simulation failed: {' '.join(str(e).split())}") from None
    try:
        write_output(args.output, trace_png(trace),
                     inputs=[args.input] + [spec.partition("=")[2] for spec in args.surface or []])
    except OSError as e:
        raise CompileError(f"{args.output}: cannot write: {e.strerror or e}") from None


def add_commands(subparsers) -> None:
    t = subparsers.add_parser(
        "trace", help="simulate a Gen9 program and draw per-lane activity as a PNG",
        description="Run one workgroup of a Gen9 program on the simulator and draw which lanes executed "
                    "each instruction (x = lanes, y = scheduling rounds, one panel per thread).",
        epilog="Thread payload (simulator convention): r0.1:ud group id, r0.2:ud thread index, r0.3:ud "
               "threads in the group; r1 onwards: local id per lane as ud (thread index * SIMD + lane). "
               "Surfaces are numpy arrays bound by binding-table index; SLM is BTI 254.")
    t.add_argument("input", metavar="INPUT.krn|INPUT.asm|INPUT.cl|.ll|.bc|.nir",
                   help="a Gen9 program, or a kernel source compiled for Gen and launched like `run --target gen`")
    t.add_argument("--simd", type=int, help="dispatch width: 8, 16 or 32 (a kernel source: 8 or 16, default 16)")
    t.add_argument("--kernel", help="kernel source: the kernel (needed when the source has several)")
    t.add_argument("--global", dest="global_size", metavar="N[,N,N]", help="kernel source: the global size")
    t.add_argument("--local", metavar="L[,L,L]", help="kernel source: the work-group size (default as for run)")
    t.add_argument("--arg", action="append", metavar="NAME=VALUE", help="kernel source: as for run")
    from tools.cli import CF_CHOICES, _add_build_options
    t.add_argument("--cf", choices=CF_CHOICES,
                   help="kernel source: control-flow mode (default auto)")
    t.add_argument("-O", dest="opt", choices=list("0123"), default="0", help="kernel source: optimisation level")
    t.add_argument("--threads", type=int, default=1, help="threads in the workgroup (default 1)")
    t.add_argument("--dispatch-mask", help="live lanes of every thread, e.g. 0x0fff (default: all)")
    t.add_argument("--surface", action="append", metavar="BTI=FILE.npy",
                   help="bind a numpy array as the surface at this binding-table index (repeatable)")
    t.add_argument("--max-steps", type=int, metavar="N",
                   help="instructions per thread before the run is stopped as endless (default: 200000 for "
                        ".krn/.asm, the gen target's 1000000 for a kernel source; 0: no limit)")
    t.add_argument("-o", dest="output", required=True, help="output PNG file")
    _add_build_options(t)
    t.set_defaults(func=run_trace)
