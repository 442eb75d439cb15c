"""One program through many configurations, in one process: each pipeline compiled once (the harness's
Program caches the structured kernels per pipeline), every target, level, SIMD width and control-flow
mode run from it, every result compared lane by lane with the reference, llvm -O0 (clang's module on
llvmlite's JIT). spirv-val checks every SPIR-V module (the spirv target always validates) and iga64
decodes every Gen binary, which must read as our disassembler's text.

A configuration's outcome is one of:
    ok         the same buffers as the reference (floats in `fapprox` within the ULP bounds)
    mismatch   different buffers
    invalid    spirv-val rejected the module, or iga64 disagrees with our encoding
    refused    a target declined the program with a one-line error (an IrreducibleCFG on the structured
               pipelines is `skipped` instead: the tree cannot hold such a CFG, by design; so is a RemovedLoop,
               an operation -g's scopes put in a loop -O2 removed: lowering/frontend/removed_loops.py)
    crash      an internal error (any other exception), or the process died (pool.py)
    timeout    the configuration ran past its time (pool.py)

A program with sub-group operations (generator mode subgroup, or all) answers differently at each sub-group
size, so every configuration is compared with the reference run at its own size (SUBGROUP_SIZES: gen's
SIMD width, lavapipe's subgroupSize, 16 for llvm and ir): llvm -O0 at that size, or ir -O0 at it where the
llvm reference declines a sub-group operation (in irreducible control flow: the lanes that run it together
are then the lock-step interpreter's to say). Without -g (modes subgroup and all) the CFG decides which
lanes run an operation together, and LLVM's -O2 may change that legally (a folded branch takes an operation
out of a loop), so an -O2 configuration is compared with llvm -O2 at its size instead (reference_level).
Such a refusal is `skipped`, not comparable, not a failure;
a Vulkan device without a sub-group feature the program needs (lavapipe has no clustered operations)
makes that configuration `unavailable`.

Mode `convergence` (generator.py): its OpenCL C programs are compiled with -g, so the scopes rule applies,
and the llvm reference declines one whose operation -g's scopes move into a loop (ir -O0 is the reference
then); its LLVM IR programs carry convergence tokens, which the llvm reference follows. LLVM's own -O2
(run without loop unrolling on such a module) can leave such tokens invalid or abort on them
(llvm_module.optimize_module): that configuration is `skipped`.
"""
from __future__ import annotations

import os
import subprocess
import time
from dataclasses import dataclass

from reconverge.lowering.errors import CompileError, IrreducibleCFG, RemovedLoop
from reconverge.tools.fuzz import TARGETS
from reconverge.tools.fuzz.generator import FuzzProgram
from reconverge.tools.testing.float_policy import FLOAT_ULPS_APPROXIMATE

GEN_WIDTHS = (8, 16)
GEN_CF = ("structured", "blockip", "hybrid", "auto")
GEN_COMBOS = tuple((simd, cf) for simd in GEN_WIDTHS for cf in GEN_CF)     # the eight width x mode pairs
LEVELS = ("-O0", "-O2")


@dataclass(frozen=True)
class Config:
    """One way of running a program: target, clang level, and for gen the SIMD width and --cf mode."""
    target: str
    level: str
    simd: int = 0
    cf: str = ""

    @property
    def name(self) -> str:
        if self.target == "gen":
            return f"gen{self.level}-simd{self.simd}-{self.cf}"     # gen-O2-simd16-blockip
        if self.target == "opencl":
            return "opencl"
        return f"{self.target}{self.level}"

    @staticmethod
    def parse(name: str) -> "Config":
        """The inverse of `name` (gen-O2-simd16-blockip, spirv-O0, opencl)."""
        if name == "opencl":
            return Config("opencl", "-O0")
        parts = name.split("-")
        if len(parts) == 4 and parts[0] == "gen" and parts[2] in ("simd8", "simd16") and parts[3] in GEN_CF:
            return Config("gen", "-" + parts[1], int(parts[2][len("simd"):]), parts[3])
        if len(parts) == 2 and parts[0] in TARGETS and parts[0] != "gen" and "-" + parts[1] in LEVELS:
            return Config(parts[0], "-" + parts[1])
        raise ValueError(f"unknown configuration '{name}' (e.g. llvm-O2, spirv-O0, gen-O2-simd16-blockip, opencl)")


