"""Loading LLVM modules (text, bitcode, llvmlite.ir) and preparing them for the reader.

llvmlite is imported by the functions that need LLVM itself, not by this module: a compile of OpenCL C
reads clang's text as a text_module.TextModule and, unless a kernel calls a defined function, never
loads it (its import alone was about 0.05 CPU s of a 0.33 s one-kernel compile).

Preparation inlines every call to a defined function, so that each kernel is one function, and does
nothing else: -O0 code keeps its allocas and clang's control flow. Inlining is done by LLVM's always-
inliner after `noinline`/`optnone` are rewritten to `alwaysinline` in the module text (llvmlite pass
managers silently skip `optnone` functions, and the always-inliner only takes `alwaysinline` callees).
"""
from __future__ import annotations

import re

from reconverge.lazy_regex import lazy_compile
from reconverge.lowering.errors import CompileError

TYPE_CHECKING = False                   # not typing's: a compile's start-up does not import typing
if TYPE_CHECKING:
    from typing import Callable, Iterator

    import llvmlite.binding as llvm

_NOT_NAME = r"[\w.$%@\"-]"
_NOINLINE = lazy_compile(rf"(?<!{_NOT_NAME})(?:noinline|optnone)(?!{_NOT_NAME})")
KERNEL_TWIN = "__clang_ocl_kern_imp_"
_initialized = False
_context_owning_module: type | None = None


def _context_owning_class() -> type:
    """llvm.ModuleRef's subclass for a module parsed into its own LLVM context, which it disposes right
    after itself (made on first use: llvmlite is imported only when needed).

    A private context keeps struct names as written (the global context renames a second %struct.S to
    %struct.S.0). The context must die after the module, and when both are garbage in one cycle Python
    may finalize them in either order, so the context is detached and disposed here instead."""
    global _context_owning_module
    if _context_owning_module is None:
        import llvmlite.binding as llvm

        class ContextOwningModule(llvm.ModuleRef):
            def _dispose(self):
                super()._dispose()
                llvm.ffi.lib.LLVMPY_ContextDispose(self._owned_context)

        _context_owning_module = ContextOwningModule
    return _context_owning_module


def _parse_in_own_context(parse, data) -> llvm.ModuleRef:
    import llvmlite.binding as llvm
    ctx = llvm.create_context()
    try:
        mod = parse(data, ctx)
    except Exception:
        ctx.close()
        raise
    mod._owned_context = ctx._ptr
    ctx.detach()
    mod.__class__ = _context_owning_class()
    return mod


def _init() -> None:
    import llvmlite.binding as llvm
    global _initialized
    if not _initialized:
        llvm.initialize_native_target()
        llvm.initialize_native_asmprinter()
        # LLVM's reader verifies a module with current debug info as it upgrades it (AutoUpgrade.cpp,
        # UpgradeDebugInfo) and aborts the process on one it finds broken ("Broken module found,
        # compilation aborted!"): skip that, so that the verify below reports it in one line
        llvm.set_option("", "-disable-auto-upgrade-debug-info")
        _initialized = True


def _llvm_error(source_name: str, err: Exception) -> CompileError:
    """'<string>:12:5: error: msg' (llvmlite's text) -> 'FILE: line 12: msg'."""
    text = str(err)
    m = re.search(r"<string>:(\d+):(\d+): error: ([^\n]*)", text)
    if m:
        return CompileError(f"{source_name}: line {m.group(1)}: {m.group(3)}")
    lines = [ln for ln in text.splitlines() if ln.strip() and "parsing error" not in ln]
    return CompileError(f"{source_name}: {lines[0] if lines else text}")


_STRING_OR_COMMENT = lazy_compile(r'"[^"]*"|;[^\n]*')


def make_inlinable(text: str) -> str:
    """Rewrite noinline/optnone (attribute groups, define lines, call sites) to alwaysinline.

    Only LLVM's own tokens are rewritten: string constants, quoted names and comments are copied as
    they are (an LLVM string cannot contain a raw '"', it writes \\22). Line structure is preserved,
    so parse errors still point at the user's line numbers."""
    if "noinline" not in text and "optnone" not in text:
        return text                      # nothing to rewrite (the scan below costs a second per 100k blocks)
    out, pos = [], 0
    for skipped in _STRING_OR_COMMENT.finditer(text):
        out.append(_rewrite_attributes(text[pos:skipped.start()]))
        out.append(skipped.group())
        pos = skipped.end()
    out.append(_rewrite_attributes(text[pos:]))
    return "".join(out)


