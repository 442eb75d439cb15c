"""The structured IR's rules, checked after every pass (tests and --verify-each).

Contract (Mesa NIR's control-flow model plus SSA):
- tree: every CF list is non-empty, starts and ends with a block and holds exactly one block between two
  ifs/loops; parent links are right; an if's condition is an i1 defined before it;
- jumps: break/continue/return only as the last instruction of a block that ends its CF list;
  break/continue only inside a loop; no CFG terminators or structurizer variables survive;
- CFG: the stored succs/preds of every block equal what the tree implies; the start block has no
  predecessors; the end block is empty; no critical edges;
- phis: only at the top of the block after an if, the block after a loop, or a loop's first block, with
  exactly one source per predecessor;
- SSA: every operand is a constant, undef, an argument of this function or an instruction placed in
  it; definitions dominate uses (a phi's source dominates the end of its predecessor);
- opcodes come from lowering.ir.opcodes, with their operand counts.
Errors are collected, not thrown one by one, so a dump can show them all.
"""
from __future__ import annotations

from lowering.analysis import graph
from lowering.deepstack import depth_independent
from lowering.ir.core import (
    TERMINATORS,
    Arg,
    Block,
    CFNode,
    Const,
    Function,
    If,
    Instr,
    Loop,
    Phi,
    Undef,
    cf_lists,
    structured_successors,
)
from lowering.ir.opcodes import OPCODES
from lowering.ir.types import I1


class ValidationError(Exception):
    def __init__(self, func: Function, errors: list[str], after: str = ""):
        where = f" after {after}" if after else ""
        super().__init__(f"function @{func.name}: invalid IR{where}: {errors[0]}"
                         + (f" (and {len(errors) - 1} more)" if len(errors) > 1 else ""))
        self.errors = errors


@depth_independent
def validate(func: Function) -> list[str]:
    if not func.is_structured:
        from lowering.ir.validate_cfg import validate_cfg
        return validate_cfg(func)
    return _StructuredValidator(func).run()


def verify(func: Function, after: str = "") -> None:
    errors = validate(func)
    if errors:
        raise ValidationError(func, errors, after)


