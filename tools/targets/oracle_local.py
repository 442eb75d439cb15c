"""A module's own `__local` arrays, `__constant` tables and program-scope `global` variables in guarded
blocks, for the llvm reference (jit_oracle.py).

Why: `local int t[4];` in a kernel is an addrspace(3) global of the module, and `constant int tab[4] =
{...};` an addrspace(2) one, and `global int g[4];` at program scope an addrspace(1) one; the JIT places
them among the module's other data, so an index past the end reads or writes another variable and the run
answers with exit status 0. Here each such global becomes
an external declaration under a name that is the compiled module's own, and jit_oracle resolves it
(llvm.add_symbol, before the module is compiled) to a block laid out as a `__local` parameter's: its last
byte touching an unmapped guard region, a canary before its start. A `__local` block is zeroed before
each work-group; a table or a program-scope variable keeps its definition under another name, whose bytes
jit_oracle copies into the block before each launch (a launch writing a program-scope variable must not
change what the next one starts from: the reference launches twice, and keeps compiled modules). Uses of
the global, constant expressions included, are untouched but for the name.
"""
from __future__ import annotations

import itertools
import re
from dataclasses import dataclass

_LOCAL = re.compile(r'^(@[-\w$.]+|@"[^"]*") = (?:[a-z_]+ )*addrspace\(3\) global (.+?) '
                    r'(?:undef|poison|zeroinitializer)((?:, .*)?)$')
_TABLE = re.compile(r'^(@[-\w$.]+|@"[^"]*") = (?:[a-z_]+ )*(addrspace\(2\) constant .*)$')
_PROGRAM = re.compile(r'^(@[-\w$.]+|@"[^"]*") = (?:(?!external )[a-z_]+ )*(addrspace\(1\) global .*)$')
_ALIGN = re.compile(r", align (\d+)")
_modules = itertools.count()


@dataclass
class ModuleArray:
    symbol: str                     # the external name the block is given
    name: str                       # the global's name in the source module (for messages)
    align: int
    initial: str | None = None      # a table or program-scope variable: the renamed definition with its bytes
    space: str = "local"            # "local", "constant" or "global" (a program-scope variable)


def guard_local_globals(text: str) -> tuple[str, list[ModuleArray]]:
    """`text` with its uninitialized addrspace(3) globals, its addrspace(2) constants and its addrspace(1)
    variables declared external under new names (the definition of a constant or variable kept under a
    third name), and what was moved."""
    lines = text.split("\n")
    found: list[ModuleArray] = []
    module = next(_modules)
    for i, line in enumerate(lines):
        if not line.startswith("@"):
            continue
        local, table = _LOCAL.match(line), _TABLE.match(line) or _PROGRAM.match(line)
        if not (local or table):
            continue
        symbol = f"__oracle_local.{module}.{len(found)}"
        align = _ALIGN.search(line)
        entry = ModuleArray(symbol, (local or table).group(1), int(align.group(1)) if align else 16)  # type: ignore[union-attr]
        if local:
            lines[i] = f"@{symbol} = external addrspace(3) global {local.group(2)}{local.group(3)}"
        else:
            assert table is not None
            entry.initial = f"__oracle_table.{module}.{len(found)}"
            entry.space = "constant" if table.group(2).startswith("addrspace(2)") else "global"
            space = 2 if entry.space == "constant" else 1
            lines[i] = f"@{entry.initial} = {table.group(2)}"     # (external linkage: found by its name)
            lines.append(f"@{symbol} = external addrspace({space}) global i8{align.group(0) if align else ''}")
        found.append(entry)
    if not found:
        return text, found
    out = "\n".join(lines)
    for entry in found:
        out = re.sub(re.escape(entry.name) + r'(?![-\w$."])', "@" + entry.symbol, out)
    return out, found
