"""A run that reads or writes outside a buffer, a __local parameter or array, or a private array is a one-line
error on every target, not an answer with exit 0 (the standard: never silently wrong), and an in-bounds
launch of the same kernel runs and prints what ir prints (no false alarm; byte buffers whose size is no
multiple of 4 included).

Until 2026-11-27 these answered: spirv (Vulkan's robust buffer access on lavapipe returned zeros and
dropped the writes; now backend/spirv/bounds_check.py), llvm (a buffer's end rounded up to 16 bytes, the
rest of the page before its start, __local blocks and private variables unguarded; now
tools/targets/jit_oracle.py, oracle_local.py and oracle_private.py), opencl
(PoCL: nothing; now guard bytes around each buffer, a second launch with other guard bytes, and for
private and __local memory a run on the llvm reference first, tools/targets/opencl_target.py), and gen
for a private array (its scratch space was checked as a whole; now each lane's own arrays,
isa/gen9/sim_memory.py). `--emit spirv` never carries the check."""
from __future__ import annotations

import subprocess
import sys

import numpy as np
import pytest

from reconverge.tools.cli import main

SOURCE = """\
kernel void past_end(global int *out) { out[get_global_id(0)] = 1; }
kernel void read_past(global int *out, global const int *in) { uint i = get_global_id(0); out[i] = in[i + 2]; }
kernel void before_start(global int *out) { int i = (int)get_global_id(0); out[i - 1] = 5; }
kernel void bytes(global uchar *out) { uint i = get_global_id(0); out[i] = (uchar)(i + 1); }
kernel void private_index(global int *out, global const int *in) {
    uint i = get_global_id(0); int a[4] = {1, 2, 3, 4};
    a[in[i]] = 9; out[i] = a[0] + a[1] + a[2] + a[3]; }
kernel void local_param(global int *out, local int *tmp) {
    uint i = get_local_id(0); tmp[i] = (int)i; barrier(CLK_LOCAL_MEM_FENCE); out[get_global_id(0)] = tmp[i]; }
kernel void private_pair(global int *out, global const int *in) {
    uint i = get_global_id(0); int a[4] = {1, 2, 3, 4}; int b[4] = {5, 6, 7, 8};
    a[in[i]] = 9; out[i] = a[0] + a[1] + a[2] + a[3] + b[0] + b[1] + b[2] + b[3]; }
kernel void local_pair(global int *out, global const int *in) {
    local int t[4]; local int u[4]; uint i = get_local_id(0); t[i] = 1; u[i] = 2; barrier(CLK_LOCAL_MEM_FENCE);
    if (i == 0) { t[in[3]] = 7; } barrier(CLK_LOCAL_MEM_FENCE); out[get_global_id(0)] = t[i] + u[i]; }
kernel void local_array(global int *out, global const int *in) {
    local int t[4]; uint i = get_local_id(0); t[in[i]] = (int)i; barrier(CLK_LOCAL_MEM_FENCE);
    out[get_global_id(0)] = t[i]; }
"""

# (kernel, global size, arguments, what the error names; None: in bounds, it runs)
CASES = [
    ("past_end", 4, ["out=zeros:3:int32"], "out-of-bounds write to buffer 'out'"),
    ("past_end", 4, ["out=zeros:4:int32"], None),
    ("read_past", 4, ["out=zeros:4:int32", "in=zeros:5:int32"], "out-of-bounds read of buffer 'in'"),
    ("read_past", 4, ["out=zeros:4:int32", "in=zeros:6:int32"], None),
    ("before_start", 4, ["out=zeros:4:int32"], "out-of-bounds write to buffer 'out'"),
    ("bytes", 8, ["out=zeros:7:uint8"], "out-of-bounds write to buffer 'out'"),
    ("bytes", 7, ["out=zeros:7:uint8"], None),
    ("private_index", 4, ["out=zeros:4:int32", "in=@IDX"], "out-of-bounds write to private array"),
    ("private_index", 4, ["out=zeros:4:int32", "in=@IDX_OK"], None),
    ("local_param", 8, ["out=zeros:8:int32", "tmp=local:4:int32"], "out-of-bounds write to __local parameter 'tmp'"),
    ("local_param", 8, ["out=zeros:8:int32", "tmp=local:8:int32"], None),
    # two arrays side by side: one of index 4 and index -1 lands in the other, whichever comes first
    ("private_pair", 4, ["out=zeros:4:int32", "in=@IDX"], "out-of-bounds write to private array"),
    ("private_pair", 4, ["out=zeros:4:int32", "in=@NEG"], "out-of-bounds write to private array"),
    ("private_pair", 4, ["out=zeros:4:int32", "in=@IDX_OK"], None),
    ("local_pair", 4, ["out=zeros:4:int32", "in=@IDX"], "out-of-bounds write to __local array 'local_pair.t'"),
    ("local_pair", 4, ["out=zeros:4:int32", "in=@NEG"], "out-of-bounds write to __local array 'local_pair.t'"),
    ("local_pair", 4, ["out=zeros:4:int32", "in=@IDX_OK"], None),
    ("local_array", 4, ["out=zeros:4:int32", "in=@IDX"], "out-of-bounds write to __local array 'local_array.t'"),
    ("local_array", 4, ["out=zeros:4:int32", "in=@IDX_PERM"], None),
]


