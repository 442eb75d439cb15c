"""`reconverge fuzz`: generate programs, run each through every configuration, report and keep the failures.

    reconverge fuzz [-n N] [--seed S] [--mode MODE[,MODE]] [--targets T,T] [--gen-combos K] [-j J]
                    [--time-budget T] [--timeout SECONDS] [--save-dir DIR] [--shard K/N] [--reduce]

Program i of a campaign has seed S+i and, when several modes are given, mode MODES[(S+i) % count]; its
gen configurations come from its seed too (runner.gen_combos_for), so `--seed X -n 1 --mode M` repeats
program X exactly. --shard K/N keeps the programs whose position i has i % N == K-1: N machines with the
same -n and --seed run disjoint parts of one campaign. Exit 0 when every configuration agreed with the
reference, 1 on any mismatch, invalid module, refusal, crash or timeout, 2 for bad usage.
"""
from __future__ import annotations

import os
import sys
import time
from typing import TYPE_CHECKING

from reconverge.lowering.output import safe_file_name, write_files
from reconverge.tools.commands import command_help
from reconverge.tools.fuzz import FAILURES, MODES, TARGETS
from reconverge.tools.usage import UsageError

if TYPE_CHECKING:
    from reconverge.tools.fuzz.runner import Outcome

DEFAULT_TARGETS = ("llvm", "ir", "spirv", "gen")
DEFAULT_MODES = ("basic", "vector", "barrier", "atomic", "goto", "subgroup", "all", "cfg")
STATUSES = ("ok", "mismatch", "invalid", "refused", "crash", "timeout", "skipped", "unavailable")


def parse_shard(text: str) -> tuple[int, int]:
    try:
        k, n = (int(x) for x in text.split("/"))
    except ValueError:
        raise UsageError(f"--shard {text!r}: expected K/N with 1 <= K <= N") from None
    if not 1 <= k <= n:
        raise UsageError(f"--shard {text!r}: expected K/N with 1 <= K <= N")
    return k, n


def parse_duration(text: str) -> float:
    """Seconds from 90, 90s, 30m or 2h."""
    scale = {"s": 1, "m": 60, "h": 3600}.get(text[-1:].lower(), None)
    number = text[:-1] if scale else text
    try:
        value = float(number) * (scale or 1)
    except ValueError:
        raise UsageError(f"--time-budget {text!r}: expected seconds, or a number with s, m or h") from None
    if value <= 0:
        raise UsageError(f"--time-budget {text!r}: expected a positive duration")
    return value


def program_plan(n: int, seed: int, modes: tuple[str, ...], shard: tuple[int, int]) -> list[tuple[int, str]]:
    """(seed, mode) of the programs this shard runs, in order."""
    k, count = shard
    return [(seed + i, modes[(seed + i) % len(modes)]) for i in range(n) if i % count == k - 1]


