"""Execution oracle: run a kernel's original LLVM IR on the host CPU with llvmlite's MCJIT.

Over 600 lines: compiling, guarding buffers and the sequential and threaded launches are one run
(the builtin library's source is in oracle_builtins.py).

The structurizer's output is checked against this.  The spir64 module is retargeted to the host by small,
anchored text rewrites (drop the target lines and the spir_kernel/spir_func calling conventions; address
spaces are kept, x86 treats 1..4 as the flat space).  The OpenCL builtins clang leaves as mangled calls are
defined by a library written in OpenCL C (generated below, compiled by the same clang-22 for spir64, so its
mangled names match the kernels' by construction) and linked into each kernel module.

Work-items and barriers.  Every work-item function reads the calling thread's own state array (global,
local and group ids, sizes), found with libc's `pthread_getspecific` under a key the host creates, so
the same machine code serves one thread or many.  A kernel that never calls a barrier runs its
work-items one after another on the calling thread, group by group (fast, and exact: nothing can
observe the order).  A kernel that may call one (`barrier`, `work_group_barrier`) runs each work-group's
items each on its own OS thread (ctypes releases the GIL during the call), groups one after another;
the barrier built-in calls back into a Python barrier shared by the group's threads.  A barrier that
only some items of a group reach (the others returned) or that items reach a different number of times
is an OracleError naming the group, never a deadlock.  Atomics are real atomic instructions (clang's
`__atomic`/`__opencl_atomic` builtins in the library), so contending threads are exact too.

Memory.  Every buffer argument is copied into its own mapping placed so that the buffer's last byte
touches an unmapped 256 KiB guard region, with another one before the page holding its start; the rest
of that page, before the start, holds a canary; the results are copied back after the run.  An access
past the end (up to 256 KiB) faults instead of reading or writing host memory, and so does one before
the start by more than the rest of its page; a write into that rest changes the canary, an error after
the run.  `__local T *` parameters (a LocalArg) and kernel-scope `__local` arrays (oracle_local.py) get
such a block too, zeroed for each work-group, and every private variable (an alloca) a guarded slot in its
work-item's own arena (oracle_private.py).  A read of a canary is seen by a second launch with another
canary pattern, which must answer the same (not a threaded launch with atomics, whose order may change).
`run --target llvm` runs in a child process, so a fault is a one-line error.
"""
from __future__ import annotations

import collections
import ctypes
import hashlib
import os
import re
import tempfile
import threading

import llvmlite.binding as llvm
import numpy as np

from reconverge.lowering import child_process
from reconverge.lowering.frontend.llvm_module import KERNEL_TWIN
from reconverge.lowering.ndrange import ndrange
from reconverge.tools.targets import oracle_private as private
from reconverge.tools.targets import oracle_subgroups as subgroups
from reconverge.tools.targets.oracle_builtins import (  # the work-item state array's slots, which the library reads
    _DIM,
    _GID,
    _GRP,
    _GSZ,
    _LID,
    _LSZ,
    _NGR,
    _OFF,
    _SGS,
    builtin_library_source,
)
from reconverge.tools.targets.oracle_guards import PAGE, GuardedMapping
from reconverge.tools.targets.oracle_local import guard_local_globals
from reconverge.tools.targets.oracle_sites import SiteError, Sites, instrument, without_tokens

CLANG = os.environ.get("RECONVERGE_CLANG", "clang-22")


class OracleError(RuntimeError):
    """The oracle cannot run this kernel (unknown builtin, bad arguments, unsupported signature)."""


class OutOfBounds(OracleError):
    """An out-of-bounds access the reference saw: a write before the start of a buffer, a __local block,
    a __constant table or a private variable (its canary changed), or results that change with the
    canaries (a read of them); an access past the end faults instead, which kills the (child) process."""


_lib_lock = threading.Lock()
_lib_ir: str | None = None


def builtin_library_ir() -> str:
    """The library compiled by clang-22 to spir64 LLVM IR; cached on disk by source hash (it takes ~1 s)."""
    global _lib_ir
    with _lib_lock:
        if _lib_ir is not None:
            return _lib_ir
        src = (builtin_library_source() + subgroups.sub_group_library_source()
               + private.library_source("__oracle_state()"))
        key = hashlib.sha256((src + CLANG).encode()).hexdigest()[:16]
        cache = os.path.join(tempfile.gettempdir(), f"reconverge-oracle-lib-{os.getuid()}-{key}.ll")
        if os.path.exists(cache):
            with open(cache, encoding="utf-8") as f:
                _lib_ir = f.read()
            return _lib_ir
        # the source on stdin, the IR on stdout: no temporary file to leave behind if we are killed
        proc = child_process.run([CLANG, "-x", "cl", "-cl-std=CL3.0", "-fno-builtin", "-target", "spir64",
                                  "-emit-llvm", "-S", "-O2", "-o", "-", "-"], input=src, capture_output=True,
                                 text=True)
        if proc.returncode != 0:
            raise OracleError("compiling the builtin library failed: " + proc.stderr[:2000])
        _lib_ir = proc.stdout
        _save_cache(cache, _lib_ir)
        return _lib_ir


