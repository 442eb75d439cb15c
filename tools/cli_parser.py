"""The argparse parsers of the `reconverge` command line (tools/cli.py): every command's, for `--help`, for
the commands other than compile and for any compile command line tools/compile_argv.py does not read
itself (issue 26: argparse, gettext and locale, with building compile's ~70 arguments, were ~8% of a
one-kernel SPIR-V compile's own process)."""
from __future__ import annotations

import argparse
import os
import sys

from reconverge.tools.commands import COMMANDS, command_help
from reconverge.tools.compile_outputs import CF_CHOICES, EMIT_KINDS
from reconverge.tools.source_args import INPUT_HELP, add_build_options, add_opt_option
from reconverge.tools.spirv_args import DEFAULT_SPIRV_VERSION, DEFAULT_TARGET_ENV, TARGET_ENV_HELP
from reconverge.tools.usage import MAX_SECONDS, UsageError, seconds, subgroup_size

TYPE_CHECKING = False
if TYPE_CHECKING:
    from typing import Any, Callable


class _Parser(argparse.ArgumentParser):
    """argparse, but usage errors are one line and exit 2 without printing the usage block; and its help
    formatters get the width HelpFormatter would work out, worked out once: argparse makes a formatter for
    each of the ~70 arguments a compile's parser adds, each asking shutil (whose import brings bz2 and
    lzma) for the terminal's size (issue 26: the start-up of a compile)."""

    def __init__(self, *args: Any, **kwargs: Any):
        # no unique-prefix abbreviations (clang takes none): `compile --target gen` read as --target-env
        kwargs.setdefault("allow_abbrev", False)
        super().__init__(*args, **kwargs)

    def error(self, message: str):
        raise UsageError(message)

    def _get_formatter(self):
        return self.formatter_class(prog=self.prog, width=_help_width())


_HELP_WIDTH: list[int] = []


def _help_width() -> int:
    """argparse.HelpFormatter's default width: shutil.get_terminal_size().columns - 2 ($COLUMNS, else the
    terminal of sys.__stdout__, else 80)."""
    if not _HELP_WIDTH:
        try:
            columns = int(os.environ["COLUMNS"])
        except (KeyError, ValueError):
            columns = 0
        if columns <= 0:
            try:
                columns = os.get_terminal_size(sys.__stdout__.fileno()).columns   # type: ignore[union-attr]
            except (AttributeError, ValueError, OSError):
                columns = 0
        _HELP_WIDTH.append((columns or 80) - 2)
    return _HELP_WIDTH[0]


class _VersionAction(argparse.Action):
    """--version, computed only when asked for (tools/versions.py runs the tools it names)."""

    def __init__(self, option_strings, dest=argparse.SUPPRESS, default=argparse.SUPPRESS, help=None):
        super().__init__(option_strings, dest=dest, default=default, nargs=0, help=help)

    def __call__(self, parser, namespace, values, option_string=None):
        from reconverge.tools.versions import version_text
        print(version_text())
        parser.exit()


def build_parser(command: str | None = None, *, every_command: bool = True,
                 compile_func: Callable[..., Any] | None = None) -> argparse.ArgumentParser:
    """The parser of `command` in full (of every command when None and every_command), the other commands by
    their help line alone (`reconverge --help` lists them) or, when `command` is given, by name alone: a
    command imports only its own modules (tools/commands.py), and builds no parser it does not run (the
    seven stub parsers were 2% of a one-kernel compile's instructions, callgrind; run's parser too)."""
    parser = _Parser(prog="reconverge", description="GPU compiler backend: LLVM IR to structured IR, "
                     "SPIR-V and Intel Gen9 ISA.")
    parser.add_argument("--debug", action="store_true", help="show tracebacks of internal errors")
    parser.add_argument("--version", action=_VersionAction,
                        help="show reconverge's version and those of the clang, spirv-val and iga64 it runs")
    sub = parser.add_subparsers(dest="command", required=True, parser_class=_Parser)
    if command is not None:
        built_in_full = {COMMANDS[command][0]}
    else:
        built_in_full = {module for module, _ in COMMANDS.values()} if every_command else set()
    for name, (module_name, help_line) in COMMANDS.items():
        if name in sub.choices:
            continue                                    # added with another command of its module
        in_cli = module_name == "reconverge.tools.cli"
        if module_name in built_in_full and (not in_cli or command in (None, name)):
            if in_cli:
                _add_compile(sub, compile_func) if name == "compile" else _add_run(sub)
            else:
                __import__(module_name, fromlist=["add_commands"]).add_commands(sub)
        elif command is not None:
            # argparse checks the command against these names and looks up only its own parser
            sub.choices[name] = None        # type: ignore[assignment]
        else:
            sub.add_parser(name, help=help_line)
    return parser


