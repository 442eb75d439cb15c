"""Irreducible cycles -> natural loops, through a guard block that every entry edge goes to (CFG form;
the structurizer calls it where its loop forest finds the CFG irreducible).

Why: the structurizer builds its tree from the natural-loop forest, which an irreducible CFG (a cycle
entered at two or more blocks: a `goto` into a loop, state machines) does not have. Gen's blockIP runs
any CFG, but SPIR-V's structured control flow and our tree need one header per loop.

How (the "control-flow hub" of LLVM's FixIrreducible pass; the entry predicate of Bahmann et al.,
"Perfect Reconstructability of Control Flow from Demand Dependence Graphs", TACO 2015): for a strongly
connected region S with entry blocks e1..ek (k >= 2; an entry has a predecessor outside S), every edge
into an entry - from outside S and from inside it alike - goes instead to one new block G, and a phi
there records which entry the edge was for (0..k-1). G tests it and branches on to e1, or to a chain of
tests for the rest. G is now S's only entry, so S + G is a natural loop with header G; the entries' phis
move to G (each takes its own edges' values; undef on the others). Nothing is copied, so every lane runs
the same instructions in the same order as before: for one lane the program is unchanged. Strongly
connected regions are Tarjan's, found once per level of the cycle nest: the function's, then inside each
region less its header (a guarded region's edges into its entries leave it for G), so the whole walk is
O((blocks + edges) x nesting depth). Where a predecessor branches to two entries, each edge first goes
through a block of its own (a phi has one value per predecessor). Blocks no path reaches are left alone.

Which lanes run a convergent operation together inside an irreducible cycle is not defined by the source
(LLVM LangRef, "Convergent Operation Semantics": the cycle's heart is the implementation's choice), and
blockIP and the guard would choose differently; a kernel with a sub-group operation or a barrier in such
a cycle stays an IrreducibleCFG (Gen compiles it through blockIP). The function counts its guarded
cycles (`Function.guarded_cycles`); Gen's `--cf auto` weighs the guarded tree like any other.
"""
from __future__ import annotations

from reconverge.lowering.errors import IrreducibleCFG
from reconverge.lowering.graph import cycles, reachable
from reconverge.lowering.ir.core import Block, Const, Function, Instr, Phi, Undef, Value
from reconverge.lowering.ir.opcodes import OPCODES
from reconverge.lowering.ir.types import I1, I32

_CONVERGENT = frozenset(name for name, op in OPCODES.items() if op.has("convergent"))


def make_reducible(func: Function) -> int:
    """Give every irreducible cycle of `func` a guard header, in place; how many were given one (a
    one-line IrreducibleCFG where a cycle holds a convergent operation). One walk down the cycle nest:
    O((blocks + edges) x its depth)."""
    blocks = func.update_cfg()
    live = reachable([[s.index for s in b.succs] for b in blocks], [0])
    preds: dict[Block, list[Block]] = {b: [p for p in b.preds if live[p.index]] for b in blocks if live[b.index]}
    layout = _Layout(blocks)
    moved: dict[Value, Value] = {}
    fixed = 0
    stack = [[b for b in blocks if live[b.index]]]  # the function, then each cycle less its header
    while stack:
        members = stack.pop()
        for scc in _sccs(members):
            inside = set(scc)
            entries = [b for b in scc if any(p not in inside for p in preds[b])]   # (the entry block has none)
            if len(entries) >= 2:                 # (in layout order, as every list on the stack)
                _refuse_convergent(func, scc, entries)
                _guard(scc, entries, preds, layout, moved)
                fixed += 1
                stack.append(scc)               # its edges into the entries now leave it for the guard
            else:
                stack.append([b for b in scc if b is not entries[0]])
    func.blocks = layout.blocks()
    if moved:
        from reconverge.lowering.ir.builder import replace_uses
        replace_uses(func, moved)
    func.update_cfg()
    func.guarded_cycles += fixed
    return fixed


class _Layout:
    """Where the new blocks go: a guard and its tests before the cycle's first block, a block of its own
    for an edge after the block the edge leaves; placed in one pass at the end."""

    def __init__(self, blocks: list[Block]):
        self.original = blocks
        self.before: dict[Block, list[Block]] = {}
        self.after: dict[Block, list[Block]] = {}

    def blocks(self) -> list[Block]:
        out: list[Block] = []

        def place(b: Block) -> None:
            out.append(b)
            for x in self.after.get(b, ()):
                place(x)
        for b in self.original:
            for x in self.before.get(b, ()):
                place(x)
            place(b)
        return out


