"""The compile driver: one input loaded once, and a kernel's function for each pipeline made on first use.

    program = load_program("k.cl", "-O2")
    tree = program.function("k", "gen")           # structurized, then lowered for Gen
    cfg = program.function("k", "gen-blockip")    # read afresh, kept a CFG (irreducible or not)

Every target asks the same driver: the command line's `compile` (each --emit, each --cf), the run targets
in tools/targets/harness.py, the tests and the fuzzers. A structured pipeline (lowering.target) shares
the generic passes: the kernel is read and structurized once, and each target lowers its own clone
(Function.clone) of that tree. A pipeline without the structurizer reads the module again, because its
reading differs (LLVM's SROA stands in for promote: pipeline.read_module_ref), except where the caller says
it will ask for that pipeline too (`then`: Gen's --cf auto weighs the tree against the CFG) and SROA has
nothing to change in the kernel's function (it has no private variable, or none SROA would rewrite:
sroa_check): that pipeline then takes a copy of the first read (reads_shared). The pass inspection of the
command line (--dump-after, --print-after, --stop-after, --verify-each) is given once, as `inspect`, and
applies to every pipeline the driver runs; `label_dumps` names each dump after its pipeline, for a
compile that runs several (Gen's --cf auto).

Only the LLVM module is made at load time; the llvm target (the reference) runs it without our reader,
and an unsupported construct in a kernel that is not asked for stops nothing.
"""
from __future__ import annotations

import os

from reconverge.lowering import pipeline
from reconverge.lowering.errors import CompileError
from reconverge.lowering.ir.core import Function
from reconverge.lowering.kernel_abi import Param, kernel_metadata, kernel_params, llvm_kernel_params
from reconverge.lowering.target import CAPS, PIPELINES
from reconverge.records import field, record, replace

GENERIC = PIPELINES["generic"]


