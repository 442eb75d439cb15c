"""A function body read once from LLVM's printed text: blocks and instructions as Python records that
answer for llvmlite's ValueRefs.

Over 600 lines: one parser of LLVM's instruction syntax (LangRef's forms per opcode, with the fast path for
the commonest shapes) and the records it fills, which must stay together to answer exactly as llvmlite does.

Why: every llvmlite accessor (`.opcode`, `.operands`, `.type`, iterating blocks and instructions, a
constant's value) is a foreign call with its own locking and object wrapping, and the reader made about
18 of them per instruction (a 100,000-block kernel spent most of its 36 s there). The function's printed
text, which the reader needs anyway for what llvmlite hides (predicates, alignments, GEP types), holds
every one of those facts, so it is split into records here in one pass and the instructions' operands are
parsed from each line when first asked for.

A record answers the attributes the reader uses: `name`, `opcode`, `operands` (in LLVM's own order: a
conditional `br` is cond, false, true; a call's are its arguments, then its operand bundles' operands,
then the callee), `type` (an LType), `incoming_blocks`, `value_kind`, `get_constant_value()` and `str()`.
Anything else, and any instruction whose text this parser does not recognise (an unknown keyword, a rare
form), is answered by llvmlite's own value: the function is walked once, the first time one is needed,
and llvmlite's values are matched to the records by position. So an unrecognised form is slower, never
different.
"""
from __future__ import annotations

import itertools
import re

from reconverge.lowering.frontend.llvm_types import I1_T, LType
from reconverge.lowering.frontend.value_kinds import ValueKind as VK
from reconverge.typing_free import cast

TYPE_CHECKING = False                   # not typing's: a compile's start-up does not import typing
if TYPE_CHECKING:
    import ctypes
    from typing import Any, Callable

    import llvmlite.binding as llvm
else:
    class _Ctypes:
        """ctypes, imported when key() first meets one of llvmlite's values (llvmlite has imported it by
        then): a compile of OpenCL C, read from clang's text without llvmlite, does not import it (9M
        instructions, 3% of a one-kernel compile's process)."""

        def __getattr__(self, name):
            import ctypes as module
            return getattr(module, name)

    ctypes = _Ctypes()
# LLVM's tokens, the most frequent first (a name, punctuation; `s0x1F` as a word is the same span as a hex literal)
_TOKENS = re.compile(r'[%@](?:"[^"]*"|[-\w.$]+)|[,()\[\]{}<>=*:]|0x[KLMHR]?[0-9A-Fa-f]+'
                     r'|[-+]?\d+(?:\.\d*)?(?:[eE][-+]?\d+)?|c"[^"]*"|[A-Za-z_$.][-\w.$]*|"[^"]*"|![-\w.$]*|#\d+|;.*|\S')
_LABEL = re.compile(r'^("[^"]*"|[-\w.$]+):')
DECIMAL = re.compile(r"[-+]?\d+$")
_OPEN, _CLOSE = frozenset("([{<"), frozenset(")]}>")
_SCALAR_TYPES = frozenset("half bfloat float double fp128 x86_fp80 ppc_fp128 void label token metadata "
                          "x86_amx x86_mmx".split())
FLAGS = frozenset("nuw nsw exact disjoint samesign nneg inbounds nusw fast nnan ninf nsz arcp contract afn "
                   "reassoc".split())
_BINARY = frozenset("add sub mul udiv sdiv urem srem shl lshr ashr and or xor fadd fsub fmul fdiv frem".split())
_CASTS = frozenset("trunc zext sext fptrunc fpext fptoui fptosi uitofp sitofp ptrtoint inttoptr bitcast "
                   "addrspacecast ptrtoaddr".split())
_CONSTANT_EXPRESSIONS = _CASTS | frozenset("getelementptr add sub mul xor and or shl lshr ashr extractelement "
                                           "insertelement shufflevector ptrauth".split())
_VALUE_WORDS = frozenset("true false null undef poison zeroinitializer none splat blockaddress "
                         "dso_local_equivalent no_cfi".split()) | _CONSTANT_EXPRESSIONS
_CONSTANT_KINDS = {"null": VK.constant_pointer_null, "undef": VK.undef_value, "poison": VK.poison_value,
                   "zeroinitializer": VK.constant_aggregate_zero, "none": VK.constant_token_none,
                   "blockaddress": VK.block_address, "splat": VK.constant_data_vector, "<": VK.constant_vector,
                   "[": VK.constant_array, "{": VK.constant_struct}
_keys = itertools.count(-1, -1)      # record keys: negative, never an LLVM value's address


def new_record_key() -> int:
    """A fresh key for a value read from text (text_module's parameters use them too)."""
    return next(_keys)


class Unrecognised(Exception):
    """Text this parser does not read; llvmlite answers for the instruction instead."""


class NeedsRecords(Exception):
    """A body read in one pass (LineBody) met what only llvmlite's values answer: the caller reads the
    function again the two-pass way (records for every instruction, matched to llvmlite's by position)."""


