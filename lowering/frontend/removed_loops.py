"""Source loops that LLVM's optimiser removed from around a convergent operation, read from `-g`.

Why: under `--convergence=scopes` an operation written in a loop meets the lanes of one iteration, even
where the CFG puts it after the loop (its `break` path; lowering.frontend.source_scopes). Above -O0 LLVM
can remove such a loop: IndVarSimplify predicates its exits on the iteration count and LoopDeletion drops
what is left, full unrolling gives every pass's exit one shared block, LoopDeletion drops a one-exit loop
whose count SCEV knows (fuzz convergence-23120, 18). The operation on the break path then runs once with
the lanes of every iteration together, and no loop is left in the CFG to anchor it in. pipeline.
_keep_source_loops compiles a file with an at-risk loop again without those passes (and without rotation,
whose copy of the first test before the loop also joins the break path: fuzz convergence-27368); a loop
removed even so makes each kernel with an operation in it a one-line refusal.

How: clang's code generation gives each loop's back-edge branch an `!llvm.loop` node whose first two
locations are the loop statement's start and end (clang's CGLoopInfo), and LLVM's loop passes keep that
node on the loop's latch. The module clang makes before any LLVM pass (`-Xclang -disable-llvm-passes`)
thus names every loop statement of the source with its source range; a loop written with `goto` (a
natural loop none of whose back edges names a statement) gets the range from its first to its last located
code (redteam c05, c06). A loop is *at risk* when a call is written in
its range (a sub-group or work-group built-in, a barrier, or a function defined in the module, which may
hold one), inside its natural loop (-O2 can sink it onto the exit path) or below its header on a break
path, unless the loop runs one pass at most or every exit towards such a break-path call is taken in the
first pass (lowering.frontend.first_pass_exits). Each convergent call of the optimised module written in
an at-risk loop must then lie in, or below the header of, a loop of its own function that is that source
loop (removed_loops).

A loop whose back edge LLVM proves never taken (`for (i = 0; i < 1; i++) x += reduce(y);`) disappears
too, with nothing to merge: every lane runs its one pass; where a constant counter and bound say so, it is
not at risk (first_pass_exits.at_most_one_pass), else its kernel is refused, conservatively. A `do { }
while (0)` or a `while (1) { ...; break; }` has no back edge at all in clang's code, so no `!llvm.loop`
and no loop to lose.
"""
from __future__ import annotations

import re

from reconverge.lazy_regex import lazy_compile
from reconverge.lowering.errors import RemovedLoop, where
from reconverge.lowering.frontend.first_pass_exits import FunctionValues, at_most_one_pass, leaves_in_first_pass
from reconverge.lowering.frontend.source_scopes import (
    DBG_ATTACHMENT,
    LOOP_ATTACHMENT,
    DebugScopes,
    Position,
    SourceRange,
)
from reconverge.lowering.graph import dominator_tree
from reconverge.records import field, record

TYPE_CHECKING = False                   # (not typing's: a compile's start-up does not import typing)
if TYPE_CHECKING:
    from reconverge.lowering.frontend.source_scopes import ScopeNotes
    from reconverge.lowering.ir.core import Function

_FUNCTION = lazy_compile(r"^define [^\n]*?@(\"[^\"]*\"|[-\w.$]+)\([^\n]*\{\n(.*?)^\}", re.M | re.S)
_LABEL = lazy_compile(r"^(\"[^\"]*\"|[-\w.$]+):")
_SUCCESSOR = lazy_compile(r"\blabel %(\"[^\"]*\"|[-\w.$]+)")
_LOOP_BRANCH = lazy_compile(r"^\s*br [^\n]*!llvm\.loop !(\d+)")
_CALL = lazy_compile(r"\bcall [^\n]*?@(\"[^\"]*\"|[-\w.$]+)\([^\n]*!dbg !(\d+)")
_CONVERGENT_BUILTIN = lazy_compile(r"_Z\w*(?:sub_group|work_group|barrier)")
_BRANCH_LINE = lazy_compile(r"^\s*(?:br|switch) ")
# a phi's location is its variable's declaration (mem2reg's), not where the loop's code was written
_PHI_LINE = lazy_compile(r"^\s*%[-\w.$\"]+ = phi ")

@record(frozen=True)
class SourceLoops:
    """The source loops clang's unoptimised module names (`every`), those at risk, and those that run one
    pass at most (first_pass_exits.at_most_one_pass: LLVM drops their back edge, so they are no loop of
    the optimised module, and loop_separation must not take one for an inner loop: redteam2 s08)."""
    every: list
    risky: list
    one_pass: list = field(default_factory=list)

    @property
    def kept(self) -> tuple:
        """The loops that can run two passes or more: those the optimised module can still hold."""
        once = set(self.one_pass)
        return tuple(r for r in self.every if r not in once)


