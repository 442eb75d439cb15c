"""On demand: the quality of our Gen9 code beside Intel's compiler, per kernel. Not a test: the numbers go
into the README ("Gen code quality") and `make bench`'s table.

For each kernel of the files given (default: examples/bench/control_flow.cl, twelve control-flow
kernels whose loops run data-dependent trip counts) at -O2:
- our static instruction count in SIMD8 and SIMD16, under `--cf auto` and `--cf structured`;
- IGC's at the same width (`ocloc compile -device skl`, the width forced with IGC_ForceOCLSIMDWidth,
  counted from `ocloc disasm`'s listing: ocloc loads iga through the unversioned libiga64.so, which a
  temporary directory on LD_LIBRARY_PATH provides), "unrolled" where IGC has fewer backward branches
  than the source has loops, or more buffer reads than we have (a loop unrolled with a remainder loop
  keeps its backward branch but copies its loads): then the counts measure different programs and the
  ratio is left out;
- the ratio ours (`--cf auto`) / IGC;
- the instructions the simulator executes over the kernel's RUN launch (its fixed inputs) in SIMD16,
  `--cf auto` against `--cf structured`: auto must never execute more.

    python -m reconverge.tools.bench_gen_quality [FILE.cl ...] [--corpus] [--no-igc]

`--corpus` adds the auto-vs-structured check over every tests/kernels/*.cl kernel. `make bench` calls
gen_quality() and reads the GenQuality it returns.
"""
from __future__ import annotations

import argparse
import glob
import os
import re
import shutil
import statistics
import subprocess
import tempfile
from dataclasses import dataclass, field

ROOT = os.path.dirname(os.path.dirname(os.path.realpath(__file__)))
CONTROL_FLOW = os.path.join(ROOT, "examples", "bench", "control_flow.cl")
IGA_LIB = "/usr/lib/x86_64-linux-gnu/libiga64.so.1"
SIMD_WIDTHS = (8, 16)


@dataclass
class KernelQuality:
    """One kernel's figures. static[(simd, cf)] = our instruction count; igc[simd] = IGC's (None when
    ocloc is missing), igc_unrolled[simd] when IGC unrolled a loop we keep; executed[cf] in SIMD16."""
    file: str
    kernel: str
    static: dict[tuple[int, str], int] = field(default_factory=dict)
    loops: int = 0                                 # loops of the source (the tree's)
    reads: dict[int, int] = field(default_factory=dict)     # our static buffer reads at each width
    igc: dict[int, int | None] = field(default_factory=dict)
    igc_unrolled: dict[int, bool] = field(default_factory=dict)
    executed: dict[str, int] = field(default_factory=dict)
    auto_mode: str = ""

    def ratio(self, simd: int) -> float | None:
        """ours (--cf auto) / IGC at `simd`; None where IGC is missing or unrolled."""
        igc = self.igc.get(simd)
        if not igc or self.igc_unrolled.get(simd):
            return None
        return self.static[(simd, "auto")] / igc


@dataclass
class GenQuality:
    kernels: list[KernelQuality]

    def median_ratio(self, simd: int) -> float | None:
        ratios = [r for k in self.kernels if (r := k.ratio(simd)) is not None]
        return statistics.median(ratios) if ratios else None

    def ratio_range(self, simd: int) -> tuple[float, float] | None:
        ratios = [r for k in self.kernels if (r := k.ratio(simd)) is not None]
        return (min(ratios), max(ratios)) if ratios else None

    def auto_worse(self) -> list[KernelQuality]:
        """Kernels where --cf auto executes more instructions than --cf structured."""
        return [k for k in self.kernels if k.executed and k.executed["auto"] > k.executed["structured"]]

    def executed_ratio(self) -> float | None:
        """The largest executed auto / structured over the kernels (<= 1.0: auto is never worse)."""
        ratios = [k.executed["auto"] / k.executed["structured"] for k in self.kernels if k.executed.get("structured")]
        return max(ratios) if ratios else None


def ocloc_available() -> bool:
    return shutil.which("ocloc") is not None and os.path.exists(IGA_LIB)


