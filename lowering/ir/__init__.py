"""The NIR-like structured IR: types, values, instructions and the control-flow tree.

    LLVM IR --frontend--> CFG form (blocks + br/cbr/switch/ret)
            --structurize--> tree form (blocks, ifs, loops; break/continue/return)
            --backends--> SPIR-V, Gen ISA

Both forms share the same Block/Instr/Value classes, so analyses written on the CFG view (succs/preds)
work on either; `Function.is_structured` tells which one a function is in.
"""
from reconverge.lowering.ir.core import Arg, Block, CFNode, Const, Function, If, Instr, Loop, Phi, Undef, Value
from reconverge.lowering.ir.opcodes import JUMPS, TERMINATORS
from reconverge.lowering.ir.types import F16, F32, F64, I1, I8, I16, I32, I64, VOID, Type, float_type, int_type, ptr

__all__ = ["JUMPS", "TERMINATORS", "Arg", "Block", "CFNode", "Const", "Function", "If", "Instr", "Loop", "Phi",
           "Undef", "Value", "F16", "F32", "F64", "I1", "I8", "I16", "I32", "I64", "VOID", "Type", "float_type",
           "int_type", "ptr"]
