"""LLVM IR (as llvmlite sees it) -> the CFG form of our IR, one Function per kernel.

Over 600 lines: one reader per LLVM function whose instruction handlers share its value and block maps
(the calls' builtins are already in builtins.py).

Each LLVM value becomes a list of scalar values ("lanes"): one for scalars, one per element for vectors
and one per scalar leaf for first-class aggregates, so vectors are scalarized as they are read. What
llvmlite does not expose (predicates, case values, alloca/GEP types, constant expressions, alignment)
is parsed from the instruction's text. Blocks are read in LLVM's order; a use that comes before its
definition in that order gets a placeholder that is patched once the whole function has been read.
"""
from __future__ import annotations

import re

from reconverge.lazy_regex import lazy_compile
from reconverge.lowering.errors import CompileError, NotSupported
from reconverge.lowering.frontend import builtins, mem_loops
from reconverge.lowering.frontend.convergence import apply as convergence_control
from reconverge.lowering.frontend.line_reader import Forward as _Forward
from reconverge.lowering.frontend.line_reader import read_lines
from reconverge.lowering.frontend.llvm_module import (
    DEFINE_NAME,
    KERNEL_TWIN,
    define_lines,
    define_matches,
    function_header,
    prepare_module,
    require_kernels,
)
from reconverge.lowering.frontend.llvm_text import (
    DECIMAL,
    FLAGS,
    FunctionText,
    NeedsRecords,
    TextInstruction,
    key,
    line_body,
    name_key,
    read_function_text,
)
from reconverge.lowering.frontend.llvm_types import (
    CV,
    Cursor,
    DataLayout,
    LType,
    TypeError_,
    constant_from_text,
    leaf_span,
    memory_leaves,
    parse_type,
    parse_typed_value,
    scalar_leaves,
    type_from_text,
)
from reconverge.lowering.frontend.scalar import Unsupported, scalar_type
from reconverge.lowering.frontend.source_scopes import (
    DBG_ATTACHMENT,
    DebugScopes,
    ScopeNotes,
    debug_nodes,
    difile_path,
    loop_nodes,
)
from reconverge.lowering.frontend.text_module import TextFunction, TextModule
from reconverge.lowering.frontend.value_kinds import ValueKind
from reconverge.lowering.gcpause import gc_paused
from reconverge.lowering.ir.core import Arg, Block, Const, Function, Instr, ModuleData, Phi, Undef, Value
from reconverge.lowering.ir.opcodes import OPCODES, opcodes_of
from reconverge.lowering.ir.types import I1, I64, VOID, Type, int_type, ptr
from reconverge.records import record
from reconverge.typing_free import cast

TYPE_CHECKING = False                   # not typing's: a compile's start-up does not import typing
if TYPE_CHECKING:
    from typing import Any

    import llvmlite.binding as llvm

ICMP_PREDS = ("eq", "ne", "ugt", "uge", "ult", "ule", "sgt", "sge", "slt", "sle")
FCMP_PREDS = ("false", "oeq", "ogt", "oge", "olt", "ole", "one", "ord", "ueq", "ugt", "uge", "ult", "ule",
              "une", "uno", "true")
_ATOMICRMW = {"xchg": "xchg", "add": "add", "sub": "sub", "and": "and", "or": "or", "xor": "xor", "max": "smax",
              "min": "smin", "umax": "umax", "umin": "umin"}
def _same_named(kind: str, llvm_names: str) -> frozenset[str]:
    """LLVM instructions (LangRef names) that are IR opcodes of the same name and meaning, checked against
    the opcode table's family, so the table stays the one definition of what each opcode is."""
    names = frozenset(llvm_names.split())
    assert names <= set(opcodes_of(kind)), names - set(opcodes_of(kind))
    return names


_INT_BINOPS = _same_named("int", "add sub mul udiv sdiv urem srem shl lshr ashr and or xor")
_FLOAT_BINOPS = _same_named("float", "fadd fsub fmul fdiv frem")
_CASTS = _same_named("cast", "trunc zext sext fptrunc fpext fptoui fptosi uitofp sitofp ptrtoint inttoptr "
                             "addrspacecast")
# ValueKind members as plain constants: an enum member looked up through its class costs about 0.3 us,
# and lanes() asked for several per operand. Compared with `==`: llvmlite's own values (the forms the
# text records leave to it) carry llvmlite's enum, equal by number (value_kinds.py)
_VK = ValueKind
_INSTRUCTION, _ARGUMENT, _GLOBAL, _CONSTANT_INT, _FUNCTION = (
    _VK.instruction, _VK.argument, _VK.global_variable, _VK.constant_int, _VK.function)
_NOT_VALUES = (_VK.metadata_as_value, _VK.basic_block, _VK.inline_asm, _VK.block_address)
READ_TEXT = True      # read function bodies from their printed text (llvm_text.py); False: llvmlite's values
ONE_PASS = True       # read a printed body line by line (line_reader.py); False: records for every line first
_NAME = lazy_compile(r'^\s*%("(?:[^"]*)"|[-\w.$]+)\s*=')


_BUNDLES = re.compile(r'\)[^()"\[]*\[\s*"')       # a call's operand bundle list, after its arguments and attributes
_BUNDLE_TAG = lazy_compile(r'"([^"]*)"\s*\(')


def zero(t: Type) -> Const:
    return Const(t, 0.0 if t.is_float else 0)


_FPMATH = re.compile(r"!fpmath !(\d+)")


