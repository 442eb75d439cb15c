"""The Gen9 backend (in construction): structured IR -> Gen9 kernels that the simulator runs.

Now: the machine IR (`mir.py`: virtual registers with a type and a shape, Gen opcodes, blocks in layout
order), its text form (`mir_printer.py`), its verifier (`mir_verify.py`) and liveness (`mir_liveness.py`);
a first slice of instruction selection (`isel.py`: straight-line code), linear-scan register allocation
(`regalloc.py`, no spilling yet), emission into isa/gen9 instructions (`emit.py`) and the `gen` run target
over isa/gen9/dispatch.py's thread payload (`launch.py`).
Next: structured branches from the tree, compares and selects, more types and memory, spilling.
"""
from __future__ import annotations

from lowering.ir.core import Function


def compile_gen(func: Function, simd: int = 16, verify: bool = True) -> list:
    """A kernel of the `gen` pipeline's IR -> Gen9 instructions (isa.gen9.model.Instruction)."""
    from isa.gen9.dispatch import ARGUMENTS
    from lowering.errors import CompileError

    from .emit import emit
    from .isel import argument_layout, select
    from .mir_verify import verify as verify_mir
    mfunc = select(func, simd)
    if verify:
        problems = verify_mir(mfunc)
        if problems:
            raise CompileError(f"internal error: invalid machine IR: {problems[0]}")
    layout = argument_layout(func)
    end = max((off + max(4, a.type.size) for a, off in layout.items()), default=ARGUMENTS)
    return emit(mfunc, end)