def source_loops(frontend_text: str) -> SourceLoops:
    """The source loops of clang's unoptimised module, and those at risk (the module docstring's rule)."""
    scopes = DebugScopes.of_text(frontend_text)
    ranges = scopes.loop_ranges()
    every = list(ranges.values())
    risky: list[SourceRange] = []
    one_pass: list[SourceRange] = []
    defined = {m.group(1) for m in _FUNCTION.finditer(frontend_text)}
    for m in _FUNCTION.finditer(frontend_text):
        found, gotos, once = _function_at_risk(m.group(2), ranges, scopes, defined)
        risky.extend(found)
        every.extend(gotos)
        one_pass.extend(once)
    return SourceLoops(every, risky, one_pass)


def at_risk_loops(frontend_text: str) -> list[SourceRange]:
    """The source loops of clang's unoptimised module that are at risk (the module docstring's rule)."""
    return source_loops(frontend_text).risky


class _FunctionCFG:
    """One function body of a module text as blocks of lines, with successors, predecessors and dominators."""

    def __init__(self, body: str):
        self.blocks: list[list[str]] = [[]]
        self.labels: dict[int, str] = {}
        labels: dict[str, int] = {}
        for line in body.splitlines():
            label = _LABEL.match(line)
            if label is not None:
                labels[label.group(1)] = len(self.blocks)
                self.labels[len(self.blocks)] = label.group(1)
                self.blocks.append([])
            elif not line.lstrip().startswith("#dbg_"):         # (debug records, not instructions)
                self.blocks[-1].append(line)
        self.succs = [[labels[s] for line in lines for s in _SUCCESSOR.findall(line) if s in labels]
                      for lines in self.blocks]
        self.preds: list[list[int]] = [[] for _ in self.blocks]
        for u, ss in enumerate(self.succs):
            for v in ss:
                self.preds[v].append(u)
        self.dom = dominator_tree(self.succs, 0)

    def natural_loop(self, latches: list[int]) -> tuple[bytearray, list[int]]:
        """The blocks of the loop closed by the back edges out of `latches` (edges to a block dominating
        the latch), and its headers; unreachable latches close nothing."""
        inside = bytearray(len(self.blocks))
        headers = []
        for latch in latches:
            if self.dom.pre[latch] < 0:
                continue
            for h in self.succs[latch]:
                if not self.dom.dominates(h, latch):
                    continue
                headers.append(h)
                inside[h] = 1
                work = [latch]
                while work:
                    v = work.pop()
                    if not inside[v]:
                        inside[v] = 1
                        work.extend(self.preds[v])
        return inside, headers

    def latches(self) -> dict[int, list[int]]:
        """Each loop header's latches (the blocks whose branch takes one of its back edges)."""
        found: dict[int, list[int]] = {}
        for u, ss in enumerate(self.succs):
            for h in ss:
                if self.dom.pre[u] >= 0 and self.dom.dominates(h, u):
                    found.setdefault(h, []).append(u)
        return found

    def loops(self) -> list[tuple[bytearray, int]]:
        """Every natural loop, one per header: its blocks and its header."""
        return [(self.natural_loop(us)[0], h) for h, us in self.latches().items()]