def key(v: llvm.ValueRef | TextValue) -> int | str:
    """The reader's identity of a value: a record's text_key, else the LLVM object's address."""
    try:
        return v.text_key                # records (an argument's is its LLVM address)
    except AttributeError:
        pass
    address = ctypes.cast(cast("llvm.ValueRef", v)._ptr, ctypes.c_void_p).value
    assert address is not None, "an LLVM value has an address"
    return address


def value_name(tok: str) -> str:
    """`%"a b"` / `@x` / `b1` -> the name LLVM holds (quotes removed, \\XX escapes decoded)."""
    body = tok[1:] if tok[:1] in "%@" else tok
    if body[:1] == '"':
        body = body[1:-1]
        if "\\" in body:
            body = re.sub(r"\\([0-9A-Fa-f]{2})", lambda m: chr(int(m.group(1), 16)), body)
    return body


class TextValue:
    """Base of the records; `text_key` identifies one in the reader's value maps (a number, or in a body
    read in one pass a local's name_key)."""
    __slots__ = ("text_key",)
    text_key: int | str


class TextArgument(TextValue):
    """A parameter as operand: llvmlite's argument, keyed by its LLVM address as the reader keys it."""
    __slots__ = ("llvm_value", "_type")
    value_kind = VK.argument
    is_instruction = False
    is_constant = False

    def __init__(self, arg: llvm.ValueRef, text_key: int | str):
        self.text_key, self.llvm_value = text_key, arg
        self._type = None

    @property
    def type(self):
        if self._type is None:
            self._type = self.llvm_value.type
        return self._type

    def __getattr__(self, attr: str):
        return getattr(self.llvm_value, attr)


class TextBlock(TextValue):
    __slots__ = ("name", "label", "instructions", "_body")
    value_kind = VK.basic_block
    is_block = True

    def __init__(self, body: FunctionText, label: str, text_key: int | str | None = None):
        self.text_key = next(_keys) if text_key is None else text_key
        self.label = value_name(label)
        self.name = "" if label.isdigit() else self.label       # an unnamed block prints its slot number
        self.instructions: list[TextInstruction] = []
        self._body = body

    def __str__(self) -> str:
        return self.label

    def __getattr__(self, attr: str):
        return getattr(self._body.llvm_block(self), attr)


class TextInstruction(TextValue):
    __slots__ = ("text", "opcode", "name", "_body", "_toks", "_at", "_operands", "_type", "_incoming")
    value_kind = VK.instruction
    is_instruction = True
    is_constant = False

    def __init__(self, body: FunctionText, text: str, opcode: str, name: str, toks: list[str], at: int,
                 text_key: int | str | None = None):
        self.text_key = next(_keys) if text_key is None else text_key
        self.text, self.opcode, self.name = text, opcode, name
        self._body, self._toks, self._at = body, toks, at
        self._operands: list | None = None
        self._type: LType | None = None
        self._incoming: list[TextBlock] | None = None

    def __str__(self) -> str:
        return self.text

    def __getattr__(self, attr: str):
        return getattr(self._body.llvm_instruction(self), attr)

    def _read(self) -> None:
        try:
            if not _read_simple(self):
                _InstructionParser(self._body, self).read()
        except (Unrecognised, IndexError, KeyError, ValueError, AttributeError):
            self._body.from_llvm(self)

    @property
    def operands(self) -> list:
        if self._operands is None:
            self._read()
        assert self._operands is not None
        return self._operands

    @property
    def type(self) -> LType:
        if self._type is None:
            self._read()
        assert self._type is not None
        return self._type

    @property
    def incoming_blocks(self) -> list[TextBlock]:
        if self._operands is None:
            self._read()
        if self._incoming is None:
            raise ValueError(f"expected phi instruction value, got {self.opcode}")
        return self._incoming


class TextConstant(TextValue):
    """A non-local operand: a constant, a global, a function, metadata, as written in the instruction."""
    __slots__ = ("type_text", "value_text", "value_kind", "_body", "_owner", "_index", "_type")
    is_instruction = False
    is_constant = True

    def __init__(self, body: FunctionText, type_text: str, value_text: str, kind, owner: TextInstruction | None,
                 index: int):
        self.text_key = next(_keys)
        self.type_text, self.value_text, self.value_kind = type_text, value_text, kind
        self._body, self._owner, self._index = body, owner, index
        self._type: LType | None = None

    @property
    def name(self) -> str:
        return value_name(self.value_text) if self.value_text[:1] == "@" else ""

    @property
    def type(self) -> LType:
        if self._type is None:
            self._type = self._body.type_of(self.type_text)
        return self._type

    def get_constant_value(self, signed_int: bool = False, round_fp: bool = False):
        if self.value_kind != VK.constant_int:
            return self._llvm().get_constant_value(signed_int, round_fp)
        bits = self.type.bits
        t = self.value_text
        value = (1 if t == "true" else 0 if t == "false" else int(t)) & ((1 << bits) - 1)
        return value - (1 << bits) if signed_int and value >> (bits - 1) else value

    def __str__(self) -> str:
        return f"{self.type_text} {self.value_text}"

    def _llvm(self):
        if self._owner is None:
            raise AttributeError("a constant the parser made itself has no llvmlite value")
        return self._body.llvm_instruction(self._owner).operands[self._index] if self._index >= 0 else None

    def __getattr__(self, attr: str):
        return getattr(self._llvm(), attr)


