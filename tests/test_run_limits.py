"""`run`'s contract with the user: the reference does not depend on our front end, barrier kernels run in
lock step, arguments are checked against the kernel (dtype, __local sizes, sizes that cannot be held),
and no run can hang or outlive its command (--max-steps, --timeout, a child that dies with its parent)."""
import os
import signal
import subprocess
import sys
import time

import numpy as np
import pytest

from tests.spirv.test_spirv_barrier import KERNELS as BARRIER_KERNELS
from tests.test_cli import ATOMIC, ROOT, assert_one_line_error, run, write

ENDLESS = "kernel void spin(global int *out, int n) { int i = 0; while (i != n) i += 2; out[0] = i; }\n"
# lavapipe stops looping after 65,535 passes per subgroup, which `run --target spirv` turns into an error
# (see the README), so an endless loop would end there: this kernel is merely long, with loops shorter than that (6e10 iterations over 2^20 work-items), everywhere
LONG = ("kernel void spin(global int *out, int n) { int acc = 0, g = get_global_id(0); "
        "for (int i = 0; i < n; i++) acc += i ^ g; if (acc == 12345) out[0] = acc; }\n")


def test_the_llvm_target_runs_what_our_reader_refuses(tmp_path):
    source = write(tmp_path, "atom.ll", ATOMIC)
    ok = run("run", source, "--target", "llvm", "--global", "8", "--arg", "out=zeros:1:int32",
             "--out", str(tmp_path / "out"))
    assert ok.returncode == 0, ok.stderr
    assert np.load(tmp_path / "out" / "out.npy").tolist() == [-2]     # 8 times x = ~(x & 1), from 0
    refused = run("run", source, "--target", "ir", "--global", "8", "--arg", "out=zeros:1:int32",
                  "--out", str(tmp_path / "out2"))
    assert_one_line_error(refused, 1, "atomicrmw")


@pytest.mark.parametrize("target", ["ir", "llvm"])
def test_a_barrier_kernel_is_right_from_the_command_line(tmp_path, target):
    data = np.random.default_rng(3).integers(-1000, 1000, 96).astype(np.int32)
    np.save(tmp_path / "in.npy", data)
    result = run("run", os.path.join(BARRIER_KERNELS, "prefix_scan.cl"), "--kernel", "scan_two_barriers",
                 "--target", target, "--global", "96", "--local", "32", "--arg", "out=zeros:96:int32",
                 "--arg", f"in=@{tmp_path / 'in.npy'}", "--out", str(tmp_path / "out"))
    assert result.returncode == 0, result.stderr
    want = np.cumsum(data.reshape(3, 32).astype(np.int64), axis=1).astype(np.int32).reshape(-1)
    assert np.load(tmp_path / "out" / "out.npy").tolist() == want.tolist()


LOCAL_PARAM = """
kernel void rev(global float *out, global const float *in, local float *tile) {
    int lid = get_local_id(0), n = get_local_size(0);
    tile[lid] = in[get_global_id(0)];
    barrier(CLK_LOCAL_MEM_FENCE);
    out[get_global_id(0)] = tile[n - 1 - lid];
}
"""


@pytest.mark.parametrize("target", ["ir", "llvm"])
def test_local_pointer_parameters_from_the_command_line(tmp_path, target):
    source = write(tmp_path, "rev.cl", LOCAL_PARAM)
    np.save(tmp_path / "in.npy", np.arange(64, dtype=np.float32))
    result = run("run", source, "--target", target, "--global", "64", "--local", "16",
                 "--arg", "out=zeros:64:float32", "--arg", f"in=@{tmp_path / 'in.npy'}",
                 "--arg", "tile=local:16:float32", "--out", str(tmp_path / "out"))
    assert result.returncode == 0, result.stderr
    assert np.load(tmp_path / "out" / "out.npy").tolist() == np.arange(64).reshape(4, 16)[:, ::-1].reshape(-1).tolist()
    wrong = run("run", source, "--target", target, "--global", "64", "--local", "16", "--arg", "out=zeros:64:float32",
                "--arg", f"in=@{tmp_path / 'in.npy'}", "--arg", "tile=zeros:16:float32", "--out", str(tmp_path / "o2"))
    assert_one_line_error(wrong, 2, "tile", "__local", "local:COUNT:DTYPE")
    wrong = run("run", source, "--target", target, "--global", "64", "--local", "16", "--arg", "out=local:64:float32",
                "--arg", f"in=@{tmp_path / 'in.npy'}", "--arg", "tile=local:16:float32", "--out", str(tmp_path / "o3"))
    assert_one_line_error(wrong, 2, "out", "not __local")


