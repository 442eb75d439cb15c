"""SSA reconstruction over a finished control-flow tree.

The structurizer writes and reads variables (var_store/var_load: former phis, labels, loop-exit
selectors) and moves code so that some definitions no longer dominate their uses.

- Variables are resolved on demand as in Braun et al., "Simple and Efficient Construction of SSA Form"
  (CC 2013), on the complete CFG: the value at the top of a block is the value at the end of its only
  predecessor, or a phi over all its predecessors (made before its operands are read, which ends
  cycles). The structurizer stores undef where a variable's live range begins (at the start of the code
  that dominates its reads, at the top of each loop iteration for loop-exit values), so each walk stays
  inside that range: linear overall.
- A value whose definition no longer dominates all its uses is treated as a variable defined where the
  value is, placed with Cytron et al.'s iterated dominance frontiers ("Efficiently computing static
  single assignment form and the control dependence graph", TOPLAS 1991) and renamed in one walk down
  the dominator tree: a use then sees "the most recent execution of the definition", which is what SSA
  meant by it, with undef on paths that never ran it.
Phis land only where blocks have several predecessors: after an if, after a loop, at a loop header.
"""
from __future__ import annotations

from lowering.analysis import graph
from lowering.ir.core import Block, Function, If, Instr, Loop, Phi, Undef, Value, cf_list_of


class _Var:
    """A moved definition seen as a variable (`value` is its only definition)."""
    __slots__ = ("value", "type")

    def __init__(self, value: Instr):
        self.value = value
        self.type = value.type


class _Reader:
    """Braun's readVariable on the complete CFG, memoised per (variable, block)."""

    def __init__(self):
        self.end_def: dict[tuple[object, Block], Value] = {}
        self.start: dict[tuple[object, Block], Value] = {}
        self.new_phis: list[Phi] = []

    def at_end(self, var, block: Block) -> Value:
        v = self.end_def.get((var, block))
        return v if v is not None else self.at_start(var, block)

    def at_start(self, var, block: Block) -> Value:
        key = (var, block)
        v = self.start.get(key)
        if v is not None:
            return v
        preds = block.preds
        if not preds:
            v = Undef(var.type)
        elif len(preds) == 1:
            v = self.at_end(var, preds[0])
        else:
            v = phi = Phi(var.type)
            block.insert(0, phi)
            self.new_phis.append(phi)
            self.start[key] = phi                 # before the operands: a cycle finds the phi itself
            for p in preds:
                phi.add_incoming(p, self.at_end(var, p))
        self.start[key] = v
        return v


def _cfg(func: Function):
    blocks = func.index_blocks()
    succs = [[s.index for s in b.succs if s is not func.end_block] for b in blocks]
    preds = graph.predecessors(succs)
    dom = graph.dominator_tree(succs, 0)
    return blocks, succs, preds, dom


def _place_phis(def_blocks: dict[object, set[int]], types: dict[object, object], blocks: list[Block],
                df: list[set[int]]) -> dict[int, list[tuple[object, Phi]]]:
    """Phis at the iterated dominance frontier of each variable's definition blocks."""
    placed: dict[int, list[tuple[object, Phi]]] = {}
    for var, defs in def_blocks.items():
        has_phi: set[int] = set()
        work = list(defs)
        queued = set(defs)
        while work:
            x = work.pop()
            for y in df[x]:
                if y in has_phi:
                    continue
                has_phi.add(y)
                phi = Phi(types[var])
                blocks[y].insert(0, phi)
                placed.setdefault(y, []).append((var, phi))
                if y not in queued:
                    queued.add(y)
                    work.append(y)
    return placed


