"""Separate the source loops that LLVM merged into one CFG loop, where a convergent operation needs it.

Why: `-O2` can turn a `do { ... } while (c)` nested in a `while` into one loop - one header, the inner
loop's back edge and the outer one's both returning there (seed 004's nested do/while). One lane at a time
nothing changed; in lock step, a ballot written in the inner loop now runs once per iteration of the merged
loop with every lane still looping, where the source runs it once per inner iteration with only the lanes
that stayed inside (the others wait in the outer loop). A scope can home an operation into a loop but not
split one, so this pass recreates the inner loop first, as LLVM's LoopSimplify does when it separates
nested loops that share a header: a new outer header H_o takes the entry edges and the outer loop's back
edges, H_o branches to H, and H keeps the inner loop's back edges; H's phis split (H_o's over the entries
and the outer latches, H's over H_o's phi and the inner latches). For one lane the program is the same.

Which back edge belongs to which source loop comes from `-g`: the branch that takes a back edge keeps its
source location (a `do`'s at its closing brace, inside the body's lexical block; a `while`'s or `for`'s
at the loop statement, outside its body). A header is split only when some convergent operation C in the
loop has every back edge's branch written around it (each lexical block around the branch also holds C)
and the branches sit at two or more depths: the deepest ones are C's inner loop, the others the outer.
An empty block that only forwards to H (LLVM's shared latch) is looked through, to the branches into it.
The deepest back edges must be taken by conditional branches, as a `do`'s test is: a `continue` written
with C inside one `if` (`if (c) { r = reduce(x); continue; }`, an unconditional branch back, deeper than the
loop's own test) is no inner loop (fuzz convergence-17042: the loop was split at -O0, and the reduction ran
once per pass of a loop that does not exist). Anything else - a branch written beside C (a `continue`
inside an `if` of its own), a back edge with no location, an irreducible CFG - leaves the loop as it is
(the scopes rule then runs it as the merged loop).
"""
from __future__ import annotations

from reconverge.lowering.frontend.source_scopes import ScopeKey, ScopeNotes, loop_homes
from reconverge.lowering.graph import IrreducibleError, dominator_tree, loop_forest
from reconverge.lowering.ir.core import Block, Function, Instr, Phi

MAX_ROUNDS = 64          # each round splits one header; nests are shallow


def separated_loop_homes(func: Function, notes: ScopeNotes) -> dict[Instr, Block]:
    """Separate the merged loops, then source_scopes.loop_homes on the result, less the homes in a
    recreated inner loop of an operation not written in its body: the inner loop's condition is written
    in the outer body (a `do`'s `while (...)`), which that rule would take for the inner loop's own scope."""
    bodies = separate_merged_loops(func, notes)
    func.loops_separated += len(bodies)
    return {ins: header for ins, header in loop_homes(func, notes).items()
            if header not in bodies or bodies[header] in notes.scopes.chain(notes.calls[ins])}


def separate_merged_loops(func: Function, notes: ScopeNotes) -> dict[Block, ScopeKey]:
    """Split every merged header the module docstring describes (CFG form); returns each split header
    (now the inner loop's) with the lexical block its body was written in."""
    bodies: dict[Block, ScopeKey] = {}
    while len(bodies) < MAX_ROUNDS and _split_one(func, notes, bodies):
        pass
    return bodies


def _split_one(func: Function, notes: ScopeNotes, bodies: dict[Block, ScopeKey]) -> bool:
    blocks = func.update_cfg()
    if not blocks or not notes.calls:
        return False
    index = {b: i for i, b in enumerate(blocks)}
    succs = [[index[s] for s in b.succs] for b in blocks]
    dom = dominator_tree(succs, 0)
    try:
        forest = loop_forest(succs, 0, dom)
    except IrreducibleError:
        return False
    for h in forest.headers:
        header = blocks[h]
        latches = [p for p in header.preds if dom.pre[index[p]] >= 0 and dom.dominates(h, index[p])]
        edges = _back_edge_branches(header, latches, lambda b: dom.dominates(h, index[b]))
        if edges is None:
            continue
        own = [edge for edge in edges if forest.header_of[index[edge[0]]] == h]
        if len(own) < 2:        # the others leave a nested CFG loop (its exit into the shared latch)
            continue
        calls = [(ins, ident) for ins, ident in notes.calls.items()
                 if ins.block in index and forest.contains(h, index[ins.block])]
        for _, ident in calls:
            inner, body = _inner_edges(own, [e for e in edges if e not in own], notes, notes.scopes.chain(ident))
            if inner and body is not None:
                _split(func, header, latches, inner)
                bodies[header] = body
                return True
    return False


def _back_edge_branches(header: Block, latches: list[Block], in_loop) -> list[tuple[Block, Block]] | None:
    """The branches that take `header`'s back edges, as (block ending in the branch, latch it goes to):
    a latch that only forwards to the header (phis and a branch: LLVM merges the loop-carried values of
    both loops there) stands for the branches into it. None when two back edges leave one block (nothing
    to tell them apart by)."""
    out: list[tuple[Block, Block]] = []
    for latch in latches:
        term = latch.terminator
        forwards = (latch is not header and term is not None and term.opcode == "br"
                    and len(latch.instrs) == 1 + sum(1 for _ in latch.phis())
                    and latch.preds and all(in_loop(p) for p in latch.preds))
        out.extend((p, latch) for p in latch.preds) if forwards else out.append((latch, latch))
    sources = [s for s, _ in out]
    return out if len(out) >= 2 and len(set(sources)) == len(sources) else None


