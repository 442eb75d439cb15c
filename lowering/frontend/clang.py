"""OpenCL C to LLVM IR text, through clang-22 run as a subprocess.

Flags: the spir64 target, OpenCL C 3.0 with the default header, and at -O0 `-disable-O0-optnone` so that
LLVM passes run on the result at all. `-fgnu89-inline`: a plain (non-static) `inline` function gets a
body, as OpenCL drivers give it; under C99 rules it would be a declaration only, and the kernel would
call an undefined function.

Build options are those of clBuildProgram (OpenCL 3.0 API specification, section 5.8.6), passed to clang
as they are: `-D NAME[=VALUE]`, `-I DIR`, `-cl-std=`, the `-cl-*` math and optimisation options, `-w`,
`-Werror`; `-cl-std` replaces our CL3.0. Anything else for clang goes through `--clang-arg`.
"""
from __future__ import annotations

import os
import shutil

from lowering import child_process
from lowering.errors import CompileError

CLANG = os.environ.get("RECONVERGE_CLANG", "clang-22")
OPT_LEVELS = ("-O0", "-O1", "-O2", "-O3")


# clBuildProgram's options (OpenCL 3.0 API spec 5.8.6) that take no value
CL_FLAGS = ("-cl-single-precision-constant", "-cl-denorms-are-zero", "-cl-fp32-correctly-rounded-divide-sqrt",
            "-cl-opt-disable", "-cl-strict-aliasing", "-cl-uniform-work-group-size", "-cl-no-subgroup-ifp",
            "-cl-mad-enable", "-cl-no-signed-zeros", "-cl-unsafe-math-optimizations", "-cl-finite-math-only",
            "-cl-fast-relaxed-math", "-cl-kernel-arg-info", "-w", "-Werror")


def clang_command(source_path: str, opt_level: str = "-O0", build_options: tuple[str, ...] = ()) -> list[str]:
    if opt_level not in OPT_LEVELS:
        raise ValueError(f"unknown optimisation level {opt_level!r}")
    std = [o for o in build_options if o.startswith("-cl-std=")]
    # -cl-kernel-arg-info: clang leaves kernel parameters unnamed (%0, %1); !kernel_arg_name keeps the
    # source's names for the IR, its dumps and `reconverge run --arg NAME=...`
    cmd = [CLANG, "-x", "cl", std[-1] if std else "-cl-std=CL3.0", "-Xclang", "-finclude-default-header",
           "-cl-kernel-arg-info", "-fgnu89-inline", "-target", "spir64", "-emit-llvm", "-S", opt_level,
           *[o for o in build_options if not o.startswith("-cl-std=")], "-o", "-", source_path]
    if opt_level == "-O0":
        cmd[-4:-4] = ["-Xclang", "-disable-O0-optnone"]
    return cmd


def compile_opencl(source_path: str, opt_level: str = "-O0", build_options: tuple[str, ...] = ()) -> str:
    """Return the LLVM IR text clang-22 makes of an OpenCL C file; clang's first error becomes a CompileError."""
    if shutil.which(CLANG) is None:
        raise CompileError(f"{CLANG} not found: install it with 'apt-get install clang-22' "
                           "(or set RECONVERGE_CLANG to a clang of LLVM 22)")
    if not os.path.isfile(source_path):
        raise CompileError(f"{source_path}: no such file")
    proc = child_process.run(clang_command(source_path, opt_level, tuple(build_options)), capture_output=True,
                          text=True)
    if proc.returncode != 0:
        errors = [line for line in proc.stderr.splitlines() if ": error:" in line or "fatal error:" in line]
        first = errors[0] if errors else (proc.stderr.strip().splitlines() or ["clang-22 failed"])[0]
        more = f" (and {len(errors) - 1} more errors)" if len(errors) > 1 else ""
        raise CompileError(first.strip() + more)
    return proc.stdout
