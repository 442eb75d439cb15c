"""The `reconverge` command line (clang/llc-style).

    reconverge compile INPUT|- [-o OUT|-] [--emit nir|llvm|dot-cfg|dot-tree|spirv|spirv-asm|dot-spirv|gen|gen-asm|
                       gen-mir] [-O0..-O3|-Os|-Oz|-O] [-x cl|ll|bc|nir] [-v] [--kernel NAME] [--verify-each]
                       [--dump-after PASS|all] [--dump-dir DIR] [--stop-after PASS]
                       [--pipeline generic|spirv|gen|gen-blockip] [--cf auto|structured|blockip|hybrid]
                       [--print-after PASS|isel|regalloc|all] [--print-before PASS|all] [--spirv-version 1.0..1.6]
                       [--target-env ENV] [--local X[,Y,Z]] [--validate] [--maximal-reconvergence]
                       [-D ..] [-I ..] [-cl-* ..] [--clang-arg F]
    reconverge run INPUT|- [--kernel NAME] --target llvm|ir|spirv|opencl|gen --global N[,N,N] [--local L[,L,L]]
                   --arg NAME=@FILE.npy|NAME=zeros:COUNT:DTYPE|NAME=NUMBER ... --out DIR [-O..] [-x KIND] [-v]
                   [--spirv-version 1.0..1.6] [--target-env ENV] [--vk-device NAME|N] [--verify-each]
    reconverge devices [--json]             (the Vulkan devices --vk-device can choose)
    reconverge check PATH...|- [-j N] [-O..] [--junit FILE] [--json FILE] [--emit-dir DIR]   (CI: SPIR-V structure)
    reconverge asm INPUT.asm -o OUT.krn       (Gen9, iga64 syntax)
    reconverge disasm INPUT.krn [-o OUT|-]
    reconverge trace PROGRAM --simd N -o OUT.png|.svg|.pdf   (a kernel source: [--compare-cf])
    reconverge fuzz [-n N] [--seed S] [--mode M,..] [--targets T,..] [-j J] [--time-budget T] [--save-dir DIR]
                    [--shard K/N] [--reduce]                    (differential fuzzing: tools/fuzz/)

Sources (stdin '-', -x, -O, -v, build options): tools/source_args.py; SPIR-V options: tools/spirv_args.py.

`run` writes every buffer argument, after the run, to DIR/NAME.npy (tools/run_args.py reads --arg; see
tools/targets/harness.py for the targets); --local defaults to the kernel's reqd_work_group_size, else to the
largest divisor of the global size that is at most 64 in dimension 0 (1 in the others).

Errors are one line, `reconverge: error: ...` (OpenCL C that clang rejects: clang's own report): exit 1 for
bad input, 2 for bad usage, 3 for an internal error (a bug: please report it; --debug shows the traceback).
A failed command leaves no output file. INPUT may be IR text (.nir, what --emit nir prints); when it breaks
the IR's rules, --debug also prints the function with each broken rule marked under its line.
"""
from __future__ import annotations

import sys

from reconverge.lowering.errors import CompileError
from reconverge.lowering.output import write_all
from reconverge.tools.commands import COMMANDS, command_in
from reconverge.tools.compile_outputs import (  # noqa: F401 - CF_CHOICES, EMIT_KINDS: named here too
    CF_CHOICES,
    EMIT_KINDS,
    GEN_EMITS,
    emit_kind,
    emit_llvm,
    print_passes,
)
from reconverge.tools.source_args import COMPILING_COMMANDS, load_source, split_cl_options
from reconverge.tools.spirv_args import SPIRV_EMITS, compile_spirv_options
from reconverge.tools.usage import Terminated, UsageError, raise_on_sigterm

TYPE_CHECKING = False                   # typing itself is not imported: `reconverge --help` does not need it
if TYPE_CHECKING:
    import argparse
    from typing import Any, Callable

    from reconverge.lowering.ir.core import Function

EXIT_INPUT, EXIT_USAGE, EXIT_INTERNAL = 1, 2, 3


