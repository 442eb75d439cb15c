"""The per-work-item IR interpreter (both forms; one work-item at a time, or a work-group in lock step at
barriers). `run --target ir` uses the lock-step numpy interpreter of the subpackage `vector` instead (structured
form, sub-group operations); this one serves the CFG form, block traces and the uninitialized-data trace.

Modules: run (the interpreter and run_kernel), values (value representation), ops (opcode semantics),
memory (the flat address space), codegen (blocks compiled to Python functions), lockstep (the barrier
schedule), trace (finding the first use of an uninitialized value).
"""
from reconverge.lowering.interp.run import (
    DEFAULT_MAX_STEPS,
    Interpreter,
    describe_block,
    describe_value,
    run_kernel,
    uninitialized_dependence,
)
from reconverge.lowering.interp.values import InterpreterError

__all__ = ["DEFAULT_MAX_STEPS", "Interpreter", "InterpreterError", "describe_block", "describe_value", "run_kernel",
           "uninitialized_dependence"]
