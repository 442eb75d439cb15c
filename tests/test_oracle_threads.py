"""The llvm reference target honours barriers, __local pointer parameters and atomics, and catches
accesses outside a buffer: tools/targets/jit_oracle.py runs a barrier kernel's work-groups on threads.

Expected buffers come from numpy (tests/spirv/test_spirv_barrier.py's cases, which also prove that
running the items one after another gets each of them wrong).
"""
import os
import subprocess
import sys

import numpy as np
import pytest

from reconverge.lowering.frontend.clang import compile_opencl
from reconverge.tools.targets.harness import LocalArg
from reconverge.tools.targets.jit_oracle import OracleError, compile_module, run_llvm_kernel
from tests.spirv.test_spirv_barrier import CASES, KERNELS, case_id, check, fresh_args
from tests.test_cli import ROOT


@pytest.mark.parametrize("level", ["-O0", "-O2"])
@pytest.mark.parametrize("case", CASES, ids=case_id)
def test_barrier_kernels_match_numpy_on_the_jit(case, level):
    ir = compile_opencl(os.path.join(KERNELS, case.file), level)
    assert compile_module(ir).uses_barrier
    args = fresh_args(case)
    expected = case.expect(args)
    run_llvm_kernel(ir, case.kernel, args, case.global_size, case.local_size)
    check(args, expected, f"llvm {case.kernel} {level}")


def source(tmp_path, text, name="k.cl"):
    path = tmp_path / name
    path.write_text(text)
    return str(path)


def test_a_barrier_in_divergent_control_flow_is_an_error_not_a_hang(tmp_path):
    ir = compile_opencl(source(tmp_path, """
        kernel void k(global int *out) {
            local int t[8];
            int lid = get_local_id(0);
            if (lid < 3) return;
            t[lid] = lid;
            barrier(CLK_LOCAL_MEM_FENCE);
            out[get_global_id(0)] = t[7 - lid];
        }"""), "-O0")
    with pytest.raises(OracleError, match=r"work-group \(0, 0, 0\).*barrier"):
        run_llvm_kernel(ir, "k", [np.zeros(16, np.int32)], 16, 8)


def test_a_barrier_reached_a_different_number_of_times_is_an_error(tmp_path):
    ir = compile_opencl(source(tmp_path, """
        kernel void k(global int *out) {
            int lid = get_local_id(0);
            for (int i = 0; i < lid; i++)
                barrier(CLK_LOCAL_MEM_FENCE);
            out[lid] = lid;
        }"""), "-O0")
    with pytest.raises(OracleError, match="barrier"):
        run_llvm_kernel(ir, "k", [np.zeros(4, np.int32)], 4, 4)


TILED = """
kernel void tiled(global float *out, global const float *in, local float *tile, local int *count) {
    int lid = get_local_id(0), n = get_local_size(0), gid = get_global_id(0);
    if (lid == 0) count[0] = 0;
    tile[lid] = in[gid];
    barrier(CLK_LOCAL_MEM_FENCE);
    atomic_add(count, 1);
    barrier(CLK_LOCAL_MEM_FENCE);
    out[gid] = tile[n - 1 - lid] * 2.0f + (float)count[0];
}
"""


@pytest.mark.parametrize("level", ["-O0", "-O2"])
def test_local_pointer_parameters_get_a_block_per_group(tmp_path, level):
    ir = compile_opencl(source(tmp_path, TILED), level)
    data = np.arange(96, dtype=np.float32) * 0.5
    out = np.zeros(96, np.float32)
    run_llvm_kernel(ir, "tiled", [out, data, LocalArg(32, np.float32), LocalArg(1, np.int32)], 96, 32)
    want = data.reshape(3, 32)[:, ::-1].reshape(-1) * 2 + 32
    np.testing.assert_array_equal(out, want)


