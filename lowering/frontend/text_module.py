"""An LLVM module read from clang's printed text, answering what the reader and the compile driver ask of
llvmlite's module: the data layout, named struct types, global variables, and each function's name,
linkage, return type, parameters and text.

Why: a compile of OpenCL C used to import llvmlite (0.05-0.06 CPU s of a 0.33 s one-kernel compile),
parse clang's text, verify it and print it again, only for the reader to read the printed text. clang
verifies the module itself before printing it (clang.py passes -fverify-intermediate-code: LLVM's
VerifierPass runs first and last in its pipeline), so its text is a verified module already, and every
module-level fact is on a top-level line of it. What only LLVM can do stays with llvmlite, imported on
first need: `llvm()` parses the same text (the inliner, for a kernel that calls a defined function;
the walk over a function's values, for an instruction form llvm_text.py does not read).

Top-level lines as LLVM prints them (LangRef: Module Structure): `target datalayout = "..."`,
`%name = type {...}`, `@name = ... global|constant T ...`, `define ...` and `declare ...`.
"""
from __future__ import annotations

import re

from reconverge.lowering.frontend.llvm_text import new_record_key, value_name
from reconverge.lowering.frontend.llvm_types import Cursor, LType, TypeError_, parse_type, tokenize

TYPE_CHECKING = False                   # not typing's: a compile's start-up does not import typing
if TYPE_CHECKING:
    from typing import Any

    import llvmlite.binding as llvm

_TOP_LEVEL = re.compile(r'^(?:target datalayout = "([^"]*)"'
                        r'|%("[^"]*"|[-\w.$]+) = type ([^\n]*)'
                        r'|@("[^"]*"|[-\w.$]+) = ([^\n]*)'
                        r'|(define|declare) ([^\n]*))$', re.M)
_FUNCTION_NAME = re.compile(r'@("[^"]*"|[-\w.$]+)\(')
_LINKAGES = frozenset("private internal available_externally linkonce weak common appending extern_weak "
                      "linkonce_odr weak_odr external".split())
_OPENER_OF = {")": "(", "]": "[", "}": "{", ">": "<"}      # closing bracket -> its opening one


class TextModule:
    """A verified module's printed text, read on demand. `str()` is the text itself."""

    def __init__(self, text: str, source_name: str):
        self.text = text
        self.name = source_name
        self.data_layout = ""
        self._struct_bodies: dict[str, str] = {}
        self._structs: dict[str, LType] = {}
        self._globals: dict[str, TextGlobal] = {}
        self._functions: dict[str, TextFunction] = {}
        self._llvm: llvm.ModuleRef | None = None
        self.removed_loops: tuple = ()      # set by pipeline.load_module (lowering.frontend.removed_loops)
        self.unoptimized_loops: tuple = ()  # likewise: every loop statement of clang's unoptimised module
        for m in _TOP_LEVEL.finditer(text):
            if m.group(1) is not None:
                self.data_layout = m.group(1)
            elif m.group(2) is not None:
                self._struct_bodies[value_name(m.group(2))] = m.group(3)
            elif m.group(4) is not None:
                name = value_name(m.group(4))
                self._globals[name] = TextGlobal(self, name, m.group())
            else:
                head = m.group(7)
                found = _FUNCTION_NAME.search(head)
                if found is not None:
                    name = value_name(found.group(1))
                    self._functions[name] = TextFunction(self, name, m.group(), m.start(), m.group(6) == "declare",
                                                         head[:found.start()], head[found.end() - 1:])

    def __str__(self) -> str:
        return self.text

    @property
    def functions(self) -> list[TextFunction]:
        return list(self._functions.values())

    @property
    def global_variables(self) -> list[TextGlobal]:
        return list(self._globals.values())

    def get_function(self, name: str) -> TextFunction:
        hit = self._functions.get(name)
        if hit is None:
            raise NameError(f"function '{name}' not found")
        return hit

    def struct(self, name: str) -> LType:
        """Named struct type %name, as the reader's ModuleContext.resolve_struct makes it from llvmlite."""
        hit = self._structs.get(name)
        if hit is None:
            body = self._struct_bodies.get(name)
            if body is None:
                raise TypeError_(f"unknown struct type %{name}")
            if body.strip() == "opaque":
                raise TypeError_(f"opaque struct %{name}")
            literal = parse_type(Cursor(body, self.struct))
            hit = LType("struct", elems=literal.elems, packed=literal.packed, name=name)
            self._structs[name] = hit
        return hit

    def llvm(self) -> llvm.ModuleRef:
        """The same module parsed by llvmlite (imported now), for what only LLVM answers."""
        if self._llvm is None:
            from reconverge.lowering.frontend.llvm_module import parse_llvm_text
            self._llvm = parse_llvm_text(self.text, self.name)
        return self._llvm


