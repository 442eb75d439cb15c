"""Convergence-control tokens for a generated kernel's LLVM IR, placed as its OpenCL C source nests its loops.

The fuzzer's `convergence` mode runs half its programs as LLVM IR with tokens (LLVM's LangRef,
"Convergent Operation Semantics"): clang-22 -O0 -g's module of the generated kernel, given

- `llvm.experimental.convergence.entry` at the top of the kernel's entry block,
- a loop heart, `llvm.experimental.convergence.loop` with its parent's token, at the top of the header of
  every source loop (the parent: the token of the source loop around it, else the entry token),
- on every call (clang marks every OpenCL C function and built-in convergent, and a function may not mix
  controlled and uncontrolled convergent calls) a `"convergencectrl"` bundle naming the token of the
  innermost source loop the call was written in (the entry token outside every loop).

A call that clang places outside the natural loop it was written in (`if (c) { r = reduce(x); break; }`:
the break path cannot reach the back edge) so keeps its loop's token and runs in the iteration in which its
lanes leave, which is what every target must then honour, -O2 or not.

Which loop is which comes from -g: a loop's back-edge branch carries `!llvm.loop` whose first location is
the line of its `for`/`while`/`do`, and each call's `!dbg` line is a source line, whose innermost loop
`source_loops` reads from the generated text (one statement a line, every loop body braced, no goto, no
`#line`).
"""
from __future__ import annotations

import re

_LOOP_OPEN = re.compile(r"^\s*(for|while) \(.*\{\s*$|^\s*do \{\s*$")
_ONE_LINE_LOOP = re.compile(r"^\s*for \(.*\).*;\s*$")        # for (c = 0u; c < 8u; c++) h = hmix(h, pa[c]);
_LABEL = re.compile(r"^([-\w.$]+):")
_MD_LOOP = re.compile(r"^!(\d+) = distinct !\{!\1, !(\d+)")
_MD_LOC = re.compile(r"^!(\d+) = !DILocation\(line: (\d+)")
_DBG = re.compile(r"!dbg !(\d+)")
_CALL = re.compile(r"\bcall [^@]*@(?!llvm\.)[-\w.$]+\(")      # every call but an intrinsic's


class TokenError(ValueError):
    """The module's loops do not match the source's (a loop clang did not emit, a call with no location)."""


def source_loops(source: str) -> tuple[dict[int, int | None], dict[int, int | None]]:
    """(line -> the line of the innermost loop it is in, None outside every loop; loop line -> the line of
    the loop around it), lines counted from 1. A loop spans its opening line (a `while`'s condition is in
    it) to the `}` matching that line's `{`, or only its line (a one-line `for` of the checksum)."""
    innermost: dict[int, int | None] = {}
    parent: dict[int, int | None] = {}
    open_loops: list[tuple[int, int]] = []          # (loop line, brace depth inside its body)
    depth = 0
    for number, line in enumerate(source.splitlines(), 1):
        if _LOOP_OPEN.match(line) or _ONE_LINE_LOOP.match(line):
            parent[number] = open_loops[-1][0] if open_loops else None
            innermost[number] = number
            if _ONE_LINE_LOOP.match(line):
                continue
            depth += line.count("{") - line.count("}")
            open_loops.append((number, depth))
            continue
        innermost[number] = open_loops[-1][0] if open_loops else None
        for ch in line:
            if ch == "{":
                depth += 1
            elif ch == "}":
                depth -= 1
                while open_loops and depth < open_loops[-1][1]:
                    open_loops.pop()
    return innermost, parent