class ModuleContext:
    """Per-module state shared by the kernels: layout, named struct types, global variables."""

    def __init__(self, mod: llvm.ModuleRef, source_name: str):
        self.mod = mod
        self.source_name = source_name
        self.layout = DataLayout(mod.data_layout)
        self._types: dict[str, LType] = {}
        self._structs: dict[str, LType] = {}
        self.globals = {g.name: g for g in mod.global_variables}
        self._data: dict[str, ModuleData] = {}
        self._declared: dict[str, bool] = {}
        self._by_ptr: dict[int | str, LType] = {}
        self._module_text: str | None = getattr(mod, "reconverge_text", None)   # prepare_module's, if it kept it
        self._function_starts: dict[str, int] | None = None
        self._define_lines: dict[str, str] | None = None
        self._nodes: dict[str, str] | None = None
        self._functions: set[str] | None = None
        self._scopes: DebugScopes | None = None
        self._tokens: tuple[bool | None] | None = None     # maybe_tokens' answer, once found

    def resolve_struct(self, name: str) -> LType:
        hit = self._structs.get(name)
        if hit is None and isinstance(self.mod, TextModule):
            hit = self._structs[name] = self.mod.struct(name)
        if hit is None:
            tref = self.mod.get_struct_type(name)
            if tref.is_opaque_struct:
                raise TypeError_(f"opaque struct %{name}")
            hit = LType("struct", elems=tuple(self.ltype_of(e) for e in tref.elements),
                        packed=tref.is_packed_struct, name=name)
            self._structs[name] = hit
        return hit

    def return_type(self, fn: llvm.ValueRef | TextFunction) -> LType:
        if isinstance(fn, TextFunction):
            return fn.return_type
        return self.ltype_of(fn.global_value_type.get_function_return())

    def ltype_of(self, tref: llvm.TypeRef | LType) -> LType:
        if isinstance(tref, LType):        # a record of llvm_text.py already holds its type
            return tref
        tk = key(tref)                     # types are uniqued in their context: the pointer is the type
        hit = self._by_ptr.get(tk)
        if hit is None:
            hit = self._by_ptr[tk] = self._ltype_of_text(tref)
        return hit

    def _ltype_of_text(self, tref: llvm.TypeRef) -> LType:
        text = str(tref)
        if " = type " in text:             # a named struct prints as its definition
            return self.resolve_struct(text.split(" = type ", 1)[0].strip().lstrip("%").strip('"'))
        hit = self._types.get(text)
        if hit is None:
            hit = self._types[text] = type_from_text(text, self.resolve_struct)
        return hit

    def kernel_metadata(self, kernel: str, body_text: str) -> KernelMetadata:
        """The metadata of kernel `kernel`, read from `body_text` (the function being read, often clang's
        twin) or else from the kernel's own define line; the module is printed only when one is found."""
        header = _define_line(body_text)
        if not _ATTACHMENT.search(header) and kernel != _define_name(header):
            header = self._define_line_of(kernel)
        if not _ATTACHMENT.search(header):
            return KernelMetadata()
        return parse_kernel_metadata(header, None, f"{self.source_name}: kernel @{kernel}", self._metadata_nodes())

    def _define_line_of(self, name: str) -> str:
        """Function `name`'s define line: from the module's text when at hand (str(fn) prints the whole
        function, for every kernel whose twin is read), else from llvmlite; "" if there is no such function."""
        if self._module_text is not None:
            if self._define_lines is None:
                self._define_lines = define_lines(self._module_text)
            line = self._define_lines.get(name)
            if line is not None:
                return line
        try:
            return function_header(self.mod.get_function(name))
        except NameError:
            return ""

    def function_text(self, fn: llvm.ValueRef) -> str:
        """The printed function: its slice of the module's text when that is at hand (prepare_module keeps
        it; printing the function again cost 0.3 CPU s at 100k blocks), else str(fn). The slice differs
        from str(fn) only in attribute group numbers (`#3`), which the reader does not read."""
        text = self._module_text
        if text is not None:
            if self._function_starts is None:
                self._function_starts = {}
                for m in define_matches(DEFINE_NAME, text):
                    name = m.group(1).strip('"')
                    if "\\" not in name:         # an escaped name: str(fn) prints it
                        self._function_starts[name] = m.start()
            start = self._function_starts.get(fn.name)
            end = text.find("\n}\n", start) if start is not None else -1
            if start is not None and end >= 0:
                return text[start:end + 2]
        return str(fn)

    def maybe_tokens(self) -> bool | None:
        """False when the module cannot hold a convergence token: its intrinsic's name is not in the
        printed module, so no walk of every instruction looks for one (0.045 CPU s at 100k blocks,
        against 0.008 for this search); None: look. Searched once a module: Gen reads a kernel at a
        time, and searching the whole module's text for each kernel made its reads quadratic (2 ms a
        kernel on the 400-kernel file, 1.7 MB of text)."""
        if self._tokens is None:
            text = getattr(self.mod, "reconverge_text", None)
            self._tokens = (False if text is not None and "convergence" not in text else None,)
        return self._tokens[0]

    def fpmath(self, instruction_text: str) -> float:
        """The error in ULP an instruction's `!fpmath` attachment allows (0: none, correctly rounded).
        clang attaches 2.5 to OpenCL's float division and 3.0 to its sqrt calls (the OpenCL C spec's
        bounds) unless -cl-fp32-correctly-rounded-divide-sqrt is given."""
        m = _FPMATH.search(instruction_text)
        if m is None:
            return 0.0
        node = re.fullmatch(r"float ([^}\s]+)\s*", self._metadata_nodes().get(m.group(1), ""))
        return float(node.group(1)) if node else 0.0

    def _metadata_nodes(self) -> dict[str, str]:
        """The module's tuple metadata nodes, by number ('7' -> 'float 2.5'), found in one pass: looking
        one up in the module's text each time made every kernel (and every fdiv) cost the whole module."""
        if self._nodes is None:
            if self._module_text is None:
                self._module_text = str(self.mod)
            self._nodes = metadata_nodes(self._module_text)
        return self._nodes

    def block_source_lines(self, texts: list[str]) -> tuple[str | None, str | None] | None:
        """Where a block's code comes from, by its instructions' !dbg locations: the first non-phi
        instruction's and the terminator's (else the last located one's); None when none has one."""
        body = [t for t in texts if not t.split("=", 1)[-1].lstrip().startswith("phi ")]
        locs = [self.source_line(t) for t in body]
        found = [loc for loc in locs if loc is not None]
        return (found[0], locs[-1] if locs and locs[-1] else found[-1]) if found else None

    def source_line(self, instruction_text: str) -> str | None:
        """'FILE:LINE:COL' of an instruction's !dbg attachment (a DILocation; its scope chain names the
        DIFile), or None."""
        m = DBG_ATTACHMENT.search(instruction_text)
        if m is None:
            return None
        scopes = self._debug_scopes()
        loc = scopes.location(m.group(1))
        if loc is None:
            return None
        node = scopes.file_node(loc.scope)
        file = difile_path(node, self.source_name) if node is not None else None
        where = f"{file or self.source_name}:{loc.line}"
        return where + (f":{loc.column}" if loc.column else "")

    def scope_notes(self) -> ScopeNotes:
        """A fresh collector of one function's debug locations over the module's parsed scopes."""
        return ScopeNotes(self._debug_scopes())

    def _debug_scopes(self) -> DebugScopes:
        """The module's debug-info nodes and loop nodes, parsed once."""
        if self._scopes is None:
            if self._module_text is None:
                self._module_text = str(self.mod)
            self._scopes = DebugScopes(debug_nodes(self._module_text), getattr(self.mod, "removed_loops", ()),
                                       loop_nodes(self._module_text), getattr(self.mod, "unoptimized_loops", ()))
        return self._scopes

    def global_kind(self, name: str) -> ValueKind | None:
        """What `@name` in an instruction is: a global variable, a function, or (None) something else."""
        if name in self.globals:
            return _VK.global_variable
        if self._functions is None:
            self._functions = {f.name for f in self.mod.functions}
        return _VK.function if name in self._functions else None

    def is_declaration(self, name: str) -> bool:
        hit = self._declared.get(name)
        if hit is None:
            hit = self._declared[name] = self.mod.get_function(name).is_declaration
        return hit

    def parse_type_text(self, text: str) -> LType:
        hit = self._types.get(text)
        if hit is None:
            hit = self._types[text] = type_from_text(text, self.resolve_struct)
        return hit

    def module_data(self, name: str) -> ModuleData:
        hit = self._data.get(name)
        if hit is not None:
            return hit
        g = self.globals.get(name)
        if g is None:
            raise Unsupported(f"@{name} is not a global variable")
        text = str(g).split("\n")[0]
        ty = self.ltype_of(g.global_value_type)
        space = self.ltype_of(g.type).bits          # the global's own pointer type carries its address space
        align_m = re.search(r",\s*align (\d+)", text)
        align = int(align_m.group(1)) if align_m else self.layout.align(ty)
        keyword, init_text = _global_definition(text, self.resolve_struct)
        init = None
        if not g.is_declaration and init_text:
            cv = constant_from_text(f"{ty} {init_text}", self.resolve_struct)
            if cv.kind != "undef":
                init = self.layout.serialize(cv)
        writable = keyword != "constant"
        hit = ModuleData(name, space, self.layout.alloc_size(ty), align, init, writable)
        self._data[name] = hit
        return hit


@record
class KernelMetadata:
    """What clang says about a kernel only in metadata (llvmlite does not expose metadata)."""
    arg_names: tuple[str, ...] = ()                          # !kernel_arg_name (-cl-kernel-arg-info)
    arg_types: tuple[str, ...] = ()                          # !kernel_arg_type: OpenCL type names ("int*")
    reqd_work_group_size: tuple[int, int, int] | None = None  # !reqd_work_group_size


_ATTACHMENT = re.compile(r"!(kernel_arg_name|kernel_arg_type|reqd_work_group_size)\s+!(\d+)")
_MD_NODE = re.compile(r"^!(\d+) = (?:distinct )?!\{(.*)\}\s*$", re.M)


def metadata_nodes(module_text: str) -> dict[str, str]:
    """Every `!N = !{...}` node of a module's text: N -> what the braces hold."""
    return {m.group(1): m.group(2) for m in _MD_NODE.finditer(module_text)}


