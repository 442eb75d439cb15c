"""lowering/passes/reroll.py: the straight-line repeats clang -O2 leaves of a fully unrolled loop become a
loop again, and the kernel computes what it computed before (on the IR interpreter); a value of a
middle repeat used elsewhere ends the run there, so the result is still the same."""
from __future__ import annotations

import numpy as np

from reconverge.lowering.interp import run_kernel
from reconverge.lowering.ir.core import Loop, cf_lists
from reconverge.lowering.ir.validate import verify
from reconverge.lowering.passes import PASSES
from reconverge.lowering.target import CAPS
from reconverge.tools.targets.harness import load_program

FOLD = """
kernel void fold(global const uint *in, global uint *out)
{
    uint gid = get_global_id(0);
    uint acc = gid, mid = 0;
    for (uint i = 0; i < 12; i++) {
        acc = acc * 31u + (in[i] ^ gid);
        if (MID && i == 5)
            mid = acc;
    }
    out[2 * gid] = acc;
    out[2 * gid + 1] = mid;
}
"""


def _loops(func) -> int:
    return sum(isinstance(node, Loop) for nodes in cf_lists(func) for node in nodes)


def _rolled_and_run(tmp_path, mid: int):
    path = tmp_path / "fold.cl"
    path.write_text(FOLD.replace("MID", str(mid)))
    program = load_program(str(path), "-O2")
    before = program.functions["fold"]
    after = before.clone()
    assert _loops(before) == 0                          # clang unrolled it all
    assert PASSES["reroll"].run(after, CAPS["spirv"])
    verify(after, "reroll")
    data = np.random.RandomState(7).randint(0, 1 << 32, 16, dtype=np.uint64).astype(np.uint32)
    results = []
    for func in (before, after):
        out = np.zeros(64, np.uint32)
        run_kernel(func, [data.copy(), out], (32,), (8,))
        results.append(out)
    assert np.array_equal(results[0], results[1]) and len(set(results[0].tolist())) > 16
    return after


def test_an_unrolled_fold_is_one_loop_again(tmp_path):
    func = _rolled_and_run(tmp_path, 0)
    assert _loops(func) == 1
    assert sum(1 for _ in func.instructions()) < 30      # 12 repeats of 5 instructions before


def test_a_middle_value_used_after_the_repeats_ends_a_run_there(tmp_path):
    func = _rolled_and_run(tmp_path, 1)
    assert _loops(func) >= 1
