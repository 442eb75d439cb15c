"""Differential execution: one input, several ways of running a kernel, the buffers compared lane by lane.

The command line's `run`, the test suite and the fuzzers all ask the same question - do two targets
compute the same buffers? - so the loading, launching and comparing live here once:

    program = load_program("k.cl", "-O2")
    ref = run_target("llvm", program, "k", args, (64,), (16,))
    got = run_target("ir", program, "k", args, (64,), (16,))
    problems = compare(ref, got, [p.name for p in kernel_params(program.functions["k"])])

Targets (TARGETS, name -> launcher; a backend registers itself by adding one):
    llvm    the original LLVM module on the CPU (tools.targets.jit_oracle, llvmlite's MCJIT)
    ir      the structured IR on the interpreter (lowering.interp)
    spirv   the SPIR-V module on a Vulkan device (backend.spirv.launch, imported when first used)
    opencl  the original OpenCL C source on an installed OpenCL driver (tools.targets.opencl_target, pyopencl)

Arguments are given once per kernel parameter, in order: a numpy array for a buffer, a numpy scalar for a
scalar, a 1-D numpy array of the lanes for a by-value vector (split into one IR argument per lane, see
Arg.param). A list with one entry per IR argument is accepted too. Every run works on fresh copies.
"""
from __future__ import annotations

import sys
from dataclasses import dataclass
from typing import Callable

import numpy as np
import numpy.typing as npt

from reconverge.lowering.errors import CompileError, RemovedLoop
from reconverge.lowering.ir.core import Function
from reconverge.lowering.kernel_abi import Param, kernel_params, llvm_kernel_params
from reconverge.lowering.program import Program, load_program, program_from_llvm

# what the run targets' callers use: programs from the driver (lowering.program), their parameters
# (lowering.kernel_abi), and the launching and comparing below
__all__ = ["GenRunOptions", "InterpreterOptions", "LocalArg", "OracleOptions", "Param", "Program", "TARGETS", "compare",
           "ir_arguments", "kernel_params", "llvm_kernel_params", "load_program", "program_from_llvm", "run_target"]


@dataclass(frozen=True)
class LocalArg:
    """The argument of a `__local T *p` parameter: the host gives only a size, as clSetKernelArg(size, NULL)
    does; every work-group gets its own zero-initialised block of `count` elements of `dtype`."""
    count: int
    dtype: npt.DTypeLike        # np.int32 or np.dtype("int32")

    @property
    def nbytes(self) -> int:
        return self.count * np.dtype(self.dtype).itemsize


# ----- launch geometry -----

# ----- arguments -----

def _copy(value):
    return np.array(value, copy=True, order="C") if isinstance(value, np.ndarray) else value


def ir_arguments(func: Function, args: list) -> list:
    """Per-parameter arguments -> one per IR argument (a vector's array split into its lanes)."""
    params = kernel_params(func)
    if len(args) == len(func.args):
        return list(args)
    if len(args) != len(params):
        raise CompileError(f"kernel @{func.name} takes {len(params)} parameters, {len(args)} arguments given")
    out: list = []
    for param, value in zip(params, args):
        if param.is_vector:
            lanes = np.asarray(value).reshape(-1)
            if lanes.size != len(param.types):
                raise CompileError(f"kernel @{func.name}: parameter '{param.name}' has {len(param.types)} "
                                   f"lanes, {lanes.size} given")
            out.extend(lanes[i] for i in range(lanes.size))
        else:
            out.append(value)
    return out


# ----- targets -----

def has_barrier(func: Function) -> bool:
    """Does the kernel (calls are inlined by then) synchronise its work-group?"""
    return any(ins.opcode == "barrier" for ins in func.instructions())


@dataclass(frozen=True)
class OracleOptions:
    """The llvm target's settings: lanes per sub-group (tools/targets/oracle_subgroups.py)."""
    subgroup_size: int = 16


def _run_llvm(program: Program, kernel: str, args: list, global_size, local_size, options, global_offset):
    from reconverge.tools.targets.jit_oracle import OracleError, run_llvm_kernel
    if any(p.is_byval for p in program.params(kernel)):
        raise CompileError(f"{program.path}: kernel @{kernel}: the llvm target cannot pass a struct by value "
                           f"(use --target ir)")
    if any(p.is_vector for p in program.params(kernel)):
        raise CompileError(f"{program.path}: kernel @{kernel}: the llvm target cannot pass by-value "
                           f"vector parameters")
    if _scopes_move_an_operation(program, kernel):
        raise CompileError(f"{program.path}: kernel @{kernel}: the llvm target cannot run it as -g's scopes say: a "
                           f"sub-group operation or barrier was written in a loop its CFG places it after, and "
                           f"the reference's maximal convergence would run it after the loop (use --target ir, gen "
                           f"or spirv, or --convergence=cfg)")
    try:
        run_llvm_kernel(program.llvm_text, kernel, args, global_size, local_size, global_offset,
                        (options or OracleOptions()).subgroup_size)
    except OracleError as e:
        raise CompileError(f"{program.path}: kernel @{kernel}: llvm target: {e}") from None


