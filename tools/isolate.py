"""Run a function in a forked child process, so that a crash in native code becomes a one-line error.

llvmlite's JIT runs the original kernel as machine code: an integer division by zero (undefined
behaviour in the kernel) raises SIGFPE and would kill the whole command without a word.
"""
from __future__ import annotations

import os
import pickle
import signal
from typing import Callable

from lowering.errors import CompileError


def call_in_child(fn: Callable[[], object], what: str) -> object:
    """fn()'s result (or its exception), computed in a child process; a signal that kills the child is a
    CompileError naming `what` and the signal."""
    read_end, write_end = os.pipe()
    pid = os.fork()
    if pid == 0:                                    # the child: compute, send, leave without cleanup
        os.close(read_end)
        import faulthandler
        faulthandler.disable()                      # the parent reports the crash, in one line
        try:
            try:
                payload = (True, fn())
            except BaseException as exc:            # noqa: BLE001 - handed to the parent as it is
                payload = (False, exc)
            with os.fdopen(write_end, "wb") as out:
                pickle.dump(payload, out)
        finally:
            os._exit(0)
    os.close(write_end)
    with os.fdopen(read_end, "rb") as inp:
        data = inp.read()
    _, status = os.waitpid(pid, 0)
    if os.WIFSIGNALED(status):
        sig = signal.Signals(os.WTERMSIG(status)).name
        hint = {"SIGFPE": " (an integer division by zero or INT_MIN / -1 in the kernel?)",
                "SIGSEGV": " (an access outside the kernel's buffers? each buffer ends at an unmapped guard "
                           "region)"}.get(sig, "")
        raise CompileError(f"{what} crashed with {sig}{hint}")
    ok, value = pickle.loads(data)
    if not ok:
        raise value
    return value