def _function_at_risk(body: str, ranges: dict[str, SourceRange], scopes: DebugScopes,
                      defined: set[str]) -> tuple[list[SourceRange], list[SourceRange], list[SourceRange]]:
    """A function's at-risk loops, the ranges of its loops written with `goto` (no `!llvm.loop`), and its
    loops that run one pass at most."""
    cfg = _FunctionCFG(body)
    calls: list[tuple[int, Position]] = []
    named: dict[int, set[str]] = {}         # block -> the loop statements its back-edge branch names
    for b, lines in enumerate(cfg.blocks):
        for line in lines:
            call = _CALL.search(line)
            if call is not None and (_CONVERGENT_BUILTIN.match(call.group(1)) or call.group(1) in defined):
                for position in scopes.positions(call.group(2))[:1]:
                    calls.append((b, position))
            branch = _LOOP_BRANCH.match(line)
            if branch is not None and branch.group(1) in ranges:
                named.setdefault(b, set()).add(branch.group(1))
    loops: list[tuple[SourceRange, list[int]]] = []
    for node in sorted({n for nodes in named.values() for n in nodes}, key=int):
        loops.append((ranges[node], [b for b, nodes in named.items() if node in nodes]))
    gotos = []
    for latch_blocks in cfg.latches().values():
        if not any(b in named for b in latch_blocks):
            inside, headers = cfg.natural_loop(latch_blocks)
            span = _span(cfg, inside, headers[0], scopes) if headers else None
            if span is not None:
                gotos.append(span)
                loops.append((span, latch_blocks))
    risky, one_pass = [], []
    values = FunctionValues(cfg.blocks, cfg.labels)
    for span, latch_blocks in loops:
        inside, headers = cfg.natural_loop(latch_blocks)
        if at_most_one_pass(values, cfg.succs, cfg.dom, inside, latch_blocks):
            one_pass.append(span)
            continue                            # LLVM drops its back edge: its one pass merges nothing
        written = [b for b, p in calls if cfg.dom.pre[b] >= 0 and span.holds(p)]
        if not written:
            continue
        if any(inside[b] for b in written):     # -O2 can sink it onto a break path (redteam b01, c03, i02)
            risky.append(span)
            continue
        targets = {b for b in written if any(cfg.dom.dominates(h, b) for h in headers)}
        if targets:
            if not leaves_in_first_pass(values, cfg.succs, cfg.dom, inside, latch_blocks, targets, defined):
                risky.append(span)
    return risky, gotos, one_pass


def _span(cfg: _FunctionCFG, inside: bytearray, header: int, scopes: DebugScopes) -> SourceRange | None:
    """A loop written with `goto` (none of its back edges names a loop statement): the source range from
    the first to the last located code of its blocks (redteam c05, c06), widened to all the code of the
    innermost `{...}` around that code where nothing in it runs before the loop: the scopes rule takes
    such braces for the loop's body (source_scopes), so a call after the loop in them
    (`{ again: ...; goto again; found: t = reduce(x); }`, redteam2 g07, g08) is written in it too. Code
    in more than one file (a `#line` naming another inside the loop) has no order across the files, so the
    range is then, in each file, all the function's code there (SourceRange.more): a call anywhere in the
    function counts as written in the loop (conservative; redteam2 g02). None: no located code."""
    located: list[tuple[int, str]] = []          # (block, location) of the function's located code
    for b, lines in enumerate(cfg.blocks):
        for line in lines:
            ident = _location(line)
            if ident is not None and cfg.dom.pre[b] >= 0:
                located.append((b, ident))
    own = [ident for b, ident in located if inside[b]]
    common: set | None = None
    for ident in own:
        chain = set(scopes.chain(ident))
        common = chain if common is None else common & chain
    body = next((key for key in scopes.chain(own[0]) if key in common), None) if own and common else None
    if body is not None and scopes.is_block(body) and not any(body in scopes.chain(ident) for b, ident in located
                                    if not cfg.dom.dominates(header, b)):
        own = [ident for _, ident in located if body in scopes.chain(ident)]
    found = [p for ident in own for p in scopes.positions(ident)[:1] if p[1]]
    if len({p[0] for p in found}) > 1:
        found = [p for _, ident in located for p in scopes.positions(ident)[:1] if p[1]]
    by_file: dict[str, list[tuple[int, int]]] = {}
    for p in found:
        by_file.setdefault(p[0], []).append(p[1:])
    pieces = [(file, min(ends), max(ends)) for file, ends in by_file.items()]
    return SourceRange(*pieces[0], goto=True, more=tuple(pieces[1:])) if pieces else None


