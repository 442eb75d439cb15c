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


def test_a_value_carried_in_from_before_the_run_has_the_type_of_the_one_carried_round():
    """A group's operand that the next group takes from the group before it is carried round the loop by a
    phi; where the first group's operand (from before the run) has another type (a conversion's source),
    there is no run: the phi would merge two types (fuzz all-59946: spirv-O2 wrote SPIR-V that spirv-val
    refused, exit 0)."""
    from reconverge.lowering.ir.core import Const, Instr
    from reconverge.lowering.ir.types import I1, I32
    from reconverge.lowering.passes.reroll import _pattern
    x = Instr("add", [Const(I32, 1), Const(I32, 2)], I32)
    first = Instr("icmp", [x, Const(I32, 0)], I1, {"pred": "eq"})      # group 0, position 0
    at = {first: 0}
    assert _pattern(x, first, 1, at, 0) is None                        # i32 before the run, i1 carried
    same = Instr("add", [x, Const(I32, 0)], I32)
    assert _pattern(x, same, 1, {same: 0}, 0) == ("car", 0, x)


def test_the_fuzz_kernel_whose_carried_value_changed_type_compiles_to_valid_spirv(tmp_path):
    import os
    import subprocess

    from reconverge.tools.cli import main
    source = os.path.join(os.path.dirname(__file__), "reroll_carried_type_59946.cl")
    out = tmp_path / "k.spv"
    try:
        main(["compile", source, "-O2", "--emit", "spirv", "--verify-each", "-o", str(out)])
    except SystemExit as done:
        assert done.code in (0, None)
    checked = subprocess.run(["spirv-val", str(out)], capture_output=True, text=True)
    assert checked.returncode == 0, checked.stderr


def test_a_reroll_that_breaks_the_ir_is_an_error_without_verify_each(tmp_path, monkeypatch, capsys):
    """reroll's output is validated wherever it changed a function, in every compile (lowering.target
    CHECKED_WHEN_CHANGED): a slip there is a one-line internal error and no output file, not exit 0 with
    SPIR-V that spirv-val refuses. The slip is made here: the rerolled loop's first phi given an operand of
    another type."""
    from reconverge.lowering.ir.core import Const, Phi
    from reconverge.lowering.ir.types import I1
    from reconverge.lowering.passes import Pass
    from reconverge.tools.cli import main
    real_pass = PASSES["reroll"]
    real = real_pass.body

    def slipping(func, caps):
        changed = real(func, caps)
        if changed:
            phi = next(ins for ins in func.instructions() if isinstance(ins, Phi))
            phi.operands[0] = Const(I1, 1)
        return changed
    monkeypatch.setitem(PASSES, "reroll", Pass(real_pass.name, real_pass.form, slipping, real_pass.doc))
    source = tmp_path / "fold.cl"
    source.write_text(FOLD.replace("MID", "0"))
    out = tmp_path / "fold.spv"
    code = main(["compile", str(source), "-O2", "--emit", "spirv", "-o", str(out)])
    message = capsys.readouterr().err.strip()
    assert code not in (0, None) and not out.exists()
    assert "reroll" in message and "fold" in message and len(message.splitlines()) == 1, message


def test_a_carried_value_the_first_repeat_reads_two_ways_gets_a_phi_for_each():
    """Group 0 may read two values where every later group reads the previous group's one: InstCombine made
    `(uint)v` of `v = x * k + (y << 32)` read `x * k` while the product read v (fuzz vector-67103, a 64-bit chain
    of `v = v * ((uint)v | 1) + c` unrolled five times). One phi per position and initial value keeps both; the
    single phi the pass made started the product at x * k, and the high word came out wrong in every lane."""
    from reconverge.lowering.ir.parser import parse_module
    groups = "".join(f"""
    %t{k} = trunc i32 %{'a' if k == 0 else f'm{k - 1}'}
    %o{k} = or i32 %t{k}, 1
    %z{k} = zext i64 %o{k}
    %m{k} = mul i64 %{'b' if k == 0 else f'm{k - 1}'}, %z{k}""" for k in range(5))
    text = f"""kernel @k(ptr1 %out, i64 %x, i64 %y) {{
  block b0:
    %a = mul i64 %x, 4294587973
    %s = shl i64 %y, 32
    %b = add i64 %s, %a{groups}
    %h = lshr i64 %m4, 32
    %r = trunc i32 %h
    store i32 %r, %out
}}
"""
    before = parse_module(text, "t.nir").functions["k"]
    after = parse_module(text, "t.nir").functions["k"]
    assert PASSES["reroll"].run(after, CAPS["spirv"])
    verify(after, "reroll")
    assert _loops(after) == 1
    for x, y in ((3, 5), (0x123456789, 0xABCDEF), (1 << 40, 7)):
        got = []
        for func in (before, after):
            out = np.zeros(1, np.uint32)
            run_kernel(func, [out, x, y], (1,), (1,))
            got.append(int(out[0]))
        assert got[0] == got[1], (x, y)
