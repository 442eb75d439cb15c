"""Every child of every target dies with reconverge, and no temporary file is left behind: after a
--timeout, and when reconverge itself is killed (SIGTERM, SIGKILL) while a tool it started is running.
The llvm target compiles its builtin library with clang-22 in a forked child; a fresh TMPDIR (no cached
library) makes sure that clang is running when the kill comes. `check` interrupted by SIGINT or SIGTERM
still writes its reports, marks the inputs it did not finish as not run, and exits non-zero.
"""
from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import time
import uuid
import xml.etree.ElementTree as ET

import pytest

from tests.test_cli import ROOT

ENDLESS = """
define spir_kernel void @spin(ptr addrspace(1) %a) {
entry:
  br label %loop
loop:
  %v = load volatile i32, ptr addrspace(1) %a
  br label %loop
}
"""


def marked(marker: str) -> list[tuple[int, str]]:
    """(pid, command line) of every process whose environment carries `marker`."""
    found = []
    for pid in filter(str.isdigit, os.listdir("/proc")):
        try:
            with open(f"/proc/{pid}/environ", "rb") as f:
                if marker.encode() not in f.read():
                    continue
            with open(f"/proc/{pid}/cmdline", "rb") as f:
                found.append((int(pid), f.read().replace(b"\0", b" ").decode(errors="replace")))
        except OSError:
            continue
    return found


def wait_until(condition, seconds: float):
    deadline = time.monotonic() + seconds
    while time.monotonic() < deadline:
        value = condition()
        if value:
            return value
        time.sleep(0.02)
    return condition()


@pytest.fixture
def sandbox(tmp_path):
    """A fresh TMPDIR and a marker in the environment of reconverge and of everything it starts; any
    process still marked at the end is killed (and fails the test that left it)."""
    tmp = tmp_path / "tmp"
    tmp.mkdir()
    marker = f"RECONVERGE_ORPHAN_TEST={uuid.uuid4().hex}"
    env = dict(os.environ, PYTHONPATH=ROOT, TMPDIR=str(tmp), RECONVERGE_ORPHAN_TEST=marker.split("=")[1])
    yield tmp_path, tmp, marker, env
    for pid, _ in marked(marker):
        try:
            os.kill(pid, signal.SIGKILL)
        except ProcessLookupError:
            pass


def start(env, *argv, cwd=None) -> subprocess.Popen:
    """reconverge as a shell starts it: SIGINT and SIGTERM at their defaults and unblocked, whatever an
    earlier test in this worker left in the signal state a child inherits."""
    return subprocess.Popen([sys.executable, "-m", "reconverge.tools.cli", *map(str, argv)], env=env, cwd=cwd,
                            stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
                            preexec_fn=_shell_signals)


def _shell_signals() -> None:
    signal.pthread_sigmask(signal.SIG_UNBLOCK, {signal.SIGINT, signal.SIGTERM})
    signal.signal(signal.SIGINT, signal.SIG_DFL)
    signal.signal(signal.SIGTERM, signal.SIG_DFL)


def clang_of(marker: str):
    return [p for p in marked(marker) if "clang" in p[1].split(" ")[0]]


def assert_nothing_left(marker, tmp):
    left = wait_until(lambda: not marked(marker), 5) or marked(marker)
    assert left is True, f"orphans: {left}"
    assert [f for f in os.listdir(tmp) if not f.startswith("reconverge-oracle-lib-")] == []


@pytest.mark.parametrize("how", ["timeout", "SIGTERM", "SIGKILL"])
def test_the_llvm_target_leaves_no_orphan_and_no_temporary_file(sandbox, how):
    tmp_path, tmp, marker, env = sandbox
    kernel = tmp_path / "spin.ll"
    kernel.write_text(ENDLESS)
    argv = ["run", kernel, "--target", "llvm", "--global", "1", "--arg", "a=zeros:1:int32", "--out", tmp_path / "o"]
    proc = start(env, *argv, *(["--timeout", "3"] if how == "timeout" else []))
    try:
        assert wait_until(lambda: clang_of(marker), 60), "clang never started"
        if how == "timeout":
            proc.wait(60)
            assert proc.returncode == 1 and "--timeout" in proc.stderr.read()
        else:
            proc.send_signal(getattr(signal, how))
            proc.wait(60)
            assert proc.returncode == (143 if how == "SIGTERM" else -signal.SIGKILL)
    finally:
        proc.kill()
        proc.wait()
    assert_nothing_left(marker, tmp)
    assert not (tmp_path / "o").exists()


@pytest.mark.parametrize("sig", ["SIGINT", "SIGTERM"])
def test_an_interrupted_check_reports_unfinished_inputs_as_not_run(sandbox, sig):
    tmp_path, tmp, marker, env = sandbox
    (tmp_path / "a.cl").write_text("kernel void a(global int *o) { o[get_global_id(0)] = 1; }\n")
    os.mkfifo(tmp_path / "never")               # opening it for reading waits for a writer: forever
    (tmp_path / "z.cl").write_text('#include "never"\nkernel void z(global int *o) { o[0] = 2; }\n')
    proc = start(env, "check", "a.cl", "z.cl", "-j", "1", "--junit", "r.xml", "--json", "r.json", cwd=tmp_path)
    try:
        assert wait_until(lambda: [p for p in clang_of(marker) if "z.cl" in p[1]], 120), "z.cl never started"
        proc.send_signal(getattr(signal, sig))
        out, err = proc.communicate(timeout=60)
    finally:
        proc.kill()
        proc.wait()
    assert proc.returncode == (130 if sig == "SIGINT" else 143), err
    assert "1 passed, 0 failed, 1 not run" in out, out
    doc = json.loads((tmp_path / "r.json").read_text())
    assert [r["status"] for r in doc["inputs"]] == ["passed", "not run"]
    assert doc["summary"]["interrupted"] == sig
    suites = {s.get("name"): s for s in ET.parse(tmp_path / "r.xml").getroot()}
    assert suites["z.cl"].get("skipped") == "1" and suites["z.cl"].find("testcase/skipped") is not None
    assert suites["z.cl"].find("testcase/failure") is None
    assert suites["a.cl"].find("testcase/skipped") is None and suites["a.cl"].find("testcase/failure") is None
    assert_nothing_left(marker, tmp)


def test_a_tool_gets_sigkill_as_its_parent_death_signal():
    """child_process.run starts a tool (through setpriv where it is installed, else setting the signal in the
    forked child): the tool itself, after its execve, has SIGKILL as its parent-death signal."""
    from reconverge.lowering import child_process
    probe = ("import ctypes, sys; libc = ctypes.CDLL(None, use_errno=True); signal = ctypes.c_int(0); "
             "libc.prctl(2, ctypes.byref(signal), 0, 0, 0); print(signal.value)")      # PR_GET_PDEATHSIG
    proc = child_process.run([sys.executable, "-c", probe], capture_output=True, text=True, timeout=60)
    assert proc.returncode == 0, proc.stderr
    assert int(proc.stdout) == signal.SIGKILL
    with pytest.raises(FileNotFoundError):
        child_process.run([f"no-such-tool-{uuid.uuid4().hex}"], capture_output=True)
