"""The two things the compiler's modules take from `typing` at run time, without importing it.

`import typing` costs a compile process about 4 ms (issue 26: the start-up of a one-kernel compile), and
the compile path needs only `cast` (an identity at run time) and `Protocol` (a base class that only the
type checker reads). Everything else a module takes from typing is for annotations, which
`from __future__ import annotations` leaves unevaluated: those imports sit under `if TYPE_CHECKING:`.
For mypy these names are typing's own (it checks casts and protocols as usual); at run time `cast`
returns its value and `Protocol` is `object`. tests/test_startup.py checks that a compile that does not
load llvmlite (which imports typing itself) leaves typing out.
"""
from __future__ import annotations

TYPE_CHECKING = False                   # not typing's: this module exists so that typing is not imported
if TYPE_CHECKING:
    from typing import Protocol as Protocol
    from typing import cast as cast
else:
    Protocol = object

    def cast(typ, value):
        """typing.cast: the value itself (the type is the checker's business)."""
        return value

__all__ = ["Protocol", "cast"]
