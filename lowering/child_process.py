"""Child processes that die with reconverge.

Every program reconverge starts (clang-22, the SPIRV-Tools, the forked children of
tools/targets/isolate.py) asks the kernel to kill it when its parent dies (Linux prctl PR_SET_PDEATHSIG,
man 2 prctl), so killing `reconverge`, even with SIGKILL, or killing the child that started a tool
(--timeout), never leaves a clang or a JIT running as an orphan. Tools get their input on stdin and give
their output on stdout, so no temporary file can be left behind either.

A tool is started through util-linux's `setpriv --pdeathsig KILL -- TOOL ...` (it sets the signal and
execs the tool, which keeps it: PR_SET_PDEATHSIG survives execve), so subprocess starts it with vfork
and no Python code in the child. Setting the signal from Python in the child (`preexec_fn`, through
ctypes) made subprocess fork the whole interpreter instead: page tables copied and every page written
afterwards faulted (1,300 page faults of a one-kernel compile), and `import ctypes` was 9M instructions,
3% of that compile's process (callgrind). Where setpriv is missing, or the tool is not found on PATH
(subprocess's own FileNotFoundError then, as before), the child sets the signal itself.

`VERBOSE` (the command line's -v) prints each tool's command line to standard error before it runs, as
clang -v shows the commands its driver runs.
"""
from __future__ import annotations

import os
import signal
import subprocess
import sys

TYPE_CHECKING = False                   # not typing's: a compile's start-up does not import typing
if TYPE_CHECKING:
    from typing import Any, Callable

PR_SET_PDEATHSIG = 1
VERBOSE = False
SETPRIV = "/usr/bin/setpriv"

_prctl: list[Callable[..., int] | None] = []      # libc's prctl (None: not Linux), once looked up
_setpriv: list[bool] = []


def load_prctl() -> Callable[..., int] | None:
    """libc's prctl through ctypes, looked up on first use. A process that forks a Python child which
    calls die_with_parent calls this first, so that the child neither imports nor looks anything up."""
    if not _prctl:
        try:
            import ctypes
            _prctl.append(ctypes.CDLL(None, use_errno=True).prctl)
        except (ImportError, OSError, AttributeError):      # not Linux: children may outlive us there
            _prctl.append(None)
    return _prctl[0]


def die_with_parent(parent: int) -> None:
    """In a child just forked from `parent`: be killed (SIGKILL) when the parent dies; if it already
    has, go now."""
    prctl = load_prctl()
    if prctl is not None:
        prctl(PR_SET_PDEATHSIG, signal.SIGKILL, 0, 0, 0)
    if os.getppid() != parent:
        os.kill(os.getpid(), signal.SIGKILL)


def _found(program: str, env: dict[str, str] | None) -> bool:
    """Whether execvp would find `program` (an executable file), as subprocess looks for it."""
    if os.sep in program:
        return os.path.isfile(program) and os.access(program, os.X_OK)
    return any(os.path.isfile(path) and os.access(path, os.X_OK)
               for path in (os.path.join(directory, program) for directory in os.get_exec_path(env)))


def run(command: list[str], **kwargs: Any) -> subprocess.CompletedProcess[Any]:
    """subprocess.run(command, **kwargs) for a tool that must not outlive this process."""
    parent = os.getpid()
    if VERBOSE:
        import shlex
        print(f" {shlex.join(command)}", file=sys.stderr, flush=True)
    if not _setpriv:
        _setpriv.append(os.access(SETPRIV, os.X_OK))
    if _setpriv[0] and _found(command[0], kwargs.get("env")):
        return subprocess.run([SETPRIV, "--pdeathsig", "KILL", "--", *command], **kwargs)
    load_prctl()                                            # in this process: not in the child after fork
    return subprocess.run(command, preexec_fn=lambda: die_with_parent(parent), **kwargs)