def _inner_edges(edges: list[tuple[Block, Block]], nested_exits: list[tuple[Block, Block]], notes: ScopeNotes,
                 call_chain: tuple[ScopeKey, ...]) -> tuple[list[tuple[Block, Block]], ScopeKey | None]:
    """The back edges of the source loop that the call was written in, when they are deeper than the
    others and every branch is written around the call, and the lexical block of that loop's body (the
    innermost around those branches); else none. `nested_exits`: the back edges taken by a branch in a
    nested CFG loop, which leave that loop (a `while`'s test, deep in the merged loop's body, whose exit
    is the shared latch: fuzz convergence-50046 split a loop there, and its `if`'s lanes went round
    without the others); never the inner loop's, they stay with the outer loop's edges."""
    around = set(call_chain)
    depths = []
    body: ScopeKey | None = None
    for source, _ in edges:
        located = notes.blocks.get(source)
        if not located:
            return [], None
        chain = notes.scopes.chain(located[-1])      # the block's last located instruction: its branch
        if not chain or not set(chain) <= around:
            return [], None
        lexical = [key for key in chain if notes.scopes.is_block(key)]
        depths.append(len(lexical))
        if lexical and len(lexical) == max(depths):
            body = lexical[0]
    if not all(notes.blocks.get(source) for source, _ in nested_exits):
        return [], None
    deepest = max(depths)
    if deepest == min(depths):
        return [], None
    inner = [edge for edge, depth in zip(edges, depths) if depth == deepest]
    if any(source.terminator is None or source.terminator.opcode != "cbr" for source, _ in inner):
        return [], None         # a `continue` (an unconditional branch back), not a `do`'s test
    outer = [edge for edge, depth in zip(edges, depths) if depth != deepest] + nested_exits
    if not _own_loop_statement(notes, inner, outer):
        return [], None
    return inner, body


def _own_loop_statement(notes: ScopeNotes, inner: list[tuple[Block, Block]],
                        outer: list[tuple[Block, Block]]) -> bool:
    """Whether the inner branches are a loop statement of their own, not a `continue` written in the merged
    loop's body that SimplifyCFG made a conditional branch back (a `switch` with one `continue` case: fuzz
    convergence-29708). Told by the loop statements' source ranges: one must hold every inner branch and no
    outer one. Where clang's unoptimised module was not read (an optimised .ll or .bc input, which keeps
    the `!llvm.loop` nodes of some loops only), a branch no known statement holds is told by its lexical
    blocks instead: a `do`'s test is written in its own body, a block inside the merged loop's body; a
    `continue` sits in the body itself, right below the scope the merged loop's own back edge is written in
    (so `while (c) do {...} while (d);`, with no braces of its own, is not split there)."""
    scopes = notes.scopes

    def positions(edges: list[tuple[Block, Block]]) -> list[list]:
        return [scopes.positions(notes.blocks[source][-1]) for source, _ in edges]

    inside, beside = positions(inner), positions(outer)
    if any(all(any(r.holds_line(p) for p in branch) for branch in inside)
           and not any(r.holds_line(p) for branch in beside for p in branch) for r in scopes.loop_statements()):
        return True
    if scopes.unoptimized_loops:
        return False
    around_outer = {key for source, _ in outer for key in scopes.chain(notes.blocks[source][-1])}
    for source, _ in inner:
        chain = scopes.chain(notes.blocks[source][-1])
        if len(chain) < 2 or chain[1] in around_outer:
            return False
    return True


def _split(func: Function, header: Block, latches: list[Block], inner: list[tuple[Block, Block]]) -> None:
    """Give `header` an outer header: entries and outer back edges go there, the `inner` ones stay."""
    inner_latches: list[Block] = []
    for source, latch in inner:
        if source is not latch:                          # through a forwarding latch: branch straight back
            term = source.terminator
            assert term is not None
            term.targets = [header if t is latch else t for t in term.targets]
            for phi in header.phis():
                value = phi.value_for(latch)
                phi.add_incoming(source, value.value_for(source) if isinstance(value, Phi) and value.block is latch
                                 else value)
            for merged in latch.phis():                  # the latch's own phis no longer hear from `source`
                at = merged.blocks.index(source)
                del merged.operands[at], merged.blocks[at]
        inner_latches.append(source)
    func.update_cfg()
    for latch in latches:
        if latch not in inner_latches and not latch.preds:   # a forwarding latch all of whose branches were inner
            for phi in header.phis():
                at = phi.blocks.index(latch)
                del phi.operands[at], phi.blocks[at]
            func.blocks.remove(latch)
    func.update_cfg()
    outer = Block(f"{header.label}.outer" if header.label else "")
    outer.source_lines = header.source_lines
    stay = set(inner_latches)
    for phi in list(header.phis()):
        moved = [(b, v) for b, v in phi.incoming() if b not in stay]
        twin = outer.append(Phi(phi.type, moved, name=f"{phi.name}.outer" if phi.name else ""))
        kept = [(b, v) for b, v in phi.incoming() if b in stay]
        phi.blocks = [outer] + [b for b, _ in kept]
        phi.operands = [twin] + [v for _, v in kept]
    outer.append(Instr("br", [], targets=[header]))
    for pred in list(header.preds):
        if pred not in stay:
            term = pred.terminator
            assert term is not None
            term.targets = [outer if t is header else t for t in term.targets]
    func.blocks.insert(func.blocks.index(header), outer)
    func.update_cfg()
