"""`reconverge check`: validate SPIR-V structure for CI pipelines.

    reconverge check PATH...|- [-j N] [-O0..-O3|-Os] [--target-env ENV] [--shard K/N]
                     [--order done|input] [--fail-unsupported] [--junit FILE] [--json FILE]
                     [--emit-dir DIR] [--timeout SECONDS] [-x KIND] [-D ..] [-I ..] [-cl-* ..] [--clang-arg F]

PATH is a file (.cl, .ll, .bc, .nir: every kernel compiled to SPIR-V and validated; .spv: any compiler's
module, validated as it is), '-' (a source on standard input, of -x's kind or its content's) or a
directory searched recursively for them; the build options apply to the OpenCL C sources (hidden files and directories
left out; other files are counted and named as skipped). Each input is checked in a child process (so
a crash is that input's failure, not the run's), N at a time; every module's structure (its selection,
loop and continue constructs) is reported, and a broken structural rule is explained with the
construct and the blocks involved (backend/spirv/structure.py).

Each kernel gets one outcome (OUTCOMES): passed; unsupported (valid input reconverge cannot compile yet,
lowering.errors.NotSupported: an irreducible CFG, an LLVM instruction it does not read); invalid (the
module broke spirv-val or a structural rule: for our own output, a bug); error (bad input: clang's
error, an undecodable .spv); internal (a crash or an exception in reconverge: a bug); timeout; not run
(interrupted). When stdout is not a terminal each input's line is printed as it finishes (--order done)
or in input order as soon as it and those before it are done (--order input); a terminal gets a
progress line and the table at the end. Exit 0 only when no input failed (unsupported does not fail
unless --fail-unsupported), 1 when something failed, 2 for bad usage or a report that cannot be written,
130/143 when interrupted by SIGINT/SIGTERM (the reports are still written, the inputs not finished
marked "not run").
"""
from __future__ import annotations

import argparse
import os
import sys
import threading
import time
from typing import NamedTuple, Sequence

from reconverge.lowering.errors import CompileError
from reconverge.lowering.output import safe_file_name, write_all
from reconverge.tools.commands import command_help
from reconverge.tools.usage import MAX_SECONDS, Terminated, UsageError, seconds

SOURCE_KINDS = (".cl", ".ll", ".bc", ".nir")
KINDS = (*SOURCE_KINDS, ".spv")
TARGET = "spirv"

# Outcomes, most severe first: an input's outcome is its most severe kernel's.
OUTCOMES = ("internal", "invalid", "timeout", "error", "unsupported", "not run", "passed")
FAILING = ("internal", "invalid", "timeout", "error")
NOT_RUN = "not run"


class Sources(NamedTuple):
    """How sources are compiled: the build options (OpenCL C only), -x, and standard input's bytes; set
    by run_check before the children that check the inputs are forked. (A NamedTuple, not a dataclass:
    dataclasses imports inspect, and `reconverge --help` imports this module.)"""
    build_options: tuple[str, ...] = ()
    kind: str | None = None
    stdin: bytes | None = None
    convergence: str = "auto"


_sources = Sources()
VERDICT = {"passed": "PASS", "unsupported": "UNSUPPORTED", "invalid": "INVALID", "error": "ERROR",
           "internal": "INTERNAL", "timeout": "TIMEOUT", NOT_RUN: "NOT RUN"}


def find_inputs(paths: list[str]) -> tuple[list[str], list[str]]:
    """The inputs (files named, and those found under directories named, sorted; each once) and the files
    skipped because their kind is not one check reads (a hidden file or directory under a directory named
    is neither)."""
    found: list[str] = []
    skipped: list[str] = []
    for path in paths:
        if path == "-":
            found.append(path)
        elif os.path.isdir(path):
            for root, dirs, files in os.walk(path):
                dirs[:] = sorted(d for d in dirs if not d.startswith("."))
                for f in sorted(files):
                    if not f.startswith("."):
                        (found if _kind(f) in KINDS else skipped).append(os.path.join(root, f))
        elif os.path.exists(path):
            (found if _kind(path) in KINDS else skipped).append(path)
        else:
            raise UsageError(f"{path}: no such file or directory")
    return list(dict.fromkeys(found)), list(dict.fromkeys(skipped))


