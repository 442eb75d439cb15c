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

from bisect import bisect_left, bisect_right
from collections.abc import Set as AbstractSet

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
)
from reconverge.lowering.ir.types import Type
from reconverge.typing_free import Protocol, cast


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
        self.bypass = shortcuts.bypass          # block after an if/loop or a loop's first block -> (span, block before)
        self.shortcuts = shortcuts

    def at_start(self, var: Variable, block: Block) -> Value:
        ends = self.end_def.get(var, {})
        starts = self.start.setdefault(var, {})
        new_phis, replaced, bypass = self.new_phis, self.replaced, self.bypass
        shortcuts = self.shortcuts
        place, firsts_of, lists = shortcuts.place, shortcuts.firsts, shortcuts.lists
        ends_get, starts_get, bypass_get = ends.get, starts.get, bypass.get
        stored_at = shortcuts.store_positions.get(var, ())      # blocks writing var, in tree order
        writers = len(stored_at)

        def read(b: Block) -> Value:
            """The value at the top of b. Chains of single predecessors (and skipped ifs/loops) are
            followed in a loop; only joins recurse, once per predecessor."""
            v = starts_get(b)
            if v is not None:
                return v
            chain = []
            while True:
                skip = bypass_get(b)
                if skip is not None and (writers == 0 or (k := bisect_left(stored_at, skip[0])) == writers
                                         or stored_at[k] > skip[1]):
                    # nothing inside that if/loop writes var: jump back along its CF list to the last
                    # node that does (a block: its value at the end; an if/loop: the join after it), or
                    # to the list's first block when none does; from a loop body's first block, to the
                    # end of the block before the loop
                    chain.append(b)
                    index, pos = place[b]
                    if pos == 0:                          # a loop body's first block: the block before
                        target, at_end = skip[2], True
                    else:
                        firsts = firsts_of[index]
                        k = bisect_left(stored_at, firsts[pos]) - 1
                        if k < 0 or stored_at[k] < firsts[0]:
                            target, at_end = cast(Block, lists[index][0]), False
                        else:
                            nodes = lists[index]
                            q = bisect_right(firsts, stored_at[k]) - 1
                            node = nodes[q]
                            if isinstance(node, Block):
                                target, at_end = node, True
                            else:
                                target, at_end = cast(Block, nodes[q + 1]), False
                    if not at_end:
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


class _Shortcuts:
    """For each if/loop: the span of blocks inside it (tree order numbers, first and last), and the
    blocks whose value of a variable not stored in that span is the value at the end of the block
    before it (the block after it; a loop's first block). Walks for a variable then step over whole ifs
    and loops that never write it, and, along a CF list, jump straight to the last node that writes it:
    a flat sequence of thousands of guarded ifs (a lowered switch) costs a walk O(log n), not O(n).

    "Does this if write var" is a binary search of var's writing blocks (in tree order) for one inside
    the span: no per-node set of the variables stored inside, whose unions cost (nodes x variables
    written below them) on deeply nested code (the largest item of the 30k-block profile's SSA part)."""

    def __init__(self, func: Function, store_positions: dict[object, list[int]]):
        self.store_positions = store_positions              # variable -> indices of the blocks storing it
        self.bypass: dict[Block, tuple[int, int, Block]] = {}
        self.place: dict[Block, tuple[int, int]] = {}       # block directly in a CF list -> (list, position)
        self.lists: list[list[CFNode]] = []
        self.firsts: list[list[int]] = []                   # per list: each node's first block index
        bypass, place, lists, firsts_of = self.bypass, self.place, self.lists, self.firsts
        work = [func.body]
        while work:
            nodes = work.pop()
            index = len(lists)
            lists.append(nodes)
            firsts: list[int] = []
            for i, node in enumerate(nodes):
                if isinstance(node, Block):
                    place[node] = (index, i)
                    firsts.append(node.index)
                    continue
                before, after = cast(Block, nodes[i - 1]), cast(Block, nodes[i + 1])   # blocks around each if/loop
                if isinstance(node, If):
                    span = (cast(Block, node.then_list[0]).index, cast(Block, node.else_list[-1]).index, before)
                    work.append(node.then_list)
                    work.append(node.else_list)
                else:
                    body = cast(Loop, node).body
                    span = (cast(Block, body[0]).index, cast(Block, body[-1]).index, before)
                    work.append(body)
                    bypass[cast(Block, body[0])] = span
                bypass[after] = span
                firsts.append(span[0])
            firsts_of.append(firsts)


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
    positions: dict[object, list[int]] = {}
    reader = _Reader(replaced, _Shortcuts(func, positions))
    end_def = reader.end_def
    for b, current in stores.items():                       # (in block order: positions come sorted)
        for var, value in current.items():
            end_def.setdefault(var, {})[b] = value
            positions.setdefault(var, []).append(b.index)
    for ins in pending:
        assert ins.block is not None
        replaced[ins] = reader.at_start(ins.attrs["var"], ins.block)
    kept = set(_trivial_phis(reader.new_phis, replaced))
    drop.update(p for p in reader.new_phis if p not in kept)
    _rewrite(func, blocks, replaced, drop)
    return read_vars
