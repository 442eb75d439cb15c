"""Emitting new instructions in front of an existing one: what a lowering pass needs to expand one
instruction into several while the original keeps its identity (and so every use of it)."""
from __future__ import annotations

from reconverge.lowering.ir.core import Function, If, Instr, Value, cf_lists
from reconverge.lowering.ir.types import I1, Type, int_type

TYPE_CHECKING = False                   # not typing's: a compile's start-up does not import typing
if TYPE_CHECKING:
    from typing import Any, Mapping, Sequence


class InsertBefore:
    """Builds instructions into `anchor`'s block, just before it, in the order they are made."""

    def __init__(self, anchor: Instr):
        assert anchor.block is not None
        self.block, self.anchor = anchor.block, anchor

    def op(self, opcode: str, operands: list[Value], type: Type, **attrs: object) -> Instr:
        ins = Instr(opcode, operands, type, dict(attrs))
        self.block.insert(self.block.instrs.index(self.anchor), ins)
        return ins

    # shorthands for the common shapes
    def binary(self, opcode: str, a: Value, b: Value) -> Instr:
        return self.op(opcode, [a, b], a.type)

    def icmp(self, pred: str, a: Value, b: Value) -> Instr:
        return self.op("icmp", [a, b], I1, pred=pred)

    def fcmp(self, pred: str, a: Value, b: Value) -> Instr:
        return self.op("fcmp", [a, b], I1, pred=pred)

    def select(self, cond: Value, a: Value, b: Value) -> Instr:
        return self.op("select", [cond, a, b], a.type)

    def cast(self, opcode: str, x: Value, to: Type) -> Instr:
        return self.op(opcode, [x], to)

    def math(self, fn: str, *xs: Value, relaxed: bool = False) -> Instr:
        attrs = {"fn": fn, "relaxed": True} if relaxed else {"fn": fn}
        return self.op("math", list(xs), xs[0].type, **attrs)


def uint_like(t: Type) -> Type:
    """The integer type of a float's bits."""
    return int_type(t.bits)


def become(ins: Instr, opcode: str, operands: Sequence[Value], attrs: dict[str, Any] | None = None) -> None:
    """Turn `ins` into another instruction of the same type in place, keeping every use of it."""
    ins.opcode, ins.operands, ins.attrs = opcode, list(operands), dict(attrs or {})


def replace_uses(func: Function, replacement: Mapping[Value, Value]) -> None:
    """Every use of a key (operands, phi sources, if conditions) becomes its value, and the keys (when
    they are instructions) leave their blocks: one walk over the function for any number of them."""
    if not replacement:
        return
    for b in func.all_blocks():
        b.instrs = [ins for ins in b.instrs if ins not in replacement]
        for ins in b.instrs:
            if any(op in replacement for op in ins.operands):
                ins.operands = [replacement.get(op, op) for op in ins.operands]
    if func.is_structured:
        for nodes in cf_lists(func):
            for node in nodes:
                if isinstance(node, If) and node.cond in replacement:
                    node.cond = replacement[node.cond]