def _save_cache(path: str, text: str) -> None:
    """Write the cache file whole or not at all, even if we are killed meanwhile: the data goes into an
    unnamed file (O_TMPFILE, gone with us) that is given its name only once complete. Where the file
    system cannot name such a file (linkat through /proc fails with EXDEV in some sandboxes), a file
    named after our process id is renamed into place instead (killed meanwhile, it stays behind)."""
    try:
        fd = os.open(os.path.dirname(path), os.O_TMPFILE | os.O_WRONLY, 0o644)
    except (OSError, AttributeError):
        fd = -1
    if fd >= 0:
        try:
            data = text.encode()
            while data:
                data = data[os.write(fd, data):]
            os.link(f"/proc/self/fd/{fd}", path)
            return
        except FileExistsError:                 # another process saved it first
            return
        except OSError:                         # no room, or no naming through /proc: try a rename
            pass
        finally:
            os.close(fd)
    partial = f"{path}.{os.getpid()}.partial"
    try:
        with open(partial, "x", encoding="utf-8") as f:
            f.write(text)
        os.replace(partial, path)
    except OSError:                             # no room or no permission: no cache
        try:
            os.unlink(partial)
        except OSError:
            pass


# ---------------------------------------------------------------------------------------------------------
# Retargeting and compiling.

_TARGET_LINE = re.compile(r"^target (?:datalayout|triple) = \"[^\"]*\"[ \t]*$", re.M)
_SPIR_CC = re.compile(r"(?<![\w.$\"@%!])spir_(?:kernel|func)(?=\s)")

_initialised = False
_target_machine = None


def _new_target_machine():
    """A generic CPU with no FMA: llvm.fmuladd then never fuses, so results do not depend on the host.

    Each execution engine needs its own: MCJIT takes ownership of the target machine it is given and
    frees it with the engine (llvmlite's create_mcjit_compiler sets `_owned`), so a shared one would
    dangle once an engine is evicted from the cache.  Codegen at opt=0 (fast instruction selection and
    register allocation): a 100000-block generated function compiles in ~15 s instead of ~7 minutes."""
    target = llvm.Target.from_triple(llvm.get_process_triple())
    return target.create_target_machine(cpu="x86-64" if "x86_64" in llvm.get_process_triple() else "",
                                        features="", opt=0, reloc="default", codemodel="jitdefault")


def _init_llvm():
    global _initialised, _target_machine
    if not _initialised:
        llvm.initialize_native_target()
        llvm.initialize_native_asmprinter()
        _target_machine = _new_target_machine()    # for data layouts only; never given to an engine
        _initialised = True
    return _target_machine


def retarget_to_host(ir_text: str) -> str:
    """spir64 module text -> host module text (target lines and SPIR calling conventions removed)."""
    return _SPIR_CC.sub("", _TARGET_LINE.sub("", ir_text))


def _set_host(mod, tm) -> None:
    mod.triple = llvm.get_process_triple()
    mod.data_layout = str(tm.target_data)


class _Library:
    """The builtin library split into one text chunk per function, so a kernel links only what it calls.

    Parsing all ~3000 definitions for every kernel costs 0.3 s; a closure of a few chunks costs almost nothing."""

    _DEFINE = re.compile(r"^define [^@]*@([\w.$]+)\(")
    _REF = re.compile(r"@([\w.$]+)")

    def __init__(self, text: str):
        self.chunks: dict[str, str] = {}
        rest: list[str] = []
        lines = text.splitlines()
        i = 0
        while i < len(lines):
            m = self._DEFINE.match(lines[i])
            if m:
                j = lines.index("}", i)
                self.chunks[m.group(1)] = "\n".join(lines[i:j + 1])
                i = j + 1
                continue
            if not lines[i].startswith(("source_filename", "; ")):
                rest.append(lines[i])
            i += 1
        self.rest = "\n".join(rest)
        self.calls = {name: {r for r in self._REF.findall(body) if r in self.chunks and r != name}
                      for name, body in self.chunks.items()}

    def module_text_for(self, names: set[str]) -> str:
        todo, seen = [n for n in names if n in self.chunks], set()
        while todo:
            n = todo.pop()
            if n not in seen:
                seen.add(n)
                todo.extend(self.calls[n] - seen)
        return self.rest + "\n" + "\n\n".join(self.chunks[n] for n in sorted(seen)) + "\n"


_library: _Library | None = None


def _get_library() -> _Library:
    global _library
    with _lib_lock:
        lib = _library
    if lib is None:
        lib = _Library(retarget_to_host(builtin_library_ir()))
        with _lib_lock:
            _library = lib
    return lib


