"""backend/gen/cf_regions.py: which parts of a CFG the hybrid runs with Gen's structured branches.

Each shape the module names collapses (a chain, an if with one or two arms, do-while loops whose body
breaks to one block or to several, or continues), and what must stay blockIP does: merges reached from
many places, switches, a block with a barrier, an irreducible loop. The corpus and random-CFG tests check
what the regions compute.
"""
from __future__ import annotations

import os

import pytest

from reconverge.backend.gen.cf_regions import join_points, layout, structured_regions
from reconverge.backend.gen.isel_blockip import BlockIPDriver
from reconverge.lowering.graph import IrreducibleError, loop_forest
from reconverge.tools.targets.harness import load_program

ROOT = os.path.join(os.path.dirname(__file__), os.pardir, os.pardir)


def _shape(region) -> str:
    if region.kind == "block":
        return region.entry.label
    return f"{region.kind}(" + ", ".join(_shape(p) if p is not None else "-" for p in region.parts) + ")"


def _units(path: str, kernel: str, level: str = "-O2") -> list[str]:
    func = load_program(os.path.join(ROOT, path), level).function(kernel, "gen-blockip")
    return [_shape(u) for u in layout(func, structured_regions(func))]


def test_a_natural_kernel_is_one_unit_of_chains_ifs_and_a_loop():
    # do_while at -O2: entry, a loop of two blocks that both leave to the same block (the first by an
    # exit: its lanes break), the store
    assert _units("tests/kernels/do_while.cl", "do_while") == ["chain(chain(3, loop(chain(exit(9), 20))), 24)"]
    # while_complex: an if around the loop, whose body is an if/else diamond
    assert _units("tests/kernels/while_complex.cl", "while_complex") == \
        ["chain(if(3, -, loop(chain(if(16, 21, 24), 28))), 39)"]
    # bit_loops: a `continue` from the loop's head to its latch is an if around the rest of the body,
    # whose exits break out of the loop to two blocks
    assert _units("tests/kernels/bit_loops.cl", "bit_loops") == \
        ["chain(3, loop(chain(if(9, -, chain(exit(15), exit(20))), 23)))", "18", "27"]


def test_a_loop_leaving_to_several_blocks_is_one_region_that_sets_blockip_where_lanes_leave():
    func = load_program(os.path.join(ROOT, "examples", "nested_break.cl"), "-O2").function("nested_break",
                                                                                         "gen-blockip")
    units = layout(func, structured_regions(func))
    inner = units[1].parts[1]
    assert inner.kind == "loop" and inner.after is None and inner.dispatch
    assert {b.label for b in inner.leaves} == {"33", "29", "37"}     # goto done, goto next_row, return
    selector = BlockIPDriver(func, 16, regions=True)
    mfunc = selector.run()
    bip = selector.blockip.value.id
    in_loop, sets = False, 0
    for block in mfunc.blocks:
        for ins in block.instrs:
            in_loop = in_loop or block.label.startswith("loop")
            if in_loop and ins.opcode == "mov" and any(r.id == bip for r in ins.defs()):
                assert ins.predicate is not None                    # only on the lanes leaving
                sets += 1
            if ins.opcode == "while":
                in_loop = False
    assert sets == 4                                                # one per exit edge


def test_what_is_not_natural_stays_one_unit_per_block():
    # if_else_chain: one merge block reached from eight places at several levels
    assert len(_units("tests/kernels/if_else_chain.cl", "if_else_chain")) == 11
    # continue_outer: switches (three-way branches) in its loops
    assert not any(u.startswith("loop") for u in _units("tests/kernels/continue_outer.cl", "continue_outer"))
    # the goto into a loop's middle at -O0: irreducible, so no loop region forms around it
    units = _units("tests/gen/blockip/scenarios.cl", "into_loop", "-O0")
    assert not any(u.startswith("loop") for u in units)


def test_a_natural_loop_beside_an_irreducible_one_is_still_a_region():
    """Why cf_regions searches loops itself rather than reading lowering.graph.loop_forest: the forest
    refuses a function with any irreducible part, and the hybrid must still find the natural loops
    around it."""
    func = load_program(os.path.join(ROOT, "tests/gen/blockip/natural_beside_irreducible.cl"), "-O0") \
        .function("mixed", "gen-blockip")
    index = {b: i for i, b in enumerate(func.blocks)}
    with pytest.raises(IrreducibleError):
        loop_forest([[index[s] for s in b.succs] for b in func.blocks], 0)
    units = [_shape(u) for u in layout(func, structured_regions(func))]
    assert sum(u.count("loop(") for u in units) == 1, units


@pytest.mark.parametrize("path,kernel", [("tests/kernels/local_mem.cl", "local_mem"),
                                         ("tests/kernels_barrier/wg_reduce.cl", "wg_reduce")])