class FunctionText:
    """The blocks of one printed function, and the way back to llvmlite's values when a record cannot answer."""

    def __init__(self, fn: llvm.ValueRef, arguments: list, type_of: Callable[[str], LType],
                 global_kind: Callable[[str], object]):
        self.fn = fn
        self.type_of = type_of                    # type text -> LType (the module's named structs resolved)
        self.global_kind = global_kind            # @name -> VK.global_variable / VK.function / None
        self.blocks: list[TextBlock] = []
        self.locals: dict[str, Any] = {}          # `%name` as printed -> its record (or llvmlite argument)
        self.arguments = arguments
        self.argument_records: list[TextArgument] = []
        self._llvm_of: dict[int | str, llvm.ValueRef] | None = None
        self._record_of: dict[int | str, TextValue] = {}

    def release(self) -> None:
        """Drop the records once the function is read: they and this body refer to each other, and a cycle
        would wait for the cyclic collector (a third of the read's time at 30k blocks) where reference
        counting frees them at once."""
        for block in self.blocks:
            block.instructions = []
        self.blocks = []
        self.locals = {}
        self.argument_records = []
        self._llvm_of = None
        self._record_of = {}

    # ----- the way back to llvmlite -----
    def _walk(self) -> dict[int | str, llvm.ValueRef]:
        if self._llvm_of is None:
            llvm_of: dict[int | str, llvm.ValueRef] = {}
            real_fn = self.llvm_function()
            for parameter, real_arg in zip(self.argument_records, real_fn.arguments):
                self._record_of[key(real_arg)] = parameter
            real_blocks = list(real_fn.blocks)
            if len(real_blocks) != len(self.blocks):
                raise AssertionError(f"@{self.fn.name}: {len(self.blocks)} printed blocks, {len(real_blocks)} in LLVM")
            for record, real in zip(self.blocks, real_blocks):
                llvm_of[record.text_key] = real
                self._record_of[key(real)] = record
                real_instructions = list(real.instructions)
                if len(real_instructions) != len(record.instructions):
                    raise AssertionError(f"@{self.fn.name}: block %{record.label} printed with "
                                         f"{len(record.instructions)} instructions, {len(real_instructions)} in LLVM")
                for ins, real_ins in zip(record.instructions, real_instructions):
                    llvm_of[ins.text_key] = real_ins
                    self._record_of[key(real_ins)] = ins
            self._llvm_of = llvm_of
        return self._llvm_of

    def llvm_function(self) -> llvm.ValueRef:
        """llvmlite's function: the one read, or for a text module's function (text_module.py) the module
        parsed by llvmlite now."""
        of_text = getattr(self.fn, "llvm_function", None)
        return of_text() if of_text is not None else self.fn

    def llvm_instruction(self, record: TextInstruction) -> llvm.ValueRef:
        return self._walk()[record.text_key]

    def llvm_block(self, record: TextBlock) -> llvm.ValueRef:
        return self._walk()[record.text_key]

    def record(self, value: llvm.ValueRef):
        """llvmlite's value -> the record standing for it (instructions, blocks, parameters); others as
        they are."""
        self._walk()
        kind = value.value_kind
        if kind in (VK.instruction, VK.basic_block, VK.argument):
            return self._record_of[key(value)]
        return value

    def from_llvm(self, ins: TextInstruction) -> None:
        """Fill an instruction's operands and type from llvmlite (a form this parser does not read)."""
        real = self.llvm_instruction(ins)
        ins._operands = [self.record(o) for o in real.operands]
        ins._type = real.type
        if ins.opcode == "phi":
            ins._incoming = [self.record(b) for b in real.incoming_blocks]

    # ----- operands -----
    def local(self, tok: str):
        hit = self.locals.get(tok)
        if hit is None:
            raise Unrecognised(f"{tok} is not defined in the function")
        return hit

    def value(self, tok: str, type_text: str):
        """The local `tok` used as a value of type `type_text`."""
        return self.local(tok)

    def value_or_none(self, tok: str, type_text: str):
        return self.locals.get(tok)

    def block(self, tok: str):
        """The block `tok` names (after `label`, or in a phi's incoming pair)."""
        return self.local(tok)

    def block_or_none(self, tok: str):
        return self.locals.get(tok)


def name_key(tok: str) -> str:
    """A local's key in a body read in one pass: the name as written without its quotes (`%x` and `%"x"`
    alike, as line_reader splits a line), or with an escape (`\\22`) decoded and quoted (such a line is
    read the general way throughout). `%"5"` (a name) and `%5` (a slot) share a key: should both be
    defined, the reader finds it and reads the function the two-pass way."""
    if '"' not in tok:
        return tok
    if "\\" not in tok:
        return tok.replace('"', "")
    return '%"' + value_name(tok) + '"'


