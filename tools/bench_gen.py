"""On demand: the Gen backend beside Intel's production compiler on the kernel corpus, and the simulator's
speed. Not a test: the numbers go into the README's benchmark table.

For each corpus file at -O2: the whole-process compile time of `reconverge compile --emit gen` and of
`ocloc compile -file X.cl -device skl` (Debian intel-opencl-icd; IGC forced to SIMD16 with
IGC_ForceOCLSIMDWidth=16 so the widths match), median of --runs runs, and their ratio; the static
instruction count of every kernel from both (IGC's from `ocloc disasm`, which needs an unversioned
libiga64.so: a symlink in a temporary directory on LD_LIBRARY_PATH); a kernel where IGC has fewer
backward branches (while, or a goto/jmpi to an earlier label: labels are byte offsets) than we have
`while` instructions was unrolled by it. Then the simulator's throughput: lane-instructions
(enabled lanes summed over executed instructions) per second running the corpus in SIMD16; and per
kernel, structured branches against blockIP: static instructions, executed instructions and executed
branch instructions.

    python -m reconverge.tools.bench_gen [--runs 3] [--files PATTERN] [--modes-only]
"""
from __future__ import annotations

import argparse
import fnmatch
import glob
import os
import re
import statistics
import subprocess
import sys
import tempfile
import time

from reconverge.lowering.errors import CompileError

ROOT = os.path.dirname(os.path.dirname(os.path.realpath(__file__)))
IGA_LIB = "/usr/lib/x86_64-linux-gnu/libiga64.so.1"
OCLOC = ["ocloc", "compile", "-device", "skl", "-options", "-cl-std=CL2.0"]   # 2.0: get_local_linear_id etc.
BRANCH_OPS = ("if", "else", "endif", "while", "break", "cont", "halt", "jmpi")


def _timed(cmd: list[str], env: dict | None = None, cwd: str | None = None) -> float:
    start = time.perf_counter()
    proc = subprocess.run(cmd, capture_output=True, text=True, env=env, cwd=cwd)
    if proc.returncode != 0:
        raise RuntimeError(f"{' '.join(cmd)}: {proc.stderr.strip()[:300]}")
    return time.perf_counter() - start


def _ours(path: str) -> dict[str, tuple[int, int]]:
    """kernel -> (instructions, backward branches: whiles and backward jmpis) of our SIMD16 code, in the
    control-flow mode `--cf auto` picks."""
    from reconverge.backend.gen import GenOptions, compile
    from reconverge.tools.targets.harness import load_program
    program = load_program(path, "-O2")
    out = {}
    for name in program.kernels or ():
        insts = compile(program, name, GenOptions(16)).program
        out[name] = (len(insts), sum(i.opcode == "while" or (i.opcode == "jmpi" and (i.jip or 0) < 0)
                                     for i in insts))
    return out


def _igc(path: str, work: str, env: dict) -> dict[str, tuple[int, int]]:
    stem = os.path.basename(path)[:-3]
    subprocess.run(OCLOC + ["-file", path, "-output_no_suffix", "-out_dir", work], capture_output=True, env=env,
                   check=True)
    dump = os.path.join(work, "dump")
    subprocess.run(["ocloc", "disasm", "-file", os.path.join(work, stem), "-device", "skl", "-dump", dump],
                   capture_output=True, env=env, check=True)
    out = {}
    for asm in glob.glob(os.path.join(dump, "*_KernelHeap.asm")):
        name = os.path.basename(asm)[:-len("_KernelHeap.asm")]
        count = backward = offset = 0
        for line in (ln.strip() for ln in open(asm, encoding="utf-8")):
            if not line or line.startswith("//"):
                continue
            if line.endswith(":"):
                offset = int(line[1:-1])
                continue
            count += 1
            targets = re.findall(r"\bL(\d+)\b", line.split("//")[0])
            if " while " in f" {line} " or (re.search(r"\b(goto|jmpi|brc|brd)\b", line) and targets
                                            and int(targets[0]) <= offset):
                backward += 1
            offset += 8 if "Compacted" in line else 16
        out[name] = (count, backward)
    return out


