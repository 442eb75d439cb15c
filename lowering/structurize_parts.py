"""The structurizer's (lowering.passes.structurize) small parts: its variables and their loads and stores,
the tree's blocks and ifs as it makes them, the cursor at the end of a CF list being built, a switch case's
compares, and the tests and trims of a CF list's closing jump."""
from __future__ import annotations

from reconverge.lowering import graph
from reconverge.lowering.errors import IrreducibleCFG
from reconverge.lowering.ir.core import Block, CFNode, Const, Function, If, Instr, Value, last_block
from reconverge.lowering.ir.opcodes import JUMPS, TERMINATORS
from reconverge.lowering.ir.types import I1, Type

TYPE_CHECKING = False                   # not typing's: a compile's start-up does not import typing
if TYPE_CHECKING:
    from typing import Callable


RETURN = -1          # the structurizer's pseudo target: a block that only returns
_ENDS = TERMINATORS | JUMPS      # what may end a block (Block.terminator's test)


class Var:
    """A structurizer-internal variable, read and written by var_load/var_store until SSA is rebuilt.
    `attrs`: the one attrs dict ({"var": self}) all its loads and stores share (they only read it)."""
    __slots__ = ("name", "type", "attrs")

    def __init__(self, name: str, type: Type):
        self.name = name
        self.type = type
        self.attrs = {"var": self}

    def __repr__(self) -> str:
        return f"${self.name or hex(id(self))}"


# A store of a variable: (var, value), kept apart from the code until SSA reconstruction (lowering.ssa.rebuild)
# resolves it; no instruction is made (167k at 100k blocks). Its loads are instructions (their users hold them
# until then), var_load: made by the ten thousand and gone after SSA reconstruction; Instr's fields set directly,
# the variable's attrs dict and one empty target list shared (nothing adds to either: only terminators have
# targets).
VarStore = tuple[Var, Value]
_new_instr = Instr.__new__
_NO_TARGETS: list[Block] = []


def tree_block(parent: CFNode | Function | None = None) -> Block:
    """A Block of the tree being built (an empty one, as Block()): its edges are left to update_cfg, which
    ssa.rebuild runs before anything asks them (an empty tuple each until then, not two lists to drop)."""
    b = _new_block(Block)
    b.parent, b.instrs, b.succs, b.preds = parent, [], _NO_EDGES, _NO_EDGES      # type: ignore[assignment]
    b.label, b.index, b.source_lines = "", -1, None
    return b


def tree_if(cond: Value, parent: CFNode | Function | None) -> If:
    """If(cond) with tree_block arms (a fifth of the tree's blocks are an if's first two)."""
    node = _new_if(If)
    node.parent, node.cond = parent, cond
    then_b, else_b = _new_block(Block), _new_block(Block)         # (tree_block(node) twice, without the calls)
    then_b.parent, then_b.instrs, then_b.succs, then_b.preds = node, [], _NO_EDGES, _NO_EDGES  # type: ignore[assignment]
    else_b.parent, else_b.instrs, else_b.succs, else_b.preds = node, [], _NO_EDGES, _NO_EDGES  # type: ignore[assignment]
    then_b.label, then_b.index, then_b.source_lines = else_b.label, else_b.index, else_b.source_lines = "", -1, None
    node.then_list, node.else_list = [then_b], [else_b]
    return node


_new_block, _new_if = Block.__new__, If.__new__
_NO_EDGES = ()


def var_load(var: Var, name: str = "") -> Instr:
    ins = _new_instr(Instr)
    ins.type, ins.name, ins.opcode, ins.operands = var.type, name, "var_load", []
    ins.attrs, ins.targets, ins.block = var.attrs, _NO_TARGETS, None
    return ins


class _Cursor:
    """The end of a CF list being built (of `parent`: an If's arm, a Loop's body, the Function's body):
    instructions go into its last block."""
    __slots__ = ("nodes", "parent")

    def __init__(self, nodes: list[CFNode], parent: CFNode | Function):
        self.nodes = nodes
        self.parent = parent

    def add(self, node: CFNode) -> None:
        """(the parent's add, add_then or add_else)"""
        node.parent = self.parent
        self.nodes.append(node)

    def block(self) -> Block:
        return self.nodes[-1]            # type: ignore[return-value]  # (hot: last_block inlined)

    def emit(self, ins: Instr) -> Instr:
        block: Block = self.nodes[-1]    # type: ignore[assignment]
        ins.block = block
        block.instrs.append(ins)
        return ins