class TextLocal(TextValue):
    """A local used by an instruction of a body read in one pass, standing for its definition wherever that
    is (read already, or further down); keyed by name, so the reader's value map finds what defines it."""
    __slots__ = ("name", "_body", "_type_text", "_type")
    value_kind = VK.instruction
    is_instruction = True
    is_constant = False

    def __init__(self, body: FunctionText, tok: str, type_text: str):
        self.text_key = name_key(tok)
        self.name = value_name(tok)
        self._body, self._type_text = body, type_text
        self._type: LType | None = None

    @property
    def type(self) -> LType:
        """The type its use names (LLVM's verifier has checked it is the definition's)."""
        if self._type is None:
            self._type = self._body.type_of(self._type_text)
        return self._type

    def __str__(self) -> str:
        return f"%{self.name}"

    def __getattr__(self, attr: str):
        raise NeedsRecords(attr)


class LineBody(FunctionText):
    """The function's locals for a body read in one pass (line_reader.py): a name is answered at its first
    use, before or after its definition, and llvmlite's values are out of reach (NeedsRecords)."""

    def __init__(self, fn: llvm.ValueRef, arguments: list, type_of: Callable[[str], LType],
                 global_kind: Callable[[str], object], block_named: Callable[[str, str], object]):
        super().__init__(fn, arguments, type_of, global_kind)
        self.block_named = block_named            # (name_key, label) -> the reader's block

    def value(self, tok: str, type_text: str):
        hit = self.locals.get(tok)
        if hit is None:
            hit = self.locals[tok] = TextLocal(self, tok, type_text)
        return hit

    value_or_none = value

    def block(self, tok: str):
        hit = self.locals.get(tok)
        if hit is None:
            if tok[:1] != "%":
                raise Unrecognised(f"block {tok}")
            k = name_key(tok)
            hit = self.locals[tok] = TextBlock(self, tok[1:], k)
            self.block_named(k, hit.label)
        return hit

    def block_or_none(self, tok: str):
        return self.block(tok) if tok[:1] == "%" else None

    def _walk(self) -> dict[int | str, llvm.ValueRef]:
        raise NeedsRecords("llvmlite's values")

    def from_llvm(self, ins: TextInstruction) -> None:
        raise NeedsRecords(ins.text)


def read_function_text(fn: llvm.ValueRef, fn_text: str, arguments: list, type_of: Callable[[str], LType],
                       global_kind: Callable[[str], object]) -> FunctionText | None:
    """The function's blocks as records, or None when its text is not laid out as expected (the reader
    then walks llvmlite's values as before)."""
    body = FunctionText(fn, arguments, type_of, global_kind)
    start = _open_body(body, fn_text, arguments)
    if start < 0:
        return None
    block: TextBlock | None = None
    open_switch: TextInstruction | None = None
    tokens, locals_ = _TOKENS.findall, body.locals
    for line in fn_text[start:].splitlines():
        if open_switch is not None:
            stripped = line.strip()
            open_switch.text += " " + stripped
            open_switch._toks.extend(_TOKENS.findall(line))
            if stripped[:1] == "]":                      # `]`, or `], !dbg !12` under -g
                open_switch = None
            continue
        if line[:2] == "  " and line[2:3] != " ":
            # one instruction (hot: inlined, with the common `%x = op ...` case first)
            toks = tokens(line)
            if not toks:
                continue
            if block is None:                           # an unnamed entry block takes the slot after the arguments
                block = _new_block(body, str(sum(1 for a in arguments if not a.name)))
            if len(toks) > 1 and toks[1] == "=" and toks[0][:1] == "%":
                if len(toks) == 2:
                    return None
                result = toks[0]
                # value_name(), inlined for the two common spellings: %x.1 (LLVM's printer) and %"x.1"
                if result[1:2] != '"':
                    name = result[1:]
                else:
                    name = result[2:-1] if "\\" not in result else value_name(result)
                at = 2
            else:
                result, at, name = "", 0, ""
            opcode = toks[at]
            if opcode in ("tail", "musttail", "notail") and at + 1 < len(toks):
                opcode = toks[at + 1]
            text = line.strip()
            if "  " in text or "\t" in text:            # the text with runs of blanks made single
                text = " ".join(text.split())
            ins = TextInstruction(body, text, opcode, name, toks, at)
            if at:
                locals_[result] = ins
            block.instructions.append(ins)
            if opcode == "switch" and text[-1] == "[":
                open_switch = ins
            continue
        m = _LABEL.match(line)
        if m:
            block = _new_block(body, m.group(1))
        elif line.startswith("}"):
            break
    return body


def _open_body(body: FunctionText, fn_text: str, arguments: list) -> int:
    """Where the body's lines start (after the `{`), with the parameters' records in body.locals; -1 when
    the header is not one read here."""
    try:
        start = fn_text.index("{", fn_text.index("define")) + 1
    except ValueError:
        return -1
    header = _TOKENS.findall(fn_text[fn_text.index("define"):start])
    names = _parameter_names(header)
    if names is None or len(names) != len(arguments):
        return -1
    for tok, arg in zip(names, arguments):
        body.locals[tok] = record = TextArgument(arg, key(arg))
        body.argument_records.append(record)
    return start


