"""SSA reconstruction over a finished control-flow tree.

The structurizer turns into variables (var_store/var_load) everything whose value must now travel along
new paths: former phis, labels, loop-exit selectors, and values defined in a loop and used after it
(there the definition no longer dominates the use: other breaks lead to the same place). This module
resolves them as in Braun et al., "Simple and Efficient Construction of SSA Form" (CC 2013), on the
complete CFG: the value at the top of a block is the value at the end of its only predecessor, or a phi
over all its predecessors, made before its operands are read so that cycles end, and dropped when it
merges a single value (tryRemoveTrivialPhi).

Two things keep the walks short: the structurizer stores undef where a variable's live range begins
(where the code that dominates its reads starts; at the top of each loop iteration for values that
leave the loop), and a walk steps over a whole if or loop that never writes the variable. Phis land
only where blocks have several predecessors: after an if, after a loop, at a loop header.
"""
from __future__ import annotations

import bisect
from collections.abc import Set as AbstractSet
from typing import Protocol, cast

from reconverge.lowering.ir.core import (
    Block,
    CFNode,
    Function,
    If,
    Instr,
    Loop,
    Phi,
    Undef,
    Value,
    cf_lists,
    first_block,
)
from reconverge.lowering.ir.types import Type


class Variable(Protocol):
    """What var_load/var_store name (attrs["var"]): the structurizer's Var, or promote's slot."""
    name: str
    type: Type

class _Reader:
    """Braun's readVariable on the complete CFG, memoised per variable and block.

    A phi whose operands turn out to be one value (besides itself) is not kept: the value is used
    instead, and `replaced` redirects whoever saw the phi during a cycle (tryRemoveTrivialPhi)."""

    def __init__(self, replaced: dict[Value, Value], shortcuts: "_Shortcuts"):
        self.end_def: dict[object, dict[Block, Value]] = {}
        self.start: dict[object, dict[Block, Value]] = {}
        self.new_phis: list[Phi] = []
        self.replaced = replaced
        self.bypass = shortcuts.bypass          # block after an if/loop or a loop's first block -> (node, block before)
        self.stored_in = shortcuts.stored_in    # if/loop -> variables stored somewhere inside it
        self.shortcuts = shortcuts

    def at_start(self, var: Variable, block: Block) -> Value:
        ends = self.end_def.get(var, {})
        starts = self.start.setdefault(var, {})
        new_phis, replaced, bypass, stored_in = self.new_phis, self.replaced, self.bypass, self.stored_in
        jump_back = self.shortcuts.jump_back
        ends_get, starts_get, bypass_get = ends.get, starts.get, bypass.get

        def read(b: Block) -> Value:
            """The value at the top of b. Chains of single predecessors (and skipped ifs/loops) are
            followed in a loop; only joins recurse, once per predecessor."""
            v = starts_get(b)
            if v is not None:
                return v
            chain = []
            while True:
                skip = bypass_get(b)
                if skip is not None and var not in stored_in[skip[0]]:
                    # nothing inside that if/loop writes var: jump back along its CF list to the last
                    # node that does (a block: its value at the end; an if/loop: the join after it), or
                    # to the list's first block when none does
                    kind, target = jump_back(b, var, skip)
                    chain.append(b)
                    if kind != "end":
                        v = starts_get(target)        # already known (or a phi being built: a cycle)
                        if v is not None:
                            break
                        b = target
                        continue
                    v = ends_get(target)
                    if v is None:
                        v = starts_get(target)
                    if v is not None:
                        break
                    b = target
                    continue
                preds = b.preds
                if len(preds) != 1:
                    v = join(b, preds)
                    break
                before = preds[0]
                chain.append(b)
                v = ends_get(before)
                if v is None:
                    v = starts_get(before)
                if v is not None:
                    break
                b = before
            for c in chain:
                starts[c] = v
            return v

        def join(b: Block, preds: list[Block]) -> Value:
            v: Value
            if not preds:
                v = Undef(var.type)
                starts[b] = v
                return v
            phi = Phi(var.type, name=var.name)     # a former LLVM phi keeps its name (the printer dedups)
            starts[b] = phi                       # before the operands: a cycle finds the phi itself
            same = None
            phi.blocks = list(preds)
            operands = phi.operands
            for p in preds:
                op = ends_get(p)
                if op is None:
                    op = read(p)
                operands.append(op)
                if op is not phi and op is not same:
                    same = op if same is None else phi    # `phi` here marks "several values"
            if same is phi:
                b.insert(0, phi)
                new_phis.append(phi)
                v = phi
            else:
                v = same if same is not None else Undef(var.type)
                replaced[phi] = v
            starts[b] = v
            return v

        return read(block)