def _rewrite_attributes(code: str) -> str:
    code = _NOINLINE.sub(lambda m: "alwaysinline" if m.group() == "noinline" else "", code)
    # a group that already said alwaysinline now says it twice: harmless for the parser, but keep it tidy
    return re.sub(r"\balwaysinline(\s+alwaysinline)+\b", "alwaysinline", code)


def parse_llvm_text(text: str, source_name: str = "<ir>") -> llvm.ModuleRef:
    """Parse and verify LLVM IR text; errors become one-line CompileErrors naming the line."""
    import llvmlite.binding as llvm
    _init()
    try:
        mod = _parse_in_own_context(llvm.parse_assembly, text)
    except RuntimeError as err:
        raise _llvm_error(source_name, err) from None
    _verified(mod, source_name, "!llvm.dbg.cu" in text)
    mod.name = source_name
    return mod


def _verified(mod: llvm.ModuleRef, source_name: str, debug_info: bool) -> None:
    """LLVM's verifier on a parsed module: its first complaint (its message and the instruction it names,
    where it does) as a one-line CompileError. With debug info, in a forked child: the verifier asserts on
    some malformed debug-info nodes (a lexical block whose scope is a type: llvm::cast<DILocalScope>) and
    would abort the process (tools/input_fuzz.py, case 1056)."""
    def complaint() -> bytes:
        try:
            mod.verify()
            return b"-"
        except RuntimeError as err:
            return _first_complaint(err).encode()
    found = _in_child(complaint) if debug_info else complaint()
    if found is None:
        raise CompileError(f"{source_name}: invalid module: LLVM's verifier crashed on its debug info")
    if found != b"-":
        raise CompileError(f"{source_name}: invalid module: {found.decode(errors='replace')}")


def _first_complaint(err: RuntimeError) -> str:
    """The verifier's first complaint in one line: its message and the instruction it names, where it
    does."""
    first = [line.strip() for line in str(err).splitlines() if line.strip()][:2]
    return " ".join(first) or "rejected by the verifier"


def parse_llvm_bitcode(data: bytes, source_name: str = "<bitcode>") -> llvm.ModuleRef:
    import llvmlite.binding as llvm
    _init()
    try:
        mod = _parse_in_own_context(llvm.parse_bitcode, data)
    except RuntimeError as err:
        raise CompileError(f"{source_name}: not valid LLVM bitcode: "
                           f"{' '.join(str(err).replace('LLVM bitcode parsing error', '').split())}") from None
    return parse_llvm_text(str(mod), source_name)


def from_llvmlite_ir(module, source_name: str | None = None) -> llvm.ModuleRef:
    """An llvmlite.ir.Module (built in Python) -> a parsed ModuleRef."""
    return parse_llvm_text(str(module), source_name or getattr(module, "name", "") or "<llvmlite.ir>")


def prepare_module(mod: llvm.ModuleRef, source_name: str = "<ir>", promote: bool = False,
                   printed: str | None = None) -> llvm.ModuleRef:
    """A copy of `mod` in which every call to a defined function is inlined (idempotent); with `promote`,
    LLVM's SROA then turns allocas into SSA values where it can (for pipelines without our promote).
    `printed`: str(mod), when the caller has printed it already (printing a module costs about as much as
    parsing it). A text_module.TextModule with nothing to inline (nor, with `promote`, an alloca SROA could
    rewrite) stays one: llvmlite is not loaded."""
    text = str(mod) if printed is None else printed
    kernels = find_kernels(mod, text)    # before inlining: the fallback rule needs the call graph
    # (a module an earlier call found nothing to inline in keeps that text: Gen's CFG preparation, after the
    # tree's, does not search the whole text for calls again)
    if not (promote and _sroa_needed(text)) and \
            (getattr(mod, "reconverge_text", None) is text or not _calls_a_definition(text)):
        # nothing to inline: the module is its own prepared form (printing it again, parsing, verifying
        # and running the inliner cost 1.3 CPU s at 100k blocks, for an identical body)
        mod.reconverge_kernels = kernels
        mod.reconverge_text = text
        return mod
    import llvmlite.binding as llvm
    prepared = parse_llvm_text(make_inlinable(text), source_name)
    prepared.reconverge_kernels = kernels
    # what pipeline.load_module found of the source's loops goes with the copy (fuzz convergence-27926: the
    # Gen CFG pipeline's SROA'd copy lost it, and blockIP ran a kernel every other target refused)
    prepared.removed_loops = getattr(mod, "removed_loops", ())
    prepared.unoptimized_loops = getattr(mod, "unoptimized_loops", ())
    for fn in prepared.functions:
        if not fn.is_declaration and "alwaysinline" not in {a.decode() if isinstance(a, bytes) else str(a)
                                                            for a in fn.attributes}:
            fn.add_function_attribute("alwaysinline")
    target = llvm.Target.from_default_triple().create_target_machine()
    builder = llvm.create_pass_builder(target, llvm.create_pipeline_tuning_options(speed_level=0))
    passes = llvm.create_new_module_pass_manager()
    passes.add_always_inliner_pass()
    if promote:
        passes.add_sroa_pass()
    passes.run(prepared, builder)
    return prepared


