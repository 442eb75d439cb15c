"""The llvm reference keeps private variables in guarded slots (tools/targets/oracle_private.py): an index
past a private array's end faults, a write before its start is an error after the run, and kernels that
stay in bounds compute what they did on the host stack, on both launch paths
(items one after another, and on threads for a barrier), with helper functions that -O0 does not inline."""
import numpy as np
import pytest

from reconverge.lowering.frontend.clang import compile_opencl
from reconverge.tools.cli import main
from reconverge.tools.targets.jit_oracle import OracleError, compile_module, run_llvm_kernel
from reconverge.tools.targets.oracle_private import guard_allocas

SOURCE = """\
int pick(const int *a, int i) { int copy[3] = {a[0], a[1], a[2]}; return copy[i]; }
kernel void helper(global int *out, global const int *in) {
    uint i = get_global_id(0); int a[3] = {7, 8, 9}; int s = 0;
    for (int r = 0; r < 3; r++) s += pick(a, (in[i] + r) % 3);
    out[i] = s + pick(a, in[i]); }
kernel void shared(global int *out, global const int *in, local int *tmp) {
    uint i = get_local_id(0); int a[2] = {(int)i, 1};
    a[in[i]] = 5; tmp[i] = a[0] + a[1]; barrier(CLK_LOCAL_MEM_FENCE);
    out[get_global_id(0)] = tmp[(i + 1) % get_local_size(0)]; }
"""


@pytest.fixture(scope="module")
def path(tmp_path_factory):
    p = tmp_path_factory.mktemp("private") / "k.cl"
    p.write_text(SOURCE)
    return str(p)


def _run(path, level, kernel, index):
    from reconverge.tools.targets.harness import LocalArg
    args = [np.zeros(4, np.int32), np.array(index, np.int32)]
    if kernel == "shared":
        args.append(LocalArg(4, np.int32))
    run_llvm_kernel(compile_opencl(path, level), kernel, args, 4, 4)
    return args[0]


@pytest.mark.parametrize("level", ["-O0", "-O2"])
def test_in_bounds_private_arrays_compute_the_right_answer(path, level):
    got = _run(path, level, "helper", [0, 1, 2, 1])
    assert list(got) == [sum((7, 8, 9)) + (7, 8, 9)[k] for k in (0, 1, 2, 1)]
    got = _run(path, level, "shared", [0, 1, 1, 0])
    # item j: a = {j, 1} with a[in[j]] = 5; out[j] = item (j+1)'s sum
    sums = [(5 + 1) if x == 0 else (j + 5) for j, x in enumerate([0, 1, 1, 0])]
    assert list(got) == [sums[(j + 1) % 4] for j in range(4)]


@pytest.mark.parametrize("level", ["-O0", "-O2"])
def test_a_write_before_a_private_array_is_an_error_after_the_run(path, level):
    with pytest.raises(OracleError, match=r"before the start or past the end of private variable .*\[2 x i32\]"):
        _run(path, level, "shared", [0, 1, -1, 0])           # on threads (a barrier)


@pytest.mark.parametrize("kernel", ["helper", "shared"])
def test_an_index_past_a_private_array_faults(path, kernel, tmp_path, capsys):
    np.save(tmp_path / "idx.npy", np.array([0, 1, 3 if kernel == "helper" else 2, 0], np.int32))
    argv = ["run", path, "-O0", "--kernel", kernel, "--target", "llvm", "--global", "4", "--local", "4",
            "--arg", "out=zeros:4:int32", "--arg", f"in=@{tmp_path / 'idx.npy'}", "--print"]
    if kernel == "shared":
        argv += ["--arg", "tmp=local:4:int32"]
    assert main(argv) == 1
    err = capsys.readouterr().err.strip().splitlines()
    assert len(err) == 1 and "SIGSEGV (an out-of-bounds access?" in err[0], err


def test_allocas_off_the_entry_block_on_a_call_cycle_or_with_a_count_stay_on_the_stack():
    text = "\n".join([
        "define void @f() {",
        "  %1 = alloca [4 x i32], align 16",
        "  %2 = alloca i32, i64 4, align 4",
        "  call void @llvm.lifetime.start.p0(ptr nonnull %1)",
        "  br label %3",
        "3:",
        "  %4 = alloca i32, align 4",
        "  ret void",
        "}",
        "define void @g() {",
        "  %1 = alloca { i8, <3 x float> }, align 16",
        "  call void @g()",
        "  ret void",
        "}",
    ])
    out, found = guard_allocas(text)
    lines = out.splitlines()
    assert lines[1] == "  %1 = call ptr @__oracle_private(i32 0)"
    assert lines[2] == "  %2 = alloca i32, i64 4, align 4" and lines[3] == ""      # the marker is gone
    assert "  %4 = alloca i32, align 4" in lines and "  %1 = alloca { i8, <3 x float> }, align 16" in lines
    assert found.aligns == [16] and found.types == ["[4 x i32]"]
    assert "@__oracle_private_sizes = constant [1 x i64]" in out


def test_a_module_without_allocas_is_left_as_it_was(path):
    ir = compile_opencl(path, "-O2").replace("alloca", "alloca_")    # (no alloca line can match)
    assert guard_allocas(ir)[0] == ir
    assert compile_module(compile_opencl(path, "-O0")).private is not None
