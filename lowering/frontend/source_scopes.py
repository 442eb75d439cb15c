"""Which source loop a convergent operation was written in, read from `-g`'s lexical scopes.

Why: which lanes meet at a sub-group operation or a barrier is decided by the loop it was written in,
and the CFG can lose that. A `break` path is outside LLVM's natural loop (it cannot reach the back edge),
so the waterfall loop's reduction, written before its `break`, sits in a block after the loop at -O0 as
at -O2, where no rule on the CFG alone can tell it from a reduction written after the loop (seed 001).
Compiled with `-g`, every instruction keeps its source location through -O2: a DILocation whose scope
chain (DILexicalBlock -> ... -> DISubprogram, then `inlinedAt`, the call site, for an inlined copy) says
which `{...}` blocks and statements it was written in.

The rule. For each loop L of the CFG (a natural loop), the scopes L *touches* are the lexical blocks that
hold, at any depth, a located instruction of L's blocks (line 0, a location LLVM dropped when it moved
the instruction, does not count, nor does a phi's, which names its variable's declaration), and LCA(L)
is the innermost scope holding all of them. A convergent operation C in a block after L (dominated by L's
header, outside L) was written in L when a lexical
block on C's scope chain is touched by L and either lies below LCA(L) (a statement inside the loop that
also has code in it: the waterfall's `if`) or is LCA(L) itself and holds no located instruction that
runs before L (in a block L's header does not dominate): a loop body's `{...}` has none, while the scope
a `while` or `do` is written in holds the loop's condition (so it is touched) and, before the loop, the
branch into it. Scopes above LCA(L) are never the loop's: a `for` statement's own scopes hold its
`init`, and the block a loop is written in holds the code after it.

Limits: a body without braces (`while (c) x += reduce(y);`) has no scope of its own, so a call in it
that the CFG puts after the loop is taken as written after the loop; so is a loop whose body LLVM
peeled or duplicated before it with its locations (the body then holds code before the loop).
"""
from __future__ import annotations

import os
import re

from reconverge.lazy_regex import lazy_compile
from reconverge.lowering.errors import NotSupported, where
from reconverge.lowering.graph import IrreducibleError, LoopForest, dominator_tree, loop_forest
from reconverge.lowering.ir.core import Block, Function, Instr, Phi
from reconverge.lowering.ir.opcodes import OPCODES
from reconverge.records import field, record

# the operations whose meeting a scope decides (not the token-making `convergence` itself)
CONVERGENT = frozenset(name for name, op in OPCODES.items() if op.has("convergent") and name != "convergence")
DBG_ATTACHMENT = lazy_compile(r"!dbg !(\d+)")      # an instruction's location node
LOOP_ATTACHMENT = lazy_compile(r"!llvm\.loop !(\d+)")
_FIELD = lazy_compile(r"\b(line|column|scope|inlinedAt): (!?\d+)")
_DI_NODE = lazy_compile(r"^!(\d+) = (?:distinct )?(!DI\w+\(.*\))$", re.M)
_LOOP_NODE = lazy_compile(r"^!(\d+) = distinct !\{!\1, !(\d+), !(\d+)", re.M)

ScopeKey = tuple[str, str]      # (scope node, inlinedAt node or ""): one scope of one inlined copy
Position = tuple[str, int, int]         # (file, line, column)


def debug_nodes(module_text: str) -> dict[str, str]:
    """A module text's debug-info metadata nodes, by number ('12' -> '!DILocation(...)')."""
    return {m.group(1): m.group(2) for m in _DI_NODE.finditer(module_text)}


def loop_nodes(module_text: str) -> dict[str, tuple[str, str]]:
    """Each `!llvm.loop` node's first two locations (clang's CGLoopInfo: its loop statement's start and end)."""
    return {m.group(1): (m.group(2), m.group(3)) for m in _LOOP_NODE.finditer(module_text)}


def difile_path(node: str, source_name: str = "") -> str | None:
    """A DIFile's path: its filename, joined to its directory when relative (clang writes a file under
    the directory it ran in, or beside it, relative to a common parent); the input's own name as the user
    gave it when the two are the same file."""
    name = re.search(r'\bfilename: "((?:[^"\\]|\\.)*)"', node)
    if name is None:
        return None
    path = name.group(1)
    directory = re.search(r'\bdirectory: "((?:[^"\\]|\\.)*)"', node)
    if directory and directory.group(1) and not os.path.isabs(path):
        path = os.path.join(directory.group(1), path)
    if source_name and os.path.isabs(path) and os.path.abspath(source_name) == os.path.normpath(path):
        return source_name
    return path


