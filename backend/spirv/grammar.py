"""The SPIR-V grammar, read from the Khronos machine-readable JSON (Debian spirv-headers).

Opcode and enumerant numbers come from the official grammar rather than being typed by hand, so a
typo is a KeyError at the emitter instead of a silently wrong binary, and the module builder can
check and encode each instruction's operands from the grammar's operand lists.

The core grammar is indexed, not decoded whole: a compile asks for a few dozen of its ~700 instructions
and about ten of its ~50 operand kinds, and decoding all 470 KB of it (with the tables made from it) was
37M instructions, an eighth of a one-kernel compile's process (callgrind). One pass of str.find notes
where the JSON object of each instruction ("opname") and of each operand kind ("category") starts, and
json decodes an object alone when it is first asked for. The object decoded must be the one asked for
(its opname or kind), and a name the index does not have is looked for in the whole decoded file, so a
file laid out otherwise (another key order) gives the same answers, only at the old cost.

An object is decoded by the json package's own C scanner (_json.make_scanner, what JSONDecoder.raw_decode
calls), made here from a context with JSONDecoder's defaults: `import json` compiles its regexes and was
2% of a one-kernel compile's process; it is imported only where the whole grammar is decoded, or where
_json is missing.
"""
from __future__ import annotations

import os
from itertools import accumulate
from operator import add

from reconverge.lowering.errors import CompileError

TYPE_CHECKING = False                   # typing is not imported at run time
if TYPE_CHECKING:
    from typing import Any, Callable

GRAMMAR_DIR = "/usr/include/spirv/unified1"
CORE_FILE = os.path.join(GRAMMAR_DIR, "spirv.core.grammar.json")
GLSL_FILE = os.path.join(GRAMMAR_DIR, "extinst.glsl.std.450.grammar.json")

_SPACE = " \t\r\n"


def _read(path: str) -> str:
    try:
        with open(path, encoding="utf-8") as f:
            return f.read()
    except FileNotFoundError:
        raise CompileError(f"SPIR-V grammar not found at {path}: "
                           "install the Debian package spirv-headers") from None


def _enum_value(value) -> int:
    """BitEnum values are hex strings ("0x0004") in the JSON, ValueEnum values are ints."""
    return value if isinstance(value, int) else int(value, 0)


def _operand_list(operands: list[dict]) -> list[tuple[str, str]]:
    return [(o["kind"], o.get("quantifier", "")) for o in operands]


class _DecoderDefaults:
    """What _json.make_scanner reads of a JSONDecoder(): its defaults."""
    strict = True
    object_hook = object_pairs_hook = None
    parse_float, parse_int = float, int
    parse_constant = {"-Infinity": float("-inf"), "Infinity": float("inf"), "NaN": float("nan")}.__getitem__


_scanner: list[Callable[[str, int], tuple[Any, int]]] = []


def _scan(text: str, start: int):
    """(the JSON value at text[start], where it ends), as json.JSONDecoder().raw_decode answers it; a
    ValueError or StopIteration where there is none."""
    if not _scanner:
        try:
            from _json import make_scanner
            _scanner.append(make_scanner(_DecoderDefaults()))       # type: ignore[arg-type]
        except ImportError:
            import json
            _scanner.append(json.JSONDecoder().scan_once)           # type: ignore[attr-defined]
    return _scanner[0](text, start)


def _value_at(text: str, colon: int):
    """The JSON value after the ':' at `colon`, or None."""
    start = colon + 1
    while start < len(text) and text[start] in _SPACE:
        start += 1
    try:
        return _scan(text, start)[0]
    except (ValueError, StopIteration):
        return None


def _object_offsets(text: str, anchor: str, name_key: str, start: int, end: int) -> dict[str, int]:
    """For each `anchor` key in text[start:end]: the string value of the first `name_key` key from there on
    (the object's name) -> where the anchor is (the object starts at the '{' before it when the anchor is
    its first key). One split of the text and a split a name (a loop of finds cost twice as much): this
    pass is most of what reading the grammar costs now. A text it cannot read gives no offsets."""
    anchor, name_key = f'"{anchor}"', f'"{name_key}"'
    pieces = text[start:end].split(anchor)
    try:
        if anchor == name_key:
            names = [piece.split('"', 2)[1] for piece in pieces[1:]]
        else:
            names = [piece.split(name_key, 1)[1].split('"', 2)[1] for piece in pieces[1:]]
    except IndexError:
        return {}
    # the k-th anchor is at start + the lengths of the k pieces and k anchors before it; the first of a
    # name wins (the dict is made from the last to the first)
    offsets = list(map(add, accumulate(map(len, pieces)), range(start, end, len(anchor))))[:len(names)]
    return dict(zip(reversed(names), reversed(offsets)))


