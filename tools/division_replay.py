"""Record here, on lavapipe, the launches that settle issue 21's signed-integer and float-division
questions, and replay them unchanged on any Vulkan device (a GPU) with only numpy and the `vulkan` package.

    python -m reconverge.tools.division_replay record DIR     # compile, run on lavapipe and the llvm reference
    python DIR/replay.py replay DIR                 # on the GPU machine: one line per launch, a summary

The GPU machine needs the Vulkan loader (libvulkan1), the Python packages `vulkan`, `cffi`, `pycparser`
and numpy, and (for NVIDIA in a container) VK_DRIVER_FILES naming the driver's ICD JSON file; DIR holds
everything else (the modules, vulkan_run.py and what it imports, the SPIR-V grammar).

What is recorded (each launch's module, buffers, push constants, group counts, the CPU reference's
results and lavapipe's, which equal them where `agrees` says so):
- signed: every kernel of int_division, int_math, long_arith and signed_ops at -O0 and -O2;
- float_loop at -O0/-O2, with and without -cl-fp32-correctly-rounded-divide-sqrt;
- the 32 random programs NVIDIA 580 got wrong after OpSRem was fixed (tests/spirv/data/nvidia_float),
  with and without the option, each in 3 launches: without it a driver may divide within 2.5 ULP
  (OpenCL allows it), with it every launch must equal the reference bit for bit;
- divsqrt: 65,536 random float pairs divided and square-rooted, with and without the option (the count
  of results that differ from IEEE is the driver's division/sqrt error; with the option it must be 0).
"""
from __future__ import annotations

import argparse
import glob
import os
import pickle
import shutil
import sys
from typing import Any, cast

import numpy as np

ROOT = os.path.dirname(os.path.dirname(os.path.realpath(__file__)))
EXACT = ("-cl-fp32-correctly-rounded-divide-sqrt",)
SEED = 20261122
SIGNED_FILES = ("int_division.cl", "int_math.cl", "long_arith.cl", "signed_ops.cl")
FLOAT_PROGRAMS = os.path.join(ROOT, "tests", "spirv", "data", "nvidia_float")
DIVSQRT = """
kernel void divsqrt(global float *q, global float *r, global const float *a, global const float *b) {
  int i = get_global_id(0);
  q[i] = a[i] / b[i];
  r[i] = sqrt(a[i]);
}
"""


def local_size_of(source: str) -> int:
    """A generated program's work-group size: its `__local uint lm[N]` has one element per item."""
    import re
    m = re.search(r"__local\s+uint\s+lm\[(\d+)\]", source)
    return int(m.group(1)) if m else 8


def float_program_args(seed: int) -> list:
    """A launch of a generated program k(in, out, cnt, n): 192 items, random `in` and `n`."""
    rng = np.random.default_rng(seed)
    return [rng.integers(0, 2 ** 32, 256, dtype=np.uint64).astype(np.uint32), np.zeros(192, np.uint32),
            np.zeros(8, np.uint32), np.uint32(rng.integers(0, 64))]


def divsqrt_args() -> list:
    rng = np.random.default_rng(SEED)
    a = rng.integers(0, 2 ** 32, 65536, dtype=np.uint64).astype(np.uint32).view(np.float32)
    b = rng.integers(0, 2 ** 32, 65536, dtype=np.uint64).astype(np.uint32).view(np.float32)
    a[:16384] = rng.uniform(-1000, 1000, 16384).astype(np.float32)        # everyday magnitudes too
    b[:16384] = rng.uniform(-1000, 1000, 16384).astype(np.float32)
    return [np.zeros(65536, np.float32), np.zeros(65536, np.float32), a, b]


class _AnyDriver:
    """A device as the launcher sees it, minus lavapipe's identity: the launch gets the driver-independent form."""

    is_lavapipe = False

    def __init__(self, info):
        self._info = info

    def __getattr__(self, name):
        return getattr(self._info, name)


