"""Straight-line code of a block, compiled to one Python function: the interpreter's fast path.

Calling one closure per instruction costs a Python call plus a dictionary round trip for every operand;
most of a kernel's time goes there. So the non-phi, non-terminator instructions of a block (or of the
part of it between two barriers) become the source of a single function: values defined in the block
are Python locals, common integer and pointer operations are inline expressions (`(a + b) & 0xffffffff`),
and everything else calls the per-opcode function the closure compiler already built (ops
semantics, unchanged). Every result is also written to the environment for later blocks and phis.

An exception inside the generated code is re-raised as `At(position, exception)` so that the executor
can name the instruction at fault.
"""
from __future__ import annotations

from typing import Any, Callable, Sequence

from reconverge.lowering.interp.values import const_value, mask
from reconverge.lowering.ir.core import Const, Instr, Undef, Value


class At(Exception):
    """An exception raised by the instruction at `pos` of a compiled body."""

    def __init__(self, pos: int, exc: Exception):
        super().__init__(pos, exc)
        self.pos, self.exc = pos, exc


# Inline templates (operands already parenthesised); {m}: the operand width's mask, {w}: the width.
_INT_INLINE = {
    "add": "({a} + {b}) & {m}", "sub": "({a} - {b}) & {m}", "mul": "({a} * {b}) & {m}",
    "and": "{a} & {b}", "or": "{a} | {b}", "xor": "{a} ^ {b}",
    "shl": "({a} << ({b} % {w})) & {m}", "lshr": "{a} >> ({b} % {w})",
}
_ICMP_INLINE = {"eq": "==", "ne": "!=", "ugt": ">", "uge": ">=", "ult": "<", "ule": "<="}
_SIGNED_ICMP = {"sgt": ">", "sge": ">=", "slt": "<", "sle": "<="}
_FLOAT_INLINE = {"fadd": "+", "fsub": "-", "fmul": "*", "fdiv": "/"}


def compile_body(body: list[tuple[Instr, Callable[..., Any], bool]],
                 undef_byte: int = 0) -> Callable[[dict[Any, Any]], None]:
    """One function env -> None running `body`, a list of (instruction, closure, has result)."""
    ns: dict[str, object] = {"At": At}
    local: dict[Instr, str] = {}
    names: dict[int, str] = {}

    def bind(prefix: str, obj: object) -> str:
        key = id(obj)
        if key not in names:
            names[key] = f"{prefix}{len(names)}"
            ns[names[key]] = obj
        return names[key]

    def operand(v: Value) -> str:
        if isinstance(v, Instr) and v in local:
            return local[v]
        if isinstance(v, (Const, Undef)):
            c = const_value(v, undef_byte)
            if type(c) is int:
                return f"({c})"
            return bind("c", c)
        return f"env[{bind('k', v)}]"

    lines = ["def run(env):", "    pos = 0", "    try:"]
    for pos, (ins, fn, has_result) in enumerate(body):
        ops = [operand(v) for v in ins.operands]
        expr = _inline(ins, ops)
        if expr is None and (store := getattr(fn, "store", None)) is not None:
            expr = f"{bind('s', store)}({ops[1]}, {ops[0]})"      # storer(address, value)
        if expr is None and (direct := getattr(fn, "direct", None)) is not None:
            expr = f"{bind('f', direct)}({', '.join(ops)})"   # the opcode's function on operand values
        if expr is None:
            expr = f"{bind('g', fn)}(env)"          # the instruction's own closure reads env
        lines.append(f"        pos = {pos}")
        if has_result:
            name = f"v{pos}"
            lines.append(f"        {name} = {expr}")
            lines.append(f"        env[{bind('k', ins)}] = {name}")
            local[ins] = name
        else:
            lines.append(f"        {expr}")
    if not body:
        lines = ["def run(env):", "    return None"]
    else:
        lines += ["    except Exception as e:", "        raise At(pos, e) from None"]
    exec(compile("\n".join(lines), "<interp block>", "exec"), ns)  # noqa: S102 - our own generated code
    return ns["run"]  # type: ignore[return-value]


def compile_phi_copy(values: list[Value], phis: Sequence[Instr],
                     undef_byte: int = 0) -> Callable[[dict[Any, Any]], None]:
    """The parallel copy of one incoming edge: read every value first, then write every phi."""
    ns: dict[str, object] = {"At": At}
    reads, writes = [], []
    for pos, (v, phi) in enumerate(zip(values, phis)):
        if isinstance(v, (Const, Undef)):
            ns[f"c{pos}"] = const_value(v, undef_byte)
            reads.append(f"        pos = {pos}; t{pos} = c{pos}")
        else:
            ns[f"k{pos}"] = v
            reads.append(f"        pos = {pos}; t{pos} = env[k{pos}]")
        ns[f"p{pos}"] = phi
        writes.append(f"    env[p{pos}] = t{pos}")
    lines = ["def copy(env):", "    pos = 0", "    try:", *reads, "    except Exception as e:",
             "        raise At(pos, e) from None", *writes]
    exec(compile("\n".join(lines), "<interp phis>", "exec"), ns)  # noqa: S102 - our own generated code
    return ns["copy"]  # type: ignore[return-value]


def _inline(ins: Instr, ops: list[str]) -> str | None:
    """A Python expression for the common operations, or None to call the instruction's closure."""
    op = ins.opcode
    if op in _INT_INLINE and ins.operands[0].type.is_int:
        bits = ins.operands[0].type.bits
        return _INT_INLINE[op].format(a=ops[0], b=ops[1], m=hex(mask(bits)), w=bits)
    if op == "icmp" and ins.attrs.get("pred") in _ICMP_INLINE:
        return f"int({ops[0]} {_ICMP_INLINE[ins.attrs['pred']]} {ops[1]})"
    if op == "icmp" and ins.attrs.get("pred") in _SIGNED_ICMP:
        # flipping the sign bit maps two's complement order onto unsigned order
        s = hex(1 << (ins.operands[0].type.bits - 1))
        return f"int(({ops[0]} ^ {s}) {_SIGNED_ICMP[ins.attrs['pred']]} ({ops[1]} ^ {s}))"
    if op == "ashr" and ins.operands[0].type.is_int:
        bits = ins.operands[0].type.bits
        s = hex(1 << (bits - 1))
        return f"((({ops[0]} ^ {s}) - {s}) >> ({ops[1]} % {bits})) & {hex(mask(bits))}"
    if op == "sext":
        s = hex(1 << (ins.operands[0].type.bits - 1))
        return f"(({ops[0]} ^ {s}) - {s}) & {hex(mask(ins.type.bits))}"
    if op == "ptradd":
        return f"({ops[0]} + {ops[1]}) & 0xffffffffffffffff"
    if op in ("zext", "trunc", "ptrtoint", "inttoptr"):
        return f"{ops[0]} & {hex(mask(ins.type.bits))}"
    if op in ("freeze", "addrspacecast"):
        return ops[0]
    if op == "select":
        return f"({ops[1]} if {ops[0]} else {ops[2]})"
    if op in _FLOAT_INLINE and ins.operands[0].type == ins.operands[1].type == ins.type:
        return f"({ops[0]} {_FLOAT_INLINE[op]} {ops[1]})"   # numpy scalars of the type: IEEE rounding
    return None
