"""The SPIR-V grammar, read from the Khronos machine-readable JSON (Debian spirv-headers).

Opcode and enumerant numbers come from the official grammar rather than being typed by hand, so a
typo is a KeyError at the emitter instead of a silently wrong binary, and the module builder can
check and encode each instruction's operands from the grammar's operand lists.
"""
from __future__ import annotations

import json
import os

from reconverge.lowering.errors import CompileError

GRAMMAR_DIR = "/usr/include/spirv/unified1"
CORE_FILE = os.path.join(GRAMMAR_DIR, "spirv.core.grammar.json")
GLSL_FILE = os.path.join(GRAMMAR_DIR, "extinst.glsl.std.450.grammar.json")


def _load_json(path: str) -> dict:
    try:
        with open(path, encoding="utf-8") as f:
            return json.load(f)
    except FileNotFoundError:
        raise CompileError(f"SPIR-V grammar not found at {path}: "
                           "install the Debian package spirv-headers") from None


def _enum_value(value) -> int:
    """BitEnum values are hex strings ("0x0004") in the JSON, ValueEnum values are ints."""
    return value if isinstance(value, int) else int(value, 0)


def _operand_list(operands: list[dict]) -> list[tuple[str, str]]:
    return [(o["kind"], o.get("quantifier", "")) for o in operands]


def _converted(lists: dict[str, list[tuple[str, str]]], raw: dict[str, list[dict]], name: str) -> list[tuple[str, str]]:
    """raw[name]'s operands as (kind, quantifier), converted on first use: a compile asks for a few dozen
    of the grammar's ~8,400 operand lists, and converting them all was a third of loading it."""
    found = lists.get(name)
    if found is None:
        found = lists[name] = _operand_list(raw[name])
    return found


class Grammar:
    """Lazily loaded view of the core and GLSL.std.450 grammars (loaded on first use)."""

    def __init__(self, core_path: str = CORE_FILE, glsl_path: str = GLSL_FILE):
        self._core_path = core_path
        self._glsl_path = glsl_path
        self._loaded = False

    def _load(self) -> None:
        core = _load_json(self._core_path)
        glsl = _load_json(self._glsl_path)
        self._magic = _enum_value(core["magic_number"])
        self._version = (core["major_version"], core["minor_version"])
        self._opcodes: dict[str, int] = {}
        self._operands: dict[str, list[tuple[str, str]]] = {}     # converted from _raw_operands when asked
        self._raw_operands: dict[str, list[dict]] = {}
        self._classes: dict[str, str] = {}
        for inst in core["instructions"]:
            name = inst["opname"]
            self._opcodes[name] = inst["opcode"]
            self._raw_operands[name] = inst.get("operands", [])
            self._classes[name] = inst.get("class", "")
        self._categories: dict[str, str] = {}
        self._bases: dict[str, list[str]] = {}
        self._enumerants: dict[str, dict[str, int]] = {}
        self._parameters: dict[str, dict[str, list[tuple[str, str]]]] = {}    # from _raw_parameters
        self._raw_parameters: dict[str, dict[str, list[dict]]] = {}
        self._by_value: dict[str, dict[int, str]] = {}
        for kind in core["operand_kinds"]:
            name, category = kind["kind"], kind["category"]
            self._categories[name] = category
            if category == "Composite":
                self._bases[name] = list(kind["bases"])
            if category not in ("ValueEnum", "BitEnum"):
                continue
            values: dict[str, int] = {}
            params: dict[str, list[dict]] = {}
            by_value: dict[int, str] = {}
            for e in kind["enumerants"]:
                value = _enum_value(e["value"])
                values[e["enumerant"]] = value
                params[e["enumerant"]] = e.get("parameters", [])
                by_value.setdefault(value, e["enumerant"])     # first name wins over KHR/EXT aliases
            self._enumerants[name] = values
            self._parameters[name] = {}
            self._raw_parameters[name] = params
            self._by_value[name] = by_value
        self._glsl: dict[str, int] = {}
        self._glsl_operands: dict[str, list[tuple[str, str]]] = {}    # from _raw_glsl_operands
        self._raw_glsl_operands: dict[str, list[dict]] = {}
        for inst in glsl["instructions"]:
            self._glsl[inst["opname"]] = inst["opcode"]
            self._raw_glsl_operands[inst["opname"]] = inst.get("operands", [])
        self._loaded = True

    def _ensure(self) -> None:
        if not self._loaded:
            self._load()

    @property
    def magic_number(self) -> int:
        self._ensure()
        return self._magic

    @property
    def version(self) -> tuple[int, int]:
        """The newest SPIR-V version the installed grammar describes."""
        self._ensure()
        return self._version

    def opcode(self, name: str) -> int:
        """'OpIAdd' -> 128."""
        self._ensure()
        try:
            return self._opcodes[name]
        except KeyError:
            raise KeyError(f"unknown SPIR-V instruction {name!r}") from None

    def operands(self, name: str) -> list[tuple[str, str]]:
        """The instruction's operands as (kind, quantifier) with quantifier '', '?' or '*'."""
        self.opcode(name)
        return list(_converted(self._operands, self._raw_operands, name))

    def instruction_class(self, name: str) -> str:
        """The grammar's class of the instruction ('Annotation', 'Debug', 'Type-Declaration', ...)."""
        self.opcode(name)
        return self._classes[name]

    def category(self, kind: str) -> str:
        """'Id', 'Literal', 'ValueEnum', 'BitEnum' or 'Composite'."""
        self._ensure()
        try:
            return self._categories[kind]
        except KeyError:
            raise KeyError(f"unknown SPIR-V operand kind {kind!r}") from None

    def bases(self, kind: str) -> list[str]:
        """The kinds a Composite (Pair...) operand kind flattens to."""
        self.category(kind)
        return list(self._bases[kind])

    def _enum_table(self, kind: str) -> dict[str, int]:
        self._ensure()
        try:
            return self._enumerants[kind]
        except KeyError:
            raise KeyError(f"{kind!r} is not a SPIR-V enumerated operand kind") from None

    def enumerant(self, kind: str, name: str) -> int:
        """('StorageClass', 'StorageBuffer') -> 12."""
        table = self._enum_table(kind)
        try:
            return table[name]
        except KeyError:
            raise KeyError(f"unknown {kind} enumerant {name!r}") from None

    def enumerant_names(self, kind: str) -> list[str]:
        return list(self._enum_table(kind))

    def enumerant_name(self, kind: str, value: int) -> str:
        """The (first) name of a ValueEnum value or a single BitEnum bit; KeyError if none."""
        self._enum_table(kind)
        try:
            return self._by_value[kind][value]
        except KeyError:
            raise KeyError(f"unknown {kind} value {value}") from None

    def enumerant_parameters(self, kind: str, name: str) -> list[tuple[str, str]]:
        """The extra operands an enumerant takes: ('Decoration', 'ArrayStride') -> [('LiteralInteger', '')]."""
        self.enumerant(kind, name)
        return list(_converted(self._parameters[kind], self._raw_parameters[kind], name))

    def glsl(self, name: str) -> int:
        """'FMin' -> its GLSL.std.450 extended instruction number."""
        self._ensure()
        try:
            return self._glsl[name]
        except KeyError:
            raise KeyError(f"unknown GLSL.std.450 instruction {name!r}") from None

    def glsl_operands(self, name: str) -> list[tuple[str, str]]:
        self.glsl(name)
        return list(_converted(self._glsl_operands, self._raw_glsl_operands, name))


GRAMMAR = Grammar()