def line_body(fn: llvm.ValueRef, fn_text: str, arguments: list, type_of: Callable[[str], LType],
              global_kind: Callable[[str], object],
              block_named: Callable[[str, str], object]) -> tuple[LineBody, list[str]] | None:
    """A body to read in one pass and its lines, or None when the header is not one read here."""
    body = LineBody(fn, arguments, type_of, global_kind, block_named)
    start = _open_body(body, fn_text, arguments)
    if start < 0:
        return None
    return body, fn_text[start:].splitlines()


def line_record(body: LineBody, lines: list[str]) -> TextInstruction:
    """The record of one instruction (a switch: its lines) of a body read in one pass, keyed by its
    result's name_key, for the reader's general way."""
    toks = _TOKENS.findall(lines[0])
    text = lines[0].strip()
    if "  " in text or "\t" in text:             # as read_function_text makes it
        text = " ".join(text.split())
    for more in lines[1:]:
        text += " " + more.strip()
        toks.extend(_TOKENS.findall(more))
    if len(toks) > 2 and toks[1] == "=" and toks[0][:1] == "%":
        result, at = toks[0], 2
        name = value_name(result)
    else:
        result, at, name = "", 0, ""
    opcode = toks[at]
    if opcode in ("tail", "musttail", "notail") and at + 1 < len(toks):
        opcode = toks[at + 1]
    return TextInstruction(body, text, opcode, name, toks, at, name_key(result) if at else None)


def _new_block(body: FunctionText, label: str) -> TextBlock:
    block = TextBlock(body, label)
    body.blocks.append(block)
    body.locals["%" + label] = block
    return block


def _parameter_names(header: list[str]) -> list[str] | None:
    """The `%name` of each parameter on a `define` line (None: a form not read here, such as varargs)."""
    at = next((i for i, t in enumerate(header) if t[:1] == "@"), None)
    if at is None or at + 1 >= len(header) or header[at + 1] != "(":
        return None
    end = _balanced(header, at + 1)
    inner = header[at + 2:end - 1]
    if not inner:
        return []
    names = []
    for part in _split(inner, 0, len(inner)):
        last = inner[part[1] - 1] if part[1] > part[0] else ""
        if last[:1] != "%":
            return None
        names.append(last)
    return names


def _balanced(toks: list[str], i: int) -> int:
    """The index after the bracket closing the one at toks[i]."""
    depth = 0
    n = len(toks)
    while i < n:
        t = toks[i]
        if t in _OPEN:
            depth += 1
        elif t in _CLOSE:
            depth -= 1
            if depth == 0:
                return i + 1
        i += 1
    raise Unrecognised("unbalanced brackets")


def _split(toks: list[str], i: int, end: int) -> list[tuple[int, int]]:
    """(start, end) of each top-level comma-separated part of toks[i:end]."""
    parts = []
    depth = 0
    start = i
    while i < end:
        t = toks[i]
        if t in _OPEN:
            depth += 1
        elif t in _CLOSE:
            depth -= 1
        elif t == "," and depth == 0:
            parts.append((start, i))
            start = i + 1
        i += 1
    parts.append((start, end))
    return parts


def _type_end(toks: list[str], i: int) -> int:
    t = toks[i]
    if t == "ptr":
        return i + 5 if i + 1 < len(toks) and toks[i + 1] == "addrspace" else i + 1
    if t[0] == "i" and t[1:].isdigit() or t in _SCALAR_TYPES or t[0] == "%":
        return i + 1
    if t in ("<", "[", "{"):
        return _balanced(toks, i)
    if t == "target":
        return _balanced(toks, i + 1)
    raise Unrecognised(f"type {t}")


def _is_type_start(t: str) -> bool:
    return (t == "ptr" or (t[0] == "i" and t[1:].isdigit()) or t in _SCALAR_TYPES or t[0] == "%"
            or t in ("<", "[", "{", "target"))


def _value_end(toks: list[str], i: int) -> int:
    t = toks[i]
    if t in ("<", "[", "{"):
        return _balanced(toks, i)
    if t == "splat":
        return _balanced(toks, i + 1)
    if t in _CONSTANT_EXPRESSIONS or t == "blockaddress":
        j = i + 1
        while toks[j] != "(":
            j += 1
        return _balanced(toks, j)
    if t in ("dso_local_equivalent", "no_cfi"):
        return i + 2
    if t == "asm" or t in _CLOSE or t == ",":
        raise Unrecognised(f"value {t}")
    return i + 1


_SIMPLE_TYPES = frozenset("i1 i8 i16 i32 i64 half float double".split())
_INT_TYPES = frozenset("i1 i8 i16 i32 i64".split())


