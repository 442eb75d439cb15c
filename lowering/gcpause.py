"""Pausing Python's cyclic garbage collector around passes that allocate many small, long-lived objects."""
from __future__ import annotations

import gc

# The two context managers are classes, not contextlib.contextmanager generators: a compile imports
# nothing else of contextlib (its import and classes were 0.5% of a one-kernel compile's process).


class gc_paused:
    """The structurizer and the SPIR-V emitter allocate hundreds of thousands of small objects and free
    few: the cyclic collector would rescan the whole heap many times over (half the time on 10k-block
    functions).

    On the way out the objects made meanwhile move straight to the oldest generation (freeze, then
    unfreeze: two list splices). Left in the youngest, the first collection after the pause would walk
    every one of them, and again when they moved up a generation (1.3 CPU s of the read and 1.3 of the
    structurizer at 30k blocks, the biggest single item of either profile); in the oldest they are walked
    only by the next full collection, which Python runs when the old generation has grown by a quarter.
    Garbage among them is still found then. Inside tuned_for_compile, whose frozen objects must stay
    frozen, there is no promotion (a flag: gc.get_freeze_count walks the frozen list, 1.9 CPU s of a
    100-kernel Gen compile when each kernel's pauses asked it)."""
    __slots__ = ("was_enabled",)

    def __enter__(self) -> None:
        self.was_enabled = gc.isenabled()
        gc.disable()

    def __exit__(self, *exc: object) -> None:
        if self.was_enabled:
            if not _compile_frozen:
                gc.freeze()
                gc.unfreeze()
            gc.enable()


# A compile's objects come in bursts (a kernel's IR, its machine IR) and mostly live until the output is
# written: young collections every 20,000 allocations instead of 700, and fewer of the full ones they trigger.
COMPILE_THRESHOLD = 20_000
_compile_frozen = 0          # tuned_for_compile calls in progress (their frozen objects stay frozen)


class tuned_for_compile:
    """Around a compile (the command line's `compile`): the objects that exist already (the imported
    compiler) are frozen, so the collector no longer rescans them, and young collections run less often;
    both undone after. A 200-kernel Gen compile spent 0.32 CPU s in the collector, 0.18 s so."""
    __slots__ = ("threshold",)

    def __enter__(self) -> None:
        global _compile_frozen
        self.threshold = gc.get_threshold()
        gc.freeze()
        _compile_frozen += 1
        gc.set_threshold(COMPILE_THRESHOLD, *self.threshold[1:])

    def __exit__(self, *exc: object) -> None:
        global _compile_frozen
        gc.set_threshold(*self.threshold)
        _compile_frozen -= 1
        gc.unfreeze()


def survivors_kept() -> None:
    """Inside tuned_for_compile, between the independent parts of a compile (Gen's kernels): what is alive
    now stays alive to the end, so the collector stops rescanning it (a 400-kernel Gen compile spent half
    a second rescanning the kernels compiled before). Undone with the rest when the compile ends."""
    gc.freeze()