def _add_compile(sub, func: Callable[..., Any] | None) -> None:
    c = sub.add_parser("compile", help=command_help("compile"))
    c.add_argument("input", help=INPUT_HELP + "; .nir (what --emit nir prints) continues after the pass its "
                                             "form implies")
    c.add_argument("-o", dest="output", default="-", help="output file ('-' = stdout, the default)")
    c.add_argument("--emit", choices=EMIT_KINDS,
                   help="default: from -o's name (.spv spirv, .spvasm spirv-asm, .krn gen, .s/.asm gen-asm, .ll "
                        "llvm, .nir nir), else nir. llvm: the LLVM IR reconverge reads (clang's output); nir: "
                        "text IR; dot-cfg: GraphViz CFG; dot-tree: GraphViz control-flow tree; spirv: a "
                        "SPIR-V binary of all the kernels; spirv-asm: its disassembly; dot-spirv: its CFG; gen: a "
                        "Gen9 kernel container of all the kernels; gen-bin: one kernel's code alone (iga64 -p=9 -d "
                        "reads it); gen-asm: its iga64-syntax text; gen-mir: the Gen machine IR")
    add_opt_option(c)
    c.add_argument("--divergence", action="store_true",
                   help="--emit nir: mark each value, branch and loop div or con (the divergence analysis, as NIR "
                        "prints it)")
    c.add_argument("--kernel", help="compile only this kernel")
    c.add_argument("--verify-each", action="store_true", help="run the IR validator after every pass (Gen: and "
                   "the machine-IR verifier after selection and allocation)")
    c.add_argument("--dump-after", action="append", metavar="PASS|all",
                   help="write text IR and .dot files after this pass (repeatable)")
    c.add_argument("--dump-dir", default="reconverge-dump", help="folder for --dump-after (default: %(default)s)")
    c.add_argument("--stop-after", metavar="PASS", help="stop after this pass (read: the CFG form)")
    c.add_argument("--pipeline", metavar="generic|spirv|gen|gen-blockip",
                   help="which target's passes to run (default: spirv for the SPIR-V outputs, else generic, the "
                        "target-independent passes); see lowering/target.py")
    c.add_argument("--simd", type=int, metavar="8|16", help="--emit gen*: SIMD width (default 16)")
    c.add_argument("--cf", choices=CF_CHOICES,
                   help="--emit gen*: control flow as Gen's structured branches from the tree, per-lane blockIP "
                        "on the CFG with no structurizer (any CFG, irreducible ones too), hybrid (the CFG's "
                        "natural regions in structured branches inside blockIP), or auto (default): hybrid for "
                        "a kernel the structurizer cannot take or where it is estimated to run clearly less, "
                        "else structured")
    c.add_argument("--print-after", action="append", metavar="PASS|all",
                   help="print the IR after this pass to standard error (repeatable); with --emit gen or gen-asm "
                        "also the machine passes: isel (machine IR) and regalloc (after register allocation)")
    c.add_argument("--print-before", action="append", metavar="PASS|all",
                   help="print the IR before this pass to standard error (repeatable)")
    c.add_argument("--spirv-version", metavar="1.0..1.6",
                   help=f"SPIR-V version to emit (default {DEFAULT_SPIRV_VERSION}, or the newest --target-env "
                        f"takes)")
    c.add_argument("--target-env", metavar="ENV", help=TARGET_ENV_HELP)
    c.add_argument("--local", dest="local_size", metavar="X[,Y,Z]",
                   help="work-group size of the entry points (default: each kernel's reqd_work_group_size, "
                        "else 64,1,1)")
    c.add_argument("--local-size", dest="local_size", help=argparse.SUPPRESS)    # its old spelling
    c.add_argument("--validate", action="store_true", help="check the SPIR-V module with spirv-val")
    c.add_argument("--maximal-reconvergence", action="store_true",
                   help="declare MaximallyReconvergesKHR (SPV_KHR_maximal_reconvergence): for a driver that offers "
                        "VK_KHR_shader_maximal_reconvergence")
    add_build_options(c)
    c.add_argument("--debug", action="store_true", help=argparse.SUPPRESS)
    c.set_defaults(func=func)


