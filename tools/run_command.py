"""`reconverge run`: one kernel over an NDRange on one target, or on several compared lane by lane.

    reconverge run INPUT --target T | --compare T1,T2,.. --global N[,N,N] [--local ..] --arg NAME=VALUE ..
                   [--out DIR] [--print] [--stats] [--subgroup-size N] [--timeout S] ...

The parser lives in tools/cli.py; this module checks the run's flags against the targets it runs, builds
each target's options (tools/targets/harness.py launches), writes the buffers (all or none), compares the
targets with the first one and prints the summary line. `reconverge trace` of a kernel source runs
through here too (tools/trace_command.py), for its picture only.
"""
from __future__ import annotations

from reconverge.lowering.errors import CompileError
from reconverge.lowering.output import check_names_distinct, write_all
from reconverge.tools.source_args import load_source
from reconverge.tools.spirv_args import spirv_options
from reconverge.tools.usage import UsageError


def gen_options(simd: int | None, cf: str | None, verify: bool = True):
    from reconverge.backend.gen import GenOptions
    try:
        return GenOptions(16 if simd is None else simd, cf or "auto", verify=verify)
    except CompileError as exc:
        raise UsageError(f"--{'simd' if 'SIMD' in str(exc) else 'cf'}: {exc}") from None


def _sizes(text: str, flag: str) -> tuple[int, ...]:
    from reconverge.lowering.ndrange import parse_sizes
    try:
        return parse_sizes(text)
    except ValueError:
        raise UsageError(f"{flag} {text!r}: expected N[,N[,N]] of positive integers") from None


def _launch_local_size(args, kernel: str, global_size: tuple[int, ...], reqd) -> tuple[int, ...]:
    """--local, else the default (see the help); it must divide --global and match reqd_work_group_size."""
    from reconverge.lowering.ndrange import default_local_size
    if reqd is not None:
        needed = max([d + 1 for d in range(3) if reqd[d] != 1] or [1])
        if len(global_size) < needed:
            raise UsageError(f"kernel @{kernel} requires work-group size {','.join(map(str, reqd))} "
                             f"(reqd_work_group_size): --global needs {needed} dimensions")
    if args.local is None:
        local_size = default_local_size(global_size, reqd)
    else:
        local_size = _sizes(args.local, "--local")
        if len(local_size) != len(global_size):
            raise UsageError(f"--local {args.local} and --global {args.global_size} have different dimensions")
        padded = tuple(local_size) + (1,) * (3 - len(local_size))
        if reqd is not None and padded != tuple(reqd):
            raise UsageError(f"--local {args.local}: kernel @{kernel} requires work-group size "
                             f"{','.join(map(str, reqd))} (reqd_work_group_size)")
    for dim, (g, l) in enumerate(zip(global_size, local_size)):
        if g % l:
            raise UsageError(f"local size {l} does not divide global size {g} in dimension {dim}")
    return local_size


def _run_targets(args) -> list[str]:
    """The targets a `run` launches: --target's, or --compare's list (the first is the reference)."""
    from reconverge.tools.targets import harness
    compare = getattr(args, "compare", None)
    if compare is not None and args.target is not None:
        raise UsageError("--compare and --target: give one (--compare names every target it runs)")
    if compare is None and args.target is None:
        raise UsageError("the following arguments are required: --target (or --compare T1,T2,..)")
    targets = [t.strip() for t in compare.split(",")] if compare is not None else [args.target]
    for t in targets:
        if t not in harness.TARGETS:
            raise UsageError(f"--{'compare' if compare is not None else 'target'}: unknown target '{t}' "
                             f"(targets: {', '.join(harness.TARGETS)})")
    if compare is not None and (len(targets) < 2 or len(set(targets)) != len(targets)):
        raise UsageError(f"--compare {compare}: name at least two different targets")
    return targets