def _rename(blocks: list[Block], succs, dom: graph.DomTree, placed: dict[int, list[tuple[object, Phi]]],
            moved: dict[Instr, _Var]) -> None:
    """One walk down the dominator tree with a definition stack per moved value (iterative)."""
    stacks: dict[_Var, list[Value]] = {var: [] for var in moved.values()}
    phi_var = {phi: var for lst in placed.values() for var, phi in lst}

    def top(var: _Var) -> Value:
        st = stacks[var]
        return st[-1] if st else Undef(var.type)

    work: list[tuple[int, list | None]] = [(0, None)]        # (block, None) = enter; (block, pushed) = leave
    while work:
        v, pushed = work.pop()
        if pushed is not None:
            for var in pushed:
                stacks[var].pop()
            continue
        pushed = []
        b = blocks[v]
        for ins in b.instrs:
            var = phi_var.get(ins)
            if var is None:
                if not isinstance(ins, Phi):          # a phi's operands are renamed from its predecessors
                    ops = ins.operands
                    for i, op in enumerate(ops):
                        if op in moved:
                            ops[i] = top(moved[op])
                var = moved.get(ins)
            if var is not None:
                stacks[var].append(ins)
                pushed.append(var)
        for s in succs[v]:
            for phi in blocks[s].instrs:
                if not isinstance(phi, Phi):
                    break
                var = phi_var.get(phi)
                if var is not None:
                    phi.add_incoming(b, top(var))
                else:
                    phi.operands = [top(moved[op]) if p is b and op in moved else op
                                    for p, op in zip(phi.blocks, phi.operands)]
        _rename_if_condition(b, moved, top)
        work.append((v, pushed))
        for child in reversed(dom.children[v]):
            work.append((child, None))


def _rename_if_condition(b: Block, moved: dict[Instr, _Var], top) -> None:
    """An if's condition is read at the end of the block just before it."""
    nodes = cf_list_of(b)
    i = next(k for k, n in enumerate(nodes) if n is b)
    if i + 1 < len(nodes) and isinstance(nodes[i + 1], If) and nodes[i + 1].cond in moved:
        nodes[i + 1].cond = top(moved[nodes[i + 1].cond])


def _complete_phis(placed: dict[int, list[tuple[object, Phi]]], blocks: list[Block]) -> None:
    """Predecessors the walk never reached (unreachable code) give undef."""
    for y, lst in placed.items():
        preds = blocks[y].preds
        for _, phi in lst:
            if len(phi.blocks) != len(preds):
                have = set(map(id, phi.blocks))
                for p in preds:
                    if id(p) not in have:
                        phi.add_incoming(p, Undef(phi.type))


def _resolve(replace: dict[Value, Value], v: Value) -> Value:
    root = v
    while root in replace:
        root = replace[root]
    while v in replace and replace[v] is not root:      # path compression
        replace[v], v = root, replace[v]
    return root


def _rewrite(func: Function, replace: dict[Value, Value]) -> None:
    if not replace:
        return
    for b in func.all_blocks():
        for ins in b.instrs:
            ops = ins.operands
            for i, op in enumerate(ops):
                if op in replace:
                    ops[i] = _resolve(replace, op)
    stack = list(func.body)
    while stack:
        node = stack.pop()
        if isinstance(node, If):
            if node.cond in replace:
                node.cond = _resolve(replace, node.cond)
            stack += node.then_list + node.else_list
        elif isinstance(node, Loop):
            stack += node.body


def _simplify_phis(func: Function, phis: list[Phi]) -> None:
    """Drop phis that merge one value (Braun's trivial phis, batched) and phis nobody uses."""
    replace: dict[Value, Value] = {}
    changed = True
    live = list(phis)
    while changed:
        changed = False
        still = []
        for phi in live:
            same = None
            trivial = True
            for op in phi.operands:
                op = _resolve(replace, op)
                if op is phi or op is same:
                    continue
                if same is not None:
                    trivial = False
                    break
                same = op
            if trivial:
                replace[phi] = same if same is not None else Undef(phi.type)
                changed = True
            else:
                still.append(phi)
        live = still
    _rewrite(func, replace)
    # dead phis (only used by themselves or other dead phis)
    users: dict[Phi, int] = {p: 0 for p in live}
    for b in func.all_blocks():
        for ins in b.instrs:
            if ins in users:
                continue
            for op in ins.operands:
                if op in users:
                    users[op] += 1
    stack = list(func.body)
    while stack:
        node = stack.pop()
        if isinstance(node, If):
            if node.cond in users:
                users[node.cond] += 1
            stack += node.then_list + node.else_list
        elif isinstance(node, Loop):
            stack += node.body
    alive = {p for p, n in users.items() if n}
    work = list(alive)
    while work:
        p = work.pop()
        for op in p.operands:
            if op in users and op not in alive:
                alive.add(op)
                work.append(op)
    dead = set(replace) | (set(users) - alive)
    for b in {p.block for p in dead}:
        b.instrs = [i for i in b.instrs if i not in dead]


