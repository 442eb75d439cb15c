"""SPIRV-Tools (Debian spirv-tools) through subprocess: the Khronos validator is the judge of our output,
and the disassembler/CFG printer/optimizer are how tests and users look at it. Binaries go through
stdin/stdout ("-"), so no temporary files are needed.
"""
from __future__ import annotations

import re
import subprocess

from lowering import child_process
from lowering.errors import CompileError

_ERROR_PREFIX = re.compile(r"^error:\s*(line \d+:\s*)?")


def _run(tool: str, args: list[str], binary: bytes) -> subprocess.CompletedProcess:
    try:
        return child_process.run([tool, *args], input=binary, capture_output=True, check=False)
    except FileNotFoundError:
        raise CompileError(f"{tool} not found: install the Debian package spirv-tools") from None


def _first_error(output: str) -> str:
    """The first error of a SPIRV-Tools report on one line, with the offending instruction if shown.

    'error: line 11: Invalid use of ...' -> 'Invalid use of ...': the line number counts
    instructions, which means nothing to whoever reads the message.
    """
    lines = output.splitlines()
    for index, line in enumerate(lines):
        if line.startswith("error"):
            message = _ERROR_PREFIX.sub("", line).strip()
            following = lines[index + 1].strip() if index + 1 < len(lines) else ""
            if following and lines[index + 1][:1].isspace() and "Op" in following:
                message += f" (at: {following[:160]})"
            return message
    text = " ".join(output.split())
    return text[:300] or "no output"


def _check(tool: str, result: subprocess.CompletedProcess, what: str) -> None:
    if result.returncode != 0:
        report = result.stderr.decode("utf-8", "replace") + result.stdout.decode("utf-8", "replace")
        raise CompileError(f"{what}: {tool}: {_first_error(report)}")


def validate(binary: bytes, target_env: str, what: str) -> None:
    """Run spirv-val for the target environment ('vulkan1.3', 'spv1.6', ...); CompileError on failure."""
    _check("spirv-val", _run("spirv-val", ["--target-env", target_env, "-"], binary), what)


def disassemble(binary: bytes, what: str = "SPIR-V module") -> str:
    """spirv-dis text with friendly names (%uint, %float_0_5) and no colour codes."""
    result = _run("spirv-dis", ["--no-color", "-o", "-", "-"], binary)
    _check("spirv-dis", result, what)
    return result.stdout.decode("utf-8")


def cfg_dot(binary: bytes, what: str = "SPIR-V module") -> str:
    """The control-flow graph of every function as GraphViz dot (spirv-cfg)."""
    result = _run("spirv-cfg", ["-o", "-", "-"], binary)
    _check("spirv-cfg", result, what)
    return result.stdout.decode("utf-8")


def optimize(binary: bytes, args=("-O",), what: str = "SPIR-V module") -> bytes:
    """spirv-opt with the given passes (default -O); the optimized binary."""
    result = _run("spirv-opt", [*args, "-", "-o", "-"], binary)
    _check("spirv-opt", result, what)
    return result.stdout