def _scopes_move_an_operation(program: Program, kernel: str) -> bool:
    """Whether reading `kernel` as the program's --convergence says anchors an operation in a loop by its
    source scopes (lowering.frontend.convergence) or splits a loop LLVM merged (loop_separation): the CFG,
    which the reference follows, then differs."""
    from reconverge.lowering import pipeline
    from reconverge.lowering.passes.convergence import has_tokens
    from reconverge.records import replace
    mode = program.inspect.convergence
    if "!dbg" not in program.llvm_text or mode not in ("auto", "scopes") or \
            (mode == "auto" and "@llvm.experimental.convergence." in program.llvm_text):
        return False                 # the CFG decides, or the IR's own tokens (which the reference follows)
    try:
        read = pipeline.read_module_ref(program.module(), program.path,
                                        replace(program.inspect, kernel=kernel, pipeline="generic"))
    except RemovedLoop:
        return True                  # the scopes put an operation in a loop -O2 removed, which the CFG lost
    except CompileError:
        return False                 # our reader cannot read it: the reference still runs it
    return has_tokens(read[kernel]) or read[kernel].loops_separated > 0


@dataclass(frozen=True)
class InterpreterOptions:
    """The ir target's settings: `max_steps` instructions per work-item (None: the interpreter's default,
    0: no limit); `subgroup_size` lanes per sub-group (None: DEFAULT_SUBGROUP_SIZE, 16)."""
    max_steps: int | None = None
    subgroup_size: int | None = None


@dataclass(frozen=True)
class GenRunOptions:
    """The gen target's settings: what to compile for (SIMD width, control-flow mode: backend.gen.GenOptions,
    checked there), when given a simulator Trace that records the first work-group's lane activity, and
    `max_steps` instructions per hardware thread (None: backend.gen.launch.DEFAULT_MAX_STEPS, 0: no limit);
    `stats`: a dictionary the launch fills with its executed-instruction totals (backend.gen.launch)."""
    simd: int = 16
    cf: str = "auto"
    trace: object = None
    max_steps: int | None = None
    stats: dict | None = None
    uniform_branches: bool = True

    @property
    def compile(self):
        from reconverge.backend.gen import GenOptions
        return GenOptions(self.simd, self.cf, uniform_branches=self.uniform_branches)


MAX_IR_WORK_ITEMS = 1 << 24     # the interpreter runs about a million simple work-items a minute


def _run_ir(program: Program, kernel: str, args: list, global_size, local_size, options, global_offset):
    """The structured IR in the lock-step interpreter (lowering.interp.vector); a function still in CFG form
    (no structurizer run) in the per-work-item one, which has no sub-groups."""
    from reconverge.lowering.interp import DEFAULT_MAX_STEPS, InterpreterError, run_kernel
    from reconverge.lowering.interp.vector import DEFAULT_SUBGROUP_SIZE, run_vector_kernel
    items = int(np.prod(global_size))
    if items > MAX_IR_WORK_ITEMS:
        raise CompileError(f"{program.path}: kernel @{kernel}: ir target: {items} work-items is more than the "
                           f"interpreter runs ({MAX_IR_WORK_ITEMS}); use --target llvm or spirv")
    func = program.function(kernel)
    max_steps = options.max_steps if options is not None and options.max_steps is not None else DEFAULT_MAX_STEPS
    max_steps = max_steps or sys.maxsize
    subgroup_size = (options.subgroup_size if options is not None and options.subgroup_size is not None
                     else DEFAULT_SUBGROUP_SIZE)
    try:
        if func.is_structured:
            run_vector_kernel(func, ir_arguments(func, args), global_size, local_size, global_offset,
                              max_steps=max_steps, subgroup_size=subgroup_size)
        else:      # barriers need every item of a group to arrive before any passes
            run_kernel(func, ir_arguments(func, args), global_size, local_size, global_offset,
                       lockstep=has_barrier(func), max_steps=max_steps)
    except InterpreterError as e:
        raise CompileError(f"{program.path}: kernel @{kernel}: ir target: {e}") from None


def _run_spirv(program: Program, kernel: str, args: list, global_size, local_size, options, global_offset):
    try:
        from reconverge.backend.spirv.launch import run_spirv_kernel
    except ImportError as e:
        raise CompileError(f"the spirv target is not available: {e}") from None
    func = program.function(kernel, "spirv")
    run_spirv_kernel(func, ir_arguments(func, args), global_size, local_size, options, global_offset=global_offset)


