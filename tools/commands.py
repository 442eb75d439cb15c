"""The subcommands, in `reconverge --help` order: the module whose add_commands(subparsers) adds each, and its
one-line help. The command line builds in full only the parser of the command it runs; the others get a
parser with their help line alone, so `reconverge --help` imports none of the commands' modules
(tests/test_startup.py)."""
from __future__ import annotations

COMMANDS: dict[str, tuple[str, str]] = {
    "compile": ("reconverge.tools.cli", "compile an OpenCL C, LLVM IR (.ll) or bitcode (.bc) file"),
    "run": ("reconverge.tools.cli", "run a kernel and write its buffers to DIR/NAME.npy"),
    "asm": ("reconverge.tools.isa_commands", "assemble Gen9 iga64-syntax text to a binary"),
    "disasm": ("reconverge.tools.isa_commands", "disassemble a Gen9 binary to iga64-syntax text"),
    "diff": ("reconverge.tools.isa_commands", "aligned, field-level difference of two Gen9 binaries (exit 1 if "
                                              "they differ)"),
    "trace": ("reconverge.tools.trace_command", "simulate a Gen9 program and draw per-lane activity (PNG, SVG "
                                                "or PDF)"),
    "check": ("reconverge.tools.check_command", "validate the SPIR-V of sources and modules (CI)"),
    "devices": ("reconverge.tools.devices_command", "list the Vulkan devices run --target spirv --vk-device "
                                                    "can use"),
    "fuzz": ("reconverge.tools.fuzz.command", "differential fuzzing: random UB-free kernels on every target"),
}


def command_help(name: str) -> str:
    return COMMANDS[name][1]


def command_in(argv: list[str]) -> str | None:
    """The subcommand argv names: its first word that is not an option (the main parser's options, --debug and
    --version, take no value)."""
    return next((token for token in argv if not token.startswith("-")), None)
