"""Run a deeply recursive algorithm in a thread with a large stack.

The structurizer and SSA construction recurse along the dominator tree and along block chains, the
printer, validator, emitters and interpreter along the tree: a 100k-block function or 5,000 nested ifs
nest that deep. A big thread stack plus a raised recursion limit is simpler and faster in Python than
hand-made explicit stacks for these mutually recursive walks. Every public entry point that walks a
tree is wrapped with `depth_independent`, so callers never see Python's recursion limit; nested calls
run in place.

The thread is started with _thread, threading's own primitive: `import threading` (its classes, weakref
sets, the shutdown hook) was 1.5% of a one-kernel SPIR-V compile's process, for a thread that is always
joined before its caller goes on (issue 26).
"""
from __future__ import annotations

import _thread
import functools
import sys

TYPE_CHECKING = False                   # not typing's: a compile's start-up does not import typing
if TYPE_CHECKING:
    from typing import Any, Callable, TypeVar

    T = TypeVar("T")
    F = TypeVar("F", bound=Callable[..., Any])

_STACK_BYTES = 1 << 30
_RECURSION_LIMIT = 2_000_000


def call_with_deep_stack(fn: Callable[[], T]) -> T:
    if getattr(_local, "deep", False):
        return fn()
    result: list[T] = []
    error: list[BaseException] = []

    done = _thread.allocate_lock()
    done.acquire()

    def runner() -> None:
        _local.deep = True
        try:
            result.append(fn())
        except BaseException as exc:  # re-raised in the caller's thread
            error.append(exc)
        finally:
            done.release()

    old_limit = sys.getrecursionlimit()
    old_size = _thread.stack_size(_STACK_BYTES)
    sys.setrecursionlimit(max(old_limit, _RECURSION_LIMIT))
    try:
        _thread.start_new_thread(runner, ())
        done.acquire()                      # the thread's last act: released when fn has returned or raised
    finally:
        _thread.stack_size(old_size)
        sys.setrecursionlimit(old_limit)
    if error:
        raise error[0]
    return result[0]


_local = _thread._local()


def depth_independent(fn: F) -> F:
    """Decorator: `fn` runs with a deep stack (in place when already inside one)."""
    @functools.wraps(fn)
    def wrapper(*args: Any, **kwargs: Any) -> Any:
        return call_with_deep_stack(lambda: fn(*args, **kwargs))
    return wrapper  # type: ignore[return-value]
