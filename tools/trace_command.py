"""`reconverge trace`: run a Gen9 program on the simulator and draw its lane activity (tools.lane_picture:
PNG, SVG or PDF by the output's name).

    reconverge trace INPUT.krn|INPUT.asm --simd 8|16|32 [--threads N] [--dispatch-mask M]
                     [--surface BTI=FILE.npy ...] -o OUT.png|.svg|.pdf           (the simulator's payload)
    reconverge trace INPUT.krn|INPUT.asm --payload ndrange [--simd 8|16] [--global N] [--local L]
                     [--surface BTI=FILE.npy ...] -o OUT.png|.svg|.pdf           (the compiled kernels' payload)
    reconverge trace CONTAINER [--kernel K] [--global N] [--local L] [--surface BTI=FILE.npy ...]
                     -o OUT.png|.svg|.pdf
    reconverge trace INPUT.cl|.ll|.bc|.nir --global N [--local L] --arg NAME=VALUE ... [--kernel K]
                     [--simd 8|16] [--cf MODE | --compare-cf [MODE,...]] [-O0..3] -o OUT.png|.svg|.pdf

A kernel source is compiled for Gen and launched exactly as `run --target gen --trace` does (the same
code path), so the picture shows its block labels and the first work-group's threads. A kernel container
(`compile --emit gen`) gets the payload its kernels were compiled for (isa/gen9/dispatch.py: r0 header,
r1-r3 uint16 local ids, cross-thread data from r4), its constants bound and its SIMD width; a bare
binary or an .asm file gets the simulator's own payload (PAYLOAD_HELP) unless --payload ndrange.
--compare-cf runs a kernel source once per control-flow mode and draws the modes side by side on one
scale (and the modes must agree on every buffer).

Why a separate module: the main CLI (tools/cli.py) only calls add_commands(subparsers); everything
about tracing lives here. Bad input raises CompileError with a one-line message; the picture is written
atomically, so a failed run leaves no file behind.
"""
from __future__ import annotations

import os
import sys

from reconverge.isa.gen9.errors import IsaError
from reconverge.lowering.errors import CompileError
from reconverge.lowering.output import write_output
from reconverge.tools.commands import command_help
from reconverge.tools.usage import UsageError


def _read(path: str) -> bytes:
    try:
        with open(path, "rb") as f:
            return f.read()
    except OSError as e:
        raise CompileError(f"{path}: cannot read: {e.strerror or e}") from None


def _load_program(path: str, kernel: str | None = None):
    """The decoded program and, for a kernel container, the chosen kernel's entry (else None)."""
    if not os.path.isfile(path):
        raise CompileError(f"{path}: no such file")
    ext = os.path.splitext(path)[1].lower()
    from reconverge.isa.gen9.container import is_container, unpack_container
    from reconverge.isa.gen9.encoding import decode_program
    entry = None
    if ext == ".asm":
        from reconverge.isa.gen9.assembler import assemble
        try:
            data = assemble(_read(path).decode("utf-8", errors="replace"), path)
        except IsaError as e:
            raise CompileError(str(e)) from None
    else:
        data = _read(path)
        if is_container(data):
            try:
                kernels = unpack_container(data)
            except IsaError as e:
                raise CompileError(f"{path}: {e}") from None
            entry = _chosen(path, kernels, kernel)
            data = entry.code
        elif ext not in (".krn", ".bin"):
            raise CompileError(f"{path}: expected a .krn (binary or kernel container) or .asm (iga64 text) file")
    if not data:
        raise CompileError(f"{path}: empty program")
    try:
        program = decode_program(data)
    except IsaError as e:
        raise CompileError(f"{path}: {e}") from None
    except Exception as e:
        raise CompileError(f"{path}: cannot decode: {e}") from None
    return program, entry


def _chosen(path: str, kernels, name: str | None):
    names = ", ".join(k.name for k in kernels)
    if name is None:
        if len(kernels) != 1:
            raise UsageError(f"{path} holds several kernels: name one with --kernel ({names})")
        return kernels[0]
    found = [k for k in kernels if k.name == name]
    if not found:
        raise CompileError(f"{path}: no kernel named {name!r} (kernels: {names})")
    return found[0]


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

    from reconverge.tools import run_command
    if args.global_size is None:
        raise UsageError(f"{args.input}: a kernel source needs --global (and --arg for its parameters)")
    for flag, value in (("--threads", args.threads != 1), ("--dispatch-mask", args.dispatch_mask is not None),
                        ("--surface", bool(args.surface))):
        if value:
            raise UsageError(f"{flag} applies to .krn/.asm input; a kernel source takes --global, --local, --arg")
    if args.simd not in (None, 8, 16):
        raise UsageError(f"--simd {args.simd}: a compiled kernel runs in SIMD8 or SIMD16")
    _check_max_steps(args)
    if args.compare_cf is not None:
        _compare_cf(args)
        return
    run = argparse.Namespace(**vars(args))
    run.__dict__.update(target="gen", trace=args.output, out=None, timeout=None, platform=None,
                        device=None, vk_device=None, spirv_version=None, target_env=None, verify_each=False,
                        trace_only=True, subgroup_size=None)
    run_command.run_command(run)


