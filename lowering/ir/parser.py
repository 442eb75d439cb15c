"""Read the text form that lowering.ir.printer writes, in CFG form or structured form, back into functions.

The parser checks syntax and names (every %value and bN used is defined once); types, attributes, edges
and dominance are the validator's job, run on the result by the caller. Each instruction, block and if
remembers its line (`Parsed.lines`), so a validator problem can be reported at the line it concerns.

Form: a function whose text holds an `if` or a `loop`, or a block that does not end in a CFG terminator
(br, cbr, switch, ret, unreachable), is in structured form; otherwise in CFG form. Predecessor comments
are ignored: edges are derived again from the terminators or the tree.
"""
from __future__ import annotations

import re
import struct
from collections.abc import Iterator
from dataclasses import dataclass, field

from reconverge.lowering.errors import CompileError
from reconverge.lowering.ir.core import (
    Arg,
    Block,
    CFNode,
    Const,
    Function,
    If,
    Instr,
    Loop,
    ModuleData,
    Phi,
    Undef,
    Value,
)
from reconverge.lowering.ir.opcodes import OPCODES, TERMINATORS
from reconverge.lowering.ir.types import I1, VOID, Type, parse_type


class IRParseError(CompileError):
    """Malformed IR text: 'FILE:LINE: message'."""


_Q = r'"(?:[^"\\]|\\[0-9A-Fa-f]{2})*"'
_TOKEN = re.compile(rf"""\s*(?:
    (?P<bytes>x{_Q})
  | (?P<str>{_Q})
  | (?P<local>%(?:{_Q}|[\w.$-]+))
  | (?P<global>@(?:{_Q}|[\w.$-]+))
  | (?P<num>-?(?:0x[0-9A-Fa-f]+|\d+(?:\.\d*)?(?:[eE][-+]?\d+)?))
  | (?P<word>[A-Za-z_][\w.$]*)
  | (?P<punct>->|[(){{}}\[\],:=])
)""", re.VERBOSE)
_TYPE = re.compile(r"(?:i\d+|f16|f32|f64|ptr\d*|void|token)\Z")
_BLOCK = re.compile(r"b\d+\Z")


def unquote(text: str) -> str:
    """Inverse of printer.quote: the bytes between the quotes, \\XX escapes decoded, as UTF-8."""
    body = text[1:-1]
    raw = re.sub(rb"\\([0-9A-Fa-f]{2})", lambda m: bytes([int(m.group(1), 16)]), body.encode())
    return raw.decode("utf-8", errors="replace")


def _name(token: str) -> str:
    """The name in %name, @name, %"quoted" or @"quoted"."""
    rest = token[1:]
    return unquote(rest) if rest.startswith('"') else rest


@dataclass
class _Line:
    number: int
    tokens: list[tuple[str, str]]      # (kind, text)
    text: str


@dataclass
class Parsed:
    """The functions read, by name, and where each IR object was written (for error messages)."""
    functions: dict[str, Function] = field(default_factory=dict)
    lines: dict[int, int] = field(default_factory=dict)          # id(object) -> line number


class _Tokens:
    """A cursor over one line's tokens."""

    def __init__(self, parser: "_Parser", line: _Line):
        self.parser, self.line, self.pos = parser, line, 0

    def peek(self, offset: int = 0) -> tuple[str, str]:
        i = self.pos + offset
        return self.line.tokens[i] if i < len(self.line.tokens) else ("end", "")

    def next(self) -> tuple[str, str]:
        tok = self.peek()
        self.pos += 1
        return tok

    def expect(self, text: str) -> None:
        kind, got = self.next()
        if got != text:
            raise self.parser.error(self.line, f"expected '{text}', found '{got or 'end of line'}'")

    def accept(self, text: str) -> bool:
        if self.peek()[1] == text:
            self.pos += 1
            return True
        return False

    def at_end(self) -> bool:
        return self.pos >= len(self.line.tokens)

    def type(self) -> Type:
        kind, text = self.next()
        if kind != "word" or not _TYPE.match(text):
            raise self.parser.error(self.line, f"expected a type, found '{text or 'end of line'}'")
        return parse_type(text)

    def int(self) -> int:
        kind, text = self.next()
        if kind != "num":
            raise self.parser.error(self.line, f"expected a number, found '{text or 'end of line'}'")
        try:
            return int(text, 0)
        except ValueError:
            raise self.parser.error(self.line, f"expected an integer, found '{text}'") from None


