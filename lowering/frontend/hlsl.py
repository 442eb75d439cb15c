"""LLVM IR written by clang's HLSL front end for Vulkan (`-triple spirv-unknown-vulkan1.3-compute`) -> the
OpenCL flavour the rest of reconverge reads.

An HLSL compute shader arrives as a `void @main()` marked `"hlsl.shader"="compute"` and
`"hlsl.numthreads"="X,Y,Z"`; its ids are `llvm.spv.thread.id` and siblings, its wave operations
`llvm.spv.wave.*` (and `__hlsl_wave_get_lane_index`), its buffers resource handles of type
`target("spirv.VulkanBuffer", [0 x T], 12, rw)` made by `llvm.spv.resource.handlefrombinding(set,
binding, range, index, name)` and addressed by `llvm.spv.resource.getpointer(handle, i)`.

`adapt` rewrites such a module once, right after it is loaded, so that every consumer (our reader, the
kernel ABI, `run`'s argument binding, the llvm reference's JIT) sees an ordinary OpenCL kernel:
- each entry point becomes a `spir_kernel` whose parameters are its buffers, one `__global` pointer per
  (set, binding), ordered by set then binding and named after the HLSL resource; `hlsl.numthreads`
  becomes `!reqd_work_group_size`;
- a handle becomes that pointer, `getpointer(h, i)` a getelementptr of T, addrspace 11 (StorageBuffer)
  addrspace 1;
- every other `llvm.spv.*` call becomes a call of a small internal function defined here in LLVM IR in
  terms of the OpenCL built-in with the same meaning (get_global_id, sub_group_non_uniform_reduce_add,
  sub_group_ballot_bit_count, ...), which the later inlining removes. Where the module uses
  convergence-control tokens, each convergent helper opens with `llvm.experimental.convergence.entry`,
  which LLVM's inliner replaces by the call site's token, so the built-in keeps the token it was given.

Resource handles live in locals and a global at -O0, so the module is first inlined and LLVM's SROA and
GlobalOpt make the bindings constants (neither changes control flow). Anything else HLSL (other
`target("spirv.*")` types: typed buffers, textures, constant buffers; resource arrays; counters; other
intrinsics) is refused in one line naming it.
Facts used: the intrinsic signatures of LLVM 22's IntrinsicsSPIRV.td, the implicit-binding rule of its
SPIRVLegalizeImplicitBinding pass (the smallest binding of the set no explicit resource uses, by order id),
SPIR-V's storage class numbers (StorageBuffer = 12) and the Itanium mangling of OpenCL's built-ins.
"""
from __future__ import annotations

import re
from dataclasses import dataclass

import llvmlite.binding as llvm

from reconverge.lowering.errors import CompileError, NotSupported

PREFIX = "__reconverge.hlsl."
SPIR64_LAYOUT = "e-i64:64-v16:16-v24:32-v32:32-v48:64-v96:128-v192:256-v256:256-v512:512-v1024:1024-n8:16:32:64-G1"
_STORAGE_BUFFER = "12"
_LOCAL_FENCE = 1                                  # CLK_LOCAL_MEM_FENCE: groupshared memory

# work-item ids and sizes: llvm.spv name -> OpenCL built-in (size_t result, optional dimension argument)
_WORKITEM = {"thread.id": "get_global_id", "thread.id.in.group": "get_local_id", "group.id": "get_group_id",
             "flattened.thread.id.in.group": "get_local_linear_id", "num.workgroups": "get_num_groups",
             "workgroup.size": "get_local_size", "global.size": "get_global_size",
             "global.offset": "get_global_offset"}
# sub-group sizes and ids (uint results). Vulkan's SubgroupSize is the full size of every sub-group.
_SUBGROUP_INFO = {"subgroup.size": "get_max_sub_group_size", "subgroup.max.size": "get_max_sub_group_size",
                  "subgroup.id": "get_sub_group_id", "subgroup.local.invocation.id": "get_sub_group_local_id",
                  "num.subgroups": "get_num_sub_groups", "wave.get.lane.count": "get_max_sub_group_size",
                  "wave.get.lane.index": "get_sub_group_local_id"}
