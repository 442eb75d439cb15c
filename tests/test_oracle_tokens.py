"""The llvm reference with convergence-control tokens (tests/kernels_tokens/tokens.ll): a sub-group operation
is keyed by the iterations of the loops its token names (LLVM's ConvergentOperations.rst), also when -O2 has
moved it out of them, so the reference gives numpy's answer for each token (test_convergence_tokens.py's
expectations); an anchor's lanes are the implementation's choice, so the reference refuses it (there); the
module it JITs has no tokens left."""
from __future__ import annotations

import numpy as np
import pytest

from reconverge.tools.targets.harness import OracleOptions, load_program, run_target
from reconverge.tools.targets.oracle_sites import instrument, without_tokens
from tests.test_convergence_tokens import GLOBAL, KERNELS, LOCAL, SEED, trips_expect, waterfall_expect


@pytest.mark.parametrize("size", [8, 16])
@pytest.mark.parametrize(("kernel", "per_iteration"), [("waterfall_heart", True), ("waterfall_entry", False),
                                                       ("trips_heart", True), ("trips_entry", False)])
def test_reference_follows_the_token(kernel, per_iteration, size):
    """Same CFG, the operation in the loop's exit block: the loop's token keeps it in the leaving iteration."""
    program = load_program(KERNELS, "-O0")
    if kernel.startswith("waterfall"):
        values = np.random.default_rng(SEED).integers(0, 3, GLOBAL, dtype=np.int32)
        args, want = [np.zeros(GLOBAL, np.int32), values], waterfall_expect(values, size, per_iteration)
    else:
        args, want = [np.zeros(GLOBAL, np.int32)], trips_expect(size, per_iteration)
    got = run_target("llvm", program, kernel, args, (GLOBAL,), (LOCAL,), OracleOptions(size))[0]
    assert got.tolist() == want.tolist()


LABELLED_ENTRY = """
define spir_kernel void @k(ptr addrspace(1) %out) {
entry:
  %x = call spir_func i32 @_Z20sub_group_reduce_addi(i32 1)
  store i32 %x, ptr addrspace(1) %out, align 4
  ret void
}
declare spir_func i32 @_Z20sub_group_reduce_addi(i32)
"""


def test_a_labelled_entry_block_is_reachable():
    """clang keeps value names for HLSL (`entry:`): the sites in it are keyed, not taken for unreachable."""
    keyed = instrument(LABELLED_ENTRY)
    assert keyed is not None and list(keyed[1].loops) == [0]


def test_tokens_are_stripped_for_the_jit():
    text = without_tokens(open(KERNELS).read())
    assert "call token" not in text and "convergencectrl" not in text