def _blockip_overhead(func) -> tuple[int, int, int, int]:
    """(entry instructions, blocks, branch instructions, branches) of a kernel's blockIP machine IR.
    Entry: each block's test of blockIP, its JOIN jmpi and the if/endif around its body (Beignet's
    scheme B spends the same 3 or 4). Branch: every other instruction on the blockIP register (the
    updates, the tests that pick phi copies' lanes, a backward branch's test) and backward jmpis."""
    from reconverge.backend.gen.isel_blockip import BlockIPDriver
    from reconverge.backend.gen.mir import VReg
    selector = BlockIPDriver(func, 16)
    mfunc = selector.run()
    blockip = selector.blockip.value
    assert isinstance(blockip, VReg)
    bip = blockip.id
    entry = len(selector.index)                     # one blockIP test per block
    total = 0
    for b in mfunc.blocks:
        for ins in b.instrs:
            regs = ins.uses() + ins.defs()
            total += ins.opcode in ("if", "endif", "jmpi") or any(r.id == bip for r in regs)
            inverted = ins.predicate is not None and ins.predicate[2]
            entry += ins.opcode in ("if", "endif") or (ins.opcode == "jmpi" and inverted)
    branches = sum(1 for b in func.blocks if b.instrs and b.instrs[-1].opcode in ("br", "cbr", "switch", "ret"))
    prologue = 2                                    # blockIP's first value: 0xFFFF, then 0 on live lanes
    return entry, len(selector.index), total - entry - prologue, branches


class _Executed:
    """Counts what the simulator executes while in a `with` block: instructions, branch instructions
    and lane-instructions (enabled lanes summed over instructions), from the gen launcher's dispatches
    (every hardware thread's counts, as run --stats sums them)."""

    def __enter__(self):
        from reconverge.backend.gen import launch
        self.instructions = self.branches = self.lanes = 0
        self._launch, self._run = launch, launch.run_ndrange
        run, counter = self._run, self

        def counting(*args, on_group=None, **kw):
            def count(group):
                for t in group.threads:
                    counter.instructions += t.steps
                    counter.branches += t.branches
                    counter.lanes += t.lane_steps
                if on_group is not None:
                    on_group(group)
            return run(*args, on_group=count, **kw)
        launch.run_ndrange = counting
        return self

    def __exit__(self, *exc) -> None:
        self._launch.run_ndrange = self._run


def _corpus_launches(pattern: str = "*.cl", examples: bool = True):
    """(program, spec) for every corpus kernel at -O2: tests/kernels matching `pattern`, then examples."""
    from reconverge.tools.targets.harness import load_program
    from reconverge.tools.testing.kernel_spec import parse_specs
    for path in sorted(glob.glob(os.path.join(ROOT, "tests", "kernels", pattern))) + \
            (sorted(glob.glob(os.path.join(ROOT, "examples", "*.cl"))) if examples else []):
        program = load_program(path, "-O2")
        for spec in parse_specs(path):
            yield program, spec


def _launch(program, spec, cf: str = "auto") -> None:
    """The kernel's corpus launch on gen in SIMD16, in control-flow mode `cf`."""
    from reconverge.tools.targets.harness import GenRunOptions, run_target
    run_target("gen", program, spec.kernel, spec.make_args(1), spec.global_size, spec.local_size,
               GenRunOptions(16, cf), global_offset=spec.global_offset)


