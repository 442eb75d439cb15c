"""The structured form's successors as the tree defines them: the definition update_cfg's one walk
(lowering.ir.core) must agree with, for the validator, liveness and the tests."""
from __future__ import annotations

from reconverge.lowering.ir.core import Block, CFNode, Function, If, Loop
from reconverge.lowering.ir.opcodes import JUMPS
from reconverge.typing_free import cast


def structured_successors(func: Function) -> dict[Block, list[Block]]:
    """Successors of every block as the tree defines them (NIR's rules)."""
    succs: dict[Block, list[Block]] = {}
    end = func.end_block
    jumps = JUMPS
    # work items: (cf list, block control reaches after the list, innermost loop (header, after) or None)
    work: list[tuple[list[CFNode], Block, tuple[Block, Block] | None]] = [(func.body, end, None)]
    while work:
        nodes, follow, loop = work.pop()
        last = len(nodes) - 1
        for i, node in enumerate(nodes):            # (hot: every block of every CFG rebuild, inlined)
            if isinstance(node, Block):
                instrs = node.instrs
                jump = instrs[-1].opcode if instrs else None
                if jump in jumps:
                    if jump == "return":
                        succs[node] = [end]
                    elif loop is None:
                        succs[node] = []          # invalid: the validator reports it
                    else:
                        succs[node] = [loop[1] if jump == "break" else loop[0]]
                    continue
                if i == last:
                    succs[node] = [follow]
                    continue
                nxt = nodes[i + 1]
                if isinstance(nxt, If):
                    succs[node] = [cast(Block, nxt.then_list[0]), cast(Block, nxt.else_list[0])]
                elif isinstance(nxt, Loop):
                    succs[node] = [cast(Block, nxt.body[0])]
                else:
                    succs[node] = [cast(Block, nxt)]   # two blocks in a row: invalid, reported by the validator
                continue
            after = nodes[i + 1] if i < last else None
            if not isinstance(after, Block):
                after = follow
            if isinstance(node, If):
                work.append((node.then_list, after, loop))
                work.append((node.else_list, after, loop))
            elif isinstance(node, Loop):
                head = cast(Block, node.body[0])
                work.append((node.body, head, (head, after)))
    return succs
