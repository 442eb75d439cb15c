"""The fixed-seed slice of random state machines (tools/testing/cfggen.random_state_machine), the class of
CFGs issue 20's held-out programs belong to: 3 to 11 states, each updating two values and a step counter
and leaving once the counter passes a limit, else going on by a branch, a conditional branch or a
4-way switch to any state. The slice's seeds cover, and the first test checks that they do: switch
cases sharing a target, self-loops, a block branching back to two blocks at once, blocks no entered
block reaches branching into reachable ones, two ways into one cycle, values in allocas (clang -O0's
form), reducible and irreducible CFGs. Each runs on gen in every control-flow mode (structured only
where reducible; auto compiles what the mode it picks compiles) in SIMD8 and SIMD16, against the CPU
JIT. Seeds 0 and 1 went wrong or never ended under blockIP before join_points kept a branch's second
backward target pending."""
from __future__ import annotations

import random

import numpy as np
import pytest

from reconverge.backend.gen import CF_MODES, choose_function
from reconverge.backend.gen.cf_regions import block_unit, layout
from reconverge.backend.gen.launch import run_gen_kernel
from reconverge.lowering.pipeline import Options, compile_llvm
from reconverge.tools.targets.harness import program_from_llvm
from reconverge.tools.targets.jit_oracle import run_llvm_kernel
from reconverge.tools.testing.cfggen import random_state_machine

SEEDS = [0, 1, 7, 22, 33, 35, 36]


def _kernel(seed: int) -> tuple[str, dict]:
    rng = random.Random(seed)
    n_states = rng.randint(3, 11)
    shape = {"memory": rng.random() < 0.25, "two_entries": rng.random() < 0.4}
    return str(random_state_machine(rng, n_states, **shape)), shape


def _classes(text: str, shape: dict) -> set[str]:
    """The CFG classes a kernel belongs to, read off its CFG form and the structurizer's answer."""
    out = {name for name, on in shape.items() if on}
    tree = compile_llvm(text, source_name="states", options=Options(kernel="k", pipeline="gen"))["k"]
    out.add("irreducible" if tree.guarded_cycles else "reducible")     # (the tree's through guard loops)
    func = compile_llvm(text, source_name="states", options=Options(kernel="k", pipeline="gen-blockip"))["k"]
    index = {u.entry: i for i, u in enumerate(layout(func, [block_unit(b) for b in func.blocks]))}
    for block in func.blocks:
        targets = block.instrs[-1].targets or []
        if block in targets:
            out.add("self_loop")
        if block.instrs[-1].opcode == "switch" and len(set(targets)) < len(targets):
            out.add("shared_case")
        if block not in index and any(t in index for t in targets):
            out.add("unreachable_into_reachable")
        if block in index and len({t for t in targets if index[t] <= index[block]}) >= 2:
            out.add("two_backward_targets")
    return out


def test_the_slice_covers_every_class():
    covered = set().union(*(_classes(*_kernel(seed)) for seed in SEEDS))
    assert covered == {"reducible", "irreducible", "self_loop", "shared_case", "unreachable_into_reachable",
                       "two_backward_targets", "memory", "two_entries"}


@pytest.mark.parametrize("seed", SEEDS)
def test_state_machines_agree_with_the_jit_in_every_mode(seed):
    text, _ = _kernel(seed)
    inp = np.random.default_rng(seed).integers(-1000, 1000, 48).astype(np.int32)
    expected = np.zeros(48, np.int32)
    run_llvm_kernel(text, "k", [expected, inp.copy()], 48, 24)
    modes = ["blockip", "hybrid", "structured"]
    assert choose_function(program_from_llvm(text, "states.ll"), "k", "auto")[1].name in modes
    for cf in modes:
        mode = CF_MODES[cf]
        func = compile_llvm(text, source_name=f"states-{seed}", options=Options(kernel="k", pipeline=mode.pipeline))["k"]
        for simd in (8, 16):
            got = np.zeros(48, np.int32)
            run_gen_kernel(func, [got, inp.copy()], (48,), (24,), simd, regions=mode.regions, entry=mode.entry)
            bad = np.flatnonzero(got != expected)
            assert bad.size == 0, f"{cf} SIMD{simd}: work-item {bad[0]}: gen {got[bad[0]]}, JIT {expected[bad[0]]}"


SCAN_SEEDS = [0, 6, 17, 23]     # each went wrong in blockip and the hybrid, SIMD8 and SIMD16, before the fix


@pytest.mark.parametrize("seed", SCAN_SEEDS)
def test_a_scan_after_a_state_machine_meets_every_lane_that_left_it(seed):
    """The machine's result through a sub-group exclusive min scan after it (random_state_machine's
    `scan`): the lanes that left the machine meet there together, so blockIP and the hybrid must answer as
    the tree does on the ir target (the JIT declines a sub-group operation in an irreducible CFG). Before
    cf_regions.cycles_together an irreducible machine's units could be laid out around the scan's, which
    then ran once per batch of lanes leaving (fuzz all-56733); 30 seeds, 40 wrong configurations."""
    from reconverge.tools.targets.harness import GenRunOptions, InterpreterOptions, run_target
    rng = random.Random(seed)
    text = str(random_state_machine(rng, rng.randint(3, 11), memory=rng.random() < 0.25,
                                    two_entries=rng.random() < 0.6, scan=True))
    data = np.random.default_rng(seed).integers(0, 1000, 64).astype(np.int32)
    for simd in (8, 16):
        expected = run_target("ir", program_from_llvm(text, "states.ll"), "k", [np.zeros(64, np.int32), data.copy()],
                              (64,), (32,), InterpreterOptions(subgroup_size=simd))[0]
        for cf in ("blockip", "hybrid", "auto"):
            got = run_target("gen", program_from_llvm(text, "states.ll"), "k", [np.zeros(64, np.int32), data.copy()],
                             (64,), (32,), GenRunOptions(simd, cf))[0]
            bad = np.flatnonzero(got != expected)
            assert bad.size == 0, f"{cf} SIMD{simd}: work-item {bad[0]}: gen {got[bad[0]]}, ir {expected[bad[0]]}"
