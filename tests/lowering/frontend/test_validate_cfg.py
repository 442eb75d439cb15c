"""The validator on CFG form: it accepts the reader's output and reports each kind of broken CFG."""
from __future__ import annotations

from reconverge.lowering.ir.core import Block, Const, Instr
from reconverge.lowering.ir.parser import parse_module
from reconverge.lowering.ir.types import F32, I1, I32, I64, ptr
from reconverge.lowering.ir.validate import validate

DIAMOND = """
kernel @d(i32 %x) {
  block b0 "entry":
    %c = icmp.slt i32 %x, 0
    cbr i1 %c, b1, b2
  block b1 "a":
    %va = add i32 %x, 1
    br b3
  block b2 "b":
    br b3
  block b3 "join":
    %phi = phi i32 [b1: %va], [b2: %x]
    ret
}
"""


def _diamond():
    """entry -cbr-> a, b -> join(phi) -> ret, read from its text; blocks and values by name."""
    f = parse_module(DIAMOND).functions["d"]
    blocks = {b.label: b for b in f.blocks}
    values = {v.name: v for v in [*f.args, *f.instructions()] if v.name}
    return f, {**blocks, **{k: values[k] for k in ("phi", "c", "va", "x")}}


def test_valid_diamond():
    f, _ = _diamond()
    assert validate(f) == []
    assert [p.label for p in f.blocks[3].preds] == ["a", "b"]


def _problems(mutate) -> str:
    f, n = _diamond()
    mutate(f, n)
    probs = validate(f)
    assert probs, "mutation not detected"
    return " | ".join(probs)


def test_missing_terminator():
    def m(f, n):
        n["b"].instrs.pop()
        n["b"].append(Instr("add", [n["x"], n["x"]], I32))
    assert "does not end in a terminator" in _problems(m)


def test_terminator_in_middle():
    assert "middle" in _problems(lambda f, n: n["a"].insert(0, Instr("br", [], targets=[n["join"]])))


def test_target_outside_function():
    def m(f, n):
        n["b"].instrs[-1].targets = [Block("stray")]
    assert "not a block of the function" in _problems(m)


def test_phi_incoming_not_preds():
    def m(f, n):
        n["phi"].blocks[1] = n["entry"]
    assert "not the predecessors" in _problems(m)


def test_phi_duplicate_pred():
    def m(f, n):
        n["phi"].add_incoming(n["a"], n["va"])
    assert "listed twice" in _problems(m)


def test_phi_after_non_phi():
    def m(f, n):
        n["join"].insert(0, Instr("add", [n["x"], n["x"]], I32))
    assert "phi after a non-phi" in _problems(m)


def test_instruction_in_two_blocks():
    def m(f, n):
        n["b"].instrs.insert(0, n["va"])
    assert "also in" in _problems(m)


def test_operand_type_errors():
    def m(f, n):
        n["a"].insert(0, Instr("fadd", [n["x"], Const(F32, 1.0)], F32))
        n["a"].insert(0, Instr("icmp", [n["x"], n["x"]], I1, {"pred": "lt"}))
        n["a"].insert(0, Instr("ptradd", [n["x"], Const(I64, 1)], ptr(1)))
        n["a"].insert(0, Instr("select", [n["x"], n["x"], n["x"]], I32))
    text = _problems(m)
    assert "operands i32, f32 for a f32 result" in text and "pred = 'lt' is not one of" in text
    assert "ptradd i32, i64 -> ptr1" in text and "select of i32, i32, i32" in text


def test_wrong_target_counts_and_switch_cases():
    def m(f, n):
        n["entry"].instrs[-1] = Instr("cbr", [n["c"]], targets=[n["a"]])
        n["entry"].instrs[-1].block = n["entry"]
    assert "1 targets" in _problems(m)

    def m2(f, n):
        sw = Instr("switch", [n["x"]], attrs={"cases": [1, 1]}, targets=[n["a"], n["b"], n["b"]])
        sw.block = n["entry"]
        n["entry"].instrs[-1] = sw
    assert "duplicate case values" in _problems(m2)


def test_use_before_definition_and_undefined_operand():
    def m(f, n):
        later = Instr("mul", [n["x"], n["x"]], I32)
        n["a"].insert(0, Instr("add", [later, n["x"]], I32))
        n["a"].insert(1, later)
    assert "before its definition" in _problems(m)

    def m2(f, n):
        n["a"].insert(0, Instr("add", [Instr("mul", [], I32), n["x"]], I32))
    assert "not defined in the function" in _problems(m2)


def test_entry_with_predecessor_and_ret_type():
    def m(f, n):
        n["b"].instrs[-1].targets = [n["entry"]]
    assert "entry" in _problems(m)

    def m2(f, n):
        n["join"].instrs[-1].operands = [n["x"]]
    assert "returns" in _problems(m2)


def test_structured_opcode_rejected():
    def m(f, n):
        n["b"].instrs[-1] = Instr("break", [])
        n["b"].instrs[-1].block = n["b"]
    assert "structured-form opcode" in _problems(m)


def test_condition_types():
    def m(f, n):
        n["entry"].instrs[-1].operands = [n["x"]]
    assert "not i1" in _problems(m)
