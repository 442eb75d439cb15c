"""`make bench`: issue 26's performance table, every figure measured in one run, ours beside its anchor.

Not a test (it asserts nothing); the README's "Benchmark" section records its output. One row per figure:
what we measured, what the anchor measured in the same run, the ratio (ours / anchor, lower is better,
except throughput) and the target. A figure whose tool or benchmark input is missing reads
"n/a (why)"; a figure that fails reads "error: ..." - the table always comes out whole.

Timing: a compile is a whole process (the `reconverge` script as a user's `pip install` leaves it: this
checkout built as a wheel in a fresh virtual environment, start-up and imports included; the development
install's editable finder is in the notes of the one-kernel and --help rows), run paired with the
anchor's process and interleaved (ours, theirs, theirs, ours, ...), each pair `--runs` times; the figure
is the ratio of the medians of CPU seconds (user + system of the child, from wait4), which a machine
shared with other jobs disturbs much less than wall time. The wall-time ratio is in the notes; "busy"
marks a row whose wall and CPU ratios differ by more than 10%: the machine was not idle, and the wall
figure means little.

The rows (ISSUE 26):
- static Gen instructions against IGC (`ocloc -device skl`) at the same SIMD width, the median over
  the control-flow kernels IGC does not unroll (tools/bench_gen_quality.py, examples/bench/control_flow.cl);
- whole-process compile of the control-flow file to Gen (`--cf auto` and `--cf structured`) against
  `ocloc compile -device skl`;
- whole-process compile of that file to validated SPIR-V (`--validate`) against
  `clang-22 -target spirv64 -O2`;
- one kernel per process to SPIR-V (examples/bench/private_array.cl) against glslangValidator -V on the
  same computation in GLSL (private_array.comp);
- `reconverge --help` against `clang-22 --version`;
- the simulator's lane-instructions per CPU second (tools/bench_sim.py's launches);
- Gen compile of a file of 400 kernels (the control-flow kernels, renamed, repeated) against the SPIR-V
  compile of the same file, CPU seconds, one run each;
- `cf_regions` on random CFGs: its growth exponent (least squares over the sizes);
- the front end on the 100,000-block generated kernel (read + structurize, tools/bench_structurize.py);
- SPIR-V words of private_array.cl against glslang's and glslang + `spirv-opt -O`'s for the GLSL;
- executed Gen instructions, `--cf auto` against `--cf structured`, the worst control-flow kernel.

    python -m reconverge.tools.bench_all [--quick] [--runs N] [--only WORD,..]

`--quick` (`make bench QUICK=1`): three pairs instead of seven, and smaller sizes where a row says so
(100 kernels instead of 400, front end up to 30,000 blocks, cf_regions up to 800).
"""
from __future__ import annotations

import argparse
import math
import os
import re
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from dataclasses import dataclass
from typing import Callable

ROOT = os.path.dirname(os.path.dirname(os.path.realpath(__file__)))
BENCH = os.path.join(ROOT, "examples", "bench")
CONTROL_FLOW = os.path.join(BENCH, "control_flow.cl")
PRIVATE_CL = os.path.join(BENCH, "private_array.cl")
PRIVATE_GLSL = os.path.join(BENCH, "private_array.comp")
OURS = (sys.executable, "-m", "reconverge.tools.cli")
CLANG_SPIRV = ("clang-22", "-x", "cl", "-cl-std=CL3.0", "-Xclang", "-finclude-default-header",
               "-target", "spirv64", "-O2", "-c")


# Python as installed: compiled modules cached (a PYTHONDONTWRITEBYTECODE=1 environment would make every
# process compile every module it imports; the warm-up run of each pair writes the cache)
CHILD_ENV = {k: v for k, v in os.environ.items() if k != "PYTHONDONTWRITEBYTECODE"}


@dataclass
class Row:
    figure: str
    ours: str
    anchor: str
    ratio: str
    target: str
    notes: str = ""