def _sroa_needed(module_text: str) -> bool:
    """Whether LLVM's SROA might change the module: it rewrites allocas only (SROA.cpp starts from the
    entry block's allocas), and gives up on those sroa_check recognises."""
    if not _ALLOCA.search(module_text):
        return False
    from reconverge.lowering.frontend.sroa_check import sroa_changes_nothing
    return not sroa_changes_nothing(module_text)


def _calls_a_definition(module_text: str) -> bool:
    """Whether any function defined in the printed module is named anywhere but on its own `define`
    line (a call, or its address taken: either way the inliner has something to look at). One pass over
    the text's global names, not one search of the whole text per definition (quadratic in kernels)."""
    defined = {m.group(1) for m in define_matches(DEFINE_NAME, module_text)}
    seen: set[str] = set()
    for name in _GLOBAL_NAME.findall(module_text):
        if name in defined:
            if name in seen:
                return True
            seen.add(name)
    return False


def define_matches(pattern: re.Pattern[str], text: str) -> Iterator[re.Match[str]]:
    """pattern.finditer(text) for a pattern that begins `^define ` (re.M): the same matches, tried only at
    the lines that begin so, found by str.find (the regex tried at every line start of the 100k-block
    kernel's 17 MB of printed text cost 0.06 CPU s a scan, and a read made three)."""
    at = 0 if text.startswith("define ") else -1
    done = 0                                  # where the last match ended: finditer's matches do not overlap
    while True:
        if at < 0:
            newline = text.find("\ndefine ", done)
            if newline < 0:
                return
            at = newline + 1
        if at >= done:
            m = pattern.match(text, at)
            if m is not None:
                yield m
                done = m.end()
        done = max(done, at)
        at = -1


_ALLOCA = lazy_compile(r"=\s*alloca\b")                    # an alloca instruction (or text that looks like one)
DEFINE_NAME = re.compile(r'^define [^\n]*?@("[^"]*"|[-\w.$]+)\(', re.M)   # a function definition's name
_GLOBAL_NAME = re.compile(r'@("[^"]*"|[-\w.$]+)')


def function_header(fn: llvm.ValueRef) -> str:
    """The `define ...` line of a function (llvmlite has no calling-convention accessor)."""
    for line in str(fn).splitlines():
        if line.startswith(("define", "declare")):
            return line
    return ""


def is_spir_kernel(fn: llvm.ValueRef, headers: dict[str, str] | None = None) -> bool:
    head = headers.get(fn.name) if headers is not None else None
    if head is None:
        head = function_header(fn)
    return re.search(r"\bspir_kernel\b", head.split("@", 1)[0]) is not None


_DEFINE = re.compile(r'^define [^\n]*?@("[^"]*"|[-\w.$]+)\(.*$', re.M)


def define_lines(module_text: str) -> dict[str, str]:
    """Each defined function's `define` line in a printed module, by name (printing a function to read its
    header prints its whole body)."""
    out = {}
    for m in define_matches(_DEFINE, module_text):
        name = m.group(1)
        if name.startswith('"'):
            name = name[1:-1]
            if "\\" in name:
                continue                 # an escaped name: function_header finds this one
        out[name] = m.group()
    return out


def find_kernels(mod: llvm.ModuleRef, module_text: str | None = None) -> list[str]:
    """Names of the kernels: defined spir_kernel functions, without clang's `__clang_ocl_kern_imp_` twins.

    A module with no spir_kernel function at all (hand-written IR) has as kernels its defined functions
    that no other function calls. Only an externally visible function is an entry point: an internal or
    private one is a helper of the module (inlined where called, dropped if not)."""
    known = getattr(mod, "reconverge_kernels", None)
    if known is not None:
        return list(known)
    defined = [f for f in mod.functions if not f.is_declaration and not f.name.startswith(KERNEL_TWIN)
               and _linkage(f) not in ("internal", "private")]
    headers = define_lines(module_text) if module_text is not None else None
    kernels = [f.name for f in defined if is_spir_kernel(f, headers)]
    if kernels:
        return kernels
    called = set()
    for f in mod.functions:
        for b in f.blocks:
            for ins in b.instructions:
                if ins.opcode == "call":
                    called.add(list(ins.operands)[-1].name)
    return [f.name for f in defined if f.name not in called]