def _cf_modes(text: str) -> list[str]:
    from reconverge.backend.gen import CF_MODES, COMMAND_LINE_CF
    modes = [m.strip() for m in text.split(",") if m.strip()]
    known = list(COMMAND_LINE_CF) + [m for m in CF_MODES if m not in COMMAND_LINE_CF]
    for mode in modes:
        if mode not in known:
            raise UsageError(f"--compare-cf: unknown control-flow mode '{mode}' (modes: {', '.join(known)})")
    if len(modes) < 2 or len(set(modes)) != len(modes):
        raise UsageError(f"--compare-cf {text}: expected two or more different modes, e.g. structured,blockip")
    return modes


def _compare_cf(args) -> None:
    """The kernel launched as `run --target gen` would, once per control-flow mode, the pictures side by
    side in one figure (one scale, so longer runs look longer). Every mode must leave every buffer the
    same: a difference is a miscompilation, reported instead of drawn."""
    from reconverge.isa.gen9.simulator import Trace
    from reconverge.tools import run_args, run_command
    from reconverge.tools.lane_picture import Run, picture, title_of
    from reconverge.tools.source_args import load_source
    from reconverge.tools.targets import harness
    if args.cf is not None:
        raise UsageError("--cf and --compare-cf: give the modes to compare to --compare-cf")
    modes = _cf_modes(args.compare_cf)
    global_size = run_command._sizes(args.global_size, "--global")
    if args.local is not None:
        run_command._sizes(args.local, "--local")
    args.verify_each = True
    program = load_source(args)
    kernel, params = run_command.chosen_kernel(program, args.kernel)
    local_size = run_command._launch_local_size(args, kernel, global_size, program.reqd_work_group_size(kernel))
    runs, first = [], None
    for mode in modes:
        try:
            values = run_args.bind_args(params, args.arg or [], kernel)
        except run_args.ArgError as exc:
            raise UsageError(str(exc)) from None
        trace = Trace()
        options = harness.GenRunOptions(run_command.gen_options(args.simd, mode).simd, mode, trace, args.max_steps)
        results = harness.run_target("gen", program, kernel, values, global_size, local_size, options)
        first = first or (mode, results)
        problems = harness.compare(first[1], results, [p.name for p in params], labels=(first[0], mode))
        if problems:
            raise CompileError(f"{args.input}: @{kernel}: --cf {mode} differs from --cf {first[0]}: {problems[0]}")
        chosen = trace.about.get("cf")
        runs.append(Run(trace, f"--cf {mode}" + (f" ({chosen})" if chosen and chosen != mode else "")))
    try:
        write_output(args.output, picture(runs, args.output, title_of(runs[0].trace, skip=("cf",))),
                     inputs=[args.input] + run_args.input_files(args.arg or []))
    except OSError as e:
        raise CompileError(f"{args.output}: cannot write: {e.strerror or e}") from None


def _check_max_steps(args) -> None:
    if args.max_steps is not None and args.max_steps < 0:
        raise UsageError(f"--max-steps {args.max_steps}: expected a number of instructions >= 0 (0: no limit)")


def _launch_options_given(args) -> bool:
    """Options only a kernel source takes (--kernel, --global and --local also serve containers)."""
    return any((args.arg, args.cf, args.compare_cf, args.opt != "0", args.define, args.include, args.clang_arg))


