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

import re
import sys
from dataclasses import dataclass, field
from typing import Callable

import numpy as np
import numpy.typing as npt

from lowering.errors import CompileError, IrreducibleCFG
from lowering.ir.core import Function
from lowering.ir.types import F16, F32, F64, Type, int_type, ptr


@dataclass
class Program:
    """One input, loaded once. The LLVM module is what the llvm target runs and where kernel names and
    parameters come from; our structured kernels are made only when a target asks for one (`function`),
    so the reference never depends on our reader, and an unsupported construct in a kernel that is not
    run stops nothing."""
    path: str
    opt_level: str
    llvm_text: str
    build_options: tuple[str, ...] = ()     # OpenCL build options (-D, -I, -cl-*) the source was compiled with
    kernels: list[str] | None = None        # None: found in llvm_text when first asked
    verify_each: bool = True
    _module: object = field(default=None, repr=False)
    _functions: dict[str, Function] = field(default_factory=dict, repr=False)
    _lowered: dict[tuple[str, str], Function] = field(default_factory=dict, repr=False)

    @property
    def has_llvm(self) -> bool:
        """False for IR text input (.nir): only the targets that run our IR can run it."""
        return bool(self.llvm_text)

    def module(self):
        """The parsed LLVM module (parsed from llvm_text on first use)."""
        if not self.has_llvm:
            raise CompileError(f"{self.path}: IR text has no LLVM module (the llvm and opencl targets need "
                               f".cl, .ll or .bc input; use --target ir or spirv)")
        if self._module is None:
            from lowering.frontend.llvm_module import parse_llvm_text
            self._module = parse_llvm_text(self.llvm_text, self.path)
        return self._module

    def kernel_names(self) -> list[str]:
        if not self.has_llvm:
            return list(self._functions)
        if self.kernels is None:
            from lowering.frontend.llvm_module import find_kernels
            self.kernels = find_kernels(self.module())
        return self.kernels

    def _check(self, kernel: str) -> None:
        if kernel not in self.kernel_names() and kernel not in self._functions:
            raise CompileError(f"{self.path}: no kernel named {kernel!r} "
                               f"(available: {', '.join(self.kernel_names()) or 'none'})")

    def function(self, kernel: str, target_pipeline: str = "generic") -> Function:
        """The structured kernel, read and structurized on first use (only this one); for another
        pipeline than the generic one (lowering.target.PIPELINES), a separate copy lowered for it, so
        that each target runs its own IR."""
        self._check(kernel)
        from lowering.target import CAPS
        if target_pipeline in CAPS and not CAPS[target_pipeline].structured:
            return self._cfg_function(kernel, target_pipeline)
        if kernel not in self._functions:
            from lowering import pipeline
            options = pipeline.Options(kernel=kernel, verify_each=self.verify_each)
            funcs = pipeline.run_passes(pipeline.read_module_ref(self.module(), self.path, options), options)
            self._functions.update(funcs)
        if target_pipeline == "generic":
            return self._functions[kernel]
        key = (kernel, target_pipeline)
        if key not in self._lowered:
            from lowering.ir.parser import parse_module
            from lowering.ir.printer import print_function
            from lowering.pipeline import lower_for
            copy = parse_module(print_function(self._functions[kernel]), self.path).functions[kernel]
            lower_for([copy], target_pipeline, self.verify_each)
            self._lowered[key] = copy
        return self._lowered[key]

    def _cfg_function(self, kernel: str, target_pipeline: str) -> Function:
        """A pipeline without the structurizer (gen-blockip) reads the module afresh: its kernel stays a
        CFG, irreducible or not."""
        key = (kernel, target_pipeline)
        if key not in self._lowered:
            from lowering import pipeline
            if not self.has_llvm:
                raise CompileError(f"{self.path}: the {target_pipeline} pipeline needs LLVM IR input, not .nir")
            options = pipeline.Options(kernel=kernel, verify_each=self.verify_each, pipeline=target_pipeline)
            self._lowered[key] = pipeline.run_passes(pipeline.read_module_ref(self.module(), self.path, options),
                                                     options)[kernel]
        return self._lowered[key]

    @property
    def functions(self) -> dict[str, Function]:
        """Every kernel, structurized."""
        return {k: self.function(k) for k in self.kernel_names()}

    def params(self, kernel: str) -> list["Param"]:
        """The kernel's source parameters, from the LLVM module alone (see llvm_kernel_params)."""
        self._check(kernel)
        if not self.has_llvm or kernel not in self.kernel_names():
            return kernel_params(self._functions[kernel])
        return llvm_kernel_params(self.module(), self.llvm_text, kernel, self.path)

    def reqd_work_group_size(self, kernel: str) -> tuple[int, int, int] | None:
        self._check(kernel)
        if not self.has_llvm:
            return self._functions[kernel].reqd_work_group_size
        return _kernel_metadata(self.module(), self.llvm_text, kernel, self.path).reqd_work_group_size


