"""The encoded-code validator over the whole corpus: every Gen kernel container the command line makes
from the kernel corpus (tools/spirv_identity.py's list and build options, plus examples/) at -O0 and -O2,
in SIMD8 and SIMD16 and every --cf mode, checked by isa/gen9/validate.py; with --iga, iga64's own region
and type checker (-Wall) reads each kernel's text too.

    python -m reconverge.tools.gen_validate_corpus             # exit 1 and one line per violation when any
    python -m reconverge.tools.gen_validate_corpus --iga       # ... and iga64 -Wall's warnings
    python -m reconverge.tools.gen_validate_corpus tests/kernels/loops.cl --levels=-O2 --cf hybrid

Known: iga64 -Wtypes warns "invalid operand type combination" on a value-producing float compare
(`cmp (16|M0) (eq)f0.1 r10.0<1>:d r8.0<8;8,1>:f ...`, float_math); Mesa's builder writes cmp's destination
in src0's type because "the destination type doesn't matter on newer generations", so validate.py has
no such rule. Typing that destination :f (same bits) would quiet iga64.

The test suite checks a fixed slice (tests/gen/test_gen_validate.py) and every binary it
compiles (backend/gen.compile_gen_kernel validates what it emits); this is the on-demand full run
(about 1,000 compiles: several minutes on two cores).
"""
from __future__ import annotations

import argparse
import contextlib
import glob
import io
import os
import shutil
import subprocess
import sys
import tempfile

from reconverge.tools.spirv_identity import BUILD_OPTIONS, GEN_CF_MODES, GEN_LEVELS, GEN_WIDTHS, corpus

ROOT = os.path.dirname(os.path.dirname(os.path.realpath(__file__)))


def files(root: str = ROOT) -> list[str]:
    """The corpus files and the examples, relative to `root`."""
    return corpus(root) + sorted(os.path.relpath(p, root) for p in glob.glob(os.path.join(root, "examples", "*.cl")))


def compile_container(path: str, level: str, simd: str, cf: str, target: str) -> str | None:
    """Compile through the command line into `target`; the one-line error when it refuses."""
    from reconverge.tools import cli
    include = os.path.join(os.path.dirname(path), "include")
    build = BUILD_OPTIONS.get(os.path.basename(path), ()) + ((f"-I{include}",) if os.path.isdir(include) else ())
    errors = io.StringIO()
    with contextlib.redirect_stderr(errors):
        status = cli.main(["compile", path, level, "--emit", "gen", "--simd", simd, "--cf", cf, "-o", target, *build])
    return None if status == 0 else errors.getvalue().strip()


def iga_warnings(code: bytes, tmp: str) -> list[str]:
    """iga64 -Wall's warnings on our disassembly of `code` reassembled."""
    from reconverge.isa.gen9.disassembler import disassemble
    asm = os.path.join(tmp, "k.asm")
    with open(asm, "w") as f:
        f.write(disassemble(code))
    iga = subprocess.run(["iga64", "-p=9", "-a", "-Wall", asm, "-o", os.path.join(tmp, "k.iga.krn")],
                         capture_output=True, text=True)
    return [line for line in iga.stderr.splitlines() if "warning" in line or "error" in line]


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m reconverge.tools.gen_validate_corpus",
                                     description=__doc__.splitlines()[0])
    parser.add_argument("paths", nargs="*", help="kernel files (default: the corpus and examples/)")
    parser.add_argument("--levels", nargs="+", default=list(GEN_LEVELS), metavar="-ON")
    parser.add_argument("--simd", nargs="+", default=list(GEN_WIDTHS))
    parser.add_argument("--cf", nargs="+", default=list(GEN_CF_MODES))
    parser.add_argument("--iga", action="store_true", help="also run iga64 -Wall on every kernel's text")
    args = parser.parse_args(argv)
    from reconverge.isa.gen9.container import unpack_container
    from reconverge.isa.gen9.validate import validate_binary
    paths = args.paths or [os.path.join(ROOT, p) for p in files()]
    tmp = tempfile.mkdtemp(prefix="gen-validate-")
    bad = kernels = 0
    try:
        target = os.path.join(tmp, "k.krn")
        for path in paths:
            for level in args.levels:
                for simd in args.simd:
                    for cf in args.cf:
                        where = f"{os.path.relpath(path, ROOT)} {level} simd{simd} {cf}"
                        if os.path.exists(target):
                            os.unlink(target)
                        error = compile_container(path, level, simd, cf, target)
                        if error is not None:
                            if "internal error" in error:
                                print(f"{where}: {error}")
                                bad += 1
                            continue
                        with open(target, "rb") as f:
                            data = f.read()
                        for kernel in unpack_container(data):
                            kernels += 1
                            found = [str(v) for v in validate_binary(kernel.code)]
                            if args.iga:
                                found += [f"iga64: {w}" for w in iga_warnings(kernel.code, tmp)]
                            bad += len(found)
                            for line in found:
                                print(f"{where} @{kernel.name}: {line}")
    finally:
        shutil.rmtree(tmp, ignore_errors=True)
    print(f"{kernels} kernels, {bad} problem{'s' * (bad != 1)}")
    return 1 if bad else 0


if __name__ == "__main__":
    sys.exit(main())
