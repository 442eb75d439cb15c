"""Property: any reducible CFG the generator makes (llvmlite.ir, loops bounded by counters) structurizes
into a valid tree that computes, lane by lane, what llvmlite's JIT computes from the original IR.

Hypothesis draws the generator's seed and size; `derandomize` keeps CI runs repeatable (a fixed slice of
the space); `python -m pytest tests/lowering/passes/structurize/test_property_cfg.py --hypothesis-seed=N` or raising
RECONVERGE_PROPERTY_EXAMPLES explores further on demand.
"""
import os
import random

import numpy as np
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from reconverge.lowering.interp import run_kernel
from reconverge.lowering.ir.validate import validate
from reconverge.lowering.pipeline import compile_llvmlite
from reconverge.tools.targets.jit_oracle import run_llvm_kernel
from reconverge.tools.testing.cfggen import random_kernel

EXAMPLES = int(os.environ.get("RECONVERGE_PROPERTY_EXAMPLES", "60"))
GLOBAL, LOCAL = 16, 8


@settings(max_examples=EXAMPLES, deadline=None, derandomize=True,
          suppress_health_check=[HealthCheck.too_slow])
@given(seed=st.integers(0, 2**32 - 1), blocks=st.integers(4, 150), depth=st.integers(1, 4),
       data_seed=st.integers(0, 2**16))
def test_random_reducible_cfg_matches_jit(seed, blocks, depth, data_seed):
    module = random_kernel(random.Random(seed), blocks, max_loop_depth=depth)
    llvm_text = str(module)
    func = compile_llvmlite(module)["k"]
    assert func.is_structured and validate(func) == []
    data = np.random.default_rng(data_seed).integers(-2**31, 2**31, GLOBAL, dtype=np.int64).astype(np.int32)
    want, got = np.zeros(GLOBAL, np.int32), np.zeros(GLOBAL, np.int32)
    run_llvm_kernel(llvm_text, "k", [want, data.copy()], GLOBAL, LOCAL)
    run_kernel(func, [got, data.copy()], GLOBAL, LOCAL)
    assert np.array_equal(got, want), f"lanes differ: {np.flatnonzero(got != want)}"


def test_the_on_demand_fuzzer_runs(capsys):
    """tools/fuzz_structurize.py (the long-running version of this check) keeps working."""
    from reconverge.tools.fuzz_structurize import main
    assert main(["--seconds", "1", "--seed", "77", "--max-blocks", "60"]) == 0
    assert "all lanes agree" in capsys.readouterr().out
