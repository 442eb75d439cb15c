"""gc_paused: the objects made during the pause leave it in the oldest generation, and garbage among
them is still collected."""
import gc
import weakref

from reconverge.lowering.gcpause import gc_paused


class _Node:
    def __init__(self) -> None:
        self.other: object = None


def test_objects_made_in_a_pause_move_to_the_oldest_generation():
    assert gc.isenabled()
    with gc_paused():
        assert not gc.isenabled()
        kept = [_Node() for _ in range(100)]
    assert gc.isenabled()
    young = {id(o) for o in gc.get_objects(generation=0)} | {id(o) for o in gc.get_objects(generation=1)}
    assert not any(id(node) in young for node in kept)     # no young collection will walk them
    assert gc.get_freeze_count() == 0


def test_a_cycle_made_in_a_pause_is_still_collected():
    with gc_paused():
        a, b = _Node(), _Node()
        a.other, b.other = b, a
        watch = weakref.ref(a)
        del a, b
    gc.collect()
    assert watch() is None


def test_nested_pauses_promote_once_on_the_way_out():
    with gc_paused():
        with gc_paused():
            pass
        assert not gc.isenabled()                           # the inner exit leaves the outer pause alone
    assert gc.isenabled()
