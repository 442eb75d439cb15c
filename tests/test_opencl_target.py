"""`run --target opencl`: the original OpenCL C on an installed driver (PoCL in CI), an oracle that shares
nothing with our compiler, compared lane by lane with the llvm reference over the whole corpus at -O0.

Known differences, checked by hand (README, "The opencl target"): PoCL contracts a * b + c into fma
(OpenCL C's default FP_CONTRACT ON; with `#pragma OPENCL FP_CONTRACT OFF` float_branchy and
matrix_small agree bit for bit), its geometric built-ins (dot, length, normalize) round differently, and
its fract(-inf) is +0.0.
"""
import glob
import os

import numpy as np
import pytest

from reconverge.tools.targets.harness import compare, load_program, run_target
from reconverge.tools.testing.kernel_spec import parse_specs
from tests.test_cli import ROOT, assert_one_line_error, run, write
from tests.test_run_limits import LOCAL_PARAM

CORPUS = sorted(glob.glob(os.path.join(ROOT, "tests", "kernels", "*.cl"))) + \
    sorted(glob.glob(os.path.join(ROOT, "examples", "*.cl")))
APPROXIMATE = {"float_math"}        # calls exp, log, sin, pow...: the same 4-ULP budget lavapipe gets
CONTRACTED = {"float_branchy": "PoCL fuses a * b + c into fma (FP_CONTRACT ON is OpenCL C's default)",
              "matrix_small": "PoCL fuses a * b + c into fma (FP_CONTRACT ON is OpenCL C's default)",
              "vector_float4": "PoCL fuses a * b + c, and its dot/length/normalize round differently",
              "float_bits": "PoCL's fract(-inf) is +0.0 (OpenCL C 3.0, 7.5.1: -0.0, as the reference and ours)"}


def _cases():
    for path in CORPUS:
        name = os.path.basename(path)[:-3]
        marks = [pytest.mark.xfail(strict=True, reason=CONTRACTED[name])] if name in CONTRACTED else []
        yield pytest.param(path, marks=marks, id=name)


@pytest.mark.parametrize("path", list(_cases()))
def test_the_corpus_on_an_opencl_driver_matches_the_reference(path):
    program = load_program(path, "-O0")
    name = os.path.basename(path)[:-3]
    for spec in parse_specs(path):
        args = spec.make_args(20260611)
        ref = run_target("llvm", program, spec.kernel, args, spec.global_size, spec.local_size, None,
                         spec.global_offset)
        got = run_target("opencl", program, spec.kernel, args, spec.global_size, spec.local_size, None,
                         spec.global_offset)
        assert compare(ref, got, [a.name for a in spec.args], 4 if name in APPROXIMATE else 0,
                       labels=("llvm", "opencl")) == []


def test_local_pointer_parameters_and_barriers_on_the_driver(tmp_path):
    source = write(tmp_path, "rev.cl", LOCAL_PARAM)
    np.save(tmp_path / "in.npy", np.arange(64, dtype=np.float32))
    result = run("run", source, "--target", "opencl", "--global", "64", "--local", "16",
                 "--arg", "out=zeros:64:float32", "--arg", f"in=@{tmp_path / 'in.npy'}",
                 "--arg", "tile=local:16:float32", "--out", str(tmp_path / "out"))
    assert result.returncode == 0, result.stderr
    want = np.arange(64).reshape(4, 16)[:, ::-1].reshape(-1)
    assert np.load(tmp_path / "out" / "out.npy").tolist() == want.tolist()


def test_choosing_platforms_and_devices(tmp_path):
    source = write(tmp_path, "k.cl", "kernel void k(global int *o) { o[get_global_id(0)] = 7; }\n")
    common = ["run", source, "--target", "opencl", "--global", "2", "--arg", "o=zeros:2:int32"]
    assert run(*common, "--platform", "0", "--device", "0", "--out", str(tmp_path / "a")).returncode == 0
    assert run(*common, "--platform", "portable", "--out", str(tmp_path / "b")).returncode == 0
    assert_one_line_error(run(*common, "--platform", "nvidia-x", "--out", str(tmp_path / "c")), 1,
                          "--platform nvidia-x", "no such OpenCL platform", "Portable Computing Language")
    assert_one_line_error(run(*common, "--device", "9", "--out", str(tmp_path / "d")), 1, "--device 9")
    assert_one_line_error(run("run", source, "--target", "ir", "--global", "2", "--arg", "o=zeros:2:int32",
                              "--platform", "0", "--out", str(tmp_path / "e")), 2, "--target opencl")


def test_only_opencl_c_runs_on_the_driver(tmp_path):
    ll = write(tmp_path, "k.ll", "define spir_kernel void @k(ptr addrspace(1) %o) {\n  ret void\n}\n")
    assert_one_line_error(run("run", ll, "--target", "opencl", "--global", "1", "--arg", "o=zeros:1:int32",
                              "--out", str(tmp_path / "o")), 1, "OpenCL C source")


SUBGROUP_KERNEL = """kernel void k(global int *o) {
    int v = (int)get_global_id(0);
    o[v] = sub_group_reduce_add(v) + 1000 * (int)get_sub_group_size();
}
"""


def test_sub_group_kernels_run_only_where_the_driver_has_them(tmp_path):
    """cl_khr_subgroups reported: the driver's sub-groups (probed to be OpenCL's linear layout) give the
    reduction numpy computes for its max sub-group size; not reported (Debian's PoCL 3.1): one line naming it."""
    from reconverge.tools.targets.opencl_target import choose_device
    source = write(tmp_path, "k.cl", SUBGROUP_KERNEL)
    result = run("run", source, "--target", "opencl", "--global", "40", "--local", "20",
                 "--arg", "o=zeros:40:int32", "--out", str(tmp_path / "out"))
    if "cl_khr_subgroups" not in choose_device(None).extensions.split():
        assert_one_line_error(result, 1, "does not report cl_khr_subgroups", "sub-group built-ins")
        assert not (tmp_path / "out").exists()
        return
    if result.returncode == 1 and "does not form sub-groups" in result.stderr:
        return          # refused after the probe: the driver's layout is not OpenCL's linear one
    assert result.returncode == 0, result.stderr
    got = np.load(tmp_path / "out" / "o.npy")
    width = got[0] // 1000
    ids = np.arange(40)
    first = ids // 20 * 20 + (ids % 20) // width * width
    sizes = np.minimum(width, ids // 20 * 20 + 20 - first)
    want = [sum(range(f, f + s)) + 1000 * s for f, s in zip(first, sizes)]
    assert got.tolist() == want
