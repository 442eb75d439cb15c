"""Run a function in a forked child process, so that a crash in native code becomes a one-line error,
and a run that takes too long can be stopped.

llvmlite's JIT runs the original kernel as machine code: an integer division by zero (undefined
behaviour in the kernel) raises SIGFPE and would kill the whole command without a word; a kernel that
never ends cannot be interrupted from inside. The child asks the kernel to kill it when its parent
dies (lowering/child_process.py), so killing `reconverge` never leaves a JIT spinning as an orphan;
and it runs in a process group of its own, which is killed whole when the child is stopped (a timeout,
an interrupted `check`) or ends, so nothing it started (clang-22, an OpenCL driver's tools) outlives it.
"""
from __future__ import annotations

import os
import pickle
import select
import signal
import threading
import time
from typing import Callable, TypeVar, cast

from reconverge.lowering.child_process import die_with_parent, load_prctl
from reconverge.lowering.errors import CompileError

T = TypeVar("T")

class ChildTimeout(CompileError):
    """The child was still running at its deadline (and was killed)."""


_live: set[int] = set()             # children still running, for kill_children
_live_lock = threading.Lock()


def call_in_child(fn: Callable[[], T], what: str, timeout: float | None = None) -> T:
    """fn()'s result (or its exception), computed in a child process; a signal that kills the child is a
    CompileError naming `what` and the signal, and so is a child still running after `timeout` seconds
    (it is killed)."""
    read_end, write_end = os.pipe()
    parent = os.getpid()
    load_prctl()                                    # here: the child looks nothing up
    pid = os.fork()
    if pid == 0:                                    # the child: compute, send, leave without cleanup
        os.close(read_end)
        die_with_parent(parent)
        _own_group()
        signal.signal(signal.SIGTERM, signal.SIG_DFL)   # the parent reports an interrupted run; a child
        signal.signal(signal.SIGINT, signal.SIG_DFL)    # just ends
        import faulthandler
        faulthandler.disable()                      # the parent reports the crash, in one line
        try:
            payload: tuple[bool, object]
            try:
                payload = (True, fn())
            except BaseException as exc:            # noqa: BLE001 - handed to the parent as it is
                payload = (False, exc)
            with os.fdopen(write_end, "wb") as out:
                pickle.dump(payload, out)
        finally:
            os._exit(0)
    _own_group(pid)
    with _live_lock:
        _live.add(pid)
    try:
        return cast(T, _wait_for(pid, read_end, write_end, what, timeout))     # fn()'s result, unpickled
    finally:
        with _live_lock:
            _live.discard(pid)


def kill_children() -> None:
    """Kill every child call_in_child is waiting for (their callers then see them crash): how an
    interrupted command stops the work under way in its threads."""
    with _live_lock:
        for pid in _live:
            _kill_group(pid)


def _own_group(pid: int = 0) -> None:
    """Put the child in a process group of its own (called by both sides, whichever runs first), so that
    whatever it starts (a driver's compiler or linker) is killed with it."""
    try:
        os.setpgid(pid, 0)
    except OSError:                 # the child did it first, or is gone already
        pass


def _kill_group(pid: int) -> None:
    """SIGKILL to the child's process group: the child and everything it started."""
    try:
        os.killpg(pid, signal.SIGKILL)
    except OSError:
        try:
            os.kill(pid, signal.SIGKILL)
        except ProcessLookupError:
            pass


def _wait_for(pid: int, read_end: int, write_end: int, what: str, timeout: float | None) -> object:
    os.close(write_end)
    try:
        data = _read_all(read_end, None if timeout is None else time.monotonic() + timeout)
    except TimeoutError:
        _kill_group(pid)
        os.waitpid(pid, 0)
        os.close(read_end)
        raise ChildTimeout(f"{what} did not finish within {timeout:g} s (--timeout)") from None
    except BaseException:
        _kill_group(pid)
        os.waitpid(pid, 0)
        os.close(read_end)
        raise
    os.close(read_end)
    _, status = os.waitpid(pid, 0)
    try:
        os.killpg(pid, signal.SIGKILL)          # anything the child started and left behind
    except OSError:
        pass
    if os.WIFSIGNALED(status):
        sig = signal.Signals(os.WTERMSIG(status)).name
        hint = {"SIGFPE": " (an integer division by zero or INT_MIN / -1 in the kernel?)",
                "SIGSEGV": " (an out-of-bounds access? each buffer, __local array and private variable ends "
                           "at an unmapped guard region)"}.get(sig, "")
        raise CompileError(f"{what} crashed with {sig}{hint}")
    if not data:
        raise CompileError(f"{what} ended without a result (exit status {os.WEXITSTATUS(status)})")
    ok, value = pickle.loads(data)
    if not ok:
        raise value
    return value


def _read_all(fd: int, deadline: float | None) -> bytes:
    """Everything the child writes until it closes the pipe; TimeoutError past the deadline."""
    chunks: list[bytes] = []
    while True:
        if deadline is not None:
            left = deadline - time.monotonic()
            if left <= 0 or not select.select([fd], [], [], left)[0]:
                raise TimeoutError
        chunk = os.read(fd, 1 << 16)
        if not chunk:
            return b"".join(chunks)
        chunks.append(chunk)
