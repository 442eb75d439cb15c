"""The compilation pipeline: load -> read (CFG form) -> structurize (tree form), each pass followed by
the validator when asked (tests always ask; the command line with --verify-each), and optionally dumped
as text and GraphViz after any pass.

    .cl --clang-22--> LLVM IR text ---+
    .ll / .bc / llvmlite.ir.Module ---+--> prepare (inline) --> read --> structurize --> promote --> backends
    .nir (our own text form) ---------------------------------+ (CFG form)  +--(structured form)

IR text enters after the last pass its form implies, so `--emit nir` of a final dump reproduces it.
"""
from __future__ import annotations

import errno
import os
import re

from reconverge.lazy_regex import lazy_compile
from reconverge.lowering.deepstack import depth_independent
from reconverge.lowering.errors import CompileError
from reconverge.lowering.ir.core import Function
from reconverge.lowering.output import safe_file_name, write_files
from reconverge.lowering.passes import PASSES
from reconverge.lowering.target import CAPS, CHECKED_WHEN_CHANGED, PIPELINES
from reconverge.records import field, record

PASS_NAMES = ("read", *PASSES)


@record
class Options:
    kernel: str | None = None
    verify_each: bool = True
    dump_after: set[str] = field(default_factory=set)     # pass names, or {"all"}
    dump_dir: str | None = None
    stop_after: str | None = None                          # last pass to run (None: all)
    pipeline: str = "generic"                              # which target's passes (lowering.target.PIPELINES)
    print_after: set[str] = field(default_factory=set)     # pass names, or {"all"}: text to `printed`
    print_before: set[str] = field(default_factory=set)    # the same, before the pass runs
    printed: list[str] = field(default_factory=list)       # what --print-after collected, in order
    dumps: dict[str, str] = field(default_factory=dict)    # file name -> text, written by the caller
    label: str = ""                                        # names dumps and prints (a compile of several pipelines)
    convergence: str = "auto"                              # what says where convergent operations run (CONVERGENCE)

    def wants_dump(self, pass_name: str) -> bool:
        return self.dump_dir is not None and ("all" in self.dump_after or pass_name in self.dump_after)


def _after_pass(func: Function, pass_name: str, step: int, options: Options, changed: bool = False) -> None:
    if options.verify_each or (changed and pass_name in CHECKED_WHEN_CHANGED):
        # (the validator is imported only then: 2M instructions of a compile)
        from reconverge.lowering.ir.validate import ValidationError, check
        problems = check(func)
        if problems:
            raise ValidationError(func, problems, f"pass '{pass_name}'")
    if options.wants_dump(pass_name):
        label = f"{options.label}." if options.label else ""
        options.dumps.update(dump_texts(func, f"{label}{step:02d}-{pass_name}"))
    if "all" in options.print_after or pass_name in options.print_after:
        _print(func, f"after {pass_name}", options)


def _print(func: Function, when: str, options: Options) -> None:
    from reconverge.lowering.ir.printer import print_function
    label = f" ({options.label})" if options.label else ""
    options.printed.append(f"; {when}{label}\n{print_function(func)}")


def dump_texts(func: Function, stem: str) -> dict[str, str]:
    """<kernel>.<stem>.nir, .cfg.dot and (tree form) .tree.dot, by file name; the kernel's name goes
    through safe_file_name, so no kernel name can make a dump land outside the dump directory."""
    from reconverge.lowering.ir.dot import cfg_dot, tree_dot
    from reconverge.lowering.ir.printer import print_function
    base = f"{safe_file_name(func.name)}.{stem}"
    outputs = {f"{base}.nir": print_function(func), f"{base}.cfg.dot": cfg_dot(func)}
    if func.is_structured:
        outputs[f"{base}.tree.dot"] = tree_dot(func)
    return outputs


def dump_function(func: Function, directory: str, stem: str, *, inputs) -> list[str]:
    """Write dump_texts(func, stem) into `directory` (all or none, none over one of `inputs`); return the
    paths written."""
    return write_files(directory, {name: text.encode() for name, text in dump_texts(func, stem).items()},
                       inputs=inputs)


