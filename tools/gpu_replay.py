"""Record `run --target spirv` launches here, replay them unchanged on another machine's Vulkan device.

    python -m reconverge.tools.gpu_replay record DIR [--group G ...] [--cases CASES.json] [--limit N]
    python tools/gpu_replay.py replay DIR [--vk-device NAME|N] [--json OUT.json] [--id ID ...]

Why: a machine with a GPU rarely has clang, spirv-tools and our compiler's dependencies, yet what we
want to know there is only whether the driver computes, from our SPIR-V, what the reference computes.
`record` runs each launch through the spirv target on this machine's default device (lavapipe) and saves,
per launch, what `backend/spirv/vulkan_run.dispatch` is given - the module as `--emit spirv` would write
it (driver-independent: without the lavapipe-only workarounds), the storage buffers, push constants,
specialization constants and group counts - beside the reference's buffers (the llvm target's, or
numpy's where the suite checks against numpy) and lavapipe's. `replay` dispatches each saved launch on
the chosen device (default: the first that is not a CPU) and prints, per group, how many launches there
are, how many differ from the reference, and which; `--json` writes every launch's verdict.

Groups (what the test suite launches, with its arguments; tools/gpu_replay_groups.py makes them): corpus
(tests/kernels and examples, every RUN line, -O0 and -O2), barrier (tests/kernels_barrier), real
(tests/kernels_real), cfg (the executed slice of random control flow of tests/spirv/test_spirv_random_cfg.py),
irreducible (the random irreducible CFGs of tests/spirv/test_irreducible.py, each cycle of two or more entries
made a loop through a guard block), limits (loops of 65,000 to 200,000 iterations: lavapipe's launches refuse
them, which the record notes, but the launch is kept), subgroups (every sub-group operation on every type, and
operations under an if and in a loop lanes leave: tools/testing/subgroup_kernels.py, against numpy for each
subgroup size in SUBGROUP_WIDTHS; their modules are the "checked" layout of backend/spirv/subgroups.py, so the
device's layout record is compared too), and random: the random OpenCL C programs of a cases.json file
(`--cases`; entries with a `source`), at -O2 against the llvm target at -O0, launched as their generator's
programs expect (see below), and fuzz: `reconverge fuzz`'s programs (`--fuzz-seed S --fuzz-count N
[--fuzz-modes M,M]`, the modes in turn, as a campaign takes them) at -O0 and -O2 against the campaign's
reference, llvm -O0 (for a sub-group program, at each subgroup size in SUBGROUP_WIDTHS, or ir -O0 at it where
llvm declines, as tools/fuzz/runner.py does); `--fuzz-source FILE` (repeatable) records an OpenCL C file as
program --fuzz-seed of the first mode, with that program's arguments (a reduced fuzz program, such as
tests/data/nvidia_subgroup_260_reduced.cl with --fuzz-seed 260 --fuzz-modes subgroup). The random programs are
launched as their generator expects:
`in` 256 random words, `out` one word per work-item, `cnt` 8 words, `n` the global size + 3 (so that each `r <
(n & 3)` loop that fills `__local` memory runs: with n & 3 == 0 a program reads `__local` memory nobody
wrote); the local size is the length of the program's `__local uint lm[]` (else 64), the global size 256 (or
16 groups where 64 does not divide it).

Replay imports only numpy, the `vulkan` package and five files of this repository:
backend/spirv/vulkan_run.py, backend/spirv/maximal_reconvergence.py (on a device offering
VK_KHR_shader_maximal_reconvergence each module declares MaximallyReconvergesKHR, as a launch there
would), reconverge/__init__.py, lowering/__init__.py and lowering/errors.py (as
reconverge.lowering.errors; reconverge/__init__.py loads nothing more) (the SPIR-V numbers vulkan_run
reads from the Khronos grammar are saved in the record, so spirv-headers need not be there either).
A record is a folder: manifest.json and one compressed .npz per launch.
"""
from __future__ import annotations

import argparse
import hashlib
import importlib.util
import json
import os
import sys
import types
from typing import Any