@record(frozen=True)
class Location:
    line: int
    scope: str
    inlined_at: str
    column: int = 0


@record(frozen=True)
class SourceRange:
    """A loop statement's source text: its file and first and last (line, column); `goto`: a loop written
    with goto, from its first to its last located code (lowering.frontend.removed_loops); `more`: the
    (file, first, last) of its code in other files, for a goto loop with a `#line` inside."""
    file: str
    start: tuple[int, int]
    end: tuple[int, int]
    goto: bool = False
    more: tuple = ()

    def pieces(self) -> tuple:
        """Each file's (file, first, last) of the range."""
        return ((self.file, self.start, self.end), *self.more)

    def holds(self, position: Position) -> bool:
        if position[0] == self.file and self.start <= position[1:] <= self.end:
            return True
        return any(position[0] == file and start <= position[1:] <= end for file, start, end in self.more)

    def holds_line(self, position: Position) -> bool:
        """holds, where a location without a column (0: LLVM's merged one) counts anywhere on its line."""
        if position[2]:
            return self.holds(position)
        return any(position[0] == file and start[0] <= position[1] <= end[0] for file, start, end in self.pieces())

    def __str__(self) -> str:
        where = f"{self.file.rsplit('/', 1)[-1]}:{self.start[0]}"
        if self.more:               # (a statement loop's range across files is read as its code's too)
            return f"{where} (its code in {len(self.more) + 1} files, by #line)"
        return where + (" (written with goto)" if self.goto else "")


class DebugScopes:
    """The module's debug-info nodes (number -> `!DI...(...)` text, parsed once by the reader), read as
    locations, scope chains and source positions when asked for."""

    def __init__(self, nodes: dict[str, str], removed_loops: tuple = (), loops: dict | None = None,
                 unoptimized_loops: tuple = ()):
        self._nodes = nodes
        # the source loops around a convergent call that the optimiser removed (lowering.frontend.removed_loops)
        self.removed_loops = removed_loops
        # every loop statement of clang's unoptimised module, where it was read (above -O0 with -g and a
        # convergent call: pipeline._keep_source_loops); the optimiser drops some `!llvm.loop` nodes
        self.unoptimized_loops = unoptimized_loops
        self._statements: tuple[SourceRange, ...] | None = None
        # each `!llvm.loop` node's first two locations (loop_nodes)
        self.loop_nodes: dict[str, tuple[str, str]] = loops or {}
        self._files: dict[str, str] = {}
        self._locations: dict[str, Location | None] = {}
        self._chains: dict[str, tuple[ScopeKey, ...]] = {}
        self._full: bool | None = None

    @classmethod
    def of_text(cls, module_text: str) -> "DebugScopes":
        return cls(debug_nodes(module_text), (), loop_nodes(module_text))

    @property
    def has_scopes(self) -> bool:
        """Whether clang wrote lexical scopes at all: `-g`'s FullDebug does, `-gline-tables-only` does not."""
        if self._full is None:
            self._full = any(n.startswith("!DICompileUnit(") and "emissionKind: FullDebug" in n
                             for n in self._nodes.values())
        return self._full

    def location(self, ident: str) -> Location | None:
        if ident not in self._locations:
            node = self._nodes.get(ident, "")
            fields = dict(_FIELD.findall(node)) if node.startswith("!DILocation(") else {}
            self._locations[ident] = Location(int(fields.get("line", "0")), fields["scope"].lstrip("!"),
                                              fields.get("inlinedAt", "").lstrip("!"), int(fields.get("column", "0"))
                                              ) if "scope" in fields else None
        return self._locations[ident]

    def positions(self, ident: str) -> list[Position]:
        """Location `ident`'s (file, line, column), then its inlined copy's call sites' outward."""
        found: list[Position] = []
        for _ in range(64):                         # inlining depth is small; a cycle stops here
            loc = self.location(ident)
            if loc is None:
                break
            found.append((self.file_of(loc.scope), loc.line, loc.column))
            ident = loc.inlined_at
            if not ident:
                break
        return found

    def file_node(self, scope: str) -> str | None:
        """The DIFile node a scope (lexical block, subprogram) was written in."""
        node = self._nodes.get(scope, "")
        for _ in range(64):                      # scope chains are short; a cycle stops here
            if node.startswith("!DIFile("):
                return node
            ref = re.search(r"\bfile: !(\d+)", node) or re.search(r"\bscope: !(\d+)", node)
            if ref is None:
                return None
            node = self._nodes.get(ref.group(1), "")
        return None

    def file_of(self, scope: str) -> str:
        """The path of the file a scope was written in ("" where none is named)."""
        hit = self._files.get(scope)
        if hit is None:
            node = self.file_node(scope)
            hit = self._files[scope] = (difile_path(node) if node is not None else None) or ""
        return hit

    def loop_range(self, node: str) -> SourceRange | None:
        """The source range an `!llvm.loop` node names (None: not one of clang's, or no locations)."""
        ends = self.loop_nodes.get(node)
        if ends is None:
            return None
        first, last = (self.positions(e)[:1] for e in ends)
        if not first or not last or first[0][0] != last[0][0]:
            return None
        return SourceRange(first[0][0], first[0][1:], last[0][1:])

    def loop_ranges(self) -> dict[str, SourceRange]:
        """Every `!llvm.loop` node of the module that names its loop's source range, by node number."""
        ranges = {}
        for node in self.loop_nodes:
            found = self.loop_range(node)
            if found is not None:
                ranges[node] = found
        return ranges

    def loop_statements(self) -> tuple[SourceRange, ...]:
        """The source range of every loop statement known: the module's own `!llvm.loop` nodes and those
        of clang's unoptimised module, where read."""
        if self._statements is None:
            self._statements = tuple(dict.fromkeys((*self.loop_ranges().values(), *self.unoptimized_loops)))
        return self._statements

    def is_block(self, key: ScopeKey) -> bool:
        """A lexical block (`{...}`, a for or if statement's scope), not a function or a file switch."""
        return self._nodes.get(key[0], "").startswith("!DILexicalBlock(")

    def chain(self, ident: str) -> tuple[ScopeKey, ...]:
        """The scopes around location `ident`, innermost first, continuing through the call sites of the
        inlined copies it belongs to; empty for an unknown node."""
        hit = self._chains.get(ident)
        if hit is None:
            hit = self._chains[ident] = self._chain(ident, 0)
        return hit

    def _chain(self, ident: str, depth: int) -> tuple[ScopeKey, ...]:
        loc = self.location(ident)
        if loc is None or depth > 64:
            return ()
        keys: list[ScopeKey] = []
        scope = loc.scope
        for _ in range(256):                      # scope chains are short; a cycle stops here
            keys.append((scope, loc.inlined_at))
            m = re.search(r"\bscope: !(\d+)", self._nodes.get(scope, ""))
            if m is None or self._nodes.get(scope, "").startswith("!DISubprogram("):
                break
            scope = m.group(1)
        return tuple(keys) + (self.chain(loc.inlined_at) if loc.inlined_at else ())