def _add_run(sub) -> None:
    r = sub.add_parser("run", help=command_help("run"),
                       description="Run one kernel over an NDRange on a target and write every buffer "
                                   "argument, after the run, to DIR/NAME.npy (all of them or, on an error, "
                                   "none).")
    r.add_argument("input", help=INPUT_HELP)
    r.add_argument("--kernel", help="the kernel to run (needed when the input has several)")
    r.add_argument("--target", metavar="llvm|ir|spirv|opencl|gen",
                   help="llvm: the LLVM module on the CPU JIT; ir: the structured IR on the interpreter; "
                        "spirv: the SPIR-V module on a Vulkan device; opencl: the .cl source on an installed "
                        "OpenCL driver (not our compiler at all); gen: our Gen9 code in the Gen9 simulator")
    r.add_argument("--platform", metavar="NAME|N", help="opencl target: the OpenCL platform (default: the first)")
    r.add_argument("--device", metavar="NAME|N", help="opencl target: the device (default: the platform's first)")
    r.add_argument("--global", dest="global_size", required=True, metavar="N[,N,N]", help="global size")
    r.add_argument("--local", metavar="L[,L,L]",
                   help="work-group size (default: the kernel's reqd_work_group_size; else the largest "
                        "divisor of the global size that is at most 64 in dimension 0, and 1 in the others)")
    r.add_argument("--arg", action="append", metavar="NAME=VALUE",
                   help="one per kernel parameter, NAME its source name (HLSL: the buffer's, in (set, binding) order) "
                        "or argN: a buffer takes @FILE.npy or "
                        "zeros:COUNT:DTYPE (DTYPE a numpy name: int8..uint64, float16..float64; it must match "
                        "the parameter's element type); a __local pointer local:COUNT:DTYPE (per work-group); "
                        "a scalar a number (range-checked against its type); a vector N,N,.. (one per lane)")
    r.add_argument("--out", metavar="DIR", help="folder for NAME.npy (created if needed; with --compare: the "
                                                 "first target's buffers)")
    r.add_argument("--compare", metavar="T1,T2[,..]",
                   help="run on each target (instead of --target) and report, per target, the first element of "
                        "each buffer that differs from the first target's; exit 1 if any differs")
    r.add_argument("--print", action="store_true", help="print the buffers after the run (large ones elided)")
    r.add_argument("--stats", action="store_true",
                   help="gen target: print the executed instructions, branches and sends, and the --cf mode used")
    add_opt_option(r)
    r.add_argument("--spirv-version", metavar="1.0..1.6",
                   help=f"SPIR-V version, for --target spirv (default {DEFAULT_SPIRV_VERSION}, or the newest "
                        f"--target-env takes)")
    r.add_argument("--target-env", default=DEFAULT_TARGET_ENV, metavar="ENV",
                   help="for --target spirv: " + TARGET_ENV_HELP)
    r.add_argument("--vk-device", metavar="NAME|N",
                   help="spirv target: the Vulkan device, by index or part of its name (see `reconverge devices`; "
                        "default: lavapipe if present, else the first)")
    r.add_argument("--max-steps", type=int, metavar="N",
                   help="ir: instructions per work-item, gen: per hardware thread, before the run is stopped as "
                        "endless (defaults: ir 60000000, gen 1000000; 0: no limit)")
    r.add_argument("--subgroup-size", type=subgroup_size, metavar="N",
                   help="llvm and ir targets: lanes per sub-group (a power of two; default 16, gen's default SIMD "
                        "width)")
    r.add_argument("--simd", type=int, metavar="8|16", help="gen target: SIMD width (default 16)")
    r.add_argument("--cf", choices=CF_CHOICES,
                   help="gen target: structured branches, per-lane blockIP, hybrid, or auto (default; see compile)")
    r.add_argument("--trace", metavar="OUT.png|.svg|.pdf",
                   help="gen target: draw the first work-group's lane activity, block labels beside the rows")
    r.add_argument("--timeout", type=seconds, metavar="SECONDS",
                   help=f"stop the run (any target) after this many seconds (at most {MAX_SECONDS:g}), "
                        f"with an error")
    r.add_argument("--verify-each", action="store_true", help="run the IR validator after every pass")
    add_build_options(r)
    r.add_argument("--debug", action="store_true", help=argparse.SUPPRESS)
    from reconverge.tools.run_command import run_command
    r.set_defaults(func=run_command)
