"""The units a blockIP kernel is laid out in: single blocks, or (for the hybrid) natural regions of the
CFG that run with Gen's own structured branches inside one blockIP unit.

The regions are found by collapsing the CFG's natural shapes to a fixed point, as structural analysis
does (Sharir, "Structural analysis: a new approach to flow analysis in optimizing compilers", 1980;
Beignet's ir/structurizer.cpp matches the same shapes):

    chain   A -> B                  A's one edge goes to B, B's one predecessor is A
    if      A -> B -> M, A -> M     an arm has A as its one predecessor and M as its one successor
            A -> B -> M, A -> C -> M
    loop    a natural loop (one way in, at its header) whose body collapses to one region once its
            exits and continues are set aside: a unit whose cbr leaves the loop on one side is an
            "exit" (its lanes break: Gen's break leaves any number of ifs), one whose cbr goes back
            to the header on one side a "continue" (cont); with the edges back to the header left
            out, the body must collapse by chains and ifs to one region that goes back, or whose last
            test goes back or out. A loop leaving to several blocks (a multi-level break, a return
            from a nest) sets each leaving lane's blockIP where it leaves.

Inner loops collapse before outer ones. What does not collapse (merges reached from several places at
several levels, switches, irreducible parts, and blocks with a barrier, which blockIP runs with every
lane of the thread) stays one unit per block. Every region has one entry block; an if, a loop or an
exit goes on by one edge to `after` (making that edge's phi copies itself), a loop leaving to several
blocks to its `leaves`, anything else by the terminator of its last block.

Why the loops are searched here rather than read from `lowering.graph.loop_forest` (which this module
does use, for the nesting depth bound): the forest refuses a whole function as soon as any part of it is
irreducible, while the hybrid exists for exactly those functions and must still find the natural loops
beside the irreducible part (tests/gen/test_cf_regions.py: a do-while next to a goto into another
loop's middle is a loop region although `loop_forest` raises IrreducibleError on the function). And
the search runs on the unit graph of each round, after inner shapes have collapsed, not on blocks.
"""
from __future__ import annotations

from reconverge.lowering.errors import CompileError
from reconverge.lowering.graph import (
    IrreducibleError,
    LoopForest,
    cycles,
    dominator_tree,
    loop_forest,
    reverse_postorder,
)
from reconverge.lowering.ir.core import Block, Function, Instr
from reconverge.records import record, replace

TYPE_CHECKING = False                   # not typing's: a compile's start-up does not import typing
if TYPE_CHECKING:
    from typing import Callable

TERMINATORS = ("br", "cbr", "switch", "ret", "unreachable")
# The search costs a round per level of nesting, each over the whole function (and a loop search per
# header), so its cost grows with depth times size: beyond this many rounds, or loops nested deeper than
# this, the hybrid refuses the kernel (`auto` then takes the tree's structured branches); the corpus
# needs at most 10 (deep_nest at -O2), an if two per level of nesting, a loop one
MAX_ROUNDS = 128


class RegionDepthError(CompileError):
    """The kernel nests deeper than the hybrid's region search goes (MAX_ROUNDS)."""


if TYPE_CHECKING:
    from functools import cached_property as _made_once
else:
    class _made_once:
        """functools.cached_property without its lock: computed on first use and kept in the instance's
        __dict__, which then shadows this non-data descriptor, so later reads are plain attribute reads
        (the region search reads a unit's exits about fifty times a kernel; a property call each was a
        tenth of the search)."""
        def __init__(self, find):
            self.find, self.name = find, find.__name__

        def __get__(self, region, owner=None):
            if region is None:
                return self
            found = region.__dict__[self.name] = self.find(region)
            return found