def igc_static(path: str, simd: int) -> dict[str, tuple[int, int, int]]:
    """kernel -> (instructions, backward branches, buffer reads) of IGC's code for `path` at `simd`."""
    with tempfile.TemporaryDirectory() as tmp:
        os.symlink(IGA_LIB, os.path.join(tmp, "libiga64.so"))
        env = dict(os.environ, IGC_ForceOCLSIMDWidth=str(simd),
                   LD_LIBRARY_PATH=tmp + ":" + os.environ.get("LD_LIBRARY_PATH", ""))
        out = os.path.join(tmp, "out")
        subprocess.run(["ocloc", "compile", "-file", path, "-device", "skl", "-options", "-cl-std=CL2.0", "-q",
                        "-output_no_suffix", "-output", "k", "-out_dir", out], capture_output=True, env=env, check=True)
        dump = os.path.join(tmp, "dump")
        subprocess.run(["ocloc", "disasm", "-file", os.path.join(out, "k"), "-device", "skl", "-dump", dump],
                       capture_output=True, env=env, check=True)
        return {os.path.basename(asm)[:-len("_KernelHeap.asm")]: _count_listing(asm)
                for asm in glob.glob(os.path.join(dump, "*_KernelHeap.asm"))}


def _count_listing(asm: str) -> tuple[int, int, int]:
    """(instructions, backward branches, buffer reads) of an iga listing: labels are byte offsets
    (L<offset>:), a compacted instruction is 8 bytes, another 16; a backward branch is a while, or a
    jmpi/goto/brc to a label at or before itself; a buffer read a data-port send that returns data from
    a binding table index below 0xF0 (not SLM, stateless or scratch)."""
    count = backward = offset = reads = 0
    with open(asm, encoding="utf-8") as f:
        for line in (ln.strip() for ln in f):
            if not line or line.startswith("//"):
                continue
            if line.endswith(":"):
                offset = int(line[1:-1])
                continue
            count += 1
            code = line.split("//")[0]
            targets = re.findall(r"\bL(\d+)\b", code)
            if re.search(r"\bwhile\b", code) or (re.search(r"\b(goto|jmpi|brc|brd)\b", code) and targets
                                                  and min(map(int, targets)) <= offset):
                backward += 1
            send = re.search(r"\bsends?\b.* (0x[0-9A-Fa-f]+) +(0x[0-9A-Fa-f]+)", code)
            if send and int(send.group(1), 16) & 0xF in (0xA, 0xC):
                reads += _is_buffer_read(int(send.group(2), 16))
            offset += 8 if "Compacted" in line else 16
    return count, backward, reads


def _is_buffer_read(desc: int) -> bool:
    """A data-port descriptor that returns data (rlen > 0) from a surface (BTI < 0xF0), not scratch."""
    return (desc >> 20) & 0x1F > 0 and desc & 0xFF < 0xF0 and not desc >> 18 & 1


def _ours(program, kernel: str, simd: int, cf: str) -> tuple[int, int, str]:
    """(instructions, buffer reads, mode) of our code for `kernel` at `simd` in mode `cf`."""
    from reconverge.backend.gen import GenOptions, compile
    compiled = compile(program, kernel, GenOptions(simd, cf))
    insts = compiled.program
    reads = sum(i.opcode in ("send", "sends") and i.sfid in (0xA, 0xC) and _is_buffer_read(i.desc or 0)
                for i in insts)
    return len(insts), reads, compiled.mode


def source_loops(program, kernel: str) -> int:
    """The loops of the kernel's tree (the structurizer's Loop nodes)."""
    from reconverge.lowering.ir.core import If, Loop
    count, stack = 0, [program.function(kernel, "gen").body]
    while stack:
        for node in stack.pop():
            if isinstance(node, Loop):
                count += 1
                stack.append(node.body)
            elif isinstance(node, If):
                stack += [node.then_list, node.else_list]
    return count


def executed(program, spec, cf: str, simd: int = 16) -> int:
    """Instructions the simulator executes over the spec's launch (all hardware threads) in mode `cf`."""
    from reconverge.tools.targets.harness import GenRunOptions, run_target
    stats: dict = {}
    run_target("gen", program, spec.kernel, spec.make_args(1), spec.global_size, spec.local_size,
               GenRunOptions(simd, cf, None, 0, stats), global_offset=spec.global_offset)
    return stats["instructions"]