def _sccs(members: list[Block]) -> list[list[Block]]:
    """The strongly connected components of the subgraph on `members` that hold a cycle, each in
    `members`' order (graph.cycles)."""
    number = {b: i for i, b in enumerate(members)}
    succs = [[number[t] for t in _targets(b) if t in number] for b in members]
    return [[members[i] for i in component] for component in cycles(succs, list(range(len(members))))]


def _targets(b: Block) -> list[Block]:
    term = b.terminator
    return term.targets if term is not None else []


def _refuse_convergent(func: Function, region: list[Block], entries: list[Block]) -> None:
    """The one-line IrreducibleCFG for a convergent operation in the cycle, naming its entries (and their
    source lines, where -g gave them)."""
    found = next((ins for b in region for ins in b.instrs if ins.opcode in _CONVERGENT), None)
    if found is None:
        return
    from reconverge.lowering.structurize_parts import block_name
    names = " and ".join(block_name(e) for e in entries[:2]) + (" and more" if len(entries) > 2 else "")
    lines = [e.source_lines[0] for e in entries[:2] if e.source_lines and e.source_lines[0]]
    at = f" ({', '.join(lines)})" if len(lines) == min(2, len(entries)) else ""
    kind = _KIND.get(found.opcode, found.opcode)
    raise IrreducibleCFG(f"{func.source_name or '<input>'}: function @{func.name}: irreducible control flow: "
                         f"a cycle entered at {names}{at} holds a {kind}, and which lanes run it together there "
                         f"is not defined")


_KIND = {"subgroup": "sub-group operation", "subgroup_barrier": "sub-group barrier", "barrier": "barrier",
         "convergence": "convergence token"}


def _guard(region: list[Block], entries: list[Block], preds: dict[Block, list[Block]], layout: _Layout,
           moved: dict[Value, Value]) -> None:
    """Route every edge into an entry through one guard block (the module's docstring); `preds` is kept
    up to date for the walk (the blocks' own lists are made at the end), and each entry phi goes into
    `moved` with the guard's phi that takes its place (uses are replaced at the end, in one walk)."""
    number = {e: k for k, e in enumerate(entries)}
    first = entries[0]
    guard = Block(f"{first.label}.guard" if first.label else "guard")
    guard.source_lines = first.source_lines
    selector = Phi(I32, name=f"{guard.label}.entry")
    guard.append(selector)
    edges: list[tuple[Block, Block]] = []                # (the block the edge now leaves from, its entry)
    for pred in dict.fromkeys(p for e in entries for p in preds[e]):
        term = pred.terminator
        assert term is not None
        aimed = list(dict.fromkeys(t for t in term.targets if t in number))
        for entry in aimed:
            source = pred
            if len(aimed) > 1:                           # a block of its own per edge: one phi value each
                source = Block(f"{pred.label}.to.{entry.label}" if pred.label and entry.label else "")
                source.source_lines = pred.source_lines
                source.append(Instr("br", [], targets=[guard]))
                layout.after.setdefault(pred, []).append(source)
                preds[source] = [pred]
            term.targets = [source if t is entry and source is not pred else guard if t is entry else t
                            for t in term.targets]
            for phi in entry.phis():                     # the stub, not pred, is the entry's predecessor now
                phi.blocks = [source if b is pred else b for b in phi.blocks]
            edges.append((source, entry))
            selector.add_incoming(source, Const(I32, number[entry]))
    for entry in entries:
        for phi in list(entry.phis()):
            twin = Phi(phi.type, name=phi.name)
            for source, target in edges:
                twin.add_incoming(source, phi.value_for(source) if target is entry else Undef(phi.type))
            guard.append(twin)
            moved[phi] = twin
            phi.block = None
        entry.instrs = [ins for ins in entry.instrs if not isinstance(ins, Phi)]
    # the dispatch: guard -> e1 or the next test, ..., the last test -> e(k-1) or ek
    tests = [guard] + [Block(f"{guard.label}.{k}") for k in range(1, len(entries) - 1)]
    for k, test in enumerate(tests):
        is_k = test.append(Instr("icmp", [selector, Const(I32, k)], I1, {"pred": "eq"}))
        otherwise = tests[k + 1] if k + 1 < len(tests) else entries[-1]
        test.append(Instr("cbr", [is_k], targets=[entries[k], otherwise]))
    layout.before.setdefault(region[0], []).extend(tests)       # (region: in layout order)
    preds[guard] = [source for source, _ in edges]
    for k, test in enumerate(tests[1:], 1):
        preds[test] = [tests[k - 1]]
    for k, entry in enumerate(entries):
        preds[entry] = [tests[min(k, len(tests) - 1)]]

