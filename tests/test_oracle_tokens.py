"""The llvm reference with convergence-control tokens: a sub-group operation is keyed by the iterations of the
loops its token names (LLVM's ConvergentOperations.rst), also when -O2 has moved it out of them; an anchor's
lanes are the implementation's choice, so the reference refuses it; the module it JITs has no tokens left."""
from __future__ import annotations

import os

import numpy as np
import pytest

from reconverge.lowering.errors import CompileError
from reconverge.tools.targets.harness import InterpreterOptions, OracleOptions, load_program, run_target
from reconverge.tools.targets.oracle_sites import instrument, without_tokens

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
WATERFALL = os.path.join(ROOT, "tests", "kernels_tokens", "waterfall.ll")
VALUES = np.array([3, 1, 3, 2, 1, 1, 3, 2, 0, 0, 5, 5, 5, 1, 2, 3], np.int32)


def _run(kernel: str, target: str, options) -> np.ndarray:
    program = load_program(WATERFALL, "-O0")
    return run_target(target, program, kernel, [np.zeros(16, np.int32), VALUES], (16, 1, 1), (16, 1, 1), options)[0]


def _expected(loop_token: bool) -> list[int]:
    out = []
    for first in range(0, 16, 8):
        lanes = VALUES[first:first + 8]
        out += [int(lanes[lanes == v].sum()) if loop_token else int(lanes.sum()) for v in lanes]
    return out


@pytest.mark.parametrize("kernel", ["waterfall_loop_token", "waterfall_entry_token"])
def test_reference_follows_the_token(kernel):
    """Same CFG, the reduction in the loop's exit block: the loop token keeps it in the leaving iteration."""
    got = _run(kernel, "llvm", OracleOptions(8))
    assert got.tolist() == _expected(kernel == "waterfall_loop_token")
    assert got.tolist() == _run(kernel, "ir", InterpreterOptions(subgroup_size=8)).tolist()


def test_anchor_is_refused(tmp_path):
    text = open(WATERFALL).read().replace(
        '%l = call token @llvm.experimental.convergence.loop() [ "convergencectrl"(token %e) ]',
        "%l = call token @llvm.experimental.convergence.anchor()", 1)
    path = tmp_path / "anchor.ll"
    path.write_text(text)
    program = load_program(str(path), "-O0")
    with pytest.raises(CompileError, match="convergence.anchor"):
        run_target("llvm", program, "waterfall_loop_token", [np.zeros(16, np.int32), VALUES], (16, 1, 1),
                   (16, 1, 1), OracleOptions(8))


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
    text = without_tokens(open(WATERFALL).read())
    assert "call token" not in text and "convergencectrl" not in text