class Unavailable(Exception):
    """A figure that cannot be measured here (a tool or a benchmark input is missing)."""


# ----- running processes ---------------------------------------------------------------------------

@dataclass
class Run:
    wall: float
    cpu: float


def run_process(cmd: list[str] | tuple[str, ...], cwd: str | None = None, timeout: float | None = None,
                env: dict | None = None) -> Run:
    """One whole process: its wall seconds and CPU seconds (user + system, from wait4); an error if it fails."""
    start = time.perf_counter()
    proc = subprocess.Popen(list(cmd), cwd=cwd or ROOT, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE,
                            env=env or CHILD_ENV)
    deadline = None if timeout is None else start + timeout
    while True:
        pid, status, usage = os.wait4(proc.pid, os.WNOHANG)
        if pid:
            break
        if deadline is not None and time.perf_counter() > deadline:
            proc.kill()
            os.wait4(proc.pid, 0)
            raise TimeoutError(f"over {timeout:.0f} s")
        time.sleep(0.002)
    wall = time.perf_counter() - start
    proc.returncode = os.waitstatus_to_exitcode(status)
    err = proc.stderr.read().decode("utf-8", "replace") if proc.stderr else ""
    if proc.stderr:
        proc.stderr.close()
    if proc.returncode != 0:
        last = (err.strip().splitlines() or ["no message"])[-1]
        raise RuntimeError(f"{os.path.basename(cmd[0])} exited {proc.returncode}: {last[:120]}")
    return Run(wall, usage.ru_utime + usage.ru_stime)


@dataclass
class Paired:
    ours_cpu: float
    theirs_cpu: float
    ours_wall: float
    theirs_wall: float

    @property
    def ratio(self) -> float:
        return self.ours_cpu / self.theirs_cpu

    @property
    def wall_ratio(self) -> float:
        return self.ours_wall / self.theirs_wall

    def notes(self) -> str:
        busy = abs(self.wall_ratio / self.ratio - 1) > 0.10
        return (f"CPU s {self.ours_cpu:.3f} vs {self.theirs_cpu:.3f}; wall ratio {self.wall_ratio:.2f}"
                + (" (busy)" if busy else ""))


def paired(ours: list[str], theirs: list[str], runs: int, warmed: bool = False) -> Paired:
    """Interleaved whole-process runs (ours first in even pairs, theirs first in odd ones), after one
    untimed warm-up of each (file caches; `warmed`: the caller ran both already); medians."""
    if not warmed:
        run_process(ours)
        run_process(theirs)
    mine: list[Run] = []
    other: list[Run] = []
    for k in range(runs):
        if k % 2 == 0:
            mine.append(run_process(ours))
            other.append(run_process(theirs))
        else:
            other.append(run_process(theirs))
            mine.append(run_process(ours))
    return Paired(statistics.median(r.cpu for r in mine), statistics.median(r.cpu for r in other),
                  statistics.median(r.wall for r in mine), statistics.median(r.wall for r in other))


def need_tool(*tools: str) -> None:
    missing = [t for t in tools if shutil.which(t) is None]
    if missing:
        raise Unavailable(f"{', '.join(missing)} not installed")


def need_file(path: str, who: str = "") -> None:
    if not os.path.exists(path):
        raise Unavailable(f"{os.path.relpath(path, ROOT)} not built{' (' + who + ')' if who else ''}")


def ratio_row(figure: str, p: Paired, target: str, anchor_name: str) -> Row:
    return Row(figure, f"{p.ours_cpu:.3f} CPU s", f"{anchor_name} {p.theirs_cpu:.3f} CPU s", f"{p.ratio:.2f}x",
               target, p.notes())


# ----- the rows ------------------------------------------------------------------------------------