@depth_independent
def run_passes(funcs: dict[str, Function], options: Options, done: str = "read") -> dict[str, Function]:
    """The passes of options.pipeline after `done` (the last one the functions have been through: 'read'
    for fresh CFG form, 'structurize' for IR text in structured form), each followed by the validator
    (and a dump or a print) as the options ask."""
    if options.pipeline not in PIPELINES:
        raise CompileError(f"unknown pipeline '{options.pipeline}' (pipelines: {', '.join(PIPELINES)})")
    caps = CAPS[options.pipeline]
    order = ["read", *PIPELINES[options.pipeline]]
    if options.stop_after is not None and options.stop_after not in order:
        raise CompileError(f"--stop-after {options.stop_after}: the {options.pipeline} pipeline has no such pass "
                           f"(it runs {', '.join(order)})")
    if done not in order:             # structured input to a pipeline without the structurizer
        raise CompileError(f"the {options.pipeline} pipeline works on CFG form; this input is structured")
    if options.stop_after is not None and order.index(options.stop_after) < order.index(done):
        raise CompileError(f"--stop-after {options.stop_after}: the input is already past that pass "
                           f"(it is in {'structured' if done != 'read' else 'CFG'} form)")
    if done == "read":
        for func in funcs.values():
            _after_pass(func, "read", 0, options)
    if options.stop_after == done:
        return funcs
    for step, name in enumerate(order[1:], start=1):
        if step <= order.index(done):
            continue
        for func in funcs.values():
            if "all" in options.print_before or name in options.print_before:
                _print(func, f"before {name}", options)
            changed = PASSES[name].run(func, caps)
            if name not in PIPELINES["generic"]:
                func.target_passes.add(f"{caps.name}:{name}")   # lower_for does not run it again
            _after_pass(func, name, step, options, changed)
        if options.stop_after == name:
            break
    return funcs


def read_module_ref(mod, source_name: str, options: Options, prepared: dict | None = None,
                    printed: str | None = None) -> dict[str, Function]:
    """Read the kernels of an LLVM module. A pipeline without the structurizer (gen-blockip) has no
    `promote` either (it works on the tree), so LLVM's own SROA puts -O0's locals into SSA values first.
    `prepared` keeps the inlined module of each kind for the next call (the compile driver reads a kernel
    at a time for Gen: preparing the whole module for each one made a file of N kernels cost N^2).
    `printed`: str(mod), when the caller has it."""
    from reconverge.lowering.frontend.llvm_reader import read_kernels
    ready = prepared_module(mod, source_name, options.pipeline, prepared, printed)
    return read_kernels(ready, source_name, options.kernel, convergence=options.convergence)


def prepared_module(mod, source_name: str, target_pipeline: str | None, prepared: dict | None = None,
                    printed: str | None = None):
    """The module a pipeline's kernels are read from (read_module_ref): inlined, and for a pipeline without
    the structurizer also through SROA; kept in `prepared` by kind. Two pipelines read the same object
    where preparing changed nothing for either (llvm_module.prepare_module hands back `mod` itself)."""
    from reconverge.lowering.frontend.llvm_module import prepare_module
    from reconverge.lowering.target import CAPS
    caps = CAPS.get(target_pipeline or "generic")
    promote = caps is not None and not caps.structured
    ready = prepared.get(promote) if prepared is not None else None
    if ready is None:
        ready = prepare_module(mod, source_name, promote, printed)
        if prepared is not None:
            prepared[promote] = ready
    return ready


def compile_llvm(text: str, source_name: str = "<ir>", kernel: str | None = None, verify_each: bool = True,
                 options: Options | None = None) -> dict[str, Function]:
    """LLVM IR text -> structured functions, one per kernel (or just `kernel`)."""
    from reconverge.lowering.frontend.llvm_module import parse_llvm_text
    options = options or Options(kernel=kernel, verify_each=verify_each)
    return run_passes(read_module_ref(parse_llvm_text(text, source_name), source_name, options), options)


def compile_llvmlite(module, kernel: str | None = None, options: Options | None = None) -> dict[str, Function]:
    """An llvmlite.ir.Module built in Python -> structured functions."""
    from reconverge.lowering.frontend.llvm_module import from_llvmlite_ir
    options = options or Options(kernel=kernel)
    name = getattr(module, "name", "") or "<llvmlite.ir>"
    return run_passes(read_module_ref(from_llvmlite_ir(module, name), name, options), options)


class InvalidIRText(CompileError):
    """IR text that parses but breaks the IR's rules; `annotated` shows the function with them marked."""

    def __init__(self, message: str, annotated: str):
        super().__init__(message)
        self.annotated = annotated


def read_nir(path: str, text: str, options: Options) -> tuple[dict[str, Function], str]:
    """Functions from IR text (what --emit nir prints), validated, and the last pass they have been
    through: 'read' for CFG form, 'structurize' for structured form (promote, which leaves promoted code
    as it is, runs again)."""
    from reconverge.lowering.ir.parser import parse_module
    from reconverge.lowering.ir.validate import annotated, check
    parsed = parse_module(text, path)
    funcs = parsed.functions
    if options.kernel is not None:
        if options.kernel not in funcs:
            raise CompileError(f"{path}: no function named {options.kernel!r} (available: {', '.join(funcs)})")
        funcs = {options.kernel: funcs[options.kernel]}
    forms = {f.is_structured for f in funcs.values()}
    if len(forms) > 1:
        raise CompileError(f"{path}: functions in CFG form and in structured form together: give --kernel")
    for func in funcs.values():
        problems = check(func)
        if problems:
            first = problems[0]
            line = parsed.lines.get(id(first.anchor), parsed.lines.get(id(func)))
            more = f" (and {len(problems) - 1} more)" if len(problems) > 1 else ""
            shown = f" (in `{text.splitlines()[line - 1].strip()}`)" if line else ""
            raise InvalidIRText(f"{path}:{line}: @{func.name}: invalid IR: {first}{more}{shown}",
                                annotated(func, problems))
    return funcs, "structurize" if forms == {True} else "read"