REFERENCE = Config("llvm", "-O0")
FALLBACK = Config("ir", "-O0")          # the reference where llvm's sub-group model declines
DEFAULT_SUBGROUP_SIZE = 16              # llvm and ir, as gen's default width
LAVAPIPE_SUBGROUP_SIZE = 8              # lavapipe's subgroupSize on x86 (its SIMD width, AVX2)
NOT_COMPARABLE = ("cannot tell which lanes run",   # the llvm reference's sub-group refusals (jit_oracle),
                  "cannot run it as -g's scopes say")   # and harness's where -g's scopes move an operation
DEVICE_LACKS = "lacks the sub-group feature"        # the spirv target's refusal on a device without one
# llvm_module.optimize_module's refusals where LLVM's own -O2 fails on a token module: it left the tokens
# invalid by its verifier, or aborted (deleteDeadLoop's assertion): nothing of ours to run
LLVM_FAILED_ON_TOKENS = ("pipeline left the convergence-control tokens invalid",
                         "pipeline crashed on this module's convergence tokens")


def subgroup_size(config: Config) -> int:
    """The sub-group size a configuration runs a sub-group program at."""
    if config.target == "gen":
        return config.simd
    if config.target == "spirv":
        return LAVAPIPE_SUBGROUP_SIZE
    return DEFAULT_SUBGROUP_SIZE