@record
class Program:
    """One input. `llvm_text` is empty for IR text (.nir) input, whose functions are `_read` from the start."""
    path: str
    opt_level: str
    llvm_text: str
    build_options: tuple[str, ...] = ()     # OpenCL build options (-D, -I, -cl-*) the source was compiled with
    kernels: list[str] | None = None        # None: found in llvm_text when first asked
    verify_each: bool = True
    inspect: pipeline.Options = field(default_factory=pipeline.Options)   # dumps, prints, stop-after
    label_dumps: bool = False               # name every dump and print after the pipeline it comes from
    diagnostics: str = ""                   # what clang printed compiling the source (warnings), for the user
    _module: object = field(default=None, repr=False)
    _text_done: str = "read"                # IR text input: the last pass its form implies
    _read: dict[str, Function] = field(default_factory=dict, repr=False)     # IR text input, as parsed
    _functions: dict[tuple[str, str], Function] = field(default_factory=dict, repr=False)
    _prepared: dict = field(default_factory=dict, repr=False)     # pipeline.read_module_ref's inlined modules
    _printed: str | None = field(default=None, repr=False)        # str(_module), when load_program printed it
    _kept_reads: dict[tuple[str, str], Function] = field(default_factory=dict, repr=False)   # `then`'s copies
    _options_made: dict[tuple, tuple] = field(default_factory=dict, repr=False)   # _options' answers
    reads_shared: int = 0                   # kernels a CFG pipeline took from another pipeline's read
    one_pipeline: bool = False              # the caller asks for one structured pipeline's kernels, once: it
    #                                         lowers the generic tree itself, not a clone (the command line's
    #                                         SPIR-V compile: cloning was 3 ms of the control-flow file's 0.3 s)

    @property
    def has_llvm(self) -> bool:
        """False for IR text input (.nir): only the targets that run our IR can run it."""
        return bool(self.llvm_text)

    @property
    def structured_input(self) -> bool:
        """IR text in structured form: no CFG to give a pipeline without the structurizer."""
        return not self.has_llvm and self._text_done != "read"

    def module(self):
        """The parsed LLVM module (parsed from llvm_text on first use)."""
        if not self.has_llvm:
            raise CompileError(f"{self.path}: IR text has no LLVM module (the llvm and opencl targets need "
                               f".cl, .ll or .bc input; use --target ir or spirv)")
        if self._module is None:
            from reconverge.lowering.frontend.llvm_module import parse_llvm_text
            self._module = parse_llvm_text(self.llvm_text, self.path)
        return self._module

    def kernel_names(self) -> list[str]:
        if not self.has_llvm:
            return list(self._read)
        if self.kernels is None:
            from reconverge.lowering.frontend.llvm_module import find_kernels
            self.kernels = find_kernels(self.module())
        return self.kernels

    def check_kernel(self, kernel: str) -> None:
        if kernel not in self.kernel_names():
            raise CompileError(f"{self.path}: no kernel named {kernel!r} "
                               f"(available: {', '.join(self.kernel_names()) or 'none'})")

    def function(self, kernel: str, target_pipeline: str = "generic", then: str | None = None) -> Function:
        """The kernel as `target_pipeline` (lowering.target.PIPELINES) leaves it, made on first use; each
        pipeline has its own copy, so each target runs its own IR. `then`: a CFG pipeline the caller asks
        for next; where it would read the same function, a copy of this read is kept for it."""
        self.check_kernel(kernel)
        return self._make([kernel], target_pipeline, then)[kernel]

    def shares_read(self, kernel: str, target_pipeline: str) -> bool:
        """Whether `target_pipeline` would take the copy of another pipeline's read kept for it (`then`): the
        same function as read, so both compute the same values (Gen's --cf auto weighs less where so)."""
        return (kernel, target_pipeline) in self._kept_reads

    @property
    def functions(self) -> dict[str, Function]:
        """Every kernel through the generic pipeline, each read on its own (function)."""
        return {k: self.function(k) for k in self.kernel_names()}

    def functions_for(self, target_pipeline: str, kernels: list[str] | None = None) -> dict[str, Function]:
        """Every kernel (or `kernels`) as `target_pipeline` leaves it, read from the module together (as
        one SPIR-V module holds them)."""
        names = list(kernels) if kernels is not None else self.kernel_names()
        for name in names:
            self.check_kernel(name)
        return self._make(names, target_pipeline)

    def params(self, kernel: str) -> list[Param]:
        """The kernel's source parameters, from the LLVM module alone (kernel_abi.llvm_kernel_params)."""
        self.check_kernel(kernel)
        if not self.has_llvm:
            return kernel_params(self._read[kernel])
        return llvm_kernel_params(self.module(), self.llvm_text, kernel, self.path)

    def reqd_work_group_size(self, kernel: str) -> tuple[int, int, int] | None:
        self.check_kernel(kernel)
        if not self.has_llvm:
            return self._read[kernel].reqd_work_group_size
        return kernel_metadata(self.module(), self.llvm_text, kernel, self.path).reqd_work_group_size

    # ----- running the pipelines -----

    def _stop_for(self, target_pipeline: str) -> str | None:
        """--stop-after for one pipeline's run: a pass it lacks is an error when it is the only pipeline
        (run_passes says so), and no stop at all for the others of a compile that runs several."""
        stop = self.inspect.stop_after
        if stop is None or stop in ("read", *PIPELINES[target_pipeline]) or not self.label_dumps:
            return stop
        return None

    def _options(self, target_pipeline: str, label: str, stop_after: str | None) -> pipeline.Options:
        """The pass options of one pipeline's run: made once per pipeline, label and stop (Gen reads and
        lowers a kernel at a time; a record made for each run was 0.3% of a 400-kernel compile), again
        where `inspect`, `verify_each` or `label_dumps` changed since. Nothing sets a field of the answer."""
        key = (target_pipeline, label if self.label_dumps else "", stop_after, self.verify_each)
        made = self._options_made.get(key)
        if made is None or made[0] is not self.inspect:
            made = self._options_made[key] = (self.inspect, replace(
                self.inspect, kernel=None, verify_each=self.verify_each, pipeline=target_pipeline,
                stop_after=stop_after, label=key[1]))
        return made[1]

    def _make(self, names: list[str], target_pipeline: str, then: str | None = None) -> dict[str, Function]:
        if target_pipeline not in PIPELINES:
            raise CompileError(f"unknown pipeline '{target_pipeline}' (pipelines: {', '.join(PIPELINES)})")
        missing = [n for n in names if (n, target_pipeline) not in self._functions]
        if missing:
            if CAPS[target_pipeline].structured and target_pipeline != "generic":
                self._lower(missing, target_pipeline, then)
            else:
                self._run_from_read(missing, target_pipeline, target_pipeline, self._stop_for(target_pipeline),
                                    then)
        return {n: self._functions[(n, target_pipeline)] for n in names}

    def _run_from_read(self, names: list[str], target_pipeline: str, label: str, stop: str | None,
                       then: str | None = None) -> None:
        """Read the kernels (or clone the IR text's, or take the copies kept by an earlier read) and run
        the pipeline's passes on them."""
        options = self._options(target_pipeline, label, stop)
        funcs = {n: self._kept_reads.pop((n, target_pipeline)) for n in names
                 if (n, target_pipeline) in self._kept_reads}
        self.reads_shared += len(funcs)
        unread = [n for n in names if n not in funcs]
        if unread and self.has_llvm:
            kernel = unread[0] if len(unread) == 1 else None
            # (pipeline.read_module_ref with options' kernel set, without a copy of the options per read: Gen
            # reads a kernel at a time)
            from reconverge.lowering.frontend.llvm_reader import read_kernels
            ready = pipeline.prepared_module(self.module(), self.path, options.pipeline, self._prepared,
                                             self._printed)
            read = read_kernels(ready, self.path, kernel, convergence=options.convergence)
            funcs.update((n, read[n]) for n in unread)
            if then is not None and reads_alike(target_pipeline, then):
                # (private variables read alike too where SROA would leave the kernel's function as it is)
                kept = [n for n in unread if not _has_private(read[n]) or _sroa_keeps(ready, n)]
                self._kept_reads.update(((n, then), read[n].clone()) for n in kept)
        elif unread:
            funcs.update((n, self._read[n].clone()) for n in unread)
        done = "read" if self.has_llvm else self._text_done
        for name, func in pipeline.run_passes({n: funcs[n] for n in names}, options, done).items():
            self._functions[(name, target_pipeline)] = func

    def _lower(self, names: list[str], target_pipeline: str, then: str | None = None) -> None:
        """A structured target's kernels: a clone of the generic tree, through the target's own passes
        (none when --stop-after stops within the generic ones)."""
        stop = self._stop_for(target_pipeline)
        generic_stop = stop if stop is None or stop in ("read", *GENERIC) else None
        fresh = [n for n in names if (n, "generic") not in self._functions]
        if fresh:
            self._run_from_read(fresh, "generic", target_pipeline, generic_stop, then)
        if self.one_pipeline:               # no later request for the generic tree: take it (one asked for
            clones = {n: self._functions.pop((n, "generic")) for n in names}   # again is read afresh)
        else:
            clones = {n: self._functions[(n, "generic")].clone() for n in names}
        if generic_stop is None:
            clones = pipeline.run_passes(clones, self._options(target_pipeline, target_pipeline, stop), GENERIC[-1])
        for name, func in clones.items():
            self._functions[(name, target_pipeline)] = func