def parse_kernel_metadata(header: str, module_text: str | None, where: str,
                          all_nodes: dict[str, str] | None = None) -> KernelMetadata:
    """Read a kernel's attachments from its `define` line and the nodes they name from the module text
    (or from `all_nodes`, metadata_nodes of it, when a caller reads many kernels)."""
    found = dict(_ATTACHMENT.findall(header))
    meta = KernelMetadata()
    if not found or (module_text is None and all_nodes is None):
        return meta
    if all_nodes is None:
        assert module_text is not None
        all_nodes = metadata_nodes(module_text)
    nodes = {n: all_nodes[n] for n in found.values() if n in all_nodes}
    if "kernel_arg_name" in found and found["kernel_arg_name"] in nodes:
        meta.arg_names = tuple(re.findall(r'!"([^"]*)"', nodes[found["kernel_arg_name"]]))
    if "kernel_arg_type" in found and found["kernel_arg_type"] in nodes:
        meta.arg_types = tuple(re.findall(r'!"([^"]*)"', nodes[found["kernel_arg_type"]]))
    if "reqd_work_group_size" in found and found["reqd_work_group_size"] in nodes:
        sizes = [int(x) for x in re.findall(r"i\d+\s+(-?\d+)", nodes[found["reqd_work_group_size"]])]
        if len(sizes) != 3 or min(sizes) <= 0:
            raise CompileError(f"{where}: bad !reqd_work_group_size {sizes} (expected three positive sizes)")
        meta.reqd_work_group_size = (sizes[0], sizes[1], sizes[2])
    return meta


def _global_definition(head: str, resolve) -> tuple[str, str]:
    """('global' or 'constant', initializer text) of a global variable's definition line."""
    after_eq = head.split("=", 1)[1] if "=" in head else head
    m = re.search(r"(?:^|\s)(global|constant)\s+", after_eq)
    if m is None:
        return "global", ""
    rest = re.split(r",\s*(?:align|section|comdat|partition|code_model|!)", after_eq[m.end():])[0]
    cur = Cursor(rest, resolve)
    parse_type(cur)
    return m.group(1), " ".join(cur.toks[cur.i:])


