"""Nothing is destroyed, nothing lands outside the directory the user named, and file-system trouble is
a one-line error (exit 1) naming the path and the reason.

Permission tests run the command as an unprivileged user (`setpriv`) when the tests run as root, since
permission bits do not stop root: CI runs as root, so those tests are real there too.
"""
import os
import shutil
import stat
import subprocess
import sys
import tempfile

import numpy as np
import pytest

from reconverge.lowering.output import safe_file_name
from tests.test_cli import ROOT, SEED, assert_one_line_error, run

COPY_KERNEL = """
define spir_kernel void @"{kernel}"(ptr addrspace(1) %"{a}", ptr addrspace(1) %"{b}") {{
entry:
  %v = load i32, ptr addrspace(1) %"{a}"
  %w = add i32 %v, 1
  store i32 %w, ptr addrspace(1) %"{b}"
  ret void
}}
"""


def kernel_file(tmp_path, kernel="k", a="a", b="b", name="k.ll"):
    path = tmp_path / name
    path.write_text(COPY_KERNEL.format(kernel=kernel, a=a, b=b))
    return str(path)


def files_under(directory):
    return sorted(os.path.relpath(os.path.join(d, f), directory) for d, _, fs in os.walk(directory) for f in fs)


# ---- -o: special files, symlinks, inputs ---------------------------------------------------------

def device(tmp_path, name, minor):
    """A private copy of a memory device (1, minor) when root can make one, so that a regression destroys
    the copy and not the machine's /dev/null; else the real one (only root could replace it anyway)."""
    if os.geteuid() != 0:
        return f"/dev/{name}"
    path = tmp_path / name
    os.mknod(path, stat.S_IFCHR | 0o666, os.makedev(1, minor))
    return str(path)


def test_output_to_a_device_writes_it_in_place(tmp_path):
    null = device(tmp_path, "null", 3)
    before = os.stat(null)
    result = run("compile", SEED, "-o", null)
    assert result.returncode == 0, result.stderr
    after = os.stat(null)
    assert stat.S_ISCHR(after.st_mode) and (after.st_ino, after.st_rdev) == (before.st_ino, before.st_rdev)


def test_output_to_a_fifo_writes_into_the_fifo(tmp_path):
    fifo = tmp_path / "pipe"
    os.mkfifo(fifo)
    reader = subprocess.Popen(["cat", str(fifo)], stdout=subprocess.PIPE)
    result = run("compile", SEED, "-o", str(fifo))
    text = reader.communicate(timeout=60)[0].decode()
    assert result.returncode == 0, result.stderr
    assert stat.S_ISFIFO(os.lstat(fifo).st_mode) and "kernel" in text


def test_output_through_a_symlink_replaces_its_target_and_keeps_the_link(tmp_path):
    target = tmp_path / "real.nir"
    target.write_text("old")
    os.chmod(target, 0o640)
    link = tmp_path / "link.nir"
    os.symlink("real.nir", link)
    result = run("compile", SEED, "-o", str(link))
    assert result.returncode == 0, result.stderr
    assert os.path.islink(link) and os.readlink(link) == "real.nir"
    assert "kernel" in target.read_text()
    assert stat.S_IMODE(os.stat(target).st_mode) == 0o640
    assert sorted(os.listdir(tmp_path)) == ["link.nir", "real.nir"]


@pytest.mark.parametrize("how", ["same", "symlink", "hardlink"])
def test_an_output_that_is_the_input_is_refused(tmp_path, how):
    source = kernel_file(tmp_path)
    original = open(source).read()
    output = source
    if how == "symlink":
        output = str(tmp_path / "alias.ll")
        os.symlink(source, output)
    elif how == "hardlink":
        output = str(tmp_path / "alias.ll")
        os.link(source, output)
    result = run("compile", source, "-o", output)
    assert_one_line_error(result, 1, output, "refusing", "input")
    assert open(source).read() == original


def test_a_fresh_output_file_gets_the_usual_permissions(tmp_path):
    out = tmp_path / "new.nir"
    result = run("compile", SEED, "-o", str(out))
    assert result.returncode == 0, result.stderr
    umask = os.umask(0)
    os.umask(umask)
    assert stat.S_IMODE(os.stat(out).st_mode) == 0o666 & ~umask


# ---- names from the input become safe file names -------------------------------------------------

