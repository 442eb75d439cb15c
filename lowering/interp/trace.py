"""Where does a result start depending on uninitialized data? A differential trace of two runs.

`interp.uninitialized_dependence` says *that* a kernel's buffers change with the byte undef values and
fresh memory are made of; this module says *where*. It runs the kernel twice (fill bytes 0x00 and 0x5A)
recording, in execution order, every block entered and every store (address and value), and reports the
first event that differs: a store whose value or address differs names the instruction that writes
uninitialized data; a different next block names the branch whose condition does. (Undef values that
are computed but never reach a store or a branch are harmless and not reported.)

The tracing run executes instruction by instruction (no generated code), so it is for debugging only.
"""
from __future__ import annotations

from typing import Any, Callable

import numpy as np

from reconverge.lowering.interp.run import Code, Env, Interpreter, InterpreterError, Size, describe_value
from reconverge.lowering.ir.core import Block, Function


class _Tracer(Interpreter):
    """An Interpreter that records ("block", gid, block) and ("store", gid, instr, address, value)."""

    def __init__(self, func: Function, fill: int, max_steps: int):
        super().__init__(func, max_steps=max_steps, uninitialized=fill)
        self.events: list[tuple[Any, ...]] = []

    def _run_body(self, block: Block, code: Code, env: Env) -> None:
        """Instruction by instruction (the closures, not the generated code), recording as it goes."""
        self.events.append(("block", self._item, block))
        ins = None
        try:
            for ins, fn, has_result in self._compiled[block].body:
                if ins.opcode == "store":
                    value, addr = (self._getter(v)(env) for v in ins.operands)
                    self.events.append(("store", self._item, ins, addr, value))
                if has_result:
                    env[ins] = fn(env)
                else:
                    fn(env)
        except Exception as e:                                           # noqa: BLE001
            raise self._located(block, ins, e) from None


def _same(x: tuple[Any, ...], y: tuple[Any, ...]) -> bool:
    """Events are equal; float values by their bits (a NaN equals the same NaN)."""
    if len(x) != len(y):
        return False
    for u, v in zip(x, y):
        if isinstance(u, np.floating) and isinstance(v, np.floating):
            if u.tobytes() != v.tobytes():
                return False
        elif u is not v and u != v:
            return False
    return True


def first_uninitialized_use(func: Function, make_args: Callable[[], list[Any]], global_size: Size,
                            local_size: Size, global_offset: Size = 0, max_steps: int = 1_000_000) -> str | None:
    """A sentence naming the first store or branch that depends on uninitialized data, or None."""
    runs = []
    for fill in (0x00, 0x5A):
        tracer = _Tracer(func, fill, max_steps)
        try:
            tracer.run(make_args(), global_size, local_size, global_offset)
        except InterpreterError:
            pass                      # a run that fails still has a trace up to the failure
        runs.append(tracer)
    a, b = runs[0].events, runs[1].events
    describe = runs[0]._describe
    for i, (x, y) in enumerate(zip(a, b)):
        if _same(x, y):
            continue
        gid = ",".join(str(v) for v in x[1][:runs[0]._work_dim])
        if x[0] == "block" and y[0] == "block":
            came = next((e[2] for e in reversed(a[:i]) if e[0] == "block"), None)
            where = describe(came) if came is not None else "the entry"
            return (f"work-item ({gid}): after block {where} control goes to {describe(x[2])} or "
                    f"{describe(y[2])} depending on uninitialized data (its branch condition)")
        if x[0] == "store" and y[0] == "store" and x[2] is y[2]:
            ins, block = x[2], x[2].block
            pos = block.instrs.index(ins) if block is not None else -1
            what = "address" if x[3] != y[3] else "value"
            return (f"work-item ({gid}): block {describe(block)}, instruction {pos} (store of "
                    f"{describe_value(ins.operands[0])}) writes a {what} that depends on uninitialized data "
                    f"({x[4]!r} vs {y[4]!r})")
        return f"work-item ({gid}): the runs diverge at event {i}: {x[0]} vs {y[0]}"
    if len(a) != len(b):
        return "the runs have different lengths (one stopped early) after identical prefixes"
    return None
