"""The text form of a function, in CFG form or structured form: deterministic and lossless, so that
lowering.ir.parser reads back exactly what is printed here (print(parse(print(f))) == print(f)).

    kernel @name(ptr1 %out, i32 %v.0 param 1, i32 %v.1 param 1) -> void reqd_work_group_size(8, 1, 1) {
      source "kernel.cl"
      local @tile size 1024 align 16
      constant @table size 16 align 4 init x"00000000..."
      block b0 "entry":
        %x = add i32 %a, 1
        store i8 1, %p, align 1
        cbr i1 %c, b1, b2
      ...
    }

Values print as %name when the source named them (and the name is unique), else %N in program order (a
number always means "unnamed"); blocks as bN in program order (tree order for the structured form), with
their source label quoted. Every instruction with operands or a result prints one type, its "slot": the
result type, or for compares and stores the first operand's; a constant or undef operand of another type
carries its own type. Attributes follow as `, key value`; the variant attribute of an opcode (a compare's
predicate, a built-in's function, an atomic's operation) is written `opcode.variant`. Floats print as
Python's shortest round-trip decimal, non-finite ones as the 64-bit pattern 0x... (as LLVM does).
Predecessors are a comment: they follow from the edges. Printing never changes the function.
"""
from __future__ import annotations

import math
import struct
from collections.abc import Iterable

from reconverge.lazy_regex import lazy_compile
from reconverge.lowering.deepstack import depth_independent
from reconverge.lowering.ir.core import (
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
from reconverge.lowering.ir.opcodes import OPCODES
from reconverge.lowering.ir.types import I1, VOID, Type

TYPE_CHECKING = False                   # not typing's: a compile's start-up does not import typing
if TYPE_CHECKING:
    from reconverge.lowering.analysis.divergence import Divergence

_PLAIN_NAME = lazy_compile(r"(?:[A-Za-z_.$][\w.$-]*|\d+)\Z")


def quote(text: str) -> str:
    """A string in double quotes; backslash, quote and non-printable characters as \\XX (LLVM's escape)."""
    return '"' + "".join(ch if ch.isprintable() and ch not in '\\"' else
                         "".join(f"\\{b:02X}" for b in ch.encode()) for ch in text) + '"'


def symbol(text: str) -> str:
    """A name after @ or %: bare when it is an identifier that cannot be mistaken for a number, else quoted."""
    return text if _PLAIN_NAME.match(text) else quote(text)


def format_float(value: float) -> str:
    if math.isfinite(value):
        return repr(float(value))
    return "0x" + struct.pack(">d", value).hex().upper()


class Namer:
    """Names of values and blocks for one printing, computed without touching the function."""

    def __init__(self, func: Function):
        self.func = func
        self.blocks = func.all_blocks()
        self.block_number = {b: i for i, b in enumerate(self.blocks)}
        self.names: dict[Value, str] = {}
        counter = 0
        values: list[Value] = [*func.args, *(i for i in func.instructions() if i.has_result)]
        wanted: dict[str, int] = {}
        for v in values:
            if v.name and not v.name.isdigit():
                wanted[v.name] = wanted.get(v.name, 0) + 1
        for v in values:
            if v.name and not v.name.isdigit() and wanted[v.name] == 1:
                name = v.name
            else:
                while str(counter) in wanted:
                    counter += 1
                name = str(counter)
                counter += 1
            self.names[v] = name

    def block(self, b: Block) -> str:
        if b is self.func.end_block or b.label == END_LABEL:
            return "end"
        n = self.block_number.get(b)
        return f"b{n}" if n is not None else "<foreign block>"

    def value(self, v: Value, slot: Type | None = None) -> str:
        """A value as an operand; constants and undef of a type other than `slot` carry their type."""
        if isinstance(v, (Const, Undef)):
            text = _constant(v)
            return text if v.type == slot else f"{v.type} {text}"
        name = self.names.get(v)
        return "%" + symbol(name) if name is not None else f"%<unknown {type(v).__name__}>"


def _constant(v: Const | Undef) -> str:
    if isinstance(v, Undef):
        return "undef"
    if v.type.is_float:
        return format_float(v.value)
    if v.type == I1:
        return "true" if v.value else "false"
    return str(v.signed() if v.type.is_int else v.value)


def slot_type(ins: Instr) -> Type | None:
    """The one type an instruction prints: the result's, else the first operand's (None: neither)."""
    if ins.opcode in ("icmp", "fcmp", "store") or (not ins.has_result and ins.operands):
        return ins.operands[0].type if ins.operands else None
    return ins.type if ins.has_result else None


def attribute_text(value: object) -> str:
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, int):
        return str(value)
    if isinstance(value, (list, tuple)):
        return "[" + ", ".join(attribute_text(x) for x in value) + "]"
    return quote(str(value))