def parse_module(text: str, source_name: str = "<nir>") -> Parsed:
    """Every function in `text`."""
    return _Parser(text, source_name).parse()


class _Parser:
    def __init__(self, text: str, source_name: str):
        self.source_name = source_name
        self.result = Parsed()
        self.lines: list[_Line] = []
        for number, raw in enumerate(text.splitlines(), start=1):
            tokens = self.tokenize(raw, number)
            if tokens:
                self.lines.append(_Line(number, tokens, raw.strip()))
        self.pos = 0

    def error(self, line: _Line | None, message: str) -> IRParseError:
        where = f"{self.source_name}:{line.number}" if line is not None else self.source_name
        shown = f" (in `{line.text}`)" if line is not None else ""
        return IRParseError(f"{where}: {message}{shown}")

    def tokenize(self, raw: str, number: int) -> list[tuple[str, str]]:
        tokens: list[tuple[str, str]] = []
        pos = 0
        while pos < len(raw):
            rest = raw[pos:]
            if not rest.strip() or rest.lstrip().startswith(";"):
                break
            m = _TOKEN.match(raw, pos)
            if m is None or m.end() == pos:
                line = _Line(number, [], raw.strip())
                raise self.error(line, f"unexpected character '{raw[pos:].lstrip()[:1]}'")
            kind = m.lastgroup or ""
            tokens.append((kind, m.group(kind)))
            pos = m.end()
        return tokens

    def parse(self) -> Parsed:
        while self.pos < len(self.lines):
            func = self.function()
            if func.name in self.result.functions:
                raise self.error(None, f"function @{func.name} is defined twice")
            self.result.functions[func.name] = func
        if not self.result.functions:
            raise self.error(None, "no function in this file")
        return self.result

    def mark(self, obj: object, line: _Line) -> None:
        self.result.lines[id(obj)] = line.number

    # ----- the function header and module data
    def function(self) -> Function:
        line = self.lines[self.pos]
        self.pos += 1
        t = _Tokens(self, line)
        kind, word = t.next()
        if word not in ("kernel", "function"):
            raise self.error(line, f"expected 'kernel' or 'function', found '{word}'")
        kind, name = t.next()
        if kind != "global":
            raise self.error(line, "expected the function's @name")
        t.expect("(")
        args: list[Arg] = []
        self.values: dict[str, Value] = {}
        while not t.accept(")"):
            if args:
                t.expect(",")
            atype = t.type()
            kind, text = t.next()
            if kind != "local":
                raise self.error(line, f"expected a parameter's %name, found '{text}'")
            param = len(args)
            if t.accept("param"):
                param = t.int()
            arg = Arg(atype, len(args), self.value_name(text), param)
            self.define(text, arg, line)
            args.append(arg)
        return_type = VOID
        if t.accept("->"):
            return_type = t.type()
        func = Function(_name(name), args, return_type, is_kernel=word == "kernel")
        self.mark(func, line)
        if t.accept("reqd_work_group_size"):
            t.expect("(")
            size = [t.int()]
            for _ in range(2):
                t.expect(",")
                size.append(t.int())
            t.expect(")")
            func.reqd_work_group_size = (size[0], size[1], size[2])
        t.expect("{")
        if not t.at_end():
            raise self.error(line, f"unexpected '{t.peek()[1]}' after '{{'")
        self.module_data(func)
        self.body(func)
        return func

    def module_data(self, func: Function) -> None:
        while self.pos < len(self.lines):
            line = self.lines[self.pos]
            t = _Tokens(self, line)
            word = t.next()[1]
            if word == "source":
                kind, text = t.next()
                if kind != "str":
                    raise self.error(line, "expected a quoted file name after 'source'")
                func.source_name = unquote(text)
            elif word in ("local", "constant"):
                kind, name = t.next()
                if kind != "global":
                    raise self.error(line, f"expected the {word} data's @name")
                t.expect("size")
                size = t.int()
                t.expect("align")
                align = t.int()
                writable = t.accept("writable")
                init = None
                if t.accept("init"):
                    kind, text = t.next()
                    if kind != "bytes":
                        raise self.error(line, 'expected x"hex bytes" after init')
                    try:
                        init = bytes.fromhex(text[2:-1])
                    except ValueError:
                        raise self.error(line, "init: not hexadecimal bytes") from None
                data = ModuleData(_name(name), 3 if word == "local" else 2, size, align, init, writable)
                (func.local_memory if word == "local" else func.constant_data).append(data)
            else:
                return
            if not t.at_end():
                raise self.error(line, f"unexpected '{t.peek()[1]}'")
            self.pos += 1

    # ----- blocks and the tree
    def body(self, func: Function) -> None:
        """Read up to the closing brace: lines are kept per block, then instructions are built in two
        passes (results first, so any value may be used before the line that defines it)."""
        self.blocks: dict[str, Block] = {}
        self.pending: list[tuple[Instr, _Line, _Tokens, Type | None]] = []
        self.block_order: list[Block] = []
        structured = False
        # the tree: a stack of CF lists being filled, with the If/Loop (or function) that owns each
        lists: list[tuple[list[CFNode], object]] = [([], func)]
        current: Block | None = None
        while True:
            if self.pos >= len(self.lines):
                raise self.error(None, f"function @{func.name} is not closed with '}}'")
            line = self.lines[self.pos]
            self.pos += 1
            t = _Tokens(self, line)
            kind, word = t.peek()
            if word == "}":
                t.next()
                if len(lists) == 1:
                    if not t.at_end():
                        raise self.error(line, f"unexpected '{t.peek()[1]}' after the function's '}}'")
                    break
                nodes, owner = lists.pop()
                current = None
                if isinstance(owner, If) and t.accept("else"):
                    t.expect("{")
                    owner.then_list = nodes
                    lists.append(([], ("else", owner)))
                elif isinstance(owner, tuple):
                    owner[1].else_list = nodes
                elif isinstance(owner, Loop):
                    owner.body = nodes
                else:
                    raise self.error(line, "an if needs '} else {' before its closing '}'")
                if not t.at_end():
                    raise self.error(line, f"unexpected '{t.peek()[1]}'")
            elif word in ("if", "loop"):
                structured = True
                t.next()
                node: If | Loop
                self.skip_mark(t)
                if word == "if":
                    node = If(self.operand(t, I1, line, deferred=True))
                    node.then_list, node.else_list = [], []     # filled as the lines are read
                else:
                    node = Loop()
                    node.body = []
                t.expect("{")
                if not t.at_end():
                    raise self.error(line, f"unexpected '{t.peek()[1]}' after '{{'")
                self.mark(node, line)
                lists[-1][0].append(node)
                lists.append(([], node))
                current = None
            elif word == "block":
                t.next()
                kind, ref = t.next()
                if kind != "word" or not _BLOCK.match(ref):
                    raise self.error(line, f"expected a block name bN, found '{ref}'")
                block = self.block_named(ref, line, defining=True)
                if t.peek()[0] == "str":
                    block.label = unquote(t.next()[1])
                t.expect(":")
                if not t.at_end():
                    raise self.error(line, f"unexpected '{t.peek()[1]}' after the block's ':'")
                self.mark(block, line)
                self.block_order.append(block)
                lists[-1][0].append(block)
                current = block
            else:
                if current is None:
                    raise self.error(line, "an instruction outside a block")
                self.skip_mark(t)
                current.append(self.instruction_head(t, line))
        for ins, line, t, slot in self.pending:
            self.instruction_rest(ins, t, line, slot)
        for ref, block in self.blocks.items():
            if block not in self.block_order:
                raise self.error(None, f"@{func.name}: block {ref} is used but never defined")
        self.resolve_if_conditions(lists[0][0])
        structured = structured or any(not b.instrs or b.instrs[-1].opcode not in TERMINATORS
                                       for b in self.block_order)
        if structured:
            func.is_structured = True
            for top in lists[0][0]:
                func.add(top)
            self.link_parents(func.body)
        else:
            func.blocks = list(self.block_order)
        func.update_cfg()

    @staticmethod
    def skip_mark(t: _Tokens) -> None:
        """Divergence marks (`div`, `con`: the printer's, with an analysis) say nothing the IR keeps."""
        if t.peek() in (("word", "div"), ("word", "con")) and t.peek(1)[0] != "end":
            t.next()

    def ifs(self, nodes: list[CFNode]) -> Iterator[If]:
        work = [nodes]
        while work:
            for n in work.pop():
                if isinstance(n, If):
                    yield n
                    work += [n.then_list, n.else_list]
                elif isinstance(n, Loop):
                    work.append(n.body)

    def resolve_if_conditions(self, nodes: list[CFNode]) -> None:
        for node in self.ifs(nodes):
            if isinstance(node.cond, _Forward):
                node.cond = self.lookup(node.cond.token, node.cond.line)

    @staticmethod
    def link_parents(nodes: list[CFNode]) -> None:
        stack: list[CFNode] = list(nodes)
        while stack:
            n = stack.pop()
            if isinstance(n, If):
                for child in n.then_list + n.else_list:
                    child.parent = n
                stack += n.then_list + n.else_list
            elif isinstance(n, Loop):
                for child in n.body:
                    child.parent = n
                stack += n.body

    def block_named(self, ref: str, line: _Line, defining: bool = False) -> Block:
        block = self.blocks.get(ref)
        if block is None:
            block = self.blocks[ref] = Block()
        elif defining and block in self.block_order:
            raise self.error(line, f"block {ref} is defined twice")
        return block

    # ----- values
    @staticmethod
    def value_name(token: str) -> str:
        name = _name(token)
        return "" if name.isdigit() else name

    def define(self, token: str, value: Value, line: _Line) -> None:
        key = _name(token)
        if key in self.values:
            raise self.error(line, f"%{key} is defined twice")
        self.values[key] = value

    def lookup(self, token: str, line: _Line) -> Value:
        try:
            return self.values[_name(token)]
        except KeyError:
            raise self.error(line, f"unknown value {token}") from None

    def operand(self, t: _Tokens, slot: Type | None, line: _Line, deferred: bool = False) -> Value:
        """A value: %name, or a constant/undef of `slot` type unless a type is written before it."""
        kind, text = t.peek()
        vtype = slot
        if kind == "word" and _TYPE.match(text):
            t.next()
            vtype = parse_type(text)
            kind, text = t.peek()
        t.next()
        if kind == "local":
            if deferred and _name(text) not in self.values:
                return _Forward(text, line)
            return self.lookup(text, line)
        if vtype is None:
            raise self.error(line, f"the constant '{text}' needs a type")
        if text == "undef":
            return Undef(vtype)
        if text in ("true", "false") and kind == "word":
            return Const(vtype, 1 if text == "true" else 0)
        if kind != "num":
            raise self.error(line, f"expected a value, found '{text or 'end of line'}'")
        try:
            if vtype.is_float:
                if text.startswith("0x"):
                    return Const(vtype, struct.unpack(">d", bytes.fromhex(text[2:].rjust(16, "0")))[0])
                return Const(vtype, float(text))
            return Const(vtype, int(text, 0))
        except ValueError:
            raise self.error(line, f"'{text}' is not a {vtype} constant") from None

    # ----- instructions
    def instruction_head(self, t: _Tokens, line: _Line) -> Instr:
        """The result name, opcode and type; operands are read later (instruction_rest)."""
        result = None
        if t.peek()[0] == "local":
            result = t.next()[1]
            t.expect("=")
        kind, word = t.next()
        if kind != "word":
            raise self.error(line, f"expected an opcode, found '{word}'")
        opcode, _, variant = word.partition(".")
        spec = OPCODES.get(opcode)
        if spec is None:
            raise self.error(line, f"unknown opcode '{opcode}'")
        slot = None
        if t.peek()[0] == "word" and _TYPE.match(t.peek()[1]):
            slot = t.type()
        rtype = VOID
        if result is not None:
            if slot is None:
                raise self.error(line, f"{opcode}: the result's type is missing")
            rtype = I1 if opcode in ("icmp", "fcmp") else slot
        if opcode == "phi":
            ins: Instr = Phi(rtype, name=self.value_name(result or ""))
        else:
            ins = Instr(opcode, [], rtype, name=self.value_name(result or ""))
        if variant:
            if spec.variant is None:
                raise self.error(line, f"{opcode} has no variants ('{word}')")
            ins.attrs[spec.variant] = variant
        if result is not None:
            self.define(result, ins, line)
        self.mark(ins, line)
        self.pending.append((ins, line, t, slot))
        return ins

    def instruction_rest(self, ins: Instr, t: _Tokens, line: _Line, slot: Type | None) -> None:
        """Operands (of the slot type unless typed), targets and attributes, in the printer's order."""
        if isinstance(ins, Phi):
            first = True
            while not t.at_end():
                if not first:
                    t.expect(",")
                first = False
                t.expect("[")
                kind, ref = t.next()
                block = self.block_ref(ref, line)
                t.expect(":")
                ins.add_incoming(block, self.operand(t, ins.type, line))
                t.expect("]")
            return
        first = True
        if slot is not None and t.peek()[1] == "," and not ins.operands:
            t.next()                   # `alloca ptr0, size 16` reads as the printer's `alloca ptr0 size 16`
        while not t.at_end():
            if not first:
                t.expect(",")
            first = False
            kind, text = t.peek()
            if kind == "word" and (_BLOCK.match(text) or text == "end") and t.peek(1)[1] in (",", ""):
                t.next()
                ins.targets.append(self.block_ref(text, line))
            elif kind == "word" and text == "default" and ins.opcode == "switch":
                t.next()
                ins.targets.append(self.block_ref(t.next()[1], line))
                ins.attrs["cases"] = self.switch_cases(ins, t, line)
            elif kind == "word" and not _TYPE.match(text) and text not in ("true", "false", "undef"):
                t.next()
                ins.attrs[text] = self.attribute(t, line)
            else:
                ins.operands.append(self.operand(t, slot, line))

    def switch_cases(self, ins: Instr, t: _Tokens, line: _Line) -> list[int]:
        t.expect("[")
        cases: list[int] = []
        while not t.accept("]"):
            if cases:
                t.expect(",")
            cases.append(t.int())
            t.expect(":")
            ins.targets.append(self.block_ref(t.next()[1], line))
        return cases

    def block_ref(self, ref: str, line: _Line) -> Block:
        if ref == "end":
            raise self.error(line, "the end block cannot be named as a target")
        if not _BLOCK.match(ref):
            raise self.error(line, f"expected a block name bN, found '{ref}'")
        return self.block_named(ref, line)

    def attribute(self, t: _Tokens, line: _Line) -> object:
        kind, text = t.next()
        if kind == "num":
            try:
                return int(text, 0)
            except ValueError:
                raise self.error(line, f"attribute value '{text}' is not an integer") from None
        if kind == "str":
            return unquote(text)
        if kind == "word" and text in ("true", "false"):
            return text == "true"
        if text == "[":
            items: list[object] = []
            while not t.accept("]"):
                if items:
                    t.expect(",")
                items.append(t.int())
            return items
        raise self.error(line, f"expected an attribute value, found '{text or 'end of line'}'")


class _Forward(Value):
    """An if's condition named before its definition was read (resolved once the function is read)."""
    __slots__ = ("token", "line")

    def __init__(self, token: str, line: _Line):
        super().__init__(VOID)
        self.token, self.line = token, line