def _modes(files: str) -> None:
    """Per kernel and control-flow mode: static instructions, and executed instructions and executed
    branch instructions (if/else/endif/while/break/cont/halt/jmpi) summed over the corpus launch's threads."""
    from reconverge.backend.gen import GenOptions, choose_function, compile

    print("\n| kernel | auto picks | structured: static / executed / branches | blockip: static / executed / "
          "branches | hybrid: static / executed / branches | blockip, scheme A entry: static / executed | "
          "blockip entry per block | blockip per branch |")
    print("|---|---|---|---|---|---|---|---|")
    overhead = [0, 0, 0, 0]
    modes = ("structured", "blockip", "hybrid", "blockip-predicated")
    totals = dict.fromkeys(modes + ("auto",), 0)
    for program, spec in _corpus_launches(files):
        cells, executed = {}, {}
        for cf in modes:
            static = len(compile(program, spec.kernel, GenOptions(16, cf)).program)
            with _Executed() as count:
                _launch(program, spec, cf)
            executed[cf] = count.instructions
            cells[cf] = f"{static} / {count.instructions} / {count.branches}"
            totals[cf] += count.instructions
        chosen = choose_function(program, spec.kernel, "auto")[1].name
        totals["auto"] += executed[chosen]
        entry, blocks, branch, branches = _blockip_overhead(choose_function(program, spec.kernel, "blockip")[0])
        overhead = [a + b for a, b in zip(overhead, (entry, blocks, branch, branches))]
        per_branch = f"{branch / branches:.1f}" if branches else "-"
        scheme_a = cells["blockip-predicated"].rsplit(" / ", 1)[0]
        print(f"| {spec.kernel} | {chosen} | {cells['structured']} | {cells['blockip']} | {cells['hybrid']} "
              f"| {scheme_a} | {entry / blocks:.1f} | {per_branch} |")
    print(f"\nexecuted instructions over the corpus: {', '.join(f'{k} {v}' for k, v in totals.items())}; "
          f"blockIP bookkeeping: {overhead[0] / overhead[1]:.2f} instructions per block entry over "
          f"{overhead[1]} blocks, {overhead[2] / overhead[3]:.2f} per branch over {overhead[3]} branches and returns")


def _random_modes(seeds: int = 24) -> None:
    """The control-flow modes over random CFGs (tools/testing/cfggen.py, 10 to 80 blocks, the random-CFG
    tests' launch: 48 work-items in groups of 24, SIMD16): reducible ones in every mode, irreducible
    ones (two-entry cycles) too, the tree's through a guard loop (lowering.guard_irreducible); totals of
    static, executed and executed branch instructions, and the kernels where auto executes more than the
    tree."""
    import random

    import numpy as np

    from reconverge.backend.gen import CF_MODES, compile_gen_kernel, select_any
    from reconverge.backend.gen.cost import prefers_hybrid
    from reconverge.backend.gen.launch import run_gen_kernel
    from reconverge.lowering.pipeline import Options, compile_llvm
    from reconverge.tools.testing.cfggen import random_kernel

    modes = {m: CF_MODES[m] for m in ("structured", "blockip", "hybrid")}
    print("\n| random CFGs | kernels | mode: static / executed / branches (totals) |")
    print("|---|---|---|")
    for irreducible in (0.0, 0.3):
        totals = {m: [0, 0, 0] for m in modes}
        auto_worse = kernels = 0
        for seed in range(seeds):
            n_blocks = (10, 20, 40, 80)[seed % 4]
            text = str(random_kernel(random.Random(1000 + seed), n_blocks, irreducible=irreducible))
            funcs = {}
            for pipeline in ("gen", "gen-blockip"):
                try:
                    funcs[pipeline] = compile_llvm(text, source_name="cfggen", options=Options(
                        kernel="k", verify_each=False, pipeline=pipeline))["k"]
                except CompileError:
                    pass                                    # (a sub-group operation in a cycle: none here)
            if irreducible and not funcs["gen"].guarded_cycles:
                continue                                    # no cycle was drawn: reducible after all
            kernels += 1
            inp = np.random.default_rng(seed).integers(-1000, 1000, 48).astype(np.int32)
            executed = {}
            for mode, cf in modes.items():
                pipeline = cf.pipeline
                if pipeline not in funcs:
                    continue
                static = len(compile_gen_kernel(funcs[pipeline], 16, regions=cf.regions, entry=cf.entry).program)
                with _Executed() as count:
                    run_gen_kernel(funcs[pipeline], [np.zeros(48, np.int32), inp.copy()], (48,), (24,), 16,
                                   regions=cf.regions, entry=cf.entry)
                executed[mode] = count.instructions
                for k, v in enumerate((static, count.instructions, count.branches)):
                    totals[mode][k] += v
            hybrid = prefers_hybrid(select_any(funcs["gen"]), select_any(funcs["gen-blockip"], regions=True))
            auto_worse += executed["hybrid" if hybrid else "structured"] > executed["structured"]
        cells = "; ".join(f"{m}: {' / '.join(map(str, t))}" for m, t in totals.items() if t[1])
        kind = "irreducible" if irreducible else "reducible"
        worse = f"; auto executes more than structured on {auto_worse}"
        print(f"| {kind} | {kernels} | {cells}{worse} |")