def format_instr(ins: Instr, namer: Namer) -> str:
    slot = slot_type(ins)
    v = namer.value
    head = f"{v(ins)} = " if ins.has_result else ""
    if isinstance(ins, Phi):
        srcs = ", ".join(f"[{namer.block(b)}: {v(o, ins.type)}]" for b, o in ins.incoming())
        return f"{head}phi {ins.type} {srcs}"
    op = ins.opcode
    spec = OPCODES.get(op)
    variant = spec.variant if spec is not None else None
    name = f"{op}.{ins.attrs[variant]}" if variant and variant in ins.attrs else op
    text = head + name
    if slot is not None:
        text += f" {slot}"
    parts = [v(o, slot) for o in ins.operands]
    if op == "switch":
        cases = ", ".join(f"{c}: {namer.block(t)}" for c, t in zip(ins.attrs.get("cases", []), ins.targets[1:]))
        parts.append(f"default {namer.block(ins.targets[0])} [{cases}]" if ins.targets else "default ? []")
    else:
        parts += [namer.block(t) for t in ins.targets]
    parts += [f"{key} {attribute_text(ins.attrs[key])}" for key in sorted(ins.attrs)
              if key != variant and not (op == "switch" and key == "cases")]
    if parts:
        text += " " + ", ".join(parts)
    return text


def _signature(func: Function, namer: Namer) -> str:
    args = []
    for a in func.args:
        text = f"{a.type} {namer.value(a)}"
        if a.param != a.index:
            text += f" param {a.param}"
        args.append(text)
    kind = "kernel" if func.is_kernel else "function"
    text = f"{kind} @{symbol(func.name)}({', '.join(args)})"
    if func.return_type != VOID:
        text += f" -> {func.return_type}"
    if func.reqd_work_group_size is not None:
        text += " reqd_work_group_size({}, {}, {})".format(*func.reqd_work_group_size)
    return text + " {"


def _module_data(func: Function) -> list[tuple[str, object]]:
    out: list[tuple[str, object]] = []
    if func.source_name:
        out.append((f"  source {quote(func.source_name)}", None))
    for kind, entries in (("local", func.local_memory), ("constant", func.constant_data)):
        for d in entries:
            text = f"  {kind} @{symbol(d.symbol)} size {d.size} align {d.align}"
            if d.writable and kind == "constant":
                text += " writable"
            if d.init is not None:
                text += f' init x"{bytes(d.init).hex()}"'
            out.append((text, d))
    return out


def printed_lines(func: Function, divergence: Divergence | None = None) -> list[tuple[str, object]]:
    """The printed lines, each with the IR object it shows (a Block, Instr, If, Loop, Function or None).
    With `divergence` (lowering.analysis.divergence), each result, branch, if and loop carries NIR's mark,
    `div` or `con`, before it (`con %n = add i32 ...`, `div cbr i1 %c, ...`, `if div %c {`, `loop con {`);
    the parser skips the marks."""
    namer = Namer(func)

    def marked(obj: object, divergent: bool) -> str:
        return "" if divergence is None else ("div " if divergent else "con ")
    out: list[tuple[str, object]] = [(_signature(func, namer), func), *_module_data(func)]

    def emit_block(b: Block, indent: str) -> None:
        label = f" {quote(b.label)}" if b.label else ""
        preds = ", ".join(namer.block(p) for p in b.preds)
        out.append((f"{indent}block {namer.block(b)}{label}:" + (f"  ; preds: {preds}" if preds else ""), b))
        for ins in b.instrs:
            mark = ""
            if ins.has_result or ins.opcode in ("cbr", "switch"):
                mark = marked(ins, ins in divergence.values if ins.has_result else ins in divergence.branches) \
                    if divergence is not None else ""
            out.append((f"{indent}  {mark}{format_instr(ins, namer)}", ins))

    if not func.is_structured:
        for b in func.blocks:
            emit_block(b, "  ")
        out.append(("}", None))
        return out
    # the tree, walked with an explicit stack (depth-independent): items are nodes or closing lines
    stack: list[tuple[object, str]] = [(n, "  ") for n in reversed(func.body)]
    while stack:
        node, indent = stack.pop()
        if isinstance(node, str):
            out.append((indent + node, None))
        elif isinstance(node, Block):
            emit_block(node, indent)
        elif isinstance(node, If):
            mark = marked(node, divergence is not None and node in divergence.branches)
            out.append((f"{indent}if {mark}{namer.value(node.cond, I1)} {{", node))
            inner = indent + "  "
            stack.append(("}", indent))
            stack += [(n, inner) for n in reversed(node.else_list)]
            stack.append(("} else {", indent))
            stack += [(n, inner) for n in reversed(node.then_list)]
        elif isinstance(node, Loop):
            out.append((f"{indent}loop {marked(node, divergence is not None and node in divergence.loops)}{{", node))
            stack.append(("}", indent))
            stack += [(n, indent + "  ") for n in reversed(node.body)]
    out.append(("}", None))
    return out


@depth_independent
def print_function(func: Function, divergence: Divergence | None = None) -> str:
    return "\n".join(text for text, _ in printed_lines(func, divergence)) + "\n"


def print_module(funcs: Iterable[Function]) -> str:
    """Several functions, one after another (what --emit nir writes)."""
    return "".join(print_function(f) for f in funcs)