class FunctionReader:
    """Reads one LLVM function into a CFG-form Function."""

    def __init__(self, ctx: ModuleContext, fn: llvm.ValueRef, name: str | None = None):
        self.ctx = ctx
        self.fn = fn
        self.name = name or fn.name      # the kernel's name when reading its clang twin
        self.layout = ctx.layout
        # values and blocks by key(): a record's text_key (in a body read in one pass, a local's name_key) or
        # an LLVM value's address
        self.values: dict[int | str, list[Value]] = {}
        self.pending: dict[int | str, list[_Forward]] = {}
        self.patch: dict[int, Value] = {}          # id(_Forward) -> real value
        self.blocks: dict[int | str, Block] = {}
        self.block_label = ""
        self.text = ""
        self._consts: dict[str, list[Value]] = {}
        self.sink: Block | None = None
        self.prologue = Block("prologue")
        self.created: list[Instr] = []
        self.func: Function | None = None
        self.scope_notes: ScopeNotes | None = None     # the debug locations convergence=scopes reads
        self.mem_loops: list[Instr] = []           # run-time length memsets and memcpys, made loops at the end

    # ----- errors -----
    def error(self, msg: str, kind: type[CompileError] = CompileError) -> CompileError:
        where = f"{self.ctx.source_name}: function @{self.name}"
        if self.block_label:
            where += f", block %{self.block_label}"
        line = self.ctx.source_line(self.text) if self.text else None
        return kind(f"{where}: {msg}" + (f" (source line {line})" if line else ""))

    # ----- emission -----
    def emit(self, opcode: str, operands: list[Value], type: Type = VOID, attrs: dict | None = None,
             name: str = "") -> Instr:
        ins = Instr(opcode, operands, type, attrs, name=name)
        assert self.sink is not None, "emission happens inside a block"
        self.sink.append(ins)
        self.created.append(ins)
        return ins

    def const(self, t: Type, value) -> Const:
        return Const(t, value)

    def i64(self, value: int) -> Const:
        return Const(I64, value)

    def ptradd(self, p: Value, offset: int | Value) -> Value:
        if isinstance(offset, int):
            if offset == 0:
                return p
            offset = self.i64(offset)
        return self.emit("ptradd", [p, offset], p.type)

    def to_i64(self, v: Value, signed: bool = True) -> Value:
        if v.type == I64:
            return v
        if isinstance(v, Const):
            return self.i64(v.signed() if signed else int(v.value))
        if v.type.bits > 64:
            return self.emit("trunc", [v], I64)
        return self.emit("sext" if signed else "zext", [v], I64)

    def mem_loop(self, dst: Value, value: Value, length: Value, memset: bool, backward: bool = False) -> None:
        """A memset (`value`: the byte) or a copy (`value`: the source; `backward`: from its last byte down) of
        a length known only at run time: a marker here, made a loop once the function is read (mem_loops.py)."""
        length = self.to_i64(length, signed=False)
        self.mem_loops.append(self.emit(mem_loops.MARKER, [dst, value, length], VOID,
                                        {"memset": memset, "backward": backward}))

    def load(self, p: Value, offset: int, t: Type, align: int) -> Value:
        return self.emit("load", [self.ptradd(p, offset)], t, {"align": _align_at(align, offset)})

    def store(self, v: Value, p: Value, offset: int, align: int) -> None:
        self.emit("store", [v, self.ptradd(p, offset)], attrs={"align": _align_at(align, offset)})

    # ----- values -----
    def ltype(self, v: llvm.ValueRef) -> LType:
        return self.ctx.ltype_of(v.type)

    def lanes(self, v: llvm.ValueRef) -> list[Value]:
        kind = v.value_kind
        if kind == _INSTRUCTION or kind == _ARGUMENT:
            k = key(v)
            hit = self.values.get(k)
            if hit is None:
                if kind == _ARGUMENT:
                    raise Unsupported(f"argument {v.name} of another function")
                forward = [_Forward(scalar_type(t)) for t in scalar_leaves(self.ltype(v))]
                self.pending.setdefault(k, []).extend(forward)
                hit = self.values[k] = cast(list[Value], forward)
            return hit
        if kind == _CONSTANT_INT:
            t = scalar_type(self.ltype(v))
            return [Const(t, v.get_constant_value())]
        if kind == _GLOBAL:
            return [self.global_addr(v.name)]
        if kind == _FUNCTION:
            raise Unsupported(f"function @{v.name} used as a value")
        if kind in _NOT_VALUES:
            raise Unsupported(f"{kind.name} operand")
        text = str(v)
        hit = self._consts.get(text)
        if hit is None:
            cv = constant_from_text(text, self.ctx.resolve_struct)
            hit = self._consts[text] = self.cv_lanes(cv)
        return hit

    def lane(self, v: llvm.ValueRef) -> Value:
        ls = self.lanes(v)
        if len(ls) != 1:
            raise Unsupported(f"expected a scalar operand, got {self.ltype(v)}")
        return ls[0]

    def define(self, v: llvm.ValueRef, lanes: list[Value]) -> None:
        self.define_key(key(v), lanes)

    def define_key(self, k: int | str, lanes: list[Value]) -> None:
        fwd = self.pending.pop(k, None)
        if fwd is None and k in self.values:
            raise NeedsRecords(f"{k} defined twice")      # (%"5" and %5 in a body read in one pass)
        if fwd is not None:
            for f, real in zip(fwd, lanes):
                self.patch[id(f)] = real
        self.values[k] = lanes

    def global_addr(self, name: str) -> Value:
        ck = "@" + name
        hit = self._consts.get(ck)
        if hit is None:
            data = self.ctx.module_data(name)
            saved, self.sink = self.sink, self.prologue
            try:
                ins = self.emit("global_addr", [], ptr(data.addrspace), {"symbol": name}, name=name)
            finally:
                self.sink = saved
            assert self.func is not None
            target = self.func.local_memory if data.addrspace == 3 else self.func.constant_data
            if data not in target:
                target.append(data)
            hit = self._consts[ck] = [ins]
        return hit[0]

    def cv_lanes(self, cv: CV) -> list[Value]:
        """Lanes of a parsed constant; constant expressions are computed in the entry block."""
        k = cv.kind
        if k == "int":
            return [Const(scalar_type(cv.type), cv.value)]
        if k == "float":
            return [Const(scalar_type(cv.type), cv.value)]
        if k == "null":
            return [Const(scalar_type(cv.type), 0)]
        if k == "undef":
            return [Undef(scalar_type(t)) for t in scalar_leaves(cv.type)]
        if k == "zero":
            return [zero(scalar_type(t)) for t in scalar_leaves(cv.type)]
        if k == "agg":
            return [x for a in cv.args for x in self.cv_lanes(a)]
        if k == "global":
            return [self.global_addr(cv.value)]
        if k == "expr":
            saved, self.sink = self.sink, self.prologue
            try:
                return self.const_expr(cv)
            finally:
                self.sink = saved
        raise Unsupported(f"constant {cv.kind}")

    def const_expr(self, cv: CV) -> list[Value]:
        op = cv.value
        if op == "getelementptr":
            base = self.cv_lanes(cv.args[0])
            if len(base) != 1:
                raise Unsupported("vector getelementptr")
            idx = [self.cv_lanes(a)[0] for a in cv.args[1:]]
            return [self.gep(base[0], cv.extra[0], idx)]
        if op in _CASTS or op == "bitcast":
            src = cv.args[0]
            return self.cast(op, self.cv_lanes(src), src.type, cv.extra[0])
        a, b = (self.cv_lanes(x) for x in cv.args)
        return [self.emit(op, [x, y], x.type) for x, y in zip(a, b)]

    # ----- the function -----
    def read(self, is_kernel: bool = True, one_pass: bool = True) -> Function:
        fn = self.fn
        if isinstance(fn, TextFunction) and not READ_TEXT:        # llvmlite's values: llvmlite's function
            return FunctionReader(self.ctx, fn.llvm_function(), self.name).read(is_kernel)
        fn_text = self.ctx.function_text(fn)   # printed once: one by one is quadratic (slot numbering)
        try:
            ret_lt = self.ctx.return_type(fn)
        except TypeError_ as e:
            raise self.error(f"unsupported return type: {e}", NotSupported) from None
        args: list[Arg] = []
        arg_lanes: list[tuple[llvm.ValueRef, list[Value]]] = []
        meta = self.ctx.kernel_metadata(self.name, fn_text) if is_kernel else KernelMetadata()
        for param, a in enumerate(fn.arguments):
            try:
                leaves = scalar_leaves(self.ltype(a))
            except TypeError_ as e:
                raise self.error(f"unsupported type of argument {len(arg_lanes)}: {e}", NotSupported) from None
            arg_values: list[Value] = []
            base = a.name or (meta.arg_names[param] if param < len(meta.arg_names) else "")
            for i, t in enumerate(leaves):
                nm = base if len(leaves) == 1 else (f"{base}.{i}" if base else "")
                arg = Arg(scalar_type(t), len(args), nm, param)
                args.append(arg)
                arg_values.append(arg)
            arg_lanes.append((a, arg_values))
        ret_t = VOID if ret_lt.kind == "void" else scalar_type(ret_lt) if ret_lt.is_scalar else None
        if ret_t is None:
            raise self.error(f"unsupported return type {ret_lt}", NotSupported)
        func = self.func = Function(self.name, args, ret_t, is_kernel=is_kernel)
        func.source_name = self.ctx.source_name
        func.reqd_work_group_size = meta.reqd_work_group_size
        for a, arg_values in arg_lanes:
            self.values[key(a)] = arg_values
        arguments = [a for a, _ in arg_lanes]
        # (debug locations: the two-pass way notes them, from each block's instructions)
        if READ_TEXT and ONE_PASS and one_pass and "!dbg !" not in fn_text:
            opened = line_body(fn, fn_text, arguments, self.ctx.parse_type_text, self.ctx.global_kind,
                               self.block_named)
            if opened is not None:
                line_text, lines = opened
                for tok, record in line_text.locals.items():     # the parameters, by name too
                    self.values[name_key(tok)] = self.values[record.text_key]
                try:
                    line_phis, forward_users, forward_blocks = read_lines(
                        self, line_text, lines, str(sum(1 for a in arguments if not a.name)), _BINOPS)
                    self._complete_phis(line_phis, lambda ins: ins.text)
                except NeedsRecords:
                    line_text.release()
                    return FunctionReader(self.ctx, fn, self.name).read(is_kernel, one_pass=False)
                return self._finish(line_text, None if self.stale_lanes() else
                                    forward_users + [ins for b in forward_blocks for ins in b.instrs])
        body = read_function_text(fn, fn_text, arguments, self.ctx.parse_type_text,
                                  self.ctx.global_kind) if READ_TEXT else None
        if body is None and isinstance(fn, TextFunction):       # a layout the records do not read: llvmlite's
            return FunctionReader(self.ctx, fn.llvm_function(), self.name).read(is_kernel)
        if body is not None:
            llvm_blocks: list = body.blocks
            labels = [b.label for b in body.blocks]
            text_of: dict[int | str, str] = {}      # records carry their text
        else:
            llvm_blocks = list(fn.blocks)
            labels = _block_labels(fn_text, len(llvm_blocks), sum(1 for a in fn.arguments if not a.name))
            all_instrs = [ins for b in llvm_blocks for ins in b.instructions]
            texts = _instruction_texts(fn_text)
            if len(texts) != len(all_instrs):
                texts = [" ".join(str(ins).split()) for ins in all_instrs]
            text_of = {key(ins): t for ins, t in zip(all_instrs, texts)}

        def text(ins) -> str:
            """An instruction's text: a record carries its own; llvmlite's values are looked up."""
            return ins.text if body is not None else text_of[key(ins)]

        located = "!dbg !" in fn_text
        for b, label in zip(llvm_blocks, labels):
            blk = Block(b.name or label)
            self.blocks[key(b)] = blk
            func.blocks.append(blk)
            if located:
                blk.source_lines = self.ctx.block_source_lines([text(ins) for ins in b.instructions])
        notes = self.scope_notes = self.ctx.scope_notes() if "!dbg !" in fn_text else None
        phis: list = []
        simple = _SimpleForms(self, body).read if body is not None else None
        values, pending = self.values, self.pending
        for b in llvm_blocks:
            blk = self.blocks[key(b)]
            self.sink = blk
            self.block_label = blk.label
            for ins in b.instructions:
                if simple is not None:
                    self.text = ins.text
                    made = simple(ins, blk)
                    if made is not None:       # (hot: most instructions; define() inlined for a fresh value)
                        if ins._at:
                            base = ins._toks[0][1:].strip('"')
                            if not base.isdigit():
                                made.name = base
                            if ins.text_key in pending:
                                self.define(ins, [made])
                            else:
                                values[ins.text_key] = [made]
                        if notes is not None:
                            self.created = [made]
                            notes.note(blk, self.text, self.created)
                        continue
                    self.general(ins, blk, phis)
                else:
                    self.general(ins, blk, phis, text(ins))
        self._complete_phis(phis, text)
        return self._finish(body)

    def block_named(self, k: int | str, label: str) -> Block:
        """The block keyed `k` in a body read in one pass, made (labelled `label`) at its first mention."""
        blk = self.blocks.get(k)
        if blk is None:
            blk = self.blocks[k] = Block(label)
        return blk

    def general(self, ins, blk: Block, phis: list, llvm_text: str | None = None) -> None:
        """Read one instruction the general way (its operands' value kinds and lanes) into blk: a record of
        llvm_text.py, or with `llvm_text` (its text) llvmlite's value. A phi is made empty and put on `phis`
        for _complete_phis."""
        self.sink = blk
        self.text = ins.text if llvm_text is None else llvm_text
        self.created = []
        lanes: list[Value] | None
        try:
            op = ins.opcode
            if op == "phi":
                phi_lanes = [Phi(scalar_type(t)) for t in scalar_leaves(self.ltype(ins))]
                for p in phi_lanes:
                    blk.append(p)
                phis.append((ins, phi_lanes, blk.label))
                self.created = list(phi_lanes)
                lanes = cast(list[Value], phi_lanes)
            else:
                lanes = self.instruction(ins, op)
        except Unsupported as e:
            detail = f" ({e})" if str(e) else ""
            raise self.error(f"unsupported instruction: {self.text}{detail}", NotSupported) from None
        except (TypeError_, ValueError, KeyError, IndexError) as e:
            raise self.error(f"unsupported instruction: {self.text} ({e})", NotSupported) from None
        if lanes is not None:
            if llvm_text is None:
                if ins._at:
                    self._name_lanes(ins._toks[0][1:].strip('"'), lanes)
            else:
                self._name(lanes)
            self.define(ins, lanes)
        if self.scope_notes is not None:
            self.scope_notes.note(blk, self.text, self.created)

    def _complete_phis(self, phis: list, text) -> None:
        """Give each phi its incoming values, once every value of the function has been read (in the order
        the phis were read: a constant's address may be computed in the prologue)."""
        values, blocks_get = self.values, self.blocks.get
        for ins, phi_lanes, label in phis:
            self.block_label = label
            seen: set[int | str] = set()
            if isinstance(ins, list):                # (value, block) names, read by line_reader
                phi = phi_lanes[0]
                t = phi.type
                preds, operands = phi.blocks, phi.operands
                for v, b in ins:
                    if b in seen:
                        continue
                    seen.add(b)
                    pred = blocks_get(b)
                    if pred is None:
                        raise NeedsRecords(f"block {b}")
                    if v[0] == "%":
                        vals = values.get(v)
                        if vals is None:                 # never defined: lanes() would leave it pending
                            forward = _Forward(t)
                            self.pending.setdefault(v, []).append(forward)
                            vals = values[v] = [forward]
                        x = vals[0]
                    else:
                        x = Const(t, v == "true") if v == "true" or v == "false" else Const(t, int(v))
                    preds.append(pred)
                    operands.append(x)
                continue
            self.text = text(ins)
            for v, b in zip(ins.operands, ins.incoming_blocks):
                pk = key(b)
                if pk in seen:
                    continue
                seen.add(pk)
                vals = values.get(key(v)) if v.value_kind is _INSTRUCTION else None   # (lanes(), its common case)
                if vals is None:
                    self.sink = self.prologue
                    try:
                        vals = self.lanes(v)
                    except (Unsupported, TypeError_, ValueError) as e:
                        raise self.error(f"unsupported instruction: {self.text} ({e})", NotSupported) from None
                pred = self.blocks[pk]
                for p, x in zip(phi_lanes, vals):
                    p.blocks.append(pred)           # (Phi.add_incoming, inlined)
                    p.operands.append(x)

    def _finish(self, body: FunctionText | None, suspects: list[Instr] | None = None) -> Function:
        """The read function: placeholders resolved (in `suspects`, where given: the instructions that may
        use one), the prologue's constants first in the entry block."""
        func = self.func
        assert func is not None
        self.block_label = ""
        if self.pending:
            raise self.error("a value is used but never defined")
        entry = func.blocks[0]
        for ins in reversed(self.prologue.instrs):
            entry.insert(0, ins)
        if self.patch:
            placeholders = self.patch.keys()           # ids of the placeholders: a C-level test per instruction
            for ins in suspects if suspects is not None else (ins for blk in func.blocks for ins in blk.instrs):
                if not placeholders.isdisjoint(map(id, ins.operands)):
                    ins.operands = [self._resolve(o) if isinstance(o, _Forward) else o for o in ins.operands]
        if body is not None:
            body.release()
        if self.mem_loops:
            mem_loops.expand(func, self.mem_loops)
        func.update_cfg()
        return func

    def stale_lanes(self) -> bool:
        """Whether a placeholder outlived its value's definition. Defining a value replaces its own lane list,
        but a list built from a placeholder before then (a vector's insertelement of a later value, an
        extract from such a vector) keeps it, and an instruction read from that list afterwards (a phi
        completed at the end, a use after the definition) holds the placeholder where no pending use was
        tracked (fuzz subgroup-24143: a <2 x float> phi of an insertelement of a later phi). Once the body is
        read every value is defined, so any placeholder left in a list is such a one: then every instruction
        is searched."""
        return any(v.__class__ is _Forward for lanes in self.values.values() for v in lanes)

    def _resolve(self, v: Value) -> Value:
        """A placeholder's value; placeholders can stand for placeholders (a lane of a forward vector)."""
        while isinstance(v, _Forward):
            nxt = self.patch.get(id(v))
            if nxt is None:
                raise self.error("a value is used but never defined")
            v = nxt
        return v

    def _name(self, lanes: list[Value]) -> None:
        m = _NAME.match(self.text)
        if m:
            self._name_lanes(m.group(1).strip('"'), lanes)

    def _name_lanes(self, base: str, lanes: list[Value]) -> None:
        """Name the lanes this instruction made after its LLVM result `%base`."""
        if base.isdigit():
            return                  # LLVM's numbered values (%11) are unnamed: a slot, not a chosen name
        if len(lanes) == 1:
            v = lanes[0]
            if isinstance(v, Instr) and not v.name and v in self.created:      # (Values compare by identity)
                v.name = base
            return
        fresh = {id(x) for x in self.created}
        for i, v in enumerate(lanes):
            if isinstance(v, Instr) and id(v) in fresh and not v.name:
                v.name = base if len(lanes) == 1 else f"{base}.{i}"

    # ----- instructions -----
    def instruction(self, ins: llvm.ValueRef, op: str) -> list[Value] | None:
        ops = list(ins.operands)
        if op in _INT_BINOPS or op in _FLOAT_BINOPS:
            a, b = self.lanes(ops[0]), self.lanes(ops[1])
            attrs = {"approx": True} if op == "fdiv" and self.ctx.fpmath(self.text) >= 2.5 else None
            return [self.emit(op, [x, y], x.type, attrs) for x, y in zip(a, b)]
        if op == "fneg":
            return [self.emit("fneg", [x], x.type) for x in self.lanes(ops[0])]
        if op in ("icmp", "fcmp"):
            pred = self._predicate(op)
            a, b = self.lanes(ops[0]), self.lanes(ops[1])
            return [self.emit(op, [x, y], I1, {"pred": pred}) for x, y in zip(a, b)]
        if op == "select":
            c, a, b = (self.lanes(o) for o in ops)
            if len(c) == 1:
                c = c * len(a)
            return [self.emit("select", [x, y, z], y.type) for x, y, z in zip(c, a, b)]
        if op in _CASTS or op == "bitcast":
            return self.cast(op, self.lanes(ops[0]), self.ltype(ops[0]), self.ltype(ins))
        if op == "freeze":
            return [self.emit("freeze", [x], x.type) for x in self.lanes(ops[0])]
        if op == "getelementptr":
            return [self.gep_instruction(ins, ops)]
        if op == "alloca":
            return [self.alloca(ins)]
        if op == "load":
            if re.search(r"\bload atomic\b", self.text):
                return [self._atomic("load", self.lane(ops[0]), [], scalar_type(self.ltype(ins)))]
            return self.load_value(self.lane(ops[0]), self.ltype(ins), self._align())
        if op == "store":
            if re.search(r"\bstore atomic\b", self.text):
                self._atomic("store", self.lane(ops[1]), [self.lane(ops[0])], VOID)
                return None
            self.store_value(self.lanes(ops[0]), self.ltype(ops[0]), self.lane(ops[1]), self._align())
            return None
        if op == "atomicrmw":
            m = re.search(r"\batomicrmw\s+(?:volatile\s+)?(\w+)", self.text)
            kind = _ATOMICRMW.get(m.group(1)) if m else None
            if kind is None:
                raise Unsupported(f"atomicrmw {m.group(1) if m else '?'}")
            value = self.lane(ops[1])
            return [self._atomic(kind, self.lane(ops[0]), [value], value.type)]
        if op == "cmpxchg":
            compared, new = self.lane(ops[1]), self.lane(ops[2])
            old = self._atomic("cmpxchg", self.lane(ops[0]), [new, compared], compared.type)
            return [old, self.emit("icmp", [old, compared], I1, {"pred": "eq"})]
        if op == "extractelement":
            return [self.extract(self.lanes(ops[0]), ops[1])]
        if op == "insertelement":
            return self.insert(self.lanes(ops[0]), self.lane(ops[1]), ops[2])
        if op == "shufflevector":
            return self.shuffle(self.lanes(ops[0]), self.lanes(ops[1]))
        if op == "extractvalue":
            agg_t = self.ltype(ops[0])
            start, t = leaf_span(agg_t, self._indices(1))
            return self.lanes(ops[0])[start:start + len(scalar_leaves(t))]
        if op == "insertvalue":
            agg_t = self.ltype(ops[0])
            start, t = leaf_span(agg_t, self._indices(2))
            out = list(self.lanes(ops[0]))
            out[start:start + len(scalar_leaves(t))] = self.lanes(ops[1])
            return out
        if op == "call":
            return self.call(ins, ops)
        if op in ("br", "switch", "ret", "unreachable"):
            self.terminator(ins, op, ops)
            return None
        raise Unsupported()

    def _atomic(self, kind: str, ptr: Value, values: list[Value], t: Type) -> Value:
        """An `atomic` instruction; the scope is the work-group's for __local memory or when the
        instruction says syncscope("workgroup"), else the device's."""
        local = ptr.type.addrspace == 3 or 'syncscope("workgroup")' in self.text
        return self.emit("atomic", [ptr, *values], t, {"op": kind, "scope": "workgroup" if local else "device",
                                                        "order": "seq_cst"})

    def _predicate(self, op: str) -> str:
        words = self.text.split("=", 1)[-1].split()
        preds = ICMP_PREDS if op == "icmp" else FCMP_PREDS
        i = words.index(op)
        for w in words[i + 1:]:
            if w in preds:
                return w
        raise Unsupported("no predicate found")

    def _align(self) -> int:
        m = re.search(r",\s*align (\d+)", self.text)
        return int(m.group(1)) if m else 1

    def _indices(self, n_values: int) -> list[int]:
        cur = Cursor(self.text.split("=", 1)[1] if _NAME.match(self.text) else self.text)
        cur.next()  # extractvalue / insertvalue
        for i in range(n_values):
            if i:
                cur.expect(",")
            parse_typed_value(cur)
        out = []
        while cur.accept(","):
            t = cur.next()
            if not t.isdigit():
                break
            out.append(int(t))
        return out

    # casts
    def cast(self, op: str, lanes: list[Value], src: LType, dst: LType) -> list[Value]:
        dst_leaves = [scalar_type(t) for t in scalar_leaves(dst)]
        if op != "bitcast":
            return [self.emit(op, [x], t) for x, t in zip(lanes, dst_leaves)]
        if len(lanes) == len(dst_leaves):
            return [x if x.type == t else self.emit("bitcast", [x], t) for x, t in zip(lanes, dst_leaves)]
        # a bitcast that changes the number of lanes: regroup the bits through integers (little-endian)
        ints = [self.as_int(x) for x in lanes]
        sb, db = ints[0].type.bits, dst_leaves[0].bits
        out: list[Value] = []
        if sb > db:
            k = sb // db
            for x in ints:
                for j in range(k):
                    y = x if j == 0 else self.emit("lshr", [x, Const(x.type, j * db)], x.type)
                    out.append(self.emit("trunc", [y], int_type(db)))
        else:
            k = db // sb
            wide = int_type(db)
            for i in range(len(dst_leaves)):
                acc: Value | None = None
                for j in range(k):
                    y = self.emit("zext", [ints[i * k + j]], wide)
                    if j:
                        y = self.emit("shl", [y, Const(wide, j * sb)], wide)
                    acc = y if acc is None else self.emit("or", [acc, y], wide)
                assert acc is not None      # k >= 1 parts
                out.append(acc)
        return [self.from_int(x, t) for x, t in zip(out, dst_leaves)]

    def as_int(self, x: Value) -> Value:
        if x.type.is_int:
            return x
        if x.type.is_float:
            return self.emit("bitcast", [x], int_type(x.type.bits))
        return self.emit("ptrtoint", [x], I64)

    def from_int(self, x: Value, t: Type) -> Value:
        if t.is_int:
            return x
        if t.is_float:
            return self.emit("bitcast", [x], t)
        return self.emit("inttoptr", [x], t)

    # memory
    def gep_instruction(self, ins: llvm.ValueRef, ops: list) -> Value:
        body = self.text.split("=", 1)[1]
        cur = Cursor(body, self.ctx.resolve_struct)
        cur.expect("getelementptr")
        while cur.peek() in ("inbounds", "nuw", "nusw", "inrange"):
            if cur.next() == "inrange":
                while cur.next() != ")":
                    pass
        src = parse_type(cur)
        base = self.lanes(ops[0])
        idx = [self.lanes(o) for o in ops[1:]]
        if len(base) != 1 or any(len(i) != 1 for i in idx):
            raise Unsupported("vector getelementptr")
        return self.gep(base[0], src, [i[0] for i in idx])

    def gep(self, base: Value, src: LType, indices: list[Value]) -> Value:
        """ptradd(base, sum of index * stride) with the constant part folded."""
        const_off = 0
        terms: list[Value] = []
        ty = src
        for n, idx in enumerate(indices):
            if n == 0:
                stride = self.layout.alloc_size(src)
            elif ty.kind == "struct":
                if not isinstance(idx, Const):
                    raise Unsupported("variable struct index")
                field = int(idx.value)
                const_off += self.layout.field_offset(ty, field)
                ty = ty.elems[field]
                continue
            elif ty.kind in ("arr", "vec"):
                stride = self.layout.elem_offset(ty, 1)
                ty = ty.elem
            else:
                raise Unsupported(f"cannot index into {ty}")
            if isinstance(idx, Const):
                const_off += idx.signed() * stride
            elif isinstance(idx, Undef):
                raise Unsupported("undef index")
            else:
                i64 = self.to_i64(idx)
                terms.append(i64 if stride == 1 else self.emit("mul", [i64, self.i64(stride)], I64))
        off: Value | None = None
        for t in terms:
            off = t if off is None else self.emit("add", [off, t], I64)
        if off is None:
            return self.ptradd(base, const_off)
        if const_off:
            off = self.emit("add", [off, self.i64(const_off)], I64)
        return self.emit("ptradd", [base, off], base.type)

    def alloca(self, ins: llvm.ValueRef) -> Value:
        cur = Cursor(self.text.split("=", 1)[1], self.ctx.resolve_struct)
        cur.expect("alloca")
        cur.accept("inalloca")
        ty = parse_type(cur)
        count = 1
        if cur.peek() == "," and re.fullmatch(r"i\d+", cur.peek(1)):
            cur.next()
            cv = parse_typed_value(cur)
            if cv.kind != "int":
                raise Unsupported("variable-sized alloca")
            count = cv.value
        align = self._align() if ", align" in self.text else self.layout.align(ty)
        size = self.layout.alloc_size(ty) * count
        return self.emit("alloca", [], scalar_type(self.ltype(ins)), {"size": size, "align": align})

    def load_value(self, p: Value, ty: LType, align: int) -> list[Value]:
        try:
            leaves = memory_leaves(self.layout, ty)
        except TypeError_ as e:
            raise Unsupported(str(e)) from None
        return [self.load(p, off, scalar_type(t), align) for off, t in leaves]

    def store_value(self, vals: list[Value], ty: LType, p: Value, align: int) -> None:
        try:
            leaves = memory_leaves(self.layout, ty)
        except TypeError_ as e:
            raise Unsupported(str(e)) from None
        for v, (off, _t) in zip(vals, leaves):
            self.store(v, p, off, align)

    # vectors
    def extract(self, vec: list[Value], idx_ref: llvm.ValueRef) -> Value:
        idx = self.lane(idx_ref)
        if isinstance(idx, Const):
            lane = int(idx.value)
            return vec[lane] if lane < len(vec) else Undef(vec[0].type)
        out = vec[0]
        for i in range(1, len(vec)):
            hit = self.emit("icmp", [idx, Const(idx.type, i)], I1, {"pred": "eq"})
            out = self.emit("select", [hit, vec[i], out], vec[i].type)
        return out

    def insert(self, vec: list[Value], val: Value, idx_ref: llvm.ValueRef) -> list[Value]:
        idx = self.lane(idx_ref)
        out = list(vec)
        if isinstance(idx, Const):
            lane = int(idx.value)
            if lane < len(out):
                out[lane] = val
            return out
        for i in range(len(out)):
            hit = self.emit("icmp", [idx, Const(idx.type, i)], I1, {"pred": "eq"})
            out[i] = self.emit("select", [hit, val, out[i]], val.type)
        return out

    def shuffle(self, a: list[Value], b: list[Value]) -> list[Value]:
        cur = Cursor(self.text.split("=", 1)[1] if _NAME.match(self.text) else self.text,
                     self.ctx.resolve_struct)
        cur.expect("shufflevector")
        parse_typed_value(cur)
        cur.expect(",")
        parse_typed_value(cur)
        cur.expect(",")
        mask = parse_typed_value(cur)
        n = mask.type.count
        idx: list[int | None]
        if mask.kind in ("zero",):
            idx = [0] * n
        elif mask.kind == "undef":
            idx = [None] * n
        else:
            idx = [m.value if m.kind == "int" else None for m in mask.args]
        both = a + b
        return [Undef(a[0].type) if i is None else both[i] for i in idx]

    # calls
    def call(self, ins: llvm.ValueRef, ops: list) -> list[Value] | None:
        callee = ops[-1]
        if callee.value_kind != _FUNCTION:
            raise Unsupported("indirect call")
        name = callee.name
        args = ops[:-1]
        control = None
        bundles = _BUNDLES.search(self.text)
        if bundles:                                # a bundle's operands come after the arguments
            tags = _BUNDLE_TAG.findall(self.text, bundles.start())
            if tags != ["convergencectrl"]:
                other = next((t for t in tags if t != "convergencectrl"), "convergencectrl")
                raise Unsupported(f"operand bundle \"{other}\" (only one \"convergencectrl\" bundle is read)")
            control, args = self.lane(args[-1]), args[:-1]
            if not control.type.is_token:
                raise Unsupported("a convergencectrl bundle without a token")
        ret = self.ltype(ins)
        if not name.startswith("llvm.") and not self.ctx.is_declaration(name):
            raise Unsupported(f"call to @{name} could not be inlined (recursion?)")
        if name.startswith("llvm.") and builtins.intrinsic_base(name) in builtins.DROPPED:
            return None
        arg_lanes = [self.lanes(a) for a in args]
        arg_types = [self.ltype(a) for a in args]
        if name.startswith("llvm."):
            lanes = builtins.intrinsic(self, name, arg_lanes, arg_types, ret)
            return self._controlled(lanes, control)
        lanes = self._controlled(builtins.opencl(self, name, arg_lanes, arg_types, ret), control)
        if self.ctx.fpmath(self.text) >= 3.0:       # OpenCL's sqrt: 3 ULP unless correctly rounded is asked
            for made in self.created:
                if made.opcode == "math" and made.attrs["fn"] == "sqrt":
                    made.attrs["approx"] = True
        return lanes

    def _controlled(self, lanes: list[Value] | None, control: Value | None) -> list[Value] | None:
        """The call's convergencectrl token as the last operand of each convergent instruction it became
        (a convergence.loop's parent token as its only one)."""
        if control is not None:
            for made in self.created:
                if OPCODES[made.opcode].has("convergent"):
                    made.operands.append(control)
        return lanes

    def param_align(self, index: int) -> int:
        """`align N` of the index-th pointer argument in the call text (memcpy/memset), else 1."""
        args_text = self.text[self.text.index("(") + 1:] if "(" in self.text else ""
        parts = _split_top(args_text)
        if index < len(parts):
            m = re.search(r"\balign (\d+)", parts[index])
            if m:
                return int(m.group(1))
        return 1

    # terminators
    def terminator(self, ins: llvm.ValueRef, op: str, ops: list) -> None:
        blk = self.sink
        assert blk is not None
        if op == "ret":
            vals = self.lanes(ops[0]) if ops else []
            if len(vals) > 1:
                raise Unsupported("returning a vector or aggregate")
            self.emit("ret", vals, VOID)
        elif op == "unreachable":
            self.emit("unreachable", [], VOID)
        elif op == "br":
            if len(ops) == 1:
                self.emit("br", [], VOID).targets = [self.blocks[key(ops[0])]]
            else:
                cond = self.lane(ops[0])
                t, f = self.blocks[key(ops[2])], self.blocks[key(ops[1])]
                if t is f:
                    self.emit("br", [], VOID).targets = [t]
                else:
                    self.emit("cbr", [cond], VOID).targets = [t, f]
        else:
            cond = self.lane(ops[0])
            cases = self._case_values(cond.type)
            dests = [self.blocks[key(o)] for o in ops[1:]]
            if len(cases) != len(dests) - 1:
                raise Unsupported(f"found {len(cases)} case values for {len(dests) - 1} destinations")
            self.emit("switch", [cond], VOID, {"cases": cases}).targets = dests
        assert blk.instrs[-1].is_terminator

    def _case_values(self, t: Type) -> list[int]:
        body = self.text[self.text.index("[") + 1:self.text.rindex("]")]
        cases = []
        for m in re.finditer(r"i(\d+)\s+([-\w]+)\s*,\s*label", body):
            lit = m.group(2)
            v = 1 if lit == "true" else 0 if lit == "false" else int(lit, 0)
            bits = int(m.group(1))
            v &= (1 << bits) - 1
            cases.append(v - (1 << bits) if bits > 1 and v >> (bits - 1) else v)
        return cases