def _compile(args) -> None:
    """One path for every --emit: the driver (lowering.program) loads the input once and runs the pipeline
    each output needs, with the pass inspection of the command line; Gen chooses its control-flow mode
    per kernel (backend.gen.compile), so every dump option works with --cf auto too."""
    from reconverge.lazy_regex import preload_patterns
    preload_patterns()                  # before the compiler's modules compile their regular expressions
    from reconverge.lowering import pipeline
    args.emit = args.emit or emit_kind(args.output)
    if args.emit == "llvm":
        emit_llvm(args)
        return
    dump_after = set(args.dump_after or [])
    unknown = dump_after - set(pipeline.PASS_NAMES) - {"all"}
    if unknown:
        raise UsageError(f"--dump-after: unknown pass '{sorted(unknown)[0]}' "
                         f"(passes: {', '.join(pipeline.PASS_NAMES)}, all)")
    if args.stop_after and args.stop_after not in pipeline.PASS_NAMES:
        raise UsageError(f"--stop-after: unknown pass '{args.stop_after}'")
    if args.divergence and args.emit != "nir":
        raise UsageError("--divergence marks the IR text: it goes with --emit nir")
    if args.emit in ("dot-tree", *SPIRV_EMITS) and args.stop_after == "read":
        raise UsageError(f"--emit {args.emit} needs the structurize pass (drop --stop-after read)")
    spirv = compile_spirv_options(args)
    gen = _compile_gen_options(args)
    from reconverge.lowering.target import PIPELINES
    auto = gen is not None and gen.cf == "auto"
    gen_pipeline = None
    if gen is not None and not auto:
        from reconverge.backend.gen import CF_MODES  # only for Gen: a SPIR-V compile never loads it
        gen_pipeline = CF_MODES[gen.cf].pipeline
    if auto and args.pipeline:
        raise UsageError("--pipeline with --emit gen* needs --cf structured, blockip or hybrid (--cf auto "
                         "runs the gen pipeline, and gen-blockip where it weighs the hybrid)")
    chosen = args.pipeline or ("spirv" if spirv is not None else gen_pipeline or "generic")
    if gen_pipeline is not None and chosen != gen_pipeline:
        raise UsageError(f"--emit {args.emit} needs the {gen_pipeline} pipeline, not '{chosen}'")
    if chosen not in PIPELINES:
        raise UsageError(f"--pipeline: unknown pipeline '{chosen}' (pipelines: {', '.join(PIPELINES)})")
    if spirv is not None and chosen != "spirv":
        raise UsageError(f"--emit {args.emit} needs the spirv pipeline, not '{chosen}'")
    print_after = print_passes(args.print_after, "--print-after", gen is not None)
    print_before = print_passes(args.print_before, "--print-before", gen is not None)
    if "read" in print_before:
        raise UsageError("--print-before read: there is no IR before the read pass (--print-after read "
                         "shows what it reads)")
    options = pipeline.Options(kernel=args.kernel, verify_each=args.verify_each, dump_after=dump_after,
                               dump_dir=args.dump_dir if dump_after else None, stop_after=args.stop_after,
                               pipeline=chosen, print_after=print_after, print_before=print_before)
    from reconverge.lowering.gcpause import tuned_for_compile
    with tuned_for_compile():
        try:
            # one structured pipeline a kernel (Gen's --cf auto asks for the CFG too, which is read, not cloned):
            # each lowers the generic tree itself instead of a clone of it
            program = load_source(args, inspect=options, label_dumps=auto,
                                  one_pipeline=spirv is not None or gen is not None)
            names = [args.kernel] if args.kernel else None
            if gen is not None:
                data = _emit_gen(args.emit, program, names or program.kernel_names(), gen, options)
            else:
                funcs = program.functions_for(chosen, names)
                if spirv is not None:
                    data = _emit_spirv(args.emit, list(funcs.values()), spirv)
                else:
                    from reconverge.lowering.ir.dot import cfg_dot, tree_dot
                    from reconverge.lowering.ir.printer import print_function
                    render: Callable[[Function], str] = {"nir": print_function, "dot-cfg": cfg_dot,
                                                         "dot-tree": tree_dot}[args.emit]
                    if args.divergence:
                        from reconverge.lowering.analysis.divergence import analyze
                        render = lambda f: print_function(f, analyze(f))   # noqa: E731
                    data = "".join(render(f) for f in funcs.values())
        finally:
            if options.printed:
                sys.stderr.write("".join(options.printed))
    _write_with_dumps(args, data, options.dumps)


def _compile_gen_options(args):
    """reconverge.backend.gen.GenOptions of `compile` (its complaints are usage errors), or None when not emitting
    Gen code (then --simd and --cf may not be given)."""
    if args.emit not in GEN_EMITS:
        if args.simd is not None or args.cf is not None:
            raise UsageError(f"--{'simd' if args.simd is not None else 'cf'} only applies to --emit "
                             f"{', '.join(GEN_EMITS)}")
        return None
    # the machine-IR verifier is a debug check, as the IR's validator after every pass: --verify-each (the
    # emitted code is checked against the PRM's restrictions either way); it was 7% of the Gen backend's time
    from reconverge.tools.run_command import gen_options  # (run's module: not imported by a SPIR-V compile)
    return gen_options(args.simd, args.cf, verify=args.verify_each)