def equals(users: list[Instr], value: Value, consts: list[int]) -> Callable[[_Cursor], Value]:
    """The code of `value == c0 || value == c1 ...` at a cursor, each compare noted in `users` (for
    ssa.rebuild: `value` may be a load)."""
    def make(cursor: _Cursor) -> Value:
        cond: Value | None = None
        for c in consts:
            eq = cursor.emit(Instr("icmp", [value, Const(value.type, c)], I1, {"pred": "eq"}))
            users.append(eq)
            cond = eq if cond is None else cursor.emit(Instr("or", [cond, eq], I1))
        assert cond is not None, "a case has constants"
        return cond
    return make


def _ends_in(nodes: list[CFNode], opcode: str) -> bool:
    """The CF list's last block ends in this jump (it may instead be unreachable after an if whose
    arms both jump)."""
    jump = last_block(nodes).jump
    return jump is not None and jump.opcode == opcode


def _drop_tail_jump(nodes: list[CFNode], opcode: str) -> None:
    """A loop body's last `continue` and the function's last `return` (void) say nothing: drop them.
    (_emit_loop drops each loop body's as it completes it: no walk of the whole tree for them.)"""
    last = last_block(nodes)
    if last.instrs and last.instrs[-1].opcode == opcode and not last.instrs[-1].operands:
        last.instrs.pop()


def block_name(b: Block) -> str:
    return f"%{b.label}" if b.label else f"block #{b.index}"


def dominators_and_loops(func: Function, nodes: list[Block], succs: graph.Succs, preds: graph.Succs,
                         order: list[int], rpo: list[int]) -> tuple[graph.DomTree, graph.LoopForest]:
    """The structurizer's dominator tree and loop forest of its node graph, or IrreducibleCFG naming the
    first edge that enters a loop not through its header. The dominators in one pass (exact for the
    reducible graphs loop_forest accepts with them, see graph.immediate_dominators; the second pass that
    confirmed them was 0.03 CPU s at 100k blocks); for an irreducible one, again in full, so that the
    edge named is the one every pass would name."""
    idom = graph.immediate_dominators(succs, 0, preds, order, rpo, one_pass=True)
    dom = graph.DomTree.build(idom, 0)
    try:
        return dom, graph.loop_forest(succs, 0, dom, preds, order=order, num=rpo)
    except graph.IrreducibleError:
        pass
    dom = graph.DomTree.build(graph.immediate_dominators(succs, 0, preds, order, rpo), 0)
    try:
        return dom, graph.loop_forest(succs, 0, dom, preds, order=order, num=rpo)
    except graph.IrreducibleError as exc:
        u, v = exc.edges[0]
        source, target = nodes[u], nodes[v]
        lines = source.source_lines, target.source_lines
        where = f" ({lines[0][1]} -> {lines[1][0]})" if lines[0] and lines[1] else ""
        raise IrreducibleCFG(
            f"{func.source_name or '<input>'}: function @{func.name}: irreducible control flow: the edge "
            f"{block_name(source)} -> {block_name(target)}{where} enters a loop not through its "
            f"header, yet make_reducible found no cycle with two entries to guard (an internal error)") from None


def block_postorder(terms: list[Instr | None]) -> list[int]:
    """The numbers of the blocks reachable from block 0, given each block's terminator (None: none), in the
    depth-first postorder graph.postorder gives (successors in their terminator's order)."""
    seen = bytearray(len(terms))
    seen[0] = 1
    order: list[int] = []
    t = terms[0]
    stack = [(0, iter(t.targets if t is not None else ()))]
    while stack:
        node, it = stack[-1]
        for s in it:
            k = s.index
            if not seen[k]:
                seen[k] = 1
                t = terms[k]
                stack.append((k, iter(t.targets if t is not None else ())))
                break
        else:
            stack.pop()
            order.append(node)
    return order


def number_blocks(blocks: list[Block]) -> tuple[list[Instr | None], list[Block], list[Instr | None], list[int]]:
    """The structurizer's numbering of a CFG-form function's blocks in one loop: each block's index set, and
    (by block number) its terminator or None; the nodes, the blocks but those holding only `ret void`
    (but the entry), with their terminators; each block's node number, RETURN for a return-only block."""
    terms: list[Instr | None] = []
    nodes: list[Block] = []
    node_terms: list[Instr | None] = []
    node_of = [RETURN] * len(blocks)
    entry = blocks[0]
    for i, b in enumerate(blocks):
        b.index = i
        instrs = b.instrs                         # (Block.terminator, inlined: a call per block)
        t = instrs[-1] if instrs and instrs[-1].opcode in _ENDS else None
        terms.append(t)
        if len(instrs) == 1 and t is not None and t.opcode == "ret" and not t.operands and b is not entry:
            continue
        node_of[i] = len(nodes)
        nodes.append(b)
        node_terms.append(t)
    return terms, nodes, node_terms, node_of
