"""OpenCL C to LLVM IR text, through clang-22 run as a subprocess.

Flags: the spir64 target, OpenCL C 3.0 with the default header, and at -O0 `-disable-O0-optnone` so that
LLVM passes run on the result at all. `-fgnu89-inline`: a plain (non-static) `inline` function gets a
body, as OpenCL drivers give it; under C99 rules it would be a declaration only, and the kernel would
call an undefined function. `-fverify-intermediate-code`: LLVM's verifier runs on the module (first and
last in clang's pass pipeline; a release clang skips it by default, `-disable-llvm-verifier`), so the
text we read is a verified module without parsing it again (text_module.py).

Build options are those of clBuildProgram (OpenCL 3.0 API specification, section 5.8.6), passed to clang
as they are: `-D NAME[=VALUE]`, `-I DIR`, `-cl-std=`, the `-cl-*` math and optimisation options, `-w`,
`-Werror`; `-cl-std` replaces our CL3.0. Anything else for clang goes through `--clang-arg`.

clang's diagnostics are its own: run_clang keeps everything clang printed (warnings on success, every
error with its source line, caret and fix-it), for the command line to pass through whole. Colour is
clang's choice as if it wrote to our standard error: an explicit -f[no-]color-diagnostics (or gcc's
-fdiagnostics-color=) decides; else NO_COLOR (non-empty) turns it off; else it is on when our standard
error is a terminal (clang's own rule, which it cannot apply itself through the pipe we read).
"""
from __future__ import annotations

import os
import sys

from reconverge.lazy_regex import lazy_compile
from reconverge.lowering import child_process
from reconverge.lowering.errors import CompileError
from reconverge.records import record

CLANG = os.environ.get("RECONVERGE_CLANG", "clang-22")
OPT_LEVELS = ("-O0", "-O1", "-O2", "-O3", "-Os", "-Oz")
_COLOUR_FLAGS = ("-fcolor-diagnostics", "-fno-color-diagnostics", "-fdiagnostics-color")
_ANSI = lazy_compile(r"\x1b\[[0-9;]*m")


# clBuildProgram's options (OpenCL 3.0 API spec 5.8.6) that take no value
CL_FLAGS = ("-cl-single-precision-constant", "-cl-denorms-are-zero", "-cl-fp32-correctly-rounded-divide-sqrt",
            "-cl-opt-disable", "-cl-strict-aliasing", "-cl-uniform-work-group-size", "-cl-no-subgroup-ifp",
            "-cl-mad-enable", "-cl-no-signed-zeros", "-cl-unsafe-math-optimizations", "-cl-finite-math-only",
            "-cl-fast-relaxed-math", "-cl-kernel-arg-info", "-w", "-Werror")


def clang_command(source_path: str, opt_level: str = "-O0", build_options: tuple[str, ...] = ()) -> list[str]:
    """clang-22's command line for `source_path` ('-': the source on standard input)."""
    if opt_level not in OPT_LEVELS:
        raise ValueError(f"unknown optimisation level {opt_level!r}")
    std = [o for o in build_options if o.startswith("-cl-std=")]
    # -cl-kernel-arg-info: clang leaves kernel parameters unnamed (%0, %1); !kernel_arg_name keeps the
    # source's names for the IR, its dumps and `reconverge run --arg NAME=...`
    cmd = [CLANG, "-x", "cl", std[-1] if std else "-cl-std=CL3.0", "-Xclang", "-finclude-default-header",
           "-cl-kernel-arg-info", "-fgnu89-inline", "-fverify-intermediate-code", "-target", "spir64",
           "-emit-llvm", "-S", opt_level]
    if opt_level == "-O0":
        cmd += ["-Xclang", "-disable-O0-optnone"]
    if _colour_by_default(build_options):
        cmd += ["-fcolor-diagnostics"]
    # the build options after ours, whole: a pair (`-Xclang X`, `-mllvm X`) stays a pair
    return [*cmd, *[o for o in build_options if not o.startswith("-cl-std=")], "-o", "-", source_path]


def _colour_by_default(build_options: tuple[str, ...]) -> bool:
    """Whether to ask clang for colour that it would choose itself writing to our standard error."""
    if any(o.startswith(_COLOUR_FLAGS) for o in build_options) or os.environ.get("NO_COLOR"):
        return False
    try:
        return sys.stderr.isatty()
    except (AttributeError, ValueError):
        return False


class ClangError(CompileError):
    """clang rejected the source. str(): its first error, one line (for one-line reports such as
    `check`'s); `diagnostics`: everything clang printed, which the command line passes through whole."""

    def __init__(self, message: str, diagnostics: str):
        super().__init__(message)
        self.diagnostics = diagnostics


@record
class ClangOutput:
    llvm_text: str
    diagnostics: str        # what clang printed on success (warnings, remarks); empty when nothing


def run_clang(source_path: str, opt_level: str = "-O0", build_options: tuple[str, ...] = (),
              source: bytes | None = None) -> ClangOutput:
    """The LLVM IR text clang-22 makes of an OpenCL C file (or of `source`, given on standard input and
    named <stdin> in clang's messages), with clang's diagnostics; a failure is a ClangError."""
    if source is None and not os.path.isfile(source_path):
        raise CompileError(f"{source_path}: no such file")
    command = clang_command("-" if source is not None else source_path, opt_level, tuple(build_options))
    try:        # (asked of the launch, not of shutil.which first: importing shutil was 1% of a compile)
        proc = child_process.run(command, input=source if source is not None else b"", capture_output=True)
    except (FileNotFoundError, PermissionError, NotADirectoryError):
        raise CompileError(f"{CLANG} not found: install it with 'apt-get install clang-22' "
                           "(or set RECONVERGE_CLANG to a clang of LLVM 22)") from None
    stderr = proc.stderr.decode("utf-8", errors="replace")
    if proc.returncode != 0:
        lines = [_ANSI.sub("", line) for line in stderr.splitlines()]
        errors = [line for line in lines if ": error:" in line or "fatal error:" in line]
        first = errors[0] if errors else (stderr.strip() and lines[0]) or f"{CLANG} failed"
        more = f" (and {len(errors) - 1} more errors)" if len(errors) > 1 else ""
        raise ClangError(first.strip() + more, stderr or f"{source_path}: {CLANG} failed\n")
    return ClangOutput(proc.stdout.decode("utf-8", errors="replace"), stderr)


def compile_opencl(source_path: str, opt_level: str = "-O0", build_options: tuple[str, ...] = ()) -> str:
    """The LLVM IR text clang-22 makes of an OpenCL C file (run_clang without its warnings)."""
    return run_clang(source_path, opt_level, build_options).llvm_text