# value -> value over the lanes: llvm.spv name -> (OpenCL built-in, signed integer operand?)
_WAVE_VALUE = {"wave.reduce.sum": ("sub_group_non_uniform_reduce_add", False),
               "wave.reduce.max": ("sub_group_non_uniform_reduce_max", True),
               "wave.reduce.umax": ("sub_group_non_uniform_reduce_max", False),
               "wave.reduce.min": ("sub_group_non_uniform_reduce_min", True),
               "wave.reduce.umin": ("sub_group_non_uniform_reduce_min", False),
               "wave.prefix.sum": ("sub_group_non_uniform_scan_exclusive_add", False),
               "wave.prefix.product": ("sub_group_non_uniform_scan_exclusive_mul", False)}
_WAVE_BOOL = {"wave.any": "sub_group_non_uniform_any", "wave.all": "sub_group_non_uniform_all"}
_RESOURCE = ("resource.handlefrombinding", "resource.handlefromimplicitbinding",
             "resource.counterhandlefrombinding", "resource.counterhandlefromimplicitbinding",
             "resource.getpointer")
SUPPORTED = sorted([*_WORKITEM, *_SUBGROUP_INFO, *_WAVE_VALUE, *_WAVE_BOOL, *_RESOURCE, "wave.readlane",
                    "wave.active.countbits", "wave.ballot", "wave.is.first.lane", "subgroup.prefix.bit.count",
                    "group.memory.barrier.with.group.sync"])
_LANE_INDEX_FUNCTION = "__hlsl_wave_get_lane_index"     # clang-22 calls this instead of an intrinsic

_MANGLE = {("i", 8): "c", ("u", 8): "h", ("i", 16): "s", ("u", 16): "t", ("i", 32): "i", ("u", 32): "j",
           ("i", 64): "l", ("u", 64): "m", ("f", 16): "Dh", ("f", 32): "f", ("f", 64): "d"}


def is_hlsl(mod: llvm.ModuleRef) -> bool:
    """Whether a function of the module is an HLSL entry point (its attributes say "hlsl.shader"); the
    module is not printed (a large OpenCL module pays one attribute query per defined function)."""
    return any(b'"hlsl.shader"' in a for f in mod.functions if not f.is_declaration for a in f.attributes)


@dataclass
class Resource:
    set: int
    binding: int
    name: str            # the HLSL variable's name, or set<S>.binding<B> when the module does not say
    param: str = ""      # the kernel parameter's LLVM name


def adapt(mod: llvm.ModuleRef, source_name: str) -> llvm.ModuleRef:
    """The HLSL module `mod` as OpenCL-flavoured LLVM IR (see the module docstring); `mod` is left alone."""
    from reconverge.lowering.frontend.llvm_module import make_inlinable, parse_llvm_text
    text = str(mod)
    entries = _entry_points(text, source_name)
    resolved = str(_run_passes(parse_llvm_text(make_inlinable(text), source_name), handles=True))
    return _run_passes(parse_llvm_text(_Rewriter(resolved, source_name, entries).run(), source_name), False)


# ----- entry points

def _attribute_groups(text: str) -> dict[str, str]:
    return {m.group(1): m.group(2) for m in re.finditer(r"^attributes #(\d+) = \{(.*)\}\s*$", text, re.M)}


def _entry_points(text: str, source_name: str) -> dict[str, tuple[int, int, int]]:
    """Entry name -> numthreads, for every function whose attributes say "hlsl.shader"."""
    groups = _attribute_groups(text)
    out: dict[str, tuple[int, int, int]] = {}
    for m in re.finditer(r"^define [^\n]*?@(\"[^\"]*\"|[-\w.$]+)\(([^\n]*)$", text, re.M):
        name, rest = m.group(1).strip('"'), m.group(2)
        attrs = " ".join(groups.get(g, "") for g in re.findall(r"#(\d+)", rest)) + " " + rest
        shader = re.search(r'"hlsl\.shader"="([^"]*)"', attrs)
        if shader is None:
            continue
        where = f"{source_name}: @{name}"
        if shader.group(1) != "compute":
            raise NotSupported(f'{where}: "hlsl.shader"="{shader.group(1)}": only compute shaders are supported')
        threads = re.search(r'"hlsl\.numthreads"="(\d+),(\d+),(\d+)"', attrs)
        if threads is None:
            raise CompileError(f'{where}: a compute shader without "hlsl.numthreads"="X,Y,Z"')
        size = (int(threads.group(1)), int(threads.group(2)), int(threads.group(3)))
        if min(size) <= 0:
            raise CompileError(f'{where}: bad "hlsl.numthreads"="{threads.group(1)},{threads.group(2)},'
                               f'{threads.group(3)}"')
        if not re.match(r"\s*\)", rest):
            raise NotSupported(f"{where}: an HLSL entry point with parameters (clang writes `void @main()`)")
        out[name] = size
    if not out:
        raise CompileError(f"{source_name}: no HLSL compute entry point")
    return out