def _check_target_flags(args, targets: list[str]) -> None:
    """Each target-specific flag needs its target among those run."""
    def only(flag: str, given: bool, target: str, what: str = "") -> None:
        if given and target not in targets:
            raise UsageError(f"{flag} only applies to --target {target}{what}")
    if args.max_steps is not None and not {"ir", "gen"} & set(targets):
        raise UsageError("--max-steps only applies to --target ir and gen")
    if args.max_steps is not None and args.max_steps < 0:
        raise UsageError(f"--max-steps {args.max_steps}: expected a number of steps >= 0 (0: no limit)")
    only("--vk-device", args.vk_device is not None, "spirv")
    if args.subgroup_size is not None and not {"llvm", "ir"} & set(targets):
        raise UsageError("--subgroup-size only applies to --target llvm and ir")
    only("--simd", args.simd is not None, "gen")
    only("--cf", args.cf is not None, "gen")
    only("--trace", args.trace is not None, "gen")
    only("--stats", getattr(args, "stats", False), "gen")
    if args.trace is not None and len(targets) > 1:
        raise UsageError("--trace draws one run: use it with --target gen, not --compare")
    only("--platform" if args.platform else "--device", bool(args.platform or args.device), "opencl")
    shown = getattr(args, "print", False) or getattr(args, "stats", False) or args.trace is not None
    if args.out is None and not shown and getattr(args, "compare", None) is None:
        raise UsageError("the following arguments are required: --out (or --print, --stats, or --compare)")


def _backend_options(args, target: str, local_size: tuple[int, ...], gen_stats: dict | None = None):
    """The settings a target's launcher takes, from the command line (gen_stats: filled by a gen run)."""
    from reconverge.records import replace
    from reconverge.tools.targets import harness
    if target == "spirv":
        backend = spirv_options(args.spirv_version, args.target_env)
        if args.vk_device is not None:
            backend = replace(backend, vk_device=args.vk_device)
        return replace(backend, local_size=tuple(local_size) + (1,) * (3 - len(local_size)))
    if target == "ir":
        return harness.InterpreterOptions(args.max_steps, args.subgroup_size)
    if target == "llvm":
        return harness.OracleOptions(args.subgroup_size or harness.OracleOptions.subgroup_size)
    if target == "gen":
        from reconverge.isa.gen9.simulator import Trace
        checked = gen_options(args.simd, args.cf)
        return harness.GenRunOptions(checked.simd, checked.cf, Trace() if args.trace is not None else None,
                                     args.max_steps, gen_stats)
    if target == "opencl":
        from reconverge.tools.targets.opencl_target import OpenCLOptions
        return OpenCLOptions(args.platform, args.device)
    return None


def chosen_kernel(program, kernel: str | None) -> tuple[str, list]:
    """--kernel's kernel (needed when the input has several) and its parameters."""
    kernels = program.kernel_names()
    if kernel is None and len(kernels) != 1:
        raise UsageError(f"{program.path} has {len(kernels)} kernels ({', '.join(kernels)}): choose one with --kernel")
    kernel = kernel or kernels[0]
    return kernel, program.params(kernel)


def run_command(args) -> int:
    import time

    from reconverge.tools import run_args
    from reconverge.tools.targets import harness
    targets = _run_targets(args)
    global_size = _sizes(args.global_size, "--global")
    if args.local is not None:
        _sizes(args.local, "--local")
    _check_target_flags(args, targets)
    if "gen" in targets:
        gen_options(args.simd, args.cf)                 # a bad --simd/--cf before anything is compiled
    program = load_source(args)
    kernel, params = chosen_kernel(program, args.kernel)
    try:
        values = run_args.bind_args(params, args.arg or [], kernel)
    except run_args.ArgError as exc:
        raise UsageError(str(exc)) from None
    local_size = _launch_local_size(args, kernel, global_size, program.reqd_work_group_size(kernel))

    def launch(target: str):
        stats: dict = {}
        backend = _backend_options(args, target, local_size, stats)
        results = harness.run_target(target, program, kernel, values, global_size, local_size, backend)
        if args.trace is None:
            return results, b"", stats
        from reconverge.tools.lane_picture import trace_picture
        return results, trace_picture(backend.trace, args.trace), stats
    runs, seconds = {}, {}
    for target in targets:
        started = time.perf_counter()
        if target in ("llvm", "opencl") or args.timeout is not None:
            # native code is isolated, so that a crash is an error and not the end; a time limit needs a child
            from reconverge.tools.targets.isolate import call_in_child
            runs[target] = call_in_child(lambda: launch(target), f"{args.input}: @{kernel} on the {target} target",
                                         args.timeout)
        else:
            runs[target] = launch(target)
        seconds[target] = time.perf_counter() - started
    results, png, _ = runs[targets[0]]
    buffers = [(p.name, results[i]) for i, p in enumerate(params) if p.is_buffer]
    # --out (None: `reconverge trace` of a kernel source, the picture only) and --trace: all or none
    directories = {} if args.out is None else {args.out: _npy_files(buffers)}
    write_all({} if args.trace is None else {args.trace: png}, directories,
              inputs=[args.input] + run_args.input_files(args.arg or []))
    if getattr(args, "trace_only", False):
        return 0
    names = [p.name for p in params]
    differing = 0
    for target in targets[1:]:
        problems = harness.compare(results, runs[target][0], names, labels=(targets[0], target))
        differing += bool(problems)
        for line in problems or [f"all buffers equal to {targets[0]}'s"]:
            print(f"{target}: {line}")
    if getattr(args, "print", False):
        for name, array in buffers:
            print(f"{name} = {_small(array)}")
    if getattr(args, "stats", False):
        print(_gen_stats_line(runs["gen"][2], args.cf or "auto"))
    if differing:
        note = _subgroup_sizes_note(args, program, kernel, targets)
        if note:
            print(note)
    ndrange = f"global {','.join(map(str, global_size))}, local {','.join(map(str, local_size))}"
    timing = ", ".join(f"{t} {seconds[t]:.2f} s" for t in targets)
    wrote = f"; wrote {len(buffers)} buffer(s) to {args.out}" if args.out is not None and buffers else ""
    verdict = "" if len(targets) == 1 else \
        f"; {differing} of {len(targets) - 1} target(s) differ from {targets[0]}" if differing else \
        f"; every target agrees with {targets[0]}"
    print(f"@{kernel} on {'/'.join(targets)}: {ndrange} ({timing}){wrote}{verdict}")
    return 1 if differing else 0


