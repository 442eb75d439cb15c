"""Build options as OpenCL hosts pass them (-D, -I, -cl-*, --clang-arg), and C99 `inline` helpers, on the
command line and through the harness, checked on ir against llvm."""
import numpy as np
import pytest

from reconverge.tools.targets.harness import compare, load_program, run_target
from tests.test_cli import assert_one_line_error, run

HEADER = "#define SCALE(x) ((x) * FACTOR + OFFSET)\n"
KERNEL = """#include "scale.h"
inline int helper(int x) { return SCALE(x) + 1; }
kernel void k(global int *o) { o[get_global_id(0)] = helper((int)get_global_id(0)); }
"""


@pytest.fixture
def project(tmp_path):
    (tmp_path / "inc").mkdir()
    (tmp_path / "inc" / "scale.h").write_text(HEADER)
    (tmp_path / "k.cl").write_text(KERNEL)
    return tmp_path


@pytest.mark.parametrize("level", ["-O0", "-O2"])
def test_defines_an_included_header_and_a_c99_inline_helper(project, level):
    options = ("-DFACTOR=3", "-DOFFSET", f"-I{project / 'inc'}", "-cl-mad-enable", "-cl-std=CL2.0")
    program = load_program(str(project / "k.cl"), level, build_options=options)
    assert program.build_options == options
    args = [np.zeros(8, np.int32)]
    ref, got = (run_target(t, program, "k", args, 8, 8) for t in ("llvm", "ir"))
    assert compare(ref, got, ["o"]) == [] and got[0].tolist() == [3 * i + 1 + 1 for i in range(8)]


@pytest.mark.parametrize("target", ["ir", "llvm"])
def test_build_options_on_the_command_line(project, target):
    result = run("run", str(project / "k.cl"), "--target", target, "--global", "4", "-D", "FACTOR=2", "-D", "OFFSET=10",
                 "-I", str(project / "inc"), "-cl-fast-relaxed-math", "--clang-arg=-Wno-everything",
                 "--arg", "o=zeros:4:int32", "--out", str(project / "out"))
    assert result.returncode == 0, result.stderr
    assert np.load(project / "out" / "o.npy").tolist() == [2 * i + 10 + 1 for i in range(4)]


def test_build_option_errors(project, tmp_path):
    source = str(project / "k.cl")
    missing = run("compile", source)                    # clang's report, whole
    assert missing.returncode == 1 and "k.cl:1:10: fatal error: 'scale.h' file not found" in missing.stderr
    assert_one_line_error(run("compile", source, "-cl-made-up"), 2, "-cl-made-up", "unknown OpenCL build option")
    assert_one_line_error(run("compile", source, "-cl-std=CL9.9"), 2, "-cl-std=CL9.9")
    ll = tmp_path / "k.ll"
    ll.write_text("define void @f() {\n  ret void\n}\n")
    assert_one_line_error(run("compile", str(ll), "-D", "X=1"), 2, "-DX=1", "OpenCL C")