def _run_passes(mod: llvm.ModuleRef, handles: bool) -> llvm.ModuleRef:
    """LLVM's always-inliner (every function is marked alwaysinline), and with `handles`, SROA, GlobalOpt
    and SROA again: -O0 keeps resource handles and their binding numbers in locals and in the resource's
    global; these make them SSA values and constants. None of them changes a function's control flow."""
    for fn in mod.functions:
        if not fn.is_declaration:
            fn.add_function_attribute("alwaysinline")
    machine = llvm.Target.from_default_triple().create_target_machine()
    builder = llvm.create_pass_builder(machine, llvm.create_pipeline_tuning_options(speed_level=0))
    passes = llvm.create_new_module_pass_manager()
    passes.add_always_inliner_pass()
    if handles:
        passes.add_sroa_pass()
        passes.add_global_opt_pass()
        passes.add_sroa_pass()
    passes.run(mod, builder)
    return mod


# ----- text helpers

def _close(text: str, start: int) -> int:
    """The index of the bracket closing the one at `start` (quotes respected)."""
    pairs = {"(": ")", "[": "]", "{": "}", "<": ">"}
    stack, i, quoted = [], start, False
    while i < len(text):
        c = text[i]
        if quoted:
            quoted = c != '"'
        elif c == '"':
            quoted = True
        elif c in pairs:
            stack.append(pairs[c])
        elif stack and c == stack[-1]:
            stack.pop()
            if not stack:
                return i
        i += 1
    raise ValueError("unbalanced brackets")


def _split_args(text: str) -> list[str]:
    """Top-level comma-separated parts of `text`."""
    parts: list[str] = []
    cur: list[str] = []
    depth, quoted = 0, False
    for c in text:
        if quoted:
            quoted = c != '"'
        elif c == '"':
            quoted = True
        elif c in "([{<":
            depth += 1
        elif c in ")]}>":
            depth -= 1
        elif c == "," and depth == 0:
            parts.append("".join(cur).strip())
            cur = []
            continue
        cur.append(c)
    if "".join(cur).strip():
        parts.append("".join(cur).strip())
    return parts


def _arg_value(arg: str) -> str:
    """`i32 noundef 5` -> `5`; `target("spirv.X", i32) %1` -> `%1`."""
    if arg.startswith("target("):
        arg = arg[_close(arg, arg.index("(")) + 1:]
    return arg.split()[-1]


def _arg_type(arg: str) -> str:
    """`i32 noundef 5` -> `i32`; `<4 x i32> %v` -> `<4 x i32>`; `target("spirv.X", i32) %1` -> the target type."""
    if arg.startswith(("target(", "<", "[", "{")):
        return arg[:_close(arg, min(i for i in (arg.find("("), arg.find("<"), arg.find("["), arg.find("{"))
                                    if i >= 0)) + 1]
    return arg.split()[0]


_TARGET_TYPE = re.compile(r'target\("(spirv\.\w+)"')


def _buffer_element(ttype: str, where: str) -> str:
    """`target("spirv.VulkanBuffer", [0 x T], 12, rw)` -> T; any other resource type is refused."""
    m = _TARGET_TYPE.match(ttype)
    kind = m.group(1) if m else ttype
    inner = _split_args(ttype[ttype.index("(") + 1:_close(ttype, ttype.index("("))])
    if kind != "spirv.VulkanBuffer":
        raise NotSupported(f"{where}: resources of type target(\"{kind}\") (typed buffers, textures, samplers) "
                           f"are not supported; use RWStructuredBuffer or StructuredBuffer")
    if len(inner) != 4 or inner[2] != _STORAGE_BUFFER:
        raise NotSupported(f"{where}: {ttype}: only storage buffers (StructuredBuffer, RWStructuredBuffer) are "
                           f"supported, not constant buffers")
    array = re.fullmatch(r"\[0 x (.*)\]", inner[1])
    return array.group(1) if array else inner[1]