@record(eq=False)
class Region:
    kind: str                     # "block", "chain", "if", "loop", or inside a loop's body "exit", "continue"
    parts: tuple                  # block: (Block,); chain: (first, second); if: (head, true arm | None,
    entry: Block                  # false arm | None); loop: (body,); exit, continue: (the unit branching)
    term: Instr | None            # the terminator control leaves by, or None: see `after` and `leaves`
    after: Block | None = None    # term None: the one block it goes on to (its copies made inside)
    leaves: tuple = ()            # loop: its exit targets when several (blockIP set where each leaves);
                                  # exit: the one target its lanes break to
    barrier: bool = False         # block: it holds a barrier (never inside a region)
    dispatch: bool = False        # loop, exit: the loop leaves to several blocks (exits set blockIP)
    continues: bool = False       # loop: a `continue` inside its body (the last test then breaks)
    via: tuple = ()               # a laid-out unit's (header, latch) pairs: its lanes going back to the
                                  # header wait at that shared latch unit instead (share_latches)

    @_made_once
    def exits(self) -> list[Block]:
        """The blocks control goes to from this region, each once, in terminator order (made once: a region
        is not changed once made, `replace` makes another; the search asks it of every unit each round).
        Read-only: the list is the region's own."""
        if self.term is None:
            out = [self.after] if self.after is not None else list(self.leaves)
        elif self.term.opcode in ("ret", "unreachable"):
            return []
        else:
            out = list(dict.fromkeys(self.term.targets))
        if self.via:
            out = list(dict.fromkeys(dict(self.via).get(b, b) for b in out))
        return out

    @_made_once
    def falls_into(self) -> Block | None:
        """The one block this region always goes on to by a plain edge (br, or the edge of an if or a
        loop), or None."""
        if self.term is None:
            return self.after
        return self.term.targets[0] if self.term.opcode == "br" else None


def block_unit(block: Block) -> Region:
    instrs = block.instrs
    term = instrs[-1] if instrs and instrs[-1].opcode in TERMINATORS else None
    barrier = False
    for ins in instrs:                      # (a loop, not any() over a generator: every block of the CFG)
        if ins.opcode == "barrier":
            barrier = True
            break
    return Region("block", (block,), block, term, barrier=barrier)


def layout(func: Function, units: list[Region]) -> list[Region]:
    """The units in reverse postorder from the entry's: every unit after its dominators, so a value is
    selected before its uses; unreachable ones are left out. Successors are searched last first, so a
    branch's first target comes first (a cbr's true arm before its false one, as the source wrote them).
    Each natural loop's units stand together after its header, its exits after them all: blockIP runs
    the lowest waiting unit first, so a unit after a loop runs once, with every lane that left the loop,
    not once per batch of lanes leaving (a sub-group operation there sees them all, as maximal
    convergence and a convergence token from outside the loop say). An irreducible part's cycles are no
    loops here; the natural loops beside or around them still are."""
    if len(units) == 1 and units[0].entry is func.blocks[0]:
        return list(units)                  # (a kernel the hybrid made one region: nothing to order)
    position = {u.entry: i for i, u in enumerate(units)}
    succs = [[position[t] for t in reversed(u.exits)] for u in units]
    entry = position[func.blocks[0]]
    order = reverse_postorder(succs, entry)
    forest = loop_forest(succs, entry, natural_only=True, order=order)
    order = loops_together(order, forest)
    if _irreducible(succs, order, forest):
        order = cycles_together(order, succs, entry)
    return [units[i] for i in order]


def _irreducible(succs: list[list[int]], order: list[int], forest: LoopForest) -> bool:
    """Whether an edge goes back (in `order`) to a unit that is not the header of a natural loop holding
    its source: a cycle entered at more than one unit."""
    num = {v: i for i, v in enumerate(order)}
    return any(num[t] <= num[v] and not (forest.header_of[t] == t and forest.contains(t, v))
               for v in order for t in succs[v])


def cycles_together(order: list[int], succs: list[list[int]], entry: int) -> list[int]:
    """`order` with the units of every cycle moved together (at its first unit's place, in their order),
    and inside it, once the edges into its entries are set aside, every cycle of what remains: an
    irreducible part's cycles as loops_together lays out natural loops. blockIP runs the lowest waiting
    unit first, so a unit laid out between two units of a cycle that it does not belong to (an exit of
    the cycle) ran once for every batch of lanes leaving it, and a sub-group operation there met only
    some of them (fuzz all-56733: a goto state machine entered at two labels, then a scan). Stable where
    every cycle is together already (the natural loops, after loops_together). O(units x cycle depth)."""
    preds: dict[int, set[int]] = {v: set() for v in order}
    for v in order:
        for t in succs[v]:
            preds[t].add(v)
    root: list = []                 # the layout as nested lists: a cycle's units in a list of their own
    stack: list[tuple[list[int], frozenset[int], list]] = [(order, frozenset(), root)]
    while stack:
        nodes, cut, into = stack.pop()          # units in order, the entries whose edges in are set aside
        graph = {v: [t for t in succs[v] if t not in cut] for v in nodes}
        components = cycles(graph, nodes)
        which = {v: k for k, c in enumerate(components) for v in c}
        placed: set[int] = set()
        for v in nodes:
            k = which.get(v)
            if k is None:
                into.append(v)
            elif k not in placed:
                placed.add(k)
                members = components[k]
                inside = set(members)
                entries = frozenset(u for u in members if u == entry or any(p not in inside for p in preds[u]))
                nested: list = []
                into.append(nested)
                stack.append((members, cut | entries, nested))
    out: list[int] = []
    flat: list = [root]
    while flat:
        item = flat.pop()
        if isinstance(item, list):
            flat.extend(reversed(item))
        else:
            out.append(item)
    return out