@pytest.mark.parametrize("name,expected", [
    ("out", "out"), ("a.b-c_d", "a.b-c_d"), ("../escaped", "%2E.%2Fescaped"), ("/abs/pwned", "%2Fabs%2Fpwned"),
    (".", "%2E"), ("..", "%2E."), ("", "%"), ("50%", "50%25"), ("é", "%C3%A9"), ("a b", "a%20b"),
])
def test_safe_file_name(name, expected):
    assert safe_file_name(name) == expected


def test_safe_file_names_are_bounded_and_distinct():
    long_a, long_b = "x" * 500 + "a", "x" * 500 + "b"
    assert len(safe_file_name(long_a)) <= 200 and safe_file_name(long_a) != safe_file_name(long_b)
    names = ["a/b", "a%2Fb", "a_b", ".a", "%2Ea", "", "%", "..", "."]
    assert len({safe_file_name(n) for n in names}) == len(names)


@pytest.mark.parametrize("a,b", [("../escaped", "/abs/pwned"), ("../../../tmp/x", "..")])
def test_run_writes_parameter_files_only_inside_out(tmp_path, a, b):
    work = tmp_path / "work"
    work.mkdir()
    source = kernel_file(work, a=a, b=b)
    out = work / "out"
    result = run("run", source, "--target", "ir", "--global", "1", "--arg", f"{a}=zeros:1:int32",
                 "--arg", f"{b}=zeros:1:int32", "--out", str(out))
    assert result.returncode == 0, result.stderr
    assert files_under(tmp_path) == sorted(["work/k.ll"] + [f"work/out/{safe_file_name(n)}.npy" for n in (a, b)])
    assert not os.path.exists("/abs/pwned.npy")
    assert np.load(out / f"{safe_file_name(b)}.npy").tolist() == [1]


def test_dumps_of_a_kernel_named_like_a_path_stay_in_the_dump_dir(tmp_path):
    work = tmp_path / "a" / "b"
    work.mkdir(parents=True)
    source = kernel_file(work, kernel="../../x")
    dumps = work / "dumps"
    result = run("compile", source, "-o", str(work / "k.nir"), "--dump-after", "read", "--dump-dir", str(dumps))
    assert result.returncode == 0, result.stderr
    assert files_under(tmp_path) == sorted(["a/b/k.ll", "a/b/k.nir"] + [
        f"a/b/dumps/{safe_file_name('../../x')}.00-read.{ext}" for ext in ("nir", "cfg.dot")])


def test_a_result_never_replaces_an_input_npy(tmp_path):
    source = kernel_file(tmp_path)
    out = tmp_path / "out"
    out.mkdir()
    np.save(out / "a.npy", np.array([5], np.int32))
    result = run("run", source, "--target", "ir", "--global", "1", "--arg", f"a=@{out / 'a.npy'}",
                 "--arg", "b=zeros:1:int32", "--out", str(out))
    assert_one_line_error(result, 1, "a.npy", "refusing", "input")
    assert np.load(out / "a.npy").tolist() == [5] and os.listdir(out) == ["a.npy"]


def test_dumps_are_removed_when_the_command_then_fails(tmp_path):
    dumps = tmp_path / "dumps"
    result = run("compile", SEED, "--emit", "spirv", "--dump-after", "all", "--dump-dir", str(dumps),
                 "-o", str(tmp_path / "missing" / "x.spv"))
    assert_one_line_error(result, 1, "missing")
    assert not dumps.exists()
    dumps.mkdir()
    (dumps / "keep.txt").write_text("mine")
    result = run("compile", SEED, "--dump-after", "all", "--dump-dir", str(dumps), "-o", str(tmp_path))
    assert_one_line_error(result, 1, str(tmp_path), "Is a directory")
    assert os.listdir(dumps) == ["keep.txt"]


# ---- file-system errors are input errors (exit 1) -------------------------------------------------

def test_output_naming_a_directory(tmp_path):
    assert_one_line_error(run("compile", SEED, "-o", str(tmp_path)), 1, str(tmp_path), "Is a directory")


def test_output_on_a_full_disk(tmp_path):
    full = device(tmp_path, "full", 7)
    assert_one_line_error(run("compile", SEED, "-o", full), 1, full, "No space left")
    assert stat.S_ISCHR(os.stat(full).st_mode)