class _SimpleForms:
    """The commonest instructions read straight from their tokens: integer and float binary operators
    (but fdiv, whose !fpmath matters), icmp and br, on scalars of one-token types whose operands are
    locals already read or integer literals. They are most of a large kernel (69,000 of 77,000
    instructions of the 30,000-block generated one), and the general way (the record's operands parsed,
    then llvmlite's protocol: value kinds, keys, type lookups, per-lane lists) cost about three times as
    much per instruction. Anything else, or any operand not at hand (a forward reference, a constant
    other than an integer literal), answers None and is read the general way, which gives the same
    instruction."""

    def __init__(self, reader: FunctionReader, body: FunctionText):
        self.values, self.blocks = reader.values, reader.blocks
        self.locals: dict[str, Any] = body.locals          # `%name` -> its record (a text_key each)
        self.types = {t: scalar_type(reader.ctx.parse_type_text(t))
                      for t in ("i1", "i8", "i16", "i32", "i64", "half", "float", "double")}

    def operand(self, tok: str, t: Type) -> Value | None:
        if tok[0] == "%":
            record = self.locals.get(tok)
            lanes = self.values.get(record.text_key) if record is not None else None
            return lanes[0] if lanes is not None and len(lanes) == 1 else None
        if t.is_int:
            if tok == "true" or tok == "false":
                return Const(t, tok == "true")
            if DECIMAL.match(tok):
                return Const(t, int(tok))
        return None

    def read(self, ins: TextInstruction, blk: Block) -> Instr | None:
        """The instruction `ins` stands for, appended to blk; None: not a simple form."""
        toks, op = ins._toks, ins.opcode
        i, n = ins._at + 1, len(toks)
        if op == "br":
            if n > i + 1 and toks[i] == "label" and (n == i + 2 or toks[i + 2] == ","):
                target = self.locals.get(toks[i + 1])
                if target is None:
                    return None
                made = Instr("br", [], VOID)
                made.targets = [self.blocks[target.text_key]]
            elif toks[i] == "i1" and (n == i + 8 or n > i + 8 and toks[i + 8] == ",") \
                    and toks[i + 3] == "label" and toks[i + 6] == "label":
                cond = self.operand(toks[i + 1], I1)
                true, false = self.locals.get(toks[i + 4]), self.locals.get(toks[i + 7])
                if cond is None or true is None or false is None:
                    return None
                on_true, on_false = self.blocks[true.text_key], self.blocks[false.text_key]
                same = on_true is on_false
                made = Instr("br", [], VOID) if same else Instr("cbr", [cond], VOID)
                made.targets = [on_true] if same else [on_true, on_false]
            else:
                return None
            made.block = blk
            blk.instrs.append(made)
            return made
        attrs = None
        if op in _BINOPS:
            while toks[i] in FLAGS:
                i += 1
        elif op == "icmp":
            while toks[i] in FLAGS:
                i += 1
            if toks[i] not in ICMP_PREDS:
                return None
            attrs = {"pred": toks[i]}
            i += 1
        else:
            return None
        t = self.types.get(toks[i])
        if t is None or i + 4 > n or toks[i + 2] != "," or (i + 4 < n and toks[i + 4] != ","):
            return None
        # the two operands, as operand() reads them (a local's lookup inlined: most of a kernel's instructions)
        operands: list[Value] = []
        for tok in (toks[i + 1], toks[i + 3]):
            if tok[0] == "%":
                record = self.locals.get(tok)
                lanes = self.values.get(record.text_key) if record is not None else None
                if lanes is None or len(lanes) != 1:
                    return None
                operands.append(lanes[0])
            else:
                value = self.operand(tok, t)
                if value is None:
                    return None
                operands.append(value)
        made = Instr(op, operands, I1 if attrs is not None else operands[0].type, attrs)
        made.block = blk
        blk.instrs.append(made)
        return made


