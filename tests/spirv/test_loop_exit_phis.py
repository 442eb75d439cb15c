"""backend/spirv/loop_live_outs.demote_loop_exit_phis: the lavapipe launch form keeps no loop-exit phi (each
is a slot loaded after the loop) and still computes what the kernel computes (run on the IR interpreter,
so this needs no Vulkan device)."""
from __future__ import annotations

import json
import os

from reconverge.backend.spirv.launch import _with_live_outs_in_memory
from reconverge.backend.spirv.loop_live_outs import _loops_of_blocks
from reconverge.lowering.interp import run_kernel
from reconverge.tools.fuzz.reducer import program_from_record
from reconverge.tools.fuzz.runner import ProgramRun
from reconverge.tools.targets.harness import ir_arguments

CASE = os.path.join(os.path.dirname(os.path.dirname(__file__)), "fuzz_regressions",
                    "spirv-loop-exit-phi-of-an-irreducible-loop")


def test_the_lavapipe_form_has_no_loop_exit_phi_and_computes_the_same(tmp_path):
    with open(CASE + ".json", encoding="utf-8") as f:
        record = json.load(f)
    with open(CASE + ".cl", encoding="utf-8") as f:
        program = program_from_record(record, f.read())
    func = ProgramRun(program, str(tmp_path)).load("-O0").function(program.kernel, "spirv")
    launched = _with_live_outs_in_memory(func)
    loops: dict = {}
    _loops_of_blocks(launched.body, (), loops)
    exit_phis = [phi for block in launched.all_blocks() for phi in block.phis()
                 if any(loop not in loops.get(block, ()) for pred in phi.blocks for loop in loops.get(pred, ()))]
    assert exit_phis == []
    args = program.make_args()
    run_kernel(launched, ir_arguments(launched, args), (program.global_size,), (program.local_size,), 0)
    assert [int(x) for x in args[0]] == record["expected"]["out"]
