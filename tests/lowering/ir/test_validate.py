"""The structured-IR validator: a valid tree passes, and each rule, broken on purpose, is reported."""
import pytest

from reconverge.lowering.ir.core import Block, Const, Instr, Phi
from reconverge.lowering.ir.types import I32
from reconverge.lowering.ir.validate import ValidationError, validate, verify
from reconverge.lowering.pipeline import compile_llvmlite
from tests.lowering.passes.structurize.test_seed_tree import seed_module


@pytest.fixture
def seed():
    """body: [b0, if foo {return} else {}, b3, loop {b4, if !bar {break} else {}, b7, if baz
    {continue} else {}, b10}, b11]"""
    func = compile_llvmlite(seed_module())["seed"]
    assert validate(func) == []
    return func


def errors_after(func, change) -> str:
    change(func)
    return " | ".join(validate(func))


def test_a_valid_tree_passes_and_verify_raises_one_line(seed):
    verify(seed)
    seed.body[2].instrs.append(Instr("return", []))
    seed.body[2].instrs.append(Instr("return", []))
    with pytest.raises(ValidationError) as err:
        verify(seed, "test")
    assert "\n" not in str(err.value) and "after test" in str(err.value)


def test_two_blocks_in_a_row(seed):
    def change(f):
        extra = Block()
        extra.parent = f
        f.body.insert(3, extra)
    assert "two blocks in a row" in errors_after(seed, change)


def test_two_ifs_in_a_row_and_list_ends(seed):
    loop = seed.body[3]
    del loop.body[2]                                   # the block between the two ifs
    assert "two ifs/loops in a row" in " ".join(validate(seed))


def test_cf_list_must_start_with_a_block(seed):
    loop = seed.body[3]
    del loop.body[0]
    assert "must start and end with a block" in " ".join(validate(seed))


def test_empty_else(seed):
    seed.body[1].else_list.clear()
    assert "empty CF list" in " ".join(validate(seed))


def test_jump_must_be_last_instruction(seed):
    then = seed.body[1].then_list[0]
    then.append(Instr("store", [Const(I32, 1), seed.args[0]]))
    assert "jump must be the last instruction" in " ".join(validate(seed))


def test_break_outside_a_loop(seed):
    then = seed.body[1].then_list[0]
    then.instrs[-1] = Instr("break", [])
    then.instrs[-1].block = then
    assert "break outside a loop" in " ".join(validate(seed))


def test_block_with_a_jump_must_end_its_list(seed):
    seed.body[2].append(Instr("return", []))           # b3 is followed by the loop
    seed.update_cfg()
    assert "must end its CF list" in " ".join(validate(seed))


def test_stale_successors_and_predecessors(seed):
    loop = seed.body[3]
    loop.body[3].then_list[0].instrs.clear()           # drop the continue without updating the CFG
    out = " ".join(validate(seed))
    assert "stored successors disagree" in out and "stored predecessors disagree" in out


def test_phi_only_after_if_after_loop_or_at_loop_header(seed):
    then = seed.body[1].then_list[0]                    # an arm's first block: not a join
    then.insert(0, Phi(I32, [(seed.body[0], Const(I32, 0))]))
    assert "may only stand after an if" in " ".join(validate(seed))


def test_phi_needs_one_source_per_predecessor(seed):
    header = seed.body[3].body[0]                       # preds: b3, continue block, loop end
    header.insert(0, Phi(I32, [(seed.body[2], Const(I32, 0))]))
    assert "exactly one per predecessor" in " ".join(validate(seed))


def test_use_not_dominated_by_definition(seed):
    loop = seed.body[3]
    value = loop.body[4].append(Instr("add", [Const(I32, 1), Const(I32, 2)], I32))   # in "..."
    seed.body[4].append(Instr("store", [value, seed.args[0]]))                       # after the loop
    assert "does not dominate" in " ".join(validate(seed))


def test_if_condition_must_be_i1_and_defined_before(seed):
    seed.body[1].cond = Const(I32, 1)
    assert "condition must be an i1" in " ".join(validate(seed))


def test_opcodes_and_operand_counts(seed):
    seed.body[2].append(Instr("frobnicate", [], I32))
    seed.body[4].append(Instr("add", [Const(I32, 1)], I32))
    out = " ".join(validate(seed))
    assert "unknown opcode" in out and "add takes 2 operands, has 1" in out


def test_cfg_terminators_do_not_survive(seed):
    seed.body[4].append(Instr("br", [], targets=[seed.body[0]]))
    assert "not allowed in structured form" in " ".join(validate(seed))


def test_an_instruction_in_two_blocks(seed):
    ins = seed.body[3].body[0].instrs[0]
    seed.body[4].instrs.append(ins)
    out = " ".join(validate(seed))
    assert "appears twice" in out


def test_critical_edges_are_reported():
    """A tree cannot make one (that is the point of empty else blocks), so the rule is checked on
    edges given by hand: b0 -> {b1, b2}, b1 -> b2."""
    from reconverge.lowering.ir.validate import critical_edges
    b0, b1, b2 = Block(), Block(), Block()
    succs = {b0: [b1, b2], b1: [b2], b2: []}
    preds = {b0: [], b1: [b0], b2: [b0, b1]}
    assert critical_edges([b0, b1, b2], succs, preds) == [(b0, b2)]
    preds[b2] = [b0]
    assert critical_edges([b0, b1, b2], succs, preds) == []