def _regions_scaling() -> None:
    """How long cf_regions takes to find a random CFG's regions as the CFG grows."""
    import random

    from reconverge.backend.gen.cf_regions import structured_regions
    from reconverge.lowering.pipeline import Options, compile_llvm
    from reconverge.tools.testing.cfggen import random_kernel
    print("\n| blocks | units after collapsing | seconds |")
    print("|---|---|---|")
    for n in (100, 200, 400, 800, 1600, 3200):
        func = compile_llvm(str(random_kernel(random.Random(n), n)), source_name="cfggen",
                            options=Options(kernel="k", pipeline="gen-blockip", verify_each=False))["k"]
        start = time.perf_counter()
        units = structured_regions(func)
        print(f"| {len(func.blocks)} | {len(units)} | {time.perf_counter() - start:.3f} |")


def _throughput() -> tuple[int, float]:
    """Lane-instructions executed running the corpus (tests/kernels) on gen in SIMD16, and the seconds."""
    launches = list(_corpus_launches(examples=False))
    with _Executed() as count:
        start = time.perf_counter()
        for program, spec in launches:
            _launch(program, spec)
        return count.lanes, time.perf_counter() - start


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(prog="python -m reconverge.tools.bench_gen")
    ap.add_argument("--runs", type=int, default=3)
    ap.add_argument("--files", default="*", help="glob on corpus file names")
    ap.add_argument("--modes-only", action="store_true", help="only the control-flow mode table")
    args = ap.parse_args(argv)
    if args.modes_only:
        _modes(args.files)
        _random_modes()
        _regions_scaling()
        return 0
    with tempfile.TemporaryDirectory() as tmp:
        os.symlink(IGA_LIB, os.path.join(tmp, "libiga64.so"))
        env = dict(os.environ, IGC_ForceOCLSIMDWidth="16",
                   LD_LIBRARY_PATH=tmp + ":" + os.environ.get("LD_LIBRARY_PATH", ""))
        corpus = [p for p in sorted(glob.glob(os.path.join(ROOT, "tests", "kernels", "*.cl")))
                  if fnmatch.fnmatch(os.path.basename(p), args.files)]
        print("| file | ours (s) | ocloc (s) | ratio | kernel | ours (instr) | IGC (instr) | ratio |")
        print("|---|---|---|---|---|---|---|---|")
        ratios, sizes = [], []
        for path in corpus:
            work = os.path.join(tmp, os.path.basename(path))
            os.mkdir(work)
            ours_t = statistics.median(_timed([sys.executable, "-m", "reconverge.tools.cli", "compile", path, "-O2",
                                               "--emit", "gen", "-o", os.path.join(work, "ours.bin")], cwd=ROOT)
                                       for _ in range(args.runs))
            igc_t = statistics.median(_timed(OCLOC + ["-file", path, "-out_dir", os.path.join(work, "t")], env=env)
                                      for _ in range(args.runs))
            ratios.append(ours_t / igc_t)
            ours, igc = _ours(path), _igc(path, work, env)
            for k, (n, loops) in sorted(ours.items()):
                m, igc_loops = igc.get(k, (0, 0))
                unrolled = igc_loops < loops
                if m and not unrolled:
                    sizes.append(n / m)
                print(f"| {os.path.basename(path)} | {ours_t:.2f} | {igc_t:.2f} | {ours_t / igc_t:.2f} | {k} | {n} | "
                      f"{m}{' (unrolled)' if unrolled else ''} | {n / m if m else float('nan'):.2f} |")
        print(f"\ncompile time ratio (ours / ocloc): median {statistics.median(ratios):.2f}, "
              f"max {max(ratios):.2f}")
        if sizes:
            print(f"instruction count ratio (ours / IGC, kernels IGC does not unroll): median "
                  f"{statistics.median(sizes):.2f}, max {max(sizes):.2f} over {len(sizes)} kernels")
    _modes(args.files)
    _random_modes()
    _regions_scaling()
    lanes, seconds = _throughput()
    print(f"simulator: {lanes} lane-instructions in {seconds:.1f} s = {lanes / seconds:,.0f} per second")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