# On a CPU without F16C, LLVM converts half floats through compiler-rt's helpers, which MCJIT does not
# link by itself (a call to one jumped to address 0): libgcc_s (GCC 12+) has them with the same ABI.
_HALF_RUNTIME = ("__extendhfsf2", "__extendhfdf2", "__truncsfhf2", "__truncdfhf2")
_half_runtime_added = False


def _add_half_runtime() -> None:
    global _half_runtime_added
    with _lib_lock:
        if _half_runtime_added:
            return
        try:
            libgcc = ctypes.CDLL("libgcc_s.so.1")
        except OSError:
            libgcc = None
        for name in _HALF_RUNTIME:
            address = ctypes.cast(getattr(libgcc, name), ctypes.c_void_p).value if libgcc is not None and \
                hasattr(libgcc, name) else None
            if address:
                llvm.add_symbol(name, address)
        _half_runtime_added = True


_libc = ctypes.CDLL(None, use_errno=True)
_libc.pthread_setspecific.argtypes = [ctypes.c_uint, ctypes.c_void_p]
_state_key: int | None = None
_BARRIER_CALLBACK = ctypes.CFUNCTYPE(None)
_barrier_local = threading.local()       # .group: the GroupBarrier of the work-item on this thread


def _key() -> int:
    """The process's pthread key under which each thread keeps its work-item state array."""
    global _state_key
    with _lib_lock:
        if _state_key is None:
            key = ctypes.c_uint()
            if _libc.pthread_key_create(ctypes.byref(key), None) != 0:
                raise OracleError("cannot create a thread-specific key for the work-item state")
            _state_key = key.value
        return _state_key


def _barrier_entry() -> None:
    group = getattr(_barrier_local, "group", None)
    if group is not None:
        group.wait(_barrier_local.position)


_barrier_callback = _BARRIER_CALLBACK(_barrier_entry)     # kept alive for the process's lifetime
_SUBGROUP_CALLBACK = ctypes.CFUNCTYPE(None, ctypes.c_uint, ctypes.c_uint, ctypes.c_uint, ctypes.c_void_p,
                                      ctypes.c_void_p, ctypes.c_uint)


def _subgroup_entry(code: int, type_: int, count: int, operand: int, out: int, arg: int) -> None:
    """A lane's cross-lane sub-group built-in: wait in its sub-group's meeting (oracle_subgroups.py)."""
    group = getattr(_barrier_local, "group", None)
    if group is None:                   # only threaded launches call it (the module is instrumented)
        return
    try:
        _, dtype = subgroups.decode(code, type_)
        value = subgroups.read_operand(operand, dtype, count)
        key = subgroups.lane_key(_barrier_local.state, group.sites)
        arrival = subgroups.Arrival(_barrier_local.position[1], key, code, value, arg, out, dtype, count)
    except Exception as e:             # an exception must not vanish inside a ctypes callback
        group.fail_now(f"the sub-group model failed: {type(e).__name__}: {e}")
        return
    group.subgroup(_barrier_local.position[0], arrival)


_subgroup_callback = _SUBGROUP_CALLBACK(_subgroup_entry)
_BARRIER_FUNCTIONS = ("_Z7barrierj", "_Z18work_group_barrierj", "_Z18work_group_barrierj12memory_scope")


def _calls(mod) -> dict[str, set[str]]:
    """Direct callees of every function defined in the module."""
    graph: dict[str, set[str]] = {}
    for fn in mod.functions:
        if fn.is_declaration:
            continue
        callees = graph.setdefault(fn.name, set())
        for block in fn.blocks:
            for ins in block.instructions:
                if ins.opcode in ("call", "invoke"):
                    operands = list(ins.operands)
                    if operands and operands[-1].name:
                        callees.add(operands[-1].name)
    return graph


def _reachable(graph: dict[str, set[str]], root: str) -> set[str]:
    seen, todo = set(), [root]
    while todo:
        name = todo.pop()
        if name not in seen:
            seen.add(name)
            todo.extend(graph.get(name, ()))
    return seen


def _trap_stub(fn) -> str:
    """A definition of an unresolved declaration that no kernel run here reaches: it traps if called."""
    head = next(line for line in str(fn).splitlines() if line.startswith("declare "))
    head = re.sub(r"\s#\d+\s*$", "", head).replace("declare ", "define ", 1)
    return head + " {\n  call void @llvm.trap()\n  unreachable\n}\n"