class Recorder:
    """Wraps backend.spirv.vulkan_run.dispatch to keep each launch's arguments and results."""

    def __init__(self):
        from reconverge.backend.spirv import vulkan_run
        self.vulkan_run, self.real = vulkan_run, vulkan_run.dispatch
        self.launches: list[dict] = []
        vulkan_run.dispatch = self.dispatch
        # record the module `--emit spirv` writes, not lavapipe's work-arounds (an extra binding, relaxed atomics)
        select = vulkan_run.select_device
        vulkan_run.select_device = lambda spec: cast(Any, _AnyDriver(select(spec)))    # a DeviceInfo proxy

    def dispatch(self, spirv, entry, buffers, push, groups, spec=None, **flags):
        out = self.real(spirv, entry, buffers, push, groups, spec, **flags)
        self.launches.append({"spirv": bytes(spirv), "entry": entry, "push": bytes(push), "groups": tuple(groups),
                              "spec": dict(spec or {}), "buffers": {k: np.array(v) for k, v in buffers.items()},
                              "lavapipe": {k: np.array(v) for k, v in out.items()}})
        return out


def _launch(rec: Recorder, records: list, case: str, path: str, level: str, options: tuple, kernel: str,
            args: list, global_size, local_size, compare_reference: bool = True) -> None:
    from reconverge.tools.targets.harness import compare, kernel_params, load_program, run_target
    program = load_program(path, level, build_options=options)
    before = len(rec.launches)
    got = run_target("spirv", program, kernel, args, global_size, local_size)
    agrees, reference = None, None
    if compare_reference:
        want = run_target("llvm", program, kernel, args, global_size, local_size)
        agrees = not compare(want, got, [p.name for p in kernel_params(program.functions[kernel])])
    for launch in rec.launches[before:]:
        if compare_reference:       # buffer parameter i is binding i (backend/spirv/abi.py)
            reference = {b: np.array(want[b]) for b in launch["lavapipe"]}
        launch.update(case=case, level=level, exact=bool(options), agrees=agrees, reference=reference)
        records.append(launch)


def record(out_dir: str) -> None:
    from reconverge.tools.testing.kernel_spec import parse_specs
    rec = Recorder()
    records: list[dict] = []
    for name in SIGNED_FILES:
        path = os.path.join(ROOT, "tests", "kernels", name)
        for level in ("-O0", "-O2"):
            for spec in parse_specs(path):
                _launch(rec, records, f"signed/{name[:-3]}/{spec.kernel}", path, level, (), spec.kernel,
                        spec.make_args(SEED), spec.global_size, spec.local_size)
    path = os.path.join(ROOT, "tests", "kernels", "float_loop.cl")
    spec = parse_specs(path)[0]
    for level in ("-O0", "-O2"):
        for options in ((), EXACT):
            _launch(rec, records, "float_loop", path, level, options, spec.kernel, spec.make_args(SEED),
                    spec.global_size, spec.local_size)
    for path in sorted(glob.glob(os.path.join(FLOAT_PROGRAMS, "*.cl"))):
        with open(path) as f:
            local = local_size_of(f.read())
        for options in ((), EXACT):
            for seed in range(3):
                _launch(rec, records, f"float/{os.path.basename(path)[:-3]}", path, "-O2", options, "k",
                        float_program_args(seed), (192,), (local,))
    os.makedirs(out_dir, exist_ok=True)
    source = os.path.join(out_dir, "divsqrt.cl")
    with open(source, "w") as f:
        f.write(DIVSQRT)
    for options in ((), EXACT):
        _launch(rec, records, "divsqrt", source, "-O2", options, "divsqrt", divsqrt_args(), (65536,), (64,),
                compare_reference=False)
    with open(os.path.join(out_dir, "records.pkl"), "wb") as f:
        pickle.dump(records, f)
    pkg = os.path.join(out_dir, "pkg")
    for rel in ("lowering/errors.py", "backend/spirv/grammar.py", "backend/spirv/vulkan_run.py"):
        os.makedirs(os.path.join(pkg, "reconverge", os.path.dirname(rel)), exist_ok=True)
        shutil.copy(os.path.join(ROOT, rel), os.path.join(pkg, "reconverge", rel))
    for init in ("reconverge", "reconverge/lowering", "reconverge/backend", "reconverge/backend/spirv"):
        open(os.path.join(pkg, init, "__init__.py"), "w").close()     # an empty reconverge: no API, no numpy
    from reconverge.backend.spirv import grammar  # the GPU machine has no spirv-headers: take the JSON along
    for path in (grammar.CORE_FILE, grammar.GLSL_FILE):
        shutil.copy(path, os.path.join(pkg, os.path.basename(path)))
    shutil.copy(os.path.realpath(__file__), os.path.join(out_dir, "replay.py"))
    print(f"{len(records)} launches recorded in {out_dir}")


