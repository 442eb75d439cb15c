"""Promote private variables to SSA values (mem2reg on the structured IR).

-O0 code keeps every local variable, kernel parameters included, in an alloca. Backends with logical
addressing (SPIR-V) cannot hold a pointer in memory, and every backend is better off with values in
registers. An alloca qualifies when it is only ever loaded and stored whole, with one type, through its
own address (never offset, compared or stored itself); its loads and stores become the structurizer's
variable reads and writes, and `lowering.ssa` rebuilds SSA form over the tree (Braun et al.). Promoting
a pointer-holding alloca can expose the allocas it pointed to, so the pass repeats until nothing changes.
"""
from __future__ import annotations

from reconverge.lowering import ssa
from reconverge.lowering.deepstack import depth_independent
from reconverge.lowering.ir.core import Function, Instr
from reconverge.lowering.ir.types import Type
from reconverge.lowering.target import TargetCaps
from reconverge.records import record


@record(eq=False)
class _Slot:
    """The variable an alloca becomes (what lowering.ssa calls a variable: it has a type and a name)."""
    type: Type
    name: str


def _promotable(alloca: Instr, uses: list[Instr]) -> Type | None:
    """The one type this alloca is accessed as, if every use is a whole load or store through it."""
    access_type = None
    for use in uses:
        if use.opcode == "load" and use.operands[0] is alloca:
            t = use.type
        elif use.opcode == "store" and use.operands[1] is alloca and use.operands[0] is not alloca:
            t = use.operands[0].type
        else:
            return None
        if access_type is not None and t != access_type:
            return None
        access_type = t
    return access_type


NAME, FORM = "promote", "structured"


def run(func: Function, caps: TargetCaps | None = None) -> bool:
    return promote_allocas(func) > 0


@depth_independent
def promote_allocas(func: Function) -> int:
    """Promote every qualifying alloca of a structured function; return how many were promoted."""
    total = 0
    while True:
        uses: dict[Instr, list[Instr]] = {}
        allocas = []
        for ins in func.instructions():
            if ins.opcode == "alloca":
                allocas.append(ins)
                uses.setdefault(ins, [])
            for op in ins.operands:
                if isinstance(op, Instr) and op.opcode == "alloca":
                    uses.setdefault(op, []).append(ins)
        slots = {}
        for a in allocas:
            t = _promotable(a, uses[a])
            if t is not None:
                slots[a] = _Slot(t, a.name)
        if not slots:
            return total
        for b in func.all_blocks():
            new = []
            for ins in b.instrs:
                if ins in slots:
                    continue
                if ins.opcode == "load" and ins.operands[0] in slots:
                    ins.opcode, ins.attrs = "var_load", {"var": slots[ins.operands[0]]}
                    ins.operands = []
                elif ins.opcode == "store" and ins.operands[1] in slots:
                    ins.opcode, ins.attrs = "var_store", {"var": slots[ins.operands[1]]}
                    ins.operands = [ins.operands[0]]
                new.append(ins)
            b.instrs = new
        ssa.rebuild(func, {})
        total += len(slots)
