"""The units a blockIP kernel is laid out in: single blocks, or (for the hybrid `--cf auto` takes where
structurizing needed guard variables or gave up) natural regions of the CFG that run with Gen's own
structured branches inside one blockIP unit.

The regions are found by collapsing the CFG's natural shapes to a fixed point, as structural analysis
does (Sharir, "Structural analysis: a new approach to flow analysis in optimizing compilers", 1980;
Beignet's ir/structurizer.cpp matches the same shapes):

    chain   A -> B                  A's one edge goes to B, B's one predecessor is A
    if      A -> B -> M, A -> M     an arm has A as its one predecessor and M as its one successor
            A -> B -> M, A -> C -> M
    loop    A -> A, A -> X          A's branch goes back to A or on to X
            A -> B -> ... -> A      a path, each unit the one predecessor of the next, any of
                                    them also branching out of the loop (to one or several blocks)

What does not collapse (multi-level exits, fall-through into a merge from several places, irreducible
parts, blocks with a barrier, which blockIP runs with every lane of the thread) stays one unit per block.
Every region has one entry block; an if or a loop leaves by one edge to `after` (its arms make the phi
copies of that edge themselves), anything else by the terminator of its last block.
"""
from __future__ import annotations

from dataclasses import dataclass

from lowering.analysis.graph import reverse_postorder
from lowering.ir.core import Block, Function, Instr

TERMINATORS = ("br", "cbr", "switch", "ret", "unreachable")


@dataclass(eq=False)
class Region:
    kind: str                     # "block", "chain", "if" or "loop"
    parts: tuple                  # block: (Block,); chain: (first, second); if: (head, true arm | None,
    entry: Block                  # false arm | None); loop: its units in order, the last one branching back
    term: Instr | None            # the terminator control leaves by, or None: see `after` and `leaves`
    after: Block | None = None    # term None: the one block it goes on to (its copies made inside)
    leaves: tuple = ()            # term and after None: a loop's exit targets (blockIP set where each leaves)
    barrier: bool = False

    @property
    def exits(self) -> list[Block]:
        """The blocks control goes to from this region, each once, in terminator order."""
        if self.term is None:
            return [self.after] if self.after is not None else list(self.leaves)
        if self.term.opcode in ("ret", "unreachable"):
            return []
        return list(dict.fromkeys(self.term.targets))

    @property
    def falls_into(self) -> Block | None:
        """The one block this region always goes on to by a plain edge (br, or the edge of an if or a
        loop), or None."""
        if self.term is None:
            return self.after
        return self.term.targets[0] if self.term.opcode == "br" else None


def block_unit(block: Block) -> Region:
    term = block.instrs[-1] if block.instrs and block.instrs[-1].opcode in TERMINATORS else None
    return Region("block", (block,), block, term, barrier=any(i.opcode == "barrier" for i in block.instrs))


def layout(func: Function, units: list[Region]) -> list[Region]:
    """The units in reverse postorder from the entry's: every unit after its dominators, so a value is
    selected before its uses; unreachable ones are left out. Successors are searched last first, so a
    branch's first target comes first (a cbr's true arm before its false one, as the source wrote them)."""
    position = {u.entry: i for i, u in enumerate(units)}
    succs = [[position[t] for t in reversed(u.exits)] for u in units]
    return [units[i] for i in reverse_postorder(succs, position[func.blocks[0]])]


def join_points(units: list[Region]) -> dict[int, int]:
    """Layout position -> the unit its entry jumps to when no lane wants it (Beignet's buildJIPs):
    walking the units in layout order with a set of pending ones (forward targets not reached yet, and
    the unit after each backward branch once its target is entered), JOIN(L) is the smallest pending
    unit after L is removed and the branches into L added, or the exit (len(units)) when none is."""
    index = {u.entry: i for i, u in enumerate(units)}
    exit_index = len(units)
    back_into: dict[int, set[int]] = {i: set() for i in range(len(units))}
    forward: dict[int, set[int]] = {i: set() for i in range(len(units))}
    for i, u in enumerate(units):
        for t in [index[b] for b in u.exits] or [exit_index]:
            (back_into[t] if t <= i else forward[i]).add(i + 1 if t <= i else t)
    pending: set[int] = set()
    out = {}
    for i in range(len(units)):
        pending.discard(i)
        pending |= back_into[i]
        out[i] = min(pending) if pending else exit_index
        pending |= forward[i]
    return out