def _resolve(replace: dict[Value, Value], v: Value) -> Value:
    root = v
    while root in replace:
        root = replace[root]
    while v in replace and replace[v] is not root:      # path compression
        replace[v], v = root, replace[v]
    return root


def _rewrite(func: Function, blocks: list[Block], replace: dict[Value, Value],
             drop: AbstractSet[Instr] = frozenset()) -> None:
    """One pass over the code: drop the instructions in `drop`, map operands through `replace`."""
    replaced = replace.keys()
    for b in blocks:
        instrs = b.instrs
        if drop and not drop.isdisjoint(instrs):
            instrs = b.instrs = [i for i in instrs if i not in drop]
        for ins in instrs:
            ops = ins.operands
            if replaced.isdisjoint(ops):              # most instructions: one test at C speed
                continue
            for i, op in enumerate(ops):
                if op in replace:
                    ops[i] = _resolve(replace, op)
    for nodes in cf_lists(func):
        for node in nodes:
            if isinstance(node, If) and node.cond in replace:
                node.cond = _resolve(replace, node.cond)


def _trivial_phis(phis: list[Phi], replace: dict[Value, Value]) -> list[Phi]:
    """Map each phi that merges one value (besides itself) to that value, as Braun's tryRemoveTrivialPhi
    does, batched to a fixed point; return the phis that stay."""
    changed = True
    live = list(phis)
    while changed:
        changed = False
        still = []
        for phi in live:
            same = None
            trivial = True
            for op in phi.operands:
                op = _resolve(replace, op)
                if op is phi or op is same:
                    continue
                if same is not None:
                    trivial = False
                    break
                same = op
            if trivial:
                replace[phi] = same if same is not None else Undef(phi.type)
                changed = True
            else:
                still.append(phi)
        live = still
    return live


LONG_LIST = 16      # CF lists at least this long get a per-variable index of the nodes writing it