@dataclass(frozen=True)
class Param:
    """A kernel parameter as the source wrote it (several IR arguments for a by-value vector)."""
    index: int
    name: str                  # the source's name, else argN
    types: tuple[Type, ...]    # one per IR argument (lane)
    cl_type: str = ""          # the OpenCL type name from !kernel_arg_type ("float4*", "int"), if known
    byval_size: int = 0        # a struct passed by value (LLVM `byval`): its size in bytes; else 0

    @property
    def is_pointer(self) -> bool:
        return len(self.types) == 1 and self.types[0].is_ptr

    @property
    def is_local(self) -> bool:
        """A `__local T *` parameter: the host gives a size (LocalArg), not a buffer."""
        return self.is_pointer and self.types[0].addrspace == 3

    @property
    def is_byval(self) -> bool:
        """A struct passed by value: given as its bytes (a .npy of exactly byval_size bytes), not written back."""
        return self.byval_size > 0

    @property
    def is_buffer(self) -> bool:
        return self.is_pointer and not self.is_local and not self.is_byval

    @property
    def is_vector(self) -> bool:
        return len(self.types) > 1


def kernel_params(func: Function) -> list[Param]:
    """The source parameters of a structured kernel, from its IR arguments grouped by Arg.param."""
    groups: dict[int, list] = {}
    for a in func.args:
        groups.setdefault(a.param, []).append(a)
    params = []
    for index, lanes in groups.items():
        name = lanes[0].name if len(lanes) == 1 else lanes[0].name.rsplit(".", 1)[0]
        params.append(Param(index, name or f"arg{index}", tuple(a.type for a in lanes)))
    return params


def _kernel_metadata(mod, text: str, kernel: str, path: str):
    from lowering.frontend.llvm_module import function_header
    from lowering.frontend.llvm_reader import parse_kernel_metadata
    return parse_kernel_metadata(function_header(mod.get_function(kernel)), text, f"{path}: kernel @{kernel}")


_LLVM_SCALARS = {"half": F16, "float": F32, "double": F64}


def _llvm_type(text: str, where: str) -> tuple[Type, ...]:
    """An LLVM parameter type as one IR type per lane: i32, float, ptr addrspace(N), <N x T>."""
    text = text.strip()
    vector = re.fullmatch(r"<(\d+) x ([^>]+)>", text)
    if vector:
        return _llvm_type(vector.group(2), where) * int(vector.group(1))
    if re.fullmatch(r"i\d+", text):
        return (int_type(int(text[1:])),)
    if text in _LLVM_SCALARS:
        return (_LLVM_SCALARS[text],)
    pointer = re.fullmatch(r"ptr(?: addrspace\((\d+)\))?", text)
    if pointer:
        return (ptr(int(pointer.group(1) or 0)),)
    raise CompileError(f"{where}: parameter type {text} is not supported")


def llvm_kernel_params(mod, text: str, kernel: str, path: str) -> list[Param]:
    """The kernel's parameters from the LLVM module: names from !kernel_arg_name (else argN), OpenCL type
    names from !kernel_arg_type, one IR type per lane; a struct passed by value (`byval(T)`) with T's size."""
    fn = mod.get_function(kernel)
    meta = _kernel_metadata(mod, text, kernel, path)
    params = []
    for index, arg in enumerate(fn.arguments):
        where = f"{path}: kernel @{kernel}: parameter {index}"
        name = meta.arg_names[index] if index < len(meta.arg_names) and meta.arg_names[index] else \
            (arg.name or f"arg{index}")
        cl_type = meta.arg_types[index] if index < len(meta.arg_types) else ""
        byval = _byval_size(mod, " ".join(a.decode() if isinstance(a, bytes) else str(a) for a in arg.attributes),
                            where)
        params.append(Param(index, name, _llvm_type(str(arg.type), where), cl_type, byval))
    _check_names_distinct(params, f"{path}: kernel @{kernel}")
    return params