def run_trace(args) -> None:
    from reconverge.isa.gen9.simulator import SimulationError, Trace, run_program
    from reconverge.tools.lane_picture import trace_picture

    if args.x is not None or os.path.splitext(args.input)[1].lower() in SOURCES:
        if args.payload is not None:
            raise UsageError("--payload applies to .krn/.asm input (a kernel source gets the compiled kernels')")
        _trace_compiled_kernel(args)
        return
    if _launch_options_given(args):
        raise UsageError("--arg, --cf, --compare-cf, -O and build options apply to kernel sources")
    _check_max_steps(args)
    max_steps = DEFAULT_PROGRAM_STEPS if args.max_steps is None else args.max_steps or sys.maxsize
    out_dir = os.path.dirname(os.path.abspath(args.output))
    if not os.path.isdir(out_dir):
        raise CompileError(f"{args.output}: cannot write: directory {out_dir} does not exist")
    program, entry = _load_program(args.input, args.kernel)
    if entry is None and args.kernel:
        raise UsageError("--kernel applies to kernel sources and kernel containers")
    payload = args.payload or ("ndrange" if entry is not None else "sim")
    if entry is not None and payload != "ndrange":
        raise UsageError(f"{args.input}: a compiled kernel reads the ndrange payload (drop --payload sim)")
    surfaces = _load_surfaces(args.surface)
    trace = Trace()
    try:
        if payload == "ndrange":
            _run_ndrange(args, program, entry, surfaces, trace, max_steps)
        else:
            _run_simulator_payload(args, program, surfaces, trace, max_steps, run_program)
    except SimulationError as e:
        raise CompileError(f"{args.input}: simulation failed: {_unbound_hint(' '.join(str(e).split()))}") from None
    try:
        write_output(args.output, trace_picture(trace, args.output, args.input),
                     inputs=[args.input] + [spec.partition("=")[2] for spec in args.surface or []])
    except OSError as e:
        raise CompileError(f"{args.output}: cannot write: {e.strerror or e}") from None


def _unbound_hint(message: str) -> str:
    """The simulator's "no surface bound at binding table index N", with the option that binds it."""
    import re
    m = re.search(r"no surface bound at binding table index (\d+)", message)
    return message + (f": bind a numpy array there with --surface {m.group(1)}=FILE.npy" if m else "")


def _run_simulator_payload(args, program, surfaces, trace, max_steps: int, run_program) -> None:
    """A hand-written program with the simulator's payload (PAYLOAD_HELP): --threads threads of one group."""
    if args.simd is None:
        raise UsageError("--simd is required for .krn/.asm input (8, 16 or 32)")
    if args.simd not in (8, 16, 32):
        raise UsageError(f"--simd {args.simd}: expected 8, 16 or 32")
    if args.global_size or args.local:
        raise UsageError("--global and --local apply to kernel sources, containers and --payload ndrange")
    if args.threads < 1 or args.threads > 64:
        raise UsageError(f"--threads {args.threads}: expected 1..64")
    masks = None
    if args.dispatch_mask is not None:
        try:
            m = int(args.dispatch_mask, 0)
        except ValueError:
            raise UsageError(f"--dispatch-mask {args.dispatch_mask}: expected an integer") from None
        masks = [m] * args.threads
    trace.about.update(simd=args.simd, threads=args.threads)
    run_program(program, args.simd, args.threads, surfaces=surfaces, dispatch_masks=masks, trace=trace,
                max_steps=max_steps)


def _run_ndrange(args, program, entry, surfaces, trace, max_steps: int) -> None:
    """A compiled kernel (a container's, or a bare one with --payload ndrange) launched over --global with
    work-groups of --local as isa/gen9/dispatch.py lays out its payload; the picture shows the first
    work-group. A container's constants are bound where its index says; scalar arguments (which only a
    source's --arg can give) and flat (A64) buffers are refused."""
    import numpy as np

    from reconverge.isa.gen9.dispatch import run_ndrange
    from reconverge.isa.gen9.errors import IsaError
    from reconverge.tools.run_command import _sizes
    for flag, given in (("--threads", args.threads != 1), ("--dispatch-mask", args.dispatch_mask is not None)):
        if given:
            raise UsageError(f"{flag} applies to the simulator's payload; the ndrange payload takes --global and "
                             f"--local")
    meta = entry.payload if entry is not None else {}
    simd = entry.simd if entry is not None else args.simd or 16
    if args.simd is not None and args.simd != simd:
        raise UsageError(f"--simd {args.simd}: kernel {entry.name} was compiled for SIMD{simd}")
    if simd not in (8, 16):
        raise UsageError(f"--simd {simd}: the ndrange payload is for SIMD8 or SIMD16")
    name = entry.name if entry is not None else "kernel"
    if meta.get("argument_offsets"):
        raise CompileError(f"{args.input}: kernel {name} takes scalar arguments (parameters "
                           f"{', '.join(sorted(meta['argument_offsets']))}), which only its source can give: "
                           f"trace the .cl/.ll with --arg")
    if meta.get("flat_address_offsets"):
        raise CompileError(f"{args.input}: kernel {name} addresses its buffers through 64-bit pointers: trace its "
                           f"source with --arg")
    local = _sizes(args.local, "--local") if args.local else (simd,)
    global_size = _sizes(args.global_size, "--global") if args.global_size else local
    trace.about.update(kernel=entry.name if entry is not None else None, simd=simd, local_size=local,
                       global_size=global_size, group=(0,) * len(local))
    for c in meta.get("constants", []):
        surfaces.setdefault(int(c["bti"]), np.frombuffer(bytes.fromhex(c["data"]), np.uint8).copy())
    try:
        run_ndrange(program, simd, global_size, local, surfaces=surfaces, max_steps=max_steps, trace=trace,
                    scratch_bytes=max(1024, int(meta.get("scratch_bytes", 1024))),
                    slm_bytes=max(int(meta.get("slm_bytes", 0)), 64 * 1024))
    except IsaError as e:
        raise UsageError(str(e)) from None


