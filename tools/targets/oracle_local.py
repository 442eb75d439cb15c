"""Kernel-scope `__local` arrays in guarded blocks, for the llvm reference (jit_oracle.py).

Why: `local int t[4];` in a kernel is an addrspace(3) global of the module, which the JIT places among the
module's other data, so an index past its end reads or writes another variable and the run answers with
exit status 0. Here each such global becomes an external declaration under a name that is the compiled
module's own, and jit_oracle resolves it (llvm.add_symbol, before the module is compiled) to a block laid
out as a `__local` parameter's: zeroed before each work-group, its last byte touching an unmapped guard
region, a canary before its start. Uses of the global, constant expressions included, are untouched but
for the name.
"""
from __future__ import annotations

import itertools
import re

_LOCAL_GLOBAL = re.compile(r'^(@[-\w$.]+|@"[^"]*") = (?:[a-z_]+ )*addrspace\(3\) global (.+?) '
                           r'(?:undef|poison|zeroinitializer)((?:, .*)?)$')
_modules = itertools.count()


def guard_local_globals(text: str) -> tuple[str, list[tuple[str, str]]]:
    """`text` with its uninitialized addrspace(3) globals declared external under new names; per global
    its new symbol and its name in the source (for messages)."""
    lines = text.split("\n")
    found: list[tuple[str, str]] = []
    module = next(_modules)
    for i, line in enumerate(lines):
        m = _LOCAL_GLOBAL.match(line)
        if m:
            symbol = f"__oracle_local.{module}.{len(found)}"
            found.append((symbol, m.group(1)))
            lines[i] = f"@{symbol} = external addrspace(3) global {m.group(2)}{m.group(3)}"
    if not found:
        return text, found
    out = "\n".join(lines)
    for symbol, name in found:
        out = re.sub(re.escape(name) + r'(?![-\w$."])', "@" + symbol, out)
    return out, found
