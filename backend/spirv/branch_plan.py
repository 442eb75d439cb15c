"""Fewer blocks around a loop's exits: the branch shapes glslang + spirv-opt write, planned on the tree.

The tree gives every break and continue a block of its own (`if c { break } else { }`), ends a loop body
with an empty block that falls to the continue target, and emit.py gives each loop a header block of its
own. Spelled out, a one-block loop costs six blocks, a selection construct and a negation per exit. SPIR-V
(spec 2.11) needs no OpSelectionMerge before an OpBranchConditional one of whose targets is a declared
merge block or continue target, so where an if's arm is only a break or a continue the branch goes
there directly, with no selection construct:
- a *bare* arm (one block holding nothing but a break or continue) is not emitted: the branch targets
  the loop's merge or continue target, and phis that named the arm name the block before the if (the
  arm's only predecessor, and now the edge's source);
- the if needs no OpSelectionMerge, so its following block is no merge block: when it is empty and ends
  the loop body (it falls to the continue target, whose phis cannot name it because the loop has one
  back edge) it is not emitted either, and branches to it go to the continue target;
- a loop whose first block needs no selection merge of its own shares that block with its header (the
  header's phis, then the block's code, OpLoopMerge and its branch);
- a loop left as one block (header, a conditional exit, the continue target's plain back edge) is its own
  continue target, as spirv-opt writes single-block loops;
- any if on `xor c, true` branches on c with its targets swapped (the negation is then dead code).
Only a block that is nothing but a jump or nothing at all is dropped, so every instruction keeps its
block; dot-spirv (`block_names`) keeps every block of the tree and plans nothing.
"""
from __future__ import annotations

from reconverge.lowering.ir.core import Block, CFNode, Const, Function, If, Instr, Loop, Value, cf_lists, first_block
from reconverge.records import field, record


@record
class BranchPlan:
    bare: dict[Block, str] = field(default_factory=dict)    # a bare arm's block -> "break" / "continue"
    skipped: set[Block] = field(default_factory=set)         # blocks not emitted (bare arms, dropped ends)
    no_merge: set[If] = field(default_factory=set)           # ifs branching without OpSelectionMerge
    header_first: set[Loop] = field(default_factory=set)     # loops whose header holds the first block
    single_block: set[Loop] = field(default_factory=set)     # loops that are their own continue target
    negated: dict[If, Value] = field(default_factory=dict)   # if on `not c` -> c (targets swapped)


def negated_operand(cond: Value) -> Value | None:
    """c where cond is `xor c, true` on i1 (how the front end writes a negation)."""
    if isinstance(cond, Instr) and cond.opcode == "xor" and cond.type.is_int and cond.type.bits == 1:
        a, b = cond.operands
        for x, k in ((a, b), (b, a)):
            if isinstance(k, Const) and int(k.value) & 1:
                return x
    return None


def _bare_jump(arm: list) -> str | None:
    """'break' / 'continue' where the arm is one block holding only that jump."""
    if len(arm) == 1 and isinstance(arm[0], Block) and len(arm[0].instrs) == 1:
        op = arm[0].instrs[0].opcode
        if op in ("break", "continue"):
            return op
    return None


def _inside_loop(nodes: list) -> bool:
    node = nodes[0]
    while isinstance(node, CFNode):
        node = node.parent
        if isinstance(node, Loop):
            return True
    return False


def plan_branches(func: Function, reachable: set[Block], empty_arms: set[Block]) -> BranchPlan:
    plan = BranchPlan()
    ends: dict[Block, Loop] = {}        # dropped empty blocks that end a loop body -> the loop
    for nodes in cf_lists(func):
        for node in nodes:
            if isinstance(node, If):
                neg = negated_operand(node.cond)
                if neg is not None:
                    plan.negated[node] = neg
        if not _inside_loop(nodes):
            continue
        for i, node in enumerate(nodes):
            if not isinstance(node, If):
                continue
            jumps = [_bare_jump(node.then_list), _bare_jump(node.else_list)]
            if jumps[0] is None and jumps[1] is None or jumps[0] == jumps[1]:
                continue        # (two bare arms to one target would name one predecessor twice in a phi)
            plan.no_merge.add(node)
            for arm, jump in zip((node.then_list, node.else_list), jumps):
                if jump is not None:
                    plan.bare[first_block(arm)] = jump
                    plan.skipped.add(first_block(arm))
            after = nodes[i + 1]
            loop = node.parent
            if isinstance(after, Block) and after not in reachable:
                plan.skipped.add(after)
            elif isinstance(loop, Loop) and loop.body is nodes and i + 2 == len(nodes) and \
                    isinstance(after, Block) and not after.instrs and _back_edges(loop, reachable) == [after]:
                plan.skipped.add(after)
                ends[after] = loop
    for nodes in cf_lists(func):
        for node in nodes:
            if isinstance(node, Loop):
                _plan_loop(plan, node, reachable, empty_arms, ends)
    return plan


def _back_edges(loop: Loop, reachable: set[Block]) -> list[Block]:
    first = loop.body[0]
    assert isinstance(first, Block)
    inside = _blocks_in(loop.body)
    return [p for p in first.preds if p in inside and p in reachable]


def _blocks_in(nodes: list) -> set[Block]:
    out: set[Block] = set()
    for node in nodes:
        if isinstance(node, Block):
            out.add(node)
        elif isinstance(node, If):
            out |= _blocks_in(node.then_list) | _blocks_in(node.else_list)
        else:
            out |= _blocks_in(node.body)
    return out


def _plan_loop(plan: BranchPlan, loop: Loop, reachable: set[Block], empty_arms: set[Block],
               ends: dict[Block, Loop]) -> None:
    first, body = loop.body[0], loop.body
    if not isinstance(first, Block) or first not in reachable:
        return
    jump = first.jump
    if jump is not None and jump.opcode == "return":
        return
    nxt = body[1] if len(body) > 1 else None
    if isinstance(nxt, If) and nxt not in plan.no_merge:
        return                  # its block ends in OpSelectionMerge: the header's OpLoopMerge cannot join it
    plan.header_first.add(loop)
    if len(body) == 3 and isinstance(nxt, If) and body[2] in plan.skipped and \
            (ends.get(body[2]) is loop or body[2] not in reachable) and \
            all(arm[0] in plan.bare or arm[0] in empty_arms for arm in (nxt.then_list, nxt.else_list)) and \
            len(_back_edges(loop, reachable)) == 1:
        plan.single_block.add(loop)