def add_tokens(llvm_text: str, source: str, kernel: str = "k") -> str:
    """`llvm_text` (clang -O0 -g of `source`) with convergence tokens in kernel @kernel and in its twin
    @__clang_ocl_kern_imp_<kernel> (the same code, which our reader reads), as the module doc says."""
    if "#line" in source:
        raise TokenError("a #line moves the module's locations off the source's lines")
    innermost, parent = source_loops(source)
    lines = llvm_text.splitlines()
    found = False
    for name in (kernel, "__clang_ocl_kern_imp_" + kernel):
        start = next((i for i, line in enumerate(lines) if line.startswith("define ") and f"@{name}(" in line),
                     None)
        if start is not None:
            lines = _add_to_function(lines, start, innermost, parent)
            found = True
    if not found:
        raise TokenError(f"no kernel @{kernel}")
    lines += ["", "declare token @llvm.experimental.convergence.entry()",
              "declare token @llvm.experimental.convergence.loop()"]
    return "\n".join(lines) + "\n"


def _add_to_function(lines: list[str], start: int, innermost: dict[int, int | None],
                     parent: dict[int, int | None]) -> list[str]:
    """`lines` with tokens in the function whose `define` is lines[start]."""
    locations = {int(m.group(1)): int(m.group(2)) for m in map(_MD_LOC.match, lines) if m}
    loop_md = {int(m.group(1)): int(m.group(2)) for m in map(_MD_LOOP.match, lines) if m}
    end = next(i for i in range(start, len(lines)) if lines[i] == "}")
    # blocks: label -> (index of its first line); the entry block starts after `define`
    block_of_line: list[str] = []
    order: dict[str, int] = {"": 0}
    first_line: dict[str, int] = {"": start + 1}
    current = ""
    for i in range(start + 1, end):
        m = _LABEL.match(lines[i])
        if m:
            current = m.group(1)
            order[current] = len(order)
            first_line[current] = i + 1
        block_of_line.append(current)
    headers: dict[int, str] = {}                     # source loop line -> its header block
    for i in range(start + 1, end):
        line = lines[i]
        m = re.search(r"!llvm\.loop !(\d+)", line)
        if not m or not line.lstrip().startswith("br "):
            continue
        loc = loop_md.get(int(m.group(1)))
        if loc is None or loc not in locations:
            raise TokenError(f"a back edge's !llvm.loop !{m.group(1)} has no start location (compile with -g)")
        here = order[block_of_line[i - start - 1]]
        back = [t for t in re.findall(r"label %([-\w.$]+)", line) if order.get(t, 1 << 30) <= here]
        if len(back) != 1:
            raise TokenError(f"the back edge at line {i + 1} of the module has no single earlier target")
        headers.setdefault(locations[loc], back[0])
    unknown = sorted(set(headers) - set(parent))
    if unknown:
        raise TokenError(f"the module's loop at source line {unknown[0]} is no loop of the source")

    def kept(loop: int | None) -> int | None:
        """The loop itself, or the nearest around it that the module has: clang makes no loop of a
        `while` whose condition it folds to false, and the calls of such a body (if any are left) run
        once in the iteration of the loop around it."""
        while loop is not None and loop not in headers:
            loop = parent[loop]
        return loop

    def token(loop: int | None) -> str:
        loop = kept(loop)
        return f"%cvt.l{loop}" if loop is not None else "%cvt.entry"
    entry = "  %cvt.entry = call token @llvm.experimental.convergence.entry()"
    inserts: dict[int, list[str]] = {first_line[""]: [entry]}
    for loop, header in headers.items():
        at = first_line[header]
        while lines[at].lstrip().startswith(("%", "phi")) and " = phi " in lines[at]:
            at += 1
        inserts.setdefault(at, []).append(f"  {token(loop)} = call token @llvm.experimental.convergence.loop() "
                                          f"[ \"convergencectrl\"(token {token(parent[loop])}) ]")
    out: list[str] = []
    for i, line in enumerate(lines):
        out.extend(inserts.get(i, ()))
        if start < i < end and _CALL.search(line):
            dbg = _DBG.search(line)
            if dbg is None or int(dbg.group(1)) not in locations:
                raise TokenError(f"the call at line {i + 1} of the module has no location")
            bundle = f" [ \"convergencectrl\"(token {token(innermost.get(locations[int(dbg.group(1))]))}) ]"
            line = line[:dbg.start() - 2] + bundle + line[dbg.start() - 2:]
        out.append(line)
    return out
