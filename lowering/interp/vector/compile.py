"""Instructions resolved once to vector closures: `run(env, act) -> lane array (or None)`.

`env` maps IR values to lane arrays; `act` is the execution mask of the lanes running the instruction
(lowering.interp.vector.walk.Active). A closure computes its result for every lane (vector ops) or only
for the active ones (lane-by-lane ops, memory, sub-group operations); the walk then keeps the previous
value in the inactive lanes, since a lane that left a loop still reads the values it computed inside.
Failures raise LaneError naming the lane, or InterpreterError (the walk then names the first active lane).
"""
from __future__ import annotations

from typing import TYPE_CHECKING, Any, Callable, cast

import numpy as np

from reconverge.lowering.interp.values import InterpreterError, opcode_of
from reconverge.lowering.interp.vector import vops
from reconverge.lowering.interp.vector.lanes import LaneError, constant, dtype_of, full, is_constant, lanewise
from reconverge.lowering.interp.vector.subgroups import subgroup_op
from reconverge.lowering.ir.core import Arg, Instr, Value

if TYPE_CHECKING:
    from reconverge.lowering.interp.vector.walk import Active, VectorInterpreter

Closure = Callable[[dict[Any, Any], "Active"], Any]
INT_BINARY = ("add", "sub", "mul", "shl", "lshr", "ashr", "and", "or", "xor", "udiv", "sdiv", "urem", "srem",
              "smin", "smax", "umin", "umax", "mulhi_s", "mulhi_u")
INT_UNARY = ("abs", "popcount", "clz", "ctz", "bitreverse")
FLOAT_BINARY = ("fadd", "fsub", "fmul", "fdiv", "frem", "fmin", "fmax")
CASTS = ("trunc", "zext", "sext", "fptrunc", "fpext", "fptoui", "fptosi", "uitofp", "sitofp", "ptrtoint",
         "inttoptr", "bitcast", "addrspacecast", "freeze")


def getter(v: Value, undef_byte: int) -> Callable[[dict[Any, Any]], Any]:
    if is_constant(v):
        c = constant(v, undef_byte)
        return lambda env: c
    if isinstance(v, (Instr, Arg)):
        return lambda env: env[v]
    raise InterpreterError(f"cannot evaluate operand {v!r}")


def _from_op(op: vops.Op, operands: list[Value], result: np.dtype, interp: VectorInterpreter) -> Closure:
    """A closure running a vops.Op: vectorized over all lanes, or lane by lane over the active ones."""
    g = [getter(v, interp.undef_byte) for v in operands]
    n = interp.n
    check, vector, scalar = op.check, op.vector, op.scalar
    if vector is not None:
        if check is None:
            if len(g) == 2:
                a, b = g
                return lambda env, act: vector(a(env), b(env))
            if len(g) == 1:
                x, = g
                return lambda env, act: vector(x(env))
            return lambda env, act: vector(*[f(env) for f in g])

        def checked(env: dict[Any, Any], act: Active) -> Any:
            vals = [f(env) for f in g]
            idx = act.idx
            sub = [np.asarray(v)[idx] if np.ndim(v) else v for v in vals]
            found = check(*sub)
            if found is not None:
                raise LaneError(int(idx[found[0]]), found[1])
            return vector(*vals)
        return checked
    assert scalar is not None
    sdt = result
    return lambda env, act: lanewise(scalar, [f(env) for f in g], act.idx, n, sdt, None)


def compile_instr(ins: Instr, interp: VectorInterpreter) -> tuple[Closure, bool]:
    """(closure, merged): `merged` when the closure already leaves inactive lanes as they were."""
    op = ins.opcode
    opcode_of(ins)                       # unknown opcode or operand count: a clear error
    ty, operands = ins.type, ins.operands
    rdt = dtype_of(ty) if ins.has_result else np.dtype(np.uint8)
    if op in INT_BINARY:
        return _from_op(vops.int_binary(op, operands[0].type), operands, rdt, interp), False
    if op in INT_UNARY:
        return _from_op(vops.int_unary(op, operands[0].type), operands, rdt, interp), False
    if op in FLOAT_BINARY:
        return _from_op(vops.float_binary(op, ty), operands, rdt, interp), False
    if op == "fneg":
        return _from_op(vops.fneg(ty), operands, rdt, interp), False
    if op == "fmuladd":
        return _from_op(vops.fmuladd(ty), operands, rdt, interp), False
    if op == "fma":
        import reconverge.lowering.interp.ops as ops
        return _from_op(vops.Op(scalar=ops.fma(ty)), operands, rdt, interp), False
    if op == "math":
        last = operands[-1].type if operands else ty
        fn = vops.math_fn(ins.attrs.get("fn", ""), ty, last.bits if last.is_int else 32)
        return _from_op(fn, operands, rdt, interp), False
    if op == "icmp":
        return _from_op(vops.icmp(ins.attrs.get("pred", ""), operands[0].type), operands, rdt, interp), False
    if op == "fcmp":
        return _from_op(vops.fcmp(ins.attrs.get("pred", "")), operands, rdt, interp), False
    if op == "select":
        return _from_op(vops.select(), operands, rdt, interp), False
    if op in CASTS:
        return _from_op(vops.cast(op, operands[0].type, ty), operands, rdt, interp), False
    return _memory_or_builtin(ins, interp)