def _linkage(fn) -> str:
    """A function's linkage by LangRef's name: a text module's is one already, llvmlite's an enum member."""
    linkage = fn.linkage
    return linkage if isinstance(linkage, str) else linkage.name


def require_kernels(mod: llvm.ModuleRef, source_name: str, module_text: str | None = None) -> list[str]:
    """find_kernels(mod), or the one error every command gives for a module without kernels."""
    names = find_kernels(mod, module_text)
    if not names:
        raise CompileError(f"{source_name}: no kernels in the module")
    return names


def optimize_module(mod: llvm.ModuleRef, speed_level: int, source_name: str = "") -> llvm.ModuleRef:
    """Run LLVM's default -O1..-O3 module pipeline (as `opt -O<n>` would) on a parsed module, in place
    (a module with convergence tokens: on a copy, returned).

    For .ll/.bc input, so that `-O2` means the same thing it means for OpenCL C (where clang runs it).
    With convergence tokens the pipeline runs in a forked child: the LLVM that llvmlite ships has its
    assertions on, and its loop deletion aborts the process on a dead loop whose token is used after it
    (LoopUtils.cpp, deleteDeadLoop), which becomes a one-line error here instead. LLVM 22's loop unrolling
    leaves the tokens invalid by its own verifier (an unrolled loop's heart after another convergent call,
    or regions no longer nested: 35 of 60 token programs of fuzz mode `convergence` at -O2), so a token
    module is optimised without it (PipelineTuningOptions' loop_unrolling, the knob clang's
    -fno-unroll-loops sets); the child still verifies, and what else breaks the tokens is a one-line error
    too, rather than LLVM's abort when the module is read again."""
    _init()
    if speed_level:
        if any(f.name.startswith("llvm.experimental.convergence.") for f in mod.functions):
            return _optimized_in_child(mod, speed_level, source_name)
        _run_pipeline(mod, speed_level)
    return mod


def _run_pipeline(mod: llvm.ModuleRef, speed_level: int, unroll: bool = True) -> None:
    import llvmlite.binding as llvm
    target = llvm.Target.from_default_triple().create_target_machine()
    tuning = llvm.create_pipeline_tuning_options(speed_level=speed_level)
    tuning.loop_unrolling = unroll
    builder = llvm.create_pass_builder(target, tuning)
    builder.getModulePassManager().run(mod, builder)


def _optimized_in_child(mod: llvm.ModuleRef, speed_level: int, source_name: str) -> llvm.ModuleRef:
    def optimise() -> bytes:                     # the bitcode, or the verifier's first line
        _run_pipeline(mod, speed_level, unroll=False)
        try:
            mod.verify()
            return b"B" + mod.as_bitcode()
        except RuntimeError as err:
            return b"E" + _first_complaint(err).encode()
    reply = _in_child(optimise)
    if reply is None:
        raise CompileError(f"{source_name or '<ir>'}: LLVM's -O{speed_level} pipeline crashed on this module's "
                           f"convergence tokens (a dead loop whose token is used after it?): compile it at -O0")
    if reply[:1] == b"E":
        raise CompileError(f"{source_name or '<ir>'}: LLVM's -O{speed_level} pipeline left the convergence-control "
                           f"tokens invalid ({reply[1:].decode(errors='replace')}): an LLVM bug; run it at -O0")
    import llvmlite.binding as llvm
    return llvm.parse_bitcode(reply[1:])


def _in_child(work: Callable[[], bytes]) -> bytes | None:
    """`work`'s bytes, computed in a forked child; None where the child died first (an LLVM assertion:
    the LLVM that llvmlite ships has them on, and one aborts the whole process). The child's stderr is
    silenced: the caller reports the crash in one line, without LLVM's text."""
    import os

    from reconverge.lowering.child_process import die_with_parent
    read_end, write_end = os.pipe()
    parent = os.getpid()
    pid = os.fork()
    if pid == 0:
        try:
            os.close(read_end)
            die_with_parent(parent)
            import faulthandler
            faulthandler.disable()
            os.dup2(os.open(os.devnull, os.O_WRONLY), 2)
            reply = work()
            with os.fdopen(write_end, "wb") as out:
                out.write(reply)
        finally:
            os._exit(0)
    os.close(write_end)
    chunks = []
    with os.fdopen(read_end, "rb") as pipe:
        while chunk := pipe.read(1 << 20):
            chunks.append(chunk)
    _, status = os.waitpid(pid, 0)
    return None if os.WIFSIGNALED(status) or not chunks else b"".join(chunks)


def target_data(mod: llvm.ModuleRef):
    """The module's own data layout (sizes and alignments as its target sees them)."""
    import llvmlite.binding as llvm
    return llvm.create_target_data(mod.data_layout)