def read_input(path: str) -> bytes:
    """An input file's bytes; a missing, unreadable or non-regular input is a one-line error."""
    if os.path.isdir(path):
        raise CompileError(f"{path}: cannot read: {os.strerror(errno.EISDIR)}")
    try:
        with open(path, "rb") as f:
            return f.read()
    except FileNotFoundError:
        raise CompileError(f"{path}: no such file") from None
    except OSError as exc:
        raise CompileError(f"{path}: cannot read: {exc.strerror or exc}") from None


def load_module(path: str, opt_level: str = "-O0", build_options: tuple[str, ...] = (), kind: str | None = None,
                data: bytes | None = None, diagnostics: list[str] | None = None):
    """An input file as a parsed LLVM module: OpenCL C through clang-22 (which runs -O<n> and LLVM's
    verifier itself), read from its text without llvmlite (text_module.TextModule); .ll and .bc through
    llvmlite, then LLVM's own -O<n> pipeline, so that -O2 means the same for all.
    `kind` (lowering.input_kind) overrides the extension; `data` is the input already read (standard
    input, named `path`); what clang prints on success is appended to `diagnostics`."""
    from reconverge.lowering.frontend.clang import run_clang
    from reconverge.lowering.input_kind import input_kind
    if kind is None and data is None and not os.path.exists(path):
        raise CompileError(f"{path}: no such file")
    if kind is None:
        kind = input_kind(path, data if data is not None else file_head(path))
    if kind not in ("cl", "ll", "bc"):
        raise CompileError(f"{path}: {kind} input has no LLVM module")
    if data is None:
        data = read_input(path)
    if build_options and kind != "cl":
        raise CompileError(f"{path}: build options ({build_options[0]} ...) only apply to OpenCL C input")
    if kind == "cl":
        from reconverge.lowering.input_kind import STDIN_NAME
        scopes = opt_level != "-O0" and _lexical_scopes(build_options)
        if scopes:
            build_options = (*build_options, *CANONICAL_LOOPS)
        clang = run_clang(path, opt_level, build_options, source=data if path == STDIN_NAME else None)
        source = data if path == STDIN_NAME else None
        if scopes and unrolled_convergent_calls(clang.llvm_text):
            build_options = (*build_options, "-fno-unroll-loops")
            clang = run_clang(path, opt_level, build_options, source=source)
        if diagnostics is not None and clang.diagnostics:
            diagnostics.append(clang.diagnostics)
        if not _KERNEL_DEFINITION.search(clang.llvm_text):        # (printing the functions to ask cost more)
            raise CompileError(f"{path}: no kernel in this file (an OpenCL C program needs a `kernel` function)")
        from reconverge.lowering.frontend.text_module import TextModule
        module = TextModule(clang.llvm_text, path)
        if scopes and _CONVERGENT_CALL.search(clang.llvm_text):
            module = _keep_source_loops(module, path, opt_level, build_options, source)
        return module
    from reconverge.lowering.frontend.llvm_module import optimize_module, parse_llvm_bitcode, parse_llvm_text
    if kind == "bc":
        mod = parse_llvm_bitcode(data, path)
    else:
        mod = parse_llvm_text(data.decode("utf-8", errors="replace"), path)
    from reconverge.lowering.frontend import hlsl
    if hlsl.is_hlsl(mod):          # clang's HLSL for Vulkan: its shaders as OpenCL kernels
        mod = hlsl.adapt(mod, path)
    unoptimized = str(mod) if opt_level != "-O0" and _has_loops_and_scopes(data) else None
    mod = optimize_module(mod, speed_level(opt_level), path)
    if unoptimized is not None:
        from reconverge.lowering.frontend.removed_loops import removed_loops, source_loops
        loops = source_loops(unoptimized)
        mod.removed_loops = removed_loops(unoptimized, str(mod), loops)
        mod.unoptimized_loops = loops.kept
    return mod


def _has_loops_and_scopes(data: bytes) -> bool:
    """Whether an .ll or .bc input may hold a source loop the optimiser could remove from around a
    convergent call (lowering.frontend.removed_loops): debug information and a sub-group or work-group
    built-in or barrier (in bitcode too: its module flags' names and its symbol names are stored as text)."""
    return b"Debug Info Version" in data and \
        any(word in data for word in (b"sub_group", b"work_group", b"barrier"))


