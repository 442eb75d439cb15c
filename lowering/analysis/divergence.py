"""Divergence analysis: which values and branches are the same for every active lane of a sub-group.

A value is *uniform* (NIR prints `con`) when every lane that runs its instruction together (the active
lanes of one sub-group, in lock step) computes the same result, else *divergent* (`div`); a branch is
divergent when its condition is; a loop is divergent when its lanes do not all leave it in the same
iteration. Why: a target may then branch once for the whole sub-group (Gen's scalar `jmpi` instead of
if/else/endif under the execution mask) and keep a uniform value once instead of per lane.

Sources of divergence come from the opcode table (`divergence_source`): work-item functions other than
UNIFORM_WORKITEM_FUNCTIONS (the group id and the sizes are the work-group's), sub-group info other than
UNIFORM_SUBGROUP_INFO (the local id), sub-group operations whose result is not the same in every active
lane (scans, shuffles, elect, a clustered reduce; a broadcast of a divergent lane), atomics (each lane gets
its own old value), allocas (per-lane storage) and loads from private memory or through a divergent
address. Arguments, constants and module data addresses are uniform; any other instruction is divergent
when an operand is. Control makes values divergent in three ways:
- sync dependence: a phi where paths split by a divergent branch meet. Tree form: the phis after an if with
  a divergent condition; the loop-header phis of a loop with a divergent `continue` (lanes come back from
  different edges in one iteration); the phis after a divergent loop. CFG form: the join points of each
  divergent cbr/switch, found by propagating one label per successor in reverse postorder up to the branch's
  immediate post-dominator (a block reached by two labels is a join), the standard construction of
  Karrenberg and Hack ("Whole-Function Vectorization", CGO 2011) that LLVM's UniformityAnalysis and Mesa's
  nir_divergence_analysis.c also implement (facts from those public sources; no code taken).
- divergent loops: a loop is divergent when a `break` is taken by some lanes of an iteration but not others
  (tree form: the break sits under a divergent if, or after a divergent jump out of the iteration, or in a
  divergent inner loop); CFG form: a divergent branch inside it has one label that leaves the loop and
  another that comes back to its header. The exits of a divergent loop are then themselves a divergent
  branch (each exit block a label), so paths leaving through different exits join divergently.
- temporal divergence: lanes leave a divergent loop at different iterations, so a value uniform inside each
  iteration (a loop counter) is divergent where it is read after the loop. The value itself stays `con`;
  `divergent_at(value, block)` answers for a use, and instructions outside the loop that read it are `div`.
Inside an iteration the active lanes still run together: a loop's header phis stay uniform when only its
breaks diverge (as in Mesa; lanes that broke wait, disabled). A lane that returned early is gone; the
analysis still counts code after a divergent return as split (sound, slightly conservative). An
irreducible CFG (no loop forest) is taken as wholly divergent once anything diverges.

How: in tree form, one walk of the tree in program order decides each value, if and loop when it reaches
it, and walks a loop's body again only where a header phi turned divergent makes an if inside it divergent
(divergence_tree.py; O(instructions + uses) for most functions, one more walk of a loop's body each time
that happens). In CFG form, a pass over the SSA graph to a fixed point per round (a worklist over users:
O(instructions + uses)), and a round per time a newly divergent branch or loop makes more values divergent
(monotone: the sets only grow; 2-3 rounds in practice, at most one per nesting level); each divergent
branch propagates labels over the blocks between it and its post-dominator (O(blocks log blocks) each), so
nested divergent branches cost up to O(branches * blocks): linear for the usual shallow nest. Both reach
the least fixed point of the rules above, so they answer alike for the same control flow.
"""
from __future__ import annotations

import heapq

from reconverge.lowering.analysis.divergence_tree import (
    TreeWalk,
    _has_own_rule_of,
    divergent_from_operands,
    has_own_rule,
    leading_phis,
    source_divergent,
)
from reconverge.lowering.deepstack import depth_independent
from reconverge.lowering.graph import (
    IrreducibleError,
    loop_forest,
    post_dominator_tree,
    reverse_postorder,
    rpo_numbers,
)
from reconverge.lowering.ir.core import (
    Arg,
    Block,
    Const,
    Function,
    Instr,
    Phi,
    Undef,
    Value,
    cf_list_of,
)
from reconverge.lowering.ir.types import VOID
from reconverge.records import field, record