def _scalar_code(t: str, signed: bool) -> str | None:
    m = re.fullmatch(r"i(\d+)", t)
    if m:
        return _MANGLE.get(("i" if signed else "u", int(m.group(1))))
    return {"half": "Dh", "float": "f", "double": "d"}.get(t)


def mangle(name: str, codes: list[str]) -> str:
    """An OpenCL built-in's Itanium name for scalar parameters (`sub_group_shuffle`, [f, j] ->
    `_Z17sub_group_shufflefj`); no parameter type repeats a vector, so no substitutions arise."""
    return f"_Z{len(name)}{name}{''.join(codes) or 'v'}"


# ----- the rewrite

class _Rewriter:
    def __init__(self, text: str, source_name: str, entries: dict[str, tuple[int, int, int]]):
        self.text = text
        self.source_name = source_name
        self.entries = entries
        self.tokens = "@llvm.experimental.convergence.entry(" in text
        self.helpers: dict[str, str] = {}          # helper name -> its definition
        self.declared: dict[str, str] = {}         # OpenCL built-in -> its declaration
        self.resources: dict[str, list[Resource]] = {}
        self.implicit: dict[tuple[str, int, int], int] = {}   # (entry, set, order id) -> binding
        self.kernels: list[str] = []                          # entry points rewritten, in order
        self.fresh = 0
        self.function = ""

    def where(self) -> str:
        return f"{self.source_name}: @{self.function}" if self.function else self.source_name

    def run(self) -> str:
        lines = self.text.split("\n")
        self._bind(lines)
        out: list[str] = []
        for line in lines:
            if line.startswith("define "):
                self.function = _defined_name(line)
                out.append(self._define(line))
            elif line.startswith("}"):
                self.function = ""
                out.append(line)
            elif line.startswith("declare ") and (" @llvm.spv." in line or f" @{_LANE_INDEX_FUNCTION}(" in line):
                continue
            elif line.startswith("target triple"):
                out.append('target triple = "spir64-unknown-unknown"')
            elif line.startswith("target datalayout"):
                out.append(f'target datalayout = "{SPIR64_LAYOUT}"')
            elif self.function and ("@llvm.spv." in line or f"@{_LANE_INDEX_FUNCTION}(" in line):
                out.extend(self._call(line))
            else:
                out.append(line)
        text = "\n".join(out)
        left = next((line for line in out if 'target("spirv.' in line), None)
        if left is not None:         # a handle in memory, a phi or a parameter: none is a buffer we bind
            raise NotSupported(f"{self.source_name}: unsupported use of an HLSL resource: {left.strip()[:160]}")
        text = re.sub(r"\baddrspace\(11\)", "addrspace(1)", text)
        text = self._metadata(text)
        extra = list(self.declared.values()) + list(self.helpers.values())
        if self.tokens and self.helpers:
            extra.append("declare token @llvm.experimental.convergence.entry() convergent nounwind")
            if "declare token @llvm.experimental.convergence.entry()" in text:
                extra.pop()
        return text + "\n" + "\n".join(extra) + "\n"

    # resources: every binding the entry points name, and the parameter each becomes
    def _bind(self, lines: list[str]) -> None:
        names = {m.group(1): m.group(2) for m in re.finditer(
            r'^@([-\w.$]+) = [^\n]*constant \[\d+ x i8\] c"((?:[^"\\]|\\[0-9A-Fa-f]{2})*)\\00"',
            self.text, re.M)}
        fn = ""
        found: dict[str, dict[tuple[int, int], Resource]] = {}
        implicit: dict[str, list[tuple[int, int, str]]] = {}
        for line in lines:
            if line.startswith("define "):
                fn = _defined_name(line)
                self.function = fn
            elif line.startswith("}"):
                fn = ""
            m = re.search(r"@llvm\.spv\.resource\.handlefrom(implicit)?binding[\w.]*\(", line)
            if not m or not fn:
                continue
            args = _split_args(line[m.end():_close(line, m.end() - 1)])
            values = [_arg_value(a) for a in args]
            if not all(re.fullmatch(r"-?\d+", v) for v in values[:4]):
                raise NotSupported(f"{self.where()}: a resource whose binding is not a compile-time constant: "
                                   f"{line.strip()[:120]}")
            first, second, size, index = (int(v) for v in values[:4])
            if size != 1 or index != 0:
                raise NotSupported(f"{self.where()}: resource arrays are not supported "
                                   f"(range {size}, index {index})")
            label = names.get(values[4].lstrip("@"), "") if len(values) > 4 else ""
            if m.group(1):      # (order id, set, ...): the binding is the backend's to choose
                implicit.setdefault(fn, []).append((second, first, label))
            else:               # (set, binding, ...)
                found.setdefault(fn, {}).setdefault((first, second), Resource(first, second, label))
        for fn, items in implicit.items():
            taken = found.setdefault(fn, {})
            for space, order, label in sorted(set(items), key=lambda r: r[1]):
                binding = 0
                while (space, binding) in taken:
                    binding += 1
                taken[(space, binding)] = Resource(space, binding, label)
                self.implicit[(fn, space, order)] = binding
        for fn in self.entries:
            res = [found.get(fn, {})[k] for k in sorted(found.get(fn, {}))]
            used: set[str] = set()
            body = self._body_names(fn)
            for r in res:
                r.name = r.name or f"set{r.set}.binding{r.binding}"
                r.param = r.name if r.name not in used and r.name not in body else f"{r.name}.{r.set}.{r.binding}"
                used.add(r.param)
            self.resources[fn] = res
        self.function = ""

    def _body_names(self, fn: str) -> set[str]:
        m = re.search(rf"^define [^\n]*@\"?{re.escape(fn)}\"?\(.*?^\}}", self.text, re.M | re.S)
        return set(re.findall(r'%"?([-\w.$:]+)"?', m.group(0))) if m else set()

    def _param_of(self, space: int, binding: int) -> str:
        for r in self.resources.get(self.function, []):
            if (r.set, r.binding) == (space, binding):
                return r.param
        raise NotSupported(f"{self.where()}: a resource outside an HLSL entry point")

    def _define(self, line: str) -> str:
        if self.function not in self.entries:
            return line
        head, _, rest = line.partition(f"@{self.function}(")
        if head.startswith("define ") and "spir_kernel" not in head:
            head = head.replace("define ", "define spir_kernel ", 1)
        params = ", ".join(f'ptr addrspace(1) noundef %"{r.param}"' for r in self.resources[self.function])
        close = rest.index(")")
        tail = rest[close + 1:]
        brace = tail.rindex("{")
        self.kernels.append(self.function)
        tail = tail[:brace] + f"!hlsl.kernel.{len(self.kernels)} " + tail[brace:]
        return f"{head}@{_quote(self.function)}({params}){tail}"

    def _metadata(self, text: str) -> str:
        """!kernel_arg_name and !reqd_work_group_size of every entry, numbered after the module's nodes."""
        numbers = [int(n) for n in re.findall(r"^!(\d+) = ", text, re.M)]
        nxt = max(numbers, default=-1) + 1
        nodes = []
        for i, fn in enumerate(self.kernels, start=1):
            x, y, z = self.entries[fn]
            names = ", ".join(f'!"{r.param}"' for r in self.resources[fn])
            attach = f"!kernel_arg_name !{nxt} !reqd_work_group_size !{nxt + 1}"
            nodes.append(f"!{nxt} = !{{{names}}}")
            nodes.append(f"!{nxt + 1} = !{{i32 {x}, i32 {y}, i32 {z}}}")
            nxt += 2
            text = text.replace(f"!hlsl.kernel.{i} ", attach + " ", 1)
        return text + "\n" + "\n".join(nodes)

    # calls
    def _call(self, line: str) -> list[str]:
        m = re.search(rf"@(llvm\.spv\.[\w.]+|{_LANE_INDEX_FUNCTION})\(", line)
        if m is None:
            raise NotSupported(f"{self.where()}: unsupported use of an HLSL intrinsic: {line.strip()[:120]}")
        callee = m.group(1)
        lhs_m = re.match(r"\s*(%[-\w.$\"]+) = ", line)
        lhs = lhs_m.group(1) if lhs_m else ""
        end = _close(line, m.end() - 1)
        args = _split_args(line[m.end():end])
        base = "wave.get.lane.index" if callee == _LANE_INDEX_FUNCTION else _base(callee)
        if not re.search(r"\bcall\b", line[:m.start()]):
            raise NotSupported(f"{self.where()}: @{callee} used other than by a call")
        if base in ("resource.handlefrombinding", "resource.handlefromimplicitbinding"):
            _buffer_element(_return_type(line[:m.start()]), self.where())      # a buffer we can bind
            first, second = int(_arg_value(args[0])), int(_arg_value(args[1]))
            if base == "resource.handlefrombinding":           # (set, binding, range, index, name)
                space, binding = first, second
            else:                                              # (order id, set, range, index, name)
                space, binding = second, self.implicit[(self.function, second, first)]
            return [f'  {lhs} = getelementptr inbounds i8, ptr addrspace(1) %"{self._param_of(space, binding)}", i64 0']
        if base in ("resource.counterhandlefrombinding", "resource.counterhandlefromimplicitbinding"):
            return [f"  {lhs} = getelementptr i8, ptr addrspace(1) null, i64 0"]     # a counter nobody may use
        if base == "resource.getpointer":
            element = _buffer_element(_arg_type(args[0]), self.where())
            index_type, index = _arg_type(args[1]), _arg_value(args[1])
            self.fresh += 1
            wide = f"%{PREFIX}index.{self.fresh}"
            return [f"  {wide} = zext {index_type} {index} to i64",
                    f"  {lhs} = getelementptr inbounds {element}, ptr addrspace(1) {_arg_value(args[0])}, i64 {wide}"]
        if base not in SUPPORTED:
            raise NotSupported(f"{self.where()}: unsupported HLSL intrinsic @{callee}")
        ret = _return_type(line[:m.start()])
        if any(a.startswith("target(") for a in args):
            raise NotSupported(f"{self.where()}: @{callee} on a resource handle is not supported")
        bundle = "convergencectrl" in line[end:]
        helper = self._helper(callee, base, ret, [_arg_type(a) for a in args], bundle)
        return [line[:m.start()] + f'@"{helper}"(' + line[m.end():]]

    # the helpers: one internal function per intrinsic signature
    def _helper(self, callee: str, base: str, ret: str, params: list[str], bundle: bool) -> str:
        name = PREFIX + (base if callee == _LANE_INDEX_FUNCTION else callee.removeprefix("llvm.spv."))
        if name in self.helpers:
            return name
        args = [f"%a{i}" for i in range(len(params))]
        body: list[str] = []
        convergent = bundle or not (base in _WORKITEM or base in _SUBGROUP_INFO)
        tok = ' [ "convergencectrl"(token %t) ]' if self.tokens and convergent else ""
        if self.tokens and convergent:
            body.append("  %t = call token @llvm.experimental.convergence.entry()")
        lanes = _lanes(ret) if ret != "void" else None
        where = f"{self.where()}: @{callee}"
        if base in _WORKITEM:
            dim = [f"i32 {args[0]}"] if params else []
            fn = _WORKITEM[base]
            code = mangle(fn, ["j"] if params else [])
            self._declare(code, "i64", ["i32"] if params else [], False)
            body.append(f"  %w = call spir_func i64 @{code}({', '.join(dim)})")
            body.append(_fit("%r", "%w", "i64", ret))
        elif base in _SUBGROUP_INFO:
            code = mangle(_SUBGROUP_INFO[base], [])
            self._declare(code, "i32", [], False)
            body.append(f"  %w = call spir_func i32 @{code}()")
            body.append(_fit("%r", "%w", "i32", ret))
        elif base in _WAVE_VALUE or base == "wave.readlane":
            fn, signed = _WAVE_VALUE.get(base, ("sub_group_shuffle", False))
            n, elem = lanes if lanes else (0, ret)
            extra = ["j"] if base == "wave.readlane" else []
            code_t = _scalar_code(elem, signed)
            if code_t is None:
                raise NotSupported(f"{where}: on {ret} is not supported")
            code = mangle(fn, [code_t, *extra])
            self._declare(code, elem, [elem, *(["i32"] if extra else [])], True)
            more = f", i32 {args[1]}" if extra else ""
            if n == 0:
                body.append(f"  %r = call spir_func {elem} @{code}({elem} {args[0]}{more}){tok}")
            else:
                prev = "poison"
                for k in range(n):
                    body.append(f"  %e{k} = extractelement {ret} {args[0]}, i32 {k}")
                    body.append(f"  %s{k} = call spir_func {elem} @{code}({elem} %e{k}{more}){tok}")
                    body.append(f"  %v{k} = insertelement {ret} {prev}, {elem} %s{k}, i32 {k}")
                    prev = f"%v{k}"
                body.append(f"  %r = select i1 true, {ret} {prev}, {ret} {prev}")
        elif base in _WAVE_BOOL:
            code = mangle(_WAVE_BOOL[base], ["i"])
            self._declare(code, "i32", ["i32"], True)
            body += [f"  %p = zext i1 {args[0]} to i32", f"  %w = call spir_func i32 @{code}(i32 %p){tok}",
                     "  %r = icmp ne i32 %w, 0"]
        elif base == "wave.is.first.lane":
            code = mangle("sub_group_elect", [])
            self._declare(code, "i32", [], True)
            body += [f"  %w = call spir_func i32 @{code}(){tok}", "  %r = icmp ne i32 %w, 0"]
        elif base in ("wave.ballot", "wave.active.countbits", "subgroup.prefix.bit.count"):
            ballot = mangle("sub_group_ballot", ["i"])
            self._declare(ballot, "<4 x i32>", ["i32"], True)
            body += [f"  %p = zext i1 {args[0]} to i32", f"  %b = call spir_func <4 x i32> @{ballot}(i32 %p){tok}"]
            if base == "wave.ballot":
                body.append("  %r = select i1 true, <4 x i32> %b, <4 x i32> %b")
            else:
                query = "sub_group_ballot_bit_count" if base == "wave.active.countbits" else \
                    "sub_group_ballot_exclusive_scan"
                code = mangle(query, ["Dv4_j"])
                self._declare(code, "i32", ["<4 x i32>"], False)
                body.append(f"  %r = call spir_func i32 @{code}(<4 x i32> %b)")
        elif base == "group.memory.barrier.with.group.sync":
            code = mangle("barrier", ["j"])
            self._declare(code, "void", ["i32"], True)
            body.append(f"  call spir_func void @{code}(i32 {_LOCAL_FENCE}){tok}")
        else:
            raise NotSupported(f"{where}: unsupported HLSL intrinsic @{callee}")
        body.append("  ret void" if ret == "void" else f"  ret {ret} %r")
        attrs = "alwaysinline nounwind" + (" convergent" if convergent else "")
        sig = ", ".join(f"{t} {a}" for t, a in zip(params, args))
        self.helpers[name] = f'define internal {ret} @"{name}"({sig}) {attrs} {{\n' + "\n".join(body) + "\n}"
        return name

    def _declare(self, code: str, ret: str, params: list[str], convergent: bool) -> None:
        if code not in self.declared and f"@{code}(" not in self.text:
            attrs = "nounwind" + (" convergent" if convergent else "")
            self.declared[code] = f"declare spir_func {ret} @{code}({', '.join(params)}) {attrs}"