def test_a_block_with_a_barrier_is_never_inside_a_region(path, kernel):
    func = load_program(os.path.join(ROOT, path), "-O2").function(kernel, "gen-blockip")
    for unit in structured_regions(func):
        if unit.barrier:
            assert unit.kind == "block"
        else:
            stack = [unit]
            while stack:
                r = stack.pop()
                assert not r.barrier
                stack += [p for p in r.parts if p is not None and not hasattr(p, "instrs")]


def test_join_points_of_units_follow_the_pending_rule():
    # nested_break's units: 0 entry -> 1 (outer head + inner loop) -> {3 '33', 2 '29', 4 '37'};
    # 2 -> {1 (backward), 3}; 3 -> 4; 4 returns
    func = load_program(os.path.join(ROOT, "examples", "nested_break.cl"), "-O2").function("nested_break",
                                                                                         "gen-blockip")
    units = layout(func, structured_regions(func))
    assert [_shape(u) for u in units][2:] == ["29", "33", "37"]
    # worked by hand: entering 0 nothing is pending (JOIN = the exit, 5); entering 1 the backward branch
    # into it from 2 makes 3 pending (JOIN 3), then 1's targets 2, 3, 4 are; entering 2 leaves {3, 4}
    # (JOIN 3); entering 3 leaves {4}; entering 4 leaves nothing (the exit)
    assert join_points(units) == {0: 5, 1: 3, 2: 3, 3: 4, 4: 5}


def test_the_random_cfg_slice_has_loops_that_break_continue_and_leave_to_several_blocks():
    """The shapes test_gen_random_cfg.py checks against the JIT in hybrid mode."""
    import random

    from reconverge.lowering.pipeline import Options, compile_llvm
    from reconverge.tools.testing.cfggen import random_kernel
    kinds: set[str] = set()

    def walk(r):
        kinds.add(r.kind + ("+dispatch" if r.dispatch else "") + ("+continues" if r.continues else ""))
        for p in r.parts:
            if p is not None and not hasattr(p, "instrs"):
                walk(p)
    for n_blocks, seed in [(8, 1), (20, 2), (30, 3), (60, 4), (120, 5), (30, 6), (45, 7), (80, 8)]:
        text = str(random_kernel(random.Random(seed), n_blocks))
        func = compile_llvm(text, source_name="cfggen", options=Options(kernel="k", pipeline="gen-blockip"))["k"]
        for unit in structured_regions(func):
            walk(unit)
    assert {"exit", "exit+dispatch", "continue", "loop+continues", "loop+dispatch", "if", "chain"} <= kinds, kinds


def test_blockip_lays_a_loop_out_together_before_its_exits():
    """A loop left by its header's true arm: the exit block comes after the latch, so blockIP runs it once
    with every lane that left (before, reverse postorder put it before the latch and it ran once per batch
    of leaving lanes: a ballot there saw only the lanes leaving in one iteration)."""
    from reconverge.backend.gen.cf_regions import block_unit
    from reconverge.lowering.ir.parser import parse_module
    func = parse_module("""\
kernel @k(ptr1 %out, i32 %r) {
  block b0 "entry":
    br b1
  block b1 "loop":
    %k = phi i32 [b0: 0], [b2: %k1]
    %hit = icmp.eq i32 %k, %r
    cbr i1 %hit, b3, b2
  block b2 "latch":
    %k1 = add i32 %k, 1
    br b1
  block b3 "exit":
    store i32 %k, %out
    ret
}
""").functions["k"]
    func.update_cfg()
    assert [u.entry.label for u in layout(func, [block_unit(b) for b in func.blocks])] == \
        ["entry", "loop", "latch", "exit"]


def test_blockip_lays_a_loop_after_a_top_tested_loop_out_after_all_of_it():
    """Fuzz convergence-1049's shape: a loop left by its header's true arm, an inner loop in its body, and a
    second loop after it. Before, reverse postorder laid the second loop (and the return) out between the
    header and its body, so blockIP ran it once per batch of lanes leaving the first loop."""
    from reconverge.backend.gen.cf_regions import block_unit
    from reconverge.lowering.ir.parser import parse_module
    func = parse_module("""\
kernel @k(ptr1 %out, i32 %r) {
  block b0 "entry":
    br b1
  block b1 "outer":
    %i = phi i32 [b0: 0], [b4: %i1]
    %done = icmp.eq i32 %i, %r
    cbr i1 %done, b5, b2
  block b2 "body":
    br b3
  block b3 "inner":
    %j = phi i32 [b2: 0], [b3: %j1]
    %j1 = add i32 %j, 1
    %more = icmp.ult i32 %j1, %i
    cbr i1 %more, b3, b4
  block b4 "latch":
    %i1 = add i32 %i, 1
    br b1
  block b5 "second":
    %k = phi i32 [b1: 0], [b5: %k1]
    %k1 = add i32 %k, 1
    %again = icmp.ult i32 %k1, %r
    cbr i1 %again, b5, b6
  block b6 "exit":
    store i32 %k1, %out
    ret
}
""").functions["k"]
    func.update_cfg()
    assert [u.entry.label for u in layout(func, [block_unit(b) for b in func.blocks])] == \
        ["entry", "outer", "body", "inner", "latch", "second", "exit"]