def _subgroup_sizes_note(args, program, kernel: str, targets: list[str]) -> str | None:
    """Where the kernel has sub-group operations and the targets compared ran sub-groups of different sizes,
    the line that says so: their results may differ by design (a reduction over 8 lanes is not one over 16),
    with the flags that run them at one size. None otherwise."""
    from reconverge.backend.spirv.subgroups import uses_subgroups
    from reconverge.lowering.interp.vector.subgroups import DEFAULT_SUBGROUP_SIZE
    if not uses_subgroups(program.function(kernel)):
        return None
    sizes = {}
    for target in targets:
        if target in ("llvm", "ir"):
            sizes[target] = args.subgroup_size or DEFAULT_SUBGROUP_SIZE
        elif target == "gen":
            sizes[target] = gen_options(args.simd, args.cf).simd
        elif target == "spirv":
            from reconverge.backend.spirv.vulkan_run import find_device
            sizes[target] = find_device(args.vk_device).subgroup_size
    if len(set(sizes.values())) < 2:
        return None
    widths = ", ".join(f"{t} {n}" for t, n in sizes.items())
    size = sizes.get("spirv", min(sizes.values()))          # (a device's size is its own)
    flags = ([f"--subgroup-size {size}"] if {"llvm", "ir"} & set(sizes) else []) + \
        ([f"--simd {size}"] if "gen" in sizes and size in (8, 16) else [])
    how = f"{' '.join(flags)} runs them at one size" if "gen" not in sizes or size in (8, 16) else \
        f"gen runs sub-groups of 8 or 16 lanes only, the device {size}"
    return (f"note: @{kernel} has sub-group operations and the targets ran sub-groups of different sizes "
            f"({widths} lanes), so their results may differ by design: {how}")


def _gen_stats_line(stats: dict, cf: str) -> str:
    """--stats: what the simulator executed, summed over every hardware thread of the dispatch."""
    how = "chosen by --cf auto" if cf == "auto" else "--cf"
    lanes = stats["lane_instructions"] / max(stats["instructions"], 1)
    return (f"gen: {stats['mode']} control flow ({how}), SIMD{stats['simd']}, {stats['threads']} threads: "
            f"{stats['instructions']:,} instructions executed ({lanes:.1f} of {stats['simd']} lanes enabled on "
            f"average), {stats['branches']:,} branches, {stats['sends']:,} sends")


def _small(array, limit: int = 64) -> str:
    """A buffer for --print: all of it when small, else its head and tail."""
    import numpy as np
    flat = np.asarray(array).reshape(-1)
    with np.printoptions(threshold=limit, edgeitems=8, linewidth=120):
        return f"{np.array2string(flat, separator=', ')}  ({flat.size} x {flat.dtype})"


def _npy_files(arrays: list) -> dict[str, bytes]:
    """NAME.npy -> its bytes for every array; NAME is the parameter's name made safe (see
    lowering.output.safe_file_name)."""
    import io

    import numpy as np
    files = check_names_distinct([(name, ".npy") for name, _ in arrays], "parameters")
    contents = {}
    for name, array in arrays:
        buffer = io.BytesIO()
        np.save(buffer, array, allow_pickle=False)
        contents[files[name]] = buffer.getvalue()
    return contents