class TextGlobal:
    """A global variable's definition line."""

    def __init__(self, module: TextModule, name: str, line: str):
        self.module, self.name, self.line = module, name, line
        self._parsed: tuple[LType, int, bool] | None = None

    def __str__(self) -> str:
        return self.line

    def _parse(self) -> tuple[LType, int, bool]:
        """(value type, address space, declaration?) from `@g = [linkage ...] [addrspace(N)] global|constant T`."""
        if self._parsed is None:
            toks = tokenize(self.line.split("=", 1)[1])
            at = next(i for i, t in enumerate(toks) if t in ("global", "constant"))
            prefix = toks[:at]
            space = int(prefix[prefix.index("addrspace") + 2]) if "addrspace" in prefix else 0
            cur = Cursor(toks, self.module.struct)
            cur.i = at + 1
            value_type = parse_type(cur)
            self._parsed = (value_type, space, "external" in prefix or "extern_weak" in prefix)
        return self._parsed

    @property
    def global_value_type(self) -> LType:
        return self._parse()[0]

    @property
    def type(self) -> LType:
        """The global's own pointer type, which carries its address space."""
        return LType("ptr", self._parse()[1])

    @property
    def is_declaration(self) -> bool:
        return self._parse()[2]


class TextArgument:
    """A parameter on a `define` line: its name ('' for a numbered one), type and the words around it."""

    def __init__(self, module: TextModule, text: str):
        self.module, self.text = module, text
        self.text_key = new_record_key()          # the reader's identity of the value (llvm_text.key)
        toks = tokenize(text)
        self._toks = toks
        try:
            cur = Cursor(toks, _any_struct)
            parse_type(cur)
            rest = toks[cur.i:]
        except TypeError_:
            rest = toks[1:]                       # the type is not ours to read: `type` says so, when asked
        self.name = "" if not rest or rest[-1][:1] != "%" or rest[-1][1:].isdigit() else value_name(rest[-1])
        self.attributes = [text]                  # kernel_abi looks for `byval(T)` in them
        self._type: LType | None = None

    @property
    def type(self) -> LType:
        if self._type is None:
            self._type = parse_type(Cursor(self._toks, self.module.struct))
        return self._type


class TextFunction:
    """A function's `define` (with its body) or `declare` line."""

    def __init__(self, module: TextModule, name: str, header: str, start: int, is_declaration: bool,
                 before_name: str, parameters: str):
        self.module, self.name, self.header, self.is_declaration = module, name, header, is_declaration
        self._start = start
        self._before_name = before_name           # keywords and the return type
        self._parameters = parameters             # from the `(` after the name
        words = before_name.split()
        self.linkage = words[0] if words and words[0] in _LINKAGES else "external"
        self._arguments: list[TextArgument] | None = None

    def __str__(self) -> str:
        text = self.module.text
        if self.is_declaration:
            return self.header
        end = text.find("\n}\n", self._start)
        return text[self._start:end + 3] if end >= 0 else text[self._start:]

    @property
    def arguments(self) -> list[TextArgument]:
        if self._arguments is None:
            self._arguments = [TextArgument(self.module, part) for part in _parameter_texts(self._parameters)]
        return self._arguments

    @property
    def return_type(self) -> LType:
        toks = tokenize(self._before_name)
        i = len(toks) - 1
        if toks and toks[i] in _OPENER_OF:        # the type's last token closes a bracket: walk back to its start
            depth = 0
            while i >= 0:
                if toks[i] in _OPENER_OF:
                    depth += 1
                elif toks[i] in _OPENER_OF.values():
                    depth -= 1
                    if depth == 0:
                        break
                i -= 1
            if toks[i] == "(" and i > 0:            # ptr addrspace(N), target("...")
                i -= 1
                if toks[i] == "addrspace" and i > 0:
                    i -= 1
            elif toks[i] == "{" and i > 0 and toks[i - 1] == "<":
                i -= 1
        return parse_type(Cursor(toks[max(i, 0):], self.module.struct))

    def llvm_function(self) -> llvm.ValueRef:
        """llvmlite's value of this function (the module parsed by llvmlite on first use)."""
        return self.module.llvm().get_function(self.name)

    @property
    def blocks(self) -> Any:
        return self.llvm_function().blocks


def _any_struct(name: str) -> LType:
    """A placeholder for a named struct, where only the extent of a type's text matters."""
    return LType("struct", name=name)


def _parameter_texts(after_name: str) -> list[str]:
    """The parameters inside the brackets that open `after_name`, split at their top-level commas."""
    parts: list[str] = []
    depth, start, i, n = 0, 1, 0, len(after_name)
    while i < n:
        c = after_name[i]
        if c == '"':
            i = after_name.index('"', i + 1)
        elif c in "([{<":
            depth += 1
        elif c in ")]}>":
            depth -= 1
            if depth == 0:
                break
        elif c == "," and depth == 1:
            parts.append(after_name[start:i].strip())
            start = i + 1
        i += 1
    last = after_name[start:i].strip()
    if last or parts:
        parts.append(last)
    return parts
