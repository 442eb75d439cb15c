"""`reconverge check`: validate SPIR-V structure for CI pipelines.

    reconverge check PATH... [-j N] [-O0..-O3|-Os] [--target-env ENV] [-x KIND] [-D ..] [-I ..] [-cl-* ..]
                     [--clang-arg FLAG] [--junit FILE] [--json FILE] [--emit-dir DIR] [--timeout SECONDS]

PATH is a file (.cl, .ll, .bc: every kernel compiled to SPIR-V and validated; .spv: any compiler's module,
validated as it is), '-' (standard input, of -x's kind or its content's) or a directory searched
recursively for them. The build options apply to the OpenCL C inputs. Each input is checked in a child
process (so a crash is that input's failure, not the run's), N at a time; every module's structure (its
selection, loop and continue constructs) is reported, and a broken structural rule is explained with the
construct and the blocks involved (backend/spirv/structure.py). Exit 0 only when everything passed,
1 when something failed, 2 for bad usage or a report that cannot be written, 130/143 when interrupted
by SIGINT/SIGTERM (the reports are still written, the inputs not finished marked "not run").
"""
from __future__ import annotations

import argparse
import json
import os
import sys
import threading
import time
import xml.etree.ElementTree as ET
from concurrent.futures import ThreadPoolExecutor, as_completed
from dataclasses import dataclass

from lowering.errors import CompileError
from lowering.output import safe_file_name, write_all
from tools.usage import MAX_SECONDS, Terminated, UsageError, seconds

SOURCE_KINDS = (".cl", ".ll", ".bc")
KINDS = (*SOURCE_KINDS, ".spv")
SPIRV_MAGIC = b"\x03\x02\x23\x07"


@dataclass(frozen=True)
class Sources:
    """How sources are compiled: the build options (OpenCL C only), -x, and standard input's bytes."""
    build_options: tuple[str, ...] = ()
    kind: str | None = None
    stdin: bytes | None = None


def find_inputs(paths: list[str]) -> list[str]:
    """Files named, and the inputs found under directories named (sorted), each once."""
    found: list[str] = []
    for path in paths:
        if path == "-":
            found.append(path)
        elif os.path.isdir(path):
            for root, dirs, files in os.walk(path):
                dirs.sort()
                found += [os.path.join(root, f) for f in sorted(files) if os.path.splitext(f)[1].lower() in KINDS]
        elif os.path.exists(path):
            found.append(path)
        else:
            raise UsageError(f"{path}: no such file or directory")
    return list(dict.fromkeys(found))


def _case(name: str, ok: bool, message: str = "", flow=None, problems: list[str] | None = None) -> dict:
    """One test case; `flow` (a backend.spirv.structure.ModuleFlow) gives its structure report and graph."""
    from backend.spirv.structure import dot, report
    return {"name": name, "status": "passed" if ok else "failed", "message": message,
            "structure": report(flow) if flow is not None else "", "dot": dot(flow) if flow is not None else "",
            "problems": problems or []}


def check_one(path: str, opt_level: str, target_env: str, sources: Sources = Sources()) -> list[dict]:
    """The test cases of one input: one per kernel of a source, one for a .spv module."""
    from backend.spirv import compile_spirv
    from backend.spirv.options import SpirvOptions
    from backend.spirv.structure import SpirvParseError, explain, parse
    from backend.spirv.tools import validate
    from lowering.input_kind import STDIN_NAME, input_kind
    ext = os.path.splitext(path)[1].lower()
    data = sources.stdin if path == "-" else None
    if data is not None and sources.kind is None and data.startswith(SPIRV_MAGIC):
        ext = ".spv"
    if ext == ".spv":
        try:
            if data is not None:
                binary = data
            else:
                with open(path, "rb") as f:
                    binary = f.read()
            flow = parse(binary)
        except (OSError, SpirvParseError) as exc:
            return [_case(os.path.basename(path), False, f"{path}: {exc}")]
        problems = [explain(flow, fn, p) for fn in flow.functions for p in fn.problems]
        env = target_env if "Shader" in flow.capabilities else f"spv{flow.version[0]}.{flow.version[1]}"
        try:
            validate(binary, env, path)
        except CompileError as exc:
            return [_case(os.path.basename(path), False, str(exc), flow, problems)]
        if problems:
            return [_case(os.path.basename(path), False, problems[0], flow, problems)]
        return [_case(os.path.basename(path), True, "", flow)]
    if ext not in SOURCE_KINDS and sources.kind is None and data is None:
        return [_case(os.path.basename(path), False, f"{path}: not a .cl, .ll, .bc or .spv file")]
    from lowering.program import load_program
    try:
        name = STDIN_NAME if data is not None else path
        kind = input_kind(name, data, sources.kind) if data is not None or sources.kind else None
        cl = kind == "cl" or (kind is None and ext == ".cl")
        program = load_program(name, opt_level, build_options=sources.build_options if cl else (), kind=kind,
                               data=data)
        funcs = program.functions_for("spirv")
    except CompileError as exc:
        return [_case("(compile)", False, str(exc))]
    cases = []
    for name, func in funcs.items():
        try:
            binary = compile_spirv([func], SpirvOptions(target_env=target_env, validate=True))
            cases.append(_case(name, True, "", parse(binary)))
        except CompileError as exc:
            cases.append(_case(name, False, str(exc)))
    return cases


