"""Module-level regular expressions compiled when first used, not at import.

re's compiler is Python: a pattern costs 0.05-0.7 ms to compile (re._parser, re._compiler), and a compile's
start-up compiled about fifteen that a compile of OpenCL C to SPIR-V never uses (they read .nir or LLVM IR
input, clang's coloured errors, debug locations, operand bundles, spirv-val's messages; issue 26, 4M
instructions of a one-kernel compile by callgrind). `lazy_compile(pattern, flags)` stands where
`re.compile(pattern, flags)` stood: the methods a caller uses compile the pattern on their first call. For
mypy it is re.compile itself; a pattern used on a hot path is better compiled at import as before (each call
here goes through one more Python call).

preload_patterns (the `compile` command calls it first) puts the patterns of reconverge/regex_code.py in
re's own cache, each made from the compiled form re's compiler made of it on the same Python (_sre.compile,
which re.compile ends in): re.compile, re.search(pattern, ...) and lazy_compile then find them there and
re's compiler (14M instructions for a one-kernel compile's ~25 patterns, callgrind) does not run. The table
is used only where its _sre.MAGIC and Python version are this interpreter's (tools/regex_table.py writes it).
"""
from __future__ import annotations

import re

TYPE_CHECKING = False                   # not typing's: a compile's start-up does not import typing
if TYPE_CHECKING:
    from typing import Any, AnyStr

    def lazy_compile(pattern: AnyStr, flags: int = 0) -> re.Pattern[AnyStr]:
        ...
else:
    def lazy_compile(pattern, flags=0):
        return LazyPattern(pattern, flags)


def preload_patterns() -> None:
    """Put reconverge/regex_code.py's compiled patterns into re's cache (where they are this Python's)."""
    import _sre
    import sys

    from reconverge import regex_code
    cache = getattr(re, "_cache", None)
    if regex_code.MAGIC != getattr(_sre, "MAGIC", None) or regex_code.VERSION != tuple(sys.version_info[:2]) \
            or not isinstance(cache, dict):
        return
    room = getattr(re, "_MAXCACHE", 0) - len(cache)
    for pattern, flags, compiled_flags, code, groups, groupindex, indexgroup in regex_code.PATTERNS[:max(room, 0)]:
        key = (str, pattern, flags)
        if key not in cache:
            cache[key] = _sre.compile(pattern, compiled_flags, list(code), groups, dict(groupindex), indexgroup)


class LazyModule:
    """A standard-library module imported on the first use of one of its names, where a compile rarely
    needs it: `math` and `struct` are extension modules (loading one is ~1.7M instructions and 0.3 ms of
    system time) that only float constants and float builtins use. Each name, once looked up, is an
    attribute of the proxy itself. A module writes `if TYPE_CHECKING: import math` and
    `else: math = LazyModule("math")`, so mypy sees the module."""

    def __init__(self, name: str):
        self._name = name

    def __getattr__(self, attr: str) -> Any:
        import sys
        __import__(self._name)              # (importlib.import_module: the importlib package imports warnings)
        value = getattr(sys.modules[self._name], attr)
        setattr(self, attr, value)
        return value


class LazyPattern:
    """The methods of re.Pattern that our modules call, each compiling the pattern on first use."""

    __slots__ = ("pattern", "flags", "_compiled")

    def __init__(self, pattern: str | bytes, flags: int = 0):
        self.pattern = pattern
        self.flags = flags
        self._compiled: re.Pattern[Any] | None = None

    def compiled(self) -> re.Pattern[Any]:
        if self._compiled is None:
            self._compiled = re.compile(self.pattern, self.flags)
        return self._compiled

    def match(self, *args: Any, **kwargs: Any) -> Any:
        return self.compiled().match(*args, **kwargs)

    def fullmatch(self, *args: Any, **kwargs: Any) -> Any:
        return self.compiled().fullmatch(*args, **kwargs)

    def search(self, *args: Any, **kwargs: Any) -> Any:
        return self.compiled().search(*args, **kwargs)

    def findall(self, *args: Any, **kwargs: Any) -> Any:
        return self.compiled().findall(*args, **kwargs)

    def finditer(self, *args: Any, **kwargs: Any) -> Any:
        return self.compiled().finditer(*args, **kwargs)

    def sub(self, *args: Any, **kwargs: Any) -> Any:
        return self.compiled().sub(*args, **kwargs)

    def subn(self, *args: Any, **kwargs: Any) -> Any:
        return self.compiled().subn(*args, **kwargs)

    def split(self, *args: Any, **kwargs: Any) -> Any:
        return self.compiled().split(*args, **kwargs)