def gen_quality(paths: tuple[str, ...] | list[str] = (CONTROL_FLOW,), simds: tuple[int, ...] = SIMD_WIDTHS,
                igc: bool = True, run: bool = True) -> GenQuality:
    """Every kernel of `paths` measured (see the module docstring); `igc`: beside ocloc where it is
    installed; `run`: with the executed counts."""
    from reconverge.tools.targets.harness import load_program
    from reconverge.tools.testing.kernel_spec import parse_specs
    rows: list[KernelQuality] = []
    for path in paths:
        program = load_program(path, "-O2")
        theirs = {simd: igc_static(path, simd) for simd in simds} if igc and ocloc_available() else {}
        specs = {s.kernel: s for s in parse_specs(path)} if run else {}
        for kernel in program.kernel_names():
            row = KernelQuality(os.path.basename(path), kernel, loops=source_loops(program, kernel))
            for simd in simds:
                for cf in ("auto", "structured"):
                    n, reads, mode = _ours(program, kernel, simd, cf)
                    row.static[(simd, cf)] = n
                    if cf == "auto":
                        row.reads[simd], row.auto_mode = reads, mode
                if simd in theirs and kernel in theirs[simd]:
                    count, backward, igc_reads = theirs[simd][kernel]
                    row.igc[simd] = count
                    row.igc_unrolled[simd] = backward < row.loops or igc_reads > row.reads[simd]
            if kernel in specs:
                row.executed = {cf: executed(program, specs[kernel], cf) for cf in ("auto", "structured")}
            rows.append(row)
    return GenQuality(rows)


def corpus_paths() -> list[str]:
    return sorted(glob.glob(os.path.join(ROOT, "tests", "kernels", "*.cl")))


def table(q: GenQuality, simds: tuple[int, ...] = SIMD_WIDTHS) -> str:
    """The per-kernel markdown table."""
    head = ["kernel", "auto picks"]
    for simd in simds:
        head += [f"SIMD{simd} auto / structured", f"IGC SIMD{simd}", f"ratio SIMD{simd}"]
    head += ["executed auto / structured (SIMD16)"]
    lines = ["| " + " | ".join(head) + " |", "|" + "---|" * len(head)]
    for k in q.kernels:
        cells = [k.kernel, k.auto_mode]
        for simd in simds:
            igc = k.igc.get(simd)
            r = k.ratio(simd)
            cells += [f"{k.static[(simd, 'auto')]} / {k.static[(simd, 'structured')]}",
                      "-" if igc is None else f"{igc}{' (unrolled)' if k.igc_unrolled.get(simd) else ''}",
                      "-" if r is None else f"{r:.2f}"]
        ex = k.executed
        cells.append(f"{ex['auto']} / {ex['structured']}" if ex else "-")
        lines.append("| " + " | ".join(cells) + " |")
    return "\n".join(lines)


def summary(q: GenQuality, simds: tuple[int, ...] = SIMD_WIDTHS) -> str:
    parts = []
    for simd in simds:
        med, span = q.median_ratio(simd), q.ratio_range(simd)
        if med is not None and span is not None:
            parts.append(f"SIMD{simd}: median ours/IGC {med:.2f} ({span[0]:.2f}-{span[1]:.2f})")
    worse = q.auto_worse()
    parts.append("auto executes more than structured on " +
                 (", ".join(f"{k.kernel} (+{100 * (k.executed['auto'] / k.executed['structured'] - 1):.1f}%)"
                            for k in worse) or "no kernel"))
    return "; ".join(parts)


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(prog="python -m reconverge.tools.bench_gen_quality")
    ap.add_argument("files", nargs="*", help=f"OpenCL C files (default {os.path.relpath(CONTROL_FLOW, ROOT)})")
    ap.add_argument("--corpus", action="store_true", help="also: auto against structured, executed, on tests/kernels")
    ap.add_argument("--no-igc", action="store_true", help="leave ocloc out")
    args = ap.parse_args(argv)
    q = gen_quality(args.files or [CONTROL_FLOW], igc=not args.no_igc)
    print(table(q))
    print("\n" + summary(q))
    if args.corpus:
        c = gen_quality(corpus_paths(), simds=(16,), igc=False)
        print(f"\ncorpus ({len(c.kernels)} kernels): " + summary(c, ()) +
              f"; executed auto/structured at most {c.executed_ratio():.3f}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
