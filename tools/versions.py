"""`reconverge --version`: our version and the versions of the tools we run, found the way we run them.

Why: a wrong answer is first triaged by "which clang, which spirv-tools, which iga64", as clang's
`--version` names its target and install directory. Everything here runs only when --version is asked
for, so no other command pays for the subprocesses or for importlib.metadata.
"""
from __future__ import annotations

import platform
import shutil
import subprocess
import sys


def _first_line(cmd: list[str]) -> str:
    """The first non-empty line a tool prints about itself, or why there is none."""
    path = shutil.which(cmd[0])
    if path is None:
        return "not found on PATH"
    try:
        proc = subprocess.run(cmd, capture_output=True, text=True, timeout=20, stdin=subprocess.DEVNULL)
    except (OSError, subprocess.TimeoutExpired) as e:
        return f"{path}: did not answer ({e.__class__.__name__})"
    lines = [line.strip() for line in (proc.stdout + proc.stderr).splitlines() if line.strip()]
    return f"{lines[0] if lines else 'no version text'} ({path})"


def _package(name: str) -> str:
    try:
        from importlib.metadata import PackageNotFoundError, version
        return version(name)
    except PackageNotFoundError:
        return "not installed"


def version_text() -> str:
    from reconverge.lowering.frontend.clang import CLANG
    lines = [f"reconverge {_package('reconverge')}",
             f"  python: {platform.python_version()} ({sys.executable})"]
    try:
        import llvmlite.binding as llvm
        lines.append(f"  llvmlite: {_package('llvmlite')} (LLVM {'.'.join(map(str, llvm.llvm_version_info))})")
    except ImportError:
        lines.append("  llvmlite: not installed")
    lines += [f"  clang: {_first_line([CLANG, '--version'])}",
              f"  spirv-val: {_first_line(['spirv-val', '--version'])}",
              f"  iga64: {_first_line(['iga64'])}"]
    return "\n".join(lines)