SUBGROUP_OPS = ("subgroup", "subgroup_barrier")     # what meets the lanes running it together (a barrier
                                                    # block runs with every lane: _wait_for_every_lane)


def share_latches(units: list[Region]) -> list[Region]:
    """The laid-out `units` with one latch unit added at the end of each natural loop that holds a sub-group
    operation and is gone back to from several units (a `continue`, a back edge from an inner loop) or from
    inside an inner loop (that loop's exit branching straight back: redteam2 b01, a `break` out of a one-pass
    `for` at the end of a `while`): those units send their lanes going back to that latch (Region.via),
    which alone jumps back to the header; so is a loop gone back to from one unit that is not its last (an
    irreducible cycle inside it may be laid out after that unit).
    blockIP runs the lowest waiting unit first and a unit going back jumps at once, so lanes going back
    from an early unit started the next iteration while lanes still in this one waited at a later unit,
    and met at the loop's sub-group operations without them (fuzz subgroup-16441: a `continue` written
    before the end of a `while` body). The latch is an empty unit, its block in no function: the back
    edges' phi copies are made where the edges leave, as before. Other loops keep their code."""
    operation = [_has_subgroup_operation(u) for u in units]
    if not any(operation):
        return units                # most kernels: no loop search at all
    index = {u.entry: i for i, u in enumerate(units)}
    succs = [[index[t] for t in reversed(u.exits) if t in index] for u in units]
    forest = loop_forest(succs, 0, natural_only=True)
    members: dict[int, list[int]] = {h: [] for h in forest.latches}
    for v in range(len(units)):             # each unit in every loop around it: units x nesting depth
        h = forest.header_of[v]
        while h != -1:
            members.setdefault(h, []).append(v)
            h = forest.parent[h]
    # a loop keeps its back edge only where it leaves from the loop's last unit: lanes still in a later
    # unit would otherwise wait while the others ran the next pass (fuzz all-110769: at -O2 a goto state
    # machine's units, an irreducible cycle in the loop, were laid out after the one unit going back)
    shared = {h: sources for h, sources in forest.latches.items()
              if set(sources) != {max(members[h])} or any(forest.header_of[v] != h for v in sources)}
    if not shared:
        return units
    after: dict[int, list[Region]] = {}       # unit index -> the latches to lay out after it
    via: dict[int, list[tuple[Block, Block]]] = {}
    for h in sorted(shared):
        if not any(operation[v] for v in members[h]):
            continue
        header = units[h].entry
        latch = Region("latch", (), Block(f"latch.{header.label or header.index}"), None, header)
        after.setdefault(max(members[h]), []).insert(0, latch)    # an inner loop's latch before its outer's
        for v in set(shared[h]):
            via.setdefault(v, []).append((header, latch.entry))
    out: list[Region] = []
    for i, u in enumerate(units):
        out.append(replace(u, via=u.via + tuple(via[i])) if i in via else u)
        out += after.get(i, [])
    return out


def _has_subgroup_operation(unit: Region) -> bool:
    """Whether a block of the unit (each is the entry of a unit inside it) holds a SUBGROUP_OPS instruction
    (loops, no set of the blocks nor a generator made: asked of every unit of every hybrid)."""
    for ins in unit.entry.instrs:
        if ins.opcode in SUBGROUP_OPS:
            return True
    for block in _members(unit):
        for ins in block.instrs:
            if ins.opcode in SUBGROUP_OPS:
                return True
    return False