def _simple_value(ins: TextInstruction, tok: str, type_text: str, index: int):
    """A local or an integer literal, the operands most instructions have; None for anything else."""
    if tok[0] == "%":
        return ins._body.value_or_none(tok, type_text)
    if type_text in _INT_TYPES and (tok in ("true", "false") or DECIMAL.match(tok)):
        return TextConstant(ins._body, type_text, tok, VK.constant_int, ins, index)
    return None


def _read_simple(ins: TextInstruction) -> bool:
    """Operands and type of the commonest shapes (scalar types of one token, locals and integer literals:
    binary operators, compares, branches, loads and stores of a plain pointer, phis), without the general
    parser; False leaves the instruction to it."""
    toks, op, i = ins._toks, ins.opcode, ins._at + 1
    n = len(toks)
    body = ins._body
    if op in _BINARY or op == "icmp":
        while toks[i] in FLAGS:
            i += 1
        if op == "icmp":
            i += 1
        t = toks[i]
        if t not in _SIMPLE_TYPES or i + 4 > n or toks[i + 2] != "," or (i + 4 < n and toks[i + 4] != ","):
            return False
        a = _simple_value(ins, toks[i + 1], t, 0)
        b = _simple_value(ins, toks[i + 3], t, 1)
        if a is None or b is None:
            return False
        ins._operands = [a, b]
        ins._type = body.type_of("i1" if op == "icmp" else t)
        return True
    if op == "br":
        if toks[i] == "label" and (n == i + 2 or toks[i + 2] == ","):
            block = body.block_or_none(toks[i + 1])
            if block is None:
                return False
            ins._operands = [block]
        elif toks[i] == "i1" and (n == i + 8 or n > i + 8 and toks[i + 8] == ","):
            if toks[i + 3] != "label" or toks[i + 6] != "label":
                return False
            cond = _simple_value(ins, toks[i + 1], "i1", 0)
            true, false = body.block_or_none(toks[i + 4]), body.block_or_none(toks[i + 7])
            if cond is None or true is None or false is None:
                return False
            ins._operands = [cond, false, true]
        else:
            return False
        ins._type = _VOID
        return True
    if op == "phi":
        t = toks[i]
        if t not in _SIMPLE_TYPES:
            return False
        operands: list[Any] = []
        incoming: list[Any] = []
        i += 1
        while i + 5 <= n and toks[i] == "[" and toks[i + 2] == "," and toks[i + 4] == "]":
            v = _simple_value(ins, toks[i + 1], t, len(operands))
            block = body.block_or_none(toks[i + 3])
            if v is None or block is None:
                return False
            operands.append(v)
            incoming.append(block)
            i += 5
            if i < n and toks[i] == ",":
                i += 1
        if i != n and toks[i][0] != "!" or not operands:
            return False
        ins._operands, ins._incoming, ins._type = operands, incoming, body.type_of(t)
        return True
    if op == "load" or op == "store":
        t = toks[i]
        if t not in _SIMPLE_TYPES and t != "ptr":
            return False
        if op == "load":
            if (toks[i + 1] != "," or toks[i + 2] != "ptr" or toks[i + 3][0] != "%"
                    or (i + 4 < n and toks[i + 4] != ",")):
                return False
            p = body.value_or_none(toks[i + 3], "ptr")
            if p is None:
                return False
            ins._operands, ins._type = [p], body.type_of(t)
            return True
        if (toks[i + 2] != "," or toks[i + 3] != "ptr" or toks[i + 4][0] != "%"
                or (i + 5 < n and toks[i + 5] != ",")):
            return False
        v = _simple_value(ins, toks[i + 1], t, 0)
        p = body.value_or_none(toks[i + 4], "ptr")
        if v is None or p is None:
            return False
        ins._operands, ins._type = [v, p], _VOID
        return True
    return False


