"""Instruction selection: an IR function of the `gen` pipeline (a tree) or the `gen-blockip` one (a CFG)
-> the machine IR, legal and ready for the verifier and register allocation.

Selection is made of parts, each one idea:
- isel_context.py: the machine function being built and the operand views every part uses;
- isel_values.py: value selection, one IR instruction at a time through a table of
  (opcode, type guard) -> handler, with isel_int64.py (64-bit expansions) and isel_memory.py
  (loads, stores, atomics, pointers, barriers: the messages);
- the control-flow drivers, which own a context and a value selector and emit only the branches:
  isel_structured.py (Gen's structured branches over the tree) and isel_blockip.py (per-lane blockIP
  over the CFG, block by block or over cf_regions' natural regions: the hybrid);
- legalize.py: the machine-IR pass that makes immediates encodable, run after selection;
- mir_cse.py: local common-subexpression elimination on the legal machine IR;
- mir_coalesce.py: a copy's source computed straight into its destination (phi copies).

What is not covered is a one-line CompileError naming the instruction, so nothing is compiled
wrongly in silence.
"""
from __future__ import annotations

from reconverge.lowering.errors import CompileError, where
from reconverge.lowering.ir.core import Function
from reconverge.records import record

from .abi import KernelLayout
from .isel_blockip import BlockIPDriver
from .isel_context import gen_type
from .isel_structured import StructuredDriver
from .legalize import legalize
from .mir import MFunction
from .mir_coalesce import coalesce_copies
from .mir_cse import eliminate_common_subexpressions

__all__ = ["Selection", "gen_type", "select"]


@record
class Selection:
    mfunc: MFunction
    layout: KernelLayout                 # where the kernel's arguments and memory objects are (abi.py)


def select(func: Function, simd: int = 16, regions: bool = False, entry: str = "if",
           uniform_branches: bool = True) -> Selection:
    """Select `func` with the driver its form needs (structured branches for a tree, blockIP for a
    CFG: `regions` the hybrid, `entry` Beignet's entry sequence, isel_blockip.BlockIPDriver), then
    legalize its immediates (`uniform_branches`: a tree's uniform ifs as scalar jumps, isel_structured);
    scheme A's body predication comes last, so that it covers the copies
    legalization adds."""
    if simd not in (8, 16):
        raise CompileError(f"{where(func)}: SIMD{simd} (8 or 16)")
    driver = StructuredDriver(func, simd, uniform_branches) if func.is_structured \
        else BlockIPDriver(func, simd, regions, entry)
    mfunc = driver.run()
    counts = legalize(mfunc)               # (its register counts: CSE keeps them true for coalescing)
    eliminate_common_subexpressions(mfunc, counts)
    coalesce_copies(mfunc, counts)
    if isinstance(driver, BlockIPDriver):
        driver.predicate_bodies()
    return Selection(mfunc, driver.cx.layout)