def loops_together(order: list[int], forest: LoopForest) -> list[int]:
    """`order` (a reverse postorder) with each loop's nodes moved together after its header: at each
    level of the loop forest, its own nodes and its inner loops in the order of their first node. Still
    a topological order of the forward edges (a loop is entered only at its header)."""
    items: dict[int, list[int]] = {-1: []}    # loop header (-1: none) -> its own nodes and inner headers
    for v in order:                           # in order, so every list is in order too
        h = forest.header_of[v]
        if h == v:
            items[v] = []
            items[forest.parent[v]].append(v)
        else:
            items[h].append(v)
    out: list[int] = []
    stack = [iter(items[-1])]
    while stack:
        node = next(stack[-1], None)
        if node is None:
            stack.pop()
            continue
        out.append(node)
        if forest.header_of[node] == node:    # an inner loop: its header, then its nodes
            stack.append(iter(items[node]))
    return out


def join_points(units: list[Region]) -> dict[int, int]:
    """Layout position -> the unit its entry jumps to when no lane wants it (Beignet's buildJIPs):
    walking the units in layout order with a set of pending ones (forward targets not reached yet, and
    once a backward jump's landing unit, its first backward target, is entered: the unit after the
    branch and its other backward targets), JOIN(L) is the smallest pending unit after L is removed and
    the branches into L added, or the exit (len(units)) when none is. A branch back to several units
    (a latch of two nested loops, a state machine's dispatch) has lanes waiting at each of them while
    the thread re-runs from the first."""
    index = {u.entry: i for i, u in enumerate(units)}
    exit_index = len(units)
    back_into: dict[int, set[int]] = {i: set() for i in range(len(units))}
    forward: dict[int, set[int]] = {i: set() for i in range(len(units))}
    for i, u in enumerate(units):
        targets = [index[b] for b in u.exits] or [exit_index]
        backward = [t for t in targets if t <= i]
        forward[i] |= {t for t in targets if t > i}
        if backward:
            # the backward jump lands at the first backward target: from there on the other backward
            # targets wait too (a cbr or switch going back to several blocks), and the unit after i
            back_into[min(backward)] |= {t for t in backward if t != min(backward)} | {i + 1}
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
    if len(func.blocks) > MAX_ROUNDS and _loop_depth(func) > MAX_ROUNDS:   # (loops nest no deeper than the
        raise _too_deep(func)                                                # blocks they hold: no forest made)
    try:
        units = _collapse_all({b: block_unit(b) for b in func.blocks}, func.blocks[0], loops=True,
                              rounds=MAX_ROUNDS)
    except RegionDepthError:
        raise _too_deep(func) from None
    return list(units.values())


def _too_deep(func: Function) -> RegionDepthError:
    return RegionDepthError(f"@{func.name}: control flow nests deeper than the hybrid's region search goes "
                            f"({MAX_ROUNDS} levels); use --cf structured or blockip")


def _loop_depth(func: Function) -> int:
    """The deepest loop nesting of a reducible CFG (0 for an irreducible one: the rounds limit it)."""
    index = {b: i for i, b in enumerate(func.blocks)}
    try:
        forest = loop_forest([[index[s] for s in b.succs] for b in func.blocks], 0)
    except IrreducibleError:
        return 0
    depth: dict[int, int] = {-1: 0}
    for h in forest.parent:
        chain = []
        while h not in depth:
            chain.append(h)
            h = forest.parent[h]
        for c in reversed(chain):
            depth[c] = depth[forest.parent[c]] + 1
    return max(depth.values())


