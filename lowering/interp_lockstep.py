"""Lockstep execution of a work-group: OpenCL barrier semantics for the interpreter.

The default schedule (interp.py) runs each work-item to completion before the next, as the JIT oracle
does; a barrier is then a no-op and a kernel that exchanges data through `__local` memory reads slots
its neighbours have not written yet. Here every work-item of a group is a coroutine (a generator walking
the same compiled blocks) that suspends at each barrier; once all of them have reached it, they resume,
still one at a time in local-id order, up to the next barrier. That is exactly OpenCL's guarantee: all
writes before the barrier are visible to every item of the group after it.

A group whose items do not all reach the same barrier (some finish, or wait at a different barrier) is
undefined behaviour in OpenCL and raises InterpreterError. Private memory is reset per group, since the
items' stacks are live at the same time.
"""
from __future__ import annotations

from typing import Generator, Iterable

from lowering.interp_values import InterpreterError
from lowering.ir.core import Block, If, Instr, Loop

Walk = Generator[Instr, None, object]


def run_group(interp, items: list[tuple], env0: dict) -> None:
    """Run one work-group's items, (group id, local id, global id) each, barrier phase by phase."""
    interp.memory.reset("private")
    live = []
    for item in items:
        walk = _walk_tree(interp, interp.func.body, dict(env0), [None]) if interp.func.is_structured \
            else _walk_cfg(interp, dict(env0))
        live.append((item, walk))
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
            gids = ",".join(str(i) for i in finished[0][2][:interp._work_dim])
            raise interp._located(barrier.block, barrier, InterpreterError(
                f"barrier not reached by every work-item of the group (work-item ({gids}) returned)"))
        live = waiting


def _enter(interp, block: Block, prev: Block | None, env: dict) -> Walk:
    cb = interp._enter_head(block, prev, env)
    if cb.segments is None:
        interp._run_body(block, cb.code, env)
    else:
        for part, barrier in cb.segments:
            interp._run_body(block, part, env)
            if barrier is not None:
                yield barrier
    return cb


def _walk_cfg(interp, env: dict) -> Walk:
    block, prev = interp.func.blocks[0], None
    while block is not None:
        cb = yield from _enter(interp, block, prev, env)
        if cb.term is None:
            raise interp._located(block, block.instrs[-1] if block.instrs else None,
                                  InterpreterError("block does not end in a CFG terminator"))
        try:
            prev, block = block, cb.term(env)
        except Exception as e:                                           # noqa: BLE001
            raise interp._located(block, block.instrs[-1], e) from None


def _walk_tree(interp, nodes: Iterable, env: dict, prev: list) -> Walk:
    """As Interpreter._walk; `prev` is a one-element list holding this item's last executed block."""
    for node in nodes:
        if type(node) is Block:
            cb = yield from _enter(interp, node, prev[0], env)
            prev[0] = node
            if cb.jump is not None:
                return cb.jump
        elif type(node) is If:
            try:
                taken = interp._getter(node.cond)(env)
            except Exception as e:                                       # noqa: BLE001
                raise interp._located(prev[0], None, e, what="if condition") from None
            jump = yield from _walk_tree(interp, node.then_list if taken else node.else_list, env, prev)
            if jump is not None:
                return jump
        elif type(node) is Loop:
            while True:
                jump = yield from _walk_tree(interp, node.body, env, prev)
                if jump == "break":
                    break
                if jump == "return":
                    return jump
        else:
            raise InterpreterError(f"unexpected node {node!r} in the control-flow tree")
    return None
