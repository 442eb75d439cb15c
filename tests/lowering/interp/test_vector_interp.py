"""The lock-step vector interpreter (lowering.interp.vector) against the per-work-item one, the JIT and numpy,
on fixed slices: corpus kernels, random expressions, the barrier kernels, and its error reports."""
from __future__ import annotations

import glob
import os
import sys

import numpy as np
import pytest

from reconverge.lowering.interp import InterpreterError, run_kernel
from reconverge.lowering.interp.vector import run_vector_kernel
from reconverge.lowering.ir.parser import parse_module

ROOT = os.path.join(os.path.dirname(__file__), os.pardir, os.pardir, os.pardir)
CORPUS = sorted(glob.glob(os.path.join(ROOT, "tests", "kernels", "*.cl")))[::6]     # a fixed slice


@pytest.mark.parametrize("path", CORPUS, ids=[os.path.basename(p)[:-3] for p in CORPUS])
def test_corpus_slice_matches_the_per_item_interpreter(path):
    from reconverge.lowering.frontend.clang import compile_opencl
    from reconverge.lowering.pipeline import compile_llvm
    from reconverge.tools.testing.kernel_spec import parse_specs
    funcs = compile_llvm(compile_opencl(path, "-O2"), source_name=path, kernel=None)
    for spec in parse_specs(path):
        want, got = spec.make_args(7), spec.make_args(7)
        run_kernel(funcs[spec.kernel], want, spec.global_size, spec.local_size, spec.global_offset)
        run_vector_kernel(funcs[spec.kernel], got, spec.global_size, spec.local_size, spec.global_offset)
        for w, g in zip(want, got):
            if isinstance(w, np.ndarray):
                assert w.tobytes() == g.tobytes(), (path, spec.kernel)


@pytest.mark.filterwarnings("ignore::RuntimeWarning")
@pytest.mark.parametrize("seed", (100,))
def test_random_expressions_match_the_jit(tmp_path, seed):
    """Casts, compares, selects, integer and float builtins of every width (test_interp_random's generator)."""
    sys.path.insert(0, os.path.dirname(__file__))
    try:
        from test_interp_random import EXPRS, N, make_args, random_kernel
    finally:
        sys.path.remove(os.path.dirname(__file__))
    from reconverge.lowering.frontend.clang import compile_opencl
    from reconverge.tools.targets import jit_oracle
    from reconverge.tools.targets.harness import load_program
    path = tmp_path / f"rnd{seed}.cl"
    path.write_text(random_kernel(seed))
    want, got = make_args(seed), make_args(seed)
    jit_oracle.run_llvm_kernel(compile_opencl(str(path), "-O2"), "rnd", want, N, 4)
    run_vector_kernel(load_program(str(path), "-O2").function("rnd"), got, N, 4)
    bad = np.flatnonzero(want[0] != got[0])
    assert not bad.size, f"seed {seed}: expression {int(bad[0] % EXPRS)} differs"


def test_barrier_kernels_match_numpy():
    from reconverge.lowering.program import compile_path
    from reconverge.tools.testing.barrier_cases import CASES, KERNELS, check, fresh_args
    for case in CASES:
        func = compile_path(os.path.join(KERNELS, case.file), "-O2")[case.kernel]
        args = fresh_args(case)
        expected = case.expect(args)
        run_vector_kernel(func, args, case.global_size, case.local_size)
        check(args, expected, f"vector interpreter {case.kernel}")


KERNEL = """
kernel @k(ptr1 %out, i32 %n) {{
  block b0:
    %g = workitem.global_id i64 i32 0
    %g32 = trunc i32 %g
    %o = mul i64 %g, 4
    %p = ptradd ptr1 %out, %o
    %c = icmp.ult i32 %g32, %n
  if %c {{
    block b1:
{then}
  }} else {{
    block b2:
  }}
  block b3:
}}
"""


def _kernel(then: str):
    return parse_module(KERNEL.format(then=then)).functions["k"]


def test_division_by_zero_only_in_inactive_lanes_is_no_error():
    func = _kernel("      %d = sub i32 %g32, 2\n      %q = udiv i32 100, %d\n      store i32 %q, %p, align 4")
    out = np.zeros(8, np.uint32)
    run_vector_kernel(func, [out, np.int32(2)], 8, 8)          # lane 2 would divide by zero: it is inactive
    assert out[:2].tolist() == [100 // (2 ** 32 - 2), 100 // (2 ** 32 - 1)] and not out[2:].any()
    with pytest.raises(InterpreterError, match=r"block b1, instruction 1 \(udiv %q\), work-item \(2\): udiv by zero"):
        run_vector_kernel(func, [out, np.int32(3)], 8, 8)


def test_out_of_bounds_store_names_the_instruction_and_work_item():
    func = _kernel("      store i32 1, %p, align 4")
    with pytest.raises(InterpreterError, match=r"instruction 0 \(store\), work-item \(4\): out-of-bounds store"):
        run_vector_kernel(func, [np.zeros(4, np.uint32), np.int32(8)], 8, 8)


def test_private_slots_are_bounds_checked_per_lane():
    func = _kernel("      %a = alloca ptr0 align 4, size 4\n      %a1 = ptradd ptr0 %a, i64 4\n"
                   "      store i32 1, %a1, align 4")
    with pytest.raises(InterpreterError, match=r"work-item \(0\): out-of-bounds store .* past the end of private"):
        run_vector_kernel(func, [np.zeros(8, np.uint32), np.int32(8)], 8, 8)


def test_barrier_reached_by_part_of_a_group_is_an_error():
    func = _kernel("      barrier i32 1")
    run_vector_kernel(func, [np.zeros(8, np.uint32), np.int32(8)], 8, 4)    # whole groups: fine
    run_vector_kernel(func, [np.zeros(8, np.uint32), np.int32(4)], 8, 4)    # group 1 skips it entirely
    with pytest.raises(InterpreterError, match=r"barrier not reached by every work-item of the group "
                                               r"\(work-item \(2\)"):
        run_vector_kernel(func, [np.zeros(8, np.uint32), np.int32(2)], 8, 4)


def test_step_limit_stops_an_endless_loop():
    func = parse_module("""
kernel @k(ptr1 %out) {
  block b0:
  loop {
    block b1:
      %x = load i32 %out, align 4
  }
  block b2:
}
""").functions["k"]
    with pytest.raises(InterpreterError, match=r"step limit of 1000 per work-item exceeded"):
        run_vector_kernel(func, [np.zeros(1, np.uint32)], 4, 4, max_steps=1000)


def test_atomics_apply_in_lane_order():
    """atomic_inc hands out old values in lane order (the order the sequential oracle gives too)."""
    func = parse_module("""
kernel @k(ptr1 %out, ptr1 %ctr) {
  block b0:
    %g = workitem.global_id i64 i32 0
    %old = atomic.inc i32 %ctr, scope "device", order "relaxed"
    %o = mul i64 %g, 4
    %p = ptradd ptr1 %out, %o
    store i32 %old, %p, align 4
}
""").functions["k"]
    out, ctr = np.zeros(64, np.uint32), np.zeros(1, np.uint32)
    run_vector_kernel(func, [out, ctr], 64, 16)
    assert out.tolist() == list(range(64)) and ctr[0] == 64
