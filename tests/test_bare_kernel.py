"""A kernel for other tools: `compile --emit gen-bin` and `disasm --extract` write one kernel's code alone,
which Intel's iga64 disassembles to the text our disassembler prints; `trace` reads kernel containers
with the payload their kernels were compiled for (the same picture as the bare kernel under --payload
ndrange), and a surface the program needs but was not given names the --surface that binds it."""
from __future__ import annotations

import os
import re
import subprocess
import sys

import numpy as np
import pytest

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
TWO = """kernel void a(global int *o) { o[get_global_id(0)] = 1; }
kernel void b(global int *o) { int i = get_global_id(0); if (i & 1) o[i] = i; else o[i] = -i; }
"""


def _cli(*args: str, cwd) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, "-m", "reconverge.tools.cli", *map(str, args)], cwd=cwd, capture_output=True,
                          env=dict(os.environ, PYTHONPATH=ROOT), timeout=300)


@pytest.fixture(scope="module")
def built(tmp_path_factory):
    d = tmp_path_factory.mktemp("bare")
    (d / "two.cl").write_text(TWO)
    for args in (("--emit", "gen", "-o", "two.gen"), ("--emit", "gen-bin", "--kernel", "b", "-o", "b.krn")):
        done = _cli("compile", "two.cl", "-O2", *args, cwd=d)
        assert done.returncode == 0, done.stderr
    np.save(d / "o.npy", np.zeros(32, np.int32))
    return d


def test_gen_bin_is_the_kernel_alone_and_iga64_reads_it(built):
    iga = subprocess.run(["iga64", "-p=9", "-d", str(built / "b.krn")], capture_output=True, text=True, check=True)
    ours = _cli("disasm", "b.krn", cwd=built)
    assert ours.returncode == 0 and iga.stdout.split() == ours.stdout.decode().split()
    assert "{EOT}" in iga.stdout


def test_extract_gives_the_same_bytes_and_refusals_are_one_line(built):
    done = _cli("disasm", "two.gen", "--extract", "b", "-o", "b2.krn", cwd=built)
    assert done.returncode == 0, done.stderr
    assert (built / "b2.krn").read_bytes() == (built / "b.krn").read_bytes()
    missing = _cli("disasm", "two.gen", "--extract", "c", "-o", "c.krn", cwd=built)
    assert missing.returncode == 1 and b"no kernel named 'c' (kernels: a, b)" in missing.stderr
    several = _cli("compile", "two.cl", "--emit", "gen-bin", "-o", "x.krn", cwd=built)
    assert several.returncode == 2 and b"--kernel" in several.stderr and not (built / "x.krn").exists()


def test_trace_reads_a_container_with_the_compiled_payload(built):
    done = _cli("trace", "two.gen", "--kernel", "b", "--global", "32", "--surface", "0=o.npy", "-o", "c.svg",
                cwd=built)
    assert done.returncode == 0, done.stderr
    bare = _cli("trace", "b.krn", "--payload", "ndrange", "--global", "32", "--surface", "0=o.npy", "-o", "k.svg",
                cwd=built)
    assert bare.returncode == 0, bare.stderr
    # the same lane activity (the pictures' images); only the titles differ: the container names the kernel
    images = [re.findall(rb'href="data:image/png;base64,([^"]+)"', (built / f).read_bytes()) for f in ("c.svg", "k.svg")]
    assert images[0] and images[0] == images[1]
    assert b">@b \xc2\xb7 SIMD16" in (built / "c.svg").read_bytes()
    assert b">b.krn \xc2\xb7 SIMD16" in (built / "k.svg").read_bytes()
    several = _cli("trace", "two.gen", "-o", "x.png", cwd=built)
    assert several.returncode == 2 and b"--kernel (a, b)" in several.stderr


def test_a_missing_surface_names_the_option_that_binds_it(built):
    done = _cli("trace", "two.gen", "--kernel", "a", "-o", "m.png", cwd=built)
    assert done.returncode == 1 and not (built / "m.png").exists()
    assert done.stderr.decode().strip().endswith("bind a numpy array there with --surface 0=FILE.npy")


def test_trace_help_states_both_payloads(built):
    text = " ".join(_cli("trace", "--help", cwd=built).stdout.decode().split())
    assert "r1 onwards: each lane's local id as ud" in text and "r1, r2, r3 local id x, y, z per lane as uw" in text