class Bench:
    def __init__(self, quick: bool, runs: int, work: str):
        self.quick, self.runs, self.work = quick, runs, work
        self._quality = None
        self._installed: list[str] | None = None

    @property
    def ours(self) -> list[str]:
        """The installed `reconverge` (bench_compile_speed.installed_command), built on first use."""
        if self._installed is None:
            from reconverge.tools.bench_compile_speed import installed_command
            self._installed = [installed_command(self.out("installed"), dependencies=True)]
        return self._installed

    def out(self, name: str) -> str:
        return os.path.join(self.work, name)

    def gen_quality(self):
        """tools/bench_gen_quality.py's measurement of the control-flow file, made once for two rows."""
        if self._quality is None:
            need_file(CONTROL_FLOW, "genq")
            try:
                from reconverge.tools.bench_gen_quality import gen_quality
            except ImportError:
                raise Unavailable("tools/bench_gen_quality.py not built (genq)") from None
            self._quality = gen_quality([CONTROL_FLOW])
        return self._quality

    def static_vs_igc(self) -> list[Row]:
        need_tool("ocloc")
        q = self.gen_quality()
        rows = []
        for simd in (16, 8):
            med, span = q.median_ratio(simd), q.ratio_range(simd)
            if med is None or span is None:
                rows.append(Row(f"static Gen instructions, SIMD{simd}, vs IGC", "n/a", "n/a", "n/a", "<= 1.0x",
                                "no kernel IGC leaves rolled"))
                continue
            kept = [k for k in q.kernels if k.ratio(simd) is not None]
            ours = sum(k.static[(simd, "auto")] for k in kept)
            igc = sum(k.igc[simd] or 0 for k in kept)
            rows.append(Row(f"static Gen instructions, SIMD{simd}, kernels IGC does not unroll", f"{ours} (sum)",
                            f"IGC {igc} (sum)", f"{med:.2f}x median", "<= 1.0x",
                            f"range {span[0]:.2f}-{span[1]:.2f} over {len(kept)} kernels"))
        return rows

    def gen_compile(self) -> list[Row]:
        need_tool("ocloc")
        need_file(CONTROL_FLOW, "genq")
        ocloc = ["ocloc", "compile", "-q", "-file", CONTROL_FLOW, "-device", "skl", "-out_dir", self.out("ocloc"),
                 "-output_no_suffix", "-options", "-cl-std=CL2.0"]
        rows = []
        for cf in ("auto", "structured"):
            ours = [*self.ours, "compile", CONTROL_FLOW, "-O2", "--emit", "gen", "--cf", cf, "-o", self.out("cf.krn")]
            p = paired(ours, ocloc, self.runs)
            rows.append(ratio_row(f"whole-process compile to Gen, control-flow file, --cf {cf}", p, "<= 1.0x",
                                  "ocloc"))
        return rows

    def spirv_compile(self) -> list[Row]:
        need_tool("clang-22", "spirv-val")
        need_file(CONTROL_FLOW, "genq")
        ours = [*self.ours, "compile", CONTROL_FLOW, "-O2", "--emit", "spirv", "--validate", "-o", self.out("cf.spv")]
        clang = [*CLANG_SPIRV, CONTROL_FLOW, "-o", self.out("cf-clang.spv")]
        p = paired(ours, clang, self.runs)
        return [ratio_row("whole-process compile to validated SPIR-V, control-flow file", p, "<= 2x",
                          "clang-22 -target spirv64 -O2")]

    def one_kernel_spirv(self) -> list[Row]:
        need_tool("glslangValidator")
        args = ["compile", PRIVATE_CL, "-O2", "--emit", "spirv", "-o", self.out("pa.spv")]
        glslang = ["glslangValidator", "-V", PRIVATE_GLSL, "-o", self.out("pa-glslang.spv")]
        p = paired([*self.ours, *args], glslang, self.runs)
        development = paired([*OURS, *args], glslang, self.runs)
        row = ratio_row("one kernel per process to SPIR-V (private_array)", p, "<= 1x", "glslangValidator -V")
        row.notes += f"; development install (pip install -e): {development.ratio:.2f}x"
        return [row]

    def help_startup(self) -> list[Row]:
        """As a user's `pip install` has it (a wheel in a fresh environment); the development install's
        editable finder, which every interpreter of that environment pays, in the notes."""
        need_tool("clang-22")
        installed = paired([*self.ours, "--help"], ["clang-22", "--version"], self.runs)
        development = paired([*OURS, "--help"], ["clang-22", "--version"], self.runs)
        row = ratio_row("`reconverge --help` (installed from the wheel)", installed, "<= 2x", "clang-22 --version")
        row.notes += f"; development install (pip install -e): {development.ratio:.2f}x"
        return [row]

    def simulator(self) -> list[Row]:
        try:
            import reconverge.tools.bench_sim as bench_sim
        except ImportError:
            raise Unavailable("tools/bench_sim.py not built (sim)") from None
        if hasattr(bench_sim, "lane_rate"):
            rate, notes = bench_sim.lane_rate(quick=self.quick)
        elif hasattr(bench_sim, "_launches") and hasattr(bench_sim, "_run"):
            launches = list(bench_sim._launches("*.cl"))
            if self.quick:
                launches = launches[:12]
            lanes = seconds = 0.0
            slowest = ("", 0.0)
            for program, spec in launches:
                _, s, n = bench_sim._run("gen", program, spec)
                lanes, seconds = lanes + n, seconds + s
                slowest = max(slowest, (spec.kernel, s), key=lambda x: x[1])
            rate = lanes / seconds
            notes = f"{len(launches)} corpus launches, {lanes:,.0f} lane-instr; slowest {slowest[0]} {slowest[1]:.2f} s"
        else:
            raise Unavailable("tools/bench_sim.py has no lane_rate() (sim)")
        return [Row("simulator, lane-instructions per CPU second", f"{rate / 1e6:.2f}M", "(hardware)", "-",
                    ">= 5M", notes)]

    def many_kernels(self) -> list[Row]:
        """The Gen compile of a many-kernel file against the SPIR-V compile of it: one timed run of each
        first (a Gen compile stuck past 8 times the SPIR-V one costs the table no more), then interleaved
        pairs as for the other rows (a single pair of these ~2.5 s compiles read anywhere from 0.97x to
        1.09x on one machine in one night)."""
        need_file(CONTROL_FLOW, "genq")
        count = 100 if self.quick else 400
        path = self.out(f"kernels{count}.cl")
        write_many_kernels(CONTROL_FLOW, path, count)
        spirv_cmd = [*self.ours, "compile", path, "-O2", "--emit", "spirv", "-o", self.out("many.spv")]
        gen_cmd = [*self.ours, "compile", path, "-O2", "--emit", "gen", "-o", self.out("many.krn")]
        spirv = run_process(spirv_cmd)        # (also the warm-up of paired's runs)
        limit = max(120.0, 8 * spirv.wall)     # (wall: a stuck compile costs the table no more than this)
        try:
            run_process(gen_cmd, timeout=limit)
        except TimeoutError:
            return [Row(f"Gen compile of a file of {count} kernels", f"stopped after {limit:.0f} s wall",
                        f"SPIR-V compile {spirv.cpu:.1f} CPU s ({spirv.wall:.0f} s wall)",
                        f"> {limit / spirv.wall:.1f}x (wall)", "<= 1x, linear")]
        p = paired(gen_cmd, spirv_cmd, self.runs, warmed=True)
        return [Row(f"Gen compile of a file of {count} kernels", f"{p.ours_cpu:.2f} CPU s",
                    f"SPIR-V compile {p.theirs_cpu:.2f} CPU s", f"{p.ratio:.2f}x", "<= 1x, linear",
                    f"medians of {self.runs} pairs; wall {p.ours_wall:.2f} vs {p.theirs_wall:.2f} s")]

    def regions_exponent(self) -> list[Row]:
        import random

        from reconverge.backend.gen.cf_regions import structured_regions
        from reconverge.lowering.pipeline import Options, compile_llvm
        from reconverge.tools.testing.cfggen import random_kernel
        sizes = (200, 400, 800) if self.quick else (400, 800, 1600, 3200)
        points = []
        for n in sizes:
            func = compile_llvm(str(random_kernel(random.Random(n), n)), source_name="cfggen",
                                options=Options(kernel="k", pipeline="gen-blockip", verify_each=False))["k"]
            start = time.process_time()
            structured_regions(func)
            points.append((len(func.blocks), time.process_time() - start))
        slope = growth_exponent(points)
        last = points[-1]
        return [Row("`cf_regions` on random CFGs, growth exponent", f"{slope:.2f}", "-", "-", "<= 1.2",
                    f"blocks {', '.join(str(b) for b, _ in points)}; {last[1]:.2f} CPU s at {last[0]}")]

    def front_end(self) -> list[Row]:
        import reconverge.tools.bench_structurize as bench_structurize
        sizes = (3_000, 10_000, 30_000) if self.quick else (10_000, 30_000, 100_000)
        if hasattr(bench_structurize, "front_end_growth"):      # CPU seconds and exponents (reader's)
            g = bench_structurize.front_end_growth(sizes, runs=3)
            last = g["rows"][-1]
            cpu = last["total_cpu"]
            return [Row(f"front end, {sizes[-1]:,}-block generated kernel (read + structurize)", f"{cpu:.2f} CPU s",
                        "-", "-", "< 5 s at 100k",
                        f"medians of 3 runs: read {last['read_cpu']:.2f} s, "
                        f"structurize {last['structurize_cpu']:.2f} s; "
                        f"exponents read {g['read_exponent']:.2f}, structurize {g['structurize_exponent']:.2f} over "
                        f"{', '.join(f'{n:,}' for n in sizes)}")]
        blocks = sizes[-1]
        start = time.process_time()
        m = bench_structurize.measure(blocks, 1, 1, False)
        cpu = time.process_time() - start
        return [Row(f"front end, {blocks:,}-block generated kernel (read + structurize)", f"{cpu:.1f} CPU s", "-",
                    "-", "< 5 s at 100k", f"wall: read {m['read']:.1f} s, structurize {m['structurize']:.1f} s")]

    def spirv_words(self) -> list[Row]:
        need_tool("glslangValidator", "spirv-opt", "spirv-val")
        ours_path, theirs, opt = self.out("words.spv"), self.out("words-glslang.spv"), self.out("words-opt.spv")
        run_process([*self.ours, "compile", PRIVATE_CL, "-O2", "--emit", "spirv", "--validate", "-o", ours_path])
        run_process(["glslangValidator", "-V", PRIVATE_GLSL, "-o", theirs])
        run_process(["spirv-opt", "-O", theirs, "-o", opt])
        ours_w, glslang_w, opt_w = (os.path.getsize(p) // 4 for p in (ours_path, theirs, opt))
        return [Row("SPIR-V words, a private array written through unaligned stores", f"{ours_w:,}",
                    f"glslang {glslang_w:,}, + spirv-opt {opt_w:,}", f"{ours_w / opt_w:.2f}x of glslang + spirv-opt",
                    "<= glslang + spirv-opt", f"{ours_w / glslang_w:.2f}x of glslang alone")]

    def auto_vs_structured(self) -> list[Row]:
        q = self.gen_quality()
        ratios = [(k.executed["auto"] / k.executed["structured"], k.kernel) for k in q.kernels if k.executed]
        if not ratios:
            raise Unavailable("no control-flow kernel has a RUN line")
        worst, kernel = max(ratios)
        return [Row("executed Gen instructions, --cf auto vs --cf structured", f"worst {kernel}",
                    "--cf structured", f"{worst:.3f}x", "never > 1.0x",
                    f"{len(ratios)} control-flow kernels; the corpus: bench_gen_quality --corpus")]


def growth_exponent(points: list[tuple[int, float]]) -> float:
    """The least-squares slope of log(seconds) over log(size)."""
    xs = [math.log(n) for n, _ in points]
    ys = [math.log(max(s, 1e-6)) for _, s in points]
    mx, my = statistics.fmean(xs), statistics.fmean(ys)
    return sum((x - mx) * (y - my) for x, y in zip(xs, ys)) / sum((x - mx) ** 2 for x in xs)


def write_many_kernels(source: str, path: str, count: int) -> None:
    """`count` kernels: the source's kernels, each copy renamed (name_N), repeated; helpers kept once."""
    with open(source) as f:
        text = f.read()
    names = re.findall(r"\bkernel\s+void\s+(\w+)", text)
    if not names:
        raise Unavailable(f"no kernel in {source}")
    copies = []
    for k in range(-(-count // len(names))):
        copy = text if k == 0 else _only_kernels(text)
        for name in names:
            copy = re.sub(rf"\b{name}\b", f"{name}_{k}", copy)
        copies.append(copy)
    with open(path, "w") as f:
        f.write("\n".join(copies))


def _only_kernels(text: str) -> str:
    """The kernels of an OpenCL C file without what precedes the first (its helpers and macros)."""
    first = re.search(r"(//[^\n]*\n)*\s*kernel\s+void", text)
    return text[first.start():] if first else text


ROWS: list[tuple[str, Callable[[Bench], list[Row]]]] = [
    ("quality", Bench.static_vs_igc),
    ("gen", Bench.gen_compile),
    ("spirv", Bench.spirv_compile),
    ("one", Bench.one_kernel_spirv),
    ("help", Bench.help_startup),
    ("sim", Bench.simulator),
    ("many", Bench.many_kernels),
    ("regions", Bench.regions_exponent),
    ("frontend", Bench.front_end),
    ("words", Bench.spirv_words),
    ("executed", Bench.auto_vs_structured),
]


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(prog="python -m reconverge.tools.bench_all", description=__doc__.splitlines()[0])
    ap.add_argument("--quick", action="store_true", help="3 pairs per timing, smaller sizes (make bench QUICK=1)")
    ap.add_argument("--runs", type=int, help="pairs per timing (default 7, --quick 3)")
    ap.add_argument("--only", help="comma-separated row keys: " + ",".join(k for k, _ in ROWS))
    args = ap.parse_args(argv)
    runs = args.runs or (3 if args.quick else 7)
    only = set(args.only.split(",")) if args.only else None
    if only and only - {k for k, _ in ROWS}:
        ap.error(f"--only: unknown rows {', '.join(sorted(only - {k for k, _ in ROWS}))}")
    started = time.perf_counter()
    lines = ["| figure | ours | anchor | ratio | target | notes |", "|---|---|---|---|---|---|"]
    print(f"issue 26 benchmarks ({'quick, ' if args.quick else ''}{runs} interleaved pairs per timing; "
          f"ratios of median CPU seconds)", file=sys.stderr)
    with tempfile.TemporaryDirectory(prefix="reconverge-bench-") as work:
        bench = Bench(args.quick, runs, work)
        for key, measure in ROWS:
            if only and key not in only:
                continue
            t0 = time.perf_counter()
            try:
                rows = measure(bench)
            except Unavailable as why:
                rows = [Row(key, f"n/a ({why})", "", "", "")]
            except Exception as exc:        # one broken figure must not lose the others
                rows = [Row(key, f"error: {type(exc).__name__}: {str(exc)[:160]}", "", "", "")]
            print(f"  {key}: {time.perf_counter() - t0:.0f} s", file=sys.stderr)
            for r in rows:
                lines.append(f"| {r.figure} | {r.ours} | {r.anchor} | {r.ratio} | {r.target} | {r.notes} |")
    print("\n".join(lines))
    print(f"\n({time.perf_counter() - started:.0f} s in all)")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