@record
class ScopeNotes:
    """What the reader saw of one function's debug locations: each block's located instructions and
    each convergent operation's location (every IR instruction an LLVM call became)."""
    scopes: DebugScopes
    blocks: dict[Block, list[str]] = field(default_factory=dict)
    calls: dict[Instr, str] = field(default_factory=dict)
    unlocated_calls: int = 0
    latches: dict[Block, str] = field(default_factory=dict)    # block -> its branch's `!llvm.loop` node

    def note(self, block: Block, text: str, created: list[Instr]) -> None:
        if "!llvm.loop" in text:
            loop = LOOP_ATTACHMENT.search(text)
            if loop is not None:
                self.latches[block] = loop.group(1)
        m = DBG_ATTACHMENT.search(text)
        ident = m.group(1) if m else None
        # a phi's location (LLVM's mem2reg gives it the variable's declaration) says nothing of where the
        # block's code was written: a loop header's phi of a variable declared at the top of the function
        # made the loop's innermost common scope the function's, so every scope the loop touched looked
        # like its own (fuzz convergence-1010 at -O0 for Gen blockIP)
        if ident is not None and not any(isinstance(ins, Phi) for ins in created):
            loc = self.scopes.location(ident)
            if loc is not None and loc.line:
                self.blocks.setdefault(block, []).append(ident)
        for ins in created:
            if ins.opcode in CONVERGENT:
                if ident is None:
                    self.unlocated_calls += 1
                else:
                    self.calls[ins] = ident

    @property
    def complete(self) -> bool:
        """Every convergent operation has a location and the module has lexical scopes (compiled with -g)."""
        return self.unlocated_calls == 0 and self.scopes.has_scopes


