"""Irreducible CFGs on the structured targets: each cycle entered at two or more blocks becomes a natural
loop through one guard block (lowering/guard_irreducible.py), and the kernel runs as LLVM's JIT
runs it, lane by lane: random CFGs with two-entry cycles and random state machines (any state branching to
any other: cycles with many entries, nested), on lavapipe (SPIR-V, spirv-val'd) and on the interpreter."""
from __future__ import annotations

import random

import numpy as np
import pytest

from reconverge.lowering.errors import IrreducibleCFG
from reconverge.tools.fuzz_structurize import check_spirv
from reconverge.tools.targets.harness import compare, program_from_llvm, run_target
from reconverge.tools.testing.cfggen import random_kernel, random_state_machine


def _module(seed: int):
    """A random kernel with irreducible cycles: a two-entry-cycle CFG (odd seeds) or a state machine."""
    rng = random.Random(seed)
    if seed % 2:
        return random_kernel(rng, 8 + seed % 60, max_loop_depth=1 + seed % 3, irreducible=0.4)
    return random_state_machine(rng, 3 + seed % 8, switch=0.3, memory=seed % 4 == 0, two_entries=True)


SEEDS = range(1, 25)


def test_the_slice_is_irreducible():
    guarded = [program_from_llvm(str(_module(s)), "<cfggen>", "k").function("k").guarded_cycles for s in SEEDS]
    assert sum(g > 0 for g in guarded) >= 15 and max(guarded) >= 3, guarded


@pytest.mark.parametrize("seed", SEEDS)
def test_an_irreducible_cfg_on_lavapipe_matches_the_jit(seed):
    problem = check_spirv(_module(seed), seed)
    assert problem is None, f"seed {seed}: {problem}"


@pytest.mark.parametrize("seed", SEEDS[:8])
def test_an_irreducible_cfg_on_the_interpreter_matches_the_jit(seed):
    program = program_from_llvm(str(_module(seed)), "<cfggen>", "k")
    data = np.random.default_rng(seed).integers(-1000, 1000, 48).astype(np.int32)
    args = lambda: [np.zeros(48, np.int32), data.copy()]                          # noqa: E731
    want = run_target("llvm", program, "k", args(), (48,), (16,))
    got = run_target("ir", program, "k", args(), (48,), (16,))
    assert compare(want, got, ["out", "in"]) == []


SUBGROUP_IN_CYCLE = """
declare spir_func i32 @_Z20sub_group_reduce_addj(i32) convergent

define spir_kernel void @k(ptr addrspace(1) %out, i1 %c, i1 %d) {
entry:
  br i1 %c, label %a, label %b
a:
  %s = call spir_func i32 @_Z20sub_group_reduce_addj(i32 1) convergent
  store i32 %s, ptr addrspace(1) %out
  br i1 %d, label %b, label %done
b:
  br i1 %d, label %a, label %done
done:
  ret void
}
"""


def test_a_sub_group_operation_in_an_irreducible_cycle_is_refused_in_one_line():
    """Which lanes meet in a cycle with two entries is the implementation's choice (LangRef), and the guard
    loop and blockIP choose differently: the structured targets refuse it; Gen's blockIP takes it."""
    with pytest.raises(IrreducibleCFG) as caught:
        program_from_llvm(SUBGROUP_IN_CYCLE, "cycle.ll", "k").function("k")
    assert str(caught.value) == ("cycle.ll: function @k: irreducible control flow: a cycle entered at %a and %b "
                                 "holds a sub-group operation, and which lanes run it together there is not defined")