class _Kind:
    """One operand kind of the grammar, as the module builder asks for it: whole (`kind`, its JSON object), or
    an enumerated kind's category and where each enumerant's object is (`offsets`), its enumerants decoded
    one at a time (Capability, BuiltIn, Decoration and ExecutionMode are 75 KB of JSON, 8M instructions
    decoded whole, of which a compile asks a dozen enumerants)."""

    def __init__(self, kind: dict | None, category: str = "", offsets: dict[str, int] | None = None):
        self.category: str = kind["category"] if kind is not None else category
        self.bases: list[str] = list(kind.get("bases", ())) if kind is not None else []
        self.offsets = offsets                  # None: every enumerant is in values (the kind decoded whole)
        self.values: dict[str, int] = {}
        self.raw_parameters: dict[str, list[dict]] = {}
        self.parameters: dict[str, list[tuple[str, str]]] = {}     # converted from raw_parameters when asked
        self.by_value: dict[int, str] = {}
        if kind is not None and self.category in ("ValueEnum", "BitEnum"):
            for e in kind["enumerants"]:
                value = _enum_value(e["value"])
                self.values[e["enumerant"]] = value
                self.raw_parameters[e["enumerant"]] = e.get("parameters", [])
                self.by_value.setdefault(value, e["enumerant"])     # first name wins over KHR/EXT aliases


