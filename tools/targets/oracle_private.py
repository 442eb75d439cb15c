"""Private variables in guarded memory, for the llvm reference (jit_oracle.py).

Why: a kernel's private variables are `alloca`s, which the JIT puts on the host thread's stack. An index
past the end of a private array then writes the next variable or the return address: a wrong answer with
exit status 0 at -O0, a crash only by luck at -O2. Here each alloca of a function's entry block becomes a
call of the library's `__oracle_private(k)`, which answers the work-item's own slot k in an arena laid out
like a guarded buffer (oracle_guards.GuardedMapping): every slot's object ends where an unmapped guard region
begins, and the mapped bytes before it (and any alignment padding after it) hold a canary checked after
the launch. An access past the end faults (a one-line error from the isolating child); a write before the
start or into the padding is an error after the run, and such a read changes the results of the second
launch, whose canaries differ (jit_oracle.run_llvm_kernel).

A slot belongs to one alloca, not to one call: that is exact because OpenCL C has no recursion, so no
function's frame is live twice. Functions on a call cycle keep their allocas on the stack, and so do allocas
outside the entry block and those with an element count or an address space (none in clang's OpenCL C).
Sizes come from LLVM itself: a constant array of `sizeof` expressions (`ptrtoint (getelementptr (T, ptr
null, 1))`) read from the compiled module.
"""
from __future__ import annotations

import re

import numpy as np

from reconverge.tools.targets.oracle_guards import PAGE, GuardedMapping
from reconverge.tools.targets.oracle_subgroups import PRIVATE

SIZES = "__oracle_private_sizes"
_DEFINE = re.compile(r"^define\b[^@]*@([\w.$]+|\"[^\"]*\")\(")
_CALL = re.compile(r"@([\w.$]+)\(")
_ALLOCA = re.compile(r'^(\s*)(%[-\w$.]+|%"[^"]*") = alloca (.*)$')
_TERMINATOR = re.compile(r"^\s*(?:br|switch|indirectbr|ret|unreachable|resume|callbr|invoke)\b")
_LIFETIME = re.compile(r"^\s*call void @llvm\.lifetime\.(?:start|end)\.p0\((?:i64 -?\d+, )?ptr (?:[a-z_]+ )*"
                       r"(%[-\w$.]+|%\"[^\"]*\")\)")


def library_source(state: str) -> str:
    """The OpenCL C of `__oracle_private(k)`: the work-item's arena (state slot PRIVATE) plus slot k's
    offset (the table at state slot PRIVATE + 1)."""
    return (f"__private void *__oracle_private(uint k) {{ __global ulong *s = {state}; "
            f"return (__private void *)(s[{PRIVATE}] + ((__global ulong *)s[{PRIVATE + 1}])[k]); }}\n")


class Allocas:
    """What guard_allocas moved: per slot its alignment and a description for messages."""

    def __init__(self) -> None:
        self.aligns: list[int] = []
        self.where: list[str] = []
        self.types: list[str] = []


def guard_allocas(text: str) -> tuple[str, Allocas]:
    """`text` (a host-retargeted module) with its entry-block allocas turned into `__oracle_private` calls,
    the lifetime markers on them dropped, and the table of their sizes added; the slots' description."""
    lines = text.split("\n")
    functions = _functions(lines)
    recursive = _on_call_cycles({name: calls for name, (_, _, calls) in functions.items()})
    found = Allocas()
    for name, (start, end, _) in functions.items():
        if name not in recursive:
            _guard_function(lines, start, end, name, found)
    if not found.aligns:
        return text, found
    sizes = ", ".join(f"i64 ptrtoint (ptr getelementptr ({t}, ptr null, i32 1) to i64)" for t in found.types)
    lines.append(f"@{SIZES} = constant [{len(found.types)} x i64] [{sizes}]")
    lines.append("declare ptr @__oracle_private(i32)")
    return "\n".join(lines), found


def _functions(lines: list[str]) -> dict[str, tuple[int, int, set[str]]]:
    """Each defined function: its first and last line and the functions it calls."""
    out: dict[str, tuple[int, int, set[str]]] = {}
    i = 0
    while i < len(lines):
        m = _DEFINE.match(lines[i])
        if m and lines[i].rstrip().endswith("{"):
            j = lines.index("}", i)
            calls = {c for line in lines[i + 1:j] for c in _CALL.findall(line)}
            out[m.group(1)] = (i, j, calls)
            i = j
        i += 1
    return out


