"""Lockstep execution of a work-group: OpenCL barrier semantics for the interpreter.

The default schedule (interp.py) runs each work-item to completion before the next, as the JIT oracle
does; a barrier is then a no-op and a kernel that exchanges data through `__local` memory reads slots
its neighbours have not written yet. Here every work-item of a group is a coroutine - the interpreter's
walk generator, which in lockstep mode yields at each barrier - and once all of them have reached the
barrier they resume, still one at a time in local-id order, up to the next one. That is exactly OpenCL's guarantee: all
writes before the barrier are visible to every item of the group after it.

A group whose items do not all reach the same barrier (some finish, or wait at a different barrier) is
undefined behaviour in OpenCL and raises InterpreterError. Private memory is reset per group, since the
items' stacks are live at the same time.
"""
from __future__ import annotations

from typing import TYPE_CHECKING, Any

from reconverge.lowering.interp.values import InterpreterError

if TYPE_CHECKING:
    from reconverge.lowering.interp.run import Interpreter


def run_group(interp: Interpreter, items: list[tuple[Any, ...]], env0: dict[Any, Any]) -> None:
    """Run one work-group's items, (group id, local id, global id) each, barrier phase by phase."""
    interp.memory.reset("private")
    live = [(item, interp.walk(dict(env0))) for item in items]
    used = {item: 0 for item in items}                  # steps per work-item, for the per-item limit
    while live:
        waiting, finished, barrier = [], [], None
        for item, walk in live:
            interp._set_item(item)
            before = interp.steps
            interp._step_limit = before + interp.max_steps - used[item]
            try:
                at = next(walk)
            except StopIteration:
                finished.append(item)
                continue
            finally:
                used[item] += interp.steps - before
            if barrier is None:
                barrier = at
            elif at is not barrier:
                raise interp._located(at.block, at, InterpreterError(
                    "work-items of one group wait at different barriers"))
            waiting.append((item, walk))
        if waiting and finished:
            assert barrier is not None          # the waiting work-items wait there
            gids = ",".join(str(i) for i in finished[0][2][:interp._work_dim])
            raise interp._located(barrier.block, barrier, InterpreterError(
                f"barrier not reached by every work-item of the group (work-item ({gids}) returned)"))
        live = waiting
