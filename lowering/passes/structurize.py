"""Structurizer: a CFG-form function becomes a NIR-like control-flow tree (guard_irreducible's loops first).

1. Loops (the natural-loop nesting forest) are handled region by region. A loop's blocks go inside a
   Loop node; edges back to its header become `continue`; edges leaving it write the loop's exit
   selector (when it has several exit targets) and `break`; after the loop, a dispatch on the selector
   continues to the right target, which may break or continue an outer loop in turn: a ladder, since the
   tree (like NIR) has no labelled break.
2. Inside one region (a loop body with its inner loops collapsed to single nodes, or the function body)
   the graph is acyclic. Code is placed along the dominator tree as in Ramsey's "Beyond Relooper" (ICFP
   2022): a node with one forward in-edge is emitted inline at its predecessor's branch; a merge node
   (several forward in-edges) is emitted after its immediate dominator's code, in reverse postorder;
   branches to it fall out of the enclosing ifs after writing a label variable, and a guard on the
   label runs it only when control came for it (no guard when every path out of the code before it goes
   to it). Control thus reconverges at the immediate dominator's level, where the source's if/else
   joined, and after loops, never inside them.
3. Phis become variables written on their incoming edges; labels and selectors are variables too, and
   so are values defined in a loop and used after it (the breaks that reach the use do not all pass
   the definition). `lowering.ssa` rebuilds SSA form over the finished tree.

Shaping rules give NIR's canonical trees: when one arm of an if always jumps (break, continue,
return), the other arm's code moves after the if (when both jump, a `continue` or else the longer arm
moves); and an if whose then-arm is empty and else-arm jumps is inverted so the jump sits in the
then-arm. A trailing `continue` at the end of a loop body and a trailing `return` at the end of the
function are left implicit. Blocks holding only `ret void` are not placed anywhere: edges to them
become `return` (or, from inside a loop, a loop exit first).
"""
from __future__ import annotations

from reconverge.lowering import graph, guard_irreducible, ssa
from reconverge.lowering.deepstack import depth_independent
from reconverge.lowering.errors import IrreducibleCFG
from reconverge.lowering.gcpause import gc_paused
from reconverge.lowering.ir.core import Block, Const, Function, If, Instr, Loop, Phi, Undef, Value
from reconverge.lowering.ir.types import I1, I32
from reconverge.lowering.structurize_parts import (
    RETURN,
    Var,
    VarStore,
    _Cursor,
    _drop_tail_jump,
    _ends_in,
    block_postorder,
    dominators_and_loops,
    equals,
    number_blocks,
    tree_block,
    tree_if,
    var_load,
)
from reconverge.lowering.target import TargetCaps
from reconverge.typing_free import cast

TYPE_CHECKING = False                   # not typing's: a compile's start-up does not import typing
if TYPE_CHECKING:
    from typing import Callable

new_cursor, new_const = _Cursor.__new__, Const.__new__


NAME, FORM = "structurize", "cfg"


def run(func: Function, caps: TargetCaps | None = None) -> bool:
    structurize(func)
    return True


@depth_independent
def structurize(func: Function) -> Function:
    """Turn `func` (CFG form) into structured form in place and return it."""
    with gc_paused():
        try:
            _Structurizer(func).run()
        except IrreducibleCFG:               # (found before anything changed; a reducible CFG pays nothing)
            if not guard_irreducible.make_reducible(func):
                raise
            _Structurizer(func).run()
    return func