def test_a_buffer_of_the_wrong_dtype_is_refused(tmp_path):
    source = write(tmp_path, "k.cl", "kernel void k(global int *out, global const float4 *v) "
                                     "{ out[get_global_id(0)] = (int)v[0].x; }\n")
    np.save(tmp_path / "f.npy", np.zeros(4, np.float32))
    np.save(tmp_path / "i.npy", np.zeros(4, np.int32))
    common = ["run", source, "--target", "ir", "--global", "4", "--out", str(tmp_path / "out")]
    assert_one_line_error(run(*common, "--arg", f"out=@{tmp_path / 'f.npy'}", "--arg", f"v=@{tmp_path / 'f.npy'}"),
                          1, "f.npy", "'out'", "float32", "int*", "int32")
    assert_one_line_error(run(*common, "--arg", "out=zeros:4:int32", "--arg", f"v=@{tmp_path / 'i.npy'}"),
                          1, "'v'", "int32", "float4*", "float32")
    assert run(*common, "--arg", "out=zeros:4:int32", "--arg", f"v=@{tmp_path / 'f.npy'}").returncode == 0


def test_sizes_nobody_can_hold_are_refused_before_allocating(tmp_path):
    source = write(tmp_path, "k.cl", "kernel void k(global int *out) { out[0] = 1; }\n")
    result = run("run", source, "--target", "ir", "--global", "1", "--arg", "out=zeros:1000000000000000:int32",
                 "--out", str(tmp_path / "o"))
    assert_one_line_error(result, 2, "out", "bytes")
    result = run("run", source, "--target", "ir", "--global", "1000000000000", "--local", "1",
                 "--arg", "out=zeros:1:int32", "--out", str(tmp_path / "o"))
    assert_one_line_error(result, 1, "work-items")


def test_max_steps_names_the_option(tmp_path):
    source = write(tmp_path, "spin.cl", ENDLESS)
    common = ["run", source, "--target", "ir", "--global", "1", "--arg", "out=zeros:1:int32", "--out",
              str(tmp_path / "o")]
    assert_one_line_error(run(*common, "--arg", "n=3", "--max-steps", "1000"), 1, "step limit of 1000",
                          "--max-steps")
    assert run(*common, "--arg", "n=4000", "--max-steps", "0").returncode == 0
    assert_one_line_error(run(*common, "--arg", "n=4", "--max-steps", "-1"), 2, "--max-steps -1")
    assert_one_line_error(run("run", source, "--target", "llvm", "--global", "1", "--arg", "out=zeros:1:int32",
                              "--arg", "n=4", "--max-steps", "5", "--out", str(tmp_path / "o")), 2, "--target ir")


@pytest.mark.parametrize("target", ["llvm", "ir", "spirv"])
def test_timeout_stops_an_endless_kernel(tmp_path, target):
    source = write(tmp_path, "spin.cl", LONG)
    extra = ["--max-steps", "0"] if target == "ir" else []
    started = time.monotonic()
    result = run("run", source, "--target", target, "--global", "1048576", "--arg", "out=zeros:1:int32",
                 "--arg", "n=60000",
                 "--timeout", "2", "--out", str(tmp_path / "o"), *extra)
    assert_one_line_error(result, 1, "did not finish within 2 s")
    assert time.monotonic() - started < 60 and not (tmp_path / "o").exists()