@pytest.fixture(scope="module")
def files(tmp_path_factory):
    d = tmp_path_factory.mktemp("bounds")
    (d / "k.cl").write_text(SOURCE)
    np.save(d / "idx.npy", np.array([0, 1, 3, 4], np.int32))
    np.save(d / "idx_ok.npy", np.array([0, 1, 3, 2], np.int32))
    np.save(d / "idx_perm.npy", np.array([3, 2, 1, 0], np.int32))
    np.save(d / "neg.npy", np.array([0, 1, 3, -1], np.int32))
    return d


def _run(files, target: str, level: str, kernel: str, size: int, arguments: list[str]) -> int:
    argv = ["run", str(files / "k.cl"), level, "--kernel", kernel, "--target", target, "--global", str(size),
            "--local", str(size), "--print"]
    for a in arguments:
        for tag, name in (("@IDX_OK", "idx_ok"), ("@IDX_PERM", "idx_perm"), ("@IDX", "idx"), ("@NEG", "neg")):
            a = a.replace(tag, f"@{files / name}.npy")
        argv += ["--arg", a]
    if target != "opencl":
        return main(argv)
    # in a process of its own: the opencl target's launch runs in a forked child, and a test process where
    # other tests have started PoCL's threads forks a child that waits for them forever
    proc = subprocess.run([sys.executable, "-m", "reconverge.tools.cli", *argv], capture_output=True, text=True,
                          timeout=300)
    sys.stdout.write(proc.stdout)
    sys.stderr.write(proc.stderr)
    return proc.returncode


def _cases():
    for target in ("spirv", "llvm", "opencl", "gen", "ir"):
        for level in (("-O0",) if target == "opencl" else ("-O0", "-O2")):    # (opencl: the driver's own -O)
            for kernel, size, arguments, error in CASES:
                yield pytest.param(target, level, kernel, size, arguments, error,
                                   id=f"{target}{level}-{kernel}-{'oob' if error else 'ok'}")


@pytest.mark.parametrize("target,level,kernel,size,arguments,error", list(_cases()))
def test_an_out_of_bounds_access_is_refused(files, capsys, target, level, kernel, size, arguments, error):
    got = _run(files, target, level, kernel, size, arguments)
    out = capsys.readouterr()
    if error is None:
        assert got == 0, out.err
        assert _run(files, "ir", level, kernel, size, arguments) == 0
        reference = capsys.readouterr()
        buffers = [[line for line in o.out.splitlines() if not line.startswith("@")] for o in (out, reference)]
        assert buffers[0] == buffers[1] and buffers[0]       # the same buffers printed
        return
    lines = out.err.strip().splitlines()
    assert got == 1 and len(lines) == 1, out.err
    assert out.out == ""                                     # no results printed
    if target == "spirv":
        assert error in lines[0] and "spirv target" in lines[0], lines