def _kind(path: str) -> str:
    return os.path.splitext(path)[1].lower()


def shard_of(inputs: list[str], shard: tuple[int, int]) -> list[str]:
    """The inputs of shard K of N (1 <= K <= N), in their given order: input i of the list sorted by
    normalized path belongs to shard i % N + 1, so every machine of a CI matrix that sees the same files
    takes the same disjoint part, whatever order the paths were named in and whatever -j is."""
    k, n = shard
    ranked = sorted(inputs, key=os.path.normpath)
    mine = {p for i, p in enumerate(ranked) if i % n == k - 1}
    return [p for p in inputs if p in mine]


def _case(path: str, name: str, outcome: str, message: str = "", flow=None, problems: list[str] | None = None,
          kernel: str | None = None, target_env: str = "", seconds: dict | None = None) -> dict:
    """One test case, a record of its own: the input, the kernel (None for a .spv module, named by its
    file), the outcome and its full message; `flow` (a backend.spirv.structure.ModuleFlow) gives its
    structure as data (constructs), as text and as a graph."""
    from reconverge.backend.spirv.structure import constructs, dot, report
    return {"path": path, "name": name, "kernel": kernel, "target": TARGET, "target_env": target_env,
            "outcome": outcome, "status": _status(outcome), "message": message,
            "seconds": seconds or {},
            "constructs": constructs(flow) if flow is not None else [],
            "structure": report(flow) if flow is not None else "", "dot": dot(flow) if flow is not None else "",
            "problems": problems or []}


def _status(outcome: str) -> str:
    """The coarse verdict: passed, failed, unsupported or not run."""
    return "failed" if outcome in FAILING else outcome


def check_one(path: str, opt_level: str, target_env: str) -> list[dict]:
    """The test cases of one input: one per kernel of a source, one for a .spv module."""
    if path == "-" or _sources.kind is not None:
        return _check_source(path, opt_level, target_env)
    if _kind(path) == ".spv":
        return [_check_module(path, target_env)]
    if _kind(path) not in SOURCE_KINDS:
        return [_case(path, os.path.basename(path), "error", f"{path}: not a .cl, .ll, .bc, .nir or .spv file")]
    return _check_source(path, opt_level, target_env)


def _check_module(path: str, target_env: str) -> dict:
    """Another compiler's module (or ours, written out), validated as it is."""
    from reconverge.backend.spirv.structure import SpirvParseError, explain, parse
    from reconverge.backend.spirv.tools import validate
    name = os.path.basename(path)
    try:
        with open(path, "rb") as f:
            binary = f.read()
        flow = parse(binary)
    except (OSError, SpirvParseError) as exc:
        return _case(path, name, "error", f"{path}: {exc}", target_env=target_env)
    problems = [explain(flow, fn, p) for fn in flow.functions for p in fn.problems]
    env = target_env if "Shader" in flow.capabilities else f"spv{flow.version[0]}.{flow.version[1]}"
    start = time.perf_counter()
    try:
        validate(binary, env, path)
    except CompileError as exc:
        return _case(path, name, "invalid", str(exc), flow, problems, target_env=env,
                     seconds={"validate": _since(start)})
    seconds = {"validate": _since(start)}
    if problems:
        return _case(path, name, "invalid", problems[0], flow, problems, target_env=env, seconds=seconds)
    return _case(path, name, "passed", "", flow, target_env=env, seconds=seconds)