def _on_call_cycles(graph: dict[str, set[str]]) -> set[str]:
    """The functions that can reach themselves through calls."""
    out = set()
    for root in graph:
        todo, seen = list(graph[root]), set()
        while todo:
            f = todo.pop()
            if f == root:
                out.add(root)
                break
            if f not in seen and f in graph:
                seen.add(f)
                todo.extend(graph[f])
    return out


def _guard_function(lines: list[str], start: int, end: int, function: str, found: Allocas) -> None:
    moved: set[str] = set()
    for i in range(start + 1, end):
        line = lines[i]
        if _TERMINATOR.match(line):
            break                                       # the entry block ends here
        m = _ALLOCA.match(line)
        if not m:
            continue
        parts = _top_level_split(m.group(3))
        align, attachments = 16, []
        for part in parts[1:]:
            if part.startswith("align "):
                align = int(part[6:])
            elif part.startswith("!"):
                attachments.append(part)
            else:
                break                                   # an element count or an address space: left alone
        else:
            if parts[0].split(" ", 1)[0] in ("inalloca", "swifterror"):
                continue
            k = len(found.aligns)
            found.aligns.append(align)
            found.types.append(parts[0])
            found.where.append(f"{m.group(2)} ({parts[0]}) in @{function}")
            moved.add(m.group(2))
            lines[i] = f"{m.group(1)}{m.group(2)} = call ptr @__oracle_private(i32 {k})" + \
                "".join(", " + a for a in attachments)
    if moved:
        for i in range(start + 1, end):
            m = _LIFETIME.match(lines[i])
            if m and m.group(1) in moved:
                lines[i] = ""                           # (LLVM allows lifetime markers on allocas only)


def _top_level_split(text: str) -> list[str]:
    """`text` split at the commas outside brackets, each part stripped."""
    parts, depth, last = [], 0, 0
    for i, c in enumerate(text):
        if c in "[{<(":
            depth += 1
        elif c in "]}>)":
            depth -= 1
        elif c == "," and depth == 0:
            parts.append(text[last:i].strip())
            last = i + 1
    parts.append(text[last:].strip())
    return parts


GUARD = 16 * PAGE           # unmapped bytes after each slot (and before the first): 64 KiB


class PrivateLayout:
    """Where each slot's object lies in an arena (the same for every work-item's arena): its guard regions
    and the canary ranges around each object (before it, and its alignment padding after it)."""

    def __init__(self, sizes: list[int], aligns: list[int], where: list[str]):
        self.where = where
        offsets: list[int] = []
        self.guards, self.canaries = [(0, GUARD)], []
        position = GUARD
        for size, align in zip(sizes, aligns):
            align = min(max(1, align), PAGE)        # (the slack before an object is then under 2 pages)
            data = -(-(size + align - 1) // PAGE) * PAGE
            end = position + data
            start = (end - size) // align * align
            offsets.append(start)
            self.canaries += [(position, start - position), (start + size, end - start - size)]
            self.guards.append((end, GUARD))
            position = end + GUARD
        self.size = position
        self.offsets = np.array(offsets, np.uint64)     # kept alive: the library reads it by address

    def set_state(self, state: np.ndarray, arena: GuardedMapping) -> None:
        state[PRIVATE] = arena.base
        state[PRIVATE + 1] = self.offsets.ctypes.data


class Arenas:
    """The arenas of one launch, one per work-item thread that runs at once (reused group after group):
    guarded mappings laid out by the PrivateLayout; none where the module moved no alloca."""

    def __init__(self, layout: PrivateLayout | None, pattern: int = 0):
        self.layout, self.pattern = layout, pattern
        self.arenas: list[GuardedMapping] = []

    def give(self, state: np.ndarray, item: int = 0) -> None:
        """Point `state` (a work-item's state array) at arena `item`, made on first use."""
        if self.layout is None:
            return
        while len(self.arenas) <= item:
            self.arenas.append(GuardedMapping(self.layout.size, self.layout.guards, self.layout.canaries,
                                              self.pattern))
        self.layout.set_state(state, self.arenas[item])

    def overwritten(self) -> str | None:
        """The first slot whose canary a write changed (before its start or in its padding), described."""
        for arena in self.arenas:
            k = arena.overwritten()
            if k is not None and self.layout is not None:
                return self.layout.where[k // 2]        # (two canary ranges per slot)
        return None

    def close(self) -> None:
        for arena in self.arenas:
            arena.close()
        self.arenas = []
