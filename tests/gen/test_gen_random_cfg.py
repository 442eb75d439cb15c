"""The fixed-seed random-CFG slice on the Gen target: random CFGs (tools/testing/cfggen.py: nested loops
with breaks and continues, forward gotos, early returns, all data-dependent per lane; and irreducible
ones, with two-entry cycles) are compiled to Gen9 in every control-flow mode and run in the simulator in
SIMD8 and SIMD16; every work-item's result equals the CPU JIT's."""
from __future__ import annotations

import random

import numpy as np
import pytest

from reconverge.backend.gen import CF_MODES
from reconverge.backend.gen.launch import run_gen_kernel
from reconverge.lowering.pipeline import Options, compile_llvm
from reconverge.tools.targets.jit_oracle import run_llvm_kernel
from reconverge.tools.testing.cfggen import random_kernel


def _agrees_with_the_jit(text: str, name: str, seed: int, cf: str) -> None:
    mode = CF_MODES[cf]
    func = compile_llvm(text, source_name=name, options=Options(kernel="k", verify_each=True, pipeline=mode.pipeline))["k"]
    inp = np.random.default_rng(seed).integers(-1000, 1000, 48).astype(np.int32)
    expected = np.zeros(48, np.int32)
    run_llvm_kernel(text, "k", [expected, inp.copy()], 48, 24)
    for simd in (8, 16):
        got = np.zeros(48, np.int32)
        run_gen_kernel(func, [got, inp.copy()], (48,), (24,), simd, regions=mode.regions, entry=mode.entry)
        bad = np.flatnonzero(got != expected)
        assert bad.size == 0, f"SIMD{simd}: work-item {bad[0]}: gen {got[bad[0]]}, JIT {expected[bad[0]]}"


@pytest.mark.parametrize("cf", list(CF_MODES))
@pytest.mark.parametrize("n_blocks,seed", [(8, 1), (20, 2), (30, 3), (60, 4), (120, 5), (30, 6), (45, 7), (80, 8)],
                         ids=lambda v: str(v))
def test_random_cfgs_agree_with_the_jit(n_blocks, seed, cf):
    """Structured branches from the tree (the gen pipeline), blockIP on the CFG (gen-blockip), and the
    CFG's natural regions in structured branches inside blockIP (hybrid); blockIP with each of Beignet's
    entry sequences."""
    _agrees_with_the_jit(str(random_kernel(random.Random(seed), n_blocks)), f"cfggen-{n_blocks}-{seed}", seed, cf)


@pytest.mark.parametrize("cf", list(CF_MODES))
@pytest.mark.parametrize("n_blocks,seed", [(12, 11), (30, 12), (50, 13), (80, 14)], ids=lambda v: str(v))
def test_irreducible_random_cfgs_agree_with_the_jit(n_blocks, seed, cf):
    """blockIP runs the irreducible CFG itself; the tree, its cycles made natural loops by a guard block
    (lowering.guard_irreducible)."""
    text = str(random_kernel(random.Random(seed), n_blocks, irreducible=0.3))
    func = compile_llvm(text, source_name=f"cfggen-{n_blocks}-{seed}", options=Options(kernel="k", pipeline="gen"))
    assert func["k"].guarded_cycles > 0
    _agrees_with_the_jit(text, f"cfggen-{n_blocks}-{seed}", seed, cf)