import numpy as np

ROOT = os.path.dirname(os.path.dirname(os.path.realpath(__file__)))
GROUPS = ("corpus", "barrier", "real", "cfg", "irreducible", "limits", "random", "subgroups", "fuzz")
SUBGROUP_WIDTHS = (8, 16, 32, 64)   # the subgroup sizes a `subgroups` launch has references for


# ----- replay: numpy, vulkan and vulkan_run only -----

def load_vulkan_run(grammar_numbers: dict):
    """backend/spirv/vulkan_run.py as a private module whose grammar is the numbers saved in the record."""
    grammar = types.SimpleNamespace(
        magic_number=grammar_numbers["magic_number"],
        opcode=lambda name: grammar_numbers["opcodes"][name],
        enumerant=lambda kind, name: grammar_numbers["enumerants"][f"{kind}.{name}"])
    package = types.ModuleType("_gpu_replay")
    package.__path__ = []
    stub = types.ModuleType("_gpu_replay.grammar")
    vars(stub)["GRAMMAR"] = grammar
    sys.modules.setdefault("_gpu_replay", package)
    sys.modules["_gpu_replay.grammar"] = stub
    if ROOT not in sys.path:
        sys.path.insert(0, ROOT)     # reconverge.lowering.errors
    return _load_private("vulkan_run")


def _load_private(name: str):
    """backend/spirv/<name>.py as _gpu_replay.<name> (its `.grammar` the record's numbers)."""
    path = os.path.join(ROOT, "backend", "spirv", f"{name}.py")
    spec = importlib.util.spec_from_file_location(f"_gpu_replay.{name}", path)
    if spec is None or spec.loader is None:
        raise ImportError(f"cannot load {path}")
    module = importlib.util.module_from_spec(spec)
    sys.modules[f"_gpu_replay.{name}"] = module
    spec.loader.exec_module(module)
    return module


def maximal_reconvergence(grammar_numbers: dict, info) -> Any:
    """The module rewrite that declares MaximallyReconvergesKHR, where the device offers
    VK_KHR_shader_maximal_reconvergence and the record has the opcodes it needs; else None."""
    if not info.maximal_reconvergence:
        return None
    mr = _load_private("maximal_reconvergence")
    if not all(n in grammar_numbers["opcodes"] for n in mr.OPCODE_NAMES):
        return None     # a record made before the mode: its modules run as recorded
    return mr.with_maximal_reconvergence


def ulp_distance(a: np.ndarray, b: np.ndarray) -> np.ndarray:
    """|a - b| in units in the last place, per element, for float arrays of one dtype (NaN vs NaN: 0)."""
    bits = {2: np.int16, 4: np.int32, 8: np.int64}[a.dtype.itemsize]
    ia, ib = a.view(bits).astype(np.int64), b.view(bits).astype(np.int64)
    top = np.int64(1) << (8 * a.dtype.itemsize - 1)
    ia = np.where(ia < 0, -(ia + top), ia)          # sign-magnitude -> a monotonic integer line
    ib = np.where(ib < 0, -(ib + top), ib)
    distance = np.abs(ia - ib)
    both_nan = np.isnan(a) & np.isnan(b)
    return np.where(both_nan, 0, np.where(np.isnan(a) | np.isnan(b), np.iinfo(np.int64).max, distance))


def differences(reference: dict, got: dict, ulps: int) -> str | None:
    """None when every reference buffer matches (floats within `ulps`), else a short account."""
    problems = []
    for binding, want in sorted(reference.items()):
        have = got.get(binding)
        if have is None or have.shape != want.shape or have.dtype != want.dtype:
            problems.append(f"binding {binding}: no matching buffer")
            continue
        w, h = want.reshape(-1), have.reshape(-1)
        if np.issubdtype(w.dtype, np.floating):
            bad = np.flatnonzero(ulp_distance(w, h) > ulps)
        else:
            bad = np.flatnonzero(w.view(f"u{w.itemsize}") != h.view(f"u{h.itemsize}"))
        if bad.size:
            i = int(bad[0])
            problems.append(f"binding {binding} [{i}]: {h[i]!r} != reference {w[i]!r} ({bad.size} lanes)")
    return "; ".join(problems) or None


