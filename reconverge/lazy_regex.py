"""Module-level regular expressions compiled when first used, not at import.

re's compiler is Python: a pattern costs 0.05-0.7 ms to compile (re._parser, re._compiler), and a compile's
start-up compiled about fifteen that a compile of OpenCL C to SPIR-V never uses (they read .nir or LLVM IR
input, clang's coloured errors, debug locations, operand bundles, spirv-val's messages; issue 26, 4M
instructions of a one-kernel compile by callgrind). `lazy_compile(pattern, flags)` stands where
`re.compile(pattern, flags)` stood: the methods a caller uses compile the pattern on their first call. For
mypy it is re.compile itself; a pattern used on a hot path is better compiled at import as before (each call
here goes through one more Python call).
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