class _InstructionParser:
    """Reads one instruction's operands and result type from its tokens (LangRef's syntax per opcode)."""

    def __init__(self, body: FunctionText, ins: TextInstruction):
        self.body, self.ins, self.toks = body, ins, ins._toks
        self.i = ins._at + 1
        self.operands: list = []

    # ----- pieces -----
    def flags(self) -> None:
        while self.toks[self.i] in FLAGS:
            self.i += 1

    def expect(self, tok: str) -> None:
        if self.toks[self.i] != tok:
            raise Unrecognised(f"expected {tok}, found {self.toks[self.i]}")
        self.i += 1

    def type_text(self) -> str:
        j = _type_end(self.toks, self.i)
        text = self.toks[self.i] if j == self.i + 1 else " ".join(self.toks[self.i:j])
        self.i = j
        return text

    def value(self, type_text: str):
        """The operand at the cursor, of type `type_text`."""
        toks, i = self.toks, self.i
        j = _value_end(toks, i)
        self.i = j
        t = toks[i]
        if j == i + 1 and t[0] == "%":
            return self.body.value(t, type_text)
        return self.constant(type_text, t if j == i + 1 else " ".join(toks[i:j]), t)

    def constant(self, type_text: str, text: str, first: str) -> TextConstant:
        kind = _constant_kind(type_text, first, self.body)
        return TextConstant(self.body, type_text, text, kind, self.ins, len(self.operands))

    def typed_value(self):
        return self.value(self.type_text())

    def operand(self, value) -> None:
        self.operands.append(value)

    def done(self, type_: LType | str | None) -> None:
        ins = self.ins
        ins._operands = self.operands
        ins._type = self.body.type_of(type_) if isinstance(type_, str) else type_ if type_ is not None else _VOID

    # ----- instructions -----
    def read(self) -> None:
        op = self.ins.opcode
        if op in _BINARY:
            self.flags()
            t = self.type_text()
            self.operand(self.value(t))
            self.expect(",")
            self.operand(self.value(t))
            self.done(t)
        elif op in ("icmp", "fcmp"):
            self.flags()
            self.i += 1                                   # the predicate
            t = self.type_text()
            self.operand(self.value(t))
            self.expect(",")
            self.operand(self.value(t))
            lt = self.body.type_of(t)
            self.done(LType("vec", count=lt.count, elems=(I1_T,)) if lt.kind == "vec" else I1_T)
        elif op in _CASTS:
            self.flags()
            self.operand(self.typed_value())
            self.expect("to")
            self.done(self.type_text())
        elif op == "load":
            self.words("atomic", "volatile")
            t = self.type_text()
            self.expect(",")
            self.operand(self.typed_value())
            self.done(t)
        elif op == "store":
            self.words("atomic", "volatile")
            self.operand(self.typed_value())
            self.expect(",")
            self.operand(self.typed_value())
            self.done(None)
        elif op == "getelementptr":
            self.gep()
        elif op == "phi":
            self.phi()
        elif op == "br":
            self.br()
        elif op == "call":
            self.call()
        elif op == "select":
            self.flags()
            for n in range(3):
                if n:
                    self.expect(",")
                t = self.type_text()
                self.operand(self.value(t))
            self.done(t)
        elif op == "alloca":
            self.alloca()
        elif op == "switch":
            self.switch()
        elif op == "ret":
            if self.toks[self.i] != "void":
                t = self.type_text()
                self.operand(self.value(t))
            self.done(None)
        elif op == "unreachable":
            self.done(None)
        elif op in ("fneg", "freeze"):
            self.flags()
            t = self.type_text()
            self.operand(self.value(t))
            self.done(t)
        elif op == "extractelement":
            t = self.type_text()
            self.operand(self.value(t))
            self.expect(",")
            self.operand(self.typed_value())
            self.done(self.body.type_of(t).elem)
        elif op == "insertelement":
            t = self.type_text()
            self.operand(self.value(t))
            for _ in range(2):
                self.expect(",")
                self.operand(self.typed_value())
            self.done(t)
        elif op == "shufflevector":
            t = self.type_text()
            self.operand(self.value(t))
            self.expect(",")
            self.operand(self.typed_value())
            self.expect(",")
            mask = self.type_text()
            self.i = _value_end(self.toks, self.i)        # the mask (read from the text by the reader)
            self.done(LType("vec", count=self.body.type_of(mask).count, elems=(self.body.type_of(t).elem,)))
        elif op in ("extractvalue", "insertvalue"):
            t = self.type_text()
            self.operand(self.value(t))
            if op == "insertvalue":
                self.expect(",")
                self.operand(self.typed_value())
            result = self.body.type_of(t)
            if op == "extractvalue":
                toks = self.toks
                while self.i < len(toks) and toks[self.i] == "," and toks[self.i + 1].isdigit():
                    result = result.elems[int(toks[self.i + 1])] if result.kind == "struct" else result.elem
                    self.i += 2
            self.done(result)
        elif op == "atomicrmw":
            self.words("volatile")
            self.i += 1                                   # the operation
            self.operand(self.typed_value())
            self.expect(",")
            t = self.type_text()
            self.operand(self.value(t))
            self.done(t)
        elif op == "cmpxchg":
            self.words("weak", "volatile")
            self.operand(self.typed_value())
            self.expect(",")
            t = self.type_text()
            self.operand(self.value(t))
            self.expect(",")
            self.operand(self.typed_value())
            self.done(LType("struct", elems=(self.body.type_of(t), I1_T)))
        else:
            raise Unrecognised(op)

    def words(self, *allowed: str) -> None:
        while self.toks[self.i] in allowed:
            self.i += 1

    def gep(self) -> None:
        toks = self.toks
        while toks[self.i] in FLAGS or toks[self.i] == "inrange":
            self.i = _balanced(toks, self.i + 1) if toks[self.i] == "inrange" else self.i + 1
        self.type_text()                                  # the source element type
        base_type = None
        while self.i < len(toks) and toks[self.i] == "," and toks[self.i + 1][:1] != "!":
            self.i += 1
            t = self.type_text()
            if base_type is None:
                base_type = t
            elif t[0] == "<":
                raise Unrecognised("a vector index")
            self.operand(self.value(t))
        if base_type is None or base_type[0] == "<":
            raise Unrecognised("a vector of pointers")
        self.done(base_type)

    def alloca(self) -> None:
        toks = self.toks
        self.words("inalloca")
        self.type_text()
        count = None
        space = 0
        while self.i < len(toks) and toks[self.i] == ",":
            self.i += 1
            t = toks[self.i]
            if t == "align":
                self.i += 2
            elif t == "addrspace":
                space = int(toks[self.i + 2])
                self.i += 4
            elif t[:1] == "!":
                break
            else:
                count = self.typed_value()
        self.operand(count if count is not None else TextConstant(self.body, "i32", "1", VK.constant_int, None, -1))
        self.done(LType("ptr", space))

    def phi(self) -> None:
        self.flags()
        t = self.type_text()
        incoming = []
        toks = self.toks
        while True:
            self.expect("[")
            self.operand(self.value(t))
            self.expect(",")
            incoming.append(self.body.block(toks[self.i]))
            self.i += 1
            self.expect("]")
            if self.i >= len(toks) or toks[self.i] != "," or toks[self.i + 1] != "[":
                break
            self.i += 1
        self.ins._incoming = incoming
        self.done(t)

    def label(self) -> TextBlock:
        self.expect("label")
        block = self.body.block(self.toks[self.i])
        self.i += 1
        return block

    def br(self) -> None:
        if self.toks[self.i] == "label":
            self.operand(self.label())
        else:
            self.operand(self.typed_value())
            self.expect(",")
            true = self.label()
            self.expect(",")
            self.operand(self.label())
            self.operand(true)
        self.done(None)

    def switch(self) -> None:
        self.operand(self.typed_value())
        self.expect(",")
        self.operand(self.label())
        self.expect("[")
        toks = self.toks
        while toks[self.i] != "]":
            self.type_text()
            self.i += 1                                   # the case value (read from the text by the reader)
            self.expect(",")
            self.operand(self.label())
        self.done(None)

    def call(self) -> None:
        toks = self.toks
        self.i = self.ins._at
        self.words("tail", "musttail", "notail")
        self.expect("call")
        while not _is_type_start(toks[self.i]):           # fast-math flags, calling convention, return attributes
            self._attribute()
        ret = self.type_text()
        if toks[self.i] == "(":                           # a function type (varargs callee)
            self.i = _balanced(toks, self.i)
        callee_at = self.i
        if toks[callee_at][:1] not in "@%" or toks[callee_at + 1] != "(":
            raise Unrecognised("callee")
        end = _balanced(toks, callee_at + 1)
        for start, stop in _split(toks, callee_at + 2, end - 1):
            if start < stop:
                self.operand(self._argument(start, stop))
        self.i = end
        while self.i < len(toks) and toks[self.i] not in ("[", ","):     # function attributes
            self.i = _balanced(toks, self.i) if toks[self.i] == "(" else self.i + 1
        if self.i < len(toks) and toks[self.i] == "[":
            bundles_end = _balanced(toks, self.i)
            for start, _stop in _split(toks, self.i + 1, bundles_end - 1):
                if toks[start][:1] != '"' or toks[start + 1] != "(":
                    raise Unrecognised("operand bundle")
                close = _balanced(toks, start + 1)
                for a, b in _split(toks, start + 2, close - 1):
                    if a < b:
                        self.operand(self._argument(a, b))
        self.i = callee_at
        callee = self.value("ptr")
        self.operand(callee)
        self.done(ret)

    def _attribute(self) -> None:
        toks = self.toks
        t = toks[self.i]
        if t[:1] in "%@!#" or t in _OPEN or t in _CLOSE or t == ",":
            raise Unrecognised(f"attribute {t}")
        self.i += 1
        if toks[self.i] == "(":
            self.i = _balanced(toks, self.i)
        elif t in ("align", "cc", "dereferenceable", "addrspace") and toks[self.i][:1].isdigit():
            self.i += 1

    def _argument(self, start: int, stop: int):
        toks = self.toks
        self.i = start
        t = self.type_text()
        if t == "metadata":
            return TextConstant(self.body, t, " ".join(toks[self.i:stop]), VK.metadata_as_value, self.ins,
                                len(self.operands))
        while self.i < stop and toks[self.i][:1].isalpha() and toks[self.i] not in _VALUE_WORDS \
                and not toks[self.i].startswith('c"'):
            self._attribute()
        value = self.value(t)
        if self.i != stop:
            raise Unrecognised("argument")
        return value


_VOID = LType("void")


def _constant_kind(type_text: str, first: str, body: FunctionText):
    c = first[:1]
    if c == "@":
        kind = body.global_kind(value_name(first))
        if kind is None:
            raise Unrecognised(f"{first} is neither a global variable nor a function")
        return kind
    if type_text[0] == "i" and type_text[1:].isdigit():
        if first in ("true", "false") or DECIMAL.match(first):
            return VK.constant_int
    elif type_text in ("half", "float", "double") and (c.isdigit() or c in "+-"):
        return VK.constant_fp
    kind = _CONSTANT_KINDS.get(first)
    if kind is not None:
        return kind
    if first.startswith('c"'):
        return VK.constant_data_array
    if first in _CONSTANT_EXPRESSIONS:
        return VK.constant_expr
    raise Unrecognised(f"constant {first}")
