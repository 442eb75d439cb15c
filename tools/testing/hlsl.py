"""HLSL compute shaders -> LLVM IR for Vulkan, with clang-22's HLSL front end and our own prelude.

Debian's clang-22 has no hlsl.h, so `-finclude-default-header` finds examples/hlsl/include/hlsl.h
instead (type names and the wave built-ins, see there). The command is the README's ("HLSL/Vulkan LLVM
IR input"); `hlsl_command` spells it once for the tests and tools.
"""
from __future__ import annotations

import os
import subprocess

from reconverge.lowering.frontend.clang import CLANG

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.realpath(__file__))))
EXAMPLES = os.path.join(ROOT, "examples", "hlsl")
INCLUDE = os.path.join(EXAMPLES, "include")
TRIPLE = "spirv-unknown-vulkan1.3-compute"


def hlsl_command(source: str, output: str, level: str = "-O2", entry: str = "main",
                 extra: tuple[str, ...] = ()) -> list[str]:
    """`extra`: more -cc1 flags, e.g. -disable-llvm-passes (the outer @main then calls the shader's
    internal function, as in LLVM's own SPIR-V tests)."""
    return [CLANG, "-cc1", "-triple", TRIPLE, "-x", "hlsl", "-finclude-default-header", "-I", INCLUDE,
            "-hlsl-entry", entry, "-emit-llvm", level, *extra, "-o", output, source]


def compile_hlsl(source: str, output: str, level: str = "-O2", entry: str = "main",
                 extra: tuple[str, ...] = ()) -> str:
    """Compile `source` to LLVM IR text at `output` (returned); clang's first error line on failure."""
    done = subprocess.run(hlsl_command(source, output, level, entry, extra), capture_output=True, text=True,
                          check=False)
    if done.returncode != 0:
        first = next((line for line in done.stderr.splitlines() if "error" in line), done.stderr.strip())
        raise RuntimeError(f"{os.path.basename(source)}: {first}")
    return output