def gen_combos_for(index: int, per_level: int, level: str) -> list[tuple[int, str]]:
    """The gen width x mode pairs program number `index` runs at `level`: consecutive programs walk the
    eight pairs round-robin (the -O0 walk starts half-way round), so every pair is covered equally."""
    if per_level >= len(GEN_COMBOS):
        return list(GEN_COMBOS)
    start = (index * per_level + (len(GEN_COMBOS) // 2 if level == "-O0" else 0)) % len(GEN_COMBOS)
    return [GEN_COMBOS[(start + k) % len(GEN_COMBOS)] for k in range(per_level)]


def configs_for(program: FuzzProgram, index: int, targets: tuple[str, ...], gen_per_level: int) -> list[Config]:
    """The configurations of one program, the reference first."""
    configs = [REFERENCE]
    for level in LEVELS:
        for target in ("llvm", "ir", "spirv"):
            if target in targets and Config(target, level) != REFERENCE:
                configs.append(Config(target, level))
        if "gen" in targets:
            configs += [Config("gen", level, simd, cf) for simd, cf in gen_combos_for(index, gen_per_level, level)]
    if "opencl" in targets and program.language == "cl":
        configs.append(Config("opencl", "-O0"))
    return configs


@dataclass
class Outcome:
    config: str
    status: str                 # ok, mismatch, invalid, refused, skipped, crash, timeout, unavailable
    message: str = ""
    seconds: float = 0.0


def _one_line(text: object, limit: int = 400) -> str:
    text = " ".join(str(text).split())
    return text if len(text) <= limit else text[:limit] + " ..."


class ProgramRun:
    """The state of one program in one process: its loaded modules and the reference's buffers."""

    def __init__(self, program: FuzzProgram, workdir: str):
        self.program = program
        os.makedirs(workdir, exist_ok=True)
        self.path = os.path.join(workdir, f"{program.name}.{program.language}")
        with open(self.path, "w", encoding="utf-8") as f:
            f.write(program.source)
        self.loaded: dict[str, object] = {}
        self.reference: list | None = None
        self.references: dict[tuple[int, str], list] = {}   # sub-group programs: per (sub-group size, level)

    def load(self, level: str):
        from reconverge.tools.targets.harness import load_program
        if level not in self.loaded:
            self.loaded[level] = load_program(self.path, level, build_options=self.program.build_options)
        return self.loaded[level]

    def execute(self, config: Config, size: int | None = None) -> list:
        """The buffers after running `config` (CompileError and the rest propagate); llvm and ir at
        sub-group size `size` when given."""
        from reconverge.tools.targets import harness
        p = self.program
        program = self.load(config.level)
        if config.target == "gen":
            return run_gen_checked(program, p.kernel, p.make_args(), p.global_size, p.local_size, config.simd,
                                   config.cf)
        options: object = None
        if size is not None and config.target == "llvm":
            options = harness.OracleOptions(size)
        elif size is not None and config.target == "ir":
            program.function(p.kernel)          # the structured form first: an irreducible CFG is refused here
            options = harness.InterpreterOptions(subgroup_size=size)
        return harness.run_target(config.target, program, p.kernel, p.make_args(), (p.global_size,),
                                  (p.local_size,), options)

    def reference_for(self, size: int, level: str = "-O0") -> list:
        """A sub-group program's reference buffers at `size`: llvm's at `level` (see reference_level), or
        ir's at that level where llvm declines."""
        key = (size, level)
        if key not in self.references:
            try:
                self.references[key] = self.execute(Config("llvm", level), size)
            except CompileError as exc:
                if not any(phrase in str(exc) for phrase in NOT_COMPARABLE):
                    raise
                self.references[key] = self.execute(Config(FALLBACK.target, level), size)
        return self.references[key]

    def reference_level(self, config: Config) -> str:
        """The clang level whose llvm run is `config`'s reference: -O0, except for a sub-group program under
        the CFG's convergence rule (OpenCL C without -g: no scopes, no tokens), where which lanes run an
        operation together follows the CFG being compiled, and LLVM's -O2 may fold a branch that put an
        operation in a loop (`if (as_int(1u) >= -48) { r = sub_group_reduce_and(x); return; }`, fuzz
        subgroup-70655): an optimised configuration is then compared with llvm at its own level."""
        p = self.program
        if p.uses_subgroups and p.language == "cl" and "-g" not in p.build_options:
            return config.level
        return "-O0"

    def run(self, config: Config) -> Outcome:
        start = time.perf_counter()
        outcome = self._run(config)
        outcome.seconds = time.perf_counter() - start
        return outcome

    def _run(self, config: Config) -> Outcome:
        from reconverge.tools.targets.harness import compare
        if config.target == "opencl" and not opencl_available():
            return Outcome(config.name, "unavailable", "no OpenCL platform (pyopencl with PoCL)")
        subgroups = self.program.uses_subgroups
        if subgroups and config.target == "opencl" and not opencl_subgroups_available():
            return Outcome(config.name, "unavailable", "the OpenCL driver does not report cl_khr_subgroups")
        size = subgroup_size(config) if subgroups else None
        try:
            got = self.execute(config, size)
        except (IrreducibleCFG, RemovedLoop) as exc:
            return Outcome(config.name, "skipped", _one_line(exc))
        except CompileError as exc:
            text = str(exc).replace(self.path, os.path.basename(self.path))     # not the worker's temporary folder
            if subgroups and config.target == "llvm" and any(phrase in text for phrase in NOT_COMPARABLE):
                return Outcome(config.name, "skipped", "not comparable: " + _one_line(text))
            if subgroups and config.target == "spirv" and DEVICE_LACKS in text:
                return Outcome(config.name, "unavailable", _one_line(text))   # lavapipe: no clustered ops
            if any(s in text for s in LLVM_FAILED_ON_TOKENS):     # LLVM's own -O2 failed: nothing to run
                return Outcome(config.name, "skipped", _one_line(text))
            status = "invalid" if ("spirv-val" in text or "iga64" in text) else "refused"
            return Outcome(config.name, status, _one_line(text))
        except Exception as exc:        # noqa: BLE001 - a bug in reconverge, reported as the outcome
            text = f"{type(exc).__name__}: {exc}".replace(self.path, os.path.basename(self.path))
            return Outcome(config.name, "crash", _one_line(text))
        if config == REFERENCE:
            self.reference = got
            if size is not None:
                self.references[size, REFERENCE.level] = got
            return Outcome(config.name, "ok")
        reference, label = self.reference, REFERENCE.name
        if size is not None:
            try:
                level = self.reference_level(config)
                reference, label = self.reference_for(size, level), f"reference at sub-group size {size}" + \
                    ("" if level == "-O0" else f" ({REFERENCE.target}{level})")
            except IrreducibleCFG:      # llvm declines (irreducible control flow) and ir cannot hold the CFG
                return Outcome(config.name, "skipped", f"no reference at sub-group size {size}: a sub-group "
                                                       f"operation in irreducible control flow")
            except CompileError as exc:     # ir -O0 refused it too: that refusal is its own failure
                return Outcome(config.name, "skipped", _one_line(f"no reference at sub-group size {size}: the "
                                                                f"reference refused it: {exc}"))
            except Exception as exc:    # noqa: BLE001 - neither llvm nor ir gives a reference at this size
                return Outcome(config.name, "crash", _one_line(f"no reference at sub-group size {size}: "
                                                               f"{type(exc).__name__}: {exc}"))
        if reference is None:
            return Outcome(config.name, "crash", "no reference result")
        ulps = FLOAT_ULPS_APPROXIMATE if self.program.uses_approx else 0
        problems = compare(reference, got, self.program.arg_names, ulps, labels=(label, config.name))
        if problems:
            return Outcome(config.name, "mismatch", _one_line("; ".join(problems)))
        return Outcome(config.name, "ok")


def run_gen_checked(program, kernel: str, args: list, global_size: int, local_size: int, simd: int,
                    cf: str) -> list:
    """The gen target (as harness.run_target runs it), with the binary compiled once: iga64 must decode
    it, warning-free, to exactly our disassembler's text (CompileError "iga64: ..." when not), then the
    simulator runs it."""
    import tempfile

    from reconverge.backend.gen import CF_MODES, GenOptions, compile
    from reconverge.backend.gen.launch import run_gen_kernel
    from reconverge.isa.gen9.disassembler import disassemble
    from reconverge.isa.gen9.encoding import encode_program
    from reconverge.tools.targets.harness import ir_arguments
    compiled = compile(program, kernel, GenOptions(simd, cf))
    func = program.function(kernel, CF_MODES[compiled.mode].pipeline)
    code = encode_program(compiled.program)
    with tempfile.NamedTemporaryFile(suffix=".krn") as f:
        f.write(code)
        f.flush()
        iga = subprocess.run(["iga64", "-p=9", "-d", f.name], capture_output=True, text=True)
    if iga.returncode != 0 or "warning" in iga.stderr.lower():
        raise CompileError(f"iga64: {_one_line(iga.stderr or iga.stdout, 200)}")
    ours = [line.strip() for line in disassemble(code).splitlines() if line.strip()]
    theirs = [line.strip() for line in iga.stdout.splitlines() if line.strip() and not line.startswith("//")]
    if ours != theirs:
        at = next((i for i, (a, b) in enumerate(zip(ours, theirs)) if a != b), min(len(ours), len(theirs)))
        mine = ours[at] if at < len(ours) else "(end)"
        its = theirs[at] if at < len(theirs) else "(end)"
        raise CompileError(f"iga64 reads instruction {at} as '{its}', our disassembler as '{mine}'")
    copies = [a.copy() if hasattr(a, "copy") else a for a in args]
    # a hardware thread gets the interpreter's budget per work-item, not `run`'s 1,000,000, which goto-97843's
    # state machine passed (2.5 million a thread in SIMD16, right once let finish); a loop that never ends is
    # still stopped by --timeout
    from reconverge.lowering.interp import DEFAULT_MAX_STEPS
    run_gen_kernel(func, ir_arguments(func, copies), (global_size,), (local_size,), simd, compiled=compiled,
                   max_steps=DEFAULT_MAX_STEPS)
    return copies


_OPENCL: bool | None = None
_OPENCL_SUBGROUPS: bool | None = None


def opencl_subgroups_available() -> bool:
    """Does the first OpenCL device report cl_khr_subgroups (the opencl target's default device)?"""
    global _OPENCL_SUBGROUPS
    if _OPENCL_SUBGROUPS is None:
        try:
            import pyopencl
            device = pyopencl.get_platforms()[0].get_devices()[0]
            _OPENCL_SUBGROUPS = "cl_khr_subgroups" in device.extensions.split()
        except Exception:       # noqa: BLE001 - no platform or device
            _OPENCL_SUBGROUPS = False
    return _OPENCL_SUBGROUPS


def opencl_available() -> bool:
    """Is there an OpenCL platform (PoCL) for the opencl target? Asked once per process."""
    global _OPENCL
    if _OPENCL is None:
        try:
            import pyopencl
            _OPENCL = bool(pyopencl.get_platforms())
        except Exception:       # noqa: BLE001 - no ICD loader, no platform: the target is unavailable
            _OPENCL = False
    return _OPENCL