def rebuild(func: Function, replaced: dict[Value, Value]) -> None:
    """Remove var_load/var_store and restore SSA dominance; `replaced` maps old values to new ones."""
    func.update_cfg()
    reader = _Reader()
    pending: list[Instr] = []
    for b in func.all_blocks():
        current: dict[object, Value] = {}
        for ins in b.instrs:
            if ins.opcode == "var_store":
                current[ins.attrs["var"]] = ins.operands[0]
            elif ins.opcode == "var_load":
                var = ins.attrs["var"]
                if var in current:
                    replaced[ins] = current[var]
                else:
                    pending.append(ins)
        for var, value in current.items():
            reader.end_def[(var, b)] = value
    for ins in pending:
        replaced[ins] = reader.at_start(ins.attrs["var"], ins.block)
    for b in func.all_blocks():
        if any(i.opcode in ("var_load", "var_store") for i in b.instrs):
            b.instrs = [i for i in b.instrs if i.opcode not in ("var_load", "var_store")]
    _rewrite(func, replaced)
    _simplify_phis(func, reader.new_phis)
    repair_dominance(func)


def _violations(func: Function, blocks: list[Block], dom: graph.DomTree) -> set[Instr]:
    """Values with a use their definition does not dominate."""
    position: dict[Instr, int] = {}
    for b in blocks:
        for i, ins in enumerate(b.instrs):
            position[ins] = i

    def dominated(d: Instr, block: Block, index: int) -> bool:
        if d.block is block:
            return position[d] < index
        return dom.dominates(d.block.index, block.index)

    bad: set[Instr] = set()
    for b in blocks:
        if dom.pre[b.index] < 0:
            continue
        for i, ins in enumerate(b.instrs):
            if isinstance(ins, Phi):
                for p, v in ins.incoming():
                    if v in position and dom.pre[p.index] >= 0 and not dominated(v, p, len(p.instrs)):
                        bad.add(v)
            else:
                for v in ins.operands:
                    if v in position and not dominated(v, b, i):
                        bad.add(v)
    work = [func.body]
    while work:
        nodes = work.pop()
        for i, node in enumerate(nodes):
            if isinstance(node, If):
                before, c = nodes[i - 1], node.cond
                if c in position and dom.pre[before.index] >= 0 and not dominated(c, before, len(before.instrs)):
                    bad.add(c)
                work += [node.then_list, node.else_list]
            elif isinstance(node, Loop):
                work.append(node.body)
    return bad


def repair_dominance(func: Function, analyses=None) -> None:
    """Route every value whose definition does not dominate a use through phis (undef where undefined).

    `analyses` = (blocks, succs, preds, dom, df) of the current CFG when the caller has them."""
    if analyses is None:
        blocks, succs, preds, dom = _cfg(func)
        df = None
    else:
        blocks, succs, preds, dom, df = analyses
    bad = _violations(func, blocks, dom)
    if not bad:
        return
    moved = {v: _Var(v) for v in bad}
    if df is None:
        df = graph.dominance_frontiers(succs, dom.idom, preds)
    placed = _place_phis({var: {v.block.index} for v, var in moved.items()},
                         {var: var.type for var in moved.values()}, blocks, df)
    _rename(blocks, succs, dom, placed, moved)
    _complete_phis(placed, blocks)
    _simplify_phis(func, [phi for lst in placed.values() for _, phi in lst])
