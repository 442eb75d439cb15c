"""The passes, one per module. Each module gives its NAME, the FORM it works on ("cfg", "structured" or
"any") and `run(func, caps) -> changed`; lowering.target lists which passes each target runs, and
lowering.pipeline runs them with the validator after each one. `Pass.run` checks the form first, so a
pass never sees a function in a form it does not work on (tests/lowering/passes/test_registry.py ties
the registry to the modules).

    convergence        convergence tokens -> the CFG's loop shape (a token's loop holds its operations), then dropped
    structurize        CFG form -> structured form (the tree of blocks, ifs and loops)
    split_private_selects  loads/stores through a select of two private variables -> accesses of each
    promote            private variables (allocas) -> SSA values, on the tree
    legalize_int_widths  odd integer widths (i24, i48) in the target's widths, kept zero-extended
    lower_workitem     global id / global size from group id, local id and sizes, where the target lacks them
    lower_bitops64     popcount/clz/ctz/bitreverse wider than the target's from 32-bit halves
    lower_math_edges   OpenCL's math edge cases around the target's relaxed math functions
    lower_fma          fma of a width the target cannot fuse, exactly in the wider format (rounding to odd)
    reroll             straight-line repeats (clang's full unrolling) rolled back into a loop, for SPIR-V's size
    hide_signed_zero_selects  a select's or phi's zero that drivers' b2f rules take for the other zero, hidden
"""
from __future__ import annotations

import sys

from reconverge.lowering.errors import CompileError
from reconverge.lowering.ir.core import Function
from reconverge.records import record

TYPE_CHECKING = False                   # not typing's: a compile's start-up does not import typing
if TYPE_CHECKING:
    from typing import Callable

PASS_MODULES = ("convergence", "structurize", "split_private_selects", "promote", "legalize_int_widths",
                "lower_workitem", "lower_bitops64", "lower_math_edges", "lower_fma", "reroll",
                "hide_signed_zero_selects")
FORMS = ("cfg", "structured", "any")


class WrongFormError(CompileError):
    """A pass was asked to run on a function in a form it does not work on (a pipeline's order is wrong,
    or a caller skipped the structurizer): refused before the pass can misread the function."""


@record(frozen=True)
class Pass:
    name: str
    form: str                                   # "cfg", "structured" or "any"
    body: Callable[[Function, object], bool]    # the module's run: (function, TargetCaps) -> changed
    doc: str

    def run(self, func: Function, caps: object) -> bool:
        """Run the pass on `func` if it is in the pass's form; a one-line WrongFormError if not."""
        form = "structured" if func.is_structured else "cfg"
        if self.form not in ("any", form):
            raise WrongFormError(f"@{func.name}: pass '{self.name}' works on the {self.form} form, "
                                 f"but the function is in the {form} form")
        return self.body(func, caps)


def _load(name: str) -> Pass:
    # __import__, not importlib.import_module: the importlib package imports warnings (a compile needs neither)
    full = f"reconverge.lowering.passes.{name}"
    __import__(full)
    module = sys.modules[full]
    if module.NAME != name or module.FORM not in FORMS:
        raise ImportError(f"lowering/passes/{name}.py: NAME {module.NAME!r} (must be {name!r}), "
                          f"FORM {module.FORM!r} (must be one of {', '.join(FORMS)})")
    return Pass(module.NAME, module.FORM, module.run, (module.__doc__ or "").strip().splitlines()[0])


PASSES: dict[str, Pass] = {p.name: p for p in map(_load, PASS_MODULES)}