def _return_type(before_callee: str) -> str:
    """The call's return type: the last type written before the callee (`<3 x i32>`, `i1`, `void`)."""
    text = before_callee.rstrip()
    if text.endswith((">", ")")):       # <N x T>, target("spirv.X", ...)
        close, opening = text[-1], "<" if text[-1] == ">" else "("
        depth, quoted = 0, False
        for i in range(len(text) - 1, -1, -1):
            quoted = quoted != (text[i] == '"')
            if not quoted:
                depth += (text[i] == close) - (text[i] == opening)
            if depth == 0:
                return text[i:] if opening == "<" else text[:i].split()[-1] + text[i:]
    return text.split()[-1]


def _defined_name(define_line: str) -> str:
    m = re.search(r'@("[^"]*"|[-\w.$]+)\(', define_line)
    return m.group(1).strip('"') if m else ""


def _quote(name: str) -> str:
    return name if re.fullmatch(r"[-\w.$]+", name) else f'"{name}"'


def _base(callee: str) -> str:
    """`llvm.spv.wave.reduce.sum.i32` -> `wave.reduce.sum`; `...getpointer.p11.tspirv...` -> resource.getpointer."""
    rest = callee.removeprefix("llvm.spv.")
    for known in sorted(SUPPORTED, key=len, reverse=True):
        if rest == known or rest.startswith(known + "."):
            return known
    return rest


def _lanes(t: str) -> tuple[int, str] | None:
    m = re.fullmatch(r"<(\d+) x (\w+)>", t)
    return (int(m.group(1)), m.group(2)) if m else None


def _fit(dst: str, src: str, have: str, want: str) -> str:
    if have == want:
        return f"  {dst} = select i1 true, {want} {src}, {want} {src}"
    wide = int(have[1:]) > int(want[1:])
    return f"  {dst} = {'trunc' if wide else 'zext'} {have} {src} to {want}"