def _check_source(path: str, opt_level: str, target_env: str) -> list[dict]:
    """Every kernel of a source compiled to SPIR-V on its own (so one kernel reconverge cannot compile
    does not hide the others) and validated: spirv-val, then the structural rules."""
    from reconverge.backend.spirv import compile_spirv
    from reconverge.backend.spirv.options import SpirvOptions
    from reconverge.backend.spirv.structure import explain, parse
    from reconverge.backend.spirv.tools import validate
    from reconverge.lowering import pipeline
    from reconverge.lowering.errors import IrreducibleCFG
    from reconverge.lowering.program import load_program
    start = time.perf_counter()
    try:
        name, kind, data = _source_of(path)
        program = load_program(name, opt_level, None, True, _sources.build_options if kind == "cl" else (),
                               inspect=pipeline.Options(pipeline="spirv", convergence=_sources.convergence),
                               kind=kind, data=data)
        names = program.kernel_names()
    except CompileError as exc:
        return [_case(path, "(compile)", _refusal(exc), str(exc), target_env=target_env,
                      seconds={"front_end": _since(start)})]
    front_end = _since(start)
    cases = []
    for name in names:
        start = time.perf_counter()
        seconds = {"front_end": front_end}
        try:
            funcs = program.functions_for("spirv", [name])
            binary = compile_spirv(list(funcs.values()), SpirvOptions(target_env=target_env))
        except CompileError as exc:
            seconds["compile"] = _since(start)
            message = str(exc) + (" (Gen runs any CFG: compile --emit gen takes it)"
                                  if isinstance(exc, IrreducibleCFG) else "")
            cases.append(_case(path, name, _refusal(exc), message, kernel=name, target_env=target_env,
                               seconds=seconds))
            continue
        seconds["compile"] = _since(start)
        start = time.perf_counter()
        flow = parse(binary)
        problems = [explain(flow, fn, p) for fn in flow.functions for p in fn.problems]
        try:
            validate(binary, target_env, f"{path}: @{name}")
            message = f"reconverge produced a module that breaks a structural rule (a bug): {problems[0]}" \
                if problems else ""
        except CompileError as exc:
            message = f"reconverge produced a module spirv-val rejects (a bug): {exc}"
        seconds["validate"] = _since(start)
        cases.append(_case(path, name, "invalid" if message else "passed", message, flow, problems, kernel=name,
                           target_env=target_env, seconds=seconds))
    return cases


def _refusal(exc: CompileError) -> str:
    from reconverge.lowering.errors import NotSupported
    return "unsupported" if isinstance(exc, NotSupported) else "error"


def _since(start: float) -> float:
    return round(time.perf_counter() - start, 4)


_stopping = threading.Event()          # set when the check is interrupted: no new input starts


def _source_of(path: str) -> tuple[str, str | None, bytes | None]:
    """(name, kind, data) of a source to check: standard input by -x or its content, a file by -x or its
    name (None: load_program tells it by its content)."""
    from reconverge.lowering.input_kind import STDIN_NAME, input_kind, kind_from_name
    if path == "-":
        return STDIN_NAME, input_kind(STDIN_NAME, _sources.stdin, _sources.kind), _sources.stdin
    return path, _sources.kind or kind_from_name(path), None


def _checked_in_child(path: str, opt_level: str, target_env: str, timeout: float | None) -> dict | None:
    from reconverge.tools.targets.isolate import ChildTimeout, call_in_child
    if _stopping.is_set():
        return None
    start = time.perf_counter()
    try:
        cases = call_in_child(lambda: check_one(path, opt_level, target_env), f"checking {path}", timeout)
    except ChildTimeout as exc:
        cases = [_case(path, "(check)", "timeout", str(exc), target_env=target_env)]
    except CompileError as exc:                  # a crash in the child
        cases = [_case(path, "(check)", "internal", f"{exc} (a bug in reconverge)", target_env=target_env)]
    except Exception as exc:  # noqa: BLE001 - a bug while checking one input fails that input only
        cases = [_case(path, "(check)", "internal", f"{path}: internal error: {type(exc).__name__}: {exc}",
                       target_env=target_env)]
    outcome = min((c["outcome"] for c in cases), key=OUTCOMES.index, default="passed")
    return {"path": path, "outcome": outcome, "status": _status(outcome),
            "seconds": round(time.perf_counter() - start, 3), "cases": cases}


def _not_run(path: str, why: str, target_env: str) -> dict:
    """The result of an input the check never finished (interrupted): one case, neither passed nor failed."""
    return {"path": path, "outcome": NOT_RUN, "status": NOT_RUN, "seconds": 0.0,
            "cases": [_case(path, os.path.basename(path), NOT_RUN, f"not run: {why}", target_env=target_env)]}