def _load_launch(folder: str, entry: dict) -> dict:
    with np.load(os.path.join(folder, entry["data"])) as data:
        arrays = {k: data[k] for k in data.files}
    return {
        "spirv": arrays["module"].tobytes(),
        "push": arrays["push"].tobytes(),
        "inputs": {int(k[3:]): v for k, v in arrays.items() if k.startswith("in_")},
        "reference": {int(k[4:]): v for k, v in arrays.items() if k.startswith("ref_")},
        "by_width": {w: {int(k.split("_")[1]): v for k, v in arrays.items() if k.startswith(f"refw{w}_")}
                     for w in entry.get("widths", ())},
    }


def replay(folder: str, device: str | None, only: list[str] | None = None,
           groups: list[str] | None = None, plain: bool = False) -> tuple[list[dict], str]:
    """Dispatch every recorded launch on `device`; (per-launch verdicts, the device's description)."""
    with open(os.path.join(folder, "manifest.json"), encoding="utf-8") as f:
        manifest = json.load(f)
    vr = load_vulkan_run(manifest["grammar"])
    info = vr.find_device(device, prefer_gpu=True)
    vr.select_device(str(info.index))
    declare = None if plain else maximal_reconvergence(manifest["grammar"], info)
    verdicts = []
    for entry in manifest["launches"]:
        if (only and entry["id"] not in only) or (groups and entry["group"] not in groups):
            continue
        launch = _load_launch(folder, entry)
        if entry.get("widths"):     # a sub-group launch: the reference for the device's subgroup size
            if info.subgroup_size not in launch["by_width"]:
                verdicts.append({"id": entry["id"], "group": entry["group"], "what": entry["what"],
                                 "status": "error", "detail": f"no reference for subgroup size {info.subgroup_size}"})
                continue
            launch["reference"] = launch["by_width"][info.subgroup_size]
        if declare is not None:     # as a launch on this device would compile it (backend.spirv.launch)
            launch["spirv"] = declare(launch["spirv"])
        try:
            got = vr.dispatch(launch["spirv"], entry["entry"], launch["inputs"], launch["push"],
                              tuple(entry["groups"]), {int(k): v for k, v in entry["spec"].items()})
            detail = differences(launch["reference"], got, entry["ulps"])
            status = "agrees" if detail is None else "differs"
        except vr.VulkanError as exc:
            status, detail = "error", str(exc)
        verdicts.append({"id": entry["id"], "group": entry["group"], "what": entry["what"], "status": status,
                         "detail": detail})
        if status != "agrees":      # as it happens: a launch that hangs the device leaves these behind
            print(f"{entry['id']}: {status}: {detail}", file=sys.stderr, flush=True)
    described = f"{info.label} [{info.type}], Vulkan {info.api_version}" + \
        (", MaximallyReconvergesKHR" if declare is not None else "")
    return verdicts, described


def table(verdicts: list[dict]) -> str:
    """Per group: launches, how many differ from the reference (errors included), and their ids."""
    lines = ["| group | launches | differ | which |", "|---|---|---|---|"]
    for group in dict.fromkeys(v["group"] for v in verdicts):
        mine = [v for v in verdicts if v["group"] == group]
        bad = [v for v in mine if v["status"] != "agrees"]
        ids = ", ".join(v["id"] + (f" ({v['status']})" if v["status"] in ("error", "refused") else "")
                        for v in bad) or "-"
        lines.append(f"| {group} | {len(mine)} | {len(bad)} | {ids} |")
    return "\n".join(lines)


# ----- record: the compiler and the test suite's argument specs (this machine only) -----

