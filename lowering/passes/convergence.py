"""Convergence-control tokens -> the CFG's shape, then the tokens removed (every target, every mode).

LLVM's convergence tokens (LangRef, "Convergent Operation Semantics") say which dynamic instances of a
convergent operation communicate. Our targets decide that from the CFG alone: a lock-step GPU (the
structured tree, Gen's blockIP and its hybrid) runs an operation together for the lanes that reach it in the
same iteration of every loop (natural cycle, graph.loop_forest) that contains it. So this pass rewrites the
CFG until that shape rule gives what the tokens say, and then drops the tokens; nothing after it (the
structurizer, blockIP, the interpreter, SPIR-V, Gen) sees or needs a token, and a function without tokens
is left exactly as it was.

The rule: a convergent operation runs inside every loop that contains its token's definition, in the same
iteration (LangRef: a use outside a cycle of a definition inside it means the threads that left the cycle in
the same iteration). -O2 moves a waterfall loop's reduction into the loop's exit block; with a token from
an anchor or loop heart in the loop, the reduction must run in the iteration that exits, over only the lanes
that exit then; with the entry token (defined outside), it runs after the loop with every lane, as the CFG
already says.

The transform, per loop L (the innermost loop holding the definition) and exit block E of L holding such an
operation: E is split after its last such operation into E (now part of L) and E.rest; every back edge of L
and every such E branch to one new latch, laid out after L's blocks, that goes back to the header or on to
the E.rest the lane came from (a phi says which). The structurizer then places E inside L (before the
break), and blockIP's min-IP order runs E before the continuing lanes jump back (the latch's IP is above
every block of L). Values cross the new latch through phis (undef on the other paths). Where E is also
reachable from outside L, or the operation is not in an exit block of L, the pass refuses with a one-line
error (never a silently different meeting).

Interface for other front ends (the `scopes` convergence mode): to ask that a convergent instruction U
run inside the loop body it was written in, give it a token: add `%t = convergence.anchor token` (an Instr
with opcode "convergence", attrs {"kind": "anchor"}, type TOKEN) in a block of that loop (its header is
simplest) and append %t as U's LAST operand; this pass does the rest. Tokens are valid only in CFG form
(the validator checks LLVM's static rules on them; lowering.ir.validate).
"""
from __future__ import annotations

from reconverge.lowering.errors import NotSupported, where
from reconverge.lowering.graph import IrreducibleError, LoopForest, dominator_tree, loop_forest
from reconverge.lowering.ir.core import Block, Const, Function, Instr, Phi, Undef, Value
from reconverge.lowering.ir.types import I1, I32
from reconverge.lowering.target import TargetCaps

NAME = "convergence"
FORM = "cfg"


def has_tokens(func: Function) -> bool:
    return any(ins.opcode == "convergence" for b in func.blocks for ins in b.instrs)


def control_token(ins: Instr) -> Value | None:
    """The token a convergent instruction is controlled by (its last operand), or None."""
    if ins.opcode != "convergence" and ins.operands and ins.operands[-1].type.is_token:
        return ins.operands[-1]
    return None


def drop_tokens(func: Function) -> None:
    """Remove every token operand and convergence instruction."""
    for b in func.blocks:
        for ins in b.instrs:
            if control_token(ins) is not None:
                ins.operands.pop()
        b.instrs = [ins for ins in b.instrs if ins.opcode != "convergence"]


def run(func: Function, caps: TargetCaps) -> bool:
    if not has_tokens(func):
        return False
    while (escape := _first_escape(func)) is not None:
        _pull_into_loop(func, *escape)
    drop_tokens(func)
    func.update_cfg()
    return True


def _loops(func: Function) -> tuple[list[Block], LoopForest]:
    blocks = func.update_cfg()
    succs = [[s.index for s in b.succs] for b in blocks]
    try:
        return blocks, loop_forest(succs, 0)
    except IrreducibleError:
        raise NotSupported(f"{where(func)}: convergence tokens in an irreducible CFG are not supported") from None


def _home(ins: Instr, forest: LoopForest) -> int:
    """The header of the innermost loop holding the definition of `ins`'s token (-1: none)."""
    token = control_token(ins)
    if ins.opcode == "convergence" or not isinstance(token, Instr) or token.block is None:
        return -1
    return forest.header_of[token.block.index]


def _first_escape(func: Function) -> tuple[Block, list[tuple[Block, int]]] | None:
    """A loop and its exit blocks that hold operations whose token is defined in the loop, each with the
    index of its last such operation; None when every operation is inside its token's loop."""
    blocks, forest = _loops(func)
    for b in blocks:
        for ins in b.instrs:
            h = _home(ins, forest)
            if h != -1 and not forest.contains(h, b.index):
                exits = []
                for e in blocks:
                    last = max((i for i, x in enumerate(e.instrs) if _home(x, forest) == h
                                and not forest.contains(h, e.index)), default=-1)
                    if last != -1:
                        exits.append((e, last))
                _check_exits(func, blocks[h], exits, forest)
                return blocks[h], exits
    return None


