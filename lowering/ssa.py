"""SSA reconstruction over a finished control-flow tree.

The structurizer writes and reads variables (var_store/var_load: former phis, labels, loop-exit
selectors) and moves code so that some definitions no longer dominate their uses. Both are fixed with the
on-demand construction of Braun et al., "Simple and Efficient Construction of SSA Form" (CC 2013), on a
complete CFG: the value of a variable at the top of a block is the value at the end of its only
predecessor, or a phi over all predecessors (created before its operands are read, which ends cycles).
A moved definition is treated as a store of itself: a use then sees "the most recent execution of the
definition", which is what SSA meant by it, with undef on paths that never executed it.
Phis land only where blocks have several predecessors: after an if, after a loop, at a loop header.
"""
from __future__ import annotations

from lowering.analysis import graph
from lowering.ir.core import Block, Function, If, Instr, Loop, Phi, Undef, Value, cf_list_of


class _Reader:
    """Braun's readVariable on the structured CFG; memoised per (variable, block)."""

    def __init__(self):
        self.end_def: dict[tuple[object, Block], Value] = {}
        self.start: dict[tuple[object, Block], Value] = {}
        self.new_phis: list[Phi] = []

    def at_end(self, var, block: Block, type) -> Value:
        v = self.end_def.get((var, block))
        return v if v is not None else self.at_start(var, block, type)

    def at_start(self, var, block: Block, type) -> Value:
        key = (var, block)
        v = self.start.get(key)
        if v is not None:
            return v
        preds = block.preds
        if not preds:
            v = Undef(type)
        elif len(preds) == 1:
            v = self.at_end(var, preds[0], type)
        else:
            phi = Phi(type)
            block.insert(0, phi)
            self.new_phis.append(phi)
            self.start[key] = phi
            for p in preds:
                phi.add_incoming(p, self.at_end(var, p, type))
            return phi
        self.start[key] = v
        return v


def _resolve(replace: dict[Value, Value], v: Value) -> Value:
    seen = v
    while v in replace:
        v = replace[v]
    while seen in replace and replace[seen] is not v:      # path compression
        replace[seen], seen = v, replace[seen]
    return v


def _rewrite(func: Function, replace: dict[Value, Value]) -> None:
    if not replace:
        return
    for b in func.all_blocks():
        for ins in b.instrs:
            ops = ins.operands
            for i, op in enumerate(ops):
                if op in replace:
                    ops[i] = _resolve(replace, op)
    _rewrite_if_conditions(func, replace)


def _rewrite_if_conditions(func: Function, replace: dict[Value, Value]) -> None:
    stack = list(func.body)
    while stack:
        node = stack.pop()
        if isinstance(node, If):
            if node.cond in replace:
                node.cond = _resolve(replace, node.cond)
            stack.extend(node.then_list)
            stack.extend(node.else_list)
        elif isinstance(node, Loop):
            stack.extend(node.body)


def _remove_trivial_phis(func: Function, phis: list[Phi]) -> None:
    """A phi whose operands are only itself and one value X is X (Braun's tryRemoveTrivialPhi, batched)."""
    replace: dict[Value, Value] = {}
    changed = True
    live = [p for p in phis]
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
    if replace:
        for phi in replace:
            phi.block.instrs.remove(phi)
        _rewrite(func, replace)


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
        replaced[ins] = reader.at_start(ins.attrs["var"], ins.block, ins.type)
    for b in func.all_blocks():
        b.instrs = [i for i in b.instrs if i.opcode not in ("var_load", "var_store")]
    _rewrite(func, replaced)
    _remove_trivial_phis(func, reader.new_phis)
    repair_dominance(func)


def _dominance_violations(func: Function) -> dict[Instr, list[tuple[Instr | None, Block]]]:
    """Uses not dominated by their definitions: value -> [(user or None for an if condition, block)]."""
    blocks = func.index_blocks()
    succs = [[s.index for s in b.succs if s is not func.end_block] for b in blocks]
    dom = graph.dominator_tree(succs, 0) if blocks else None
    position: dict[Instr, int] = {}
    for b in blocks:
        for i, ins in enumerate(b.instrs):
            position[ins] = i
    bad: dict[Instr, list] = {}

    def dominated(d: Instr, block: Block, index: int) -> bool:
        db = d.block
        if db is block:
            return position[d] < index
        return dom.dominates(db.index, block.index)

    reachable = [dom.pre[b.index] >= 0 for b in blocks]
    for b in blocks:
        if not reachable[b.index]:
            continue
        for i, ins in enumerate(b.instrs):
            if isinstance(ins, Phi):
                for p, v in ins.incoming():
                    if isinstance(v, Instr) and v in position and reachable[p.index] and \
                            not dominated(v, p, len(p.instrs)):
                        bad.setdefault(v, []).append((ins, p))
            else:
                for v in ins.operands:
                    if isinstance(v, Instr) and v in position and not dominated(v, b, i):
                        bad.setdefault(v, []).append((ins, b))
    _check_if_conditions(func, dominated, position, bad)
    return bad


def _check_if_conditions(func, dominated, position, bad) -> None:
    """An if's condition is used at the end of the block just before the if."""
    work = [func.body]
    while work:
        nodes = work.pop()
        for i, node in enumerate(nodes):
            if isinstance(node, If):
                before = nodes[i - 1]
                c = node.cond
                if isinstance(c, Instr) and c in position and not dominated(c, before, len(before.instrs)):
                    bad.setdefault(c, []).append((None, before))
                work.append(node.then_list)
                work.append(node.else_list)
            elif isinstance(node, Loop):
                work.append(node.body)


def repair_dominance(func: Function) -> None:
    """Route every value whose definition does not dominate a use through phis (undef where undefined)."""
    bad = _dominance_violations(func)
    if not bad:
        return
    reader = _Reader()
    for value in bad:
        reader.end_def[(value, value.block)] = value
    for value, uses in bad.items():
        for user, block in uses:
            if user is None:
                new = reader.at_end(value, block, value.type)
                _replace_if_condition(func, block, value, new)
            elif isinstance(user, Phi):
                new = reader.at_end(value, block, value.type)
                user.operands = [new if (p is block and op is value) else op
                                 for p, op in zip(user.blocks, user.operands)]
            else:
                new = reader.at_start(value, block, value.type)
                user.operands = [new if op is value else op for op in user.operands]
    _remove_trivial_phis(func, reader.new_phis)


def _replace_if_condition(func: Function, before: Block, old: Value, new: Value) -> None:
    nodes = cf_list_of(before)
    i = next(k for k, n in enumerate(nodes) if n is before)
    nodes[i + 1].cond = new