def junit_xml(results: list[dict]) -> bytes:
    """One test suite per input, one test case per kernel: a failing outcome is a <failure> whose type
    is the outcome; unsupported and not run are <skipped>."""
    import xml.etree.ElementTree as ET
    cases = [c for r in results for c in r["cases"]]
    failures = sum(c["status"] == "failed" for c in cases)
    skipped = sum(c["status"] in (NOT_RUN, "unsupported") for c in cases)
    suites = ET.Element("testsuites", name="reconverge check", tests=str(len(cases)), failures=str(failures),
                        errors="0", skipped=str(skipped))
    for r in results:
        suite = ET.SubElement(suites, "testsuite", name=r["path"], tests=str(len(r["cases"])),
                              failures=str(sum(c["status"] == "failed" for c in r["cases"])), errors="0",
                              skipped=str(sum(c["status"] in (NOT_RUN, "unsupported") for c in r["cases"])),
                              time=f"{r['seconds']:.3f}")
        for c in r["cases"]:
            case = ET.SubElement(suite, "testcase", classname=r["path"], name=c["name"],
                                 time=f"{r['seconds'] / max(1, len(r['cases'])):.3f}")
            if c["status"] == "failed":
                failure = ET.SubElement(case, "failure", message=c["message"], type=c["outcome"])
                failure.text = "\n".join([c["message"], *c["problems"], c["structure"]]).strip()
            elif c["status"] == NOT_RUN:
                ET.SubElement(case, "skipped", message=c["message"])
            elif c["status"] == "unsupported":
                ET.SubElement(case, "skipped", message=f"unsupported: {c['message']}")
    return ET.tostring(suites, encoding="utf-8", xml_declaration=True) + b"\n"


def result_line(r: dict) -> str:
    """One input's line: verdict, path, kernels passed, seconds and its first problem, whole."""
    passed = sum(c["status"] == "passed" for c in r["cases"])
    line = f"{VERDICT[r['outcome']]:<11} {r['path']}  {passed}/{len(r['cases'])} passed  {r['seconds']:.2f} s"
    first = next((c for c in r["cases"] if c["status"] != "passed"), None)
    if first is not None and r["outcome"] != NOT_RUN:
        line += f"  {first['name']}: {first['message']}"
    return line


def summary(results: list[dict], skipped: Sequence[str] = (), shard: str | None = None) -> str:
    """The totals: inputs passed, failed (by outcome), unsupported and not run; the files skipped, named."""
    count = {o: sum(r["outcome"] == o for r in results) for o in OUTCOMES}
    failed = sum(count[o] for o in FAILING)
    how = ", ".join(f"{count[o]} {o}" for o in FAILING if count[o])
    line = (f"{len(results)} input{'s' * (len(results) != 1)}"
            + (f" (shard {shard})" if shard else "")
            + f": {count['passed']} passed, {failed} failed" + (f" ({how})" if how else ""))
    if count["unsupported"]:
        line += f", {count['unsupported']} unsupported (reconverge cannot compile them yet)"
    if count[NOT_RUN]:
        line += f", {count[NOT_RUN]} not run (interrupted)"
    lines = [line]
    if skipped:
        shown = ", ".join(skipped[:20]) + (f" and {len(skipped) - 20} more" if len(skipped) > 20 else "")
        lines.append(f"{len(skipped)} skipped (not .cl, .ll, .bc, .nir or .spv): {shown}")
    return "\n".join(lines) + "\n"


def table(results: list[dict]) -> str:
    """The per-input table a terminal gets at the end (columns aligned, first problems whole)."""
    width = max([len(r["path"]) for r in results] + [5])
    lines = [f"{'input':<{width}}  {'outcome':<11}  kernels  seconds  first problem"]
    for r in results:
        passed = sum(c["status"] == "passed" for c in r["cases"])
        first = next((f"{c['name']}: {c['message']}" for c in r["cases"] if c["status"] != "passed"), "")
        lines.append(f"{r['path']:<{width}}  {VERDICT[r['outcome']]:<11}  "
                     f"{passed}/{len(r['cases']):<6} {r['seconds']:>7.2f}  {first if r['outcome'] != NOT_RUN else ''}")
    return "\n".join(lines) + "\n"