class _Structurizer:
    def __init__(self, func: Function):
        self.func = func
        self.users: list[Instr] = []     # what may use a load: for ssa.rebuild (see _loop_escapes_to_variables)

    # ------------------------------------------------------------------ analysis
    def _prepare(self) -> None:
        func = self.func
        # (no update_cfg: the CFG-form blocks' succs/preds are not used, only their numbers and terminators)
        blocks = func.blocks
        terms, nodes, node_terms, node_of = number_blocks(blocks)
        # drop unreachable blocks (and their phi entries); the order of the reachable ones gives the nodes'
        post = block_postorder(terms)
        if len(post) != len(blocks):
            seen = {blocks[i] for i in post}
            blocks = func.blocks = [b for b in blocks if b in seen]
            for b in blocks:
                for phi in b.phis():
                    keep = [(p, v) for p, v in phi.incoming() if p in seen]
                    phi.blocks = [p for p, _ in keep]
                    phi.operands = [v for _, v in keep]
            terms, nodes, node_terms, node_of = number_blocks(blocks)
            post = block_postorder(terms)
        self.nodes, self.terms = nodes, node_terms
        self.node_of = node_of
        n = self.n = len(nodes)
        # targets per node, in terminator order, RETURN for return-only blocks; successors once each
        self.targets: list[list[int]] = []
        succs: list[list[int]] = []
        for t in node_terms:
            bs = [] if t is None else t.targets
            if len(bs) == 1:                          # (most blocks: a branch; no list comprehension call)
                x = node_of[bs[0].index]
                self.targets.append([x])
                succs.append([] if x == RETURN else [x])
            elif len(bs) == 2:                        # (a cbr: its successors without comprehensions)
                x, y = node_of[bs[0].index], node_of[bs[1].index]
                self.targets.append([x, y])
                succs.append(([] if x == RETURN else [x]) if x == y or y == RETURN else
                             [y] if x == RETURN else [x, y])
            else:
                ts = [node_of[s.index] for s in bs]
                self.targets.append(ts)
                succs.append([x for x in dict.fromkeys(ts) if x != RETURN])
        self.preds = graph.predecessors(succs)
        # the nodes' reverse postorder (graph.reverse_postorder(succs, 0)'s), made once for the three: the blocks'
        # less the return-only ones, which have no successors (no second walk; 0.04 CPU s at 100k blocks)
        order = [x for i in reversed(post) if (x := node_of[i]) != RETURN]
        self.rpo = graph.rpo_numbers(order, n)
        self.dom, self.forest = dominators_and_loops(func, nodes, succs, self.preds, order, self.rpo)
        self.header_of = self.forest.header_of
        self.loop_parent = self.forest.parent

    def _contains(self, h: int, v: int) -> bool:
        return h == -1 or self.forest.contains(h, v)

    def _rep(self, v: int, region: int) -> int:
        """The node standing for block v in `region`: v itself, or n + h for the child loop h holding it."""
        h = self.header_of[v]
        if h == region:
            return v
        while self.loop_parent[h] != region:
            h = self.loop_parent[h]
        return self.n + h

    def _classify(self, t: int, region: int) -> tuple[str, int]:
        if t == RETURN:
            return ("return", RETURN) if region == -1 else ("exit", RETURN)
        if t == region:
            return ("continue", t)
        if self._contains(region, t):
            return ("fwd", self._rep(t, region))
        return ("exit", t)

    def _analyse_regions(self) -> None:
        n = self.n
        # exits of each loop: targets outside it of edges from inside it (any depth)
        self.exits: dict[int, list[int]] = {h: [] for h in self.loop_parent}
        exit_sets: dict[int, set[int]] = {h: set() for h in self.loop_parent}
        header_of, targets, contains, loop_parent = self.header_of, self.targets, self.forest.contains, self.loop_parent
        for u in range(n):
            h = header_of[u]
            if h == -1:
                continue                                  # (outside loops: nothing to leave)
            for t in targets[u]:
                x = h
                while x != -1 and not (t != RETURN and (header_of[t] == x or contains(x, t))):
                    if t not in exit_sets[x]:
                        exit_sets[x].add(t)
                        self.exits[x].append(t)
                    x = loop_parent[x]
        for ts in self.exits.values():
            ts.sort(key=lambda t: (t == RETURN, self.rpo[t] if t != RETURN else 0))
        # forward in-degree of every region node, and its immediate dominator in its region
        indeg = [0] * (2 * n)
        rep = self._rep
        for u in range(n):
            region = header_of[u]
            ts = targets[u]
            for t in (ts if len(ts) == 1 or (len(ts) == 2 and ts[0] != ts[1]) else dict.fromkeys(ts)):
                # _classify's "fwd" case and _rep's first answer, inlined (hot: every edge)
                if t == RETURN or t == region:
                    continue
                if header_of[t] == region:
                    indeg[t] += 1
                elif region == -1 or contains(region, t):
                    indeg[rep(t, region)] += 1
        for h, ts in self.exits.items():
            for t in ts:
                kind, z = self._classify(t, self.loop_parent[h])
                if kind == "fwd":
                    indeg[z] += 1
        self.is_merge = [d >= 2 for d in indeg]
        self.merge_children: dict[int, list[int]] = {}
        idom = self.dom.idom
        for z in [z for z, merge in enumerate(self.is_merge) if merge]:
            if z < n:
                parent = self._rep(idom[z], self.header_of[z])
            else:
                h = z - n
                parent = self._rep(idom[h], self.loop_parent[h])
            self.merge_children.setdefault(parent, []).append(z)
        for kids in self.merge_children.values():
            if len(kids) > 1:                               # (most: one; no key call)
                kids.sort(key=lambda z: self.rpo[z if z < n else z - n])

    # ------------------------------------------------------------------ variables
    def _phis_to_variables(self) -> None:
        """Each phi becomes a variable written on its incoming edges and read where the phi stood."""
        edge_stores: dict[tuple[Block, Block], list[VarStore]] = {}
        replaced: dict[Value, Value] = {}
        phi_vars: dict[int, list[Var]] = {}
        self.edge_stores, self.replaced, self.phi_vars = edge_stores, replaced, phi_vars
        # the variables' loads (var_load) and stores ((var, value) pairs: no instruction made) are kept apart from
        # the code, by node until the tree places it, then by tree block, in order (for ssa.rebuild)
        node_vars: dict[int, list[Instr | VarStore]] = {}
        self.node_vars = node_vars
        self.var_code: dict[Block, list[Instr | VarStore]] = {}
        for node, b in enumerate(self.nodes):
            if not b.instrs or not isinstance(b.instrs[0], Phi):
                continue                                  # (most blocks: no generator made)
            vars = phi_vars[node] = []
            instrs = b.instrs
            k = 1
            while k < len(instrs) and isinstance(instrs[k], Phi):
                k += 1                                    # (b.phis(), without a generator)
            phis: list[Phi] = instrs[:k]                 # type: ignore[assignment]
            b.instrs = instrs[k:]
            loads = node_vars[node] = []
            for phi in phis:
                var = Var(phi.name, phi.type)
                vars.append(var)
                for p, value in zip(phi.blocks, phi.operands):
                    stores = edge_stores.get((p, b))
                    if stores is None:
                        stores = edge_stores[p, b] = []
                    stores.append((var, value))
                load = var_load(var, phi.name)
                load.block = b
                loads.append(load)
                replaced[phi] = load
        self.labels: dict[int, Var] = {}
        self.selectors: dict[int, Var] = {}

    def _loop_escapes_to_variables(self) -> None:
        """A value defined inside a loop and used outside it: after the loop, its definition no longer
        dominates the use (other breaks lead there too). It becomes a variable, stored right after the
        definition and loaded where used outside; its live range starts at the top of each iteration
        of the loops it leaves (their last iteration defined it: a definition that dominates a use
        outside a loop dominates, within an iteration, every exit that reaches the use)."""
        self.loop_inits: dict[int, list[Var]] = {}
        escaping: dict[Instr, Var] = {}
        loads_in: dict[int, dict[Instr, Instr]] = {}      # node -> escaping value -> its load there
        node_of = self.node_of

        def as_seen_from(value: Instr, user: int, h: int) -> Value:
            """`value` (defined in loop h, the innermost, which does not hold node `user`) as `user` sees it."""
            var = escaping.get(value)
            if var is None:
                var = escaping[value] = Var(value.name, value.type)
                while h != -1 and not self.forest.contains(h, user):
                    self.loop_inits.setdefault(h, []).append(var)
                    h = self.loop_parent[h]
            loads = loads_in.setdefault(user, {})
            if value not in loads:
                loads[value] = var_load(var, value.name)
            return loads[value]

        replaced_get, contains = self.replaced.get, self.forest.contains
        users = self.users
        header_of = self.header_of
        # the innermost loop of each block (its CFG number's): an operand's is its block's, where as_seen_from
        # asks the value's kind, its block, the block's node and the node's loop (a dict of every instruction
        # in a loop, made for this, cost a pass over them all: 0.07 CPU s at 100k blocks)
        loop_at = [-1] * len(self.func.blocks)
        for u, b in enumerate(self.nodes):
            loop_at[b.index] = header_of[u]
        for u, b in enumerate(self.nodes):
            user_loop = header_of[u]
            for ins in b.instrs:
                ops = ins.operands
                if not ops:
                    continue                          # (a branch; the loads made for phis: no operands)
                for op in ops:              # (no enumerate: its tuples cost more than an index() per change)
                    # as_seen_from, with its common answers first: a value of no loop or the user's loop (a
                    # phi stands as its load, the only values `replaced` maps yet; no lookup for the others)
                    cls = op.__class__
                    if cls is Instr:
                        at = op.block                               # type: ignore[attr-defined]  # (an Instr)
                        if at is None or (value_loop := loop_at[at.index]) == -1 or value_loop == user_loop \
                                or contains(value_loop, u):
                            continue
                        value = as_seen_from(op, u, value_loop)         # type: ignore[arg-type]  # (an Instr)
                    elif cls is Phi:
                        value = replaced_get(op, op)
                        if value.__class__ is Instr and (at := value.block) is not None:
                            value_loop = loop_at[at.index]
                            if value_loop != -1 and value_loop != user_loop and not contains(value_loop, u):
                                value = as_seen_from(value, u, value_loop)
                        if value is op:
                            continue
                    else:
                        continue
                    ops[ops.index(op)] = value      # (its first place not changed yet: values compare by identity)
                    users.append(ins)   # a load's use; the others: compares, returns, negations made later
        for (p, _), stores in self.edge_stores.items():
            u = node_of[p.index]                              # an edge's stores run at its source
            user_loop = header_of[u]
            for i, (var, op) in enumerate(stores):            # (the operand loop's test, as above)
                value = replaced_get(op, op)
                if value.__class__ is Instr and (at := value.block) is not None:
                    value_loop = loop_at[at.index]
                    if value_loop != -1 and value_loop != user_loop and not contains(value_loop, u):
                        value = as_seen_from(value, u, value_loop)
                if value is not op:
                    stores[i] = (var, value)
        node_vars = self.node_vars      # (loads and stores of different variables: their order among them is free)
        for u, loads in loads_in.items():                     # loads after the phis' (before the terminator)
            node_vars.setdefault(u, []).extend(loads.values())
        for value, var in escaping.items():                   # stores after the definition
            home = value.block
            assert home is not None
            node_vars.setdefault(node_of[home.index], []).append((var, value))

    def _var_load(self, cursor: _Cursor, var: Var) -> Instr:
        """A load of `var` at the cursor (kept in var_code, as every load and store)."""
        block: Block = cursor.nodes[-1]    # type: ignore[assignment]
        load = var_load(var)
        load.block = block
        self.var_code.setdefault(block, []).append(load)
        return load

    def _label_var(self, region: int) -> Var:
        if region not in self.labels:
            self.labels[region] = Var(f"label{region}", I32)
        return self.labels[region]

    def _selector_var(self, h: int) -> Var:
        if h not in self.selectors:
            self.selectors[h] = Var(f"exit{h}", I32)
        return self.selectors[h]

    # ------------------------------------------------------------------ emission
    def run(self) -> None:
        self._prepare()
        self._analyse_regions()
        self._phis_to_variables()
        self._loop_escapes_to_variables()
        func = self.func
        func.body = []
        func.is_structured = True
        func.blocks = []
        cursor = _Cursor(func.body, func)
        func.add(tree_block())
        from reconverge.lowering.deepstack import call_with_deep_stack

        def build() -> None:
            fallout = self._do_tree(self._rep(0, -1), cursor, -1)
            assert not fallout, f"labels left pending at function end: {fallout}"
            _drop_tail_jump(func.body, "return")
            made = set(self.labels.values()) | set(self.selectors.values())
            read = ssa.rebuild(func, self.replaced, self.users, self.var_code)
            func.guard_variables = sorted({cast(Var, var).name for var in read if var in made})
        call_with_deep_stack(build)

    def _start_live_ranges(self, cursor: _Cursor, vars: list[Var]) -> None:
        """Store undef where these variables' live ranges begin, so SSA reconstruction never walks
        past this point looking for a definition (see lowering.ssa)."""
        block: Block = cursor.nodes[-1]    # type: ignore[assignment]
        self.var_code.setdefault(block, []).extend([(var, Undef(var.type)) for var in vars])

    def _do_tree(self, z: int, cursor: _Cursor, region: int) -> set[int]:
        merges = self.merge_children.get(z, ())
        if merges:
            self._start_live_ranges(cursor, [self._label_var(region)] + [
                var for y in merges for var in self.phi_vars.get(y if y < self.n else y - self.n, ())])
        if z >= self.n:
            fallout = self._emit_loop(z - self.n, cursor, region)
        else:
            b = self.nodes[z]
            block: Block = cursor.nodes[-1]    # type: ignore[assignment]  # (cursor.block(), inlined)
            term = self.terms[z]
            moved = b.instrs[:-1] if term is not None else b.instrs
            for ins in moved:
                ins.block = block
            block.instrs += moved
            loads = self.node_vars.get(z)
            if loads is not None:                       # its variables' loads and stores go with its code
                for x in loads:
                    if x.__class__ is Instr:
                        x.block = block
                self.var_code.setdefault(block, []).extend(loads)
            if term is not None and term.opcode == "br":  # (_emit_branch's first case, inlined: most blocks)
                fallout = self._edge(b, self.targets[z][0], region, cursor)
            else:
                fallout = self._emit_branch(z, b, term, cursor, region)
        for y in merges:
            assert y in fallout, "a merge node nobody branches to"
            if fallout == {y}:
                fallout = self._do_tree(y, cursor, region)
                continue
            label = self._var_load(cursor, self._label_var(region))
            cond = cursor.emit(Instr("icmp", [label, Const(I32, y)], I1, {"pred": "eq"}))
            self.users.append(cond)
            node, then_c, _ = self._add_if(cursor, cond)
            fallout = (fallout - {y}) | self._do_tree(y, then_c, region)
        return fallout

    def _emit_loop(self, h: int, cursor: _Cursor, region: int) -> set[int]:
        loop = Loop()
        cursor.add(loop)
        cursor.add(tree_block())
        body = _Cursor(loop.body, loop)
        self._start_live_ranges(body, self.loop_inits.get(h, []) + [
            var for t in self.exits[h] if t != RETURN for var in self.phi_vars.get(t, ())])
        inside = self._do_tree(h, body, h)
        assert not inside, f"labels left pending at loop end: {inside}"
        _drop_tail_jump(loop.body, "continue")    # (the body is complete: nothing adds to it later)
        exits = self.exits[h]
        if not exits:
            return set()
        edges = [self._edge_thunk(None, t, region) for t in exits]
        if len(exits) == 1:
            return edges[0](cursor)
        sel = self._var_load(cursor, self._selector_var(h))
        return self._emit_flat(cursor, sel, [([k], edges[k]) for k in range(len(exits) - 1)], edges[-1])

    def _emit_branch(self, v: int, b: Block, term: Instr | None, cursor: _Cursor, region: int) -> set[int]:
        """Node v's (block b's) terminator `term`, at `cursor`."""
        op = term.opcode if term is not None else "unreachable"
        targets = self.targets[v]
        if op == "br" or (op == "cbr" and targets[0] == targets[1]):
            return self._edge(b, targets[0], region, cursor)
        if op == "cbr":                 # _emit_chain's if/else of one case, inlined (hot: every branch)
            assert term is not None
            parent = cursor.parent
            node = tree_if(term.operands[0], parent)        # (and _add_if's, inlined)
            after = tree_block(parent)
            cursor.nodes += (node, after)
            arm = new_cursor(_Cursor)                       # (_Cursor(node.then_list, node) without its call)
            arm.nodes, arm.parent = node.then_list, node
            f_then = self._edge(b, targets[0], region, arm)
            arm = new_cursor(_Cursor)
            arm.nodes, arm.parent = node.else_list, node
            f_else = self._edge(b, targets[1], region, arm)
            if not (f_then and f_else):                     # (_shape_if's first test: both fall out)
                self._shape_if(cursor, node, f_then, f_else)
            return f_then | f_else
        if op == "switch":
            assert term is not None
            value, default = term.operands[0], targets[0]
            groups: dict[int, list[int]] = {}
            for case, t in zip(term.attrs["cases"], targets[1:]):
                if t != default:
                    groups.setdefault(t, []).append(case)
            cases = [(consts, self._edge_thunk(b, t, region)) for t, consts in groups.items()]
            return self._emit_flat(cursor, value, cases, self._edge_thunk(b, default, region))
        # ret / unreachable (undefined behaviour: leaving is as good as anything)
        ret = cursor.emit(Instr("return", list(term.operands) if op == "ret" and term is not None else []))
        if ret.operands:
            self.users.append(ret)
        return set()

    def _emit_flat(self, cursor: _Cursor, value: Value,
                   cases: list[tuple[list[int], Callable[[_Cursor], set[int]]]],
                   default: Callable[[_Cursor], set[int]]) -> set[int]:
        """A multi-way branch on `value` (cases: (constants, edge), the constants of different cases
        distinct) as a flat sequence of guarded ifs at one level, as Mesa's nir_lower_switch does:

            if (value == c0) {e0}   if (value == c1 || value == c2) {e1}   ...   if (none matched) {default}

        Every edge ends in a jump or a label store, so a lane that ran one arm passes the later guards
        false. Depth stays constant and work linear in the number of cases, where a chain of else-ifs
        would nest one level per case (and lavapipe answers wrongly from about 80 levels). A two-way
        branch keeps the plain if/else."""
        if len(cases) <= 1:
            return self._emit_chain(cursor, [(equals(self.users, value, c), e) for c, e in cases], default)
        fallout: set[int] = set()
        for consts, edge in cases:
            _, then_c, _ = self._add_if(cursor, equals(self.users, value, consts)(cursor))
            fallout |= edge(then_c)
        none: Value | None = None
        for consts, _ in cases:
            for c in consts:
                ne = cursor.emit(Instr("icmp", [value, Const(value.type, c)], I1, {"pred": "ne"}))
                self.users.append(ne)
                none = ne if none is None else cursor.emit(Instr("and", [none, ne], I1))
        assert none is not None
        _, then_c, _ = self._add_if(cursor, none)
        return fallout | default(then_c)

    def _emit_chain(self, cursor: _Cursor,
                    cases: list[tuple[Callable[[_Cursor], Value], Callable[[_Cursor], set[int]]]],
                    default: Callable[[_Cursor], set[int]]) -> set[int]:
        """if (c0) {e0} else { if (c1) {e1} else { ... default } }, each if shaped as NIR likes it."""
        if not cases:
            return default(cursor)
        make_cond, edge = cases[0]
        cond = make_cond(cursor)
        node, then_c, else_c = self._add_if(cursor, cond)
        f_then = edge(then_c)
        f_else = self._emit_chain(else_c, cases[1:], default)
        self._shape_if(cursor, node, f_then, f_else)
        return f_then | f_else

    def _add_if(self, cursor: _Cursor, cond: Value) -> tuple[If, _Cursor, _Cursor]:
        parent = cursor.parent                              # (cursor.add twice, inlined: hot)
        node = tree_if(cond, parent)
        after = tree_block(parent)
        cursor.nodes += (node, after)
        then_c, else_c = new_cursor(_Cursor), new_cursor(_Cursor)     # (_Cursor(...) twice, without the calls)
        then_c.nodes, then_c.parent, else_c.nodes, else_c.parent = node.then_list, node, node.else_list, node
        return node, then_c, else_c

    def _shape_if(self, cursor: _Cursor, node: If, f_then: set[int], f_else: set[int]) -> None:
        """When one arm always jumps, move the other arm's code after the if. If both always jump, the
        longer arm moves (so `if (c) return;` keeps just the return inside)."""
        if f_then and f_else:
            return
        if not f_then and not f_else:
            # both jump: a continue moves out (at the end of a loop body it then goes without saying,
            # leaving `if (!c) break;`); otherwise the longer arm moves
            then_continues = _ends_in(node.then_list, "continue")
            if then_continues != _ends_in(node.else_list, "continue"):
                keep_then = not then_continues
            else:
                keep_then = len(node.then_list) <= len(node.else_list)
        else:
            keep_then = not f_then      # then jumps: hoist else
        arm = node.else_list if keep_then else node.then_list
        pos = len(cursor.nodes) - 1
        before: Block = cursor.nodes[pos - 2]    # type: ignore[assignment]  # the block holding the condition
        assert cursor.nodes[pos - 1] is node and not cursor.nodes[pos].instrs      # type: ignore[attr-defined]
        empty = cursor.nodes.pop()          # (the empty block after the if becomes the emptied arm's)
        parent = cursor.parent
        for child in arm:                   # (cursor.add, inlined)
            child.parent = parent
        cursor.nodes += arm
        arm.clear()
        empty.parent = node
        arm.append(empty)
        if not keep_then:
            # then is now empty and else jumps: put the jump first, on the negated condition
            node.then_list, node.else_list = node.else_list, node.then_list
            node.cond = before.append(Instr("xor", [node.cond, Const(I1, 1)], I1))
            self.users.append(node.cond)

    def _edge_thunk(self, src: Block | None, t: int, region: int) -> Callable[[_Cursor], set[int]]:
        return lambda cursor: self._edge(src, t, region, cursor)

    def _edge(self, src: Block | None, t: int, region: int, cursor: _Cursor) -> set[int]:
        """Emit at `cursor` the edge from `src` (None: a loop's exit dispatch) to target t: its phi
        stores, then a jump, a label store (a merge node: the labels pending are returned) or t's code."""
        block: Block = cursor.nodes[-1]    # type: ignore[assignment]  # (cursor.emit, inlined below: hot)
        if src is not None and t in self.phi_vars:    # (not RETURN: no phis there)
            stores = self.edge_stores.pop((src, self.nodes[t]), None)     # (each edge is emitted once)
            if stores:
                self.var_code.setdefault(block, []).extend(stores)
        # _classify, inlined (hot: every edge)
        if t == RETURN and region == -1:
            jump = Instr("return", [])
        elif t == region:
            jump = Instr("continue", [])
        else:
            if t == RETURN:
                z = RETURN
            elif self.header_of[t] == region:       # (most edges: within the region, _rep is t)
                z = t
            elif region == -1 or self.forest.contains(region, t):
                z = self._rep(t, region)
            else:
                z = RETURN                          # a loop exit
            if z != RETURN:
                if not self.is_merge[z]:
                    return self._do_tree(z, cursor, region)
                label = new_const(Const)            # (Const(I32, z) without its call: a node number, in range)
                label.type, label.name, label.value = I32, "", z
                self.var_code.setdefault(block, []).append((self.labels.get(region) or self._label_var(region), label))
                return {z}
            exits = self.exits[region]              # a loop exit
            if len(exits) > 1:
                self.var_code.setdefault(block, []).append(
                    (self._selector_var(region), Const(I32, exits.index(t))))
            jump = Instr("break", [])
        jump.block = block
        block.instrs.append(jump)
        return set()