class _Shortcuts:
    """For each if/loop: the variables stored inside it, and the blocks whose value of a variable not
    stored inside is the value at the end of the block before it (the block after it; a loop's first
    block). Walks for a variable then step over whole ifs and loops that never write it, and, along a
    CF list, jump straight to the last node that writes it (binary search over that list's writers):
    a flat sequence of thousands of guarded ifs (a lowered switch) costs a walk O(log n), not O(n)."""

    def __init__(self, func: Function, stores: dict[Block, dict[object, Value]]):
        self.stores = stores                                # block -> the variables it stores (rebuild's scan)
        self.bypass: dict[Block, tuple[CFNode, Block]] = {}
        self.stored_in: dict[CFNode, set[object]] = {}
        self.place: dict[Block, tuple[int, int]] = {}       # block directly in a CF list -> (list, position)
        self.lists: list[list[CFNode]] = []
        self.writers: list[dict[object, list[int]] | None] = []  # per long list: variable -> writer positions
        self._visit_all(func.body)

    def _visit_all(self, body: list[CFNode]) -> None:
        # iterative post-order over CF lists: a list's stored set needs its children's first
        work: list[tuple[list[CFNode], bool]] = [(body, False)]
        stored_of: dict[int, set[object]] = {}
        while work:
            nodes, done = work.pop()
            if not done:
                work.append((nodes, True))
                for node in nodes:
                    if isinstance(node, If):
                        work += [(node.then_list, False), (node.else_list, False)]
                    elif isinstance(node, Loop):
                        work.append((node.body, False))
                continue
            stored_of[id(nodes)] = self._visit_list(nodes, stored_of)

    def _visit_list(self, nodes: list[CFNode], stored_of: dict[int, set[object]]) -> set[object]:
        index = len(self.lists)
        self.lists.append(nodes)
        # only long lists get a writers index: short ones are stepped through as before, and indexing
        # every list would cost depth x variables on deeply nested code
        writers: dict[object, list[int]] | None = {} if len(nodes) >= LONG_LIST else None
        stored: set[object] = set()
        stores_get, place, bypass, stored_in = self.stores.get, self.place, self.bypass, self.stored_in
        for i, node in enumerate(nodes):
            if isinstance(node, Block):
                place[node] = (index, i)
                written = stores_get(node)
                if written:
                    stored.update(written)
                    if writers is not None:
                        for var in written:
                            writers.setdefault(var, []).append(i)
                continue
            before, after = cast(Block, nodes[i - 1]), cast(Block, nodes[i + 1])   # blocks around each if/loop
            if isinstance(node, If):
                inner = stored_of[id(node.then_list)] | stored_of[id(node.else_list)]
            else:
                loop = cast(Loop, node)
                inner = stored_of[id(loop.body)]
                bypass[cast(Block, loop.body[0])] = (node, before)
            bypass[after] = (node, before)
            stored_in[node] = inner
            if writers is not None:
                for var in inner:
                    writers.setdefault(var, []).append(i)
            if inner:
                stored |= inner
        self.writers.append(writers)
        return stored

    def jump_back(self, block: Block, var: object, skip: tuple[CFNode, Block]) -> tuple[str, Block]:
        """Where a walk for `var` from the top of `block` (right after an if/loop that does not write it)
        goes next: ("end", B) when the value is the one at the end of B (the last block of the same CF
        list writing it; for a loop body's first block, the block before the loop); ("join", B) when the
        last writer is an if/loop and B the block after it; ("top", B) with B the list's first block when
        nothing earlier in the list writes it."""
        index, pos = self.place[block]
        nodes = self.lists[index]
        writers = self.writers[index]
        if pos == 0 or writers is None:   # a loop body's first block, or a short list: one step back
            return "end", skip[1]
        positions = writers.get(var, ())
        k = bisect.bisect_left(positions, pos) - 1
        if k < 0:
            return "top", first_block(nodes)
        q = positions[k]
        node = nodes[q]
        if isinstance(node, Block):
            return "end", node
        return "join", cast(Block, nodes[q + 1])


def rebuild(func: Function, replaced: dict[Value, Value]) -> set[object]:
    """Replace var_load/var_store by SSA values and phis; `replaced` maps old values to their new ones.
    Returns the variables that were read (one scan of the code serves both)."""
    blocks = func.update_cfg()
    pending: list[Instr] = []
    drop: set[Instr] = set()
    stores: dict[Block, dict[object, Value]] = {}
    read_vars: set[object] = set()
    for b in blocks:
        current: dict[object, Value] = {}
        for ins in b.instrs:
            op = ins.opcode
            if op == "var_store":
                current[ins.attrs["var"]] = ins.operands[0]
                drop.add(ins)
            elif op == "var_load":
                drop.add(ins)
                var = ins.attrs["var"]
                read_vars.add(var)
                if var in current:
                    replaced[ins] = current[var]
                else:
                    pending.append(ins)
        if current:
            stores[b] = current
    reader = _Reader(replaced, _Shortcuts(func, stores))
    end_def = reader.end_def
    for b, current in stores.items():
        for var, value in current.items():
            end_def.setdefault(var, {})[b] = value
    for ins in pending:
        assert ins.block is not None
        replaced[ins] = reader.at_start(ins.attrs["var"], ins.block)
    kept = set(_trivial_phis(reader.new_phis, replaced))
    drop.update(p for p in reader.new_phis if p not in kept)
    _rewrite(func, blocks, replaced, drop)
    return read_vars
