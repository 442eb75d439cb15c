"""Worker processes for a campaign that survive what they run: a target that crashes the process (the
JIT on a bad module, a driver) or never finishes (an endless loop in our code or the simulator) costs
one configuration, reported as `crash` or `timeout`, not the campaign.

Each worker is a forked child that runs whole programs (runner.ProgramRun: every pipeline compiled once
in it) and reports each configuration as it starts and as it ends. The parent gives every configuration
`timeout` seconds; past that, or when the child dies, it kills the child, records the outcome, and a
fresh child goes on with the program's remaining configurations (rerunning the reference first).
"""
from __future__ import annotations

import os
import pickle
import select
import signal
import struct
import tempfile
import time
from dataclasses import dataclass, field

from reconverge.lowering.child_process import die_with_parent, load_prctl
from reconverge.tools.fuzz.generator import FuzzProgram
from reconverge.tools.fuzz.runner import REFERENCE, Config, Outcome, ProgramRun


@dataclass
class Job:
    index: int
    program: FuzzProgram
    configs: list[Config]
    outcomes: dict[str, Outcome] = field(default_factory=dict)

    def remaining(self) -> list[Config]:
        return [c for c in self.configs if c.name not in self.outcomes]


def _send(fd: int, message) -> None:
    _write_frame(fd, pickle.dumps(message))


def _write_frame(fd: int, data: bytes) -> None:
    """One message on a pipe: its length, then its pickle (all of it, however many writes it takes)."""
    view = struct.pack("<I", len(data)) + data
    while view:
        n = os.write(fd, view)
        view = view[n:]


def _child(jobs_fd: int, results_fd: int, workdir: str, parent: int) -> None:
    """The worker: read (program, configs) jobs, run them, report every configuration."""
    die_with_parent(parent)                             # no worker outlives an interrupted campaign
    import faulthandler
    faulthandler.disable()                              # the parent reports a crash, in one line
    signal.signal(signal.SIGINT, signal.SIG_IGN)        # the parent decides when the campaign stops
    reader = os.fdopen(jobs_fd, "rb")
    while True:
        header = reader.read(4)
        if len(header) < 4:
            os._exit(0)
        program, configs = pickle.loads(reader.read(struct.unpack("<I", header)[0]))
        run = ProgramRun(program, workdir)
        if REFERENCE not in configs:
            configs = [REFERENCE, *configs]
            quiet = {REFERENCE.name}
        else:
            quiet = set()
        for config in configs:
            _send(results_fd, ("start", config.name))
            outcome = run.run(config)
            if config.name not in quiet:
                _send(results_fd, ("outcome", outcome))
            if config == REFERENCE and outcome.status not in ("ok", "skipped"):
                break                       # nothing to compare with: the rest is not run (skipped: a
                                            # sub-group program llvm declines; ir -O0 is its reference)
        _send(results_fd, ("done", None))
        try:
            os.unlink(run.path)
        except OSError:
            pass


class Worker:
    def __init__(self, workdir: str):
        jobs_r, jobs_w = os.pipe()
        results_r, results_w = os.pipe()
        parent = os.getpid()
        load_prctl()                                    # here: the child looks nothing up
        pid = os.fork()
        if pid == 0:
            try:
                os.close(jobs_w)
                os.close(results_r)
                _child(jobs_r, results_w, workdir, parent)
            finally:
                os._exit(1)
        os.close(jobs_r)
        os.close(results_w)
        self.pid, self.jobs_fd, self.results_fd = pid, jobs_w, results_r
        self.buffer = b""
        self.job: Job | None = None
        self.current: str | None = None
        self.since = time.monotonic()

    def give(self, job: Job) -> None:
        self.job, self.current, self.since = job, None, time.monotonic()
        _write_frame(self.jobs_fd, pickle.dumps((job.program, job.remaining())))

    def messages(self) -> list | None:
        """The complete messages read now; None when the child has gone (end of file)."""
        chunk = os.read(self.results_fd, 1 << 16)
        if not chunk:
            return None
        self.buffer += chunk
        out = []
        while len(self.buffer) >= 4:
            size = struct.unpack("<I", self.buffer[:4])[0]
            if len(self.buffer) < 4 + size:
                break
            out.append(pickle.loads(self.buffer[4:4 + size]))
            self.buffer = self.buffer[4 + size:]
        return out

    def kill(self) -> None:
        try:
            os.kill(self.pid, signal.SIGKILL)
        except ProcessLookupError:
            pass
        os.waitpid(self.pid, 0)
        for fd in (self.jobs_fd, self.results_fd):
            try:
                os.close(fd)
            except OSError:
                pass


def run_jobs(jobs, workers: int, timeout: float, on_outcome, on_done, should_stop):
    """Run every job of the iterator `jobs` on `workers` processes. on_outcome(job, outcome) for each
    configuration as it ends, on_done(job) when a program is finished; should_stop() is asked before a
    new program is started (a time budget)."""
    workdir = tempfile.mkdtemp(prefix="reconverge-fuzz-")
    pool = [Worker(workdir) for _ in range(max(1, workers))]
    pending = iter(jobs)
    exhausted = False

    def feed(worker: Worker) -> None:
        nonlocal exhausted
        if exhausted or should_stop():
            exhausted = True
            worker.job = None
            return
        job = next(pending, None)
        if job is None:
            exhausted = True
            worker.job = None
            return
        worker.give(job)

    def fail(worker: Worker, status: str, message: str) -> Worker:
        """The worker's current configuration ended badly: record it, replace the worker, resume the job."""
        job = worker.job
        worker.kill()
        fresh = Worker(workdir)
        if job is not None:
            name = worker.current or REFERENCE.name
            outcome = Outcome(name, status, message, time.monotonic() - worker.since)
            job.outcomes[name] = outcome
            on_outcome(job, outcome)
            if name == REFERENCE.name:
                for config in job.remaining():
                    job.outcomes[config.name] = Outcome(config.name, "skipped", "the reference failed")
            if job.remaining():
                fresh.give(job)
            else:
                on_done(job)
                feed(fresh)
        else:
            feed(fresh)
        return fresh

    try:
        for worker in pool:
            feed(worker)
        while any(w.job is not None for w in pool):
            busy = [w for w in pool if w.job is not None]
            now = time.monotonic()
            wait = max(0.05, min(w.since + timeout - now for w in busy))
            ready, _, _ = select.select([w.results_fd for w in busy], [], [], wait)
            for i, worker in enumerate(pool):
                if worker.job is None:
                    continue
                if worker.results_fd in ready:
                    messages = worker.messages()
                    if messages is None:
                        pool[i] = fail(worker, "crash", "the process died (a signal in native code?)")
                        continue
                    for kind, value in messages:
                        if kind == "start":
                            worker.current, worker.since = value, time.monotonic()
                        elif kind == "outcome":
                            worker.job.outcomes[value.config] = value
                            on_outcome(worker.job, value)
                        else:
                            job = worker.job
                            for config in job.remaining():
                                job.outcomes[config.name] = Outcome(config.name, "skipped", "the reference failed")
                            on_done(job)
                            feed(worker)
                            break
                elif time.monotonic() - worker.since > timeout:
                    pool[i] = fail(worker, "timeout", f"no result within {timeout:g} s")
    finally:
        for worker in pool:
            worker.kill()
        import shutil
        shutil.rmtree(workdir, ignore_errors=True)
