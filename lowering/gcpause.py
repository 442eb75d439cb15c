"""Pausing Python's cyclic garbage collector around passes that allocate many small, long-lived objects."""
from __future__ import annotations

import contextlib
import gc
from collections.abc import Iterator


@contextlib.contextmanager
def gc_paused() -> Iterator[None]:
    """The structurizer and the SPIR-V emitter allocate hundreds of thousands of small objects and free
    few: the cyclic collector would rescan the whole heap many times over (half the time on 10k-block
    functions).

    On the way out the objects made meanwhile move straight to the oldest generation (freeze, then
    unfreeze: two list splices). Left in the youngest, the first collection after the pause would walk
    every one of them, and again when they moved up a generation (1.3 CPU s of the read and 1.3 of the
    structurizer at 30k blocks, the biggest single item of either profile); in the oldest they are walked
    only by the next full collection, which Python runs when the old generation has grown by a quarter.
    Garbage among them is still found then. Objects someone else froze stay frozen (no promotion then)."""
    was_enabled = gc.isenabled()
    gc.disable()
    try:
        yield
    finally:
        if was_enabled:
            if gc.get_freeze_count() == 0:
                gc.freeze()
                gc.unfreeze()
            gc.enable()
