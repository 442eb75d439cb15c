"""An OpenCL NDRange checked once for every way of running a kernel (the IR interpreter, the JIT
oracle, the Vulkan launcher): 1 to 3 dimensions, a local size dividing the global size, an offset
given per dimension or once for all, everything padded to 3 dimensions as the work-item functions see it."""
from __future__ import annotations

from collections.abc import Sequence

from reconverge.records import record

TYPE_CHECKING = False                   # not typing's: a compile's start-up does not import typing
if TYPE_CHECKING:
    from typing import Any

# The one local-size policy. At run time the global size is known: the kernel's reqd_work_group_size,
# else the largest divisor of the global size that is at most MAX_DEFAULT_LOCAL in dimension 0 (1 in the
# others). At compile time it is not: reqd_work_group_size, else COMPILE_TIME_LOCAL_SIZE, which the run
# targets override with the size they launch.
MAX_DEFAULT_LOCAL = 64
COMPILE_TIME_LOCAL_SIZE = (MAX_DEFAULT_LOCAL, 1, 1)


def default_local_size(global_size: tuple[int, ...], reqd: tuple[int, int, int] | None = None) -> tuple[int, ...]:
    """The local size of a launch that gives none (see above)."""
    if reqd is not None:
        return tuple(reqd[:len(global_size)])
    first = max(d for d in range(1, min(MAX_DEFAULT_LOCAL, global_size[0]) + 1) if global_size[0] % d == 0)
    return (first,) + (1,) * (len(global_size) - 1)


def compile_time_local_size(given: tuple[int, int, int] | None,
                            reqd: tuple[int, int, int] | None) -> tuple[int, int, int]:
    """The local size a module is compiled for when the global size is not known (see above)."""
    if given is not None:
        return tuple(given)  # type: ignore[return-value]
    return tuple(reqd) if reqd else COMPILE_TIME_LOCAL_SIZE  # type: ignore[return-value]


@record(frozen=True)
class NDRange:
    global_size: tuple[int, int, int]
    local_size: tuple[int, int, int]
    offset: tuple[int, int, int]
    work_dim: int

    @property
    def groups(self) -> tuple[int, int, int]:
        return tuple(g // l for g, l in zip(self.global_size, self.local_size))   # type: ignore[return-value]


def _dims(value: int | Sequence[int], name: str) -> tuple[int, ...]:
    dims: tuple[Any, ...] = (value,) if isinstance(value, int) or not hasattr(value, "__len__") else tuple(value)
    if not 1 <= len(dims) <= 3:
        raise ValueError(f"{name} must have 1 to 3 dimensions, got {value!r}")
    return tuple(int(d) for d in dims)


def parse_sizes(text: str) -> tuple[int, ...]:
    """'8' or '8,8' or '8,8,1' (command-line sizes) -> the positive sizes; ValueError if malformed."""
    parts = text.split(",")
    if not 1 <= len(parts) <= 3 or not all(p.strip().isdigit() and int(p) > 0 for p in parts):
        raise ValueError(text)
    return tuple(int(p) for p in parts)


def _pad(sizes: tuple[int, ...], fill: int) -> tuple[int, int, int]:
    return tuple(sizes) + (fill,) * (3 - len(sizes))    # type: ignore[return-value]


def ndrange(global_size: int | Sequence[int], local_size: int | Sequence[int],
            global_offset: int | Sequence[int] = 0) -> NDRange:
    """The checked launch geometry; a ValueError (one line) says what is wrong with it."""
    gsize = _dims(global_size, "global size")
    lsize = _dims(local_size, "local size")
    offset = _dims(global_offset, "global offset")
    if len(offset) == 1 and len(gsize) > 1:
        offset = offset * len(gsize)
    if len(lsize) != len(gsize) or len(offset) != len(gsize):
        raise ValueError(f"global size {gsize}, local size {lsize} and offset {offset} have different dimensions")
    if any(l <= 0 or g % l for g, l in zip(gsize, lsize)):
        raise ValueError(f"local size {lsize} does not divide global size {gsize}")
    return NDRange(_pad(gsize, 1), _pad(lsize, 1), _pad(offset, 0), len(gsize))
