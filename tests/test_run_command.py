"""`reconverge run`: a kernel run on the llvm and ir targets writes the same .npy buffers, the ones numpy
computes; every mistake is a one-line error with the right exit code and leaves no output behind."""
from __future__ import annotations

import os

import numpy as np
import pytest

from reconverge.tools.cli import main

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
TWO_KERNELS = os.path.join(ROOT, "tests", "kernels", "two_kernels.cl")

SAXPY = """
kernel void saxpy(global float *out, global const float *x, float a, int n)
{
    int i = get_global_id(0);
    if (i < n)
        out[i] = a * x[i] + 1.0f;
}
"""

GRID = """
kernel __attribute__((reqd_work_group_size(4, 2, 1)))
void grid(global int *out, global int *groups, uchar bias)
{
    int x = get_global_id(0), y = get_global_id(1), w = get_global_size(0);
    out[y * w + x] = x * 100 + y + bias;
    groups[y * w + x] = get_local_size(0) * 10 + get_local_size(1);
}
"""

VEC = """
kernel void vec(global float *out, float4 v)
{
    out[get_global_id(0)] = v.x + v.y * v.z - v.w;
}
"""


@pytest.fixture
def saxpy(tmp_path):
    path = tmp_path / "saxpy.cl"
    path.write_text(SAXPY)
    x = np.linspace(-3, 3, 48, dtype=np.float32)
    np.save(tmp_path / "x.npy", x)
    return str(path), x


def run_cli(capsys, *argv):
    code = main([str(a) for a in argv])
    captured = capsys.readouterr()
    return code, captured.out, captured.err


def assert_one_line_error(result, code, *needles):
    got_code, _, err = result
    assert got_code == code, err
    lines = err.strip().splitlines()
    assert len(lines) == 1, err
    assert lines[0].startswith("reconverge: error: "), lines[0]
    for needle in needles:
        assert needle in lines[0], (needle, lines[0])


def saxpy_args(tmp_path, *extra, x="x.npy", out="zeros:48:float32", a="2.5", n="40"):
    args = ["--arg", f"out={out}", "--arg", f"x=@{tmp_path / x}", "--arg", f"a={a}", "--arg", f"n={n}"]
    return [*args, *extra]


@pytest.mark.parametrize("level", ["0", "2"])
def test_llvm_and_ir_write_the_buffers_numpy_computes(tmp_path, capsys, saxpy, level):
    path, x = saxpy
    outs = {}
    for target in ("llvm", "ir"):
        out_dir = tmp_path / f"out-{target}"
        code, _, err = run_cli(capsys, "run", path, "--target", target, "--global", "48", f"-O{level}",
                               *saxpy_args(tmp_path), "--out", out_dir)
        assert code == 0, err
        assert sorted(os.listdir(out_dir)) == ["out.npy", "x.npy"]
        outs[target] = np.load(out_dir / "out.npy")
        np.testing.assert_array_equal(np.load(out_dir / "x.npy"), x)
    want = np.zeros(48, np.float32)
    want[:40] = np.float32(2.5) * x[:40] + np.float32(1.0)
    assert outs["llvm"].tobytes() == outs["ir"].tobytes()
    np.testing.assert_array_equal(outs["ir"], want)


def test_positional_names_hex_and_reqd_work_group_size_as_default_local(tmp_path, capsys):
    path = tmp_path / "grid.cl"
    path.write_text(GRID)
    results = []
    for target in ("llvm", "ir"):
        out_dir = tmp_path / target
        code, _, err = run_cli(capsys, "run", path, "--target", target, "--global", "8,4",
                               "--arg", "arg0=zeros:32:int32", "--arg", "groups=zeros:32:int32",
                               "--arg", "bias=0x7", "--out", out_dir)
        assert code == 0, err
        results.append((np.load(out_dir / "out.npy"), np.load(out_dir / "groups.npy")))
    (out, groups), (out_ir, groups_ir) = results
    y, x = np.divmod(np.arange(32), 8)
    np.testing.assert_array_equal(out, x * 100 + y + 7)
    np.testing.assert_array_equal(groups, np.full(32, 42))       # local size 4,2 from the attribute
    np.testing.assert_array_equal(out_ir, out)
    np.testing.assert_array_equal(groups_ir, groups)


def test_default_local_size_is_the_largest_divisor_up_to_64(tmp_path, capsys):
    path = tmp_path / "l.cl"
    path.write_text("kernel void l(global int *o) { o[get_global_id(0)] = get_local_size(0); }")
    code, _, err = run_cli(capsys, "run", path, "--target", "ir", "--global", "96",
                           "--arg", "o=zeros:96:int32", "--out", tmp_path / "o")
    assert code == 0, err
    assert set(np.load(tmp_path / "o" / "o.npy").tolist()) == {48}