class _Compiled:
    """One JIT-compiled kernel module."""

    def __init__(self, ir_text: str, kernel: str | None = None):
        tm = _init_llvm()
        text = retarget_to_host(ir_text)
        try:
            keyed = instrument(text)
        except SiteError as e:
            raise OracleError(f"{e}: the llvm reference cannot tell which lanes run its sub-group operations "
                              f"together; use --target ir") from None
        self.sites: Sites | None = keyed[1] if keyed else None
        text, allocas = private.guard_allocas(without_tokens(keyed[0] if keyed else text))
        text, local_globals = guard_local_globals(text)
        try:
            mod = llvm.parse_assembly(text)
            if kernel is not None:
                mod = _without_unreachable_targets(mod, text, kernel)
            mod.verify()
        except RuntimeError as e:
            raise OracleError(f"the kernel module does not parse or verify: {str(e).strip()}") from None
        _set_host(mod, tm)
        # the module's own blocks by space ("local", "constant", "global"): (source name, its block)
        self.module_blocks: dict[str, list[tuple[str, _GuardedBuffer]]] = {"local": [], "constant": [], "global": []}
        initialised: list[tuple[str, _GuardedBuffer]] = []
        for g in local_globals:
            typed = mod.get_global_variable(g.initial or g.symbol).global_value_type
            block = _GuardedBuffer(np.zeros(tm.target_data.get_abi_size(typed), np.uint8), 0, g.align)
            llvm.add_symbol(g.symbol, block.address)
            self.module_blocks[g.space].append((g.name, block))
            if g.initial:
                initialised.append((g.initial, block))
        library = _get_library()
        self.calls = _calls(mod)
        declared = {f.name for f in mod.functions if f.is_declaration and not f.name.startswith("llvm.")}
        self.unresolved = {n for n in declared if n not in library.chunks and not llvm.address_of_symbol(n)}
        self.uses_barrier = bool(declared & set(_BARRIER_FUNCTIONS))
        lib = llvm.parse_assembly(library.module_text_for(declared | {"_Z13get_global_idj"}))
        _set_host(lib, tm)
        mod.link_in(lib)
        if self.unresolved:           # only a kernel that reaches one is refused (see function())
            stubs = "declare void @llvm.trap()\n" + "".join(
                _trap_stub(mod.get_function(n)) for n in sorted(self.unresolved))
            stub_mod = llvm.parse_assembly(stubs)
            _set_host(stub_mod, tm)
            mod.link_in(stub_mod)
        llvm.add_symbol("__oracle_barrier", ctypes.cast(_barrier_callback, ctypes.c_void_p).value)
        llvm.add_symbol("__oracle_subgroup", ctypes.cast(_subgroup_callback, ctypes.c_void_p).value)
        _add_half_runtime()
        self.engine = llvm.create_mcjit_compiler(mod, _new_target_machine())
        self.engine.finalize_object()
        # (initial bytes' address, block) of each table and program-scope variable: copied in at each launch
        self.initial_bytes = [(self.engine.get_global_value_address(initial), block) for initial, block in initialised]
        self.mod = mod
        key_addr = self.engine.get_global_value_address("__oracle_key")
        ctypes.c_uint.from_address(key_addr).value = _key()
        self.private: private.PrivateLayout | None = None
        if allocas.aligns:
            sizes = (ctypes.c_uint64 * len(allocas.aligns)).from_address(
                self.engine.get_global_value_address(private.SIZES))
            self.private = private.PrivateLayout(list(sizes), allocas.aligns, allocas.where)
        self._funcs: dict[str, tuple] = {}
        self.lock = threading.Lock()

    def function(self, name: str):
        if name not in self._funcs:
            try:
                fn = self.mod.get_function(name)
            except NameError:
                raise OracleError(f"no function @{name} in the module") from None
            twin = _kernel_twin(self.mod, name)      # the code the compiler reads, where clang wrote one
            fn = fn if twin is None else twin
            code = fn.name
            if fn.is_declaration:
                raise OracleError(f"@{name} is only declared in the module")
            missing = sorted(self.unresolved & _reachable(self.calls, code))
            if missing:
                raise OracleError(f"no definition for external function(s): {', '.join(missing)}")
            why = self.sites.refused if self.sites is not None else {}
            refused = sorted(set(why) & _reachable(self.calls, code))
            if refused:
                raise OracleError(f"{why[refused[0]]}: the llvm reference cannot tell which lanes run its "
                                  f"sub-group operations together; use --target ir")
            params = [_param_of(str(a.type), name) for a in fn.arguments]
            proto = ctypes.CFUNCTYPE(None, *[c for c, _ in params])
            self._funcs[name] = (proto(self.engine.get_function_address(code)), params)
        return self._funcs[name]


_SCALAR_CTYPES = {"i8": ctypes.c_int8, "i16": ctypes.c_int16, "i32": ctypes.c_int32, "i64": ctypes.c_int64,
                  "float": ctypes.c_float, "double": ctypes.c_double}


