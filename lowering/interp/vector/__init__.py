"""The lock-step interpreter: a batch of work-groups' lanes run the structured tree together as numpy
vectors under an execution mask (`run --target ir`); the executable definition of sub-group operations.

Modules: walk (the tree walk, masks, phis, batches, errors), compile (instructions to vector closures),
vops (opcode semantics over lane arrays), lanes (value representation, the lane-by-lane bridge to
lowering.interp.ops), vmemory (gathers and scatters), subgroups (sub-group layout and operations).
"""
from reconverge.lowering.interp.vector.subgroups import DEFAULT_SUBGROUP_SIZE
from reconverge.lowering.interp.vector.walk import VectorInterpreter, run_vector_kernel

__all__ = ["DEFAULT_SUBGROUP_SIZE", "VectorInterpreter", "run_vector_kernel"]
