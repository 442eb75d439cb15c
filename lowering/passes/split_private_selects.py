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

LLVM also merges such pointers through phis (`pa[c1 || c2] = v` over a two-element array that SROA split:
a select in one arm, an alloca in the other, a phi after). A web of pointer phis and selects whose leaves
are such allocas and whose other uses are loads and stores becomes a web of i32 tags, one per leaf: each
phi and select keeps its place and its conditions and chooses a tag instead of a pointer, and each access
reads or writes every leaf, choosing by the tag. The structure is untouched: a phi stays where it was.
"""
from __future__ import annotations

from reconverge.lowering.analysis.provenance import pointer_base
from reconverge.lowering.ir.builder import InsertBefore
from reconverge.lowering.ir.core import Const, Function, Instr, Undef, Value
from reconverge.lowering.ir.types import I32, I64, VOID
from reconverge.lowering.target import TargetCaps

NAME, FORM = "split_private_selects", "any"


def _private_leaf(p: Value) -> tuple[Instr, int] | None:
    """(alloca, constant byte offset) when `p` is an alloca reached through ptradds of constants."""
    base, offset = pointer_base(p)
    if offset is not None and isinstance(base, Instr) and base.opcode == "alloca":
        return base, offset
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


def _access_size(use: Instr, ptr: Instr) -> int | None:
    """The bytes `use` reads or writes through `ptr`, None when it does anything else with it."""
    if use.opcode == "load" and use.operands[0] is ptr:
        return use.type.size
    if use.opcode == "store" and use.operands[1] is ptr and use.operands[0] is not ptr:
        return use.operands[0].type.size
    return None


def _splittable(sel: Instr, uses: list[Instr]) -> tuple[tuple[Instr, int], tuple[Instr, int]] | None:
    if not sel.type.is_ptr or sel.type.addrspace != 0:
        return None
    a, b = _private_leaf(sel.operands[1]), _private_leaf(sel.operands[2])
    if a is None or b is None or a[0] is b[0] or not uses:
        return None
    for use in uses:
        size = _access_size(use, sel)
        if size is None or use.attrs.get("volatile") or not (_fits(a, size) and _fits(b, size)):
            return None
    return a, b


def _split_select(sel: Instr, leaves: tuple[tuple[Instr, int], tuple[Instr, int]], uses: list[Instr]) -> None:
    cond, hands = sel.operands[0], (sel.operands[1], sel.operands[2])
    for use in uses:
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


def _pointer_inputs(node: Instr) -> list[Value]:
    return node.operands[1:] if node.opcode == "select" else node.operands


def _web(start: Instr, nodes: set[Instr], uses: dict[Instr, list[Instr]]) -> list[Instr]:
    """The phis and selects of private pointers connected to `start` through one another's operands."""
    web, stack = [start], [start]
    seen = {start}
    while stack:
        node = stack.pop()
        for other in [*_pointer_inputs(node), *uses.get(node, [])]:
            if isinstance(other, Instr) and other in nodes and other not in seen:
                seen.add(other)
                web.append(other)
                stack.append(other)
    return web


def _web_leaves(web: list[Instr], uses: dict[Instr, list[Instr]]) -> list[tuple[Instr, int]] | None:
    """The (alloca, offset) leaves the web's pointers may hold, when they lie in two allocas or more,
    every access through the web fits each leaf, and nothing else uses the web; None otherwise."""
    members, leaves = set(web), []
    for node in web:
        for v in _pointer_inputs(node):
            if v in members or isinstance(v, Undef):
                continue
            leaf = _private_leaf(v)
            if leaf is None:
                return None
            if leaf not in leaves:
                leaves.append(leaf)
    for node in web:
        for use in uses.get(node, []):
            if use in members:
                continue
            size = _access_size(use, node)
            if size is None or use.attrs.get("volatile") or not all(_fits(leaf, size) for leaf in leaves):
                return None
    return leaves if len({alloca for alloca, _ in leaves}) > 1 else None


def _leaf_pointer(at: InsertBefore, leaf: tuple[Instr, int]) -> Value:
    """A pointer to the leaf made at the access (an alloca dominates every access; the original pointer
    need not)."""
    alloca, offset = leaf
    return at.op("ptradd", [alloca, Const(I64, offset)], alloca.type) if offset else alloca


def _tag_web(web: list[Instr], leaves: list[tuple[Instr, int]], uses: dict[Instr, list[Instr]]) -> None:
    """Pointers become leaf numbers (an undef pointer, leaf 0); each access through one reads every leaf,
    and writes each with its own value where it is not the one chosen."""
    members = set(web)
    for node in web:
        for i in range(1 if node.opcode == "select" else 0, len(node.operands)):
            v = node.operands[i]
            if v not in members:
                leaf = _private_leaf(v)
                node.operands[i] = Const(I32, leaves.index(leaf) if leaf is not None else 0)
        node.type = I32
    for node in web:
        for use in uses.get(node, []):
            if use in members:
                continue
            at = InsertBefore(use)
            align = int(use.attrs.get("align", 1))
            aligns = [_leaf_align(leaf, align) for leaf in leaves]
            pointers = [_leaf_pointer(at, leaf) for leaf in leaves]
            if use.opcode == "load":
                values = [at.op("load", [p], use.type, align=al) for p, al in zip(pointers, aligns)]
                result = values[0]
                for i in range(1, len(leaves)):
                    chosen = at.icmp("eq", node, Const(I32, i))
                    if i < len(leaves) - 1:
                        result = at.select(chosen, values[i], result)
                    else:
                        use.opcode, use.operands, use.attrs = "select", [chosen, values[i], result], {}
                continue
            value = use.operands[0]
            for i, (p, al) in enumerate(zip(pointers, aligns)):
                kept = at.select(at.icmp("eq", node, Const(I32, i)), value,
                                 at.op("load", [p], value.type, align=al))
                if i < len(leaves) - 1:
                    at.op("store", [kept, p], VOID, align=al)
                else:
                    use.operands, use.attrs = [kept, p], {**use.attrs, "align": al}


def run(func: Function, caps: TargetCaps | None = None) -> bool:
    uses: dict[Instr, list[Instr]] = {}
    nodes: list[Instr] = []
    for ins in func.instructions():
        if ins.opcode in ("select", "phi") and ins.type.is_ptr and ins.type.addrspace == 0:
            nodes.append(ins)
        for op in ins.operands:
            if isinstance(op, Instr) and op.opcode in ("select", "phi"):
                uses.setdefault(op, []).append(ins)
    changed, done = False, set()
    node_set = set(nodes)
    for node in nodes:
        if node in done:
            continue
        web = _web(node, node_set, uses)
        done.update(web)
        if len(web) == 1 and node.opcode == "select":
            leaves2 = _splittable(node, uses.get(node, []))
            if leaves2 is not None:
                _split_select(node, leaves2, uses[node])
                changed = True
            continue
        leaves = _web_leaves(web, uses)
        if leaves is not None:
            _tag_web(web, leaves, uses)
            changed = True
    return changed