def loop_homes(func: Function, notes: ScopeNotes) -> dict[Instr, Block]:
    """For each convergent operation that the CFG places after a loop it was written in, the header of
    the innermost such loop (the module docstring's rule). CFG form; an irreducible CFG gives none (the
    structurizer refuses it). Cost: each block's scopes are gathered once, each loop's from its blocks'
    (times the nesting depth), and an operation is weighed only against the loops touching its scopes."""
    blocks = func.blocks
    if not notes.calls or not blocks:
        return {}
    index = {b: i for i, b in enumerate(blocks)}
    succs = [[index[s] for s in b.succs] for b in blocks]
    dom = dominator_tree(succs, 0)
    try:
        forest = loop_forest(succs, 0, dom)
    except IrreducibleError:
        return {}
    if not forest.headers:
        return {}
    located = [_BlockScopes(notes, notes.blocks.get(b, ())) for b in blocks]
    holding: dict[ScopeKey, list[int]] = {}       # scope -> the blocks with located code in it
    for v, block in enumerate(located):
        for key in block.keys:
            holding.setdefault(key, []).append(v)
    members: dict[int, list[int]] = {h: [] for h in forest.headers}
    for v in range(len(blocks)):
        h = forest.header_of[v]
        while h != -1:
            members[h].append(v)
            h = forest.parent[h]
    loops: dict[int, _LoopScopes] = {}
    touching: dict[ScopeKey, set[int]] = {}       # lexical block -> the loops touching it
    for h, vs in members.items():
        loop = loops[h] = _LoopScopes(notes.scopes, [located[v] for v in vs])
        loop.lca_before = loop.lca is not None and any(dom.pre[v] >= 0 and not dom.dominates(h, v)
                                                       for v in holding[loop.lca])
        for key in loop.touched:
            if notes.scopes.is_block(key):
                touching.setdefault(key, set()).add(h)
    ranges = _LoopRanges(notes, blocks, succs, members)
    homes: dict[Instr, Block] = {}
    for ins, ident in notes.calls.items():
        b = index.get(ins.block) if ins.block is not None else None
        if b is None:
            continue
        chain = notes.scopes.chain(ident)
        candidates = {h for key in chain for h in touching.get(key, ())}
        written_in = [h for h in candidates if h != b and not forest.contains(h, b) and loops[h].holds(chain)
                      and ranges.written_in(h, ident)]
        for h in written_in:
            if not dom.dominates(h, b) and dom.pre[b] >= 0 and _left_from(succs, forest, members[h], h, b):
                raise NotSupported(f"{where(func, ins)}: its -g scope puts it in the loop at block "
                                   f"{blocks[h].label or f'b{h}'}, but -O2 also reaches it from before the loop (a "
                                   f"copy of the loop's first test), so lanes of different iterations could meet "
                                   f"(not supported; compile with -O0 or --convergence=cfg)")
        held = [h for h in written_in if dom.dominates(h, b)]
        held = [h for h in held if _anchorable(func, ins, blocks, forest, loops, b, h, chain)]
        if held:
            # the innermost loop; among copies of one source loop (-O2 unrolled a loop around it, and each
            # copy's operation follows every earlier copy), the nearest: all dominate b, so the deepest in
            # the dominator tree (fuzz convergence-12140: the first copy took every copy's operation)
            homes[ins] = blocks[max(held, key=lambda h: (forest.depth(h), dom.pre[h]))]
    return homes


class _LoopRanges:
    """The source range of each CFG loop whose back edge's branch still has its `!llvm.loop` (clang's
    loop statement start and end): an operation outside a loop's range was not written in it, whatever
    the lexical blocks say. Unrotated at -O2 (removed_loops' recompile), a `do` written first in a
    `while` body holds the body's scope (its condition) with nothing before it, so the scopes rule alone
    took the reduction after it for the do's (test_loop_separation's plain_nest).

    A loop written with goto has no `!llvm.loop`: its range is the span removed_loops took in clang's
    module before its passes (`unoptimized_loops`, above -O0), found by a latch's last located code. The
    lexical rule alone decided from the code in the loop's braces that runs before it, which -O2 hoists
    out of the loop without a location (fuzz convergence-36562: a goto loop's initialisation hoisted, so
    the reduction after the loop in its braces was taken for the loop's, where -O0 met every lane)."""

    def __init__(self, notes: ScopeNotes, blocks: list[Block], succs: list[list[int]], members: dict[int, list[int]]):
        self.scopes = notes.scopes
        self.ranges: dict[int, list[SourceRange]] = {}
        gotos = [r for r in self.scopes.unoptimized_loops if r.goto]
        for h, vs in members.items() if notes.latches or gotos else ():
            for v in vs:
                node = notes.latches.get(blocks[v])
                found = self.scopes.loop_range(node) if node is not None and h in succs[v] else None
                if found is not None:
                    self.ranges.setdefault(h, []).append(found)
            if h not in self.ranges and gotos:
                ends = [p for v in vs if h in succs[v] for ident in notes.blocks.get(blocks[v], ())[-1:]
                        for p in self.scopes.positions(ident)]
                spans = [r for r in gotos if any(r.holds(p) for p in ends)]
                if spans:
                    self.ranges[h] = spans

    def written_in(self, h: int, ident: str) -> bool:
        """Whether an operation at location `ident` may have been written in loop h (True: h's range unknown)."""
        ranges = self.ranges.get(h)
        if not ranges:
            return True
        positions = self.scopes.positions(ident)
        return any(r.holds(p) for r in ranges for p in positions)