def test_vector_parameter_takes_one_number_per_lane(tmp_path, capsys):
    path = tmp_path / "vec.cl"
    path.write_text(VEC)
    code, _, err = run_cli(capsys, "run", path, "--target", "ir", "--global", "4",
                           "--arg", "out=zeros:4:float32", "--arg", "v=1,2,3,4", "--out", tmp_path / "o")
    assert code == 0, err
    np.testing.assert_array_equal(np.load(tmp_path / "o" / "out.npy"), np.full(4, 3.0, np.float32))


def test_existing_output_directory_is_reused(tmp_path, capsys, saxpy):
    path, _ = saxpy
    out_dir = tmp_path / "existing"
    out_dir.mkdir()
    (out_dir / "keep.txt").write_text("mine")
    code, _, err = run_cli(capsys, "run", path, "--target", "ir", "--global", "48", *saxpy_args(tmp_path),
                           "--out", out_dir)
    assert code == 0, err
    assert sorted(os.listdir(out_dir)) == ["keep.txt", "out.npy", "x.npy"]


ERRORS = [
    # (extra argv, replacement args for saxpy_args, exit code, needles)
    (["--target", "ir", "--global", "48"], dict(n="40", extra=["--arg", "m=1"]), 2, ["--arg m", "'m'", "@saxpy"]),
    (["--target", "ir", "--global", "48"], dict(drop="n"), 2, ["missing --arg", "'n'"]),
    (["--target", "ir", "--global", "48"], dict(a="zeros:4:float32"), 2, ["'a'", "scalar", "not a buffer"]),
    (["--target", "ir", "--global", "48"], dict(out="3"), 2, ["'out'", "is a buffer"]),
    (["--target", "ir", "--global", "48"], dict(out="zeros:48:complex64"), 2, ["DTYPE 'complex64'"]),
    (["--target", "ir", "--global", "48"], dict(out="zeros:-1:float32"), 2, ["count", "'-1'"]),
    (["--target", "ir", "--global", "48"], dict(x="missing.npy"), 1, ["missing.npy", "'x'", "no such file"]),
    (["--target", "ir", "--global", "48"], dict(x="junk.npy"), 1, ["junk.npy", "'x'", "not a readable .npy"]),
    (["--target", "ir", "--global", "48"], dict(n="4294967296"), 2, ["--arg n", "4294967296", "out of range"]),
    (["--target", "ir", "--global", "48"], dict(n="1.5"), 2, ["--arg n", "'1.5'", "not an integer"]),
    (["--target", "ir", "--global", "48"], dict(a="1e39"), 2, ["--arg a", "1e39", "out of range"]),
    (["--target", "ir", "--global", "48", "--local", "5"], {}, 2, ["local size 5", "global size 48"]),
    (["--target", "ir", "--global", "48", "--local", "8,1"], {}, 2, ["different dimensions"]),
    (["--target", "ir", "--global", "0"], {}, 2, ["--global '0'"]),
    (["--target", "cuda", "--global", "48"], {}, 2, ["unknown target 'cuda'"]),
    (["--target", "ir", "--global", "48", "--kernel", "nope"], {}, 1, ["no kernel named 'nope'"]),
    (["--target", "ir", "--global", "48"], dict(n="48", out="zeros:8:float32"), 1, ["out-of-bounds", "'out'"]),
    (["--target", "spirv", "--global", "48", "--spirv-version", "1.6", "--target-env", "vulkan1.0"], {}, 2,
     ["SPIR-V 1.6", "vulkan1.0"]),
    (["--target", "spirv", "--global", "48", "--spirv-version", "two"], {}, 2, ["SPIR-V version 'two'"]),
    (["--target", "spirv", "--global", "48", "--target-env", "opengl"], {}, 2, ["target environment 'opengl'"]),
]


@pytest.mark.parametrize("argv,change,code,needles", ERRORS, ids=[f"{i}-{e[3][0]}" for i, e in enumerate(ERRORS)])
def test_errors_are_one_line_and_leave_no_output(tmp_path, capsys, saxpy, argv, change, code, needles):
    path, _ = saxpy
    (tmp_path / "junk.npy").write_bytes(b"not numpy at all")
    change = dict(change)
    extra = change.pop("extra", [])
    drop = change.pop("drop", None)
    args = saxpy_args(tmp_path, *extra, **change)
    if drop:
        i = args.index(next(a for a in args if a.startswith(f"{drop}=")))
        del args[i - 1:i + 1]
    out_dir = tmp_path / "results"
    result = run_cli(capsys, "run", path, *argv, *args, "--out", out_dir)
    assert_one_line_error(result, code, *needles)
    assert not out_dir.exists()


def test_several_kernels_need_kernel(tmp_path, capsys):
    out_dir = tmp_path / "o"
    result = run_cli(capsys, "run", TWO_KERNELS, "--target", "ir", "--global", "32", "--out", out_dir)
    assert_one_line_error(result, 2, "2 kernels", "scale", "clip", "--kernel")
    assert not out_dir.exists()