def _param_of(llvm_type: str, kernel: str) -> tuple:
    """(ctypes type, address space or None) of a kernel parameter."""
    if llvm_type == "ptr":
        return ctypes.c_void_p, 0
    if llvm_type.startswith("ptr addrspace("):
        return ctypes.c_void_p, int(llvm_type[len("ptr addrspace("):-1])
    if llvm_type in _SCALAR_CTYPES:
        return _SCALAR_CTYPES[llvm_type], None
    raise OracleError(f"@{kernel}: parameter type {llvm_type} is not supported by the oracle")


_cache: "collections.OrderedDict[str, _Compiled]" = collections.OrderedDict()
_cache_lock = threading.Lock()
CACHE_SIZE = 128   # engines kept alive; fuzzing thousands of generated kernels must not keep them all


def _kernel_twin(mod, kernel: str):
    """clang 22's `@__clang_ocl_kern_imp_<kernel>`, where it is defined: the kernel's code in clang's own CFG.

    `@kernel` is that twin inlined by clang, and inlining folds branches on constants: an `if` whose test
    clang's front end could not fold (`if (as_int(1u) >= -48) { ...; return; }` in a loop) keeps its
    never-taken edge back into the loop in the twin, so a sub-group operation before the `return` is in
    the loop there, run per iteration, and after the loop in `@kernel`, run with the lanes of every
    iteration. The twin's CFG is the one the compiler reads (llvm_reader.kernel_body), so the reference
    keys its operations by the same loops (fuzz subgroup-70655 at -O0)."""
    try:
        twin = mod.get_function(KERNEL_TWIN + kernel)
    except NameError:
        return None
    return None if twin.is_declaration else twin


def _without_unreachable_targets(mod, text: str, kernel: str):
    """The module without the functions `kernel` cannot reach that use target types (images, samplers,
    `target("spirv.Image")` and the like): the host's code generator cannot lower them at all, and they
    must not stop a kernel that never calls them. They are made internal and LLVM's global dead-code
    elimination removes them (nothing reachable calls them)."""
    try:
        calls = _calls(mod)
        reachable = _reachable(calls, kernel) | _reachable(calls, KERNEL_TWIN + kernel)
    except NameError:
        return mod
    unreachable = [f for f in mod.functions if not f.is_declaration and f.name not in reachable]
    if not any("target(" in str(f) for f in unreachable):
        return mod
    for f in unreachable:
        f.linkage = "internal"
    tm = _init_llvm()
    builder = llvm.create_pass_builder(tm, llvm.create_pipeline_tuning_options(speed_level=0))
    passes = llvm.create_new_module_pass_manager()
    passes.add_global_dead_code_eliminate_pass()
    passes.add_strip_dead_prototype_pass()
    passes.run(mod, builder)
    return mod


def compile_module(llvm_ir: str, kernel: str | None = None) -> _Compiled:
    """JIT-compile (once per distinct IR text and kernel, least recently used first out) and return the
    engine wrapper. With `kernel`, functions it cannot reach that the host cannot compile are left out."""
    key = hashlib.sha256(llvm_ir.encode() + b"\0" + (kernel or "").encode()).hexdigest()
    with _cache_lock:
        if key in _cache:
            _cache.move_to_end(key)
            return _cache[key]
        compiled = _Compiled(llvm_ir, kernel)
        _cache[key] = compiled
        while len(_cache) > CACHE_SIZE:
            _cache.popitem(last=False)
        return compiled


# ---------------------------------------------------------------------------------------------------------
# Arguments: guarded buffers, __local blocks, scalars.

GUARD = 64 * PAGE   # unmapped bytes on each side: an index off by up to 64K dwords lands in them