def _left_from(succs: list[list[int]], forest: LoopForest, inside: list[int], h: int, b: int) -> bool:
    """Whether block b is reached from an exit of loop h (blocks `inside`) without coming back to h's header
    or to the header of a loop around it (an outer loop's next pass)."""
    stop = {h}
    x = forest.parent[h]
    while x != -1:
        stop.add(x)
        x = forest.parent[x]
    members = set(inside)
    work = [v for u in inside for v in succs[u] if v not in members and v not in stop]
    seen = set(work)
    while work:
        v = work.pop()
        if v == b:
            return True
        for w in succs[v]:
            if w not in seen and w not in stop:
                seen.add(w)
                work.append(w)
    return False


def _anchorable(func: Function, ins: Instr, blocks: list[Block], forest: LoopForest, loops: dict[int, _LoopScopes],
                b: int, h: int, chain: tuple[ScopeKey, ...]) -> bool:
    """Whether an anchor in loop `h` may control the operation in block `b` (outside `h`). A loop around
    `b` that does not hold `h` would break LangRef's cycle rule: -O2 unrolled an outer source loop, so `h` and
    the loop around `b` are copies of the one source loop the operation was written in (both touch its
    scopes); the operation already runs in its own copy (False: no anchor from `h`). Where no loop around `b`
    was written around the operation, the CFG has lost the loop it was written in: a one-line refusal."""
    m = forest.header_of[b]
    if m == -1 or forest.contains(m, h):
        return True
    around = []
    while m != -1 and not forest.contains(m, h):
        around.append(m)
        m = forest.parent[m]
    if any(loops[m].holds(chain) for m in around):
        return False
    raise NotSupported(f"{where(func, ins)}: its -g scope puts it in the loop at block {blocks[h].label or f'b{h}'}, "
                       f"but -O2 moved it into another loop (at block {blocks[around[0]].label or f'b{around[0]}'}) "
                       f"(not supported; compile with -O0 or --convergence=cfg)")


class _BlockScopes:
    """One block's located instructions as scopes: every scope around them, and the innermost one around
    all of them (its chain, outermost first; None for a block with no located instruction)."""

    def __init__(self, notes: ScopeNotes, idents):
        self.keys: set[ScopeKey] = set()
        self.common: tuple[ScopeKey, ...] | None = None
        for ident in idents:
            chain = notes.scopes.chain(ident)
            self.keys.update(chain)
            self.common = _common(self.common, chain[::-1])


def _common(a: tuple[ScopeKey, ...] | None, b: tuple[ScopeKey, ...] | None) -> tuple[ScopeKey, ...] | None:
    """The longest common prefix of two outermost-first chains (None: no chain yet)."""
    if a is None or b is None:
        return b if a is None else a
    n = 0
    while n < min(len(a), len(b)) and a[n] == b[n]:
        n += 1
    return a[:n]


class _LoopScopes:
    """The scopes one CFG loop touches, their innermost common one, and whether that one has code before
    the loop."""

    def __init__(self, scopes: DebugScopes, inside: list[_BlockScopes]):
        self.is_block = scopes.is_block
        self.touched: set[ScopeKey] = set()
        common: tuple[ScopeKey, ...] | None = None
        for block in inside:
            self.touched |= block.keys
            common = _common(common, block.common)
        self.trunk = set(common or ())
        self.lca = common[-1] if common else None
        self.lca_before = False       # whether located code in the LCA runs before the loop (set by loop_homes)

    def holds(self, chain: tuple[ScopeKey, ...]) -> bool:
        """Whether an operation with this scope chain was written inside the loop."""
        for key in chain:
            if key not in self.touched or not self.is_block(key):
                continue
            if key not in self.trunk or (key == self.lca and not self.lca_before):
                return True
        return False
