"""Shrink a failing fuzz program with C-Vise (Debian package cvise, the successor of C-Reduce) and keep
the result as a ready regression test.

    python -m reconverge.tools.fuzz.reducer SAVED.cl [--config NAME] [--out DIR] [--timeout SECONDS]
    python -m reconverge.tools.fuzz.reducer --check RECORD.json FILE.cl      (the interestingness test C-Vise runs)

SAVED.cl is what `reconverge fuzz --save-dir` wrote (its SAVED.json next to it says the seed, the launch
and the failing configurations). A candidate is interesting when all of these hold:

1. clang-22 compiles it as OpenCL C with -Werror;
2. it is free of undefined behaviour: the sanitized native run (ubcheck.py) neither traps nor faults,
   and its out[] and cnt[] equal the llvm -O0 reference's (a third, independent reference);
3. the configurations that are not under suspicion still agree with the reference (llvm -O2 and ir -O0,
   unless one of them is the failing one), so the program did not become one on which the compilers may
   legally differ;
4. the failing configuration still fails the same way (a mismatch stays a mismatch; a crash, refusal or
   invalid module keeps its message, numbers and paths aside).

The reduced program is written as DIR/NAME.cl and DIR/NAME.json with its launch, the failing
configurations and the reference's buffers: tests/test_fuzz_regressions.py runs every such pair in
tests/fuzz_regressions/ on those configurations.
"""
from __future__ import annotations

import argparse
import json
import os
import re
import shutil
import subprocess
import sys
import tempfile

import numpy as np

from reconverge.lowering.errors import CompileError
from reconverge.tools.fuzz.generator import FuzzProgram
from reconverge.tools.fuzz.runner import REFERENCE, Config, ProgramRun

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.realpath(__file__))))
GUARDS = (Config("llvm", "-O2"), Config("ir", "-O0"))


def program_from_record(record: dict, source: str) -> FuzzProgram:
    from reconverge.tools.fuzz.generator import ARG_NAMES
    return FuzzProgram(record["seed"], record["mode"], source, record.get("language", "cl"), record["global_size"],
                       record["local_size"], record.get("kernel", "k"), record.get("uses_approx", True),
                       record.get("irreducible", False), record.get("n_arg", 0),
                       list(record.get("arg_names", ARG_NAMES)), record.get("uses_subgroups", False))


def record_of(program: FuzzProgram) -> dict:
    return {"seed": program.seed, "mode": program.mode, "language": program.language, "kernel": program.kernel,
            "global_size": program.global_size, "local_size": program.local_size,
            "uses_approx": program.uses_approx, "irreducible": program.irreducible, "n_arg": program.n_arg,
            "arg_names": program.arg_names, "uses_subgroups": program.uses_subgroups}


def _signature(status: str, message: str) -> str:
    """What must stay the same about a failure while reducing: its kind, and for all but mismatches its
    message without paths, numbers and names of values."""
    if status == "mismatch":
        return status
    text = re.sub(r"/\S+", "", message)
    text = re.sub(r"%[\w.]+|\b\d+\b", "#", text)
    return f"{status}: {text[:80]}"


def is_interesting(record: dict, source: str, workdir: str) -> tuple[bool, str]:
    """The four conditions of the module docstring, the ones that reject most candidates first (C-Vise's
    candidates mostly fail to compile, or lose the failure); (holds, why not)."""
    from reconverge.tools.fuzz.ubcheck import UBFound, check_program
    from reconverge.tools.targets.harness import load_program
    program = program_from_record(record, source)
    config = Config.parse(record["config"])
    path = os.path.join(workdir, "candidate.cl")
    with open(path, "w", encoding="utf-8") as f:
        f.write(source)
    try:
        load_program(path, "-O0", build_options=("-Werror",))
    except CompileError as exc:
        return False, f"clang -Werror: {exc}"
    run = ProgramRun(program, workdir)
    reference = run.run(REFERENCE)
    if reference.status != "ok":
        return False, f"reference: {reference.status}: {reference.message}"
    outcome = run.run(config)
    if _signature(outcome.status, outcome.message) != record["signature"]:
        return False, f"{config.name} now: {outcome.status}: {outcome.message}"
    try:
        native = check_program(program, source, timeout=30)
    except UBFound as exc:
        return False, f"undefined behaviour: {exc}"
    ref = run.reference
    assert ref is not None              # the reference ran
    if native != [int(x) for x in ref[0]] + [int(x) for x in ref[2]]:
        return False, "the sanitized native run disagrees with the llvm reference"
    for guard in GUARDS:
        if guard != config:
            outcome = run.run(guard)
            if outcome.status not in ("ok", "skipped"):
                return False, f"guard {guard.name}: {outcome.status}: {outcome.message}"
    return True, ""


def _check_main(record_path: str, candidate: str) -> int:
    with open(record_path, encoding="utf-8") as f:
        record = json.load(f)
    with open(candidate, encoding="utf-8") as f:
        source = f.read()
    with tempfile.TemporaryDirectory(prefix="reconverge-reduce-") as tmp:
        ok, why = is_interesting(record, source, tmp)
    if not ok:
        print(why, file=sys.stderr)
    return 0 if ok else 1


