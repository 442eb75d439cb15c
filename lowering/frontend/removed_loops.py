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
thus names every loop of the source with its source range. A loop is *at risk* when a call written inside
its range (a sub-group or work-group built-in, a barrier, or a function defined in the module, which may
hold one) lies outside its natural loop and below its header: written in the loop, reached by its break
path. An at-risk loop whose start no `!llvm.loop` of the optimised module names was removed. A loop
whose every exit towards such a call is tested in every pass on a loop-invariant value is not at risk:
its lanes all leave in the first pass (lowering.frontend.first_pass_exits).

A loop whose back edge LLVM proved never taken (`for (i = 0; i < 1; i++) x += reduce(y);`) disappears
too, but its operations lie inside its natural loop, so it is never at risk and nothing changes: every
lane runs its one iteration. A `do { } while (0)` or a `while (1) { ...; break; }` has no back edge at all
in clang's code, so no `!llvm.loop` and no loop to lose.
"""
from __future__ import annotations

import re

from reconverge.lazy_regex import lazy_compile
from reconverge.lowering.errors import RemovedLoop, where
from reconverge.lowering.frontend.first_pass_exits import FunctionValues, leaves_in_first_pass
from reconverge.lowering.graph import dominator_tree
from reconverge.records import record

TYPE_CHECKING = False                   # (not typing's: a compile's start-up does not import typing)
if TYPE_CHECKING:
    from reconverge.lowering.frontend.source_scopes import ScopeNotes
    from reconverge.lowering.ir.core import Function

_DI_NODE = lazy_compile(r"^!(\d+) = (?:distinct )?(!DI\w+\(.*\))$", re.M)
_LOOP_NODE = lazy_compile(r"^!(\d+) = distinct !\{!\1, !(\d+), !(\d+)", re.M)
_FIELD = lazy_compile(r"\b(line|column|scope|inlinedAt|file|filename|directory): (!?\d+|\"[^\"]*\")")
_FUNCTION = lazy_compile(r"^define [^\n]*?@(\"[^\"]*\"|[-\w.$]+)\([^\n]*\{\n(.*?)^\}", re.M | re.S)
_LABEL = lazy_compile(r"^(\"[^\"]*\"|[-\w.$]+):")
_SUCCESSOR = lazy_compile(r"\blabel %(\"[^\"]*\"|[-\w.$]+)")
_LOOP_BRANCH = lazy_compile(r"^\s*br [^\n]*!llvm\.loop !(\d+)")
_CALL = lazy_compile(r"\bcall [^\n]*?@(\"[^\"]*\"|[-\w.$]+)\([^\n]*!dbg !(\d+)")
_CONVERGENT_BUILTIN = lazy_compile(r"_Z\w*(?:sub_group|work_group|barrier)")
_LOOP_USE = lazy_compile(r"!llvm\.loop !(\d+)")
_DBG = lazy_compile(r"!dbg !(\d+)")

Position = tuple[str, int, int]         # (file, line, column)


@record(frozen=True)
class SourceRange:
    """A loop statement's source text: its file and first and last (line, column)."""
    file: str
    start: tuple[int, int]
    end: tuple[int, int]

    def holds(self, position: Position) -> bool:
        return position[0] == self.file and self.start <= position[1:] <= self.end

    def __str__(self) -> str:
        return f"{self.file.rsplit('/', 1)[-1]}:{self.start[0]}"


class DebugNodes:
    """A module text's debug-info nodes read as positions: a location's (file, line, column), and a
    location's chain of positions through the call sites of its inlined copies."""

    def __init__(self, nodes: dict[str, str]):
        self.nodes = nodes
        self._files: dict[str, str] = {}

    @classmethod
    def of_text(cls, text: str) -> "DebugNodes":
        return cls({m.group(1): m.group(2) for m in _DI_NODE.finditer(text)})

    def fields(self, ident: str) -> dict[str, str]:
        return dict(_FIELD.findall(self.nodes.get(ident, "")))

    def position(self, ident: str) -> Position | None:
        f = self.fields(ident)
        if "line" not in f or "scope" not in f:
            return None
        return self.file_of(f["scope"].lstrip("!")), int(f["line"]), int(f.get("column", "0"))

    def positions(self, ident: str) -> list[Position]:
        """Location `ident`'s position, then its inlined copy's call sites' outward."""
        found: list[Position] = []
        for _ in range(64):                         # inlining depth is small; a cycle stops here
            here = self.position(ident)
            if here is None:
                break
            found.append(here)
            ident = self.fields(ident).get("inlinedAt", "").lstrip("!")
            if not ident:
                break
        return found

    def file_of(self, scope: str) -> str:
        """The file a scope (lexical block, subprogram) was written in (its DIFile's filename, under its
        directory when relative)."""
        hit = self._files.get(scope)
        if hit is None:
            node, hit = scope, ""
            for _ in range(64):
                f = self.fields(node)
                if self.nodes.get(node, "").startswith("!DIFile("):
                    name, directory = (f.get(k, "").strip('"') for k in ("filename", "directory"))
                    hit = name if name.startswith("/") or not directory else f"{directory}/{name}"
                    break
                node = (f.get("file") or f.get("scope") or "").lstrip("!")
                if not node:
                    break
            self._files[scope] = hit
        return hit

    def loop_range(self, start: str, end: str) -> SourceRange | None:
        first, last = self.position(start), self.position(end)
        if first is None or last is None or first[0] != last[0]:
            return None
        return SourceRange(first[0], first[1:], last[1:])