def _check_names_distinct(params: list[Param], where: str) -> None:
    """Refuse a kernel two of whose parameters have one name (hand-written !kernel_arg_name): --arg NAME
    and the NAME.npy results could not tell them apart, and one buffer would be lost."""
    first: dict[str, int] = {}
    for p in params:
        if p.name in first:
            raise CompileError(f"{where}: parameters {first[p.name]} and {p.index} are both named '{p.name}' "
                               f"(!kernel_arg_name): name them apart to run the kernel")
        first[p.name] = p.index


def _byval_size(mod, arg_text: str, where: str) -> int:
    """The size in bytes of a `byval(T)` parameter's T (0 when the parameter is not byval)."""
    m = re.search(r"\bbyval\((%[\w.$\"]+|\{[^}]*\}|\[[^\]]*\])\)", arg_text)
    if m is None:
        return 0
    type_name = m.group(1)
    try:
        from lowering.frontend.llvm_module import target_data
        struct = mod.get_struct_type(type_name[1:].strip('"')) if type_name.startswith("%") else None
        if struct is None:
            raise NameError(type_name)
        return target_data(mod).get_abi_size(struct)
    except (NameError, RuntimeError, ValueError):
        raise CompileError(f"{where}: cannot size the by-value type {type_name}") from None


@dataclass(frozen=True)
class LocalArg:
    """The argument of a `__local T *p` parameter: the host gives only a size, as clSetKernelArg(size, NULL)
    does; every work-group gets its own zero-initialised block of `count` elements of `dtype`."""
    count: int
    dtype: npt.DTypeLike        # np.int32 or np.dtype("int32")

    @property
    def nbytes(self) -> int:
        return self.count * np.dtype(self.dtype).itemsize


# ----- loading -----

def load_program(path: str, opt_level: str = "-O0", kernel: str | None = None,
                 verify_each: bool = True, build_options: tuple[str, ...] = ()) -> Program:
    """Load a .cl, .ll or .bc file once: the (optimised) LLVM module. Structured kernels are made when a
    target asks for them; `kernel` only checks that the input has it."""
    from lowering import pipeline
    from lowering.frontend.llvm_module import require_kernels
    if opt_level not in ("-O0", "-O1", "-O2", "-O3"):
        raise CompileError(f"unknown optimisation level {opt_level!r} (-O0 to -O3)")
    if path.lower().endswith(".nir"):
        funcs = pipeline.compile_path(path, opt_level, pipeline.Options(kernel=kernel, verify_each=verify_each),
                                      tuple(build_options))
        return Program(path, opt_level, "", tuple(build_options), verify_each=verify_each, _functions=funcs)
    mod = pipeline.load_module(path, opt_level, tuple(build_options))
    program = Program(path, opt_level, str(mod), tuple(build_options), kernels=require_kernels(mod, path),
                      verify_each=verify_each, _module=mod)
    if kernel is not None:
        program._check(kernel)
    return program


def program_from_llvm(text: str, source_name: str = "<ir>", kernel: str | None = None,
                      verify_each: bool = True) -> Program:
    """A Program from LLVM IR text already in memory (generated kernels: no file, no optimisation)."""
    program = Program(source_name, "-O0", text, verify_each=verify_each)
    if kernel is not None:
        program.function(kernel)
    return program


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


def _run_llvm(program: Program, kernel: str, args: list, global_size, local_size, options, global_offset):
    from tools.targets.jit_oracle import OracleError, run_llvm_kernel
    if any(p.is_byval for p in program.params(kernel)):
        raise CompileError(f"{program.path}: kernel @{kernel}: the llvm target cannot pass a struct by value "
                           f"(use --target ir)")
    if any(p.is_vector for p in program.params(kernel)):
        raise CompileError(f"{program.path}: kernel @{kernel}: the llvm target cannot pass by-value "
                           f"vector parameters")
    try:
        run_llvm_kernel(program.llvm_text, kernel, args, global_size, local_size, global_offset)
    except OracleError as e:
        raise CompileError(f"{program.path}: kernel @{kernel}: llvm target: {e}") from None


@dataclass(frozen=True)
class InterpreterOptions:
    """The ir target's settings: `max_steps` instructions per work-item (None: the interpreter's default,
    0: no limit)."""
    max_steps: int | None = None


