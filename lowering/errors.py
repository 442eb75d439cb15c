"""The one exception type for bad input: the command line prints it as a single line and exits 1 (with
subclasses a caller may want to tell apart: NotSupported, valid input this compiler cannot take yet, and
its IrreducibleCFG and RemovedLoop)."""
from __future__ import annotations

TYPE_CHECKING = False                   # not typing's: the command line's start-up does not import typing
if TYPE_CHECKING:
    from reconverge.lowering.ir.core import Function, Instr


class CompileError(Exception):
    """Bad input (malformed IR, unsupported instruction, invalid OpenCL C, ...).

    The message is one line and names the file, function, block or instruction at fault.
    """

    def __init__(self, message: str):
        super().__init__(" ".join(message.split("\n")).strip())


class NotSupported(CompileError):
    """Valid input that reconverge cannot compile yet (an LLVM instruction or type it does not read, an
    irreducible CFG for a structured target): a limit of this compiler, not a fault of the input, which
    `reconverge check` reports apart from bad input and from invalid output."""


class IrreducibleCFG(NotSupported):
    """The structurizer's refusal of an irreducible CFG: a target that runs any CFG (Gen's blockIP) takes
    the kernel another way instead."""


class RemovedLoop(NotSupported):
    """A convergent operation written in a source loop that LLVM's optimiser removed (lowering.frontend.
    removed_loops): no target can meet its lanes per iteration; -O0 or --convergence=cfg compile it."""


def where(func: Function, ins: Instr | None = None) -> str:
    """'FILE: @kernel' or 'FILE: @kernel: block L: opcode', the head of a message about `ins`."""
    head = f"{func.source_name or '<input>'}: @{func.name}"
    if ins is None:
        return head
    b = ins.block
    block = f"block {b.label or 'b%d' % b.index}: " if b is not None else ""
    return f"{head}: {block}{ins.opcode}"