_BINOPS = _INT_BINOPS | (_FLOAT_BINOPS - {"fdiv"})    # fdiv's !fpmath matters: the general way reads it


def _align_at(align: int, offset: int) -> int:
    """Alignment known for base+offset when base is `align`-aligned."""
    if offset == 0:
        return align
    low = offset & -offset
    return min(align, low)


def _split_top(text: str) -> list[str]:
    """Split call arguments at top-level commas."""
    parts: list[str] = []
    cur: list[str] = []
    depth = 0
    for ch in text:
        if ch in "([{<":
            depth += 1
        elif ch in ")]}>":
            depth -= 1
            if depth < 0:
                break
        if ch == "," and depth == 0:
            parts.append("".join(cur))
            cur = []
        else:
            cur.append(ch)
    parts.append("".join(cur))
    return parts


def _instruction_texts(fn_text: str) -> list[str]:
    """Each instruction's text (whitespace-normalized, comments kept out), from the printed function.

    Instructions are the lines indented by two spaces; a switch continues up to its closing bracket."""
    out: list[str] = []
    open_switch = False
    body = fn_text[fn_text.index("{", fn_text.index("define")) + 1:]
    for line in body.splitlines():
        if open_switch:
            out[-1] += " " + line.strip()
            open_switch = line.strip() != "]"
            continue
        if line.startswith("  ") and not line.startswith("   ") and line.strip():
            text = " ".join(line.split())
            out.append(text)
            open_switch = text.startswith("switch ") and text.endswith("[")
    return out