def _annotated(text: str, notes: dict[int, str]) -> str:
    """iga64-syntax text with a comment line before the instructions `notes` names (by index)."""
    out, index = [], 0
    for line in text.splitlines():
        if line.strip() and not line.rstrip().endswith(":"):
            if index in notes:
                out.append(f"        // {notes[index]}")
            index += 1
        out.append(line)
    return "\n".join(out) + "\n"


def _emit_gen(kind: str, program, names: list[str], options, inspect=None) -> str | bytes:
    """gen: a kernel container of every kernel (isa/gen9/container.py); gen-bin: one kernel's code alone, what
    iga64 -p=9 -d reads; gen-asm: its iga64-syntax text, each kernel headed by comment lines saying its
    width, size and control-flow mode (the one --cf auto chose); gen-mir: the machine IR before register
    allocation."""
    from reconverge.backend.gen import compile, select
    from reconverge.isa.gen9.encoding import encode_program
    if kind == "gen-mir":
        from reconverge.backend.gen.mir_printer import print_mfunction
        return "".join(print_mfunction(select(program, name, options)[0]) for name in names)
    if kind == "gen-bin" and len(names) != 1:
        raise UsageError(f"--emit gen-bin writes one kernel's code: name it with --kernel (kernels: "
                         f"{', '.join(names)})")
    printed = inspect.printed if inspect is not None else None
    machine = {p for p in ("isel", "regalloc") if inspect is not None and (p in inspect.print_after or
                                                                            "all" in inspect.print_after)}
    from reconverge.lowering.deepstack import call_with_deep_stack
    from reconverge.lowering.gcpause import survivors_kept

    def build(name: str):
        kernel = compile(program, name, options, print_after=machine, printed=printed)
        code = encode_program(kernel.program)
        kernel.program = []         # its words are `code` now (the instruction objects, kept, were 16 of
        #                             the 74 MB a 400-kernel compile peaked at)
        survivors_kept()            # what a kernel's compile leaves alive lives to the end: not rescanned
        return kernel, code
    # one deep stack for every kernel (each entry point taking its own cost 0.2 ms of CPU, six a kernel)
    built = call_with_deep_stack(lambda: [build(name) for name in names])
    if kind == "gen-asm":
        from reconverge.isa.gen9.disassembler import disassemble
        how = "chosen by --cf auto" if options.cf == "auto" else "--cf"
        return "\n".join(f"// kernel {k.name}: SIMD{k.simd}, {len(code)} bytes\n// control flow: {k.mode} ({how})\n"
                         f"{_annotated(disassemble(code), k.notes)}" for k, code in built)
    if kind == "gen-bin":
        return built[0][1]
    from reconverge.isa.gen9.container import pack_container
    return pack_container([k.container_entry(code) for k, code in built])


def _write_with_dumps(args, data: str | bytes, dumps: dict[str, str]) -> None:
    """The output and the pass dumps of a command that succeeded: both, or (on a write error) neither."""
    directories = {args.dump_dir: {name: text.encode() for name, text in dumps.items()}} if dumps else {}
    write_all({args.output: data}, directories, inputs=[args.input])


def _emit_spirv(emit: str, funcs: list, options) -> str | bytes:
    """All the kernels in one SPIR-V module: the binary, its disassembly or its CFG as GraphViz."""
    try:
        from reconverge.backend.spirv import compile_spirv
    except ImportError as exc:
        raise CompileError(f"--emit {emit}: the SPIR-V backend is not available ({exc})") from None
    if emit == "dot-spirv":                      # the module with the IR's block names, drawn as a CFG
        from reconverge.backend.spirv.cfg_dot import cfg_dot
        from reconverge.records import replace
        return cfg_dot(compile_spirv(funcs, replace(options, block_names=True)))
    binary = compile_spirv(funcs, options)
    if emit == "spirv":
        return binary
    from reconverge.backend.spirv import tools as spirv_tools  # spirv-dis (and spirv-val): not for --emit spirv
    return spirv_tools.disassemble(binary)


def build_parser(command: str | None = None, *, every_command: bool = True) -> argparse.ArgumentParser:
    """tools/cli_parser.py's build_parser: the argparse parser of `command` (of every command when None and
    every_command), the others by name or help line."""
    from reconverge.tools.cli_parser import build_parser as build
    return build(command, every_command=every_command, compile_func=_compile)