TYPE_CHECKING = False                   # not typing's: a compile's start-up does not import typing
if TYPE_CHECKING:
    from typing import Callable, Iterable


@record
class Divergence:
    """The analysis' answer for one function. `values`: the divergent values (where they are defined);
    `branches`: the divergent If nodes (tree form) or cbr/switch instructions (CFG form); `loops`: the
    divergent Loop nodes, or in CFG form the header Blocks of divergent loops."""
    values: set[Value] = field(default_factory=set)
    branches: set[object] = field(default_factory=set)
    loops: set[object] = field(default_factory=set)
    irreducible: bool = False
    # the innermost divergent loop around each block (its Loop node or header Block), for temporal uses
    _innermost: dict[Block, object] = field(default_factory=dict)
    _contains: object = None
    # each instruction's readers, one entry per operand that reads it, in program order (the propagation's
    # index, kept for a selector's own questions about particular values); None where not made here
    users: dict[Value, list[Instr]] | None = field(default=None, repr=False)

    def divergent(self, v: Value) -> bool:
        return v in self.values

    def in_divergent_loop(self, v: Instr) -> bool:
        """Whether `v` is defined inside a divergent loop: the only way divergent_at can find it divergent
        where `v` itself is not (read outside that loop)."""
        return v.block is not None and v.block in self._innermost

    def divergent_at(self, v: Value, block: Block) -> bool:
        """Is `v` divergent as read in `block`? Also when it is uniform where it is defined but defined in a
        divergent loop that `block` is outside of (temporal divergence)."""
        if v in self.values:
            return True
        if not isinstance(v, Instr) or v.block is None:
            return False
        loop = self._innermost.get(v.block)
        return loop is not None and not self._contains(loop, block)  # type: ignore[operator]

    def branch_divergent(self, node: object) -> bool:
        return node in self.branches


class _Propagation:
    """The CFG form's value fixed point: a worklist over users, with the control facts of the current
    round (which phis join divergent paths, which loops are divergent) given by _Cfg."""

    def __init__(self, func: Function, result: Divergence, instrs: list[Instr] | None = None):
        self.func, self.result = func, result
        self.instrs = list(func.instructions() if instrs is None else instrs)
        self.users: dict[Value, list[Instr]] = {}
        users = self.users
        for ins in self.instrs:
            for v in ins.operands:
                t = type(v)
                if t is Instr or t is Phi:          # (isinstance's call, for the only two kinds: hot)
                    found = users.get(v)
                    if found is None:
                        users[v] = [ins]
                    else:
                        found.append(ins)

    def run(self, divergent_phi: Iterable[Phi], moved: Iterable[Block] | None = None) -> None:
        """Grow the divergent values to their fixed point: from every instruction (the first run), or, after
        a round, from what changed since the last run reached its fixed point: the users of the newly
        divergent phis, and the users of the values defined in the blocks whose innermost divergent loop
        changed (`moved`: what divergent_at says of those values read outside that loop)."""
        values = self.result.values
        if moved is None:
            # the first run: in program order, so that most operands are decided before their readers are
            # asked (from the end, every reader of a divergent value was asked again once it grew); the
            # readers asked before a value grew (a loop's phis, through their back edges) are asked again
            # below. The fixed point is the same in any order: the rules only grow with their operands.
            grown = []
            if self.result._innermost:
                for ins in self.instrs:
                    if ins not in values and ins.has_result and self._divergent(ins):
                        values.add(ins)
                        grown.append(ins)
            else:
                # (no divergent loop yet, as before any round: _divergent's membership case, inline, and
                # has_result's and _has_own_rule's tests without their calls: every instruction)
                for ins in self.instrs:
                    t = ins.type                # (VOID itself first: a void record's == is a Python call)
                    if ins in values or t is VOID or (t.kind == "void" and t == VOID):
                        continue
                    own = _has_own_rule_of.get(ins.opcode)
                    if own is None:
                        own = has_own_rule(ins.opcode)
                    if own and not isinstance(ins, Phi):
                        if not source_divergent(ins, list(map(values.__contains__, ins.operands))):
                            continue
                    else:
                        for v in ins.operands:
                            if v in values:
                                break
                        else:
                            continue
                    values.add(ins)
                    grown.append(ins)
            users = self.users
            work = []                   # (loops, not comprehensions; a reader already divergent is skipped below)
            for ins in grown:
                found = users.get(ins)
                if found:
                    work += found
        else:
            users = self.users
            work = []
            for block in moved:
                for ins in block.instrs:
                    found = users.get(ins)
                    if found:
                        work += found
        for phi in divergent_phi:
            if phi not in values:
                values.add(phi)
                work += users.get(phi, [])
        while work:
            ins = work.pop()
            t = ins.type                    # (has_result, inline)
            if ins in values or t is VOID or (t.kind == "void" and t == VOID):
                continue
            if self._divergent(ins):
                values.add(ins)
                work += users.get(ins, [])

    def _divergent(self, ins: Instr) -> bool:
        block = ins.block
        assert block is not None
        return divergent_from_operands(ins, block, self.result)