def _run_gen(program: Program, kernel: str, args: list, global_size, local_size, options, global_offset):
    from reconverge.backend.gen import CF_MODES, compile
    from reconverge.backend.gen.launch import run_gen_kernel
    options = options or GenRunOptions()
    try:
        compiled = compile(program, kernel, options.compile)
        func = program.function(kernel, CF_MODES[compiled.mode].pipeline)   # what it compiled
        run_gen_kernel(func, ir_arguments(func, args), global_size, local_size, options.simd, global_offset,
                       options.trace, max_steps=options.max_steps, compiled=compiled, stats=options.stats)
    except CompileError as e:
        if str(e).startswith("@"):           # the launcher names the kernel; say the file as ir does
            raise CompileError(f"{program.path}: kernel {e}") from None
        raise


def _run_opencl(program: Program, kernel: str, args: list, global_size, local_size, options, global_offset):
    from reconverge.tools.targets.opencl_target import run_opencl
    run_opencl(program, kernel, args, global_size, local_size, options, global_offset)


# name -> launcher(program, kernel, args, global_size, local_size, backend_options, global_offset); it
# updates the argument arrays in place. A new backend adds itself here.
TARGETS: dict[str, Callable] = {"llvm": _run_llvm, "ir": _run_ir, "spirv": _run_spirv, "opencl": _run_opencl,
                                "gen": _run_gen}


def run_target(target: str, program: Program, kernel: str, args: list, global_size, local_size,
               backend_options=None, global_offset=0) -> list:
    """Run `kernel` on `target` with copies of `args`; return the copies after the run."""
    launcher = TARGETS.get(target)
    if launcher is None:
        raise CompileError(f"unknown target '{target}' (targets: {', '.join(TARGETS)})")
    if target in ("llvm", "opencl") and not program.has_llvm:
        program.module()              # IR text input: the one-line refusal
    copies = [_copy(a) for a in args]
    launcher(program, kernel, copies, global_size, local_size, backend_options, global_offset)
    return copies


# ----- comparing -----

def _float_bits(a: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """(sign, magnitude) of each float's bit pattern, as integers: ulp distance is magnitude arithmetic."""
    bits = a.view(np.dtype(f"u{a.dtype.itemsize}")).astype(np.uint64)
    top = np.uint64(1) << np.uint64(a.dtype.itemsize * 8 - 1)
    return (bits & top) != 0, (bits & (top - np.uint64(1))).astype(np.int64)


def _float_equal(ref: np.ndarray, got: np.ndarray, ulps: int) -> np.ndarray:
    both_nan = np.isnan(ref) & np.isnan(got)
    if ulps == 0:
        same = ref.view(np.dtype(f"u{ref.dtype.itemsize}")) == got.view(np.dtype(f"u{got.dtype.itemsize}"))
        return same | both_nan
    rs, rm = _float_bits(ref)
    gs, gm = _float_bits(got)
    same_sign = (rs == gs) & (np.abs(rm - gm) <= ulps)
    # across zero the distance is the sum of the magnitudes; checked in two steps so it cannot overflow
    across = (rs != gs) & (rm <= ulps) & (gm <= ulps - np.minimum(rm, ulps))
    either_nan = np.isnan(ref) | np.isnan(got)
    return both_nan | ((same_sign | across) & ~either_nan)


def _show(x) -> str:
    return str(x) if isinstance(x, np.generic) else repr(x)


def compare(reference: list, got: list, names: list[str], float_ulps: int = 0, *,
            labels: tuple[str, str] = ("reference", "result")) -> list[str]:
    """Compare the buffers (numpy arrays) of two runs; one line per differing buffer naming its first
    differing lane, e.g. "buffer 'out' [17]: spirv 3 != llvm 4 (and 2 more lanes differ)". Integers must be
    equal; floats within `float_ulps` units in the last place (0: the same bits; NaN equals NaN).
    `labels` are the names of the reference's and the result's targets."""
    ref_label, got_label = labels
    problems = []
    for name, want, have in zip(names, reference, got):
        if not isinstance(want, np.ndarray):
            continue
        where = f"buffer '{name}'"
        if not isinstance(have, np.ndarray):
            problems.append(f"{where}: {got_label} gave no array")
            continue
        if have.dtype != want.dtype or have.shape != want.shape:
            problems.append(f"{where}: {got_label} {have.dtype}{list(have.shape)} != "
                            f"{ref_label} {want.dtype}{list(want.shape)}")
            continue
        if want.dtype.kind == "f":
            equal = _float_equal(want, have, float_ulps)
        else:
            equal = want == have
        bad = np.argwhere(~np.asarray(equal).reshape(want.shape))
        if bad.size == 0:
            continue
        lane = tuple(int(i) for i in bad[0])
        index = ", ".join(str(i) for i in lane)
        more = f" (and {len(bad) - 1} more lanes differ)" if len(bad) > 1 else ""
        problems.append(f"{where} [{index}]: {got_label} {_show(have[lane])} != "
                        f"{ref_label} {_show(want[lane])}{more}")
    if len(reference) != len(got):
        problems.append(f"{got_label} returned {len(got)} arguments, {ref_label} {len(reference)}")
    return problems