class _GuardedBuffer:
    """A copy of a numpy buffer between two unmapped guard regions, its last byte touching the second one
    (no slack: rounding the end up to 16 bytes let a write or read of up to 15 bytes past it pass without
    a word). The start is then aligned as far as the size is (a page end minus the size), which is at
    least its elements' alignment: a C type's size is a multiple of its alignment; a module's array whose
    declared alignment is more (`align`) starts that much earlier. The mapped bytes before the start and
    after the end hold a canary (oracle_guards.GuardedMapping). Copied back into the original after the
    run."""

    def __init__(self, array: np.ndarray, pattern: int = 0, align: int = 1):
        self.array = array
        nbytes = array.nbytes
        align = min(max(align, 1), PAGE)
        data = -(-max(nbytes + align - 1, 1) // PAGE) * PAGE
        start = (GUARD + data - nbytes) // align * align     # (the mapping's base is page-aligned)
        try:
            self.mapping = GuardedMapping(data + 2 * GUARD, [(0, GUARD), (GUARD + data, GUARD)],
                                          [(GUARD, start - GUARD), (start + nbytes, GUARD + data - start - nbytes)],
                                          pattern)
        except OSError as exc:
            raise OracleError(str(exc)) from None
        self.address = self.mapping.base + start
        ctypes.memmove(self.address, array.ctypes.data, nbytes)

    def set_canary(self, pattern: int) -> None:
        self.mapping.set_canary(pattern)

    def written_before_start(self) -> bool:
        """Whether the kernel wrote into the mapped bytes before the buffer's start (an index of -1), or
        into the alignment padding after its end."""
        return self.mapping.overwritten() is not None

    def clear(self) -> None:
        """Zero the buffer (a __local block, before each work-group)."""
        ctypes.memset(self.address, 0, self.array.nbytes)

    def contents(self) -> bytes:
        return ctypes.string_at(self.address, self.array.nbytes)

    def close(self) -> None:
        self.mapping.close()


def _is_local_arg(arg) -> bool:
    return hasattr(arg, "nbytes") and hasattr(arg, "count") and not isinstance(arg, np.ndarray)


def _c_value(arg, param, kernel: str, index: int, guards: list, pattern: int = 0):
    ctype, space = param
    if space == 3 and _is_local_arg(arg):
        return None                     # a __local block, filled in per work-group
    if ctype is ctypes.c_void_p:
        if _is_local_arg(arg):
            raise OracleError(f"@{kernel}: argument {index} is a __global/__constant pointer; a __local size "
                              f"was given")
        if not isinstance(arg, np.ndarray):
            raise OracleError(f"@{kernel}: argument {index} is a pointer; pass a numpy array, not {type(arg).__name__}")
        if not arg.flags.c_contiguous or not arg.flags.writeable:
            raise OracleError(f"@{kernel}: argument {index} must be a writable C-contiguous array")
        guard = _GuardedBuffer(arg, pattern)
        guards.append(guard)
        return ctypes.c_void_p(guard.address)
    if isinstance(arg, np.ndarray) and arg.ndim > 0:
        raise OracleError(f"@{kernel}: argument {index} is a scalar, got an array")
    if isinstance(arg, np.generic) and (arg.dtype.itemsize != ctypes.sizeof(ctype)
                                        or (arg.dtype.kind == "f") != (ctype in (ctypes.c_float, ctypes.c_double))):
        raise OracleError(f"@{kernel}: argument {index} is a {ctype.__name__[2:]}, got a numpy {arg.dtype}")
    value = arg.item() if isinstance(arg, (np.generic, np.ndarray)) else arg
    if ctype in (ctypes.c_float, ctypes.c_double):
        return ctype(float(value))
    bits = ctypes.sizeof(ctype) * 8
    value = int(value) & ((1 << bits) - 1)  # unsigned values keep their bit pattern
    if value >= 1 << (bits - 1):
        value -= 1 << bits
    return ctype(value)


DEFAULT_SUBGROUP_SIZE = 16     # as the ir and gen targets


def run_llvm_kernel(llvm_ir: str, kernel: str, args: list, global_size, local_size, global_offset=0,
                    subgroup_size: int = DEFAULT_SUBGROUP_SIZE) -> None:
    """Run `kernel` of the (spir64, clang-made) module over the whole NDRange; buffers are updated in place.

    Without barriers or cross-lane sub-group operations, work-items run one after another: work-group by
    work-group (dimension 0 fastest), and inside each group local id by local id. With them, each group's
    items run on threads. Sub-groups hold `subgroup_size` consecutive linear local ids."""
    if not 1 <= subgroup_size <= 128:
        raise OracleError(f"sub-group size {subgroup_size}: expected 1 to 128 (a ballot holds 128 lanes)")
    compiled = compile_module(llvm_ir, kernel)
    fn, params = compiled.function(kernel)
    if len(args) != len(params):
        raise OracleError(f"@{kernel} takes {len(params)} arguments, {len(args)} given")
    try:
        rng = ndrange(global_size, local_size, global_offset)
    except ValueError as exc:
        raise OracleError(str(exc)) from None
    threaded = compiled.uses_barrier or compiled.sites is not None
    with compiled.lock:
        first = _launch(compiled, fn, params, args, rng, kernel, subgroup_size, threaded, 0)
        # a read outside an object reads the guard bytes around it: a second launch with other guard bytes
        # must answer the same (not where threads may order atomics differently from one launch to the next)
        if not (threaded and _ATOMIC.search(llvm_ir)) and \
                first != _launch(compiled, fn, params, args, rng, kernel, subgroup_size, threaded, 1):
            raise OutOfBounds(f"@{kernel}: the results change with the guard bytes around the buffers, __local "
                              f"memory and private variables: an out-of-bounds read (or a data race)")
    for index, data in first.items():
        ctypes.memmove(args[index].ctypes.data, data, len(data))


_ATOMIC = re.compile(r"\batomicrmw\b|\bcmpxchg\b|@_Z\d+atom|__opencl_atomic|@_Z\d+atomic")


def _launch(compiled: _Compiled, fn, params: list, args: list, rng, kernel: str, subgroup_size: int,
            threaded: bool, pattern: int) -> dict[int, bytes]:
    """One launch over guarded copies of the buffers, with guard bytes of canary `pattern`: each buffer
    argument's bytes after it, by argument index (the arguments are left as they are); a write before an
    object's start is an OutOfBounds error."""
    guards: list[_GuardedBuffer] = []
    arenas = private.Arenas(compiled.private, pattern)
    try:
        c_args = [_c_value(a, p, kernel, i, guards, pattern) for i, (a, p) in enumerate(zip(args, params))]
        local_blocks: list[tuple[int | None, _GuardedBuffer]] = [
            (i, _GuardedBuffer(np.zeros(int(a.nbytes), np.uint8), pattern)) for i, a in enumerate(args)
            if c_args[i] is None]
        guards += [block for _, block in local_blocks]
        for blocks in compiled.module_blocks.values():
            for _, block in blocks:
                block.set_canary(pattern)
        for address, block in compiled.initial_bytes:     # every launch starts from the definitions' bytes
            ctypes.memmove(block.address, address, block.array.nbytes)
        local_blocks += [(None, block) for _, block in compiled.module_blocks["local"]]    # (the module's own)
        if threaded:
            _launch_threaded(fn, c_args, local_blocks, rng, kernel, arenas, subgroup_size, compiled.sites)
        else:
            _launch_sequential(fn, c_args, local_blocks, rng, kernel, arenas, subgroup_size)
        for space, blocks in compiled.module_blocks.items():
            what = {"local": "__local array", "constant": "__constant table", "global": "program-scope variable"}[space]
            for name, block in blocks:
                if block.written_before_start():
                    raise OutOfBounds(f"@{kernel}: a write before the start of {what} {name} (out of bounds)")
        overwritten = arenas.overwritten()
        if overwritten is not None:
            raise OutOfBounds(f"@{kernel}: a write before the start or past the end of private variable "
                              f"{overwritten} (out of bounds)")
        out = {}
        for guard in guards:
            index = next((i for i, a in enumerate(args) if a is guard.array), None)
            if guard.written_before_start():
                what = f"argument {index}'s buffer" if index is not None else "a __local block"
                raise OutOfBounds(f"@{kernel}: a write before the start of {what} (out of bounds)")
            if index is not None:
                out[index] = guard.contents()
        return out
    finally:
        for guard in guards:
            guard.close()
        arenas.close()


def _group_state(rng, group: tuple[int, int, int], subgroup_size: int, loops: int = 0) -> np.ndarray:
    state = np.zeros(subgroups.STATE_SLOTS + loops, np.uint64)
    state[_SGS] = subgroup_size
    state[_GSZ:_GSZ + 3] = rng.global_size
    state[_LSZ:_LSZ + 3] = rng.local_size
    state[_NGR:_NGR + 3] = rng.groups
    state[_OFF:_OFF + 3] = rng.offset
    state[_DIM] = rng.work_dim
    state[_GRP:_GRP + 3] = group
    return state


def _set_item(state: np.ndarray, rng, group, local) -> None:
    state[_LID:_LID + 3] = local
    state[_GID:_GID + 3] = [group[d] * rng.local_size[d] + local[d] + rng.offset[d] for d in range(3)]


def _groups(rng):
    g = rng.groups
    for gz in range(g[2]):
        for gy in range(g[1]):
            for gx in range(g[0]):
                yield gx, gy, gz


def _locals(rng):
    l3 = rng.local_size
    for lz in range(l3[2]):
        for ly in range(l3[1]):
            for lx in range(l3[0]):
                yield lx, ly, lz


def _with_local_blocks(c_args: list, local_blocks: list) -> list:
    """The call arguments with every __local parameter's guarded block, zeroed for the next work-group,
    as are the kernel-scope __local arrays' (groups run one after another; a parameter's block lives as
    long as the launch, an array's as long as its compiled module)."""
    out = list(c_args)
    for index, block in local_blocks:
        block.clear()
        if index is not None:               # (None: a kernel-scope __local array, oracle_local.py)
            out[index] = ctypes.c_void_p(block.address)
    return out


def _launch_sequential(fn, c_args, local_blocks, rng, kernel, arenas, subgroup_size) -> None:
    key = _key()
    for group in _groups(rng):
        state = _group_state(rng, group, subgroup_size)
        arenas.give(state)
        _libc.pthread_setspecific(key, ctypes.c_void_p(state.ctypes.data))
        args = _with_local_blocks(c_args, local_blocks)
        for local in _locals(rng):
            _set_item(state, rng, group, local)
            fn(*args)
    _libc.pthread_setspecific(key, None)


class GroupBarrier:
    """The barrier and the sub-group meetings of one work-group's threads. Every item must reach every
    barrier: an item that returns while others wait (or wait later) makes the group divergent, which is
    reported, never waited on; so is a sub-group whose lanes wait at different operations, or some at a
    sub-group operation and others at the barrier (oracle_subgroups.py)."""

    def __init__(self, size: int, group, subgroup_size: int = DEFAULT_SUBGROUP_SIZE, sites: Sites | None = None):
        self.size, self.group, self.sites = size, group, sites
        self.cond = threading.Condition()
        self.arrived = 0
        self.generation = 0
        self.finished = 0
        self.parked = 0               # threads stopped for good after the group failed
        self.error: str | None = None
        self.meetings = [subgroups.SubGroupMeeting(k, min(subgroup_size, size - k * subgroup_size), self)
                         for k in range(-(-size // subgroup_size))]

    def describe(self, key: tuple) -> str:
        """Where a lane waits, for messages: the call and the loop iterations around it."""
        assert self.sites is not None
        site, iterations = key[-1]
        text = self.sites.where[site]
        every = [i for _, its in key for i in its]
        return text + (f" in loop iteration(s) {', '.join(map(str, every))}" if every else "") + \
            (" (through " + ", ".join(self.sites.where[s] for s, _ in key[:-1]) + ")" if len(key) > 1 else "")

    def fail(self, message: str) -> None:
        if self.error is None:
            self.error = f"work-group {self.group}: {message}"
        self.cond.notify_all()
        for meeting in self.meetings:
            meeting.cond.notify_all()

    def fail_now(self, message: str) -> None:
        with self.cond:
            self.fail(message)
        self.park()

    def park(self) -> None:
        """Stop this thread for good (the group failed): the host returns once every thread has finished
        or parked, so that none still runs the kernel when its buffers go away."""
        with self.cond:
            self.parked += 1
            self.cond.notify_all()
        threading.Event().wait()

    def settled(self) -> bool:
        return self.finished == self.size or (self.error is not None and self.finished + self.parked == self.size)

    def wait(self, position: tuple[int, int]) -> None:
        with self.cond:
            if self.error is None and self.finished:
                self.fail(f"a barrier was reached after {self.finished} of its {self.size} work-items had "
                          f"returned (a barrier in divergent control flow)")
            if self.error is None:
                self.arrived += 1
                generation = self.generation
                if self.arrived == self.size:
                    self.arrived = 0
                    self.generation += 1
                    for meeting in self.meetings:
                        meeting.at_barrier.clear()
                    self.cond.notify_all()
                    return
                meeting = self.meetings[position[0]]
                meeting.at_barrier[position[1]] = \
                    subgroups.lane_key(_barrier_local.state, self.sites) if self.sites is not None else None
                meeting.settle()
                while generation == self.generation and self.error is None:
                    self.cond.wait()
                if self.error is None:
                    return
        self.park()                   # the group is broken: park this thread forever; the host reports

    def subgroup(self, index: int, arrival) -> None:
        with self.cond:
            if self.error is None:
                self.meetings[index].arrive(arrival)
                if self.error is None:
                    return
        self.park()

    def finish(self, position: tuple[int, int] | None = None) -> None:
        with self.cond:
            self.finished += 1
            if self.arrived:
                self.fail(f"{self.arrived} work-item(s) wait at a barrier that {self.finished} other(s) returned "
                          f"without reaching (a barrier in divergent control flow)")
            if position is not None:
                meeting = self.meetings[position[0]]
                meeting.finished.add(position[1])
                meeting.settle()
            self.cond.notify_all()


THREAD_STACK = 512 * 1024     # per work-item thread: what private variables oracle_private leaves on the stack


def _launch_threaded(fn, c_args, local_blocks, rng, kernel, arenas, subgroup_size=DEFAULT_SUBGROUP_SIZE,
                     sites: Sites | None = None) -> None:
    key = _key()
    size = int(np.prod(rng.local_size))
    loops = sites.loop_count if sites is not None else 0
    old_stack = threading.stack_size(THREAD_STACK)
    try:
        for group in _groups(rng):
            barrier = GroupBarrier(size, group, subgroup_size, sites)
            args = _with_local_blocks(c_args, local_blocks)
            states: list[np.ndarray] = []

            def item(state):
                _libc.pthread_setspecific(key, ctypes.c_void_p(state.ctypes.data))
                _barrier_local.group = barrier
                _barrier_local.state = state
                _barrier_local.position = position = subgroups.lane_position(state)
                try:
                    fn(*args)
                finally:
                    barrier.finish(position)

            threads = []
            for local in _locals(rng):
                state = _group_state(rng, group, subgroup_size, loops)
                _set_item(state, rng, group, local)
                arenas.give(state, len(states))
                states.append(state)
                thread = threading.Thread(target=item, args=(state,), daemon=True)
                threads.append(thread)
                thread.start()
            with barrier.cond:
                while not barrier.settled():
                    barrier.cond.wait()
            if barrier.error is not None:
                raise OracleError(f"@{kernel}: {barrier.error}")
            for thread in threads:
                thread.join()
            del states
    finally:
        threading.stack_size(old_stack)
