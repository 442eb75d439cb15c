"""The `reconverge` command line (clang/llc-style).

    reconverge compile INPUT [-o OUT|-] [--emit nir|dot-cfg|dot-tree] [-O0..-O3] [--kernel NAME]
                       [--verify-each] [--dump-after PASS|all] [--dump-dir DIR] [--stop-after PASS]
    reconverge asm INPUT.asm -o OUT.krn       (Gen9, iga64 syntax)
    reconverge disasm INPUT.krn [-o OUT|-]
    reconverge trace PROGRAM --simd N -o OUT.png

Errors are one line, `reconverge: error: ...`: exit 1 for bad input, 2 for bad usage, 3 for an internal
error (a bug: please report it; --debug shows the traceback). A failed command leaves no output file.
"""
from __future__ import annotations

import argparse
import sys

from lowering.errors import CompileError
from lowering.output import write_output

EXIT_INPUT, EXIT_USAGE, EXIT_INTERNAL = 1, 2, 3
EMIT_KINDS = ("nir", "dot-cfg", "dot-tree")


class UsageError(Exception):
    pass


class _Parser(argparse.ArgumentParser):
    """argparse, but usage errors are one line and exit 2 without printing the usage block."""

    def error(self, message: str):
        raise UsageError(message)


def _compile(args) -> None:
    from lowering import pipeline
    from lowering.ir.dot import cfg_dot, tree_dot
    from lowering.ir.printer import print_function
    dump_after = set(args.dump_after or [])
    unknown = dump_after - set(pipeline.PASS_NAMES) - {"all"}
    if unknown:
        raise UsageError(f"--dump-after: unknown pass '{sorted(unknown)[0]}' "
                         f"(passes: {', '.join(pipeline.PASS_NAMES)}, all)")
    if args.stop_after and args.stop_after not in pipeline.PASS_NAMES:
        raise UsageError(f"--stop-after: unknown pass '{args.stop_after}'")
    if args.emit == "dot-tree" and args.stop_after == "read":
        raise UsageError("--emit dot-tree needs the structurize pass (drop --stop-after read)")
    options = pipeline.Options(kernel=args.kernel, verify_each=args.verify_each, dump_after=dump_after,
                               dump_dir=args.dump_dir if dump_after else None, stop_after=args.stop_after)
    funcs = pipeline.compile_path(args.input, f"-O{args.opt}", options)
    render = {"nir": print_function, "dot-cfg": cfg_dot, "dot-tree": tree_dot}[args.emit]
    write_output(args.output, "".join(render(f) for f in funcs.values()))


def _version() -> str:
    try:
        from importlib.metadata import version
        return version("reconverge")
    except Exception:       # running from a checkout that was never installed
        return "(not installed)"


def build_parser() -> argparse.ArgumentParser:
    parser = _Parser(prog="reconverge", description="GPU compiler backend: LLVM IR to structured IR, "
                     "SPIR-V and Intel Gen9 ISA.")
    parser.add_argument("--debug", action="store_true", help="show tracebacks of internal errors")
    parser.add_argument("--version", action="version", version=f"reconverge {_version()}")
    sub = parser.add_subparsers(dest="command", required=True, parser_class=_Parser)
    c = sub.add_parser("compile", help="compile an OpenCL C, LLVM IR (.ll) or bitcode (.bc) file")
    c.add_argument("input")
    c.add_argument("-o", dest="output", default="-", help="output file ('-' = stdout, the default)")
    c.add_argument("--emit", choices=EMIT_KINDS, default="nir",
                   help="nir: text IR; dot-cfg: GraphViz CFG; dot-tree: GraphViz control-flow tree")
    c.add_argument("-O", dest="opt", choices=list("0123"), default="0", help="optimisation level (clang's)")
    c.add_argument("--kernel", help="compile only this kernel")
    c.add_argument("--verify-each", action="store_true", help="run the IR validator after every pass")
    c.add_argument("--dump-after", action="append", metavar="PASS|all",
                   help="write text IR and .dot files after this pass (repeatable)")
    c.add_argument("--dump-dir", default="reconverge-dump", help="folder for --dump-after (default: %(default)s)")
    c.add_argument("--stop-after", metavar="PASS", help="stop after this pass (read: the CFG form)")
    c.add_argument("--debug", action="store_true", help=argparse.SUPPRESS)
    c.set_defaults(func=_compile)
    for module_name in ("tools.isa_commands", "tools.trace_command"):
        try:
            module = __import__(module_name, fromlist=["add_commands"])
        except ImportError:
            continue
        module.add_commands(sub)
    return parser


def main(argv: list[str] | None = None) -> int:
    argv = sys.argv[1:] if argv is None else argv
    debug = "--debug" in argv
    try:
        parser = build_parser()
        args = parser.parse_args(argv)
        args.func(args)
        return 0
    except UsageError as exc:
        print(f"reconverge: error: {exc}", file=sys.stderr)
        return EXIT_USAGE
    except CompileError as exc:
        print(f"reconverge: error: {exc}", file=sys.stderr)
        return EXIT_INPUT
    except KeyboardInterrupt:
        return 130
    except BrokenPipeError:
        return 0
    except Exception as exc:  # a bug in reconverge
        if debug:
            raise
        message = " ".join(str(exc).split()) or type(exc).__name__
        print(f"reconverge: internal error: {type(exc).__name__}: {message} (rerun with --debug for the "
              f"traceback)", file=sys.stderr)
        return EXIT_INTERNAL


if __name__ == "__main__":
    sys.exit(main())