class _Recorder:
    """Wraps the spirv target's compile and dispatch steps and keeps what one launch hands the driver."""

    def __init__(self):
        import reconverge.backend.spirv.launch as launch
        import reconverge.backend.spirv.vulkan_run as vulkan_run
        self.launch, self.vulkan_run = launch, vulkan_run
        self.compile, self.dispatch = launch.compile_spirv, vulkan_run.dispatch
        self.rewrite = launch._with_live_outs_in_memory
        self.plain = None       # the kernel before lavapipe's rewrites, which the replayed module is made from
        self.captured: list[dict] = []

    def __enter__(self):
        from reconverge.backend.spirv.bounds_check import bounds_binding
        from reconverge.backend.spirv.loop_count import counter_binding
        from reconverge.backend.spirv.subgroups import layout_check_binding
        from reconverge.records import replace

        def with_live_outs_in_memory(func):
            self.plain = func
            return self.rewrite(func)

        def compile_spirv(funcs, options):
            # a sub-group kernel's replayed module is the "checked" layout, which any device can run (the
            # layout record is then part of the launch's reference), with native clustered reduces
            layout = "checked" if options.subgroup_layout else None
            generic = replace(options, relaxed_atomics=False, count_loop_iterations=False,
                              subgroup_layout=layout, emulate_clustered=False,
                              maximal_reconvergence=False, check_bounds=False)
            extra = {bounds_binding(funcs[0])} if options.check_bounds else set()
            if options.count_loop_iterations:
                extra.add(counter_binding(funcs[0]))
            size = options.local_size[0] * options.local_size[1] * options.local_size[2] if layout else 0
            plain, self.plain = [self.plain] if self.plain is not None else funcs, None
            self.captured.append({"generic": self.compile(plain, generic), "extra_bindings": extra,
                                  "layout": (layout_check_binding(funcs[0]), size) if layout else None})
            return self.compile(funcs, options)

        def dispatch(spirv, entry, buffers, push_constants, groups, spec_constants=None, full_subgroups=False):
            record = self.captured[-1]
            record.update(entry=entry, push=bytes(push_constants), groups=[int(g) for g in groups],
                          spec={str(k): int(v) for k, v in (spec_constants or {}).items()},
                          inputs={int(b): np.array(a, copy=True) for b, a in buffers.items()
                                  if b not in record["extra_bindings"]}, layout_reference={})
            if record["layout"]:
                binding, size = record["layout"]
                count = int(np.prod(groups))
                record["inputs"][binding] = np.full(count * size, 0xFFFFFFFF, np.uint32)
                record["layout_reference"] = {binding: np.tile(np.arange(size, dtype=np.uint32), count)}
            results = self.dispatch(spirv, entry, buffers, push_constants, groups, spec_constants,
                                    full_subgroups=full_subgroups)
            record["lavapipe"] = {b: results[b] if b in results else record["layout_reference"][b]
                                  for b in record["inputs"]}
            return results

        self.launch.compile_spirv, self.vulkan_run.dispatch = compile_spirv, dispatch
        self.launch._with_live_outs_in_memory = with_live_outs_in_memory
        return self

    def __exit__(self, *exc):
        self.launch.compile_spirv, self.vulkan_run.dispatch = self.compile, self.dispatch
        self.launch._with_live_outs_in_memory = self.rewrite


def _grammar_numbers() -> dict:
    from reconverge.backend.spirv.grammar import GRAMMAR
    from reconverge.backend.spirv.maximal_reconvergence import OPCODE_NAMES
    from reconverge.backend.spirv.vulkan_run import SUBGROUP_CAPABILITIES
    opcodes = tuple(dict.fromkeys(("OpEntryPoint", "OpFunction", "OpVariable", "OpDecorate", "OpCapability",
                                   *OPCODE_NAMES)))
    enumerants = [("ExecutionModel", "GLCompute"), ("Decoration", "Binding"), ("Decoration", "DescriptorSet"),
                  ("StorageClass", "PushConstant"), ("StorageClass", "Uniform"), ("StorageClass", "StorageBuffer")]
    enumerants += [("Capability", c) for c in SUBGROUP_CAPABILITIES] + [("ExecutionMode", "SignedZeroInfNanPreserve"),
                                                                  ("ExecutionMode", "RoundingModeRTE")]
    return {"magic_number": GRAMMAR.magic_number, "opcodes": {n: GRAMMAR.opcode(n) for n in opcodes},
            "enumerants": {f"{k}.{n}": GRAMMAR.enumerant(k, n) for k, n in enumerants}}


