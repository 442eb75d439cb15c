"""A module's own `__local` arrays and `__constant` tables in guarded blocks, for the llvm reference
(jit_oracle.py).

Why: `local int t[4];` in a kernel is an addrspace(3) global of the module, and `constant int tab[4] =
{...};` an addrspace(2) one; the JIT places both among the module's other data, so an index past the end
reads or writes another variable and the run answers with exit status 0. Here each such global becomes
an external declaration under a name that is the compiled module's own, and jit_oracle resolves it
(llvm.add_symbol, before the module is compiled) to a block laid out as a `__local` parameter's: its last
byte touching an unmapped guard region, a canary before its start. A `__local` block is zeroed before
each work-group; a table keeps its definition under another name, whose bytes jit_oracle copies into the
block once the module is compiled. Uses of the global, constant expressions included, are untouched but
for the name.
"""
from __future__ import annotations

import itertools
import re
from dataclasses import dataclass

_LOCAL = re.compile(r'^(@[-\w$.]+|@"[^"]*") = (?:[a-z_]+ )*addrspace\(3\) global (.+?) '
                    r'(?:undef|poison|zeroinitializer)((?:, .*)?)$')
_TABLE = re.compile(r'^(@[-\w$.]+|@"[^"]*") = (?:[a-z_]+ )*(addrspace\(2\) constant .*)$')
_ALIGN = re.compile(r", align (\d+)")
_modules = itertools.count()


@dataclass
class ModuleArray:
    symbol: str                     # the external name the block is given
    name: str                       # the global's name in the source module (for messages)
    align: int
    initial: str | None = None      # a table: the renamed definition holding its bytes


def guard_local_globals(text: str) -> tuple[str, list[ModuleArray]]:
    """`text` with its uninitialized addrspace(3) globals and its addrspace(2) constants declared external
    under new names (a constant's definition kept under a third name), and what was moved."""
    lines = text.split("\n")
    found: list[ModuleArray] = []
    module = next(_modules)
    for i, line in enumerate(lines):
        local, table = _LOCAL.match(line), _TABLE.match(line) if line.startswith("@") else None
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
            lines[i] = f"@{entry.initial} = {table.group(2)}"     # (external linkage: found by its name)
            lines.append(f"@{symbol} = external addrspace(2) global i8{align.group(0) if align else ''}")
        found.append(entry)
    if not found:
        return text, found
    out = "\n".join(lines)
    for entry in found:
        out = re.sub(re.escape(entry.name) + r'(?![-\w$."])', "@" + entry.symbol, out)
    return out, found
