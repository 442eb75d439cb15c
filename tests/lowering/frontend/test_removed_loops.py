"""lowering/frontend/removed_loops.py: which source loops around a convergent operation LLVM's optimiser
removed, read from clang's module before its passes and the optimised one, and the refusal that follows."""
from __future__ import annotations

import os
import re

import pytest

from reconverge.lowering.errors import CompileError
from reconverge.lowering.frontend.clang import compile_opencl
from reconverge.lowering.frontend.removed_loops import at_risk_loops, removed_loops
from reconverge.lowering.pipeline import load_module
from reconverge.lowering.program import load_program

ROOT = os.path.join(os.path.dirname(os.path.abspath(__file__)), os.pardir, os.pardir, os.pardir)

# one loop of each shape, each with a sub-group operation (line 11: on a break path)
FORMS = """__kernel void k(__global uint *out, __global const uint *in, uint n)
{
    uint gid = get_global_id(0);
    uint v = in[gid];
    while (1) { v += sub_group_reduce_add(v); break; }
    for (uint i = 0; i < 1u; i++) { v += sub_group_reduce_add(v); }
    do { v += sub_group_reduce_add(v); } while (0);
    uint w = 0;
    do { w += sub_group_reduce_add(v); v >>= 1; } while (v > 3u);
    while (v < n) v += sub_group_reduce_add(v) + 1;
    for (uint j = 0;; j++) {
        if (j == (v & 7u)) { w += sub_group_reduce_add(w); break; }
        v >>= 1;
    }
    out[gid] = v + w;
}
"""

# the one-exit loop of tests/kernels_fuzzconv/scopes_one_exit_loop_removed.cl, in a function the kernel calls
INLINED = """static uint leave(uint v)
{
    uint r = 0;
    for (uint j = 0;; j++) {
        if (j == (v & 7u)) { r = sub_group_reduce_add(v); break; }
    }
    return r;
}
__kernel void k(__global uint *out, __global const uint *in)
{
    uint gid = get_global_id(0);
    out[gid] = leave(in[gid]);
}
"""


def _unoptimized(path: str) -> str:
    return compile_opencl(path, "-O2", ("-g", "-Xclang", "-disable-llvm-passes"))


def test_a_loop_that_can_meet_lanes_of_several_passes_is_at_risk(tmp_path):
    """A loop without a back edge in clang's code (`while (1) {...; break;}`, `do {} while (0)`) has no
    `!llvm.loop`; one that runs one pass at most (`for (i = 0; i < 1; i++)`, which -O2 removes as it proves
    the back edge never taken) merges nothing. The others are at risk, an operation in the loop too: -O2
    can sink it onto a break path (redteam b01). Compiled again without KEEP_LOOPS' passes, none is lost."""
    path = tmp_path / "forms.cl"
    path.write_text(FORMS)
    risky = at_risk_loops(_unoptimized(str(path)))
    assert [(r.start, r.end) for r in risky] == [((9, 5), (9, 64)), ((10, 5), (10, 50)), ((11, 5), (14, 5))]
    from reconverge.lowering.pipeline import KEEP_LOOPS
    assert removed_loops(_unoptimized(str(path)), compile_opencl(str(path), "-O2", ("-g", *KEEP_LOOPS))) == ()


def test_a_kept_loop_whose_loop_node_llvm_dropped_is_found_by_its_code():
    """waterfall_store's `for (;;)` keeps its loop at -O2, but SimplifyCFG folds its latch into its one
    block and drops the `!llvm.loop` that named it: the loop is found by its located code instead."""
    path = os.path.join(ROOT, "examples", "reconvergence", "waterfall.cl")
    optimized = compile_opencl(path, "-O2", ("-g",))
    assert [r.start for r in at_risk_loops(_unoptimized(path)) if r.start[0] == 26] == [(26, 5)]
    body = re.search(r"^define [^\n]*@waterfall_store\(.*?^\}", optimized, re.M | re.S)
    assert body is not None and "!llvm.loop" not in body.group()
    assert removed_loops(_unoptimized(path), optimized) == ()


def test_a_loop_removed_from_around_an_inlined_call_is_found_through_its_call_site(tmp_path):
    path = tmp_path / "inlined.cl"
    path.write_text(INLINED)
    with pytest.raises(CompileError, match=r"inlined.cl: @k: block \w+: subgroup: its -g scope puts it in the "
                                           r"loop at inlined.cl:4, which the optimiser removed"):
        load_program(str(path), "-O2", build_options=("-g",)).function("k")
    assert load_program(str(path), "-O2", build_options=("-g",), convergence="cfg").function("k")