_stopping = threading.Event()          # set when the check is interrupted: no new input starts


def _checked_in_child(path: str, opt_level: str, target_env: str, timeout: float | None,
                      sources: Sources = Sources()) -> dict | None:
    from tools.targets.isolate import call_in_child
    if _stopping.is_set():
        return None
    start = time.perf_counter()
    try:
        cases = call_in_child(lambda: check_one(path, opt_level, target_env, sources), f"checking {path}", timeout)
    except CompileError as exc:                  # a crash or a timeout in the child
        cases = [_case("(check)", False, str(exc))]
    except Exception as exc:  # noqa: BLE001 - a bug while checking one input fails that input only
        cases = [_case("(check)", False, f"{path}: internal error: {type(exc).__name__}: {exc}")]
    ok = all(c["status"] == "passed" for c in cases)
    return {"path": path, "status": "passed" if ok else "failed", "seconds": round(time.perf_counter() - start, 3),
            "cases": cases}


NOT_RUN = "not run"


def _not_run(path: str, why: str) -> dict:
    """The result of an input the check never finished (interrupted): one case, neither passed nor failed."""
    return {"path": path, "status": NOT_RUN, "seconds": 0.0,
            "cases": [{"name": os.path.basename(path), "status": NOT_RUN, "message": f"not run: {why}",
                       "structure": "", "dot": "", "problems": []}]}


def junit_xml(results: list[dict]) -> bytes:
    cases = [c for r in results for c in r["cases"]]
    failures = sum(c["status"] == "failed" for c in cases)
    skipped = sum(c["status"] == NOT_RUN for c in cases)
    suites = ET.Element("testsuites", name="reconverge check", tests=str(len(cases)), failures=str(failures),
                        errors="0", skipped=str(skipped))
    for r in results:
        suite = ET.SubElement(suites, "testsuite", name=r["path"], tests=str(len(r["cases"])),
                              failures=str(sum(c["status"] == "failed" for c in r["cases"])), errors="0",
                              skipped=str(sum(c["status"] == NOT_RUN for c in r["cases"])),
                              time=f"{r['seconds']:.3f}")
        for c in r["cases"]:
            case = ET.SubElement(suite, "testcase", classname=r["path"], name=c["name"],
                                 time=f"{r['seconds'] / max(1, len(r['cases'])):.3f}")
            if c["status"] == "failed":
                failure = ET.SubElement(case, "failure", message=c["message"])
                failure.text = "\n".join([c["message"], *c["problems"], c["structure"]]).strip()
            elif c["status"] == NOT_RUN:
                ET.SubElement(case, "skipped", message=c["message"])
    return ET.tostring(suites, encoding="utf-8", xml_declaration=True) + b"\n"


def summary(results: list[dict]) -> str:
    width = max([len(r["path"]) for r in results] + [5])
    lines = [f"{'input':<{width}}  status  kernels  seconds  first error"]
    for r in results:
        passed = sum(c["status"] == "passed" for c in r["cases"])
        first = next((c["message"] for c in r["cases"] if c["status"] == "failed"), "")
        verdict = {"passed": "PASS", "failed": "FAIL"}.get(r["status"], "NOT RUN")
        lines.append(f"{r['path']:<{width}}  {verdict:<6}  "
                     f"{passed}/{len(r['cases']):<6} {r['seconds']:>7.2f}  {first[:100]}")
    failed = sum(r["status"] == "failed" for r in results)
    not_run = sum(r["status"] == NOT_RUN for r in results)
    lines.append(f"{len(results)} input{'s' * (len(results) != 1)}: {len(results) - failed - not_run} passed, "
                 f"{failed} failed" + (f", {not_run} not run (interrupted)" if not_run else ""))
    return "\n".join(lines) + "\n"