PAYLOAD_HELP = ("Payload of a bare .krn/.asm program (the simulator's own, the default): r0.1:ud group id, r0.2:ud "
                "thread index, r0.3:ud threads in the group; r1 onwards: each lane's local id as ud (thread index "
                "* SIMD + lane), so 1, 2 or 4 registers. --payload ndrange (and any kernel of a container, which "
                "compile --emit gen writes) gets the compiled kernels' payload instead (isa/gen9/dispatch.py): "
                "r0.1/r0.6/r0.7 group id x/y/z, r1, r2, r3 local id x, y, z per lane as uw, r4 onwards the "
                "cross-thread data (global offset, local size, number of groups, work dimension, then the "
                "arguments from byte 0x40). Surfaces are numpy arrays bound by binding-table index (a compiled "
                "kernel's buffer parameter i is BTI i); SLM is BTI 254.")


def add_commands(subparsers) -> None:
    t = subparsers.add_parser(
        "trace", help=command_help("trace"),
        description="Run one workgroup of a Gen9 program on the simulator and draw which lanes executed "
                    "each instruction (x = lanes, y = scheduling rounds, one panel per thread; block labels "
                    "once per block entry; a legend for the colours). The output's name picks the format: "
                    ".svg, .pdf, else PNG.",
        epilog=PAYLOAD_HELP)
    t.add_argument("input", metavar="INPUT.krn|INPUT.asm|INPUT.cl|.ll|.bc|.nir",
                   help="a Gen9 program (a bare binary, a kernel container or iga64 text), or a kernel source "
                        "compiled for Gen and launched like `run --target gen`")
    t.add_argument("--payload", choices=("sim", "ndrange"),
                   help="thread payload of a .krn/.asm program: the simulator's (sim, the default for a bare "
                        "program) or the compiled kernels' (ndrange, the default for a container); see below")
    t.add_argument("--simd", type=int, help="dispatch width: 8, 16 or 32 (a kernel source: 8 or 16, default 16; "
                   "a container: its kernel's)")
    t.add_argument("--kernel", help="kernel source or container: the kernel (needed when it has several)")
    t.add_argument("--global", dest="global_size", metavar="N[,N,N]",
                   help="kernel source, container or --payload ndrange: the global size (a container: default "
                        "one work-group)")
    t.add_argument("--local", metavar="L[,L,L]",
                   help="kernel source: the work-group size (default as for run); container or --payload "
                        "ndrange: default the SIMD width")
    t.add_argument("--arg", action="append", metavar="NAME=VALUE", help="kernel source: as for run")
    from reconverge.tools.cli import CF_CHOICES
    from reconverge.tools.source_args import add_build_options, add_opt_option
    t.add_argument("--cf", choices=CF_CHOICES,
                   help="kernel source: control-flow mode (default auto)")
    add_opt_option(t, "kernel source: ")
    t.add_argument("--threads", type=int, default=1, help="threads in the workgroup (default 1)")
    t.add_argument("--dispatch-mask", help="live lanes of every thread, e.g. 0x0fff (default: all)")
    t.add_argument("--surface", action="append", metavar="BTI=FILE.npy",
                   help="bind a numpy array as the surface at this binding-table index (repeatable)")
    t.add_argument("--max-steps", type=int, metavar="N",
                   help="instructions per thread before the run is stopped as endless (default: 200000 for "
                        ".krn/.asm, the gen target's 1000000 for a kernel source; 0: no limit)")
    t.add_argument("--compare-cf", nargs="?", const="structured,blockip,hybrid", metavar="MODE,MODE...",
                   help="kernel source: run once per control-flow mode (default structured,blockip,hybrid) and "
                        "draw the modes side by side")
    t.add_argument("-o", dest="output", required=True, help="output picture: .png, .svg or .pdf")
    add_build_options(t)
    t.set_defaults(func=run_trace)
