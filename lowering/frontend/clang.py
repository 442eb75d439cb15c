"""OpenCL C to LLVM IR text, through clang-22 run as a subprocess.

Flags as found to work in ../shared/notes/toolchain-oracles.md: the spir64 target, OpenCL C 3.0 with the
default header, and at -O0 `-disable-O0-optnone` so that LLVM passes run on the result at all.
"""
from __future__ import annotations

import os
import shutil
import subprocess

from lowering.errors import CompileError

CLANG = os.environ.get("RECONVERGE_CLANG", "clang-22")
OPT_LEVELS = ("-O0", "-O1", "-O2", "-O3")


def clang_command(source_path: str, opt_level: str = "-O0") -> list[str]:
    if opt_level not in OPT_LEVELS:
        raise ValueError(f"unknown optimisation level {opt_level!r}")
    # -cl-kernel-arg-info: clang leaves kernel parameters unnamed (%0, %1); !kernel_arg_name keeps the
    # source's names for the IR, its dumps and `reconverge run --arg NAME=...`
    cmd = [CLANG, "-x", "cl", "-cl-std=CL3.0", "-Xclang", "-finclude-default-header", "-cl-kernel-arg-info",
           "-target", "spir64", "-emit-llvm", "-S", opt_level, "-o", "-", source_path]
    if opt_level == "-O0":
        cmd[-4:-4] = ["-Xclang", "-disable-O0-optnone"]
    return cmd


def compile_opencl(source_path: str, opt_level: str = "-O0") -> str:
    """Return the LLVM IR text clang-22 makes of an OpenCL C file; clang's first error becomes a CompileError."""
    if shutil.which(CLANG) is None:
        raise CompileError(f"{CLANG} not found: install it with 'apt-get install clang-22' "
                           "(or set RECONVERGE_CLANG to a clang of LLVM 22)")
    if not os.path.isfile(source_path):
        raise CompileError(f"{source_path}: no such file")
    proc = subprocess.run(clang_command(source_path, opt_level), capture_output=True, text=True)
    if proc.returncode != 0:
        errors = [line for line in proc.stderr.splitlines() if ": error:" in line or "fatal error:" in line]
        first = errors[0] if errors else (proc.stderr.strip().splitlines() or ["clang-22 failed"])[0]
        more = f" (and {len(errors) - 1} more errors)" if len(errors) > 1 else ""
        raise CompileError(first.strip() + more)
    return proc.stdout