def _block_labels(fn_text: str, n: int, unnamed_args: int) -> list[str]:
    """Labels of the blocks in order, from the printed function (unnamed blocks print their slot number)."""
    labels = []
    body = fn_text[fn_text.index("{", fn_text.index("define")) + 1:] if "define" in fn_text else fn_text
    for line in body.splitlines():
        m = re.match(r'^("[^"]*"|[-\w.$]+):', line)
        if m:
            labels.append(m.group(1).strip('"'))
    if len(labels) == n - 1:
        labels.insert(0, str(unnamed_args))   # an unnamed entry block takes the slot after the arguments
    elif len(labels) != n:
        labels = [""] * n
    return labels


def _define_line(fn_text: str) -> str:
    """The first of fn_text.splitlines() that starts `define`, splitting only up to it, a "\n"-ended piece
    at a time (splitting the whole printed function cost 0.04 CPU s at 100k blocks; it is the first line)."""
    start, size = 0, len(fn_text)
    while start < size:
        newline = fn_text.find("\n", start)
        end = size if newline < 0 else newline + 1
        for line in fn_text[start:end].splitlines():
            if line.startswith("define"):
                return line
        start = end
    return ""


def _define_name(header: str) -> str:
    m = re.search(r'@("[^"]*"|[-\w.$]+)\s*\(', header)
    return m.group(1).strip('"') if m else ""