class Campaign:
    """Counts, progress line and summary of one run."""

    def __init__(self, total: int, out=sys.stderr):
        self.total = total
        self.out = out
        self.start = time.monotonic()
        self.programs = 0
        self.configurations = 0
        self.by_config: dict[str, dict[str, int]] = {}
        self.seconds: dict[str, float] = {}                # configuration -> seconds spent on it
        self.by_mode: dict[str, dict[str, int]] = {}
        self.failures: list[tuple[str, Outcome]] = []
        self.last_print = 0.0
        self.tty = out.isatty()

    @property
    def failed(self) -> int:
        return len(self.failures)

    def outcome(self, job, outcome) -> None:
        self.configurations += 1
        family = outcome.config
        self.by_config.setdefault(family, dict.fromkeys(STATUSES, 0))[outcome.status] += 1
        self.seconds[family] = self.seconds.get(family, 0.0) + outcome.seconds
        if outcome.status in FAILURES:
            self.failures.append((job.program.name, outcome))

    def done(self, job) -> None:
        self.programs += 1
        row = self.by_mode.setdefault(job.program.mode, {"programs": 0, "failing": 0, "configurations": 0})
        row["programs"] += 1
        row["configurations"] += len(job.outcomes)
        if any(o.status in FAILURES for o in job.outcomes.values()):
            row["failing"] += 1
        self.progress()

    def rate(self) -> float:
        minutes = (time.monotonic() - self.start) / 60
        return self.programs / minutes if minutes > 0 else 0.0

    def progress(self, final: bool = False) -> None:
        now = time.monotonic()
        if not final and not self.tty and now - self.last_print < 10 and self.programs < self.total:
            return
        self.last_print = now
        mismatches = sum(1 for _, o in self.failures if o.status == "mismatch")
        line = (f"[{self.programs}/{self.total}] programs {self.programs}, configurations {self.configurations}, "
                f"mismatches {mismatches}, other failures {self.failed - mismatches}, "
                f"{self.rate():.1f} programs/min, {now - self.start:.0f} s")
        if self.tty:
            self.out.write("\r" + line + ("\n" if final else ""))
        else:
            self.out.write(line + "\n")
        self.out.flush()

    def summary(self) -> str:
        lines = []
        cols = [s for s in STATUSES if any(row[s] for row in self.by_config.values())] or ["ok"]
        width = max([len("configuration")] + [len(k) for k in self.by_config])
        lines.append(f"{'configuration':<{width}}  " + "  ".join(f"{c:>8}" for c in cols) + "  s/program")
        for name in sorted(self.by_config, key=_config_order):
            row = self.by_config[name]
            mean = self.seconds.get(name, 0.0) / max(1, sum(row.values()))
            lines.append(f"{name:<{width}}  " + "  ".join(f"{row[c]:>8}" for c in cols) + f"  {mean:9.2f}")
        pairs: dict[str, int] = {}
        for name, row in self.by_config.items():
            if name.startswith("gen-"):
                pair = name.split("-", 2)[2]                 # simd16-blockip, both levels together
                pairs[pair] = pairs.get(pair, 0) + sum(row.values())
        if pairs:
            lines.append("gen programs per width x mode: " + ", ".join(f"{k} {pairs[k]}" for k in sorted(pairs)))
        lines.append("")
        lines.append(f"{'mode':<8}  {'programs':>8}  {'failing':>8}  {'configurations':>14}")
        for mode in sorted(self.by_mode):
            row = self.by_mode[mode]
            lines.append(f"{mode:<8}  {row['programs']:>8}  {row['failing']:>8}  {row['configurations']:>14}")
        elapsed = time.monotonic() - self.start
        lines.append("")
        lines.append(f"{self.programs} programs, {self.configurations} configurations in {elapsed:.0f} s "
                     f"({self.rate():.1f} programs/min); {self.failed} failing configurations")
        return "\n".join(lines) + "\n"


def _config_order(name: str):
    return (["llvm", "ir", "spirv", "gen", "opencl"].index(name.split("-")[0]), name)


def save_failure(directory: str, job, failing: list, argv: list[str]) -> str:
    """DIR/NAME.cl (or .ll) and DIR/NAME.json: the program, its launch, what failed and how to rerun it."""
    import json

    from reconverge.tools.fuzz.reducer import record_of
    program = job.program
    name = safe_file_name(program.name)
    record = {
        **record_of(program),
        "failures": [{"config": o.config, "status": o.status, "message": o.message} for o in failing],
        "rerun": f"reconverge fuzz -n 1 --seed {program.seed} --mode {program.mode}"
                 + "".join(f" {a}" for a in argv),
    }
    files = {f"{name}.{program.language}": program.source.encode(),
             f"{name}.json": (json.dumps(record, indent=1) + "\n").encode()}
    write_files(directory, files, [])
    return os.path.join(directory, f"{name}.{program.language}")


