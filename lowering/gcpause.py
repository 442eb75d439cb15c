"""Pausing Python's cyclic garbage collector around passes that allocate many small, long-lived objects."""
from __future__ import annotations

import contextlib
import gc
from collections.abc import Iterator


@contextlib.contextmanager
def gc_paused() -> Iterator[None]:
    """The structurizer and the SPIR-V emitter allocate hundreds of thousands of small objects and free
    few: the cyclic collector would rescan the whole heap many times over (half the time on 10k-block
    functions)."""
    was_enabled = gc.isenabled()
    gc.disable()
    try:
        yield
    finally:
        if was_enabled:
            gc.enable()