ATOMICS = """
kernel void histogram(global uint *bins, global const uint *keys, global int *counter, global long *total,
                      global int *lo, global int *hi, global atomic_int *fetch) {
    local uint mine[8];
    int lid = get_local_id(0), gid = get_global_id(0);
    if (lid < 8) mine[lid] = 0;
    barrier(CLK_LOCAL_MEM_FENCE);
    uint k = keys[gid];
    atomic_inc(&mine[k % 8]);
    atomic_add(counter, 1);
    atom_add(total, (long)k << 20);
    atomic_min(lo, (int)k - 500);
    atomic_max(hi, (int)k);
    atomic_fetch_add_explicit(fetch, 2, memory_order_relaxed, memory_scope_device);
    int seen = *counter, next;
    do { next = seen + 0; } while (!atomic_compare_exchange_strong((global atomic_int *)counter, &seen, next));
    barrier(CLK_LOCAL_MEM_FENCE);
    if (lid < 8) atomic_add(&bins[lid], mine[lid]);
}
"""


@pytest.mark.parametrize("level", ["-O0", "-O2"])
def test_atomics_from_many_groups_on_one_address(tmp_path, level):
    ir = compile_opencl(source(tmp_path, ATOMICS), level)
    keys = np.random.default_rng(7).integers(0, 1000, 512).astype(np.uint32)
    args = [np.zeros(8, np.uint32), keys, np.zeros(1, np.int32), np.zeros(1, np.int64),
            np.array([1 << 30], np.int32), np.array([-1], np.int32), np.zeros(1, np.int32)]
    run_llvm_kernel(ir, "histogram", args, 512, 64)
    assert args[0].tolist() == np.bincount(keys % 8, minlength=8).tolist()
    assert args[2][0] == 512 and args[6][0] == 1024
    assert args[3][0] == int((keys.astype(np.int64) << 20).sum())
    assert args[4][0] == int(keys.min()) - 500 and args[5][0] == int(keys.max())


def test_contention_without_barriers_is_exact_too(tmp_path):
    """A kernel with no barrier runs its items one after another: atomics must still be right."""
    ir = compile_opencl(source(tmp_path, """
        kernel void count(global int *c, global int *x) { atomic_inc(c); atomic_xchg(x, (int)get_global_id(0)); }
    """), "-O2")
    c, x = np.zeros(1, np.int32), np.zeros(1, np.int32)
    run_llvm_kernel(ir, "count", [c, x], 1000, 10)
    assert c[0] == 1000 and x[0] == 999


def run_cli(*args):
    return subprocess.run([sys.executable, "-m", "reconverge.tools.cli", *args], capture_output=True, text=True, cwd=ROOT,
                          env=dict(os.environ, PYTHONPATH=ROOT))


@pytest.mark.parametrize("index", ["8", "-2000", "60000"])
def test_an_access_outside_a_buffer_is_an_error_on_the_llvm_target(tmp_path, index):
    path = source(tmp_path, f"kernel void k(global int *out, global const int *in) "
                            f"{{ out[get_global_id(0)] = in[{index}]; }}")
    result = run_cli("run", path, "--target", "llvm", "--global", "4", "--arg", "out=zeros:4:int32",
                     "--arg", "in=zeros:8:int32", "--out", str(tmp_path / "out"))
    assert result.returncode == 1, result.stderr
    assert "SIGSEGV" in result.stderr and "an out-of-bounds access" in result.stderr and len(result.stderr.splitlines()) == 1
    assert not (tmp_path / "out").exists()


def test_the_last_element_is_inside(tmp_path):
    ir = compile_opencl(source(tmp_path, "kernel void k(global int *out, global const int *in) "
                                         "{ out[get_global_id(0)] = in[7 - get_global_id(0)]; }"), "-O0")
    out, data = np.zeros(8, np.int32), np.arange(8, dtype=np.int32)
    run_llvm_kernel(ir, "k", [out, data], 8, 8)
    assert out.tolist() == data[::-1].tolist()


def test_an_unused_function_calling_an_unknown_builtin_does_not_stop_the_kernel(tmp_path):
    ir = compile_opencl(source(tmp_path, """
        float helper(float x) { return erfc(x); }
        kernel void unused(global float *o) { o[0] = helper(o[1]); }
        kernel void used(global float *o) { o[get_global_id(0)] = 2.0f; }
    """), "-O0")
    out = np.zeros(4, np.float32)
    run_llvm_kernel(ir, "used", [out], 4, 4)
    assert out.tolist() == [2.0] * 4
    with pytest.raises(OracleError, match="_Z4erfcf"):
        run_llvm_kernel(ir, "unused", [out], 4, 4)