class _StructuredValidator:
    def __init__(self, func: Function):
        self.func = func
        self.errors: list[str] = []

    def error(self, where: str, message: str) -> None:
        self.errors.append(f"{where}: {message}")

    def run(self) -> list[str]:
        func = self.func
        if not func.body:
            return ["function body is empty"]
        self.blocks: list[Block] = []
        self.phi_ok: set[Block] = set()       # blocks where phis may stand
        self._check_list(func.body, func, in_loop=False)
        if self.errors:
            return self.errors                # the tree is broken: the rest would only echo it
        func.index_blocks()
        self._check_cfg()
        self._check_instructions()
        if not self.errors:
            self._check_dominance()
        return self.errors

    # ----- tree shape
    def _check_list(self, nodes: list[CFNode], parent, in_loop: bool) -> None:
        owner = type(parent).__name__.lower()
        if not nodes:
            self.error(owner, "empty CF list")
            return
        if not isinstance(nodes[0], Block) or not isinstance(nodes[-1], Block):
            self.error(owner, "a CF list must start and end with a block")
        for i, node in enumerate(nodes):
            if node.parent is not parent:
                self.error(owner, f"node {i} of a CF list has a wrong parent link")
            if i and isinstance(node, Block) == isinstance(nodes[i - 1], Block):
                what = "two blocks" if isinstance(node, Block) else "two ifs/loops"
                self.error(owner, f"{what} in a row in a CF list (position {i})")
            if isinstance(node, Block):
                self.blocks.append(node)
                jump = node.jump
                if jump is not None:
                    if jump.opcode in ("break", "continue") and not in_loop:
                        self.error(f"block #{len(self.blocks) - 1}", f"{jump.opcode} outside a loop")
                    if i != len(nodes) - 1:
                        self.error(f"block #{len(self.blocks) - 1}", "a block ending in a jump must end its CF list")
                if i and isinstance(nodes[i - 1], (If, Loop)):
                    self.phi_ok.add(node)
            elif isinstance(node, If):
                if node.cond is None or node.cond.type != I1:
                    self.error("if", "condition must be an i1 value")
                self._check_list(node.then_list, node, in_loop)
                self._check_list(node.else_list, node, in_loop)
            elif isinstance(node, Loop):
                if node.body and isinstance(node.body[0], Block):
                    self.phi_ok.add(node.body[0])
                self._check_list(node.body, node, True)
            else:
                self.error(owner, f"unknown CF node {type(node).__name__}")

    # ----- CFG agreement
    def _check_cfg(self) -> None:
        func = self.func
        expected = structured_successors(func)
        preds: dict[Block, list[Block]] = {b: [] for b in self.blocks}
        preds[func.end_block] = []
        for b in self.blocks:
            exp = expected.get(b, [])
            if b.succs != exp:
                self.error(f"block b{b.index}", "stored successors disagree with the tree")
            for s in exp:
                preds[s].append(b)
        for b, ps in preds.items():
            if sorted(id(p) for p in b.preds) != sorted(id(p) for p in ps):
                self.error(f"block b{b.index}", "stored predecessors disagree with the tree")
        if self.blocks[0].preds:
            self.error("block b0", "the start block has predecessors")
        if func.end_block.instrs:
            self.error("end block", "the end block must be empty")
        self._check_critical_edges()

    def _check_critical_edges(self) -> None:
        """An edge from a block with several successors to one with several predecessors."""
        for b in self.blocks:
            if len(b.succs) > 1:
                for s in b.succs:
                    if len(s.preds) > 1:
                        self.error(f"block b{b.index}", f"critical edge to b{s.index}")

    # ----- instructions
    def _check_instructions(self) -> None:
        func = self.func
        self.defined: dict[Instr, tuple[Block, int]] = {}
        args = set(map(id, func.args))
        for b in self.blocks:
            for i, ins in enumerate(b.instrs):
                where = f"block b{b.index}, instruction {i} ({ins.opcode})"
                if ins in self.defined:
                    self.error(where, "instruction appears twice")
                self.defined[ins] = (b, i)
                if ins.block is not b:
                    self.error(where, "instruction's block link is wrong")
                op = OPCODES.get(ins.opcode)
                if op is None:
                    self.error(where, "unknown opcode")
                    continue
                if ins.opcode in TERMINATORS or ins.opcode in ("var_load", "var_store"):
                    self.error(where, "not allowed in structured form")
                if op.n_operands >= 0 and len(ins.operands) != op.n_operands:
                    self.error(where, f"expects {op.n_operands} operands, has {len(ins.operands)}")
                if ins.is_jump and i != len(b.instrs) - 1:
                    self.error(where, "a jump must be the last instruction of its block")
                if isinstance(ins, Phi):
                    if any(not isinstance(x, Phi) for x in b.instrs[:i]):
                        self.error(where, "phis must come first in their block")
                    if b not in self.phi_ok:
                        self.error(where, "a phi may only stand after an if, after a loop or at a loop header")
                    if len(ins.blocks) != len(b.preds) or set(map(id, ins.blocks)) != set(map(id, b.preds)):
                        self.error(where, "phi sources must be exactly one per predecessor")
                for v in ins.operands:
                    if isinstance(v, (Const, Undef)):
                        continue
                    if isinstance(v, Arg):
                        if id(v) not in args:
                            self.error(where, "uses an argument of another function")
                    elif not isinstance(v, Instr):
                        self.error(where, f"operand of unknown kind {type(v).__name__}")

    def _check_dominance(self) -> None:
        func = self.func
        succs = [[s.index for s in b.succs if s is not func.end_block] for b in self.blocks]
        dom = graph.dominator_tree(succs, 0)
        reachable = [dom.pre[b.index] >= 0 for b in self.blocks]

        def ok(v, block: Block, index: int) -> bool:
            if not isinstance(v, Instr):
                return True
            if v not in self.defined:
                return False
            db, di = self.defined[v]
            return di < index if db is block else dom.dominates(db.index, block.index)

        for b in self.blocks:
            if not reachable[b.index]:
                continue
            for i, ins in enumerate(b.instrs):
                if isinstance(ins, Phi):
                    for p, v in ins.incoming():
                        if reachable[p.index] and not ok(v, p, len(p.instrs)):
                            self.error(f"block b{b.index}, phi {i}", f"source from b{p.index} does not dominate that edge")
                else:
                    for v in ins.operands:
                        if not ok(v, b, i):
                            self.error(f"block b{b.index}, instruction {i} ({ins.opcode})",
                                       "uses a value whose definition does not dominate it")
        for nodes in cf_lists(func):                    # an if's condition is read where the block before ends
            for i, node in enumerate(nodes):
                if isinstance(node, If):
                    before = nodes[i - 1]
                    if reachable[before.index] and not ok(node.cond, before, len(before.instrs)):
                        self.error(f"if after b{before.index}", "condition's definition does not dominate the if")