def _unique(name: str, used: set[str]) -> str:
    """`name`, or name#2, name#3 ... if taken; remembered in `used`."""
    candidate, n = name, 1
    while candidate in used:
        n += 1
        candidate = f"{name}#{n}"
    used.add(candidate)
    return candidate


def _reference(item: dict, args: list) -> dict:
    from reconverge.tools.targets.harness import run_target
    kind, how = item["reference"]
    if kind == "numpy-width":       # a sub-group launch: the reference for this machine's device
        from reconverge.backend.spirv.vulkan_run import find_device
        return how(find_device(None).subgroup_size)
    if kind == "numpy":
        return {int(i): np.asarray(v) for i, v in how(args).items()}
    results = run_target("llvm", how, item["kernel"], args, item["global"], item["local"],
                         global_offset=item["offset"])
    return {i: r for i, r in enumerate(results) if isinstance(r, np.ndarray)}


def _width_references(item: dict, layout_reference: dict, log) -> dict:
    """A sub-group launch's reference per subgroup size, leaving out a size whose reference is refused."""
    from reconverge.lowering.errors import CompileError
    by_width = {}
    for w in SUBGROUP_WIDTHS:
        try:
            by_width[w] = item["reference"][1](w) | layout_reference
        except CompileError as exc:
            log(f"{item['id']}: no reference at subgroup size {w}: {' '.join(str(exc).split())[:200]}")
    return by_width