def run_fuzz(args) -> int:
    from reconverge.tools.fuzz.generator import generate
    from reconverge.tools.fuzz.pool import Job, run_jobs
    from reconverge.tools.fuzz.runner import configs_for
    modes = tuple(m for m in (args.mode or ",".join(DEFAULT_MODES)).split(",") if m)
    unknown = [m for m in modes if m not in MODES]
    if unknown or not modes:
        raise UsageError(f"--mode: unknown mode '{unknown[0] if unknown else ''}' (modes: {', '.join(MODES)})")
    targets = tuple(t for t in (args.targets or ",".join(DEFAULT_TARGETS)).split(",") if t)
    unknown = [t for t in targets if t not in TARGETS]
    if unknown or not targets:
        raise UsageError(f"--targets: unknown target '{unknown[0] if unknown else ''}' "
                         f"(targets: {', '.join(TARGETS)})")
    if args.n < 1:
        raise UsageError("-n: expected at least one program")
    if args.jobs < 1:
        raise UsageError("-j: expected at least one worker")
    if not 1 <= args.gen_combos <= 8:
        raise UsageError("--gen-combos: expected 1 to 8 width x mode pairs per level")
    if args.timeout <= 0:
        raise UsageError("--timeout: expected a positive number of seconds")
    shard = parse_shard(args.shard) if args.shard else (1, 1)
    budget = parse_duration(args.time_budget) if args.time_budget else None
    plan = program_plan(args.n, args.seed, modes, shard)
    campaign = Campaign(len(plan))
    start = time.monotonic()
    rerun_flags = ([f"--targets {','.join(targets)}"] if args.targets else []) + \
        ([f"--gen-combos {args.gen_combos}"] if args.gen_combos != 1 else [])
    saved: dict[str, str] = {}

    def jobs():
        for seed, mode in plan:
            program = generate(seed, mode)
            yield Job(seed, program, configs_for(program, seed, targets, args.gen_combos))

    def on_done(job) -> None:
        campaign.done(job)
        failing = [o for o in job.outcomes.values() if o.status in FAILURES]
        if failing and args.save_dir:
            saved[job.program.name] = save_failure(args.save_dir, job, failing, rerun_flags)

    interrupted = False
    try:
        run_jobs(jobs(), args.jobs, args.timeout, campaign.outcome, on_done,
                 lambda: budget is not None and time.monotonic() - start > budget)
    except KeyboardInterrupt:           # Ctrl-C: the programs finished so far are still reported
        interrupted = True
    campaign.progress(final=True)
    if interrupted:
        sys.stdout.write("interrupted: the summary covers the programs finished before\n")
    sys.stdout.write(campaign.summary())
    for name, outcome in campaign.failures:
        where = f" [{saved[name]}]" if name in saved else ""
        sys.stdout.write(f"FAIL {name} {outcome.config}: {outcome.status}: {outcome.message}{where}\n")
    if campaign.failures and args.reduce and args.save_dir:
        from reconverge.tools.fuzz.reducer import reduce_saved
        for name in dict.fromkeys(n for n, _ in campaign.failures):
            if name in saved:
                reduce_saved(saved[name], sys.stdout)
    return 130 if interrupted else 1 if campaign.failures else 0


def add_commands(sub) -> None:
    f = sub.add_parser("fuzz", help=command_help("fuzz"),
                       description="Generate random OpenCL C kernels free of undefined behaviour (and random "
                                   "LLVM IR CFGs), run each on llvm -O0 (the reference), llvm -O2, ir, spirv "
                                   "and gen at -O0 and -O2, and compare every buffer lane by lane.")
    f.add_argument("-n", type=int, default=100, help="programs (default %(default)s)")
    f.add_argument("--seed", type=int, default=0, help="seed of the first program (default %(default)s)")
    f.add_argument("--mode", metavar="MODE[,MODE]",
                   help=f"program kinds, taken in turn: {', '.join(MODES)} (default: all but convergence, so "
                        f"that an old campaign's seeds keep their modes). convergence: sub-group operations in "
                        f"loops with several exits and on their break paths, OpenCL C compiled with -g (even "
                        f"seeds) or its LLVM IR with convergence tokens as its loops nest (odd seeds)")
    f.add_argument("--targets", metavar="T[,T]",
                   help=f"targets besides the reference: {', '.join(TARGETS)} (default: {','.join(DEFAULT_TARGETS)}; "
                        f"opencl is PoCL, slow)")
    f.add_argument("--gen-combos", type=int, default=1, metavar="K",
                   help="gen SIMD width x --cf mode pairs per program and level, chosen by seed so that all "
                        "eight are covered equally (default %(default)s; 8: all)")
    f.add_argument("-j", dest="jobs", type=int, default=1, help="worker processes (default %(default)s)")
    f.add_argument("--time-budget", metavar="T", help="start no new program after T (seconds, or 30m, 2h)")
    f.add_argument("--timeout", type=float, default=120.0, metavar="SECONDS",
                   help="per configuration; past it the configuration is a timeout (default %(default)s)")
    f.add_argument("--save-dir", metavar="DIR", help="write each failing program and its record here")
    f.add_argument("--shard", metavar="K/N", help="run only the K-th of N disjoint parts of the campaign")
    f.add_argument("--reduce", action="store_true",
                   help="shrink each saved failure with C-Vise (needs --save-dir; see tools/fuzz/reducer.py)")
    f.add_argument("--debug", action="store_true", help=argparse_suppress())
    f.set_defaults(func=run_fuzz)


def argparse_suppress():
    import argparse
    return argparse.SUPPRESS