def test_standard_output_on_a_full_disk(tmp_path):
    with open(device(tmp_path, "full", 7), "w") as full:
        result = subprocess.run([sys.executable, "-m", "reconverge.tools.cli", "compile", SEED], stdout=full,
                                stderr=subprocess.PIPE, text=True, cwd=ROOT)
    assert_one_line_error(result, 1, "<stdout>", "No space left")


def test_dump_dir_that_is_a_file(tmp_path):
    blocker = tmp_path / "file"
    blocker.write_text("x")
    result = run("compile", SEED, "--dump-after", "read", "--dump-dir", str(blocker), "-o", str(tmp_path / "o"))
    assert_one_line_error(result, 1, str(blocker), "Not a directory")
    assert sorted(os.listdir(tmp_path)) == ["file"]


def test_input_that_is_a_directory(tmp_path):
    d = tmp_path / "d.cl"
    d.mkdir()
    assert_one_line_error(run("compile", str(d)), 1, str(d), "Is a directory")


@pytest.fixture
def unprivileged():
    """A world-readable scratch directory and a runner for which permission bits bind: as root it drops
    the capabilities that override them (CAP_DAC_OVERRIDE, CAP_DAC_READ_SEARCH) but keeps its uid, so the
    checkout stays readable wherever it is (a 0700 temporary directory included)."""
    scratch = tempfile.mkdtemp(prefix="reconverge-perm-")
    os.chmod(scratch, 0o755)

    def run_as_user(*args):
        prefix = []
        if os.geteuid() == 0:
            prefix = ["setpriv", "--bounding-set=-dac_override,-dac_read_search", "--"]
        env = dict(os.environ, PYTHONPATH=ROOT, PYTHONDONTWRITEBYTECODE="1", HOME=scratch)
        return subprocess.run(prefix + [sys.executable, "-m", "reconverge.tools.cli", *args], capture_output=True,
                              text=True, cwd=ROOT, env=env)
    yield scratch, run_as_user
    shutil.rmtree(scratch, ignore_errors=True)


def test_unreadable_input(unprivileged):
    scratch, run_as_user = unprivileged
    source = kernel_file_text(scratch)
    os.chmod(source, 0o000)
    assert_one_line_error(run_as_user("compile", source), 1, source, "Permission denied")


def kernel_file_text(directory):
    path = os.path.join(directory, "plain.ll")
    with open(path, "w") as f:
        f.write(COPY_KERNEL.format(kernel="k", a="a", b="b"))
    return path


def test_output_into_a_read_only_directory(unprivileged):
    scratch, run_as_user = unprivileged
    source = kernel_file_text(scratch)
    locked = os.path.join(scratch, "locked")
    os.mkdir(locked, 0o555)
    os.chmod(locked, 0o555)
    out = os.path.join(locked, "x.nir")
    assert_one_line_error(run_as_user("compile", source, "-o", out), 1, out, "Permission denied")
    assert os.listdir(locked) == []


def test_unwritable_dump_dir_and_out_dir(unprivileged):
    scratch, run_as_user = unprivileged
    source = kernel_file_text(scratch)
    locked = os.path.join(scratch, "locked")
    os.mkdir(locked)
    os.chmod(locked, 0o555)
    result = run_as_user("compile", source, "--dump-after", "read", "--dump-dir", locked, "-o", "-")
    assert_one_line_error(result, 1, locked, "Permission denied")
    result = run_as_user("run", source, "--target", "ir", "--global", "1", "--arg", "a=zeros:1:int32",
                         "--arg", "b=zeros:1:int32", "--out", os.path.join(locked, "out"))
    assert_one_line_error(result, 1, "locked", "Permission denied")
    assert os.listdir(locked) == []


def test_trace_option_values_are_usage_errors(tmp_path):
    asm = tmp_path / "k.asm"
    asm.write_text("nop\n")
    for flags, needle in ((["--simd", "7"], "--simd 7"), (["--simd", "8", "--threads", "0"], "--threads 0"),
                          (["--simd", "8", "--surface", "foo"], "--surface foo"),
                          (["--simd", "8", "--max-steps", "-1"], "--max-steps -1")):
        assert_one_line_error(run("trace", str(asm), *flags, "-o", str(tmp_path / "t.png")), 2, needle)
    assert os.listdir(tmp_path) == ["k.asm"]