def record(folder: str, groups: list[str], cases_path: str | None, limit: int | None, log=print,
           fuzz: tuple[int, int, tuple[str, ...]] = (0, 0, ()), fuzz_sources: tuple[str, ...] = ()) -> list[dict]:
    """Run and save every launch of `groups`; the per-launch verdicts of lavapipe against the reference."""
    import tempfile

    from reconverge.lowering.errors import CompileError
    from reconverge.tools.targets.harness import run_target
    os.makedirs(os.path.join(folder, "launches"), exist_ok=True)
    from reconverge.tools import gpu_replay_groups as g
    sources = {"corpus": g.corpus, "barrier": g.barrier, "real": g.real, "cfg": g.cfg, "irreducible": g.irreducible}
    manifest: dict[str, Any] = {"grammar": _grammar_numbers(), "launches": []}
    verdicts: list[dict] = []
    used: set[str] = set()
    with tempfile.TemporaryDirectory() as scratch, _Recorder() as recorder:
        for group in groups:
            items = g.random_programs(cases_path, scratch) if group == "random" else \
                g.limits(scratch) if group == "limits" else \
                g.subgroups(scratch) if group == "subgroups" else \
                g.fuzz(*fuzz, scratch, fuzz_sources) if group == "fuzz" else sources[group]()
            for n, item in enumerate(items):
                if limit is not None and n >= limit:
                    break
                recorder.captured.clear()
                refused = None
                try:
                    reference = _reference(item, item["args"]())
                    run_target("spirv", item["program"], item["kernel"], item["args"](), item["global"],
                               item["local"], global_offset=item["offset"])
                except CompileError as exc:
                    if not (recorder.captured and "lavapipe" in recorder.captured[-1]):
                        log(f"{item['id']}: not recorded: {exc}")
                        continue
                    refused = str(exc)      # dispatched, then refused (a loop lavapipe cut): kept for replay
                launch = recorder.captured[-1]
                item["id"] = _unique(item["id"], used)    # a kernel with two RUN lines gets #2
                inputs = launch["inputs"]
                reference = {b: v for b, v in reference.items() if b in inputs} | launch["layout_reference"]
                by_width = _width_references(item, launch["layout_reference"], log) \
                    if item["reference"][0] == "numpy-width" else {}
                name = hashlib.sha1(item["id"].encode()).hexdigest()[:16] + ".npz"
                np.savez_compressed(os.path.join(folder, "launches", name),
                                    module=np.frombuffer(launch["generic"], np.uint8),
                                    push=np.frombuffer(launch["push"], np.uint8),
                                    **{f"in_{b}": a for b, a in inputs.items()},
                                    **{f"ref_{b}": a for b, a in reference.items()},
                                    **{f"lvp_{b}": a for b, a in launch["lavapipe"].items()},
                                    **{f"refw{w}_{b}": a for w, refs in by_width.items() for b, a in refs.items()})
                manifest["launches"].append({"id": item["id"], "group": group, "what": item["what"],
                                             "entry": launch["entry"], "groups": launch["groups"],
                                             "spec": launch["spec"], "ulps": item["ulps"],
                                             "data": f"launches/{name}", **({"widths": list(by_width)}
                                                                            if by_width else {})})
                detail = refused or differences(reference, launch["lavapipe"], item["ulps"])
                status = "refused" if refused else "agrees" if detail is None else "differs"
                verdicts.append({"id": item["id"], "group": group, "what": item["what"], "status": status,
                                 "detail": detail})
    with open(os.path.join(folder, "manifest.json"), "w", encoding="utf-8") as f:
        json.dump(manifest, f, indent=1)
    return verdicts


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="gpu_replay", description=__doc__.split("\n\n")[0])
    sub = parser.add_subparsers(dest="command", required=True)
    r = sub.add_parser("record", help="run the launches here (lavapipe) and save them to DIR")
    r.add_argument("folder", metavar="DIR")
    r.add_argument("--group", action="append", choices=GROUPS, help="record only these groups (default: all)")
    r.add_argument("--cases", metavar="CASES.json", help="random programs to record (group 'random')")
    r.add_argument("--limit", type=int, metavar="N", help="at most N launches per group")
    r.add_argument("--fuzz-seed", type=int, default=0, metavar="S", help="the first fuzz program (group 'fuzz')")
    r.add_argument("--fuzz-count", type=int, default=0, metavar="N", help="how many fuzz programs (group 'fuzz')")
    r.add_argument("--fuzz-modes", default="", metavar="M,M", help="their modes, taken in turn (default: all)")
    r.add_argument("--fuzz-source", action="append", default=[], metavar="FILE",
                   help="an OpenCL C file run as the fuzz program --fuzz-seed S of the first mode would be "
                        "(its arguments, sizes and references): a reduced program (group 'fuzz')")
    p = sub.add_parser("replay", help="dispatch the launches saved in DIR on a Vulkan device")
    p.add_argument("folder", metavar="DIR")
    p.add_argument("--vk-device", metavar="NAME|N", help="the device (default: the first that is not a CPU)")
    p.add_argument("--json", metavar="OUT.json", help="write every launch's verdict here")
    p.add_argument("--id", action="append", help="replay only these launch ids")
    p.add_argument("--group", action="append", choices=GROUPS, help="replay only these groups")
    p.add_argument("--plain", action="store_true",
                   help="do not declare MaximallyReconvergesKHR, even where the device offers it")
    args = parser.parse_args(argv)
    if args.command == "record":
        verdicts = record(args.folder, args.group or list(GROUPS), args.cases, args.limit,
                          fuzz=(args.fuzz_seed, args.fuzz_count, tuple(m for m in args.fuzz_modes.split(",") if m)),
                          fuzz_sources=tuple(args.fuzz_source))
        print("lavapipe against the reference:")
        described = "recorded on lavapipe"
    else:
        verdicts, described = replay(args.folder, args.vk_device, args.id, args.group, args.plain)
        print(f"device: {described}")
    print(table(verdicts))
    if getattr(args, "json", None):
        with open(args.json, "w", encoding="utf-8") as f:
            json.dump({"device": described, "launches": verdicts}, f, indent=1)
    return 0


if __name__ == "__main__":
    sys.exit(main())
