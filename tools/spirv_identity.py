"""Proof that a refactoring changed no SPIR-V and no Gen binary: hash every module the kernel corpus
produces at -O0..-O3 (and with --gen every Gen kernel container at -O0 and -O2 in both SIMD widths and
every --cf mode), here and at another git revision, and list the outputs that differ.

    python -m reconverge.tools.spirv_identity                 # compare the work tree's SPIR-V with HEAD
    python -m reconverge.tools.spirv_identity --gen           # ... its Gen binaries (8 per kernel file and level)
    python -m reconverge.tools.spirv_identity --base REV      # ... with any revision
    python -m reconverge.tools.spirv_identity --hash          # print this tree's manifest (JSON) and exit

Gen binaries are produced through the command line (`reconverge compile --emit gen`, called in process),
the one interface that stays put while the compiler's internals are rearranged.

The base revision is checked out into a temporary git worktree and hashed by this same script run
there (copied in, so the base need not contain it), in a child process whose imports resolve to that
worktree. A kernel that fails to compile is recorded with its one-line error, so a change in what is
refused shows up too. Cost: one compile per kernel and level on each side (about a minute each).
"""
from __future__ import annotations

import argparse
import glob
import hashlib
import json
import os
import re
import shutil
import subprocess
import sys
import tempfile

LEVELS = ("-O0", "-O1", "-O2", "-O3")
GEN_LEVELS = ("-O0", "-O2")
GEN_WIDTHS = ("8", "16")
GEN_CF_MODES = ("structured", "blockip", "hybrid", "auto")
BUILD_OPTIONS = {"defines.cl": ("-DORDER=3", "-DSCALE=5")}   # as tests/test_real_kernels.py builds it
CORPUS_GLOBS = ("tests/kernels/*.cl", "tests/kernels_barrier/*.cl", "tests/kernels_real/*.cl")


def corpus(root: str) -> list[str]:
    """The corpus's kernel files, relative to `root`, in a fixed order."""
    paths: list[str] = []
    for pattern in CORPUS_GLOBS:
        paths += sorted(os.path.relpath(p, root) for p in glob.glob(os.path.join(root, pattern)))
    return paths


def manifest(root: str) -> dict[str, str]:
    """'file -O<n>' -> sha256 of the SPIR-V module (or 'error: ...'), compiled by the tree at `root`."""
    from reconverge.backend.spirv import compile_spirv
    from reconverge.lowering.errors import CompileError
    try:
        from reconverge.lowering.program import compile_path  # the compile driver
    except ImportError:                                 # a base revision from before it
        from reconverge.lowering.pipeline import compile_path  # type: ignore[attr-defined,no-redef]
    out: dict[str, str] = {}
    for rel in corpus(root):
        include = os.path.join(root, os.path.dirname(rel), "include")
        build = BUILD_OPTIONS.get(os.path.basename(rel), ()) + ((f"-I{include}",) if os.path.isdir(include) else ())
        for level in LEVELS:
            try:
                funcs = compile_path(os.path.join(root, rel), level, build_options=build)
                out[f"{rel} {level}"] = hashlib.sha256(compile_spirv(list(funcs.values()))).hexdigest()
            except CompileError as exc:
                out[f"{rel} {level}"] = f"error: {exc}"
    return out


def gen_manifest(root: str) -> dict[str, str]:
    """'file -O<n> simd<w> <cf>' -> sha256 of the Gen container (or 'error: ...'), by the tree at `root`."""
    import contextlib
    import io

    from reconverge.tools import cli
    out: dict[str, str] = {}
    tmp = tempfile.mkdtemp(prefix="gen-identity-")
    try:
        target = os.path.join(tmp, "k.krn")
        for rel in corpus(root):
            include = os.path.join(root, os.path.dirname(rel), "include")
            build = BUILD_OPTIONS.get(os.path.basename(rel), ()) + ((f"-I{include}",) if os.path.isdir(include) else ())
            for level in GEN_LEVELS:
                for simd in GEN_WIDTHS:
                    for cf in GEN_CF_MODES:
                        if os.path.exists(target):
                            os.unlink(target)
                        errors = io.StringIO()
                        argv = ["compile", os.path.join(root, rel), level, "--emit", "gen", "--simd", simd,
                                "--cf", cf, "-o", target, *build]
                        with contextlib.redirect_stderr(errors):
                            status = cli.main(argv)
                        key = f"{rel} {level} simd{simd} {cf}"
                        if status == 0:
                            with open(target, "rb") as f:
                                out[key] = hashlib.sha256(f.read()).hexdigest()
                        else:
                            out[key] = "error: " + errors.getvalue().strip().replace(root + os.sep, "")
    finally:
        shutil.rmtree(tmp, ignore_errors=True)
    return out


def base_manifest(revision: str, root: str, gen: bool = False) -> dict[str, str]:
    """manifest() (or gen_manifest()) of `revision`, computed in a temporary worktree by a child process."""
    tmp = tempfile.mkdtemp(prefix="spirv-identity-")
    tree = os.path.join(tmp, "tree")
    try:
        subprocess.run(["git", "-C", root, "worktree", "add", "--detach", "-q", tree, revision], check=True)
        with open(os.path.realpath(__file__), encoding="utf-8") as f:
            script = f.read()
        module = "reconverge.tools.spirv_identity"
        if not os.path.isdir(os.path.join(tree, "reconverge", "tools")):
            # a revision from before the packages moved under reconverge/ imports them by their bare names
            script = re.sub(r"\breconverge\.(lowering|backend|isa|tools)\b", r"\1", script)
            module = module.removeprefix("reconverge.")
        with open(os.path.join(tree, "tools", "spirv_identity.py"), "w", encoding="utf-8") as f:
            f.write(script)
        env = dict(os.environ, PYTHONPATH=tree)
        child = subprocess.run([sys.executable, "-m", module, "--hash", *(["--gen"] if gen else [])],
                               cwd=tree, env=env, check=True, capture_output=True, text=True)
        return json.loads(child.stdout)
    finally:
        subprocess.run(["git", "-C", root, "worktree", "remove", "--force", tree], check=False)
        shutil.rmtree(tmp, ignore_errors=True)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m reconverge.tools.spirv_identity",
                                     description=__doc__.splitlines()[0])
    parser.add_argument("--base", default="HEAD", help="git revision to compare with (default HEAD)")
    parser.add_argument("--hash", action="store_true", help="print this tree's manifest as JSON and exit")
    parser.add_argument("--gen", action="store_true",
                        help="Gen kernel containers (-O0/-O2, SIMD8/16, every --cf mode) instead of SPIR-V")
    args = parser.parse_args(argv)
    root = os.path.dirname(os.path.dirname(os.path.realpath(__file__)))
    build = gen_manifest if args.gen else manifest
    if args.hash:
        json.dump(build(root), sys.stdout, indent=1, sort_keys=True)
        return 0
    before = base_manifest(args.base, root, args.gen)
    after = build(root)
    changed = sorted(k for k in before.keys() | after.keys() if before.get(k) != after.get(k))
    for key in changed:
        print(f"differs: {key}: {before.get(key, 'absent')[:80]} -> {after.get(key, 'absent')[:80]}")
    kind = "Gen binaries" if args.gen else "modules"
    print(f"{len(after) - len(changed)} of {len(after)} {kind} identical to {args.base}")
    return 1 if changed else 0


if __name__ == "__main__":
    sys.exit(main())
