"""The divergence analysis' rule for one instruction, and its tree form: one walk in program order.

`source_divergent` says when an instruction's result is divergent from its opcode and its operands (the
sources listed in divergence.py's docstring). `TreeWalk` computes divergence.py's facts for a structured
function (a tree of blocks, ifs and loops) in one walk of the tree in program order: each instruction is
asked once its operands are decided (SSA: a definition comes before its readers, except along a loop's back
edges), each if's condition when the walk reaches it, each break and continue with the lanes split as the
walk has found them so far. Only a loop's header phis read what comes later (its back edges): those that
turn divergent after a walk of the body are spread to their readers inside the loop by a work list over
Divergence.users, and the body is walked again only when that makes an if inside it divergent (the one way
values change the control facts). A loop found divergent while its body is walked needs no second walk for
that (_loop says why). Everything else is final once walked. Why: the generic propagation this replaces
(still the CFG form's) asked every instruction once, then made rounds of control facts and work lists over
the readers: half as many instructions again (callgrind, over the 108 kernels of a benchmark file). The
result is the same least fixed point: every fact is added only when its rule holds of what is already known,
and the walk stops where no rule adds one.
"""
from __future__ import annotations

from itertools import repeat

from reconverge.lowering.ir.core import Arg, Block, CFNode, Const, If, Instr, Loop, Phi, Undef, Value
from reconverge.lowering.ir.opcodes import (
    JUMPS,
    OPCODES,
    SUBGROUP_UNIFORM_RESULTS,
    UNIFORM_SUBGROUP_INFO,
    UNIFORM_WORKITEM_FUNCTIONS,
)
from reconverge.lowering.ir.types import VOID

TYPE_CHECKING = False                   # not typing's: a compile's start-up does not import typing
if TYPE_CHECKING:
    from reconverge.lowering.analysis.divergence import Divergence
    from reconverge.lowering.ir.core import Function


# ----- the rules for one instruction's result, given which of its operands are divergent
def source_divergent(ins: Instr, operand_divergent: list[bool]) -> bool:
    """Is the result of `ins` divergent, from its opcode and its operands' divergence (not phis)?"""
    op = ins.opcode
    spec = OPCODES.get(op)
    if op == "workitem":
        return ins.attrs.get("fn") not in UNIFORM_WORKITEM_FUNCTIONS or any(operand_divergent)
    if op == "subgroup_info":
        return ins.attrs.get("fn") not in UNIFORM_SUBGROUP_INFO
    if op == "subgroup":
        kind = ins.attrs.get("op")
        if kind not in SUBGROUP_UNIFORM_RESULTS or "cluster" in ins.attrs:
            return True
        return kind == "broadcast" and operand_divergent[1]     # the lane read must be the same for all
    if op in ("atomic", "alloca", "var_load"):
        return True
    if op == "load":
        ptr = ins.operands[0]
        return operand_divergent[0] or (ptr.type.is_ptr and ptr.type.addrspace == 0)
    if spec is not None and spec.has("divergence_source"):
        return True                                             # a source this table does not know yet
    return any(operand_divergent)


_OWN_RULES = ("workitem", "subgroup_info", "subgroup", "atomic", "alloca", "var_load", "load")
_has_own_rule_of: dict[str, bool] = {}


def has_own_rule(op: str) -> bool:
    """Whether source_divergent says more of opcode `op` than "divergent if an operand is" (the others
    need no list of their operands' divergence)."""
    found = _has_own_rule_of.get(op)
    if found is None:
        spec = OPCODES.get(op)
        found = _has_own_rule_of[op] = op in _OWN_RULES or (spec is not None and spec.has("divergence_source"))
    return found


def divergent_from_operands(ins: Instr, block: Block, result: Divergence) -> bool:
    """Is `ins` (not yet divergent, with a result) divergent from its operands as read in `block` (both
    forms' rule for one instruction: divergent_at where a divergent loop is known, else membership alone)?"""
    any_rule = type(ins) is Phi or not has_own_rule(ins.opcode)      # divergent with any operand
    if result._innermost:
        at = result.divergent_at
        if any_rule:
            for v in ins.operands:              # (any() of a generator, as a loop)
                if at(v, block):
                    return True
            return False
        return source_divergent(ins, list(map(at, ins.operands, repeat(block))))
    values = result.values
    if any_rule:
        for v in ins.operands:
            if v in values:
                return True
        return False
    return source_divergent(ins, list(map(values.__contains__, ins.operands)))


def leading_phis(block: Block) -> list[Phi]:
    """block.phis() as a list, without a generator (asked of every block after an if or a loop)."""
    out = []
    for ins in block.instrs:
        if type(ins) is not Phi:                # (Phi has no subclasses)
            break
        out.append(ins)
    return out


