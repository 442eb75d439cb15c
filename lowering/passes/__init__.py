"""The passes, one per module. Each module gives its NAME, the FORM it works on ("cfg", "structured" or
"any") and `run(func, caps) -> changed`; lowering.target lists which passes each target runs, and
lowering.pipeline runs them with the validator after each one.

    structurize        CFG form -> structured form (the tree of blocks, ifs and loops)
    split_private_selects  loads/stores through a select of two private variables -> accesses of each
    promote            private variables (allocas) -> SSA values, on the tree
    legalize_int_widths  odd integer widths (i24, i48) in the target's widths, kept zero-extended
    lower_workitem     global id / global size from group id, local id and sizes, where the target lacks them
    lower_bitops64     popcount/clz/ctz/bitreverse wider than the target's from 32-bit halves
    lower_math_edges   OpenCL's math edge cases around the target's relaxed math functions
"""
from __future__ import annotations

import importlib
from dataclasses import dataclass
from typing import Callable

from lowering.ir.core import Function

PASS_MODULES = ("structurize", "split_private_selects", "promote", "legalize_int_widths", "lower_workitem",
                "lower_bitops64", "lower_math_edges")


@dataclass(frozen=True)
class Pass:
    name: str
    form: str                                   # "cfg", "structured" or "any"
    run: Callable[[Function, object], bool]      # (function, TargetCaps) -> changed
    doc: str


def _load(name: str) -> Pass:
    module = importlib.import_module(f"lowering.passes.{name}")
    return Pass(module.NAME, module.FORM, module.run, (module.__doc__ or "").strip().splitlines()[0])


PASSES: dict[str, Pass] = {p.name: p for p in map(_load, PASS_MODULES)}
