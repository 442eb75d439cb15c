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

A tool run through setpriv whose output is captured as bytes (what a compile asks of clang and spirv-val)
is started with os.posix_spawn (glibc's vfork-style clone), its standard streams memory files, not
through subprocess: `import subprocess` brings signal's enums, threading, selectors and contextlib, 23M
instructions, 7% of a one-kernel SPIR-V compile's own process (callgrind; issue 26). Any other use (text
output, a timeout, an env, no setpriv) goes through subprocess.run as before.

`VERBOSE` (the command line's -v) prints each tool's command line to standard error before it runs, as
clang -v shows the commands its driver runs.
"""
from __future__ import annotations

import os
import sys

from reconverge.typing_free import cast

TYPE_CHECKING = False                   # not typing's: a compile's start-up does not import typing
if TYPE_CHECKING:
    import subprocess
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
    import signal
    prctl = load_prctl()
    if prctl is not None:
        prctl(PR_SET_PDEATHSIG, signal.SIGKILL, 0, 0, 0)
    if os.getppid() != parent:
        os.kill(os.getpid(), signal.SIGKILL)


def _found(program: str, env: dict[str, str] | None) -> bool:
    """Whether execvp would find `program` (an executable file), as subprocess looks for it."""
    if os.sep in program:
        return os.path.isfile(program) and os.access(program, os.X_OK)
    # os.get_exec_path's answer, without its `import warnings` (a compile needs nothing else of it)
    directories = (os.environ if env is None else env).get("PATH", os.defpath).split(os.pathsep)
    return any(os.path.isfile(path) and os.access(path, os.X_OK)
               for path in (os.path.join(directory, program) for directory in directories))


class Completed:
    """What subprocess.run answers, for the spawned tools: args, returncode, stdout and stderr (bytes)."""
    __slots__ = ("args", "returncode", "stdout", "stderr")

    def __init__(self, args: list[str], returncode: int, stdout: bytes, stderr: bytes):
        self.args, self.returncode, self.stdout, self.stderr = args, returncode, stdout, stderr


# the signals subprocess gives back their default action in the child (restore_signals): Python ignores
# SIGPIPE and SIGXFSZ (Linux numbers; posix_spawn is only taken where setpriv, util-linux, is)
_RESTORED_SIGNALS = (13, 25)


def _spawned(command: list[str], data: bytes) -> Completed:
    """`command` started with posix_spawn, `data` on its standard input, its standard output and error
    captured (as subprocess.run(command, input=data, capture_output=True) does). Standard input is a pipe,
    as subprocess gives it (spirv-val reads a file on standard input otherwise than a pipe); output and
    error are memory files (memfd_create), read after the tool has exited: the tool never waits on them, so
    `data` is written whole first and no poll loop is needed (nor `select`, an extension module: loading
    one is ~1.7M instructions and 0.3 ms of system time)."""
    outputs = [os.memfd_create(name) for name in ("stdout", "stderr")]
    try:
        in_read, in_write = os.pipe()
        try:
            pid = os.posix_spawn(command[0], command, os.environ,
                                 file_actions=[(os.POSIX_SPAWN_DUP2, in_read, 0),
                                               (os.POSIX_SPAWN_DUP2, outputs[0], 1),
                                               (os.POSIX_SPAWN_DUP2, outputs[1], 2)],
                                 setsigdef=_RESTORED_SIGNALS)
        except BaseException:
            os.close(in_write)
            raise
        finally:
            os.close(in_read)
        try:
            view, written = memoryview(data), 0
            while written < len(data):
                written += os.write(in_write, view[written:])
        except BrokenPipeError:                 # the tool stopped reading: as subprocess, not an error
            pass
        finally:
            os.close(in_write)
            _, status = os.waitpid(pid, 0)
        out, err = (_read_all(fd) for fd in outputs)
    finally:
        for fd in outputs:
            os.close(fd)
    return Completed(command, os.waitstatus_to_exitcode(status), out, err)


def _read_all(fd: int) -> bytes:
    """The whole of the memory file `fd`, from its start."""
    size = os.lseek(fd, 0, os.SEEK_END)
    os.lseek(fd, 0, os.SEEK_SET)
    chunks = []
    while size > 0:
        chunk = os.read(fd, size)
        if not chunk:
            break
        chunks.append(chunk)
        size -= len(chunk)
    return b"".join(chunks)


def run(command: list[str], **kwargs: Any) -> subprocess.CompletedProcess[Any]:
    """subprocess.run(command, **kwargs) for a tool that must not outlive this process."""
    parent = os.getpid()
    if VERBOSE:
        import shlex
        print(f" {shlex.join(command)}", file=sys.stderr, flush=True)
    if not _setpriv:
        _setpriv.append(os.access(SETPRIV, os.X_OK))
    if _setpriv[0] and _found(command[0], kwargs.get("env")):
        command = [SETPRIV, "--pdeathsig", "KILL", "--", *command]
        if kwargs.get("capture_output") and set(kwargs) <= {"input", "capture_output", "check"} \
                and not kwargs.get("check") and hasattr(os, "memfd_create"):
            # the attributes a caller reads are CompletedProcess's
            return cast("subprocess.CompletedProcess[Any]", _spawned(command, kwargs.get("input") or b""))
        import subprocess
        return subprocess.run(command, **kwargs)
    import subprocess
    load_prctl()                                            # in this process: not in the child after fork
    return subprocess.run(command, preexec_fn=lambda: die_with_parent(parent), **kwargs)