@dataclass(frozen=True)
class GenOptions:
    """The gen target's settings: SIMD width, control-flow mode (gen_function), when given a simulator
    Trace that records the first work-group's lane activity, and `max_steps` instructions per hardware
    thread (None: backend.gen.launch.DEFAULT_MAX_STEPS, 0: no limit)."""
    simd: int = 16
    cf: str = "auto"
    trace: object = None
    max_steps: int | None = None


MAX_IR_WORK_ITEMS = 1 << 24     # the interpreter runs about a million simple work-items a minute


def _run_ir(program: Program, kernel: str, args: list, global_size, local_size, options, global_offset):
    from lowering.interp import DEFAULT_MAX_STEPS, InterpreterError, run_kernel
    items = int(np.prod(global_size))
    if items > MAX_IR_WORK_ITEMS:
        raise CompileError(f"{program.path}: kernel @{kernel}: ir target: {items} work-items is more than the "
                           f"interpreter runs ({MAX_IR_WORK_ITEMS}); use --target llvm or spirv")
    func = program.function(kernel)
    lockstep = has_barrier(func)     # barriers need every item of a group to arrive before any passes
    max_steps = options.max_steps if options is not None and options.max_steps is not None else DEFAULT_MAX_STEPS
    max_steps = max_steps or sys.maxsize
    try:
        run_kernel(func, ir_arguments(func, args), global_size, local_size, global_offset, lockstep=lockstep,
                   max_steps=max_steps)
    except InterpreterError as e:
        raise CompileError(f"{program.path}: kernel @{kernel}: ir target: {e}") from None


def _run_spirv(program: Program, kernel: str, args: list, global_size, local_size, options, global_offset):
    try:
        from backend.spirv.launch import run_spirv_kernel
    except ImportError as e:
        raise CompileError(f"the spirv target is not available: {e}") from None
    func = program.function(kernel, "spirv")
    run_spirv_kernel(func, ir_arguments(func, args), global_size, local_size, options, global_offset=global_offset)


def gen_function(program: Program, kernel: str, cf: str = "auto") -> tuple[Function, str]:
    """The kernel as the Gen backend takes it for a control-flow mode, and the mode used: "structured"
    (the tree), "blockip" (the CFG, block by block), "hybrid" (the CFG, its natural regions in
    structured branches: backend/gen/cf_regions.py) or another of backend.gen.CF_MODES. `auto` takes
    the hybrid where the structurizer cannot take the CFG (irreducible) or where the hybrid's machine
    IR is estimated to run clearly less than the tree's (backend/gen/cost.py), else the tree."""
    from backend.gen import CF_MODES
    if cf == "auto":
        from backend.gen import select_any
        from backend.gen.cost import prefers_hybrid
        try:
            tree = program.function(kernel, "gen")
        except IrreducibleCFG:
            return program.function(kernel, "gen-blockip"), "hybrid"
        from backend.gen.cf_regions import MAX_ROUNDS, RegionDepthError
        from lowering.ir.core import nesting_depth
        if 2 * nesting_depth(tree) > MAX_ROUNDS:   # the region search would refuse it, after MAX_ROUNDS rounds
            return tree, "structured"
        cfg = program.function(kernel, "gen-blockip")
        try:
            hybrid = select_any(cfg, regions=True)
        except RegionDepthError:                 # nested deeper than the region search goes
            return tree, "structured"
        if prefers_hybrid(select_any(tree), hybrid):
            return cfg, "hybrid"
        return tree, "structured"
    if cf not in CF_MODES:
        raise CompileError(f"unknown control-flow mode '{cf}' (modes: auto, {', '.join(CF_MODES)})")
    return program.function(kernel, CF_MODES[cf][0]), cf


def _run_gen(program: Program, kernel: str, args: list, global_size, local_size, options, global_offset):
    from backend.gen import CF_MODES
    from backend.gen.launch import run_gen_kernel
    options = options or GenOptions()
    func, mode = gen_function(program, kernel, options.cf)
    simd, trace = options.simd, options.trace
    try:
        run_gen_kernel(func, ir_arguments(func, args), global_size, local_size, simd, global_offset, trace,
                       max_steps=options.max_steps, **CF_MODES[mode][1])
    except CompileError as e:
        if str(e).startswith("@"):           # the launcher names the kernel; say the file as ir does
            raise CompileError(f"{program.path}: kernel {e}") from None
        raise


def _run_opencl(program: Program, kernel: str, args: list, global_size, local_size, options, global_offset):
    from tools.targets.opencl_target import run_opencl
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