def test_the_jit_child_dies_with_its_parent(tmp_path):
    source = write(tmp_path, "spin.cl", ENDLESS)
    proc = subprocess.Popen([sys.executable, "-m", "reconverge.tools.cli", "run", source, "--target", "llvm", "--global", "1",
                             "--arg", "out=zeros:1:int32", "--arg", "n=3", "--out", str(tmp_path / "o")],
                            cwd=ROOT, env=dict(os.environ, PYTHONPATH=ROOT), stderr=subprocess.DEVNULL)
    child = None
    deadline = time.monotonic() + 60
    while child is None and time.monotonic() < deadline:
        time.sleep(0.2)
        children = open(f"/proc/{proc.pid}/task/{proc.pid}/children").read().split()
        child = int(children[0]) if children else None
    assert child is not None, "the llvm target did not fork a child"
    os.kill(proc.pid, signal.SIGKILL)
    proc.wait()
    deadline = time.monotonic() + 30
    while time.monotonic() < deadline:
        try:
            state = open(f"/proc/{child}/stat").read().split(")")[-1].split()[0]
        except FileNotFoundError:
            return
        if state == "Z":
            return
        time.sleep(0.2)
    os.kill(child, signal.SIGKILL)
    pytest.fail("the JIT child outlived the reconverge process")


BYVAL = """
typedef struct { int a; float b; short c[3]; } S;
kernel void k(global float *o, S s) { o[get_global_id(0)] = s.a * s.b + s.c[2] + (float)get_global_id(0); }
"""


def test_a_struct_passed_by_value_runs_on_ir(tmp_path):
    source = write(tmp_path, "st.cl", BYVAL)
    layout = np.dtype([("a", "<i4"), ("b", "<f4"), ("c", "<i2", (3,)), ("pad", "<i2")])
    value = np.zeros((), layout)
    value["a"], value["b"], value["c"] = 3, 2.5, [1, 2, 7]
    np.save(tmp_path / "s.npy", value)
    np.save(tmp_path / "short.npy", np.zeros(3, np.int32))
    common = ["run", source, "--global", "4", "--arg", "o=zeros:4:float32", "--out", str(tmp_path / "out")]
    result = run(*common, "--target", "ir", "--arg", f"s=@{tmp_path / 's.npy'}")
    assert result.returncode == 0, result.stderr
    assert np.load(tmp_path / "out" / "o.npy").tolist() == [14.5, 15.5, 16.5, 17.5]
    assert sorted(os.listdir(tmp_path / "out")) == ["o.npy"]            # the struct is not a result
    assert_one_line_error(run(*common, "--target", "ir", "--arg", f"s=@{tmp_path / 'short.npy'}"), 1,
                          "12 bytes", "16")
    assert_one_line_error(run(*common, "--target", "ir", "--arg", "s=zeros:16:uint8"), 2, "by value")
    assert_one_line_error(run(*common, "--target", "llvm", "--arg", f"s=@{tmp_path / 's.npy'}"), 1,
                          "struct by value")


UNUSED_IMAGE = """
float4 helper(read_only image2d_t img, sampler_t s) { return read_imagef(img, s, (int2)(0, 0)); }
kernel void uses_image(read_only image2d_t img, sampler_t s, global float4 *o) { o[0] = helper(img, s); }
kernel void plain(global int *o) { o[get_global_id(0)] = 3 * (int)get_global_id(0); }
"""


@pytest.mark.parametrize("target", ["llvm", "ir", "spirv"])
def test_only_what_the_kernel_reaches_counts(tmp_path, target):
    source = write(tmp_path, "mixed.cl", UNUSED_IMAGE)
    result = run("run", source, "--kernel", "plain", "--target", target, "--global", "4",
                 "--arg", "o=zeros:4:int32", "--out", str(tmp_path / "out"))
    assert result.returncode == 0, result.stderr
    assert np.load(tmp_path / "out" / "o.npy").tolist() == [0, 3, 6, 9]
    compiled = run("compile", source, "--kernel", "plain", "--emit", "spirv", "-o", str(tmp_path / "p.spv"))
    assert compiled.returncode == 0, compiled.stderr
    refused = run("compile", source, "--kernel", "uses_image")
    assert refused.returncode == 1 and "@uses_image" in refused.stderr and len(refused.stderr.splitlines()) == 1
