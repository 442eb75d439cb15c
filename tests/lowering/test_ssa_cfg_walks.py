"""The structured form's one-walk update_cfg against its definition (all_blocks and structured_successors),
and the batched trivial-phi removal of lowering.ssa when one removal makes another phi trivial."""
import random

import pytest

from reconverge.lowering.ir.core import Block, Const, Phi
from reconverge.lowering.ir.successors import structured_successors
from reconverge.lowering.ir.types import I32
from reconverge.lowering.passes.structurize import structurize
from reconverge.lowering.ssa import _trivial_phis
from tests.lowering.passes.structurize.random_cfg import random_function


@pytest.mark.parametrize("seed", range(12))
def test_structured_update_cfg_matches_its_definition(seed):
    func = structurize(random_function(random.Random(seed), 40))
    blocks = func.update_cfg()
    assert blocks == func.all_blocks()
    assert [b.index for b in blocks] == list(range(len(blocks)))
    assert func.end_block.index == len(blocks)
    table = structured_successors(func)
    preds: dict[Block, list[Block]] = {b: [] for b in [*blocks, func.end_block]}
    for b in blocks:
        assert b.succs == table[b]
        for s in b.succs:
            preds[s].append(b)
    for b in [*blocks, func.end_block]:
        assert b.preds == preds[b]
    assert func.end_block.succs == []


def test_trivial_phi_found_after_a_later_phi_is_removed():
    """p1 merges p2 and x, two values, until p2 (merging x with x) is replaced by x: p1 is then trivial
    too, found on a second pass; p3, merging x and y, stays."""
    x, y = Const(I32, 1), Const(I32, 2)
    p2 = Phi(I32)
    p2.operands = [x, x]
    p1 = Phi(I32)
    p1.operands = [p2, x]
    p0 = Phi(I32)
    p0.operands = [p1, p0, x]          # trivial only once p1 is: a third pass
    p3 = Phi(I32)
    p3.operands = [p1, y]
    replace: dict = {}
    kept = _trivial_phis([p0, p1, p3, p2], replace)
    assert kept == [p3]
    for p in (p0, p1, p2):
        root = p
        while root in replace:
            root = replace[root]
        assert root is x
