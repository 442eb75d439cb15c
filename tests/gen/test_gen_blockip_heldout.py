"""Held-out control flow that blockIP and the hybrid once got wrong or never finished (issue 20): a goto
state machine at -O2, and random CFGs written by another generator, with their inputs and the expected
outputs (tests/gen/blockip/*.ll, *.npy). All of them hold a block whose branch goes back, in layout
order, to two different blocks: the backward jump lands at the first of them, and the JOIN points of
the blocks in between must not skip the lanes waiting at the second (cf_regions.join_points)."""
from __future__ import annotations

import os

import numpy as np
import pytest

from reconverge.backend.gen.cf_regions import block_unit, join_points, layout
from reconverge.tools.targets.harness import GenRunOptions, compare, load_program, program_from_llvm, run_target

HERE = os.path.join(os.path.dirname(__file__), "blockip")
MODES = ["blockip", "hybrid", "auto"]


@pytest.mark.parametrize("name", ["wrong_reducible", "hang_reducible", "hang_irreducible"])
@pytest.mark.parametrize("cf", MODES)
def test_held_out_random_cfgs_give_the_expected_outputs(name, cf):
    """Switches whose cases share a target, blocks branching back to two loop headers, unreachable
    blocks branching into reachable ones; lanes 0..60 against the outputs recorded with the reference."""
    program = load_program(os.path.join(HERE, f"{name}.ll"))
    inp, want = (np.load(os.path.join(HERE, f"{name}.{part}.npy")) for part in ("in", "expected"))
    for simd in (8, 16):
        got = run_target("gen", program, "rand_k", [inp.copy(), np.zeros(64, np.int32), 61], (64,), (64,),
                         GenRunOptions(simd, cf))
        bad = np.flatnonzero(got[1][:61] != want[:61])
        assert bad.size == 0, f"SIMD{simd}: lane {bad[0]}: gen {got[1][bad[0]]}, expected {want[bad[0]]}"


@pytest.mark.parametrize("cf", MODES)
def test_the_irreducible_three_block_cfg_at_O0_finishes_and_agrees(cf):
    """Item 3: allocas, three blocks in a cycle entered at two of them; the block after the entry test
    branched back to two blocks, and the lanes sent to the second looped forever."""
    program = load_program(os.path.join(HERE, "hang_O0_allocas.ll"))
    inp, cnt, want = (np.load(os.path.join(HERE, f"hang_O0_allocas.{part}.npy")) for part in ("in", "cnt", "expected"))
    for simd in (8, 16):
        got = run_target("gen", program, "k", [inp.copy(), np.zeros(64, np.uint32), cnt.copy(), 1], (64,), (64,),
                         GenRunOptions(simd, cf))
        assert np.array_equal(got[1], want), f"SIMD{simd}: {np.flatnonzero(got[1] != want).size} lanes differ"


@pytest.mark.parametrize("cf", MODES)
def test_the_goto_state_machine_agrees_with_the_jit_at_O2(cf):
    """Item 1: two work-groups of 64, inputs in [-1000, 1000), both widths."""
    program = load_program(os.path.join(HERE, "goto_state_machine.cl"), "-O2")
    inp = np.random.default_rng(20).integers(-1000, 1000, 128).astype(np.int32)
    reference = run_target("llvm", program, "goto_state_machine", [inp.copy(), np.zeros(128, np.int32)], (128,), (64,))
    for simd in (8, 16):
        got = run_target("gen", program, "goto_state_machine", [inp.copy(), np.zeros(128, np.int32)], (128,), (64,),
                         GenRunOptions(simd, cf))
        assert compare(reference, got, ["in", "out"], labels=("llvm", "gen")) == [], f"SIMD{simd}"


TWO_BACKWARD_TARGETS = """
define spir_kernel void @k(ptr addrspace(1) %out, i32 %n) {
b0:
  br label %b1
b1:
  %c1 = icmp sgt i32 %n, 1
  br i1 %c1, label %b2, label %b3
b2:
  br label %b3
b3:
  %c3 = icmp sgt i32 %n, 3
  br i1 %c3, label %b4, label %b5
b4:
  %c4 = icmp sgt i32 %n, 4
  br i1 %c4, label %b1, label %b3
b5:
  ret void
}
"""


def test_a_branch_back_to_two_blocks_keeps_the_second_pending():
    """Layout b0 b1 b2 b3 b4 b5, exit 6. b4 branches back to b1 and b3: its jump lands at b1, and from
    there on b3 (where some of its lanes wait) and b5 (after b4) are pending. When no lane wants b1, the
    thread goes on to b3, not b5 (the rule with only the block after b4 pending said b5)."""
    func = program_from_llvm(TWO_BACKWARD_TARGETS, "two_back.ll").function("k", "gen-blockip")
    units = layout(func, [block_unit(b) for b in func.blocks])
    assert [u.entry.label for u in units] == ["b0", "b1", "b2", "b3", "b4", "b5"]
    assert join_points(units) == {0: 6, 1: 3, 2: 3, 3: 5, 4: 5, 5: 6}