def main(argv: list[str] | None = None) -> int:
    argv = sys.argv[1:] if argv is None else argv
    debug = "--debug" in argv
    previous = raise_on_sigterm()
    command = None
    try:
        argv, cl_options = split_cl_options(["-O2" if token == "-O" else token for token in argv])
        command = command_in(argv)
        args: Any = None
        if command == "compile":
            from reconverge.tools.compile_argv import quick_compile_args
            args = quick_compile_args(argv, _compile)
        if args is None:
            args = build_parser(command if command in COMMANDS else None, every_command=False).parse_args(argv)
        args.cl_options = cl_options
        if cl_options and args.command not in COMPILING_COMMANDS:
            raise UsageError(f"{cl_options[0]}: build options only apply to {', '.join(COMPILING_COMMANDS)}")
        from reconverge.lowering import child_process
        child_process.VERBOSE = bool(getattr(args, "verbose", False))
        return args.func(args) or 0       # a command may answer 1 (reconverge fuzz: something failed)
    except UsageError as exc:
        hint = ""
        if command == "compile" and str(exc).startswith("unrecognized arguments: --target "):
            hint = " (compile picks its target by --emit: spirv, gen-asm, gen-bin, ...; run takes --target)"
        print(f"reconverge: error: {exc}{hint}", file=sys.stderr)
        return EXIT_USAGE
    except CompileError as exc:
        diagnostics = getattr(exc, "diagnostics", None)       # clang's own messages, whole
        if diagnostics:
            sys.stderr.write(diagnostics)
            return EXIT_INPUT
        print(f"reconverge: error: {exc}", file=sys.stderr)
        annotated = getattr(exc, "annotated", None)           # lowering.pipeline's InvalidIR
        if debug and annotated:
            print(annotated, end="", file=sys.stderr)           # the function, its broken rules marked
        return EXIT_INPUT
    except KeyboardInterrupt:
        return 130
    except Terminated:
        return 143
    except BrokenPipeError:
        return 0
    except Exception as exc:  # a bug in reconverge
        if debug:
            annotated = getattr(exc, "annotated", None)
            if annotated:
                print(annotated, end="", file=sys.stderr)
            raise
        message = " ".join(str(exc).split()) or type(exc).__name__
        print(f"reconverge: internal error: {type(exc).__name__}: {message} (rerun with --debug for the "
              f"traceback)", file=sys.stderr)
        return EXIT_INTERNAL
    finally:
        if previous is not None:
            import _signal
            _signal.signal(_signal.SIGTERM, previous)


def entry() -> None:
    """The `reconverge` program (and `python -m reconverge.tools.cli`): main(), then out of the process
    without the interpreter's teardown. Tearing down a compile's modules and objects (and llvmlite's LLVM)
    cost a sixth of a one-kernel SPIR-V compile's CPU time (0.04 of 0.30 s) for nothing the user sees:
    the output files are written and closed, the standard streams are flushed here and the atexit
    handlers run. A command that leaves a thread running, or a stream that cannot be flushed, takes the
    ordinary way out. Tests call main(), which returns.

    A `compile` process runs without the cyclic garbage collector: it is one burst of mostly long-lived
    objects (the imported compiler, then the IR), and the collections that rescanned them were 6% of a
    one-kernel SPIR-V compile's CPU time (0.017 of 0.29 s; the control-flow file 0.018 of 0.39 s), for 10-14%
    more peak memory (a 400-kernel file, a 10,000-block kernel). Long-running commands (fuzz, check) keep it."""
    if command_in(sys.argv[1:]) == "compile":
        import gc
        gc.disable()
    try:
        code = main()
    except SystemExit as exc:              # --help, --version: argparse exits from inside main
        if exc.code is not None and not isinstance(exc.code, int):
            raise
        code = exc.code or 0
    _leave(code)


def _leave(code: int) -> None:
    threading = sys.modules.get("threading")
    if threading is not None and any(t.is_alive() and not t.daemon and t is not threading.main_thread()
                                     for t in threading.enumerate()):
        sys.exit(code)
    try:
        sys.stdout.flush()
        sys.stderr.flush()
    except Exception:                       # a closed pipe: the interpreter's own exit reports it as before
        sys.exit(code)
    import atexit
    atexit._run_exitfuncs()
    import os
    os._exit(code)


if __name__ == "__main__":
    entry()
