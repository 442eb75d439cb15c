"""The divergence analysis beyond its filetests (tests/filetests/divergence_*.nir): the marked text
reads back as the same function, both forms agree on what the structurizer keeps, and an irreducible CFG
is taken as wholly divergent."""
from reconverge.lowering.analysis.divergence import analyze
from reconverge.lowering.ir.parser import parse_module
from reconverge.lowering.ir.printer import print_function
from reconverge.lowering.passes import PASSES
from reconverge.lowering.target import CAPS

LOOP = """
kernel @k(ptr1 %out, i32 %n) {
  block b0:
    %gid = workitem.global_id i64 i32 0
    %i = trunc i32 %gid
    br b1
  block b1:
    %k = phi i32 [b0: 0], [b2: %k1]
    %more = icmp.slt i32 %k, %n
    cbr i1 %more, b2, b3
  block b2:
    %k1 = add i32 %k, 1
    %hit = icmp.eq i32 %k1, %i
    cbr i1 %hit, b3, b1
  block b3:
    %r = phi i32 [b1: %k], [b2: %k1]
    %u = add i32 %n, 1
    store i32 %r, %out, align 4
    ret
}
"""

IRREDUCIBLE = """
kernel @k(ptr1 %out, i32 %n) {
  block b0:
    %gid = workitem.global_id i64 i32 0
    %i = trunc i32 %gid
    %c = icmp.slt i32 %i, %n
    cbr i1 %c, b1, b2
  block b1:
    %a = phi i32 [b0: 0], [b2: %b]
    %a1 = add i32 %a, 1
    %d = icmp.slt i32 %a1, %n
    cbr i1 %d, b2, b3
  block b2:
    %b = phi i32 [b0: 5], [b1: %a1]
    %u = add i32 %n, 2
    br b1
  block b3:
    store i32 %a1, %out, align 4
    ret
}
"""


def _one(text: str):
    return next(iter(parse_module(text).functions.values()))


def test_marked_text_reads_back_as_the_same_function():
    func = _one(LOOP)
    marked = print_function(func, analyze(func))
    assert "div %r = phi" in marked and "con %k = phi" in marked and "div cbr i1 %hit" in marked
    assert print_function(_one(marked)) == print_function(func)


def test_tree_and_cfg_agree_after_structurizing():
    """The loop's exit is divergent in both forms: %r (after the loop) is div, %k (its counter) con, and
    %u (arguments only) con."""
    cfg = _one(LOOP)
    names = {ins.name: ins for ins in cfg.instructions()}
    before = analyze(cfg)
    PASSES["structurize"].run(cfg, CAPS["generic"])
    after = analyze(cfg)
    tree_names = {ins.name: ins for ins in cfg.instructions()}
    for name, divergent in (("r", True), ("k", False), ("u", False), ("hit", True)):
        assert (names[name] in before.values) is divergent, name
        assert (tree_names[name] in after.values) is divergent, name
    assert after.loops, "the loop lanes leave at different iterations is divergent"


def test_irreducible_cfg_is_wholly_divergent():
    func = _one(IRREDUCIBLE)
    result = analyze(func)
    assert result.irreducible
    assert all(ins in result.values for ins in func.instructions() if ins.has_result)
