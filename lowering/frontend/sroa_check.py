"""Whether LLVM's SROA would leave a printed module as it is, decided from its text without LLVM.

Gen's CFG read runs LLVM's SROA first (llvm_module.prepare_module with `promote`), which costs loading
llvmlite (130M instructions of a process that otherwise needs none) for a kernel that keeps a private
array: at -O2 clang has run SROA already, and what is left is mostly an array indexed by a variable.
This answers True only in a shape where SROA (LLVM 22, llvm/lib/Transforms/Scalar/SROA.cpp) provably
gives up on every alloca, and False (ask LLVM) for anything else:

- SROA starts from each alloca and walks its uses (AllocaSlices' SliceBuilder). A store whose address is
  at an offset it cannot compute (a getelementptr with a variable index) aborts the alloca, and an aborted
  alloca is left alone (runOnAlloca returns once the slices say "escaped").
- Before the walk, AggLoadStoreRewriter splits loads and stores of aggregate values and unfolds a
  getelementptr whose base is a select or phi, or whose variable index is one (with every other index
  constant): so no aggregate load or store may be in the module, each getelementptr must index the alloca
  itself, and a variable index must not come from a select or phi.

The shape, per alloca: its uses are lifetime markers and getelementptrs on it with a variable index; those
getelementptrs are used only as the address of loads and stores; at least one store is among them.
"""
from __future__ import annotations

import re

TYPE_CHECKING = False                   # not typing's: a compile's start-up does not import typing
if TYPE_CHECKING:
    from typing import Iterator

_DEFINE = re.compile(r"^define [^\n]*\{$", re.M)
_LOCAL = r'%(?:"[^"]*"|[-\w.$]+)'
_ALLOCA = re.compile(rf"^  ({_LOCAL}) = alloca ", re.M)
# an aggregate load or store: two patterns that each begin with a literal, which the regex engine finds
# by a fast scan (one alternation of both, `^` in multiline mode, walked 1.7 MB at 0.017 s: 0.002 now)
_AGGREGATE_LOAD = re.compile(r"= load(?: atomic)?(?: volatile)? (?:\[|\{|<\{|%)")
_AGGREGATE_STORE = r"  store (?:atomic )?(?:volatile )?(?:\[|\{|<\{|%)"
_AGGREGATE_STORE_AFTER_LINE = re.compile("\n" + _AGGREGATE_STORE)
_AGGREGATE_STORE_FIRST = re.compile(_AGGREGATE_STORE)
_LIFETIME = re.compile(r"^  call void @llvm\.lifetime\.(?:start|end)\.p\d+\(")
_GEP = re.compile(rf"^  ({_LOCAL}) = getelementptr (?:inbounds |nuw |nusw )*[^,]+, ptr ({_LOCAL})((?:, [^,]+)+)$")
_WORD = re.compile(r"\w+")
# a load from or a store to a pointer, the pointer captured (one pattern for every getelementptr's accesses:
# a pattern naming each one was re's compiler run per name)
_ACCESS = re.compile(rf"(?:{_LOCAL} = load [^,]+|store [^,]+), ptr ({_LOCAL})(?:, align \d+)?")


def sroa_changes_nothing(module_text: str) -> bool:
    """True where SROA would change no function of the module (see the module's docstring); False when
    not sure."""
    if _AGGREGATE_LOAD.search(module_text) or _AGGREGATE_STORE_AFTER_LINE.search(module_text) or \
            _AGGREGATE_STORE_FIRST.match(module_text):
        return False
    for start in _definitions(module_text):
        end = module_text.find("\n}\n", start.end())
        end = end if end >= 0 else len(module_text)
        if module_text.find("alloca", start.end(), end) >= 0 and \
                not _function_keeps_its_allocas(module_text[start.end():end]):
            return False
    return True


def function_unchanged(function_text: str) -> bool:
    """sroa_changes_nothing for one printed function (its `define` line to its closing brace): SROA is a
    function pass that starts from the function's own allocas, so a function without one, or whose
    allocas are in the shape above and which loads or stores no aggregate, is left as it is whatever
    the rest of the module holds. (The compile driver asks it of a kernel with private variables:
    checking the whole module was 12 ms of a 400-kernel Gen compile, for one kernel in twelve.)"""
    start = _DEFINE.search(function_text)
    if start is None:
        return False
    end = function_text.rfind("\n}")
    body = function_text[start.end():end if end >= start.end() else len(function_text)]
    if "alloca" not in body:
        return True
    if _AGGREGATE_LOAD.search(body) or _AGGREGATE_STORE_AFTER_LINE.search(body):
        return False
    return _function_keeps_its_allocas(body)


def _definitions(text: str) -> Iterator[re.Match[str]]:
    """_DEFINE.finditer(text)'s matches, tried only where a line begins `define ` (found by str.find: the
    regex tried at every line start of a 400-kernel module was a third of this check, which Gen's --cf auto
    makes once a compile)."""
    at = 0 if text.startswith("define ") else text.find("\ndefine ") + 1
    while at >= 0 and (at > 0 or text.startswith("define ")):
        m = _DEFINE.match(text, at)
        if m is not None:
            yield m
        found = text.find("\ndefine ", at if m is None else m.end())
        if found < 0:
            return
        at = found + 1


def _function_keeps_its_allocas(body: str) -> bool:
    lines = [line.split(", !", 1)[0] for line in body.splitlines()]      # attachments (!tbaa, !dbg) off
    allocas = _ALLOCA.findall(body)
    if len(allocas) != body.count(" = alloca "):
        return False
    for alloca in allocas:
        if not _alloca_kept(alloca, lines, body):
            return False
    return True


def _opcode(name: str, body: str) -> str | None:
    """The opcode of the line defining local `name` in `body` (`  NAME = OPCODE ...`), None where no line
    does (a parameter): found by str.find for the one name asked, where a table of every definition of the
    body (a regex over all of it) was made for each function with an alloca."""
    if body.startswith(f"  {name} = "):
        at = len(name) + 5
    else:
        at = body.find(f"\n  {name} = ")
        if at < 0:
            return None
        at += len(name) + 6
    word = _WORD.match(body, at)
    return None if word is None else word.group()


def _uses(name: str, lines: list[str]) -> list[str]:
    """The lines naming `name` other than its definition."""
    token = re.compile(re.escape(name) + r"(?![-\w.$])")
    # (a line naming it holds it: the substring test first, a regex search of every line being most of the check)
    return [line for line in lines if name in line and token.search(line) and not line.startswith(f"  {name} = ")]


def _alloca_kept(alloca: str, lines: list[str], body: str) -> bool:
    stored = False
    for use in _uses(alloca, lines):
        if _LIFETIME.match(use):
            continue
        gep = _GEP.match(use)
        if gep is None or gep.group(2) != alloca:
            return False
        indices = [part.strip().split(" ")[-1] for part in gep.group(3).split(",")[1:]]
        variable = [i for i in indices if i.startswith("%")]
        if not variable or any(_opcode(i, body) in ("select", "phi") for i in variable):   # (a parameter: None)
            return False
        for access in _uses(gep.group(1), lines):
            address = _ACCESS.fullmatch(access.strip())
            if address is None or address.group(1) != gep.group(1):
                return False
            stored = stored or access.lstrip().startswith("store ")
    return stored
