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

from reconverge.lowering.ir.core import Function, Instr, Value
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
    drop_tokens(func)
    func.update_cfg()
    return True