# a kernel's definition in clang's text: spir_kernel among the words before its name (llvm_module.is_spir_kernel)
_KERNEL_DEFINITION = re.compile(r"^define [^@\n]*\bspir_kernel\b", re.M)
# a call to a sub-group or barrier built-in, and its debug location (SPIR mangled names)
_CONVERGENT_CALL = lazy_compile(r"call [^\n]*@_Z\w*(?:sub_group|barrier)\w*\([^\n]*!dbg !(\d+)")


def _lexical_scopes(build_options: tuple[str, ...]) -> bool:
    """Whether clang's options ask for debug information with lexical blocks (-g, -g2, -gdwarf-5, ...; not
    -g0 or the line-table-only forms)."""
    return any(o.startswith("-g") and not o.startswith(("-g0", "-gline-", "-gno-")) for o in build_options)


# SimplifyCFG keeps every loop's header (its `keep-loops`, which the pipeline's late runs turn off): with
# -g above -O0 the source's loops decide where lanes meet, and without it SimplifyCFG folds the empty
# header of an outer loop whose body starts with an inner loop into that loop, one CFG loop of two source
# loops; lowering.frontend.loop_separation splits the shapes it can tell apart, but not an inner loop
# whose back edge is unconditional or written beside its operation, nor a nest inside a macro (redteam2
# s04, s09, s15, s16, s17: silent wrong answers)
CANONICAL_LOOPS = ("-mllvm", "-keep-loops=true")
# LLVM passes that merge a loop's passes where a convergent operation sits on its break path
# (lowering.frontend.removed_loops): full unrolling (every pass's exit shares one block), IndVarSimplify's
# exit predication (the pass a lane leaves in becomes a test before the loop) and rotation (a copy of the
# loop's first exit test before the loop, whose lanes join the break path)
KEEP_LOOPS = ("-fno-unroll-loops", "-mllvm", "-indvars-predicate-loops=0", "-mllvm", "-rotation-max-header-size=0")


def _keep_source_loops(module, path: str, opt_level: str, build_options: tuple[str, ...], source: bytes | None):
    """clang's module for `path`, with `removed_loops` set: the source loops around a convergent call that
    the optimiser removed (lowering.frontend.removed_loops). Where a loop holds a convergent call on its
    break path whose lanes can leave in different passes, the file is compiled again without the passes
    of KEEP_LOOPS; a loop removed even so (LoopDeletion of a loop whose one exit's count SCEV knows) stays
    in `removed_loops`, and a kernel with an operation in it is refused (convergence.apply)."""
    from reconverge.lowering.frontend.clang import run_clang
    from reconverge.lowering.frontend.removed_loops import removed_loops, source_loops
    from reconverge.lowering.frontend.text_module import TextModule
    unoptimized = run_clang(path, opt_level, (*build_options, "-Xclang", "-disable-llvm-passes"),
                            source=source).llvm_text
    loops = source_loops(unoptimized)
    if loops.risky:
        options = (*build_options, *(KEEP_LOOPS[1:] if "-fno-unroll-loops" in build_options else KEEP_LOOPS))
        module = TextModule(run_clang(path, opt_level, options, source=source).llvm_text, path)
        module.removed_loops = removed_loops(unoptimized, module.text, loops)
    module.unoptimized_loops = loops.kept       # (for lowering.frontend.loop_separation)
    return module


def unrolled_convergent_calls(llvm_text: str) -> bool:
    """Whether clang duplicated a sub-group operation or barrier with its location (unrolled a loop around
    it). Under -g's scopes the source's loops decide where lanes meet, and a fully unrolled loop is gone:
    where LLVM had first merged a do/while into its outer loop (seed 004's shape with constant trip
    counts), the copies meet lanes of different outer iterations and no loop is left to separate (fuzz
    convergence-14008). Such a file is compiled again with -fno-unroll-loops, so the loops stay for
    lowering.frontend.loop_separation and the scopes rule; a file whose convergent calls LLVM did not copy
    keeps clang's code."""
    seen: set[str] = set()
    for m in _CONVERGENT_CALL.finditer(llvm_text):
        if m.group(1) in seen:
            return True
        seen.add(m.group(1))
    return False


def speed_level(opt_level: str) -> int:
    """LLVM's speed level of a command-line level: -Os and -Oz optimise as -O2 (clang's own rule: they are
    -O2's pipeline with size-minded tuning, which only clang applies)."""
    return 2 if opt_level in ("-Os", "-Oz") else int(opt_level[2:])


def file_head(path: str) -> bytes | None:
    """The first bytes of a file whose extension does not say its kind (None when it cannot be read)."""
    try:
        with open(path, "rb") as f:
            return f.read(1 << 16)
    except OSError:
        return None
