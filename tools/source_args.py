"""How the commands that compile a source take it: the input (a file, or '-' for standard input, of
-x's kind or the one its name or content says: lowering.input_kind), -O (one default and one meaning for
every command, clang's), -v, and the OpenCL build options (-D, -I, -cl-*, --clang-arg), with clang's
warnings printed as clang printed them. Shared by compile, run, check and trace (tools/cli.py,
tools/check_command.py, tools/trace_command.py)."""
from __future__ import annotations

import os
import sys

from reconverge.lowering.errors import CompileError
from reconverge.tools.usage import UsageError

OPT_CHOICES = ("0", "1", "2", "3", "s", "z")
OPT_HELP = ("optimisation level, clang's: -O0 (the default), -O1, -O2, -O3, -Os, -Oz; -O alone is -O2 (.ll and "
            ".bc run LLVM's -O<n> pipeline, -Os and -Oz as -O2)")
COMPILING_COMMANDS = ("compile", "run", "check", "trace")
CONVERGENCE = ("auto", "tokens", "scopes", "cfg")     # lowering.frontend.convergence.MODES


def load_source(args, **options):
    """The command's input (a file, or '-': standard input) as a lowering.program.Program, clang's
    warnings printed as clang printed them."""
    from reconverge.lowering.program import load_program
    name, kind, data = read_source(args)
    program = load_program(name, f"-O{args.opt}", args.kernel, args.verify_each, build_options(args, kind),
                           kind=kind, data=data, convergence=args.convergence, **options)
    if program.diagnostics:
        sys.stderr.write(program.diagnostics)
        sys.stderr.flush()
    return program


def read_source(args) -> tuple[str, str, bytes | None]:
    """(name, kind, data) of the input: '-' is standard input, read now and called <stdin>; the kind is
    -x's, else the extension's, else the content's (lowering.input_kind)."""
    from reconverge.lowering.input_kind import STDIN_NAME, input_kind
    from reconverge.lowering.pipeline import file_head
    if args.input == "-":
        data = sys.stdin.buffer.read()
        return STDIN_NAME, input_kind(STDIN_NAME, data, args.x), data
    if not os.path.exists(args.input):
        raise CompileError(f"{args.input}: no such file")
    return args.input, input_kind(args.input, file_head(args.input), args.x), None


def build_options(args, kind: str = "cl") -> tuple[str, ...]:
    """The OpenCL build options of the command line, as clBuildProgram would take them (-D, -I, -cl-*,
    -w, -Werror), then the --clang-arg flags; only for OpenCL C input (`kind` cl)."""
    options = ["-g"] if args.debug_info else []
    options += [f"-D{d}" for d in args.define or []] + [f"-I{i}" for i in args.include or []]
    options += list(getattr(args, "cl_options", ()))
    options += list(args.clang_arg or [])
    if options and kind != "cl":
        raise UsageError(f"{options[0]}: build options only apply to OpenCL C (.cl) input")
    return tuple(options)


def split_cl_options(argv: list[str]) -> tuple[list[str], list[str]]:
    """Pull clBuildProgram-style options (-cl-..., -w, -Werror) out of argv: argparse cannot declare
    single-dash long options with values like -cl-std=CL2.0."""
    rest, found = [], []
    for token in argv:
        if token.startswith("-cl-std="):
            if token[len("-cl-std="):] not in ("CL1.0", "CL1.1", "CL1.2", "CL2.0", "CL3.0"):
                raise UsageError(f"{token}: expected -cl-std=CL1.0, CL1.1, CL1.2, CL2.0 or CL3.0")
            found.append(token)
        elif token.startswith("-cl-") or token in ("-w", "-Werror"):
            from reconverge.lowering.frontend.clang import CL_FLAGS  # only when given: --help stays light
            if token not in CL_FLAGS:
                raise UsageError(f"{token}: unknown OpenCL build option (known: -cl-std=, {', '.join(CL_FLAGS)})")
            found.append(token)
        else:
            rest.append(token)
    return rest, found


def add_build_options(p) -> None:
    """The options of every command that compiles a source: -x, -v and the OpenCL build options (-O is
    add_opt_option's, a command that also takes programs needing none)."""
    p.add_argument("-x", choices=("cl", "ll", "bc", "nir"),
                   help="the input's kind (default: from its extension, else from its content: LLVM bitcode, "
                        "LLVM IR text, reconverge IR text)")
    p.add_argument("-v", dest="verbose", action="store_true",
                   help="print the command line of every tool run (clang-22, spirv-val, ...) to standard error")
    p.add_argument("-D", dest="define", action="append", metavar="NAME[=VALUE]",
                   help="define a preprocessor macro (OpenCL C input; repeatable)")
    p.add_argument("-I", dest="include", action="append", metavar="DIR", help="add an #include directory")
    p.add_argument("-g", dest="debug_info", action="store_true",
                   help="compile OpenCL C with debug locations (clang's -g; code is unchanged): error messages "
                        "name source lines, and --convergence=scopes reads the loops calls were written in")
    p.add_argument("--convergence", choices=CONVERGENCE, default="auto",
                   help="what decides which loop a sub-group operation or barrier runs in: the IR's convergence "
                        "tokens, the source scopes of -g, or the CFG's shape; auto (the default) takes the first "
                        "the kernel has (README, Reconvergence)")
    p.add_argument("--clang-arg", action="append", metavar="FLAG",
                   help="pass FLAG to clang-22 as it is (repeatable; write --clang-arg=-FLAG). Also accepted: "
                        "clBuildProgram's -cl-std=, -cl-fast-relaxed-math, -cl-mad-enable and the other -cl-* "
                        "options, -w, -Werror")


def add_opt_option(p, what: str = "") -> None:
    """-O, with one default (-O0) and one meaning for every command."""
    p.add_argument("-O", dest="opt", choices=OPT_CHOICES, default="0", metavar="0|1|2|3|s|z", help=what + OPT_HELP)


INPUT_HELP = ("an OpenCL C (.cl), LLVM IR (.ll), bitcode (.bc) or reconverge IR text (.nir) file, or - for "
              "standard input (its kind from its content, or -x)")