def read_kernels(module_ref: llvm.ModuleRef, source_name: str = "<ir>", kernel: str | None = None,
                 prepared: bool = False, convergence: str = "auto") -> dict[str, Function]:
    """Every kernel of the module (or the one named) in CFG form, calls inlined and vectors scalarized,
    with the convergence control `convergence` asks for (lowering.frontend.convergence)."""
    if prepared or getattr(module_ref, "reconverge_kernels", None) is not None:
        mod = module_ref                 # prepare_module's output: already inlined
    else:
        mod = prepare_module(module_ref, source_name)
    names = require_kernels(mod, source_name)
    if kernel is not None:
        if kernel not in names:
            raise CompileError(f"{source_name}: no kernel named {kernel!r} "
                               f"(available: {', '.join(names) or 'none'})")
        names = [kernel]
    ctx = getattr(mod, "reconverge_context", None)     # a prepared module read a kernel at a time (Gen):
    if ctx is None or ctx.source_name != source_name:   # one context, its caches (types, metadata) shared
        ctx = ModuleContext(mod, source_name)
        mod.reconverge_context = ctx
    out = {}
    tokens = ctx.maybe_tokens()
    with gc_paused():                    # many small objects, few freed: the collector would rescan them all
        for n in names:
            reader = FunctionReader(ctx, kernel_body(mod, n), n)
            out[n] = reader.read()
            convergence_control(out[n], reader.scope_notes, convergence, f"{source_name}: kernel @{n}", tokens)
    return out


def kernel_text(mod: llvm.ModuleRef, name: str) -> str:
    """The printed function read_kernels read for kernel `name` (kernel_body's) from `mod`, which it has
    read: from the module's text where prepare_module kept it."""
    return mod.reconverge_context.function_text(kernel_body(mod, name))


def kernel_body(mod: llvm.ModuleRef, name: str) -> llvm.ValueRef:
    """The function holding kernel `name`'s code as clang wrote it.

    clang 22 emits `@k` and its twin `@__clang_ocl_kern_imp_k`; at -O0 `@k` is the twin already inlined by
    clang, and inlining merges blocks (a for loop's body and increment become one block). The twin keeps
    clang's own CFG, so it is read when it exists (at -O2 both hold the same optimised code)."""
    twin = None
    try:
        twin = mod.get_function(KERNEL_TWIN + name)
    except NameError:
        pass
    if twin is not None and not twin.is_declaration:
        return twin
    return mod.get_function(name)


def read_llvm_text(text: str, source_name: str = "<ir>", kernel: str | None = None) -> dict[str, Function]:
    from reconverge.lowering.frontend.llvm_module import parse_llvm_text
    return read_kernels(parse_llvm_text(text, source_name), source_name, kernel)