def reads_alike(first: str, then: str) -> bool:
    """Whether pipeline `then` may take a copy of what `first` read, for a kernel without private
    variables: a structured pipeline reads the inlined module, and a CFG one the same module after LLVM's
    SROA (pipeline.read_module_ref), which rewrites only allocas; IR text input is read once anyway. (A
    kernel with private variables too where SROA would leave its function as it is: _sroa_keeps.)"""
    return CAPS[first].structured and not CAPS[then].structured


def _sroa_keeps(module, kernel: str) -> bool:
    """Whether LLVM's SROA, which the CFG pipelines' read runs first, would leave the function the kernel
    was read from (in `module`, the structured pipelines' prepared module) as it is (sroa_check); the
    inlining before it is both reads'."""
    from reconverge.lowering.frontend.llvm_reader import kernel_text
    from reconverge.lowering.frontend.sroa_check import function_unchanged
    return function_unchanged(kernel_text(module, kernel))


def _has_private(func: Function) -> bool:
    """A private variable (alloca) in a function as read: what SROA could have rewritten (loops, not a
    generator: asked of every kernel a Gen --cf auto compile reads)."""
    for block in func.blocks:
        for ins in block.instrs:
            if ins.opcode == "alloca":
                return True
    return False


def compile_path(path: str, opt_level: str = "-O0", options: pipeline.Options | None = None,
                 build_options: tuple[str, ...] = ()) -> dict[str, Function]:
    """Any input file at an optimisation level -> its kernels (options.kernel, else all) as options.pipeline
    leaves them (the driver, with options' dumps, prints and stop)."""
    options = options or pipeline.Options()
    program = load_program(path, opt_level, options.kernel, options.verify_each, build_options, inspect=options)
    return program.functions_for(options.pipeline, [options.kernel] if options.kernel else None)