def _check_exits(func: Function, header: Block, exits: list[tuple[Block, int]], forest: LoopForest) -> None:
    h = header.index
    for e, last in exits:
        label = e.label or f"b{e.index}"
        if not e.preds or any(not forest.contains(h, p.index) for p in e.preds):
            raise NotSupported(f"{where(func, e.instrs[last])}: its convergence token comes from the loop at "
                               f"block {header.label or f'b{h}'}, but block {label} is not an exit block reached "
                               f"only from that loop (not supported: it would have to be duplicated)")
        for x in e.instrs[:last + 1]:
            token = control_token(x)
            if token is not None and x.opcode != "convergence" and _home(x, forest) != h:
                raise NotSupported(f"{where(func, x)}: block {label} also runs operations of the loop at "
                                   f"block {header.label or f'b{h}'} with a token from elsewhere (not supported)")


def _pull_into_loop(func: Function, header: Block, exits: list[tuple[Block, int]]) -> None:
    """Make each exit block (up to its last operation of the loop's tokens) part of the loop through one
    new latch that every back edge and every such exit block branch to (the module's docstring)."""
    old_latches = [p for p in header.preds if p.index >= 0 and _dominates_edge(func, header, p)]
    latch = Block(f"{header.label}.latch" if header.label else "latch")
    rests: list[Block] = []
    for e, last in exits:
        rest = Block(f"{e.label}.rest" if e.label else "")
        rest.instrs = e.instrs[last + 1:]
        for ins in rest.instrs:
            ins.block = rest
        e.instrs = e.instrs[:last + 1]
        for succ in {id(t): t for t in rest.instrs[-1].targets}.values():
            for phi in succ.phis():
                phi.blocks = [rest if b is e else b for b in phi.blocks]
        e.append(Instr("br", [], targets=[latch]))
        rests.append(rest)
    for p in old_latches:
        term = p.instrs[-1]
        term.targets = [latch if t is header else t for t in term.targets]
    # the header's phis take the back-edge values through the latch (undef from the exits)
    for phi in list(header.phis()):
        back = [(b, v) for b, v in phi.incoming() if b in old_latches]
        kept = [(b, v) for b, v in phi.incoming() if b not in old_latches]
        merged = Phi(phi.type, [*back, *((e, Undef(phi.type)) for e, _ in exits)],
                     name=f"{phi.name}.next" if phi.name else "")
        latch.append(merged)
        phi.blocks, phi.operands = [b for b, _ in kept], [v for _, v in kept]
        phi.add_incoming(latch, merged)
    # which way a lane goes on: back to the header (0) or to the rest of the exit block it came from
    if len(exits) == 1:
        sel_type, codes = I1, [Const(I1, 1)]
    else:
        sel_type, codes = I32, [Const(I32, j + 1) for j in range(len(exits))]
    selector = Phi(sel_type, [*((p, Const(sel_type, 0)) for p in old_latches),
                              *((e, c) for (e, _), c in zip(exits, codes))], name="leave")
    latch.append(selector)
    if len(exits) == 1:
        latch.append(Instr("cbr", [selector], targets=[rests[0], header]))
    else:
        latch.append(Instr("switch", [selector], attrs={"cases": list(range(1, len(exits) + 1))},
                           targets=[header, *rests]))
    # layout: the latch after every block of the loop and the pulled exit blocks, the rests after it
    blocks_before = func.update_cfg()
    in_loop = _members(func, header)
    last = max(b.index for b in blocks_before if b in in_loop or any(b is e for e, _ in exits))
    func.blocks[last + 1:last + 1] = [latch, *rests]
    _repair_dominance(func, latch, exits)


def _dominates_edge(func: Function, header: Block, pred: Block) -> bool:
    """pred -> header is a back edge (header dominates pred)."""
    blocks = func.update_cfg()
    dom = dominator_tree([[s.index for s in b.succs] for b in blocks], 0)
    return dom.dominates(header.index, pred.index)


def _members(func: Function, header: Block) -> set[Block]:
    blocks, forest = _loops(func)
    return {b for b in blocks if forest.contains(header.index, b.index)}


def _repair_dominance(func: Function, latch: Block, exits: list[tuple[Block, int]]) -> None:
    """Values whose definition no longer dominates a use (defined in a pulled exit block or in the loop,
    used past the latch) reach it through a phi in the latch (undef from where they are not defined)."""
    blocks = func.update_cfg()
    dom = dominator_tree([[s.index for s in b.succs] for b in blocks], 0)
    through: dict[int, Phi] = {}

    def defined_before(v: Value, block: Block) -> bool:
        return not isinstance(v, Instr) or v.block is None or dom.dominates(v.block.index, block.index)

    def via_latch(v: Instr) -> Phi:
        phi = through.get(id(v))
        if phi is None:
            phi = through[id(v)] = Phi(v.type, [(p, v if defined_before(v, p) else Undef(v.type))
                                                for p in latch.preds], name=f"{v.name}.latch" if v.name else "")
            latch.insert(0, phi)
        return phi
    for b in blocks:
        if b is latch:
            continue
        for ins in b.instrs:
            for i, v in enumerate(ins.operands):
                use_at = ins.blocks[i] if isinstance(ins, Phi) else b
                if not isinstance(v, Instr) or v.block is None or v.block is use_at and not isinstance(ins, Phi):
                    continue
                if not dom.dominates(v.block.index, use_at.index):
                    if not dom.dominates(latch.index, use_at.index):
                        raise NotSupported(f"{where(func, ins)}: uses %{v.name or v.opcode} on a path the "
                                           f"convergence tokens' loop shape cannot give it (not supported)")
                    ins.operands[i] = via_latch(v)
