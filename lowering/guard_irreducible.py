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
the same instructions in the same order as before: for one lane the program is unchanged. Nested cycles
are then found inside S less its header, and fixed the same way, until the loop forest exists
(graph.loop_forest). Where a predecessor branches to two entries, each edge first goes through a block of
its own (a phi has one value per predecessor). Blocks no path reaches are left alone.

Which lanes run a convergent operation together inside an irreducible cycle is not defined by the source
(LLVM LangRef, "Convergent Operation Semantics": the cycle's heart is the implementation's choice), and
blockIP and the guard would choose differently; a kernel with a sub-group operation or a barrier in such
a cycle stays an IrreducibleCFG (Gen compiles it through blockIP). The function records that it was made
reducible (`Function.guarded_cycles`): Gen's `--cf auto` still takes such a kernel through the hybrid,
which runs the original CFG. O(blocks + edges) per cycle fixed.
"""
from __future__ import annotations

from reconverge.lowering.errors import IrreducibleCFG
from reconverge.lowering.graph import IrreducibleError, loop_forest, predecessors, reachable
from reconverge.lowering.ir.core import Block, Const, Function, Instr, Phi, Undef, Value
from reconverge.lowering.ir.opcodes import OPCODES
from reconverge.lowering.ir.types import I1, I32

_CONVERGENT = frozenset(name for name, op in OPCODES.items() if op.has("convergent"))


def make_reducible(func: Function) -> int:
    """Give every irreducible cycle of `func` a guard header, in place; how many were given one (a
    one-line IrreducibleCFG where a cycle holds a convergent operation)."""
    fixed = 0
    while (cycle := _irreducible_cycle(func)) is not None:
        region, entries = cycle
        _refuse_convergent(func, region, entries)
        _guard(func, region, entries)
        fixed += 1
    func.guarded_cycles += fixed
    return fixed


def _irreducible_cycle(func: Function) -> tuple[list[Block], list[Block]] | None:
    """A strongly connected region with two or more entry blocks, and its entries (in layout order);
    None when the CFG is reducible."""
    blocks = func.update_cfg()
    succs = [[s.index for s in b.succs] for b in blocks]
    try:
        loop_forest(succs, 0)
        return None
    except IrreducibleError:
        pass
    live = reachable(succs, [0])                    # (a cycle of blocks no path reaches has no entry)
    preds = [[p for p in ps if live[p]] for ps in predecessors(succs)]
    stack = [[v for v in range(len(blocks)) if live[v]]]    # the function, then cycles less their header
    while stack:
        nodes = stack.pop()
        inside = bytearray(len(blocks))
        for v in nodes:
            inside[v] = 1
        for scc in _sccs(succs, nodes, inside):
            member = bytearray(len(blocks))
            for v in scc:
                member[v] = 1
            entries = [v for v in scc if any(not member[p] for p in preds[v])]   # (the entry block has no preds)
            if len(entries) >= 2:
                return [blocks[v] for v in sorted(scc)], [blocks[v] for v in sorted(entries)]
            stack.append([v for v in scc if v != entries[0]])
    raise AssertionError("loop_forest found an irreducible edge that no cycle holds")


def _sccs(succs: list[list[int]], nodes: list[int], inside: bytearray) -> list[list[int]]:
    """The strongly connected components of the subgraph on `nodes` that hold a cycle (Tarjan's algorithm,
    iterative)."""
    index = [-1] * len(succs)
    low = [0] * len(succs)
    on_stack = bytearray(len(succs))
    stack: list[int] = []
    found: list[list[int]] = []
    counter = 0
    for root in nodes:
        if index[root] != -1:
            continue
        frames = [(root, 0)]
        index[root] = low[root] = counter
        counter += 1
        stack.append(root)
        on_stack[root] = 1
        while frames:
            v, k = frames[-1]
            targets = succs[v]
            if k < len(targets):
                frames[-1] = (v, k + 1)
                w = targets[k]
                if not inside[w]:
                    continue
                if index[w] == -1:
                    index[w] = low[w] = counter
                    counter += 1
                    stack.append(w)
                    on_stack[w] = 1
                    frames.append((w, 0))
                elif on_stack[w]:
                    low[v] = min(low[v], index[w])
                continue
            frames.pop()
            if frames:
                u = frames[-1][0]
                low[u] = min(low[u], low[v])
            if low[v] == index[v]:
                component = []
                while True:
                    w = stack.pop()
                    on_stack[w] = 0
                    component.append(w)
                    if w == v:
                        break
                if len(component) > 1 or v in succs[v]:
                    found.append(component)
    return found


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


def _guard(func: Function, region: list[Block], entries: list[Block]) -> None:
    """Route every edge into an entry through one guard block (the module's docstring)."""
    number = {e: k for k, e in enumerate(entries)}
    first = entries[0]
    guard = Block(f"{first.label}.guard" if first.label else "guard")
    guard.source_lines = first.source_lines
    selector = Phi(I32, name=f"{guard.label}.entry")
    guard.append(selector)
    edges: list[tuple[Block, Block]] = []                # (the block the edge now leaves from, its entry)
    for pred in dict.fromkeys(p for e in entries for p in e.preds):
        term = pred.terminator
        assert term is not None
        aimed = list(dict.fromkeys(t for t in term.targets if t in number))
        for entry in aimed:
            source = pred
            if len(aimed) > 1:                           # a block of its own per edge: one phi value each
                source = Block(f"{pred.label}.to.{entry.label}" if pred.label and entry.label else "")
                source.source_lines = pred.source_lines
                source.append(Instr("br", [], targets=[guard]))
                func.blocks.insert(func.blocks.index(pred) + 1, source)
            term.targets = [source if t is entry and source is not pred else guard if t is entry else t
                            for t in term.targets]
            for phi in entry.phis():                     # the stub, not pred, is the entry's predecessor now
                phi.blocks = [source if b is pred else b for b in phi.blocks]
            edges.append((source, entry))
            selector.add_incoming(source, Const(I32, number[entry]))
    moved: dict[Value, Value] = {}
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
    at = min(func.blocks.index(b) for b in region)
    for k, test in enumerate(tests):
        func.blocks.insert(at + k, test)
    if moved:
        from reconverge.lowering.ir.builder import replace_uses
        replace_uses(func, moved)
    func.update_cfg()