def run_check(args) -> int:
    from reconverge.tools.fuzz.command import parse_shard
    from reconverge.tools.source_args import build_options
    from reconverge.tools.spirv_args import spirv_options
    if args.jobs < 1:
        raise UsageError(f"-j {args.jobs}: expected at least 1 job")
    target_env = spirv_options(None, args.target_env).target_env
    shard = parse_shard(args.shard) if args.shard else None
    found, skipped = find_inputs(args.paths)
    global _sources
    _sources = Sources(build_options(args), args.x, sys.stdin.buffer.read() if "-" in found else None,
                       args.convergence)
    if not found:
        raise UsageError("no .cl, .ll, .bc, .nir or .spv input found"
                         + (f" ({len(skipped)} other file{'s' * (len(skipped) != 1)} skipped)" if skipped else ""))
    inputs = shard_of(found, shard) if shard else found
    import reconverge.backend.spirv.structure  # noqa: F401 - imported before the threads fork children
    import reconverge.lowering.pipeline  # noqa: F401
    stream = not sys.stdout.isatty()
    results, interrupted = _check_all(inputs, args, target_env, stream)
    _write_reports(args, found + skipped, results, interrupted, skipped, target_env)
    if not stream and results:
        sys.stdout.write(table(results))
    sys.stdout.write(summary(results, skipped, args.shard))
    if interrupted is not None:
        return 130 if interrupted == "SIGINT" else 143
    failing = FAILING + (("unsupported",) if args.fail_unsupported else ())
    return 1 if any(r["outcome"] in failing for r in results) else 0


def _check_all(inputs: list[str], args, target_env: str, stream: bool) -> tuple[list[dict], str | None]:
    """Every input's result, and the signal that interrupted the check (None if none did): an input not
    finished when it came is "not run", never passed, and the children at work are killed. With `stream`,
    each input's line is printed when it is known (args.order: as it finishes, or in input order)."""
    from concurrent.futures import ThreadPoolExecutor, as_completed
    progress = sys.stderr.isatty()
    results: list[dict | None] = [None] * len(inputs)
    printed = 0                                   # --order input: the lines printed so far
    interrupted = None
    _stopping.clear()
    pool = ThreadPoolExecutor(max_workers=args.jobs)
    futures = {pool.submit(_checked_in_child, p, f"-O{args.opt}", target_env, args.timeout): i
               for i, p in enumerate(inputs)}
    try:
        for done, future in enumerate(as_completed(futures), 1):
            index = futures[future]
            results[index] = future.result()
            if progress:
                sys.stderr.write(f"\r[{done}/{len(inputs)}] {inputs[index][-60:]:<60}")
            if stream and args.order == "done":
                _emit(results[index])
            elif stream:
                while printed < len(results) and results[printed] is not None:
                    _emit(results[printed])
                    printed += 1
    except (KeyboardInterrupt, Terminated) as exc:
        interrupted = "SIGINT" if isinstance(exc, KeyboardInterrupt) else "SIGTERM"
        from reconverge.tools.targets.isolate import kill_children
        _stopping.set()
        pool.shutdown(wait=False, cancel_futures=True)
        kill_children()
    finally:
        pool.shutdown(wait=True)
        if progress:
            sys.stderr.write("\r" + " " * 72 + "\r")
    final = [r if r is not None else _not_run(p, f"interrupted by {interrupted}", target_env)
             for p, r in zip(inputs, results)]
    if stream and args.order == "input":
        for r in final[printed:]:
            _emit(r)
    elif stream:
        for r, was in zip(final, results):
            if was is None:
                _emit(r)
    return final, interrupted


def _emit(result: dict | None) -> None:
    if result is not None:
        sys.stdout.write(result_line(result) + "\n")
        sys.stdout.flush()


def report_path(path: str) -> str:
    """Where an input's reports go under --emit-dir: its path as given, each part safe-named (an absolute
    path without its leading '/', '..' as '%2E.'), so that a/m.spv and b/m.spv do not meet."""
    return "/".join(safe_file_name(part) for part in os.path.normpath(path).split(os.sep) if part)


