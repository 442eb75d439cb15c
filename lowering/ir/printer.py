"""Deterministic text form of a function, in CFG form or structured form.

Values print as %name when the source named them (and the name is unique), else %N in program order;
blocks as bN in program order (tree order for the structured form). Each block lists its predecessors,
so the CFG view can be read off the tree view.
"""
from __future__ import annotations

from lowering.deepstack import depth_independent
from lowering.ir.core import (
    END_LABEL,
    Block,
    Const,
    Function,
    If,
    Instr,
    Loop,
    Phi,
    Undef,
    Value,
)


class Namer:
    def __init__(self, func: Function):
        self.names: dict[Value, str] = {}
        used: set[str] = set()
        counter = 0
        for a in func.args:
            name = a.name if a.name and a.name not in used else f"arg{a.index}"
            used.add(name)
            self.names[a] = name
        for ins in func.instructions():
            if not ins.has_result:
                continue
            if ins.name and ins.name not in used and not ins.name.isdigit():
                name = ins.name
            else:
                while str(counter) in used:
                    counter += 1
                name = str(counter)
                counter += 1
            used.add(name)
            self.names[ins] = name

    def value(self, v: Value) -> str:
        if isinstance(v, Const):
            if v.type.is_float:
                return repr(float(v.value))
            if v.type.bits == 1:
                return "true" if v.value else "false"
            return str(v.signed())
        if isinstance(v, Undef):
            return "undef"
        name = self.names.get(v)
        return f"%{name}" if name is not None else f"%<unknown {type(v).__name__}>"


def block_ref(b: Block) -> str:
    return "end" if b.label == END_LABEL else f"b{b.index}"


def format_instr(ins: Instr, namer: Namer) -> str:
    v = namer.value
    ops = ", ".join(v(o) for o in ins.operands)
    head = f"{v(ins)} = " if ins.has_result else ""
    if isinstance(ins, Phi):
        srcs = ", ".join(f"[{block_ref(b)}: {v(o)}]" for b, o in ins.incoming())
        return f"{head}phi {ins.type} {srcs}"
    op = ins.opcode
    if op == "br":
        return f"br {block_ref(ins.targets[0])}"
    if op == "cbr":
        return f"cbr {ops}, {block_ref(ins.targets[0])}, {block_ref(ins.targets[1])}"
    if op == "switch":
        cases = ", ".join(f"{c}: {block_ref(t)}" for c, t in zip(ins.attrs["cases"], ins.targets[1:]))
        return f"switch {ops}, default {block_ref(ins.targets[0])} [{cases}]"
    if op == "var_load":
        return f"{head}var_load {ins.type} {ins.attrs['var']!r}"
    if op == "var_store":
        return f"var_store {ins.attrs['var']!r}, {ops}"
    sub = ins.attrs.get("pred") or ins.attrs.get("fn")
    name = f"{op}.{sub}" if sub else op
    extra = []
    if op == "alloca":
        extra.append(f"size {ins.attrs.get('size')}, align {ins.attrs.get('align', 1)}")
    if op == "global_addr":
        extra.append(f"@{ins.attrs.get('symbol')}")
    text = f"{head}{name}"
    if op in ("icmp", "fcmp"):
        text += f" {ins.operands[0].type}"     # the compared type; the result is always i1
    elif ins.has_result:
        text += f" {ins.type}"
    if ops:
        text += f" {ops}"
    if extra:
        text += (", " if ops else " ") + ", ".join(extra)
    return text


@depth_independent
def print_function(func: Function) -> str:
    func.index_blocks()
    namer = Namer(func)
    out: list[str] = []
    args = ", ".join(f"{a.type} {namer.value(a)}" for a in func.args)
    kind = "kernel" if func.is_kernel else "function"
    out.append(f"{kind} @{func.name}({args}) {{")

    def emit_block(b: Block, indent: str) -> None:
        preds = ", ".join(block_ref(p) for p in b.preds)
        label = f"  ; {b.label}" if b.label else ""
        out.append(f"{indent}block b{b.index}:" + (f"  ; preds: {preds}" if preds else "") + label)
        for ins in b.instrs:
            out.append(f"{indent}  {format_instr(ins, namer)}")

    def emit_list(nodes: list, indent: str) -> None:
        for node in nodes:
            if isinstance(node, Block):
                emit_block(node, indent)
            elif isinstance(node, If):
                out.append(f"{indent}if {namer.value(node.cond)} {{")
                emit_list(node.then_list, indent + "  ")
                out.append(f"{indent}}} else {{")
                emit_list(node.else_list, indent + "  ")
                out.append(f"{indent}}}")
            elif isinstance(node, Loop):
                out.append(f"{indent}loop {{")
                emit_list(node.body, indent + "  ")
                out.append(f"{indent}}}")

    if func.is_structured:
        emit_list(func.body, "  ")
    else:
        for b in func.blocks:
            emit_block(b, "  ")
    out.append("}")
    return "\n".join(out) + "\n"