def _operand_use(result: Divergence, v: Value, block: Block) -> bool:
    return not isinstance(v, (Const, Undef, Arg)) and result.divergent_at(v, block)


# ----- CFG form
class _Cfg:
    def __init__(self, func: Function, result: Divergence):
        self.func, self.result = func, result
        self.blocks = func.update_cfg()
        index = {b: i for i, b in enumerate(self.blocks)}
        self.index = index
        self.succs = [[index[s] for s in b.succs if s in index] for b in self.blocks]
        n = len(self.blocks)
        self.rpo = rpo_numbers(reverse_postorder(self.succs, 0), n) if n else []
        self.forest = loop_forest(self.succs, 0) if n else None          # raises IrreducibleError
        self.pdom, self.exit_node = post_dominator_tree(self.succs)
        self.joins: set[int] = set()
        self.done_branches: set[Instr] = set()
        self.done_loops: set[int] = set()

    def contains(self, header: object, block: Block) -> bool:
        assert self.forest is not None and isinstance(header, Block)
        i = self.index.get(block)
        return i is not None and self.forest.contains(self.index[header], i)

    def loops_around(self, b: int) -> list[int]:
        assert self.forest is not None
        out, h = [], self.forest.header_of[b]
        while h != -1:
            out.append(h)
            h = self.forest.parent[h]
        return out

    def round(self) -> bool:
        res = self.result
        grew = False
        for b, block in enumerate(self.blocks):
            term = block.terminator
            if term is None or term.opcode not in ("cbr", "switch") or term in self.done_branches:
                continue
            if not _operand_use(res, term.operands[0], block) or self.rpo[b] < 0:
                continue
            self.done_branches.add(term)
            res.branches.add(term)
            targets = list(dict.fromkeys(self.succs[b]))
            self._propagate(targets, self.pdom.idom[b], self.loops_around(b))
            grew = True
        while True:                      # the exits of each newly divergent loop diverge in turn
            new = [h for h in self._divergent_headers() if h not in self.done_loops]
            if not new:
                break
            for h in new:
                self.done_loops.add(h)
                assert self.forest is not None
                exits = sorted({s for v in range(len(self.blocks)) if self.forest.contains(h, v)
                                for s in self.succs[v] if not self.forest.contains(h, s)})
                self.joins.update(exits)
                parent = self.forest.parent[h]
                self._propagate(exits, self.pdom.idom[h], self.loops_around(parent) if parent != -1 else [])
            grew = True
        res._innermost.clear()
        for v, block in enumerate(self.blocks):
            inner = next((h for h in self.loops_around(v) if self.blocks[h] in res.loops), None)
            if inner is not None:
                res._innermost[block] = self.blocks[inner]
        return grew

    def _divergent_headers(self) -> list[int]:
        return [self.index[b] for b in self.result.loops]  # type: ignore[index]

    def _propagate(self, starts: list[int], stop: int, around: list[int]) -> None:
        """Labels from `starts` (one each) forward in reverse postorder up to `stop`; a block two labels
        reach is a join. A label that comes back to the header of a loop in `around` (which contains the
        branch) waits there for the next iteration; a loop one label leaves while another comes back to
        its header is divergent."""
        assert self.forest is not None
        rpo, label = self.rpo, {}
        heap: list[tuple[int, int]] = []
        back: dict[int, set[int]] = {h: set() for h in around}
        for s in starts:
            if s in label:
                continue
            label[s] = s
            heapq.heappush(heap, (rpo[s], s))
        while heap:
            _, x = heapq.heappop(heap)
            if x == stop:
                continue
            for y in self.succs[x]:
                if y in back and rpo[y] <= rpo[x]:
                    back[y].add(label[x])
                    continue
                if rpo[y] <= rpo[x]:
                    continue                     # an inner loop's back edge: its header has its label
                if y not in label:
                    label[y] = label[x]
                    heapq.heappush(heap, (rpo[y], y))
                elif label[y] != label[x] and label[y] != y:
                    label[y] = y
                    self.joins.add(y)
        for h, came_back in back.items():
            if len(came_back) > 1:
                self.joins.add(h)               # lanes come back to the header from different edges
            left = {lbl for v, lbl in label.items() if not self.forest.contains(h, v)}
            if came_back and left and not (len(left) == 1 and came_back == left):   # two labels part
                self.result.loops.add(self.blocks[h])

    def divergent_phis(self) -> list[Phi]:
        assert self.forest is not None
        out: list[Phi] = []
        for j in self.joins:
            if j in self.forest.latches:      # a header: lanes came back from different edges
                header = self.blocks[j]
                out += _differing_back_values(header, lambda b: self.contains(header, b))
            else:
                out += leading_phis(self.blocks[j])
        return out


