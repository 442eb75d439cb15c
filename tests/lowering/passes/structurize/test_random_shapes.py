"""Every random reducible CFG structurizes into a tree that passes the validator."""
import random

import pytest

from reconverge.lowering.ir.validate import validate
from reconverge.lowering.passes.structurize import structurize
from tests.lowering.passes.structurize.random_cfg import random_function


@pytest.mark.parametrize("seed", range(300))
def test_random_cfg_structurizes_validly(seed):
    rng = random.Random(seed)
    func = random_function(rng, rng.randrange(3, 40))
    structurize(func)
    assert validate(func) == []


@pytest.mark.parametrize("seed", range(300))
def test_random_cfg_keeps_its_store_trace(seed):
    """The tree stores the same values in the same order as the CFG, for several argument sets."""
    from tests.lowering.passes.structurize.trace_walk import TraceWalker
    rng = random.Random(seed)
    func = random_function(rng, rng.randrange(3, 40))
    arg_sets = [{f"c{i}": rng.randrange(2) for i in range(4)} | {"sel": rng.randrange(-3, 6) & 0xFFFFFFFF}
                for _ in range(6)]
    expected = [TraceWalker(func, args).run() for args in arg_sets]
    structurize(func)
    assert validate(func) == []
    for args, want in zip(arg_sets, expected):
        assert TraceWalker(func, args).run() == want, args
