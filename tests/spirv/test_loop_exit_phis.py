"""backend/spirv/loop_live_outs.demote_loop_exit_phis: the lavapipe launch form keeps no loop-exit phi of a
value computed in the loop it leaves (each is a slot loaded after the loop) and still computes what the
kernel computes (run on the IR interpreter, so this needs no Vulkan device); one whose inputs are all
computed before the loop stays a phi, and the kernel that showed why runs right on lavapipe."""
from __future__ import annotations

import json
import os

from reconverge.backend.spirv.launch import _with_live_outs_in_memory
from reconverge.backend.spirv.loop_live_outs import _escapes, _loops_of_blocks
from reconverge.lowering.interp import run_kernel
from reconverge.tools.fuzz.generator import ARG_NAMES, FuzzProgram
from reconverge.tools.fuzz.reducer import program_from_record
from reconverge.tools.fuzz.runner import Config, ProgramRun
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
                 if any(_escapes(v, block, loops) for v in phi.operands)]
    assert exit_phis == []
    args = program.make_args()
    run_kernel(launched, ir_arguments(launched, args), (program.global_size,), (program.local_size,), 0)
    assert [int(x) for x in args[0]] == record["expected"]["out"]


def test_a_loop_exit_phi_of_values_from_before_the_loop_stays_a_phi_on_lavapipe(tmp_path):
    """Fuzz convergence-70739 at -O2: an exit phi takes a sub-group scan computed before the loop at one
    exit and nothing at the other. Demoted to a slot, it made lavapipe leave every lane's out[] unwritten;
    such a value is the same in every pass, so it is now left a phi, and the kernel agrees with the
    reference (the interpreter at -O0: the llvm reference declines -g's scopes here)."""
    path = os.path.join(os.path.dirname(os.path.dirname(__file__)), "kernels_fuzzconv",
                        "lavapipe_invariant_loop_exit_phi_70739.cl")
    with open(path, encoding="utf-8") as f:
        source = f.read()
    program = FuzzProgram(70739, "convergence", source, "cl", 64, 16, arg_names=list(ARG_NAMES),
                          uses_subgroups=True, build_options=("-g",))
    outcome = ProgramRun(program, str(tmp_path)).run(Config("spirv", "-O2"))
    assert outcome.status == "ok", outcome.message