def reduce_program(program: FuzzProgram, config: str, status: str, message: str, out_dir: str, name: str,
                   timeout: float = 300.0, log=sys.stderr) -> str:
    """Run C-Vise on `program` for the failure of `config`; write DIR/NAME.cl and DIR/NAME.json (the
    regression test's pair) and return the .cl path. CompileError when the start is not interesting or
    cvise is missing."""
    if program.language != "cl":
        raise CompileError(f"{program.name}: only OpenCL C programs are reduced (this one is LLVM IR)")
    if shutil.which("cvise") is None:
        raise CompileError("cvise not found: install the Debian package cvise")
    record = dict(record_of(program), config=config, signature=_signature(status, message))
    with tempfile.TemporaryDirectory(prefix="reconverge-cvise-") as tmp:
        record_path = os.path.join(tmp, "record.json")
        with open(record_path, "w", encoding="utf-8") as f:
            json.dump(record, f)
        ok, why = is_interesting(record, program.source, tmp)
        if not ok:
            raise CompileError(f"{program.name}: {config}: the failure does not reproduce as expected ({why})")
        work = os.path.join(tmp, "prog.cl")
        with open(work, "w", encoding="utf-8") as f:
            f.write(program.source)
        script = os.path.join(tmp, "interesting.sh")
        with open(script, "w", encoding="utf-8") as f:
            f.write(f"#!/bin/sh\nPYTHONPATH={ROOT} exec {sys.executable} -m reconverge.tools.fuzz.reducer --check "
                    f"{record_path} prog.cl\n")          # C-Vise runs it beside a copy of prog.cl
        os.chmod(script, 0o755)
        proc = subprocess.run(["cvise", "--n", "1", "--timeout", str(int(timeout)), "--tidy", "--no-timing",
                               script, "prog.cl"], cwd=tmp, capture_output=True, text=True)
        if proc.returncode != 0:
            raise CompileError(f"cvise failed: {(proc.stderr or proc.stdout).strip().splitlines()[-1:]}")
        with open(work, encoding="utf-8") as f:
            reduced = f.read()
    return save_regression(program_from_record(record, reduced), [config], out_dir, name)


def save_regression(program: FuzzProgram, configs: list[str], out_dir: str, name: str) -> str:
    """DIR/NAME.cl and DIR/NAME.json: the program, its launch, the configurations to run and the
    reference's buffers (out and cnt exactly, fapprox as float bits)."""
    from reconverge.lowering.output import safe_file_name, write_files
    with tempfile.TemporaryDirectory(prefix="reconverge-regression-") as tmp:
        run = ProgramRun(program, tmp)
        if run.run(REFERENCE).status != "ok":
            raise CompileError(f"{name}: the reference does not run")
        ref = run.reference
        assert ref is not None
    record = dict(record_of(program), configs=configs,
                  expected={"out": [int(x) for x in ref[0]], "cnt": [int(x) for x in ref[2]],
                            "fapprox_bits": [int(x) for x in np.asarray(ref[3]).view(np.uint32)]})
    base = safe_file_name(name)
    write_files(out_dir, {f"{base}.cl": program.source.encode(),
                          f"{base}.json": (json.dumps(record, indent=1) + "\n").encode()}, [])
    return os.path.join(out_dir, f"{base}.cl")


def reduce_saved(path: str, log=sys.stdout, config: str | None = None, out_dir: str | None = None,
                 timeout: float = 300.0) -> str | None:
    """Reduce a program `reconverge fuzz --save-dir` wrote, for its first failure (or `config`)."""
    with open(os.path.splitext(path)[0] + ".json", encoding="utf-8") as f:
        saved = json.load(f)
    with open(path, encoding="utf-8") as f:
        program = program_from_record(saved, f.read())     # as saved: the generator may have changed since
    failures = [f for f in saved["failures"] if config in (None, f["config"])]
    if not failures:
        log.write(f"{path}: no failure of {config} recorded\n")
        return None
    first = next((f for f in failures if f["status"] == "mismatch"), failures[0])
    name = f"{program.name}-{first['config']}"
    try:
        out = reduce_program(program, first["config"], first["status"], first["message"],
                             out_dir or os.path.dirname(path) or ".", name, timeout, log)
    except CompileError as exc:
        log.write(f"reduce {path}: {exc}\n")
        return None
    log.write(f"reduced {path} ({first['config']}: {first['status']}) to {out}\n")
    return out


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(prog="python -m reconverge.tools.fuzz.reducer", description=__doc__.split("\n\n")[0])
    ap.add_argument("input", help="a program `reconverge fuzz --save-dir` wrote (NAME.cl, NAME.json beside it)")
    ap.add_argument("--check", metavar="RECORD.json", help=argparse.SUPPRESS)
    ap.add_argument("--config", help="the failing configuration to keep (default: the first mismatch)")
    ap.add_argument("--out", help="folder for the reduced pair (default: beside the input)")
    ap.add_argument("--timeout", type=float, default=300.0, help="per interestingness test (default %(default)s)")
    args = ap.parse_args(argv)
    if args.check:
        return _check_main(args.check, args.input)
    return 0 if reduce_saved(args.input, sys.stdout, args.config, args.out, args.timeout) else 1


if __name__ == "__main__":
    raise SystemExit(main())