def load_program(path: str, opt_level: str = "-O0", kernel: str | None = None, verify_each: bool = True,
                 build_options: tuple[str, ...] = (), inspect: pipeline.Options | None = None,
                 label_dumps: bool = False, kind: str | None = None, data: bytes | None = None,
                 convergence: str | None = None, one_pipeline: bool = False) -> Program:
    """Load a .cl, .ll, .bc or .nir file once: the (optimised) LLVM module, or the IR text's functions,
    checked. Kernels go through a pipeline when asked for; `kernel` only checks that the input has it.
    `kind` (lowering.input_kind.KINDS) overrides the file name's extension; `data` is the input already
    read (standard input: `path` is then the name messages give it). `convergence` (CONVERGENCE in
    lowering.frontend.convergence, default inspect's) says what decides where convergent operations run.
    `one_pipeline`: see Program."""
    from reconverge.lowering.frontend.llvm_module import require_kernels
    from reconverge.lowering.input_kind import input_kind
    if opt_level not in ("-O0", "-O1", "-O2", "-O3", "-Os", "-Oz"):
        raise CompileError(f"unknown optimisation level {opt_level!r} (-O0 to -O3, -Os, -Oz)")
    inspect = inspect if inspect is not None else pipeline.Options()
    if convergence is not None:
        inspect = replace(inspect, convergence=convergence)
    if kind is None and (data is not None or not path.lower().endswith((".cl", ".ll", ".bc", ".nir"))):
        if data is None and not os.path.exists(path):
            raise CompileError(f"{path}: no such file")
        kind = input_kind(path, data if data is not None else pipeline.file_head(path))
    if kind == "nir" or (kind is None and path.lower().endswith(".nir")):
        if build_options:
            raise CompileError(f"{path}: build options ({build_options[0]} ...) only apply to OpenCL C input")
        text = (data if data is not None else pipeline.read_input(path)).decode("utf-8", errors="replace")
        read, done = pipeline.read_nir(path, text, replace(inspect, kernel=kernel))
        return Program(path, opt_level, "", (), verify_each=verify_each, inspect=inspect, label_dumps=label_dumps,
                       _text_done=done, _read=read, one_pipeline=one_pipeline)
    diagnostics: list[str] = []
    mod = pipeline.load_module(path, opt_level, tuple(build_options), kind, data, diagnostics)
    printed = str(mod)                   # once: the kernels' headers and the reader's slices come from this text
    program = Program(path, opt_level, printed, tuple(build_options), kernels=require_kernels(mod, path, printed),
                      verify_each=verify_each, inspect=inspect, label_dumps=label_dumps,
                      diagnostics="".join(diagnostics), _module=mod, _printed=printed, one_pipeline=one_pipeline)
    if kernel is not None:
        program.check_kernel(kernel)
    return program


def program_from_llvm(text: str, source_name: str = "<ir>", kernel: str | None = None,
                      verify_each: bool = True) -> Program:
    """A Program from LLVM IR text already in memory (generated kernels: no file, no optimisation)."""
    program = Program(source_name, "-O0", text, verify_each=verify_each)
    if kernel is not None:
        program.function(kernel)
    return program