def loop_ranges(text: str, debug: DebugNodes) -> dict[str, SourceRange]:
    """Every `!llvm.loop` node of a module text that names its loop's source range, by node number."""
    ranges = {}
    for m in _LOOP_NODE.finditer(text):
        found = debug.loop_range(m.group(2), m.group(3))
        if found is not None:
            ranges[m.group(1)] = found
    return ranges


def at_risk_loops(frontend_text: str) -> list[SourceRange]:
    """The source loops of clang's unoptimised module that hold, in their range, a call outside their
    natural loop and below their header (the module docstring's rule)."""
    debug = DebugNodes.of_text(frontend_text)
    ranges = loop_ranges(frontend_text, debug)
    if not ranges:
        return []
    defined = {m.group(1) for m in _FUNCTION.finditer(frontend_text)}
    risky: list[SourceRange] = []
    for m in _FUNCTION.finditer(frontend_text):
        risky.extend(_function_at_risk(m.group(2), ranges, debug, defined))
    return risky


class _FunctionCFG:
    """One function body of a module text as blocks of lines, with successors, predecessors and dominators."""

    def __init__(self, body: str):
        self.blocks: list[list[str]] = [[]]
        labels: dict[str, int] = {}
        for line in body.splitlines():
            label = _LABEL.match(line)
            if label is not None:
                labels[label.group(1)] = len(self.blocks)
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

    def loops(self) -> list[bytearray]:
        """Every natural loop, one per header."""
        latches: dict[int, list[int]] = {}
        for u, ss in enumerate(self.succs):
            for h in ss:
                if self.dom.pre[u] >= 0 and self.dom.dominates(h, u):
                    latches.setdefault(h, []).append(u)
        return [self.natural_loop(us)[0] for us in latches.values()]


def _function_at_risk(body: str, ranges: dict[str, SourceRange], debug: DebugNodes,
                      defined: set[str]) -> list[SourceRange]:
    cfg = _FunctionCFG(body)
    dom = cfg.dom
    calls: list[tuple[int, Position]] = []
    latches: dict[str, list[int]] = {}
    for b, lines in enumerate(cfg.blocks):
        for line in lines:
            call = _CALL.search(line)
            if call is not None and (_CONVERGENT_BUILTIN.match(call.group(1)) or call.group(1) in defined):
                position = debug.position(call.group(2))
                if position is not None:
                    calls.append((b, position))
            branch = _LOOP_BRANCH.match(line)
            if branch is not None and branch.group(1) in ranges:
                latches.setdefault(branch.group(1), []).append(b)
    risky = []
    values: FunctionValues | None = None
    for node, latch_blocks in latches.items():
        span = ranges[node]
        inside, headers = cfg.natural_loop(latch_blocks)
        targets = {b for b, p in calls if not inside[b] and dom.pre[b] >= 0 and span.holds(p)
                   and any(dom.dominates(h, b) for h in headers)}
        if targets:
            values = values or FunctionValues(cfg.blocks)
            if not all(leaves_in_first_pass(values, cfg.succs, dom, inside, latch_blocks, b, defined) for b in targets):
                risky.append(span)
    return risky


def _loops_written_in(text: str, debug: DebugNodes, ranges: list[SourceRange]) -> set[SourceRange]:
    """The ranges of `ranges` that some natural loop of the module has all its located code in: a loop
    LLVM kept but whose `!llvm.loop` it dropped (SimplifyCFG folding a `for (;;)`'s latch into its one
    block). An outer loop around a removed one also holds code of its own, outside the range."""
    found: set[SourceRange] = set()
    for m in _FUNCTION.finditer(text):
        cfg = _FunctionCFG(m.group(2))
        for inside in cfg.loops():
            chains = [debug.positions(d.group(1)) for b, lines in enumerate(cfg.blocks) if inside[b]
                      for line in lines for d in [_DBG.search(line)] if d is not None]
            chains = [c for c in chains if c and c[0][1]]          # line 0: a location LLVM dropped
            if chains:
                found.update(r for r in ranges if all(any(r.holds(p) for p in c) for c in chains))
    return found


def removed_loops(frontend_text: str, optimized_text: str,
                  risky: list[SourceRange] | None = None) -> tuple[SourceRange, ...]:
    """The at-risk loops of clang's unoptimised module (`risky`, where already found) that the optimised
    one no longer has."""
    if risky is None:
        risky = at_risk_loops(frontend_text)
    if not risky:
        return ()
    debug = DebugNodes.of_text(optimized_text)
    used = set(_LOOP_USE.findall(optimized_text))
    kept = {(r.file, r.start) for node, r in loop_ranges(optimized_text, debug).items() if node in used}
    missing = [r for r in dict.fromkeys(risky) if (r.file, r.start) not in kept]
    if missing:
        kept_unnamed = _loops_written_in(optimized_text, debug, missing)
        missing = [r for r in missing if r not in kept_unnamed]
    return tuple(missing)


def refuse_calls_in_removed_loops(func: Function, notes: ScopeNotes) -> None:
    """A one-line refusal of a kernel with a convergent operation written in a loop the optimiser removed
    (`notes.scopes.removed_loops`, found by pipeline.load_module)."""
    removed = notes.scopes.removed_loops
    if not removed:
        return
    debug = DebugNodes(notes.scopes.nodes)
    for ins, ident in notes.calls.items():
        for loop in removed:
            if any(loop.holds(p) for p in debug.positions(ident)):
                raise RemovedLoop(f"{where(func, ins)}: its -g scope puts it in the loop at {loop}, which the "
                                   "optimiser removed, so lanes of "
                                   "different iterations could meet here (not supported; compile with -O0 or "
                                   "--convergence=cfg)")
