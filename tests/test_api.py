"""The Python API (`import reconverge`): the README's worked example runs as written, and each entry
point agrees with the command line's tools."""
from __future__ import annotations

import os
import re
import subprocess

import numpy as np
import pytest

import reconverge

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))


def test_the_readme_example_runs_as_written(monkeypatch):
    readme = open(os.path.join(ROOT, "README.md")).read()
    section = readme[readme.index("## Python API"):]
    code = re.search(r"```python\n(.*?)```", section, re.S).group(1)
    monkeypatch.chdir(ROOT)
    exec(compile(code, "README.md", "exec"), {})


KERNEL = """
kernel void scale(global float *out, global const float *x, float a, int n) {
    int i = get_global_id(0);
    if (i < n) out[i] = a * x[i];
}
"""


def test_run_returns_the_buffers_and_leaves_the_inputs_alone():
    prog = reconverge.load_source(KERNEL, "cl")
    x = np.arange(16, dtype=np.float32)
    out0 = np.full(16, -1, np.float32)
    got = reconverge.run(prog, "scale", "ir", 16, {"out": out0, "x": x, "a": np.float32(3), "n": np.int32(10)})
    assert list(got) == ["out", "x"]
    assert np.array_equal(got["out"], np.where(np.arange(16) < 10, 3 * x, -1).astype(np.float32))
    assert (out0 == -1).all()


def test_compare_names_the_first_differing_element():
    prog = reconverge.load_source(KERNEL, "cl")
    args = {"out": np.zeros(8, np.float32), "x": np.ones(8, np.float32), "a": np.float32(2), "n": np.int32(8)}
    assert reconverge.compare(prog, "scale", ["llvm", "ir", "gen"], 8, args) == {"ir": [], "gen": []}


def test_spirv_bytes_pass_spirv_val_and_gen_code_is_what_iga64_reads(tmp_path):
    prog = reconverge.load_source(KERNEL, "cl")
    spirv = reconverge.to_spirv(prog)
    assert spirv[:4] == b"\x03\x02\x23\x07"
    path = tmp_path / "k.spv"
    path.write_bytes(spirv)
    assert subprocess.run(["spirv-val", "--target-env", "vulkan1.1", str(path)]).returncode == 0
    gen = reconverge.to_gen(prog, "scale", simd=8, cf="structured")
    assert gen.simd == 8 and gen.mode == "structured"
    krn = tmp_path / "k.bin"
    krn.write_bytes(gen.code)
    listing = subprocess.run(["iga64", "-p=9", "-d", str(krn)], capture_output=True, text=True)
    assert listing.returncode == 0
    ours = [line.split("//")[0].strip() for line in gen.asm.splitlines() if line.strip()]
    theirs = [line.split("//")[0].strip() for line in listing.stdout.splitlines() if line.strip()]
    assert ours == theirs


@pytest.mark.parametrize("call,match", [
    (lambda p: reconverge.run(p, "scale", "ir", 8, {"out": np.zeros(8, np.float32)}), "no argument for parameter 'x'"),
    (lambda p: reconverge.run(p, "scale", "ir", 8, {"bogus": 1}), "no parameter 'bogus'"),
    (lambda p: reconverge.run(p, "scale", "cuda", 8, {}), "unknown target 'cuda'"),
    (lambda p: reconverge.to_gen(p, "scale", simd=32), "SIMD32"),
])
def test_bad_calls_are_one_line_compile_errors(call, match):
    prog = reconverge.load_source(KERNEL, "cl")
    with pytest.raises(reconverge.CompileError, match=match):
        call(prog)


def test_invalid_opencl_c_is_a_compile_error():
    with pytest.raises(reconverge.CompileError, match="error"):
        reconverge.load_source("kernel void k(global int *o) { o[0] = undeclared; }", "cl")


def test_trace_draws_the_lanes_as_svg_and_writes_the_file(tmp_path):
    prog = reconverge.load_source(KERNEL, "cl")
    args = {"out": np.zeros(16, np.float32), "x": np.ones(16, np.float32), "a": np.float32(2), "n": np.int32(5)}
    path = tmp_path / "lanes.svg"
    svg = reconverge.trace(prog, "scale", 16, args, simd=8, path=str(path))
    assert path.read_bytes() == svg and svg.lstrip().startswith(b"<?xml") and b"<svg" in svg
    assert b"SIMD8" in svg                                     # the title names the width
    png = reconverge.trace(prog, "scale", 16, args, simd=8, fmt="png")
    assert png.startswith(b"\x89PNG")
    with pytest.raises(reconverge.CompileError, match="format 'gif'"):
        reconverge.trace(prog, "scale", 16, args, fmt="gif")