class Grammar:
    """Lazily loaded view of the core and GLSL.std.450 grammars (each read on first use)."""

    def __init__(self, core_path: str = CORE_FILE, glsl_path: str = GLSL_FILE):
        self._core_path = core_path
        self._glsl_path = glsl_path
        self._text: str | None = None
        self._instruction_at: dict[str, int] = {}
        self._kind_at: dict[str, int] = {}
        self._whole: tuple[dict[str, dict], dict[str, dict], dict] | None = None   # the fallback: all decoded
        self._instructions: dict[str, dict] = {}          # opname -> its JSON object, as asked for
        self._opcode_numbers: dict[str, int] = {}         # opname -> opcode, read off the text alone
        self._operands: dict[str, list[tuple[str, str]]] = {}
        self._kinds: dict[str, _Kind] = {}
        self._header: tuple[int, tuple[int, int]] | None = None
        self._glsl: dict[str, dict] | None = None
        self._glsl_operands: dict[str, list[tuple[str, str]]] = {}

    def _core(self) -> str:
        """The core grammar's text, read and indexed on first use."""
        if self._text is None:
            text = _read(self._core_path)
            instructions, kinds = text.find('"instructions"'), text.find('"operand_kinds"')
            if instructions >= 0:
                end = kinds if kinds > instructions else len(text)
                self._instruction_at = _object_offsets(text, "opname", "opname", instructions, end)
            if kinds >= 0:
                end = instructions if instructions > kinds else len(text)
                self._kind_at = _object_offsets(text, "category", "kind", kinds, end)
            self._text = text
        return self._text

    def _decoded_whole(self) -> tuple[dict[str, dict], dict[str, dict], dict]:
        """The whole core grammar decoded: instructions by opname, operand kinds by name, the top level."""
        if self._whole is None:
            import json
            core = json.loads(self._core())
            self._whole = ({inst["opname"]: inst for inst in core["instructions"]},
                           {kind["kind"]: kind for kind in core["operand_kinds"]}, core)
        return self._whole

    def _object(self, key: str, name: str) -> dict | None:
        """The JSON object the index puts `name` at (an instruction's when `key` is "opname", else an operand
        kind's), if it is the object named so."""
        text = self._core()
        at = (self._instruction_at if key == "opname" else self._kind_at).get(name, -1)
        if at < 0:
            return None
        at = text.rfind("{", 0, at)
        try:
            found = _scan(text, at)[0]
        except (ValueError, StopIteration):
            return None
        return found if isinstance(found, dict) and found.get(key) == name else None

    def _instruction(self, name: str) -> dict:
        found = self._instructions.get(name)
        if found is None:
            found = self._object("opname", name)
            if found is None or not isinstance(found.get("opcode"), int):
                found = self._decoded_whole()[0].get(name)
                if found is None:
                    raise KeyError(f"unknown SPIR-V instruction {name!r}")
            self._instructions[name] = found
        return found

    def _kind(self, name: str) -> _Kind:
        found = self._kinds.get(name)
        if found is None:
            found = self._enum_head(name)
            if found is not None:
                self._kinds[name] = found
                return found
            return self._whole_kind(name)
        return found

    def _enum_head(self, name: str) -> _Kind | None:
        """An enumerated kind's category and the offsets of its enumerants' objects, read from the text
        without decoding it: its "category", "kind" and "enumerants" keys must come first, in that order, in
        one object (no brace between them); None when they do not (the kind is then decoded whole)."""
        text = self._core()
        at = self._kind_at.get(name, -1)
        if at < 0:
            return None
        first = text.find('"', at + len('"category"'))
        last = text.find('"', first + 1) if first >= 0 else -1
        category = text[first + 1:last] if last >= 0 else ""
        key = text.find('"kind"', last) if last >= 0 else -1
        enumerants = text.find('"enumerants"', key) if key >= 0 else -1
        if category not in ("ValueEnum", "BitEnum") or enumerants < 0:
            return None
        between = text[at:enumerants]
        if "{" in between or "}" in between or _object_offsets(text, "kind", "kind", at, enumerants) != {name: key}:
            return None
        end = text.find('"category"', enumerants)
        offsets = _object_offsets(text, "enumerant", "enumerant", enumerants, end if end >= 0 else len(text))
        return _Kind(None, category, offsets)

    def _whole_kind(self, name: str) -> _Kind:
        """The kind decoded whole (its object alone, else from the whole file)."""
        found = self._kinds.get(name)
        if found is None or found.offsets is not None:
            kind = self._object("kind", name)
            if kind is None or "category" not in kind:
                kind = self._decoded_whole()[1].get(name)
                if kind is None:
                    raise KeyError(f"unknown SPIR-V operand kind {name!r}")
            found = self._kinds[name] = _Kind(kind)
        return found

    def _enumerant(self, kind: str, name: str) -> _Kind:
        """The enumerated kind, with `name` among its values if the grammar has it."""
        table = self._enum_kind(kind)
        if name in table.values or table.offsets is None:
            return table
        at = table.offsets.get(name, -1)
        if at >= 0:
            text = self._core()
            try:
                found = _scan(text, text.rfind("{", 0, at))[0]
            except (ValueError, StopIteration):
                found = None
            if isinstance(found, dict) and found.get("enumerant") == name and "value" in found:
                table.values[name] = _enum_value(found["value"])
                table.raw_parameters[name] = found.get("parameters", [])
                return table
        return self._whole_kind(kind)           # not found where the index said: the kind decoded whole

    def _top(self) -> tuple[int, tuple[int, int]]:
        """(magic number, (major, minor) version) from the top of the core grammar."""
        if self._header is None:
            text = self._core()
            values = []
            for key in ("magic_number", "major_version", "minor_version"):
                at = text.find(f'"{key}"')
                colon = text.find(":", at) if at >= 0 else -1
                values.append(_value_at(text, colon) if colon >= 0 else None)
            magic, major, minor = values
            if not (isinstance(magic, (int, str)) and isinstance(major, int) and isinstance(minor, int)):
                core = self._decoded_whole()[2]
                magic, major, minor = core["magic_number"], core["major_version"], core["minor_version"]
            self._header = (_enum_value(magic), (major, minor))
        return self._header

    @property
    def magic_number(self) -> int:
        return self._top()[0]

    @property
    def version(self) -> tuple[int, int]:
        """The newest SPIR-V version the installed grammar describes."""
        return self._top()[1]

    def opcode(self, name: str) -> int:
        """'OpIAdd' -> 128."""
        found = self._instructions.get(name)
        if found is not None:
            return found["opcode"]
        number = self._opcode_numbers.get(name)
        if number is None:
            number = self._opcode_only(name)
            if number is None:
                return self._instruction(name)["opcode"]
            self._opcode_numbers[name] = number
        return number

    def _opcode_only(self, name: str) -> int | None:
        """The instruction's opcode read off its text without decoding its object (the SPIR-V dead-code pass
        asks for the numbers of ~120 instructions a compile mostly never emits: decoding each was 0.4 ms):
        the `"opcode"` key between the object's "opname" and its first '}', else None (then the object is
        decoded as before)."""
        text = self._core()
        at = self._instruction_at.get(name, -1)
        if at < 0:
            return None
        end = text.find("}", at)
        key = text.find('"opcode"', at, end)
        colon = text.find(":", key + len('"opcode"'), end) if key >= 0 else -1
        if colon < 0:
            return None
        value = _value_at(text, colon)
        return value if isinstance(value, int) and not isinstance(value, bool) else None

    def operands(self, name: str) -> list[tuple[str, str]]:
        """The instruction's operands as (kind, quantifier) with quantifier '', '?' or '*'."""
        found = self._operands.get(name)
        if found is None:
            found = self._operands[name] = _operand_list(self._instruction(name).get("operands", []))
        return list(found)

    def instruction_class(self, name: str) -> str:
        """The grammar's class of the instruction ('Annotation', 'Debug', 'Type-Declaration', ...)."""
        return self._instruction(name).get("class", "")

    def category(self, kind: str) -> str:
        """'Id', 'Literal', 'ValueEnum', 'BitEnum' or 'Composite'."""
        return self._kind(kind).category

    def bases(self, kind: str) -> list[str]:
        """The kinds a Composite (Pair...) operand kind flattens to."""
        return list(self._kind(kind).bases)

    def _enum_kind(self, kind: str) -> _Kind:
        try:
            found = self._kind(kind)
        except KeyError:
            found = None
        if found is None or found.category not in ("ValueEnum", "BitEnum"):
            raise KeyError(f"{kind!r} is not a SPIR-V enumerated operand kind")
        return found

    def enumerant(self, kind: str, name: str) -> int:
        """('StorageClass', 'StorageBuffer') -> 12."""
        table = self._enumerant(kind, name).values
        try:
            return table[name]
        except KeyError:
            raise KeyError(f"unknown {kind} enumerant {name!r}") from None

    def enumerant_names(self, kind: str) -> list[str]:
        self._enum_kind(kind)
        return list(self._whole_kind(kind).values)

    def enumerant_name(self, kind: str, value: int) -> str:
        """The (first) name of a ValueEnum value or a single BitEnum bit; KeyError if none."""
        self._enum_kind(kind)
        try:
            return self._whole_kind(kind).by_value[value]
        except KeyError:
            raise KeyError(f"unknown {kind} value {value}") from None

    def enumerant_parameters(self, kind: str, name: str) -> list[tuple[str, str]]:
        """The extra operands an enumerant takes: ('Decoration', 'ArrayStride') -> [('LiteralInteger', '')]."""
        self.enumerant(kind, name)
        table = self._enumerant(kind, name)
        found = table.parameters.get(name)
        if found is None:
            found = table.parameters[name] = _operand_list(table.raw_parameters[name])
        return list(found)

    def _glsl_instruction(self, name: str) -> dict:
        if self._glsl is None:
            import json
            self._glsl = {inst["opname"]: inst for inst in json.loads(_read(self._glsl_path))["instructions"]}
        try:
            return self._glsl[name]
        except KeyError:
            raise KeyError(f"unknown GLSL.std.450 instruction {name!r}") from None

    def glsl(self, name: str) -> int:
        """'FMin' -> its GLSL.std.450 extended instruction number."""
        return self._glsl_instruction(name)["opcode"]

    def glsl_operands(self, name: str) -> list[tuple[str, str]]:
        found = self._glsl_operands.get(name)
        if found is None:
            found = self._glsl_operands[name] = _operand_list(self._glsl_instruction(name).get("operands", []))
        return list(found)


GRAMMAR = Grammar()
