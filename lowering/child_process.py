"""Child processes that die with reconverge.

Every program reconverge starts (clang-22, the SPIRV-Tools, the forked children of
tools/targets/isolate.py) asks the kernel to kill it when its parent dies (Linux prctl PR_SET_PDEATHSIG,
man 2 prctl), so killing `reconverge`, even with SIGKILL, or killing the child that started a tool
(--timeout), never leaves a clang or a JIT running as an orphan. Tools get their input on stdin and give
their output on stdout, so no temporary file can be left behind either.

`VERBOSE` (the command line's -v) prints each tool's command line to standard error before it runs, as
clang -v shows the commands its driver runs.
"""
from __future__ import annotations

import ctypes
import os
import shlex
import signal
import subprocess
import sys

TYPE_CHECKING = False                   # not typing's: a compile's start-up does not import typing
if TYPE_CHECKING:
    from typing import Any, Callable

PR_SET_PDEATHSIG = 1
VERBOSE = False

_prctl: Callable[..., int] | None
try:
    _prctl = ctypes.CDLL(None, use_errno=True).prctl     # looked up now: not in the child after fork
except (OSError, AttributeError):                         # not Linux: children may outlive us there
    _prctl = None


def die_with_parent(parent: int) -> None:
    """In a child just forked from `parent`: be killed (SIGKILL) when the parent dies; if it already
    has, go now."""
    if _prctl is not None:
        _prctl(PR_SET_PDEATHSIG, signal.SIGKILL, 0, 0, 0)
    if os.getppid() != parent:
        os.kill(os.getpid(), signal.SIGKILL)


def run(command: list[str], **kwargs: Any) -> subprocess.CompletedProcess[Any]:
    """subprocess.run(command, **kwargs) for a tool that must not outlive this process."""
    parent = os.getpid()
    if VERBOSE:
        print(f" {shlex.join(command)}", file=sys.stderr, flush=True)
    return subprocess.run(command, preexec_fn=lambda: die_with_parent(parent), **kwargs)
