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

The transform, per loop L (the innermost loop holding the definition) and the operations O of L's tokens
outside L: the region R is every block outside L from which a block of O is reached without re-entering L
(the exit blocks holding O, and the blocks between L's exit edges and a deeper O: `if (c) { if (d)
r = reduce(x); break; }`). Each block holding O is split after its last such operation (its tail goes on
after the loop unless a later O follows it); every back edge of L and every edge leaving R branch to one new
latch, laid out after the blocks of L and R, that goes back to the header or on along the edge the lane left
R by (a phi says which; an edge from a branch with other targets leaves through a stub block, and a new
block after the latch takes the target's phis). The structurizer then places R inside L (before the break),
and blockIP's min-IP order runs R before the continuing lanes jump back (the latch's IP is above every
block of L and R). Values cross the new latch through phis (undef on the other paths). Where a block of R is
reached from outside L and R, or R runs a convergent operation of another token, the pass refuses with a
one-line error (never a silently different meeting); a token defined in R that means the same once R is in
L (an anchor, or a loop heart whose parent is L's token: a loop that -O2 moved out of L's body) is no other
token.

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


def fold_stray_loop_tokens(func: Function) -> None:
    """A convergence.loop outside every loop's header takes its parent token's place: LLVM's -O2 leaves
    one where it fully unrolled or deleted the loop, and LangRef's `loop` intrinsic outside a cycle heart
    runs once per dynamic instance of its parent (one outside the parent's cycle is still the cycle
    rule's error, which the validator reports)."""
    blocks, forest = _loops(func)
    stray = {ins: ins.operands[-1] for b in blocks if forest.header_of[b.index] != b.index for ins in b.instrs
             if ins.opcode == "convergence" and ins.attrs.get("kind") == "loop" and ins.operands}
    if not stray:
        return
    for b in blocks:
        b.instrs = [ins for ins in b.instrs if ins not in stray]
        for ins in b.instrs:
            for k, op in enumerate(ins.operands):
                while op in stray:
                    op = stray[op]
                ins.operands[k] = op


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
    """A loop and the blocks after it that hold operations whose token is defined in the loop, each with
    the index of its last such operation; None when every operation is inside its token's loop."""
    blocks, forest = _loops(func)
    for b in blocks:
        for ins in b.instrs:
            h = _home(ins, forest)
            if h != -1 and not forest.contains(h, b.index):
                ops = []
                for e in blocks:
                    last = max((i for i, x in enumerate(e.instrs) if _home(x, forest) == h
                                and not forest.contains(h, e.index)), default=-1)
                    if last != -1:
                        ops.append((e, last))
                return blocks[h], ops
    return None


def _region(func: Function, header: Block, ops: list[tuple[Block, int]]) -> list[Block]:
    """The blocks a lane passes from leaving the loop to the operations (every block outside the loop that
    reaches one of `ops`' blocks without re-entering the loop), in layout order; each must be reached only
    from the loop or from the region, and must hold no convergent operation of another token (both refused
    in one line: pulling it in would need a copy or would change that operation's meeting)."""
    blocks, forest = _loops(func)
    h = header.index
    hname = header.label or f"b{h}"
    region: set[Block] = set()
    work = [e for e, _ in ops]
    while work:
        b = work.pop()
        if b in region:
            continue
        region.add(b)
        work.extend(p for p in b.preds if not forest.contains(h, p.index))
    upto = {e: last for e, last in ops}
    for b in blocks:
        if b not in region:
            continue
        label = b.label or f"b{b.index}"
        culprit = b.instrs[upto.get(b, 0)] if b.instrs else None
        if b.index == 0 or not b.preds or any(p not in region and not forest.contains(h, p.index) for p in b.preds):
            raise NotSupported(f"{where(func, culprit)}: its convergence token comes from the loop at block {hname}, "
                               f"but block {label} on the way to it is not reached only from that loop "
                               f"(not supported: it would have to be duplicated)")
        for x in b.instrs[:upto.get(b, len(b.instrs) - 1) + 1]:
            if control_token(x) is not None and _home(x, forest) != h and not _moves_along(x, region, h, forest):
                raise NotSupported(f"{where(func, x)}: block {label} also runs operations of the loop at "
                                   f"block {hname} with a token from elsewhere (not supported)")
    return [b for b in blocks if b in region]


def _moves_along(ins: Instr, region: set[Block], h: int, forest: LoopForest) -> bool:
    """Whether `ins`'s token is defined in the region and means the same once the region is in the loop:
    an anchor (LangRef leaves its set of threads to the implementation; the scopes mode puts one in the
    header of the loop an operation was written in, here a loop LLVM moved after the exit of the loop it
    was written in: fuzz convergence-51088's waterfall loop), or a loop heart whose parent token is the
    loop's or moves along too."""
    token = control_token(ins)
    while isinstance(token, Instr) and token.opcode == "convergence" and token.block in region:
        if token.attrs.get("kind") == "anchor":
            return True
        if token.attrs.get("kind") != "loop" or not token.operands:
            return False
        parent = token.operands[-1]
        if isinstance(parent, Instr) and parent.block is not None and forest.contains(h, parent.block.index):
            return True
        token = parent
    return False


def _pull_into_loop(func: Function, header: Block, ops: list[tuple[Block, int]]) -> None:
    """Make the region between the loop's exits and its tokens' operations (up to each block's last such
    operation) part of the loop through one new latch that every back edge and every edge leaving the
    region branch to; the latch sends each lane back to the header or on where it was going (the module's
    docstring)."""
    region = _region(func, header, ops)
    in_loop = _members(func, header)     # now: once edges go to the latch, not yet in the function, the
    blocks = func.update_cfg()           # CFG holds blocks of stale indices (fuzz convergence-13266)
    dom = dominator_tree([[s.index for s in b.succs] for b in blocks], 0)
    old_latches = [p for p in header.preds if dom.dominates(header.index, p.index)]   # the back edges
    latch = Block(f"{header.label}.latch" if header.label else "latch")
    # split each operation's block after its last operation: the tail goes on after the latch, unless a
    # later operation of the loop's tokens follows it (then it stays in the region)
    inside = set(region)
    tails: dict[Block, Block] = {}
    for e, last in ops:
        rest = Block(f"{e.label}.rest" if e.label else "")
        rest.instrs = e.instrs[last + 1:]
        for ins in rest.instrs:
            ins.block = rest
        e.instrs = e.instrs[:last + 1]
        for succ in {id(t): t for t in rest.instrs[-1].targets}.values():
            for phi in succ.phis():
                phi.blocks = [rest if b is e else b for b in phi.blocks]
        e.append(Instr("br", [], targets=[rest]))
        if _reaches(rest, inside):
            if any(control_token(x) is not None for x in rest.instrs):
                raise NotSupported(f"{where(func, rest.instrs[0])}: block {e.label or 'b?'} runs operations of "
                                   f"the loop at block {header.label or 'b?'} around ones with a token from "
                                   f"elsewhere (not supported)")
            inside.add(rest)
            func.blocks.insert(func.blocks.index(e) + 1, rest)
        else:
            tails[e] = rest
    # every edge from the region to a block outside it goes through the latch (from a stub where the branch
    # has other targets) and on after it: to the split tail, or through a new block that the target's phis
    # now name
    leaving: list[tuple[Block, Block]] = []          # (the latch's predecessor, where the lane goes on)
    for b in [x for x in func.blocks if x in inside]:
        term = b.instrs[-1]
        for t in [t for t in {id(t): t for t in term.targets}.values() if t not in inside]:
            if tails.get(b) is t:
                on = t
            else:
                on = Block(f"{b.label}.on" if b.label else "")
                on.append(Instr("br", [], targets=[t]))
                for phi in t.phis():
                    phi.blocks = [on if x is b else x for x in phi.blocks]
            if term.opcode == "br":
                src = b
            else:
                src = Block(f"{b.label}.leave" if b.label else "")
                src.append(Instr("br", [], targets=[latch]))
                func.blocks.insert(func.blocks.index(b) + 1, src)
            term.targets = [src if x is t and src is not b else latch if x is t else x for x in term.targets]
            leaving.append((src, on))
    inside.update(src for src, _ in leaving)
    for p in old_latches:
        term = p.instrs[-1]
        term.targets = [latch if t is header else t for t in term.targets]
    # the header's phis take the back-edge values through the latch (undef from the region)
    for phi in list(header.phis()):
        back = [(b, v) for b, v in phi.incoming() if b in old_latches]
        kept = [(b, v) for b, v in phi.incoming() if b not in old_latches]
        merged = Phi(phi.type, [*back, *((src, Undef(phi.type)) for src, _ in leaving)],
                     name=f"{phi.name}.next" if phi.name else "")
        latch.append(merged)
        phi.blocks, phi.operands = [b for b, _ in kept], [v for _, v in kept]
        phi.add_incoming(latch, merged)
    # which way a lane goes on: back to the header (0) or along the edge it left the region by
    if len(leaving) == 1:
        sel_type, codes = I1, [Const(I1, 1)]
    else:
        sel_type, codes = I32, [Const(I32, j + 1) for j in range(len(leaving))]
    selector = Phi(sel_type, [*((p, Const(sel_type, 0)) for p in old_latches),
                              *((src, c) for (src, _), c in zip(leaving, codes))], name="leave")
    latch.append(selector)
    ons = [on for _, on in leaving]
    if len(leaving) == 1:
        latch.append(Instr("cbr", [selector], targets=[ons[0], header]))
    else:
        latch.append(Instr("switch", [selector], attrs={"cases": list(range(1, len(leaving) + 1))},
                           targets=[header, *ons]))
    # layout: the latch after every block of the loop and of the region, the blocks going on after it
    blocks_before = func.update_cfg()
    last = max(b.index for b in blocks_before if b in in_loop or b in inside)
    func.blocks[last + 1:last + 1] = [latch, *ons]
    _repair_dominance(func, latch)


def _reaches(start: Block, region: set[Block]) -> bool:
    seen, work = {start}, list(start.instrs[-1].targets)
    while work:
        b = work.pop()
        if b in region:
            return True
        if b not in seen:
            seen.add(b)
            work.extend(b.instrs[-1].targets)
    return False


def _members(func: Function, header: Block) -> set[Block]:
    blocks, forest = _loops(func)
    return {b for b in blocks if forest.contains(header.index, b.index)}


def _repair_dominance(func: Function, latch: Block) -> None:
    """Values whose definition no longer dominates a use (defined in a pulled exit block or in the loop,
    used past the latch) reach it through a phi in the latch (undef from where they are not defined). A use
    in a block the entry does not reach never runs and needs nothing: clang -O0 leaves such blocks, e.g. the
    increment of a `for` whose body always breaks (fuzz convergence-23120)."""
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
                if not dom.dominates(v.block.index, use_at.index) and dom.dominates(0, use_at.index):
                    if not dom.dominates(latch.index, use_at.index):
                        raise NotSupported(f"{where(func, ins)}: uses %{v.name or v.opcode} on a path the "
                                           f"convergence tokens' loop shape cannot give it (not supported)")
                    ins.operands[i] = via_latch(v)