def _collapse_all(units: dict[Block, Region], entry: Block, loops: bool, header: Block | None = None,
                  rounds: int | None = None) -> dict[Block, Region]:
    """Collapse shapes among `units` (by entry block) to a fixed point. In a loop body (`header`
    given) edges back to the header are left out of the graph, and inner loops are not looked for
    (they collapse first, in the whole function).

    Each round finds the loop headers once (a depth-first search) and tries every unit; a merge
    updates the predecessor sets of the region's successors at once. Rounds: about the depth of the
    regions' nesting; each O(units + edges), plus the loop searches (O(units + edges) per header whose
    body changed since its last try)."""
    failed: dict[Block, tuple] = {}        # header -> its body's units when _loop last failed on them
    preds: dict[Block, set[Block]] = {b: set() for b in units}
    for u in units.values():
        for t in u.exits:
            if t in preds and t is not header:
                preds[t].add(u.entry)
    acyclic = not loops                     # no branch goes back: then none will (a merge makes no cycle)
    while True:
        if rounds is not None:
            if rounds == 0:
                raise RegionDepthError("too many rounds")
            rounds -= 1
        headers = set() if acyclic else _back_edge_targets(units, entry)
        acyclic = not headers
        dominates = _dominance(units, entry) if headers else None
        changed = False
        for u in list(units.values()):
            if units.get(u.entry) is not u:
                continue                    # merged into a region this round
            merged = _collapse(u, units, preds, entry, dominates, failed if u.entry in headers else None)
            if merged is None:
                continue
            inside = _members(merged)                       # (the region's own set: not changed here)
            head = merged.entry
            for part in inside:
                units.pop(part, None)
            units[head] = merged
            for b in inside:
                if b is not head:
                    preds.pop(b, None)
            own = preds[head]                               # its edges from inside are the region's own,
            own -= inside
            own.discard(head)
            for t in merged.exits:                          # but one back to its entry is a loop's
                if t in preds and t is not header:
                    preds[t] = {p for p in preds[t] if p not in inside} | {head}
            changed = True
        if not changed:
            return units


def _back_edge_targets(units: dict[Block, Region], entry: Block) -> set[Block]:
    """Units some branch goes back to (to a unit still on the depth-first search's path): the loop
    headers, and in an irreducible CFG some other blocks; iterative, O(units + edges)."""
    out: set[Block] = set()
    on_path: set[Block] = set()
    seen = {entry}
    stack = [(entry, iter(units[entry].exits))]
    on_path.add(entry)
    while stack:
        b, succs = stack[-1]
        for t in succs:
            if t in on_path:
                out.add(t)
            elif t not in seen and t in units:
                seen.add(t)
                on_path.add(t)
                stack.append((t, iter(units[t].exits)))
                break
        else:
            stack.pop()
            on_path.discard(b)
    return out


if TYPE_CHECKING:
    Dominates = Callable[[Block, Block], bool]


def _dominance(units: dict[Block, Region], entry: Block) -> Dominates:
    """`dominates(a, b)` on the unit graph as it is at the start of a round, O(1) a query. It stays true
    through the round's merges: each collapses a region with one way in to its entry unit, which keeps
    every path between the units left (a path through the region goes in by its entry). Computed once a
    round instead of two searches of the whole graph per loop header tried, which made the search
    quadratic (blocks^1.9 on random CFGs)."""
    index = {b: i for i, b in enumerate(units)}
    tree = dominator_tree([[index[t] for t in u.exits if t in index] for u in units.values()], index[entry])
    return lambda a, b: tree.dominates(index[a], index[b])


def _natural_loop(u: Region, preds: dict[Block, set[Block]], dominates: Dominates) -> set[Block] | None:
    """The entries of the units in the loop `u` heads: the branches back to it from units it
    dominates, and every unit reaching one of them without passing it. None when nothing branches
    back, or when the loop has another way in (irreducible)."""
    body, stack = {u.entry}, [p for p in preds[u.entry] if dominates(u.entry, p)]
    if not stack:
        return None
    while stack:
        b = stack.pop()
        if b not in body:
            body.add(b)
            stack += preds[b]
    return body if all(preds[b] <= body for b in body if b is not u.entry) else None


