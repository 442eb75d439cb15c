"""The validator's remaining rules, one broken on purpose per test (the others are in test_validate.py,
../frontend/test_validate_cfg.py, test_ir_text.py and the validate filetests): each must be reported, and
with the words that explain it."""
import pytest

from reconverge.lowering.ir.core import Arg, Block, Const, Function, Instr
from reconverge.lowering.ir.parser import parse_module
from reconverge.lowering.ir.types import I1, I32, ptr
from reconverge.lowering.ir.validate import validate

CFG = """
kernel @c(i32 %x, ptr1 %out) {
  block b0 "entry":
    %c = icmp.slt i32 %x, 0
    cbr i1 %c, b1, b2
  block b1 "a":
    br b2
  block b2 "join":
    store i32 %x, %out, align 4
    ret
}
"""

TREE = """
kernel @t(i32 %x, ptr1 %out) {
  block b0:
    %c = icmp.slt i32 %x, 0
  if %c {
    block b1:
      store i32 1, %out, align 4
  } else {
    block b2:
  }
  block b3:
    %y = add i32 %x, 1
    store i32 %y, %out, align 4
}
"""


def _cfg() -> tuple[Function, dict[str, Block]]:
    f = parse_module(CFG).functions["c"]
    return f, {b.label: b for b in f.blocks}


def _tree() -> Function:
    return parse_module(TREE).functions["t"]


def _problems(func: Function) -> str:
    out = " | ".join(validate(func))
    assert out, "the broken rule was not reported"
    return out


def test_the_unbroken_functions_are_valid():
    assert validate(_cfg()[0]) == [] and validate(_tree()) == []


def test_missing_required_attribute():
    f, b = _cfg()
    b["a"].insert(0, Instr("alloca", [], ptr(0)))
    assert "attribute size is missing" in _problems(f)


def test_wrong_block_link():
    f, b = _cfg()
    b["join"].instrs[0].block = b["a"]
    assert "block link is wrong" in _problems(f)


def test_argument_of_another_function():
    f, b = _cfg()
    stranger = Arg(I32, 0, "stranger")
    b["join"].instrs[0].operands[0] = stranger
    assert "argument of another function" in _problems(f)


def test_empty_cfg_block():
    f, b = _cfg()
    b["a"].instrs.clear()
    assert "empty block" in _problems(f)


def test_cbr_to_the_same_block_twice():
    f, b = _cfg()
    b["entry"].instrs[-1].targets = [b["join"], b["join"]]
    f.update_cfg()
    assert "both targets are the same block" in _problems(f)


def test_targets_on_a_non_terminator():
    f, b = _cfg()
    b["join"].instrs[0].targets = [b["a"]]
    assert "non-terminator has targets" in _problems(f)


def test_parent_link_in_the_tree():
    f = _tree()
    f.body[1].then_list[0].parent = f
    assert "wrong parent link" in _problems(f)


def test_end_block_must_be_empty():
    f = _tree()
    f.end_block.append(Instr("return", []))
    assert "end block must be empty" in _problems(f)


def test_if_condition_defined_after_the_if():
    f = _tree()
    late = f.body[2].instrs[0]                       # %y, in the block after the if
    cond = Instr("icmp", [late, Const(I32, 3)], I1, {"pred": "eq"})
    f.body[2].insert(1, cond)
    f.body[1].cond = cond
    assert "condition's definition does not dominate the if" in _problems(f)


def test_targets_in_structured_form():
    f = _tree()
    f.body[2].instrs[0].targets = [f.body[0]]
    assert "only CFG-form terminators have them" in _problems(f)


@pytest.mark.parametrize("form", ["cfg", "tree"])
def test_stale_successors_are_reported_not_repaired(form):
    f = _cfg()[0] if form == "cfg" else _tree()
    block = f.all_blocks()[0]
    stale = list(block.succs)
    block.succs = stale[:1]
    assert "stored successors disagree" in _problems(f)
    assert block.succs == stale[:1]
