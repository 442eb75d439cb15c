"""Loads and stores through a `select` of pointers into two different private variables become accesses of
each variable.

clang -O2 can leave `p = c ? &x : &y` over two allocas with the loads and stores through `p`: a pointer
into two memory objects, which logical-addressing SPIR-V cannot express and which Gen cannot reach by one
surface. Private memory is per work-item, so reading or writing both variables is exact: a load through
`p` becomes `c ? *x : *y`, a store of v becomes `*x = c ? v : *x; *y = c ? *y : v`, and `promote` then
turns x and y into SSA values. This is LLVM SROA's load speculation over selects (speculateSelectInstLoads
in llvm/lib/Transforms/Scalar/SROA.cpp) extended to stores, which are safe here because nothing else can
see a work-item's private memory. It applies only where every use of the select is a load or store
through it and each hand is an alloca plus a constant offset where that access lies inside the alloca
(so the unselected access is in bounds); anything else is left as it is, for the backend to refuse.
"""
from __future__ import annotations

from reconverge.lowering.ir.builder import InsertBefore
from reconverge.lowering.ir.core import Const, Function, Instr, Value
from reconverge.lowering.ir.types import VOID
from reconverge.lowering.target import TargetCaps

NAME, FORM = "split_private_selects", "any"


def _private_leaf(p: Value) -> tuple[Instr, int] | None:
    """(alloca, constant byte offset) when `p` is an alloca reached through ptradds of constants."""
    offset = 0
    while isinstance(p, Instr) and p.opcode == "ptradd":
        off = p.operands[1]
        if not isinstance(off, Const):
            return None
        offset += off.signed()
        p = p.operands[0]
    if isinstance(p, Instr) and p.opcode == "alloca":
        return p, offset
    return None


def _fits(leaf: tuple[Instr, int], size: int) -> bool:
    alloca, offset = leaf
    return 0 <= offset and offset + size <= int(alloca.attrs["size"])


def _leaf_align(leaf: tuple[Instr, int], access_align: int) -> int:
    """The alignment the access may claim at this hand: what the alloca and the offset prove, no more than
    the original access claimed."""
    alloca, offset = leaf
    known = int(alloca.attrs.get("align", 1))
    if offset:
        known = min(known, offset & -offset)
    return min(known, access_align)


def _splittable(sel: Instr, uses: list[Instr]) -> tuple[tuple[Instr, int], tuple[Instr, int]] | None:
    if not sel.type.is_ptr or sel.type.addrspace != 0:
        return None
    a, b = _private_leaf(sel.operands[1]), _private_leaf(sel.operands[2])
    if a is None or b is None or a[0] is b[0] or not uses:
        return None
    for use in uses:
        if use.opcode == "load" and use.operands[0] is sel:
            size = use.type.size
        elif use.opcode == "store" and use.operands[1] is sel and use.operands[0] is not sel:
            size = use.operands[0].type.size
        else:
            return None
        if use.attrs.get("volatile") or not (_fits(a, size) and _fits(b, size)):
            return None
    return a, b


def run(func: Function, caps: TargetCaps | None = None) -> bool:
    uses: dict[Instr, list[Instr]] = {}
    selects: list[Instr] = []
    for ins in func.instructions():
        if ins.opcode == "select" and ins.type.is_ptr:
            selects.append(ins)
        for op in ins.operands:
            if isinstance(op, Instr) and op.opcode == "select":
                uses.setdefault(op, []).append(ins)
    changed = False
    for sel in selects:
        leaves = _splittable(sel, uses.get(sel, []))
        if leaves is None:
            continue
        cond, hands = sel.operands[0], (sel.operands[1], sel.operands[2])
        for use in uses[sel]:
            at = InsertBefore(use)
            align = int(use.attrs.get("align", 1))
            aligns = [_leaf_align(leaf, align) for leaf in leaves]
            if use.opcode == "load":
                x, y = (at.op("load", [h], use.type, align=al) for h, al in zip(hands, aligns))
                use.opcode, use.operands, use.attrs = "select", [cond, x, y], {}
            else:
                value = use.operands[0]
                x, y = (at.op("load", [h], value.type, align=al) for h, al in zip(hands, aligns))
                at.op("store", [at.select(cond, value, x), hands[0]], VOID, align=aligns[0])
                use.operands = [at.select(cond, y, value), hands[1]]
                use.attrs = {**use.attrs, "align": aligns[1]}
        assert sel.block is not None
        sel.block.instrs.remove(sel)
        changed = True
    return changed