def _memory_or_builtin(ins: Instr, interp: VectorInterpreter) -> tuple[Closure, bool]:
    op, ty = ins.opcode, ins.type
    g = [getter(v, interp.undef_byte) for v in ins.operands]
    n = interp.n
    align = int(ins.attrs.get("align", 1) or 1)
    cache: list[Any] = [None]
    if op == "load":
        p, = g
        rdt = dtype_of(ty)

        def load(env: dict[Any, Any], act: Active) -> Any:
            idx = act.idx
            addr = full(p(env), n, np.dtype(np.uint64))
            vals = interp.memory.load(ty, addr if act.full else addr[idx], idx, align, cache)
            if act.full:
                return vals
            out = env.get(ins)
            out = full(out, n, rdt).copy() if out is not None else np.zeros(n, rdt)
            out[idx] = vals
            return out
        return load, True
    if op == "store":
        v, p = g
        vty = ins.operands[0].type
        vdt = dtype_of(vty)

        def store(env: dict[Any, Any], act: Active) -> None:
            idx = act.idx
            addr, value = full(p(env), n, np.dtype(np.uint64)), full(v(env), n, vdt)
            if not act.full:
                addr, value = addr[idx], value[idx]
            interp.memory.store(vty, addr, value, idx, align, cache)
        return store, True
    if op == "ptradd":
        p, o = g
        return (lambda env, act: np.add(p(env), o(env), dtype=np.uint64)), False
    if op == "alloca":
        size, al = int(ins.attrs.get("size", 0)), int(ins.attrs.get("align", 1) or 1)
        name = ins.name or "alloca"
        return (lambda env, act: interp.alloca(name, size, al)), False
    if op == "global_addr":
        sym = cast(str, ins.attrs.get("symbol"))

        def global_addr(env: dict[Any, Any], act: Active) -> Any:
            try:
                return interp.symbols[sym]
            except KeyError:
                raise InterpreterError(f"no module data named {sym!r} (not in the function's "
                                       "local_memory or constant_data)") from None
        return global_addr, False
    if op == "workitem":
        fn, d = ins.attrs.get("fn", ""), g[0]
        return (lambda env, act: interp.workitem(fn, d(env), ty)), False
    if op == "barrier":
        return (lambda env, act: interp.barrier(act)), True
    if op == "subgroup_barrier":
        return (lambda env, act: None), True          # lock step: the sub-group's lanes are together
    if op == "subgroup_info":
        fn = ins.attrs.get("fn", "")
        return (lambda env, act: interp.layout.info[fn]), False
    if op == "subgroup":
        types = [v.type for v in ins.operands]
        attrs = ins.attrs
        return (lambda env, act: subgroup_op(attrs, ty, types, interp.layout, act.mask,
                                             [full(f(env), n, dtype_of(t)) for f, t in zip(g, types)])), False
    if op == "atomic":
        return _atomic(ins, interp, g), True
    if op in ("var_load", "var_store"):
        raise InterpreterError(f"{op} is structurizer-internal and cannot be interpreted")
    raise InterpreterError(f"opcode {op!r} is not interpretable")


def _atomic(ins: Instr, interp: VectorInterpreter, g: list[Callable[[dict[Any, Any]], Any]]) -> Closure:
    """Read-modify-write lane by lane, in lane order: the old interpreter's per-item update, applied to
    each active lane in turn (so a counter's old values come out in lane order)."""
    from reconverge.lowering.interp.run import Interpreter
    kind = cast(str, ins.attrs.get("op"))
    vt = ins.operands[1].type if kind == "store" else ins.type
    helper = Interpreter.__new__(Interpreter)
    helper.memory = interp.memory.memory
    scalar_g = [_operand(k) for k in range(len(ins.operands))]
    rmw = Interpreter._compile_atomic(helper, ins, scalar_g)
    n = interp.n
    vdt = dtype_of(vt)
    cache: list[Any] = [None]
    types = [v.type for v in ins.operands]

    def atomic(env: dict[Any, Any], act: Active) -> Any:
        idx = act.idx
        arrays = [full(f(env), n, dtype_of(t)) for f, t in zip(g, types)]
        interp.memory.locate(arrays[0][idx], idx, vt.size, 1, True, cache)    # bounds, slots included
        cols = [a[idx].tolist() if a.dtype.kind != "f" else list(a[idx]) for a in arrays]
        results = []
        lanes = idx.tolist()
        for k, vals in enumerate(zip(*cols)):
            try:
                results.append(rmw(dict(enumerate(vals))))
            except InterpreterError as e:
                raise LaneError(lanes[k], e) from None
        if not ins.has_result:
            return None
        old = env.get(ins)
        out = full(old, n, vdt).copy() if old is not None else np.zeros(n, vdt)
        if lanes:
            out[idx] = np.array(results, dtype=vdt)
        return out
    return atomic


def _operand(k: int) -> Callable[[dict[Any, Any]], Any]:
    """A getter of operand k from a lane's {position: value} (how the atomic's scalar update reads)."""
    return lambda env: env[k]
