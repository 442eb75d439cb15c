"""SSA reconstruction over a finished control-flow tree.

The structurizer turns into variables (stores and var_load instructions, kept beside each block's code:
rebuild's var_code) everything whose value must now travel along new paths: former phis, labels, loop-exit
selectors, and values defined in a loop and used after it (there the definition no longer dominates the
use: other breaks lead to the same place); promote's var_store/var_load are in the code. This module
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
from collections.abc import Iterable, Mapping, Sequence

from reconverge.lowering.ir.core import (
    Block,
    CFNode,
    Function,
    If,
    Instr,
    Phi,
    Undef,
    Value,
)
from reconverge.lowering.ir.core import _index_structured as index_structured
from reconverge.lowering.ir.types import Type
from reconverge.typing_free import Protocol, cast

TYPE_CHECKING = False                   # not typing's: a compile's start-up does not import typing
if TYPE_CHECKING:
    from typing import Callable


class Variable(Protocol):
    """What var_load/var_store name (attrs["var"]): the structurizer's Var, or promote's slot."""
    name: str
    type: Type


VarStore = tuple[Variable, Value]       # a store kept apart from the code (rebuild's var_code)


class _Reader:
    """Braun's readVariable on the complete CFG, memoised per variable and block.

    A phi whose operands turn out to be one value (besides itself) is not kept: the value is used
    instead, and `replaced` redirects whoever saw the phi during a cycle (tryRemoveTrivialPhi)."""

    def __init__(self, replaced: dict[Value, Value], shortcuts: "_Shortcuts",
                 end_def: dict[object, dict[Block, Value]]):
        self.end_def = end_def
        self.start: dict[object, dict[Block, Value]] = {}
        self.new_phis: list[Phi] = []
        self.pairs: dict[Phi, tuple[Value, Value]] = {}     # each new phi's first two different values
        self.replaced = replaced
        self.shortcuts = shortcuts
        self.read, self.select = self._walker()

    def at_start(self, var: Variable, block: Block) -> Value:
        self.select(var)
        return self.read(block)

    def _walker(self) -> tuple[Callable[[Block], Value], Callable[[Variable], None]]:
        """read(b): the value at the top of b of the variable select(var) chose last. One pair of walks for
        every variable, its state switched by select (a walk reads one variable only: a join recurses for
        its own): a closure pair per variable cost 17 objects each (cells, functions, bound methods), for
        35k variables at 100k blocks most read once."""
        end_def, start = self.end_def, self.start
        no_ends: dict[Block, Value] = {}
        new_phis, replaced, pairs = self.new_phis, self.replaced, self.pairs
        shortcuts = self.shortcuts
        firsts_of, lists, bypass = shortcuts.firsts, shortcuts.lists, shortcuts.bypass
        new_phi = Phi.__new__
        positions = shortcuts.store_positions
        # the selected variable's: its walks' memo (value at the top of a block), its values at the end of the
        # blocks storing it and those blocks' numbers (in tree order), its type and name
        starts: dict[Block, Value] = {}
        ends_get, starts_get = no_ends.get, starts.get
        stored_at: list[int] | tuple[()] = ()
        writers = 0
        var_type: Type | None = None
        var_name = ""

        def select(var: Variable) -> None:
            nonlocal starts, ends_get, starts_get, stored_at, writers, var_type, var_name
            ends_get = end_def.get(var, no_ends).get
            starts = start.get(var)                      # type: ignore[assignment]
            if starts is None:
                starts = start[var] = {}
            starts_get = starts.get
            stored_at = positions.get(var, ())
            writers = len(stored_at)
            var_type, var_name = var.type, var.name

        def read(b: Block) -> Value:
            """The value at the top of b. Chains of single predecessors (and skipped ifs/loops) are
            followed in a loop; only joins recurse, once per predecessor."""
            v = starts_get(b)
            if v is not None:
                return v
            chain = []
            while True:
                skip = bypass[b.index]
                if skip is not None:
                    # when nothing inside that if/loop writes var: jump back along its CF list to the last
                    # node that does (a block: its value at the end; an if/loop: the join after it), or
                    # to the list's first block when none does; from a loop body's first block, to the
                    # end of the block before the loop
                    lo, hi, target, index, first, first_index = skip
                    if index >= 0:
                        # b is the block after an if/loop of blocks lo..hi (so b is block hi + 1): one
                        # search finds the last writer before b, and whether it is inside the span
                        k = bisect_right(stored_at, hi) - 1
                        if k < 0 or (w := stored_at[k]) < lo:
                            chain.append(b)
                            if k < 0 or w < first_index:
                                v = starts_get(first)     # already known (or a phi being built: a cycle)
                                if v is not None:
                                    break
                                b = first
                                continue
                            nodes = lists[index]
                            q = bisect_right(firsts_of[index], w) - 1
                            node = nodes[q]
                            if not isinstance(node, Block):
                                target = nodes[q + 1]     # type: ignore[assignment]  # (no cast() call)
                                v = starts_get(target)
                                if v is not None:
                                    break
                                b = target
                                continue
                            v = ends_get(node)
                            if v is None:
                                v = starts_get(node)
                                if v is None:
                                    b = node
                                    continue
                            break
                    elif (k := bisect_left(stored_at, lo)) == writers or stored_at[k] > hi:
                        chain.append(b)                   # a loop body's first block: the block before
                        v = ends_get(target)
                        if v is None:
                            v = starts_get(target)
                            if v is None:
                                b = target
                                continue
                        break
                preds = b.preds
                if len(preds) != 1:
                    v = join(b, preds)
                    break
                before = preds[0]
                chain.append(b)
                v = ends_get(before)
                if v is None:
                    v = starts_get(before)
                    if v is None:
                        b = before
                        continue
                break
            for c in chain:
                starts[c] = v
            return v

        def join(b: Block, preds: list[Block]) -> Value:
            v: Value
            if not preds:
                v = Undef(var_type)              # type: ignore[arg-type]  # (select set it)
                starts[b] = v
                return v
            # Phi(var_type, (), var_name) with its blocks, made in place (82k at 100k blocks: no call, no list
            # to replace); a former LLVM phi keeps its name (the printer dedups)
            phi = new_phi(Phi)
            phi.type, phi.name, phi.opcode, phi.block = var_type, var_name, "phi", None     # type: ignore[assignment]
            phi.operands = operands = []
            phi.attrs, phi.targets, phi.blocks = {}, [], list(preds)
            starts[b] = phi                       # before the operands: a cycle finds the phi itself
            same = second = None                  # the first two different values (but the phi)
            for p in preds:
                op = ends_get(p)
                if op is None:
                    op = starts_get(p)            # (read's first answer, without the call)
                    if op is None:
                        op = read(p)
                operands.append(op)
                if second is None and op is not phi and op is not same:
                    if same is None:
                        same = op
                    else:
                        second = op
            if second is not None:
                phi.block = b                     # (Block.insert, inlined)
                b.instrs.insert(0, phi)
                new_phis.append(phi)
                pairs[phi] = (same, second)       # type: ignore[assignment]  # (same: set before second)
                v = phi
            else:
                v = same if same is not None else Undef(var_type)     # type: ignore[arg-type]
                replaced[phi] = v
            starts[b] = v
            return v

        return read, select


def _resolve(replace: dict[Value, Value], v: Value) -> Value:
    root = v
    while root in replace:
        root = replace[root]
    while v in replace and replace[v] is not root:      # path compression
        replace[v], v = root, replace[v]
    return root


def _rewrite(code: Iterable[Instr], ifs: list[If], replace: dict[Value, Value]) -> None:
    """Map the operands of `code` (every instruction, or every one that may use a replaced value) and the
    conditions of `ifs` (every if of the tree: _Shortcuts lists them) through `replace`."""
    replaced, replace_get = replace.keys(), replace.get
    for ins in code:
        ops = ins.operands
        if replaced.isdisjoint(ops):                  # most instructions: one test at C speed
            continue
        for i, op in enumerate(ops):
            to = replace_get(op)
            if to is not None:                        # (mostly mapped to a final value: no _resolve call)
                ops[i] = to if to not in replace else _resolve(replace, op)
    for node in ifs:
        if node.cond in replace:
            node.cond = _resolve(replace, node.cond)


def _trivial_phis(phis: list[Phi], replace: dict[Value, Value],
                  witness: dict[Phi, tuple[Value, Value]] | None = None) -> list[Phi]:
    """Map each phi that merges one value (besides itself) to that value, as Braun's tryRemoveTrivialPhi
    does, batched to a fixed point; return the phis that stay.

    A phi found to merge two values A and B (each not itself, as resolved then) stays unless A or B is
    replaced later, so after the first pass only the phis whose pair holds a phi replaced in the previous
    pass are examined again (each pass used to examine all: a second whole pass for the few replaced).
    `witness`: such a pair for each phi, from when it was made (_Reader.pairs; the first two different
    operands, as the first pass would find them): the first pass examines only the phis one of whose pair
    has been replaced since (at 100k blocks 72k phis, a few dozen trivial). The dict is filled in."""
    witness = {} if witness is None else witness
    live = list(phis)
    check_all = True
    replaced_now: set[Value] = set()
    while check_all or replaced_now:
        replaced_before, replaced_now = replaced_now, set()
        gone: dict[Value, Value] | set[Value] = replace if check_all else replaced_before
        still = []
        for phi in live:
            pair = witness.get(phi)
            if pair is not None and pair[0] not in gone and pair[1] not in gone:
                still.append(phi)               # its two values are still two: no need to look again
                continue
            same = None
            trivial = True
            for op in phi.operands:
                if op in replace:                 # (most operands: no call)
                    op = _resolve(replace, op)
                if op is phi or op is same:
                    continue
                if same is not None:
                    trivial = False
                    witness[phi] = (same, op)
                    break
                same = op
            if trivial:
                replace[phi] = same if same is not None else Undef(phi.type)
                replaced_now.add(phi)
            else:
                still.append(phi)
        live = still
        check_all = False
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

    def __init__(self, func: Function, store_positions: dict[object, list[int]], n_blocks: int):
        self.store_positions = store_positions              # variable -> indices of the blocks storing it
        # block number -> (the span's first and last block numbers, the block before the span, the block's
        # list and that list's first block and its number); list -1 for a loop body's first block. None for
        # the other blocks (a list by number, not a dict by block: a walk asks at every step)
        self.bypass: list[tuple[int, int, Block, int, Block, int] | None] = [None] * (n_blocks + 1)
        self.lists: list[list[CFNode]] = []
        self.firsts: list[list[int]] = []                   # per list: each node's first block index
        self.ifs: list[If] = []                             # every if of the tree (for _rewrite)
        bypass, lists, firsts_of = self.bypass, self.lists, self.firsts
        work = [func.body]
        while work:
            nodes = work.pop()
            if len(nodes) == 1:
                continue                            # one block (most arms): no if/loop, nothing to record
            index = len(lists)
            lists.append(nodes)
            firsts: list[int] = []
            # (no cast() calls in this loop: a call each, on every if and loop of the tree)
            first: Block = nodes[0]                 # type: ignore[assignment]
            for i, node in enumerate(nodes):
                if isinstance(node, Block):
                    firsts.append(node.index)
                    continue
                before: Block = nodes[i - 1]        # type: ignore[assignment]  # blocks around each if/loop
                after: Block = nodes[i + 1]         # type: ignore[assignment]
                if isinstance(node, If):
                    self.ifs.append(node)
                    lo, hi = node.then_list[0].index, node.else_list[-1].index      # type: ignore[attr-defined]
                    work.append(node.then_list)
                    work.append(node.else_list)
                else:
                    body = node.body                                                # type: ignore[attr-defined]
                    head: Block = body[0]
                    lo, hi = head.index, body[-1].index
                    work.append(body)
                    bypass[lo] = (lo, hi, before, -1, before, -1)
                bypass[after.index] = (lo, hi, before, index, first, firsts[0])
                firsts.append(lo)
            firsts_of.append(firsts)


def _scan_apart(blocks: list[Block], structured: bool, var_code: Mapping[Block, Sequence[Instr | VarStore]],
                replaced: dict[Value, Value], pending: list[Instr], read_vars: set[object],
                end_def: dict[object, dict[Block, Value]], positions: dict[object, list[int]]) -> None:
    """rebuild's scan where the loads and stores are kept apart from the code (`var_code`: var_load
    instructions and (variable, value) pairs for the stores): each block's stores go straight to end_def
    (no dict of the block's own first: 113k of them at 100k blocks), and a load after a store of its
    variable in its block takes the stored value (end_def has it by then)."""
    code_of = var_code.get
    for b in blocks:
        if structured:
            for s in b.succs:
                s.preds.append(b)
        code = code_of(b)
        if code is None:
            continue
        for ins in code:
            if ins.__class__ is tuple:
                var, value = ins
                ends = end_def.get(var)
                if ends is None:
                    end_def[var] = {b: value}
                    positions[var] = [b.index]
                else:
                    if b not in ends:
                        positions[var].append(b.index)
                    ends[b] = value
            else:
                var = ins.attrs["var"]                  # type: ignore[union-attr]
                read_vars.add(var)
                ends = end_def.get(var)
                if ends is not None and b in ends:
                    replaced[ins] = ends[b]             # type: ignore[index]
                else:
                    pending.append(ins)                 # type: ignore[arg-type]


def rebuild(func: Function, replaced: dict[Value, Value], users: list[Instr] | None = None,
            var_code: Mapping[Block, Sequence[Instr | VarStore]] | None = None) -> set[object]:
    """Replace var_load/var_store by SSA values and phis; `replaced` maps old values to their new ones.
    `users`: every instruction that may use a load or a value `replaced` maps, when the caller knows them
    (the structurizer: it made the loads and the uses), so that only they and the phis made here are
    rewritten at the end, not every instruction (at 100k blocks that walk was 0.25 CPU s, most of it
    cache misses on the operands). `var_code`: where the loads and stores are kept apart from the code (the
    structurizer's: the tree's blocks hold none), each block's in order: var_load instructions, and a store
    as (variable, value). Returns the variables that were read
    (one scan of the code serves both)."""
    # func.update_cfg(), its structured form's predecessor lists filled in the scan below (one walk of the
    # blocks, each block's fields touched once: a loop of its own over 189k blocks at 100k, cache misses)
    structured = func.is_structured
    blocks = index_structured(func) if structured else func.update_cfg()
    pending: list[Instr] = []
    # blocks holding var_load/var_store -> their other instructions and their length: what is left of them is
    # known here, while each instruction is at hand (filtering them again after was 0.1 CPU s at 100k blocks)
    dirty: dict[Block, tuple[list[Instr], int]] = {}
    read_vars: set[object] = set()
    end_def: dict[object, dict[Block, Value]] = {}
    positions: dict[object, list[int]] = {}                 # (blocks come in order: sorted)
    if var_code is not None:
        _scan_apart(blocks, structured, var_code, replaced, pending, read_vars, end_def, positions)
    for b in blocks if var_code is None else ():
        if structured:
            for s in b.succs:
                s.preds.append(b)
        instrs = b.instrs
        if not instrs:
            continue                                        # (an empty arm or join: nothing to scan)
        current: dict[object, Value] | None = None
        others: list[Instr] = []
        for ins in instrs:
            op = ins.opcode
            if op == "var_store":
                if current is None:
                    current = {}
                current[ins.attrs["var"]] = ins.operands[0]
            elif op == "var_load":
                var = ins.attrs["var"]
                read_vars.add(var)
                if current is not None and var in current:
                    replaced[ins] = current[var]
                else:
                    pending.append(ins)
                    if current is None:
                        current = {}
            else:
                others.append(ins)
        if current is not None:
            dirty[b] = (others, len(instrs))
            index = b.index
            for var, value in current.items():
                ends = end_def.get(var)
                if ends is None:
                    end_def[var] = {b: value}
                    positions[var] = [index]
                else:
                    ends[b] = value
                    positions[var].append(index)
    shortcuts = _Shortcuts(func, positions, len(blocks))
    reader = _Reader(replaced, shortcuts, end_def)
    read, select = reader.read, reader.select
    selected = None
    for ins in pending:                                     # (reader.at_start, inlined: a call per load)
        var = ins.attrs["var"]
        if var is not selected:
            select(var)
            selected = var
        replaced[ins] = read(ins.block)                     # type: ignore[arg-type]
    kept = _trivial_phis(reader.new_phis, replaced, reader.pairs)     # (in the order they were made)
    # the phis found trivial (few: no set of the kept ones, nor a test per phi, when there are none)
    dropped = set(reader.new_phis).difference(kept) if len(kept) != len(reader.new_phis) else set()
    for b, (others, length) in dirty.items():
        made = len(b.instrs) - length                      # the phis made since, each inserted at the top
        if made:
            phis = b.instrs[:made]
            if dropped and not dropped.isdisjoint(phis):
                phis = [p for p in phis if p not in dropped]
            b.instrs = phis + others
        else:
            b.instrs = others
    for b in {cast(Block, p.block) for p in dropped if p.block not in dirty}:
        b.instrs = [i for i in b.instrs if i not in dropped]
    code: Iterable[Instr] = (ins for b in blocks for ins in b.instrs) if users is None else [*users, *kept]
    _rewrite(code, shortcuts.ifs, replaced)
    return read_vars