def _loop(u: Region, units: dict[Block, Region], preds: dict[Block, set[Block]], dominates: Dominates,
          failed: dict[Block, tuple]) -> Region | None:
    """The loop `u` heads, if its body collapses to one region once its exits are set aside: a unit
    whose cbr leaves the loop on one side becomes an "exit" (the lanes leaving break; with several
    exit targets each sets its blockIP), one whose cbr goes back to the header on one side a
    "continue", and the body, with edges back to the header left out of the graph, must then collapse
    (chains and ifs) to one region that goes back to the header, or whose last test does."""
    body = _natural_loop(u, preds, dominates)
    if body is None or any(units[b].barrier for b in body):
        return None
    key = tuple(sorted(id(units[b]) for b in body))
    if failed.get(u.entry) == key:
        return None                                         # the same body failed before
    failed[u.entry] = key
    order = sorted(body, key=lambda b: b.index)             # source order, not the set's
    outside = list(dict.fromkeys(t for b in order for t in units[b].exits if t not in body))
    if not outside:
        return None                                         # no way out but returns: left to blockIP
    dispatch = len(outside) > 1
    if dispatch:            # lanes bound back into the deepest loop are served first, as a tree would
        outside.sort(key=lambda t: -max((s.index for s in units[t].exits if s.index <= t.index), default=-1))
    local: dict[Block, Region] = {}
    continues = False
    for b in order:
        w = units[b]
        targets = w.exits
        if all(t in body for t in targets) and (u.entry not in targets or w.falls_into is u.entry):
            local[b] = w                                    # within the body, or on to the header
            continue
        if w.term is None or w.term.opcode != "cbr" or len(targets) != 2:
            return None
        t, f = w.term.targets
        other = f if t is u.entry else t
        if u.entry in (t, f) and other not in body:
            local[b] = w                                    # back or out: the loop's last test
        elif u.entry in (t, f):
            continues = True
            local[b] = Region("continue", (w,), b, None, other)
        elif (t in body) != (f in body):
            stay, out = (t, f) if t in body else (f, t)
            local[b] = Region("exit", (w,), b, None, stay, (out,), dispatch=dispatch)
        else:
            return None
    collapsed = _collapse_all(local, u.entry, loops=False, header=u.entry)
    if len(collapsed) != 1:
        return None
    whole = collapsed[u.entry]
    last = whole.term
    if not (whole.falls_into is u.entry or (last is not None and last.opcode == "cbr" and u.entry in last.targets)):
        return None
    return Region("loop", (whole,), u.entry, None, None if dispatch else outside[0],
                  tuple(outside) if dispatch else (), dispatch=dispatch, continues=continues)


def _members(region: Region) -> set[Block]:
    """The entry blocks of every unit inside `region`, at any depth (a loop's body collapsed apart). Made
    once per region, from its parts' own sets where they have them (a region is not changed once made):
    the search asks it of every region it merges, and a walk of the whole nest each time was a tenth of
    the hybrid's layout. Read-only: the set is the region's own."""
    found = region.__dict__.get("_members")
    if found is not None:
        return found
    out: set[Block] = set()
    stack = [p for p in region.parts if type(p) is Region]
    while stack:
        r = stack.pop()
        out.add(r.entry)
        known = r.__dict__.get("_members")
        if known is not None:
            out |= known
        else:
            stack += [p for p in r.parts if type(p) is Region]
    region.__dict__["_members"] = out
    return out


def _collapse(u: Region, units: dict[Block, Region], preds: dict[Block, set[Block]], entry: Block,
              dominates: Dominates | None, failed: dict[Block, tuple] | None) -> Region | None:
    """The region `u` heads, if one of the shapes starts at it (a loop only where `failed` is given:
    `u` heads one, and the round's `dominates`)."""
    if u.barrier:
        return None
    nxt = u.falls_into
    if nxt is not None and nxt is not u.entry:
        second = _only_from(nxt, u.entry, units, preds, entry)
        if second is not None:
            return Region("chain", (u, second), u.entry, second.term, second.after, second.leaves)
    loop = _loop(u, units, preds, dominates, failed) if failed is not None and dominates is not None else None
    if loop is not None:
        return loop
    term = u.term
    if term is None or term.opcode != "cbr" or term.targets[0] is term.targets[1]:
        return None
    t, f = term.targets
    arm_t, arm_f = _only_from(t, u.entry, units, preds, entry), _only_from(f, u.entry, units, preds, entry)
    if arm_t is not None and arm_t.falls_into is f:
        return Region("if", (u, arm_t, None), u.entry, None, f)
    if arm_f is not None and arm_f.falls_into is t:
        return Region("if", (u, None, arm_f), u.entry, None, t)
    if arm_t is not None and arm_f is not None and arm_t.falls_into is not None \
            and arm_t.falls_into is arm_f.falls_into and arm_t.falls_into is not u.entry:
        return Region("if", (u, arm_t, arm_f), u.entry, None, arm_t.falls_into)
    return None


def _only_from(b: Block, head: Block, units: dict[Block, Region], preds: dict[Block, set[Block]],
               entry: Block) -> Region | None:
    """b's unit, if `head` is its one predecessor and it can sit inside a region (a function of the
    module, not a closure _collapse made on each of its calls; no set made to compare preds with)."""
    r = units.get(b)                        # None: outside a loop body being collapsed
    if r is None or b is entry or b is head or r.barrier:
        return None
    p = preds[b]
    return r if len(p) == 1 and head in p else None