@pytest.mark.parametrize("kind", ["ll", "bc"])
def test_an_ll_file_optimised_here_is_checked_against_itself(tmp_path, kind):
    """.ll and .bc input at -O2 run LLVM's pipeline through llvmlite: the input is the module before the passes."""
    source = os.path.join(ROOT, "tests", "kernels_fuzzconv", "scopes_one_exit_loop_removed.cl")
    path = tmp_path / f"one_exit.{kind}"
    text = compile_opencl(source, "-O0", ("-g",))
    if kind == "ll":
        path.write_text(text)
    else:
        import llvmlite.binding as llvm
        path.write_bytes(llvm.parse_assembly(text).as_bitcode())
    assert [str(r) for r in load_module(str(path), "-O2").removed_loops] == ["scopes_one_exit_loop_removed.cl:9"]
    assert getattr(load_module(str(path), "-O0"), "removed_loops", ()) == ()
    with pytest.raises(CompileError, match="which the optimiser removed"):
        load_program(str(path), "-O2").function("k")


# each loop's break path holds a reduction; the comment says whether its lanes can leave in different passes
PASSES = """__kernel void k(__global uint *out, __global const uint *in, uint n)
{
    uint gid = get_global_id(0);
    uint v = in[gid], w = 0, c = in[gid + 64u];
    for (uint j = 0; j < 8u; j++) {             // 5: the test reads nothing the loop changes: first pass
        if (in[gid + 32u] > 3u) { w += sub_group_reduce_add(v); break; }
        v += 3u;
    }
    for (uint j = 0; j < 8u; j++) {             // 9: the test reads the counter
        if (j == (c & 7u)) { w += sub_group_reduce_add(v); break; }
    }
    for (uint j = 0; j < 8u; j++) {             // 12: an invariant test, but reached in one pass only
        if (j == 3u) { if (c > 5u) { w += sub_group_reduce_add(v); break; } }
    }
    for (uint j = 0; j < 8u; j++) {             // 15: the loop writes memory the test reads
        out[gid + j] = j;
        if (in[gid + 32u] > 3u) { w += sub_group_reduce_add(v); break; }
    }
    for (uint j = 0; j < 8u; j++) {             // 19: a sub-group operation's value changes with the lanes left
        if (sub_group_any(c > 5u)) { w += sub_group_reduce_add(v); break; }
        c += j;
    }
    for (uint j = 0; j < 8u; j++) {             // 23: a local the loop writes
        if (c > 5u) { w += sub_group_reduce_add(v); break; }
        c += j;
    }
    for (uint j = 0; j < 8u; j++) {             // 27: a math built-in of a local the loop does not write
        if (popcount(c) > 5u) { w += sub_group_reduce_add(v); break; }
        v += j;
    }
    out[gid] = v + w;
}
"""


def test_a_loop_whose_lanes_all_leave_in_its_first_pass_is_not_at_risk(tmp_path):
    """lowering.frontend.first_pass_exits: an exit towards the operation tested in every pass on a value
    the loop does not change is taken in the first pass or never; anything else may merge passes."""
    path = tmp_path / "passes.cl"
    path.write_text(PASSES)
    assert sorted(r.start[0] for r in at_risk_loops(_unoptimized(str(path)))) == [9, 12, 15, 19, 23]


# each loop holds a reduction; the comment says whether it can run more than one pass
ONE_PASS = """__kernel void k(__global uint *out, __global const uint *in, uint n)
{
    uint gid = get_global_id(0);
    uint v = in[gid], w = 0;
    uint b1 = (in[gid + 1u]) % 2u + 0u;
    for (uint j = 0; j < b1; j++) {             // 6: the bound is at most 1 (`% 2u`): one pass at most
        w += sub_group_reduce_add(v + j);
    }
    uint b2 = ((uint)(v > 5u) / (v | 1u)) % 3u;
    for (uint j = 0; j < b2; j++) {             // 10: at most 1 (a compare, divided, then % 3u)
        w += sub_group_reduce_add(v + j);
    }
    uint b3 = (in[gid + 2u]) % 3u;
    for (uint j = 0; j < b3; j++) {             // 14: up to 2: two passes
        w += sub_group_reduce_add(v + j);
    }
    uint g = 0u;
    do {                                        // 18: `&&` with a false constant: one pass
        g++;
        w += sub_group_reduce_add(v + g);
    } while (g < 4u && (as_int(0x7fffffffu) <= 24));
    uint h = 0u, b4 = (in[gid + 3u]) % 2u;
    do {                                        // 23: the counter second in the `&&`, bound at most 1
        h++;
        w += sub_group_reduce_add(v + h);
    } while ((gid & 1u) == 0u && h < b4);
    uint m = 0u, b5 = (in[gid + 4u]) % 2u;
    while (m != b5) {                           // 28: `!=` a bound that is not one constant: at risk
        m++;
        w += sub_group_reduce_add(v + m);
    }
    out[gid] = v + w;
}
"""


def test_a_loop_whose_bound_allows_one_pass_at_most_is_not_at_risk(tmp_path):
    """first_pass_exits.at_most_one_pass with bounds of known largest value (`% 2u`, a compare), a `&&`
    holding the counter second or a false constant (fuzz convergence 31038, 31056, 31100, 31118, 31158:
    LLVM proved each loop runs one pass and dropped its back edge, and the kernels were refused)."""
    path = tmp_path / "one_pass.cl"
    path.write_text(ONE_PASS)
    assert sorted(r.start[0] for r in at_risk_loops(_unoptimized(str(path)))) == [14, 28]
