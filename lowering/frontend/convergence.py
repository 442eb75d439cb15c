"""What decides which loop a convergent operation runs in: `--convergence=tokens|scopes|cfg|auto`.

- tokens: the IR's own convergence control (llvm.experimental.convergence.* and "convergencectrl"
  bundles, read as `convergence` instructions and a trailing token operand); the `convergence` pass
  keeps each operation inside every loop that holds its token's definition.
- scopes: `-g`'s lexical scopes (lowering.frontend.source_scopes): an operation the CFG places after a
  loop it was written in gets a token anchored in that loop's header, so the same pass keeps it there.
- cfg: the CFG's shape alone. An operation in a block outside every loop runs after the loop, with
  every lane that reaches it; the -O2 waterfall (its reduction in the loop's exit block) then sums over
  every lane, as a reduction written after the loop would, and no rule on the CFG alone can tell them apart.
- auto: the first of tokens, scopes, cfg the kernel has.

A source asked for and absent is a one-line error naming the kernel.
"""
from __future__ import annotations

from reconverge.lowering.errors import CompileError
from reconverge.lowering.frontend.loop_separation import separated_loop_homes
from reconverge.lowering.frontend.removed_loops import refuse_calls_in_removed_loops
from reconverge.lowering.frontend.source_scopes import CONVERGENT, ScopeNotes
from reconverge.lowering.ir.core import Function, Instr
from reconverge.lowering.ir.types import TOKEN
from reconverge.lowering.passes.convergence import drop_tokens, fold_stray_loop_tokens, has_tokens

MODES = ("auto", "tokens", "scopes", "cfg")


def apply(func: Function, notes: ScopeNotes | None, mode: str, where: str, tokens: bool | None = None) -> str:
    """Give `func` (CFG form, as read) the convergence control `mode` asks for; returns the source used.
    `tokens`: False when the caller knows the function has no convergence tokens (None: look)."""
    if mode not in MODES:
        raise CompileError(f"--convergence={mode}: expected one of {', '.join(MODES)}")
    if tokens is None:
        tokens = has_tokens(func)
    if mode == "tokens" and not tokens:
        raise CompileError(f"{where}: --convergence=tokens: the kernel has no convergence tokens "
                           "(llvm.experimental.convergence.*; clang emits none for OpenCL C)")
    if mode == "auto":
        mode = "tokens" if tokens else "scopes" if notes is not None and notes.calls and notes.scopes.has_scopes \
            else "cfg"
    if mode == "tokens":
        fold_stray_loop_tokens(func)
        return mode
    if mode == "scopes" and (notes is None or not notes.complete) and _has_convergent(func):
        raise CompileError(f"{where}: --convergence=scopes: " + (
            "the module has line tables only, no lexical scopes (compile with -g)"
            if notes is not None and not notes.scopes.has_scopes else
            "a sub-group operation or barrier has no debug location (compile with -g)"))
    if tokens:
        drop_tokens(func)
    if mode == "scopes" and notes is not None:      # None: no -g, and (checked above) nothing convergent
        refuse_calls_in_removed_loops(func, notes)
        for ins, header in separated_loop_homes(func, notes).items():
            anchor = Instr("convergence", [], TOKEN, {"kind": "anchor"})
            header.insert(sum(1 for _ in header.phis()), anchor)
            ins.operands.append(anchor)
    return mode


def _has_convergent(func: Function) -> bool:
    return any(ins.opcode in CONVERGENT for b in func.blocks for ins in b.instrs)