def removed_loops(frontend_text: str, optimized_text: str,
                  loops: SourceLoops | None = None) -> tuple[SourceRange, ...]:
    """The at-risk loops of clang's unoptimised module (`loops`, where already read) that the optimised
    one lost around one of their calls: each convergent call of the optimised module written in such a
    loop must lie in, or below the header of, a loop of its own function that is that source loop. A loop is
    it by its `!llvm.loop`, or (where SimplifyCFG dropped that, as from `waterfall_store`'s `for (;;)`) by
    its located code: all of it written in the source loop's range, some of it outside every loop written
    inside that one (an inner loop on the break path is not its outer loop: redteam g01, d08). Per call,
    not per module: a helper inlined twice can lose one copy of its loop and keep the other (redteam a01,
    h05)."""
    if loops is None:
        loops = source_loops(frontend_text)
    risky = loops.risky
    if not risky:
        return ()
    nested = {r: [q for q in loops.every if q != r and _inside_or_across(q, r)] for r in risky}
    scopes = DebugScopes.of_text(optimized_text)
    named = scopes.loop_ranges()
    defined = {m.group(1) for m in _FUNCTION.finditer(optimized_text)}
    missing: set[SourceRange] = set()
    for m in _FUNCTION.finditer(optimized_text):
        cfg = _FunctionCFG(m.group(2))
        calls = []
        for b, lines in enumerate(cfg.blocks):
            for line in lines:
                call = _CALL.search(line)
                if call is not None and (_CONVERGENT_BUILTIN.match(call.group(1)) or call.group(1) in defined):
                    calls.append((b, scopes.positions(call.group(2))))
        if not calls:
            continue
        found = [_OptimizedLoop(cfg, inside, header, scopes, named) for inside, header in cfg.loops()]
        for r in risky:
            headers = [loop.header for loop in found if loop.is_source_loop(r, nested[r])]
            if any(any(r.holds(p) for p in chain) and not any(cfg.dom.dominates(h, b) for h in headers)
                   for b, chain in calls):
                missing.add(r)
    return tuple(r for r in dict.fromkeys(risky) if r in missing)


def _inside_or_across(q: SourceRange, r: SourceRange) -> bool:
    """Whether source loop q lies inside r, or (r written with goto, whose span is no statement's and can
    cross another's) overlaps r without holding it: two goto loops' spans can interleave, and a kept one's
    back edge in the other's span is not that one's (redteam2 g01). Per file, where either has code in more
    than one."""
    for file, start, end in r.pieces():
        for q_file, q_start, q_end in q.pieces():
            if q_file != file:
                continue
            if start <= q_start and q_end <= end:
                return True
            if r.goto and q_start <= end and start <= q_end and not (q_start <= start and end <= q_end):
                return True
    return False


def _location(line: str) -> str | None:
    """The location node of an instruction's line, where it says where code was written (not a phi's)."""
    if _PHI_LINE.match(line):
        return None
    found = DBG_ATTACHMENT.search(line)
    return found.group(1) if found is not None else None


class _OptimizedLoop:
    """A natural loop of the optimised module: its header, the source ranges its latches' `!llvm.loop`
    name, and the positions of its located code."""

    def __init__(self, cfg: _FunctionCFG, inside: bytearray, header: int, scopes: DebugScopes,
                 named: dict[str, SourceRange]):
        self.header = header
        self.named: set[SourceRange] = set()
        self.chains: list[list[Position]] = []
        self.back_edges: list[list[Position]] = []      # the positions of the branches taking a back edge
        for b, lines in enumerate(cfg.blocks):
            if not inside[b]:
                continue
            latch = self.header in cfg.succs[b]
            for line in lines:
                node = LOOP_ATTACHMENT.search(line)
                if node is not None and node.group(1) in named and latch:
                    self.named.add(named[node.group(1)])
                ident = _location(line)
                chain = scopes.positions(ident) if ident is not None else []
                if chain and chain[0][1]:           # line 0: a location LLVM dropped
                    self.chains.append(chain)
                    if latch and _BRANCH_LINE.match(line):
                        self.back_edges.append(chain)

    def is_source_loop(self, r: SourceRange, nested: list[SourceRange]) -> bool:
        """Whether this loop is source loop `r`: named so, or all its code written in `r` and some of it in no
        loop inside `r`, or (merged with a loop around it: lowering.frontend.loop_separation splits them)
        a branch taking one of its back edges written in `r` and in no loop inside it."""
        def own(c: list[Position]) -> bool:
            return any(r.holds(p) and not any(q.holds_line(p) for q in nested) for p in c)

        if r in self.named or any(own(c) for c in self.back_edges):
            return True
        return bool(self.chains) and all(any(r.holds(p) for p in c) for c in self.chains) and \
            any(own(c) for c in self.chains)


def refuse_calls_in_removed_loops(func: Function, notes: ScopeNotes) -> None:
    """A one-line refusal of a kernel with a convergent operation written in a loop the optimiser removed
    (`notes.scopes.removed_loops`, found by pipeline.load_module)."""
    removed = notes.scopes.removed_loops
    if not removed:
        return
    for ins, ident in notes.calls.items():
        for loop in removed:
            if any(loop.holds(p) for p in notes.scopes.positions(ident)):
                raise RemovedLoop(f"{where(func, ins)}: its -g scope puts it in the loop at {loop}, which the "
                                   "optimiser removed, so lanes of "
                                   "different iterations could meet here (not supported; compile with -O0 or "
                                   "--convergence=cfg)")