def test_a_compiled_module_carries_no_check(files, tmp_path):
    from reconverge.backend.spirv.options import SpirvOptions
    assert SpirvOptions().check_bounds is False
    out = tmp_path / "k.spvasm"
    assert main(["compile", str(files / "k.cl"), "--kernel", "past_end", "--emit", "spirv-asm", "-o", str(out)]) == 0
    assert '"bounds"' not in out.read_text() and "OpAtomicOr" not in out.read_text()


@pytest.mark.parametrize("kernel", ["private_pair", "local_pair"])
@pytest.mark.parametrize("index", ["@IDX", "@NEG"])
def test_the_one_thread_simulator_checks_each_send_against_its_own_object(files, tmp_path, capsys, kernel, index):
    """--trace runs the first work-group in the one-thread simulator (sim_messages), the rest batched
    (sim_batch_send): both check a private or __local access against the array it was compiled for."""
    argv = ["run", str(files / "k.cl"), "-O0", "--kernel", kernel, "--target", "gen", "--global", "4",
            "--local", "4", "--arg", "out=zeros:4:int32", "--arg",
            f"in=@{files / ('idx.npy' if index == '@IDX' else 'neg.npy')}", "--trace", str(tmp_path / "t.png")]
    assert main(argv) == 1
    err = capsys.readouterr().err.strip().splitlines()
    assert len(err) == 1 and "out-of-bounds store" in err[0] and ("private array" in err[0] or "__local" in err[0])
    assert not (tmp_path / "t.png").exists()


PROGRAM_SOURCE = """\
global int table[4] = {1, 2, 3, 4};
global int other[4] = {9, 9, 9, 9};
kernel void program_var(global int *out, global const int *in) {
    uint i = get_global_id(0); if (i == 3) table[in[3]] += 7 + table[i]; barrier(CLK_GLOBAL_MEM_FENCE);
    out[i] = table[i] + other[i]; }
"""


@pytest.mark.parametrize("target,level", [(t, level) for t in ("llvm", "ir", "gen", "spirv") for level in ("-O0", "-O2")]
                         + [("opencl", "-O0")])         # (opencl: the driver's own optimisation)
@pytest.mark.parametrize("index", ["@IDX", "@NEG", "@IDX_OK"])
def test_a_program_scope_variable_is_checked_and_starts_from_its_definition(files, capsys, target, level, index):
    """A program-scope `global` variable written past its end or before its start is refused; in bounds,
    every target that takes such variables answers what ir does, the llvm reference too although it
    launches twice and keeps the compiled module (until 2026-11-27 the second launch started from the
    first one's writes, and an in-bounds kernel was refused as out of bounds). Vulkan has no writable
    program-scope memory and PoCL takes none: both refuse in one line."""
    (files / "program.cl").write_text(PROGRAM_SOURCE)
    name = {"@IDX": "idx", "@NEG": "neg", "@IDX_OK": "idx_ok"}[index]
    argv = ["run", str(files / "program.cl"), level, "--target", target, "--global", "4", "--local", "4",
            "--print", "--arg", "out=zeros:4:int32", "--arg", f"in=@{files / name}.npy"]
    if target == "opencl":
        proc = subprocess.run([sys.executable, "-m", "reconverge.tools.cli", *argv], capture_output=True,
                              text=True, timeout=300)
        got, out, err = proc.returncode, proc.stdout, proc.stderr
    else:
        got = main(argv)
        out, err = capsys.readouterr()
    lines = err.strip().splitlines()
    if index != "@IDX_OK" or target in ("spirv", "opencl"):
        assert got == 1 and len(lines) == 1 and out == "", err
        bounds = "out-of-bounds" in lines[0] or "out of bounds" in lines[0]
        assert bounds or (target in ("spirv", "opencl") and "program" in lines[0] and "scope" in lines[0]), lines
        return
    assert got == 0, err
    printed = [line for line in out.splitlines() if not line.startswith("@")]
    reference = argv.copy()
    reference[reference.index(target)] = "llvm" if target == "ir" else "ir"
    assert main(reference) == 0
    assert [line for line in capsys.readouterr().out.splitlines() if not line.startswith("@")] == printed
    if target == "llvm":                        # again in this process: the kept module starts afresh
        assert main(argv) == 0
        assert [line for line in capsys.readouterr().out.splitlines() if not line.startswith("@")] == printed