def run_check(args) -> int:
    from tools.spirv_args import spirv_options as _spirv_options
    if args.jobs < 1:
        raise UsageError(f"-j {args.jobs}: expected at least 1 job")
    from tools.source_args import build_options
    target_env = _spirv_options(None, args.target_env).target_env
    inputs = find_inputs(args.paths)
    args.sources = Sources(build_options(args), args.x, sys.stdin.buffer.read() if "-" in inputs else None)
    if not inputs:
        raise UsageError("no .cl, .ll, .bc or .spv input found")
    import backend.spirv.structure  # noqa: F401 - imported before the threads fork children
    import lowering.pipeline  # noqa: F401
    results, interrupted = _check_all(inputs, args, target_env)
    _write_reports(args, inputs, results, interrupted)
    sys.stdout.write(summary(results))
    if interrupted is not None:
        return 130 if interrupted == "SIGINT" else 143
    return 0 if all(r["status"] == "passed" for r in results) else 1


def _check_all(inputs: list[str], args, target_env: str) -> tuple[list[dict], str | None]:
    """Every input's result, and the signal that interrupted the check (None if none did): an input not
    finished when it came is "not run", never passed, and the children at work are killed."""
    progress = sys.stderr.isatty()
    results: list[dict | None] = [None] * len(inputs)
    interrupted = None
    _stopping.clear()
    pool = ThreadPoolExecutor(max_workers=args.jobs)
    futures = {pool.submit(_checked_in_child, p, f"-O{args.opt}", target_env, args.timeout, args.sources): i
               for i, p in enumerate(inputs)}
    try:
        for done, future in enumerate(as_completed(futures), 1):
            results[futures[future]] = future.result()
            if progress:
                sys.stderr.write(f"\r[{done}/{len(inputs)}] {inputs[futures[future]][-60:]:<60}")
    except (KeyboardInterrupt, Terminated) as exc:
        interrupted = "SIGINT" if isinstance(exc, KeyboardInterrupt) else "SIGTERM"
        from tools.targets.isolate import kill_children
        _stopping.set()
        pool.shutdown(wait=False, cancel_futures=True)
        kill_children()
    finally:
        pool.shutdown(wait=True)
        if progress:
            sys.stderr.write("\r" + " " * 72 + "\r")
    return [r if r is not None else _not_run(p, f"interrupted by {interrupted}")
            for p, r in zip(inputs, results)], interrupted


def report_path(path: str) -> str:
    """Where an input's reports go under --emit-dir: its path as given, each part safe-named (an absolute
    path without its leading '/', '..' as '%2E.'), so that a/m.spv and b/m.spv do not meet."""
    return "/".join(safe_file_name(part) for part in os.path.normpath(path).split(os.sep) if part)


def _write_reports(args, inputs: list[str], results: list[dict], interrupted: str | None) -> None:
    """--emit-dir, --junit and --json, all or none; one that cannot be written is exit 2 (the inputs'
    verdicts are exit 1)."""
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
        doc = {"schema": "reconverge-check/1", "inputs": results,
               "summary": {"inputs": len(results), "failed": sum(r["status"] == "failed" for r in results),
                           "not_run": sum(r["status"] == NOT_RUN for r in results), "interrupted": interrupted}}
        outputs[args.json] = (json.dumps(doc, indent=1) + "\n").encode()
    try:
        write_all(outputs, {args.emit_dir: files} if args.emit_dir else {}, inputs=inputs)
    except CompileError as exc:
        raise UsageError(f"cannot write the report: {exc}") from None


def add_commands(subparsers) -> None:
    c = subparsers.add_parser("check", help="validate the SPIR-V of sources and modules (CI)",
                              description="Compile every kernel of each source to SPIR-V and validate it, or "
                                          "validate .spv modules as they are; report each module's structured "
                                          "constructs and explain broken structural rules.")
    c.add_argument("paths", nargs="+", metavar="PATH",
                   help="a .cl, .ll, .bc or .spv file, - (standard input), or a directory")
    c.add_argument("-j", dest="jobs", type=int, default=os.cpu_count() or 1, help="inputs checked at once")
    from tools.source_args import add_build_options, add_opt_option
    from tools.spirv_args import DEFAULT_TARGET_ENV, TARGET_ENV_HELP
    add_opt_option(c)
    c.add_argument("--target-env", default=DEFAULT_TARGET_ENV, metavar="ENV",
                   help="for our modules and for Shader modules (Kernel modules: their version's universal "
                        "environment): " + TARGET_ENV_HELP)
    add_build_options(c)
    c.add_argument("--junit", metavar="FILE", help="write JUnit XML: one test case per input and kernel")
    c.add_argument("--json", metavar="FILE", help="write the results as JSON (schema reconverge-check/1)")
    c.add_argument("--emit-dir", metavar="DIR", help="write each module's structure report into DIR")
    c.add_argument("--timeout", type=seconds, default=300.0, metavar="SECONDS",
                   help=f"per input (default 300, at most {MAX_SECONDS:g})")
    c.add_argument("--debug", action="store_true", help=argparse.SUPPRESS)
    c.set_defaults(func=_check)


def _check(args) -> None:
    status = run_check(args)
    if status:
        raise SystemExit(status)