def _differing_back_values(header: Block, inside: Callable[[Block], bool]) -> list[Phi]:
    """The header phis that lanes coming back along different edges can see differently: those whose
    values along the back edges are not all one value (as Mesa's loop-header rule)."""
    return [phi for phi in leading_phis(header)
            if len({id(v) for b, v in phi.incoming() if inside(b)}) > 1]


@depth_independent          # the tree form's walks recurse along the tree (one deep stack for them all)
def analyze(func: Function, instrs: list[Instr] | None = None) -> Divergence:
    """The divergence of every value, branch and loop of `func` (either form); `instrs`: its instructions in
    order (func.instructions()), where the caller has listed them (Gen's selection context has)."""
    result = Divergence()
    if func.is_structured:
        tree = TreeWalk(func, result)
        result._contains = tree.contains
        result.users = tree.users
        tree.run()
        return result
    values = _Propagation(func, result, instrs)
    result.users = values.users
    try:
        form = _Cfg(func, result)
    except IrreducibleError:
        return _irreducible(func, result, values)
    result._contains = form.contains
    values.run([])
    # Rounds until the control facts (divergent branches and loops, and what follows from them: the
    # divergent phis, the innermost divergent loops) stop growing. A round that adds none leaves every
    # fact the last run reached its fixed point under, so another run would add nothing: it is not made
    # (that confirming run was a third of the analysis, which selection runs on every Gen kernel).
    # Each later run starts from what the round changed (_Propagation.run), not from every instruction.
    # A round sees the values, the divergent loops and the innermost divergent loop of each block (made
    # from those loops); a round that added no loop, followed by a run that added no value, leaves what
    # the next round would read as this round saw it, so it would find what this one found and return
    # False: it is not made either (it was two fifths of the rounds).
    innermost = dict(result._innermost)
    loops = len(result.loops)
    while form.round():
        moved = [b for b, loop in result._innermost.items() if innermost.get(b) is not loop]
        moved += [b for b in innermost if b not in result._innermost]
        count = len(result.values)
        values.run(form.divergent_phis(), moved)
        if len(result.loops) == loops and len(result.values) == count:
            break
        innermost = dict(result._innermost)
        loops = len(result.loops)
    return result


def _irreducible(func: Function, result: Divergence, values: _Propagation) -> Divergence:
    """No loop forest: once any value diverges, everything that could is taken as divergent."""
    result.irreducible = True
    result._contains = lambda loop, block: True
    values.run([])
    if result.values:
        for ins in values.instrs:
            if ins.has_result:
                result.values.add(ins)
            elif ins.opcode in ("cbr", "switch"):
                result.branches.add(ins)
    return result


def mark(result: Divergence, ins: Instr) -> str:
    """`div` or `con` for an instruction's result (NIR's marks)."""
    return "div" if ins in result.values else "con"


__all__ = ["Divergence", "analyze", "mark", "source_divergent", "cf_list_of"]
