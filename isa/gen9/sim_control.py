"""Control flow of one simulated thread: what each branch instruction does to the execution mask, the
per-channel resume masks and the next address (the model is described in simulator.py).

Kept apart from the thread's register and ALU machinery; like sim_messages.execute_send, it acts on a
Thread through its public state (em, resume, park, predicate, program).
"""
from __future__ import annotations

from typing import Protocol

import numpy as np

from .model import Instruction, Operand, Predicate, RegFile, instruction_size


class Thread(Protocol):
    """What a branch reads and changes of a thread (simulator.Thread has it)."""
    program: list[Instruction]
    index: dict[int, int]              # address -> instruction index
    em: np.ndarray                     # execution mask, 32 channels
    resume: dict[int, np.ndarray]      # address -> channels parked there

    def group(self, inst: Instruction) -> slice: ...
    def predicate(self, pred: Predicate | None, inst: Instruction) -> np.ndarray: ...
    def read_src(self, op: Operand, n: int, inst: Instruction) -> np.ndarray: ...
    def park(self, target: int, g: slice, lanes: np.ndarray) -> None: ...


class ControlError(Exception):
    """A branch the simulator cannot execute (unmodelled, or a target that is not an instruction)."""


def signed32(v: int | None) -> int:
    if v is None:
        return 0
    v &= 0xFFFFFFFF
    return v - (1 << 32) if v & 0x80000000 else v


def leave_target(op: str, uip: int, index: dict[int, int], program: list[Instruction]) -> int:
    """Where break, cont, halt and goto park the channels that leave: break after the while its UIP names
    (so they skip the loop's last test), the others at UIP."""
    if op != "break":
        return uip
    wi = index.get(uip)
    if wi is None:
        raise ControlError(f"break UIP {uip:#x} is not an instruction")
    return uip + instruction_size(program[wi])


def execute_branch(thread: Thread, inst: Instruction, addr: int, nxt: int) -> int:
    """Run a branch instruction on `thread`; returns the address to continue at."""
    op = inst.opcode
    if op == "jmpi":
        taken = bool(thread.predicate(inst.predicate, inst)[0]) if inst.predicate else True
        if not taken:
            return nxt
        if inst.jip is not None:
            return nxt + signed32(inst.jip)
        if not inst.srcs:
            raise ControlError("jmpi without an offset")
        src = inst.srcs[-1]                 # immediate, or a register holding the offset
        off = src.value if src.file == RegFile.IMM else int(thread.read_src(src, 1, inst)[0])
        return nxt + signed32(off)
    if op in ("brd", "brc", "call", "calla", "ret"):
        raise ControlError(f"{op} is not modelled")
    g = thread.group(inst)
    jip = addr + signed32(inst.jip) if inst.jip is not None else nxt
    uip = addr + signed32(inst.uip) if inst.uip is not None else jip
    em = thread.em[g]                       # view: updates write through
    p = thread.predicate(inst.predicate, inst)
    if op == "if":
        leave = em & ~p
        thread.park(jip, g, leave)
        em &= ~leave
        return nxt if em.any() else jip
    if op == "else":
        thread.park(jip, g, em.copy())
        em[:] = False
        waiting = thread.resume.get(nxt)
        return nxt if waiting is not None and waiting[g].any() else jip
    if op in ("endif", "join"):
        return nxt if em.any() or inst.jip in (None, 0) else jip
    if op == "while":
        stay = em & p
        thread.park(nxt, g, em & ~p)
        em[:] = stay
        return jip if stay.any() else nxt
    if op in ("break", "cont", "halt", "goto"):
        leave = em & p
        target = leave_target(op, uip, thread.index, thread.program)
        thread.park(target, g, leave)
        em &= ~leave
        return nxt if em.any() else jip
    raise ControlError(f"branch {op} is not modelled")
