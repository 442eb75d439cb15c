"""The instruction set of the IR, as data: name -> (kind, number of value operands, meaning).

The front end produces only these; the interpreter, validator and backends consume only these.
Integer values are two's complement bit patterns (signedness lives in the opcode, as in LLVM); i1 is a bool.
Pointers are 64-bit byte addresses tagged with an address space (in the type).
"""
from __future__ import annotations

from dataclasses import dataclass


@dataclass(frozen=True)
class Opcode:
    name: str
    kind: str          # "int", "float", "cmp", "cast", "memory", "select", "builtin", "control", "ssa"
    n_operands: int    # -1: variable
    doc: str


def _table(kind: str, n: int, names: str, doc: str) -> list[Opcode]:
    return [Opcode(name, kind, n, doc) for name in names.split()]


OPCODES: dict[str, Opcode] = {op.name: op for op in [
    *_table("int", 2, "add sub mul udiv sdiv urem srem shl lshr ashr and or xor",
            "LLVM integer semantics on same-typed operands (wrapping); a shift by >= the width gives "
            "poison (optimised code may compute it speculatively: it must not trap); division by zero "
            "or INT_MIN / -1 is undefined behaviour (the interpreter reports it)"),
    *_table("int", 2, "smin smax umin umax", "integer min/max, signed or unsigned"),
    *_table("int", 2, "mulhi_s mulhi_u", "high half of the double-width product"),
    *_table("int", 1, "abs", "integer absolute value (INT_MIN stays INT_MIN)"),
    *_table("int", 1, "popcount clz ctz bitreverse", "bit counting on the operand's width (clz/ctz of 0 = width)"),
    *_table("float", 2, "fadd fsub fmul fdiv frem fmin fmax", "IEEE arithmetic in the operand type; fmin/fmax return the non-NaN operand"),
    *_table("float", 1, "fneg", "sign flip"),
    *_table("float", 3, "fma", "fused multiply-add a*b+c, one rounding"),
    *_table("float", 3, "fmuladd", "a*b+c, rounded after the multiply and after the add (as the CPU JIT runs llvm.fmuladd)"),
    Opcode("math", "float", -1, "attrs['fn'] in MATH_FUNCTIONS: libm function of 1-3 float operands "
                                "(precision: the host libm's, not OpenCL's ulp bounds)"),
    Opcode("icmp", "cmp", 2, "attrs['pred'] in eq ne ugt uge ult ule sgt sge slt sle; result i1"),
    Opcode("fcmp", "cmp", 2, "attrs['pred'] in false oeq ogt oge olt ole one ord ueq ugt uge ult ule une uno true; result i1"),
    Opcode("select", "select", 3, "cond ? a : b"),
    *_table("cast", 1, "trunc zext sext fptrunc fpext fptoui fptosi uitofp sitofp ptrtoint inttoptr "
                       "bitcast addrspacecast freeze", "LLVM cast semantics to the result type (fptosi/fptoui "
                       "out of range give poison); freeze is a copy"),
    Opcode("alloca", "memory", 0, "private memory of attrs['size'] bytes, attrs['align']; result ptr0"),
    Opcode("load", "memory", 1, "load result type from operand 0 (pointer)"),
    Opcode("store", "memory", 2, "store operand 0 to operand 1 (pointer)"),
    Opcode("ptradd", "memory", 2, "pointer + i64 byte offset (GEPs are lowered to this)"),
    Opcode("global_addr", "memory", 0, "address of module data attrs['symbol'] (__local arrays, constant tables)"),
    Opcode("workitem", "builtin", 1, "attrs['fn'] in WORKITEM_FUNCTIONS of dimension operand 0 (i32); result i64 (work_dim: i32)"),
    Opcode("barrier", "builtin", 1, "work-group barrier; operand 0 = OpenCL fence flags (i32)"),
    Opcode("atomic", "memory", -1, "atomic read-modify-write at operand 0 (pointer): attrs['op'] in ATOMIC_OPS, "
                                   "operand 1 the value (none for inc/dec/load), operand 2 the compared value of "
                                   "cmpxchg; result: the old value (store: none). attrs['scope']: workgroup or "
                                   "device, attrs['order']: an OpenCL memory_order name"),
    Opcode("phi", "ssa", -1, "one operand per predecessor block (Phi.blocks)"),
    Opcode("var_load", "ssa", 0, "structurizer-internal: read variable attrs['var']; gone after SSA construction"),
    Opcode("var_store", "ssa", 1, "structurizer-internal: write variable attrs['var']; gone after SSA construction"),
    # CFG form terminators (targets in Instr.targets)
    Opcode("br", "control", 0, "goto targets[0]"),
    Opcode("cbr", "control", 1, "operand 0 ? targets[0] : targets[1]"),
    Opcode("switch", "control", 1, "attrs['cases'][i] -> targets[i+1], otherwise targets[0]"),
    Opcode("ret", "control", -1, "return (operand 0 if the function returns a value)"),
    Opcode("unreachable", "control", 0, "undefined behaviour if reached"),
    # structured form jumps
    Opcode("break", "control", 0, "leave the innermost loop"),
    Opcode("continue", "control", 0, "go to the innermost loop's first block"),
    Opcode("return", "control", -1, "leave the function"),
]}

ATOMIC_OPS = ("add", "sub", "xchg", "inc", "dec", "cmpxchg", "smin", "smax", "umin", "umax", "and", "or", "xor",
              "load", "store")
ATOMIC_SCOPES = ("workgroup", "device")

WORKITEM_FUNCTIONS = ("global_id", "local_id", "group_id", "global_size", "local_size", "num_groups",
                      "work_dim", "global_offset")

MATH_FUNCTIONS = ("sqrt", "rsqrt", "exp", "exp2", "exp10", "log", "log2", "log10", "sin", "cos", "tan",
                  "asin", "acos", "atan", "atan2", "sinh", "cosh", "tanh", "pow", "fabs", "floor", "ceil",
                  "round", "trunc", "rint", "copysign", "fmod", "hypot", "cbrt", "ldexp")

ICMP_PREDICATES = ("eq", "ne", "ugt", "uge", "ult", "ule", "sgt", "sge", "slt", "sle")
FCMP_PREDICATES = ("false", "oeq", "ogt", "oge", "olt", "ole", "one", "ord", "ueq", "ugt", "uge", "ult",
                   "ule", "une", "uno", "true")