def structured_regions(func: Function) -> list[Region]:
    """The function's units after collapsing every natural shape (module docstring), entry first."""
    units = {b: block_unit(b) for b in func.blocks}
    while True:
        preds: dict[Block, set[Block]] = {b: set() for b in units}
        for u in units.values():
            for t in u.exits:
                preds[t].add(u.entry)
        for u in list(units.values()):
            merged = _collapse(u, units, preds, func.blocks[0])
            if merged is not None:
                for part in _members(merged):
                    del units[part]
                units[merged.entry] = merged
                break
        else:
            return list(units.values())


def _loop(u: Region, only_from) -> Region | None:
    """The loop headed by `u`, if its body is a path of units u, u2, ... uk (each the one successor of
    the one before, by a plain edge or by a cbr whose other target leaves the loop) and uk's edge, or
    one of its cbr's targets, goes back to u. Loops leaving to one block copy its phis where lanes
    leave; loops leaving to several (multi-level breaks) set each lane's blockIP there instead. Where
    both targets of a cbr could continue the path, both are tried (a bounded search)."""
    budget = [64]

    def walk(path: list[Region], leaves: list[Block]) -> Region | None:
        budget[0] -= 1
        cur = path[-1]
        if budget[0] < 0:
            return None
        steps: list[tuple[Block, Block | None]] = []
        if cur.falls_into is not None:
            steps = [(cur.falls_into, None)]
        elif cur.term is not None and cur.term.opcode == "cbr" and cur.term.targets[0] is not cur.term.targets[1]:
            t, f = cur.term.targets
            steps = [(t, f), (f, t)]
        for nxt, out in steps:
            if out is not None and any(out is p.entry for p in path):
                continue
            more = leaves + ([out] if out is not None else [])
            if nxt is u.entry:
                if not more:
                    continue                            # no way out: left to blockIP
                exits = tuple(dict.fromkeys(more))
                if len(exits) == 1:
                    return Region("loop", tuple(path), u.entry, None, exits[0])
                return Region("loop", tuple(path), u.entry, None, None, exits)
            unit = only_from(nxt, cur.entry)
            if unit is not None and unit not in path:
                found = walk(path + [unit], more)
                if found is not None:
                    return found
        return None
    return walk([u], [])


def _members(region: Region) -> list[Block]:
    return [p.entry for p in region.parts if isinstance(p, Region)]


def _collapse(u: Region, units: dict[Block, Region], preds: dict[Block, set[Block]],
              entry: Block) -> Region | None:
    """The region `u` heads, if one of the shapes starts at it."""
    if u.barrier:
        return None

    def only_from(b: Block, head: Block) -> Region | None:
        """b's unit, if `head` is its one predecessor and it can sit inside a region."""
        r = units[b]
        return r if b is not entry and preds[b] == {head} and not r.barrier and b is not head else None

    nxt = u.falls_into
    if nxt is not None and nxt is not u.entry:
        second = only_from(nxt, u.entry)
        if second is not None:
            return Region("chain", (u, second), u.entry, second.term, second.after, second.leaves)
    term = u.term
    if term is None or term.opcode != "cbr" or term.targets[0] is term.targets[1]:
        return None
    loop = _loop(u, only_from)
    if loop is not None:
        return loop
    t, f = term.targets
    arm_t, arm_f = only_from(t, u.entry), only_from(f, u.entry)
    if arm_t is not None and arm_t.falls_into is f:
        return Region("if", (u, arm_t, None), u.entry, None, f)
    if arm_f is not None and arm_f.falls_into is t:
        return Region("if", (u, None, arm_f), u.entry, None, t)
    if arm_t is not None and arm_f is not None and arm_t.falls_into is not None \
            and arm_t.falls_into is arm_f.falls_into and arm_t.falls_into is not u.entry:
        return Region("if", (u, arm_t, arm_f), u.entry, None, arm_t.falls_into)
    return None