def _ulps(a: np.ndarray, b: np.ndarray) -> np.ndarray:
    ia, ib = (x.view(np.int32).astype(np.int64) for x in (a, b))
    ia = np.where(ia < 0, -(ia & 0x7FFFFFFF), ia)
    ib = np.where(ib < 0, -(ib & 0x7FFFFFFF), ib)
    return np.abs(ia - ib)


def replay(in_dir: str) -> int:
    """Run every record on this machine's first Vulkan device; print what differs from the reference."""
    pkg = os.path.join(in_dir, "pkg")
    sys.path.insert(0, pkg)
    from reconverge.backend.spirv import grammar
    grammar.GRAMMAR = grammar.Grammar(os.path.join(pkg, os.path.basename(grammar.CORE_FILE)),
                                      os.path.join(pkg, os.path.basename(grammar.GLSL_FILE)))
    from reconverge.backend.spirv import vulkan_run
    with open(os.path.join(in_dir, "records.pkl"), "rb") as f:
        records = pickle.load(f)
    print("device:", vulkan_run.device_name())
    summary: dict[tuple, list[int]] = {}
    for r in records:
        out = vulkan_run.dispatch(r["spirv"], r["entry"], r["buffers"], r["push"], r["groups"], r["spec"])
        label = "exact" if r["exact"] else "default"
        if r["case"] == "divsqrt":
            for binding, what in ((0, "division"), (1, "sqrt")):
                want, got = r["lavapipe"][binding], out[binding]
                same = (want.view(np.uint32) == got.view(np.uint32)) | (np.isnan(want) & np.isnan(got))
                normal = ~same & (np.abs(want) >= np.float32(2.0 ** -126)) & np.isfinite(want) & np.isfinite(got)
                ulps = _ulps(want[normal], got[normal])
                print(f"divsqrt {label} {what}: {int((~same).sum())} of {same.size} differ from IEEE"
                      + (f"; {ulps.size} with a normal result, by at most {int(ulps.max())} ULP" if ulps.size else ""))
            continue
        want = r["reference"]           # the CPU reference (llvm JIT), binding by binding
        diffs = [f"binding {b}: {int((np.asarray(v) != out[b]).sum())} elements, first at "
                 f"{int(np.nonzero(np.asarray(v).ravel() != out[b].ravel())[0][0])}"
                 for b, v in want.items() if not np.array_equal(np.asarray(v), out[b])]
        group = r["case"].split("/")[0]
        summary.setdefault((group, label), [0, 0])[1 if diffs else 0] += 1
        if diffs:
            print(f"{r['case']} {r['level']} {label}: differs from the reference in " + "; ".join(diffs)
                  + ("" if r["agrees"] else " (lavapipe differs too)"))
    for (group, label), (good, bad) in sorted(summary.items()):
        print(f"{group:10} {label:8} agree {good:4}  differ {bad:4}")
    return 0


def main(argv=None) -> int:
    p = argparse.ArgumentParser(prog="python -m reconverge.tools.division_replay", description=__doc__.splitlines()[0])
    p.add_argument("verb", choices=("record", "replay"))
    p.add_argument("dir")
    args = p.parse_args(argv)
    if args.verb == "record":
        record(args.dir)
        return 0
    return replay(args.dir)


if __name__ == "__main__":
    sys.exit(main())