def test_blockip_lays_a_loop_out_together_beside_an_irreducible_part():
    """The same rule where the unit graph is irreducible (a cycle entered at two blocks, as goto makes):
    the natural loop's units still stand together before its exit (before, the whole layout fell back to
    reverse postorder, and the exit came before the loop's latch)."""
    from reconverge.backend.gen.cf_regions import block_unit
    from reconverge.lowering.ir.parser import parse_module
    func = parse_module("""\
kernel @k(ptr1 %out, i32 %r) {
  block b0 "entry":
    %odd = icmp.eq i32 %r, 1
    cbr i1 %odd, b1, b2
  block b1 "x":
    %a = phi i32 [b0: 0], [b2: %b1]
    %a1 = add i32 %a, 1
    %xs = icmp.ult i32 %a1, %r
    cbr i1 %xs, b2, b3
  block b2 "y":
    %b = phi i32 [b0: 1], [b1: %a1]
    %b1 = add i32 %b, 2
    %ys = icmp.ult i32 %b1, %r
    cbr i1 %ys, b1, b3
  block b3 "loop":
    %k = phi i32 [b1: 0], [b2: 0], [b4: %k1]
    %hit = icmp.eq i32 %k, %r
    cbr i1 %hit, b5, b4
  block b4 "latch":
    %k1 = add i32 %k, 1
    br b3
  block b5 "exit":
    store i32 %k, %out
    ret
}
""").functions["k"]
    func.update_cfg()
    with pytest.raises(IrreducibleError):
        loop_forest([[s.index for s in b.succs] for b in func.blocks], 0)
    assert [u.entry.label for u in layout(func, [block_unit(b) for b in func.blocks])][-3:] == \
        ["loop", "latch", "exit"]


def _check_cycles_together(order: list[int], succs: list[list[int]], nodes: list[int], cut: frozenset[int],
                           entry: int) -> int:
    """Every cycle among `nodes` (edges into `cut` set aside) stands together in `order`, and so, once the
    edges into its entries are set aside, does every cycle inside it. The cycles checked."""
    from reconverge.lowering.graph import cycles
    place = {v: i for i, v in enumerate(order)}
    preds: dict[int, set[int]] = {v: set() for v in order}
    for v in order:
        for t in succs[v]:
            preds[t].add(v)
    graph = {v: [t for t in succs[v] if t not in cut] for v in nodes}
    checked = 0
    for members in cycles(graph, nodes):
        spots = sorted(place[v] for v in members)
        assert spots == list(range(spots[0], spots[0] + len(spots))), (members, spots)
        inside = set(members)
        entries = frozenset(u for u in members if u == entry or any(p not in inside for p in preds[u]))
        checked += 1 + _check_cycles_together(order, succs, members, cut | entries, entry)
    return checked


def test_blockip_lays_every_cycle_out_together_irreducible_ones_too():
    """Random CFGs with irreducible cycles (cfggen's state machines and two-entry leaf regions) in pure
    blockIP and the hybrid: every cycle's units stand together, cycles inside it too, each unit after its immediate
    dominator. Before, an irreducible cycle's units could be laid out around one of its exits, which then
    ran once per batch of lanes leaving the cycle (fuzz all-56733: a sub-group scan after a goto state
    machine met only some of the lanes)."""
    import random

    from reconverge.backend.gen.cf_regions import block_unit
    from reconverge.lowering.graph import dominator_tree
    from reconverge.lowering.pipeline import Options, compile_llvm
    from reconverge.tools.testing.cfggen import random_kernel, random_state_machine
    checked = 0
    for seed in range(36):
        rng = random.Random(seed)
        if seed % 3:                    # (state machines: cycles entered anywhere; seeds 15 and 30 failed)
            text = str(random_state_machine(rng, rng.randint(3, 12), two_entries=seed % 2 == 0))
        else:
            text = str(random_kernel(rng, rng.randint(8, 40), max_loop_depth=rng.randint(1, 3), irreducible=0.4))
        func = compile_llvm(text, source_name="cfggen", options=Options(kernel="k", pipeline="gen-blockip"))["k"]
        for units in ([block_unit(b) for b in func.blocks], structured_regions(func)):
            laid = layout(func, units)
            index = {u.entry: i for i, u in enumerate(laid)}
            succs = [[index[t] for t in u.exits if t in index] for u in laid]
            order = list(range(len(laid)))
            checked += _check_cycles_together(order, succs, order, frozenset(), 0)
            idom = dominator_tree(succs, 0)
            assert all(idom.idom[v] < v for v in order[1:])
    assert checked > 20