def _write_reports(args, inputs: list[str], results: list[dict], interrupted: str | None, skipped: list[str],
                   target_env: str) -> None:
    """--emit-dir, --junit and --json, all or none; one that cannot be written is exit 2 (the inputs'
    verdicts are exit 1). None replaces one of `inputs` (every file found, other shards' and skipped
    ones included)."""
    import json
    files = {}
    if args.emit_dir:
        for r in results:
            stem = report_path(r["path"])
            base = os.path.basename(r["path"])
            for c in r["cases"]:
                if c["structure"]:
                    name = stem if c["name"] == base else f"{stem}.{safe_file_name(c['name'])}"
                    files[f"{name}.structure.txt"] = c["structure"].encode()
                    files[f"{name}.structure.dot"] = c["dot"].encode()
    outputs = {}
    if args.junit:
        outputs[args.junit] = junit_xml(results)
    if args.json:
        outputs[args.json] = (json.dumps(json_report(args, results, interrupted, skipped, target_env), indent=1)
                              + "\n").encode()
    try:
        write_all(outputs, {args.emit_dir: files} if args.emit_dir else {}, inputs=inputs)
    except CompileError as exc:
        raise UsageError(f"cannot write the report: {exc}") from None


JSON_SCHEMA = "reconverge-check/2"


def json_report(args, results: list[dict], interrupted: str | None, skipped: list[str], target_env: str) -> dict:
    """--json: one record per kernel (or .spv module) with its structure as a list of constructs, the
    inputs' outcomes, the skipped files and the totals (the README documents the schema)."""
    records = [{k: v for k, v in c.items() if k not in ("structure", "dot")} for r in results for c in r["cases"]]
    count = {o: sum(r["outcome"] == o for r in results) for o in OUTCOMES}
    return {"schema": JSON_SCHEMA, "target": TARGET, "target_env": target_env, "opt": f"-O{args.opt}",
            "shard": args.shard, "records": records,
            "inputs": [{"path": r["path"], "outcome": r["outcome"], "status": r["status"], "seconds": r["seconds"],
                        "kernels": len(r["cases"])} for r in results],
            "skipped": skipped,
            "summary": {"inputs": len(results), "passed": count["passed"],
                        "failed": sum(count[o] for o in FAILING), "unsupported": count["unsupported"],
                        "not_run": count[NOT_RUN], "outcomes": count, "skipped": len(skipped),
                        "interrupted": interrupted}}


def add_commands(subparsers) -> None:
    c = subparsers.add_parser("check", help=command_help("check"),
                              description="Compile every kernel of each source to SPIR-V and validate it, or "
                                          "validate .spv modules as they are; report each module's structured "
                                          "constructs and explain broken structural rules.")
    c.add_argument("paths", nargs="+", metavar="PATH",
                   help="a .cl, .ll, .bc, .nir or .spv file, - (a source on standard input), or a directory")
    c.add_argument("-j", dest="jobs", type=int, default=os.cpu_count() or 1, help="inputs checked at once")
    from reconverge.tools.source_args import add_build_options, add_opt_option
    from reconverge.tools.spirv_args import DEFAULT_TARGET_ENV, TARGET_ENV_HELP
    add_opt_option(c)
    c.add_argument("--target-env", default=DEFAULT_TARGET_ENV, metavar="ENV",
                   help="for our modules and for Shader modules (Kernel modules: their version's universal "
                        "environment): " + TARGET_ENV_HELP)
    add_build_options(c)
    c.add_argument("--shard", metavar="K/N", help="check only the K-th of N disjoint parts of the inputs (input i "
                   "of the sorted paths goes to part i %% N + 1), for a CI matrix")
    c.add_argument("--order", choices=("done", "input"), default="done",
                   help="when stdout is not a terminal, each input's line is printed as it finishes (done, the "
                        "default) or in input order as soon as it and those before it are done (input)")
    c.add_argument("--fail-unsupported", action="store_true",
                   help="exit 1 when a kernel is unsupported (reconverge cannot compile it yet) too")
    c.add_argument("--junit", metavar="FILE", help="write JUnit XML: one test case per input and kernel")
    c.add_argument("--json", metavar="FILE", help=f"write the results as JSON records (schema {JSON_SCHEMA})")
    c.add_argument("--emit-dir", metavar="DIR", help="write each module's structure report into DIR")
    c.add_argument("--timeout", type=seconds, default=300.0, metavar="SECONDS",
                   help=f"per input (default 300, at most {MAX_SECONDS:g})")
    c.add_argument("--debug", action="store_true", help=argparse.SUPPRESS)
    c.set_defaults(func=_check)


def _check(args) -> None:
    status = run_check(args)
    if status:
        raise SystemExit(status)