_NOT_READ = (Const, Undef, Arg)       # uniform operands of an if: never divergent where read


# ----- tree form
class TreeWalk:
    """The tree form's facts, into `result` (divergence.Divergence): run() once."""

    def __init__(self, func: Function, result: Divergence):
        self.func, self.result = func, result
        self.pos: dict[object, int] = {}        # each block's and loop's place in a walk of the tree
        self.leave: dict[object, int] = {}      # each loop's place after its body
        self.blocks: list[Block] = []           # in program order: a loop's blocks are a slice of it
        self.ifs: list[tuple[If, Block]] = []   # in program order, each with the block before it
        self.slices: dict[Loop, tuple[int, int, int, int]] = {}     # each loop's blocks and ifs: slices of those
        self.clock = 0
        self.split_continue: set[Loop] = set()  # loops with a continue that some lanes of an iteration take
        self.users: dict[Value, list[Instr]] = {}

    def contains(self, loop: object, block: Block) -> bool:
        pos = self.pos
        return pos[loop] < pos[block] < self.leave[loop]

    def run(self) -> None:
        self._walk(self.func.body, 0, 0, None)
        innermost = self.result._innermost
        if innermost:                   # (in program order, as a walk of the tree lists them)
            self.result._innermost = {b: innermost[b] for b in sorted(innermost, key=self.pos.__getitem__)}

    def _block(self, block: Block, instrs: list[Instr], joined: bool) -> None:
        """Decide the values of one block (`joined`: its leading phis join paths a divergent if or loop
        split). The first time, also number it and list each instruction as a reader of its operands
        (Divergence.users, in program order: the walk's first visits are in program order)."""
        values = self.result.values
        temporal = bool(self.result._innermost)
        if block in self.pos:
            self._again(block, instrs, joined)
            return
        self.blocks.append(block)
        self.pos[block] = self.clock = self.clock + 1
        users = self.users
        for ins in instrs:                      # (none decided yet: the walk had not come here)
            operands = ins.operands
            read = False                        # an operand divergent where defined
            for v in operands:
                kind = type(v)
                if kind is Instr or kind is Phi:        # (isinstance's call, for the only two kinds: hot)
                    found = users.get(v)
                    if found is None:
                        users[v] = [ins]
                    else:
                        found.append(ins)
                    if v in values:
                        read = True
            if joined:
                if type(ins) is Phi:
                    values.add(ins)
                    continue
                joined = False
            t = ins.type                        # (has_result, inline; VOID itself first)
            if t is VOID or (t.kind == "void" and t == VOID):
                continue
            if temporal:
                if divergent_from_operands(ins, block, self.result):
                    values.add(ins)
                continue
            own = _has_own_rule_of.get(ins.opcode)     # (no divergent loop yet: membership alone, inline)
            if own is None:
                own = has_own_rule(ins.opcode)
            if own and type(ins) is not Phi:
                if source_divergent(ins, list(map(values.__contains__, operands))):
                    values.add(ins)
            elif read:
                values.add(ins)

    def _again(self, block: Block, instrs: list[Instr], joined: bool) -> None:
        """_block's rules for a block walked before (a loop's body walked again): what is not yet divergent
        (divergent_from_operands' answer for each: a walk again is rare, so no inline fast path as in _block)."""
        values = self.result.values
        for ins in instrs:
            if ins in values:
                continue
            if joined:
                if type(ins) is Phi:
                    values.add(ins)
                    continue
                joined = False
            t = ins.type
            if t is VOID or (t.kind == "void" and t == VOID):
                continue
            if divergent_from_operands(ins, block, self.result):
                values.add(ins)

    def _walk(self, nodes: list[CFNode], split: int, depth: int, loop: Loop | None) -> tuple[int, int, int]:
        """Walk one CF list: its blocks' values, its ifs' and loops' divergence. `split`: how many of the
        enclosing loops (outermost first) the lanes here are a proper subset of, in the current iteration
        (split == depth: split in the innermost loop too). Returns (split after the list, the largest
        `split` of a break/continue leaving the list, of a return leaving it), -1 for none."""
        res = self.result
        values, branches, loops = res.values, res.branches, res.loops
        pos = self.pos
        jumps = returns = -1                    # (maxima kept by comparisons, not max(): every node)
        prev: CFNode | None = None
        for node in nodes:
            if type(node) is Block:
                instrs = node.instrs
                # the phis where paths split by a divergent if or loop meet
                self._block(node, instrs, prev is not None and (prev in branches or prev in loops))
                if instrs and instrs[-1].opcode in JUMPS:
                    jump = instrs[-1]
                    if jump.opcode == "return":
                        returns = split if split > returns else returns
                    else:
                        assert loop is not None
                        jumps = split if split > jumps else jumps
                        if split >= depth:
                            (loops if jump.opcode == "break" else self.split_continue).add(loop)
            elif isinstance(node, If):
                if node not in pos:
                    pos[node] = 0
                    self.ifs.append((node, prev))       # type: ignore[arg-type]
                # (a branch found divergent stays so: the values and the divergent loops only grow)
                cond = node.cond
                if node in branches or (not isinstance(cond, _NOT_READ) and
                                        (cond in values or (res._innermost and res.divergent_at(cond, prev)))):  # type: ignore[arg-type]
                    branches.add(node)
                    inner = depth
                else:
                    inner = split
                _, j1, r1 = self._walk(node.then_list, inner, depth, loop)
                _, j2, r2 = self._walk(node.else_list, inner, depth, loop)
                j, r = j1 if j1 > j2 else j2, r1 if r1 > r2 else r2
                jumps, returns = j if j > jumps else jumps, r if r > returns else returns
                split = j if j > split else split
                split = r if r > split else split
            elif isinstance(node, Loop):
                r = self._loop(node, split, depth)
                r = depth if r > depth else r
                returns, split = r if r > returns else returns, r if r > split else split
            prev = node
        return split, jumps, returns

    def _loop(self, node: Loop, split: int, depth: int) -> int:
        """Walk a loop's body to its fixed point; the largest `split` of a return leaving it. A loop found
        divergent in a walk of its body needs no other walk for that: its body is walked with `depth` for
        `split` then, which no break, continue or if inside compares as split (they ask for depth + 1 or
        more); only the returns' largest split, the one thing that leaves the body, grows to `depth`."""
        res, pos = self.result, self.pos
        values, loops = res.values, res.loops
        first = node not in pos
        if first:
            pos[node] = self.clock = self.clock + 1
            start, ifs = len(self.blocks), len(self.ifs)
        header: Block = node.body[0]            # type: ignore[assignment]
        while True:
            divergent = node in loops
            _, _, r = self._walk(node.body, depth if divergent else split, depth + 1, node)
            if first:                           # (numbered: the loop's blocks are blocks[start:end])
                first = False
                self.leave[node] = self.clock = self.clock + 1
                self.slices[node] = (start, len(self.blocks), ifs, len(self.ifs))
            if not divergent and node in loops and r >= 0:
                r = depth if r < depth else r   # as the walk with the loop divergent would find: see below
            grown = []
            if node in self.split_continue:
                for phi in leading_phis(header):
                    if phi not in values and len({id(v) for b, v in phi.incoming() if self.contains(node, b)}) > 1:
                        values.add(phi)
                        grown.append(phi)
            for phi in leading_phis(header):
                if phi not in values and divergent_from_operands(phi, header, res):
                    values.add(phi)
                    grown.append(phi)
            if not grown or not self._spread(node, grown):
                break
        if node in loops:
            innermost, loop_pos = res._innermost, pos[node]
            a, b, _, _ = self.slices[node]
            for block in self.blocks[a:b]:
                inner = innermost.get(block)
                if inner is None or pos[inner] < loop_pos:     # none, or a loop around this one
                    innermost[block] = node
        return r

    def _spread(self, node: Loop, grown: list[Phi]) -> bool:
        """After header phis of `node` grew: their readers inside the loop, to the values' fixed point (a
        work list over Divergence.users); True if an if inside now has a divergent condition, the one
        way values change the control facts: then the body is walked again. (Most loops with a value
        carried divergent, an accumulator, have no if that reads it: no second walk.)"""
        res, pos = self.result, self.pos
        values, users = res.values, self.users
        low, high = pos[node], self.leave[node]
        work: list[Instr] = []
        for phi in grown:
            work += users.get(phi, ())
        while work:
            ins = work.pop()
            if ins in values:
                continue
            block = ins.block
            at = pos.get(block)             # (readers outside the loop: decided where the walk reaches them)
            if at is None or not low < at < high:
                continue
            t = ins.type
            if t is VOID or (t.kind == "void" and t == VOID):
                continue
            if divergent_from_operands(ins, block, self.result):     # type: ignore[arg-type]
                values.add(ins)
                work += users.get(ins, ())
        branches, temporal = res.branches, bool(res._innermost)
        _, _, start, end = self.slices[node]
        for branch, before in self.ifs[start:end]:
            cond = branch.cond
            if branch not in branches and (cond in values or (
                    temporal and not isinstance(cond, _NOT_READ) and res.divergent_at(cond, before))):
                return True
        return False