def test_local_size_must_match_reqd_work_group_size(tmp_path, capsys):
    path = tmp_path / "grid.cl"
    path.write_text(GRID)
    base = ["run", path, "--target", "ir", "--arg", "out=zeros:32:int32", "--arg", "groups=zeros:32:int32",
            "--arg", "bias=1", "--out", tmp_path / "o"]
    assert_one_line_error(run_cli(capsys, *base, "--global", "8,4", "--local", "8,1"), 2,
                          "@grid requires work-group size 4,2,1")
    assert_one_line_error(run_cli(capsys, *base, "--global", "32"), 2, "@grid", "2 dimensions")
    assert_one_line_error(run_cli(capsys, *base[:-4], "--arg", "bias=256", "--global", "8,4", "--out",
                                  tmp_path / "o"), 2, "--arg bias", "256", "i8")
    assert not (tmp_path / "o").exists()


def test_output_path_that_is_a_file(tmp_path, capsys, saxpy):
    path, _ = saxpy
    blocker = tmp_path / "file"
    blocker.write_text("x")
    result = run_cli(capsys, "run", path, "--target", "ir", "--global", "48", *saxpy_args(tmp_path),
                     "--out", blocker)
    assert_one_line_error(result, 1, str(blocker), "Not a directory")
    assert blocker.read_text() == "x"


def test_spirv_target_gets_the_options_and_launch_geometry(tmp_path, capsys, saxpy, monkeypatch):
    """The launcher itself is the SPIR-V backend's; here only what the command line hands it."""
    from reconverge.backend.spirv.options import SpirvOptions
    from reconverge.tools.targets import harness
    seen = []

    def fake(program, kernel, args, global_size, local_size, options, global_offset):
        seen.append((kernel, tuple(global_size), tuple(local_size), options))
        args[0][:] = 7
    monkeypatch.setitem(harness.TARGETS, "spirv", fake)
    path, _ = saxpy
    code, _, err = run_cli(capsys, "run", path, "--target", "spirv", "--global", "48", "--local", "16",
                           "--spirv-version", "1.0", "--target-env", "vulkan1.1", *saxpy_args(tmp_path),
                           "--out", tmp_path / "o")
    assert code == 0, err
    assert seen == [("saxpy", (48,), (16,), SpirvOptions(version=(1, 0), target_env="vulkan1.1",
                                                          local_size=(16, 1, 1)))]
    assert np.load(tmp_path / "o" / "out.npy").tolist() == [7.0] * 48


LL_KERNEL = """
define spir_kernel void @inc(ptr addrspace(1) %data, i64 %step) {
entry:
  %i = call i64 @_Z13get_global_idj(i32 0)
  %p = getelementptr i64, ptr addrspace(1) %data, i64 %i
  %v = load i64, ptr addrspace(1) %p
  %w = add i64 %v, %step
  store i64 %w, ptr addrspace(1) %p
  ret void
}
declare i64 @_Z13get_global_idj(i32)
"""


def test_ll_input_uses_the_ir_parameter_names(tmp_path, capsys):
    path = tmp_path / "inc.ll"
    path.write_text(LL_KERNEL)
    np.save(tmp_path / "d.npy", np.arange(6, dtype=np.int64))
    for target in ("llvm", "ir"):
        code, _, err = run_cli(capsys, "run", path, "--target", target, "--global", "6", "-O2",
                               "--arg", f"data=@{tmp_path / 'd.npy'}", "--arg", "step=18446744073709551615",
                               "--out", tmp_path / target)
        assert code == 0, err
        assert np.load(tmp_path / target / "data.npy").tolist() == [-1, 0, 1, 2, 3, 4]


def test_a_kernel_that_crashes_the_jit_is_a_one_line_error(tmp_path, capsys):
    """Division by zero is undefined behaviour; on the llvm target it raises SIGFPE in native code, which
    the command runs in a child process so that it reports it instead of dying silently."""
    path = tmp_path / "div0.cl"
    path.write_text("kernel void d(global int *out, int k) { int i = get_global_id(0); out[i] = 100 / (i - k); }\n")
    out_dir = tmp_path / "results"
    result = run_cli(capsys, "run", str(path), "--target", "llvm", "--global", "8",
                     "--arg", "out=zeros:8:int32", "--arg", "k=3", "--out", str(out_dir))
    assert_one_line_error(result, 1, "@d on the llvm target crashed with SIGFPE")
    assert not out_dir.exists()
    fine = run_cli(capsys, "run", str(path), "--target", "llvm", "--global", "8",
                   "--arg", "out=zeros:8:int32", "--arg", "k=30", "--out", str(out_dir))
    assert fine[0] == 0
    assert np.load(out_dir / "out.npy").tolist() == [-(100 // (30 - i)) for i in range(8)]  # C truncates


def test_call_in_child_hands_back_results_and_exceptions():
    from reconverge.lowering.errors import CompileError
    from reconverge.tools.targets.isolate import call_in_child
    assert call_in_child(lambda: [np.arange(3)], "t")[0].tolist() == [0, 1, 2]
    with pytest.raises(CompileError, match="boom"):
        call_in_child(lambda: (_ for _ in ()).throw(CompileError("boom")), "t")
