"""Structured IR -> SPIR-V: the control-flow tree becomes structured control flow by construction.

The NIR-shaped tree already has what SPIR-V's structured rules (spec 2.11) ask for, so each construct maps
one to one:
- a block followed by an if ends in OpSelectionMerge(the block after the if) + OpBranchConditional to the
  first blocks of the two arms. That merge block is unique to the if (exactly one block follows each if);
- a loop gets two extra blocks: a header H holding the loop-header phis and OpLoopMerge(the block after the
  loop, C), then OpBranch to the body; and a continue target C that every `continue` and the body's end
  branch to, merging their values in phis, and that branches back to H. The body's first block may itself
  end in a selection, which is why H is separate (a block has one merge instruction at most);
- break is OpBranch to the loop's merge, continue to C, return is OpReturn; phis after ifs and loops keep
  their predecessors, which are the same blocks in SPIR-V.
A block control can never reach (after an if whose arms all jump, or an endless loop) is still the
construct's merge block: it is emitted as OpLabel + OpUnreachable, and the rest of its CF list, which is
unreachable as well, is left out. Block order is tree order, in which dominators come first.
"""
from __future__ import annotations

import sys

from reconverge.lowering.errors import CompileError, where
from reconverge.lowering.ir.core import (
    Arg,
    Block,
    Const,
    Function,
    If,
    Instr,
    Loop,
    Phi,
    Undef,
    Value,
    cf_lists,
    first_block,
    nesting_depth,
)
from reconverge.lowering.ir.types import Type
from reconverge.lowering.ndrange import compile_time_local_size

from .abi import KernelABI, PushMember, kernel_abi, local_spec_id
from .branch_plan import BranchPlan, plan_branches
from .dead_code import remove_dead_code
from .isel import InstructionSelector
from .memory import MemoryObject, MemoryPlan
from .module import SpirvModule
from .options import SpirvOptions
from .subgroups import SubgroupSelector
from .types import TypeTable

TYPE_CHECKING = False                   # not typing's: a compile's start-up does not import typing
if TYPE_CHECKING:
    from .bounds_check import BoundsCheck
    from .loop_count import LoopCounter


class ModuleEmitter:
    """One SPIR-V module holding any number of kernels, one GLCompute entry point each."""

    def __init__(self, options: SpirvOptions):
        self.options = options
        self.m = m = SpirvModule(version=options.version)
        m.capability("Shader")
        if options.version < (1, 3):
            m.extension("SPV_KHR_storage_buffer_storage_class")
        m.memory_model("Logical", "GLSL450")
        self.types = TypeTable(m)
        self.builtins: dict[str, int] = {}
        self.decorated: set[tuple[int, str]] = set()
        self.entry_names: set[str] = set()

    def builtin_variable(self, name: str, type_id: int | None = None) -> int:
        """The Input variable of a built-in (a uvec3 unless `type_id` says otherwise), declared once."""
        var = self.builtins.get(name)
        if var is None:
            var = self.m.global_variable(self.types.pointer("Input", type_id or self.types.v3u32), "Input")
            self.m.decorate(var, "BuiltIn", name)
            self.m.name(var, name)
            self.builtins[name] = var
        return var

    def storage_capabilities(self, bits: int) -> None:
        """8/16-bit elements in a storage buffer need the storage capabilities (core in 1.5 / 1.3)."""
        if bits == 8:
            self.m.capability("StorageBuffer8BitAccess")
            if self.options.version < (1, 5):
                self.m.extension("SPV_KHR_8bit_storage")
        elif bits == 16:
            self.m.capability("StorageBuffer16BitAccess")
            if self.options.version < (1, 3):
                self.m.extension("SPV_KHR_16bit_storage")

    def add_kernel(self, func: Function) -> None:
        if not func.is_structured:
            raise CompileError(f"{where(func)}: the SPIR-V backend needs the "
                               "structured form (run structurize)")
        if func.name in self.entry_names:
            raise CompileError(f"{where(func)}: two kernels with the same name")
        self.entry_names.add(func.name)
        FunctionEmitter(self, func).emit()

    def assemble(self) -> bytes:
        words = remove_dead_code(self.m.words())
        if sys.byteorder != "little":
            words.byteswap()
        return words.tobytes()


def local_size_of(func: Function, options: SpirvOptions) -> tuple[int, int, int]:
    return compile_time_local_size(options.local_size, func.reqd_work_group_size)


class FunctionEmitter(SubgroupSelector, InstructionSelector):
    def __init__(self, module: ModuleEmitter, func: Function):
        self.module, self.func = module, func
        self.m, self.types = module.m, module.types
        self.abi: KernelABI = kernel_abi(func)
        self.plan = MemoryPlan(func)
        self.local_size = local_size_of(func, module.options)
        self.ids: dict[Value, int] = {}
        self.forward: dict[Value, int] = {}     # ids handed out before the value was computed (back edges)
        self.labels: dict[Block, int] = {}
        self.loop_labels: dict[Loop, tuple[int, int]] = {}   # loop -> (header H, continue target C)
        self.variables: dict[MemoryObject, int] = {}
        self._offsets32: dict[tuple[Value, int | None], int] = {}
        self._low32: dict[Value, int] = {}          # a 64-bit work-item value -> its 32-bit source
        self.interface: dict[int, None] = {}
        self.push_variable: int | None = None
        self.push_struct: int | None = None
        self.push_read: list[PushMember] = []      # the push-constant members read, in first-read order
        self._local_size_id: int | None = None
        self.loop_counter: LoopCounter | None = None
        if module.options.count_loop_iterations:      # (a test's option: loop_count is imported only then)
            from .loop_count import LoopCounter
            self.loop_counter = LoopCounter(self)
        self.bounds_check: BoundsCheck | None = None
        if module.options.check_bounds:               # (launches only: bounds_check is imported only then)
            from .bounds_check import BoundsCheck
            self.bounds_check = BoundsCheck(self)

    # ----- naming things for messages -----
    def where(self, ins: Instr | None) -> str:
        return where(self.func, ins)

    # ----- values -----
    def const(self, t: Type, value) -> int:
        if t.is_int and t.bits == 1:
            return self.m.constant(self.types.bool, bool(value))
        if t.is_int or t.is_ptr:
            bits = 32 if t.is_ptr else t.bits
            return self.m.constant(self.types.uint(bits), int(value) & ((1 << bits) - 1))
        return self.m.constant(self.types.of(t), float(value))

    def value(self, v: Value) -> int:
        hit = self.ids.get(v)
        if hit is not None:
            return hit
        if isinstance(v, Const):
            return self.const(v.type, 0 if v.type.is_ptr else v.value)
        if isinstance(v, Undef):
            return self.m.undef(self.types.of(v.type))
        if isinstance(v, Arg):
            raise CompileError(f"{self.where(None)}: parameter {v.index} used before it was loaded")
        if not isinstance(v, Instr):        # (a reader's placeholder left behind, fuzz subgroup-24143: no definition)
            raise CompileError(f"{self.where(None)}: internal error: an operand of unknown kind {type(v).__name__}")
        fid = self.forward[v] = self.ids[v] = self.m.new_id()
        return fid

    def define(self, ins: Instr) -> None:
        res = self.forward.pop(ins, None)
        computed = self.lower(ins, res)
        if computed is not None:
            self.ids[ins] = self.settle_signed(ins, computed)

    # ----- global objects -----
    def note_interface(self, var: int) -> int:
        self.interface[var] = None
        return var

    def builtin_variable(self, name: str, type_id: int | None = None) -> int:
        return self.note_interface(self.module.builtin_variable(name, type_id))

    def local_size_constant(self) -> int:
        """WorkgroupSize as this entry point's LocalSize constant. (A BuiltIn WorkgroupSize constant would
        override LocalSize for every entry point of the module, and is deprecated in SPIR-V 1.6.)"""
        if self._local_size_id is None:
            parts = [self.u32(x) for x in self.local_size]
            self._local_size_id = self.m.constant_composite(self.types.v3u32, parts)
        return self._local_size_id

    def decorate_once(self, target: int, decoration: str, *args) -> None:
        key = (target, decoration)
        if key not in self.module.decorated:
            self.module.decorated.add(key)
            self.m.decorate(target, decoration, *args)

    def object_variable(self, obj: MemoryObject) -> int:
        var = self.variables.get(obj)
        if var is not None:
            return var
        m, types = self.m, self.types
        elem = types.uint(obj.elem_bits)
        if obj.kind == "buffer":
            self.module.storage_capabilities(obj.elem_bits)
            array = m.type("OpTypeRuntimeArray", elem)
            self.decorate_once(array, "ArrayStride", obj.elem_bytes)
            block = m.type("OpTypeStruct", array, unique=True)
            m.decorate(block, "Block")
            m.member_decorate(block, 0, "Offset", 0)
            if obj.readonly:
                m.member_decorate(block, 0, "NonWritable")
            m.name(block, f"{self.func.name}.{obj.name}.block")
            var = m.global_variable(types.pointer("StorageBuffer", block), "StorageBuffer")
            m.decorate(var, "DescriptorSet", 0)
            m.decorate(var, "Binding", next(b.binding for b in self.abi.buffers if b.arg is obj.arg))
        else:
            if obj.kind == "workgroup" and obj.arg is not None:      # a __local parameter: host-sized
                length = m.spec_constant(types.u32, 1, local_spec_id(obj.arg))
                m.name(length, f"{self.func.name}.{obj.name}.length")
            else:
                length = self.u32(obj.length)
            array = m.type("OpTypeArray", elem, length, unique=obj.arg is not None)
            pointer = types.pointer(obj.storage_class, array)
            if obj.kind == "workgroup":
                var = m.global_variable(pointer, "Workgroup")
            elif obj.kind == "constant":
                data = (obj.init or b"").ljust(obj.length * obj.elem_bytes, b"\0")
                words = [int.from_bytes(data[i:i + obj.elem_bytes], "little")
                         for i in range(0, len(data), obj.elem_bytes)]
                init = m.constant_composite(array, [m.constant(elem, w) for w in words])
                var = m.global_variable(pointer, "Private", init)
            else:
                var = m.function_variable(pointer)
        m.name(var, obj.name)
        if obj.kind != "private":
            self.note_interface(var)
        self.variables[obj] = var
        return var

    def load_push_member(self, member: PushMember, t: Type, res=None) -> int:
        m, types = self.m, self.types
        if self.push_variable is None:          # declared at the end (declare_push_block), with what is read
            self.push_struct, self.push_variable = m.new_id(), m.new_id()
            self.note_interface(self.push_variable)
        if member not in self.push_read:
            self.push_read.append(member)
        index = self.push_read.index(member)
        member_t = types.of(member.type)
        word = self.op("OpLoad", member_t, self.op("OpAccessChain", types.pointer("PushConstant", member_t),
                                                   self.push_variable, self.u32(index)))
        if t == member.type:
            return self.finish(res, t, word)
        if t.is_float:      # a half, stored in the low 16 bits
            half = self.op("OpUConvert", types.uint(16), word)
            return self.op("OpBitcast", types.of(t), half, result=res)
        if t.bits == 1:
            return self.op("OpINotEqual", types.bool, word, self.const(member.type, 0), result=res)
        return self.convert_int("OpUConvert", word, member.type, t, res)    # packed zero-extended

    def declare_push_block(self) -> None:
        """The push-constant Block with only the members the kernel reads (in first-read order, each at
        its ABI offset): the launcher fills the whole ABI block, and a shader may declare part of it."""
        if self.push_variable is None or self.push_struct is None:
            return
        m, types = self.m, self.types
        m.type("OpTypeStruct", *(types.of(x.type) for x in self.push_read), unique=True, result=self.push_struct)
        m.decorate(self.push_struct, "Block")
        for i, x in enumerate(self.push_read):
            m.member_decorate(self.push_struct, i, "Offset", x.offset)
            m.member_name(self.push_struct, i, x.name)
        m.name(self.push_struct, f"{self.func.name}.scalars")
        m.global_variable(types.pointer("PushConstant", self.push_struct), "PushConstant", result=self.push_variable)

    # ----- the function -----
    def emit(self) -> None:
        func, m, types = self.func, self.m, self.types
        blocks = func.all_blocks()         # edges as stored: the validator vouches for them
        for ins in func.instructions():
            if any(v.type.is_int and v.type.bits > 64 for v in (ins, *ins.operands)):
                raise CompileError(f"{self.where(ins)}: integers wider than 64 bits have no SPIR-V type")
        self.reachable = _reachable(func.entry())
        # (--emit dot-spirv names every block of the tree: there, every block is kept)
        self.empty_arms = set() if self.module.options.block_names else _empty_arms(func, self.reachable)
        self.plan_cf = BranchPlan() if self.module.options.block_names else \
            plan_branches(func, self.reachable, self.empty_arms)
        self.open_header: tuple[int, int] | None = None     # (merge, continue) of a header holding a body block
        self.prepare_signedness(func)
        names = None
        if self.module.options.block_names:         # --emit dot-spirv alone: a compile does not load the printer
            from reconverge.lowering.ir.printer import Namer
            names = Namer(func)
        for b in blocks:
            self.labels[b] = m.new_id()
            if b in self.empty_arms or b in self.plan_cf.skipped:      # never emitted (branch_plan.py)
                continue
            if names is not None:
                m.name(self.labels[b], names.block(b) + (f" ({b.label})" if b.label else ""))
            elif b.label:
                m.name(self.labels[b], b.label)
        for body in _loops(func):
            first_label = self.labels[first_block(body.body)]
            if body in self.plan_cf.single_block:
                self.loop_labels[body] = (first_label, first_label)
            else:
                self.loop_labels[body] = (first_label if body in self.plan_cf.header_first else m.new_id(),
                                          m.new_id())
        self.alias_dropped_blocks(func)
        for body in _loops(func):
            if names is not None:          # the loop's own header and continue target, after its first block
                first = names.block(first_block(body.body))
                m.name(self.loop_labels[body][0], f"loop.{first}")
                m.name(self.loop_labels[body][1], f"continue.{first}")
        fn_type = m.type("OpTypeFunction", types.void)
        fid = m.begin_function(types.void, fn_type)
        m.name(fid, func.name)
        self.emit_list(func.body, None, None)
        m.end_function()
        self.declare_push_block()
        used = list(self.interface) if self.module.options.version >= (1, 4) else \
            [v for v in self.interface if v in self.module.builtins.values()]
        m.entry_point("GLCompute", fid, func.name, used)
        m.execution_mode(fid, "LocalSize", *self.execution_local_size())
        self.declare_float_controls(fid)

    def declare_float_controls(self, fid: int) -> None:
        """For every float width of the module, RoundingModeRTE and (unless the build options give signed
        zeros up) SignedZeroInfNanPreserve (SPV_KHR_float_controls, core from SPIR-V 1.4). Without them
        Vulkan lets a driver round toward zero (its default rounding mode is RTE or RTZ, as the
        implementation chooses) and drop the sign of a zero or assume no Inf or NaN (Vulkan spec, "Precision
        and Operation of SPIR-V Instructions"), which OpenCL C does not allow; NVIDIA 580 turned `c ? -1.0f :
        0.0f` into -0.0 for a false c (`reconverge fuzz --seed 91763 --mode convergence`). The device must
        offer the width's shaderRoundingModeRTEFloat and shaderSignedZeroInfNanPreserveFloat properties
        (vulkan_run.check_float_controls)."""
        widths = self.m.float_widths()
        if not widths:
            return
        modes = ["RoundingModeRTE"] + (["SignedZeroInfNanPreserve"] if self.module.options.signed_zeros else [])
        for mode in modes:
            self.m.capability(mode)
        if self.module.options.version < (1, 4):
            self.m.extension("SPV_KHR_float_controls")
        for mode in modes:
            for width in widths:
                self.m.execution_mode(fid, mode, width)

    def alias_dropped_blocks(self, func: Function) -> None:
        """Labels of the blocks branch_plan drops: a bare arm's is its if's block (the source of the edge
        phis name), a dropped loop-body end's is the loop's continue target (where branches to it go)."""
        for nodes in cf_lists(func):
            for i, node in enumerate(nodes):
                if isinstance(node, If) and node in self.plan_cf.no_merge:
                    for arm in (node.then_list, node.else_list):
                        if arm[0] in self.plan_cf.bare:
                            self.labels[first_block(arm)] = self.labels[first_block(nodes[i - 1:])]
                elif isinstance(node, Loop):
                    end = node.body[-1]
                    if isinstance(end, Block) and end in self.plan_cf.skipped and end in self.reachable:
                        self.labels[end] = self.loop_labels[node][1]

    def load_arguments(self) -> None:
        """Scalar parameters are read once, at the top of the entry block (which dominates every use)."""
        read = {v for ins in self.func.instructions() for v in ins.operands} | \
            {node.cond for nodes in cf_lists(self.func) for node in nodes if isinstance(node, If)}
        for member in self.abi.push:
            if member.arg is not None and member.arg in read:
                self.ids[member.arg] = self.load_push_member(member, member.arg.type)
        for b in self.abi.buffers:
            self.ids[b.arg] = self.u32(0)
            self.object_variable(self.plan.base[b.arg])
        for arg in self.abi.locals:              # offset 0 into its Workgroup array
            self.ids[arg] = self.u32(0)
            self.object_variable(self.plan.base[arg])
        self.prepare_layout()
        if self.loop_counter is not None:
            self.loop_counter.prepare()
            from .loop_count import loops_inside
            self.loop_counter.count(loops_inside(self.func.body))
        if self.bounds_check is not None:
            self.bounds_check.prepare()

    def emit_list(self, nodes: list, follow: int | None, loop: tuple[int, int] | None) -> None:
        """Emit a CF list. `follow`: the label after its last block (None: the function returns);
        `loop`: (merge, continue target) of the innermost loop."""
        for i, node in enumerate(nodes):
            if isinstance(node, Block):
                if node in self.empty_arms or node in self.plan_cf.skipped:
                    if node not in self.reachable:      # what follows an if whose arms all jump: unreachable
                        return
                    continue
                if node not in self.reachable:
                    self.m.begin_block(self.labels[node])
                    self.m.op("OpUnreachable")
                    return
                self.emit_block(node, nodes, i, follow, loop)
            elif isinstance(node, If):
                after = self.labels[nodes[i + 1]]
                self.emit_list(node.then_list, after, loop)
                self.emit_list(node.else_list, after, loop)
            else:
                self.emit_loop(node, nodes, i)

    def emit_block(self, b: Block, nodes: list, i: int, follow: int | None, loop) -> None:
        m = self.m
        header = self.open_header
        self.open_header = None
        if header is None:                  # (else the loop header, begun by emit_loop, holds this block)
            m.begin_block(self.labels[b])
        if b is self.func.body[0]:
            self.load_arguments()
        if not (isinstance(b.parent, Loop) and b.parent.body[0] is b):    # header phis live in H
            for phi in b.phis():
                self.emit_phi(phi, [(self.labels[p], self.value(v)) for p, v in phi.incoming()
                                    if p in self.reachable])
        for ins in b.instrs:
            if not isinstance(ins, Phi) and not ins.is_jump:
                self.define(ins)
        jump = b.jump
        nxt = nodes[i + 1] if i + 1 < len(nodes) else None
        if header is not None:
            m.op("OpLoopMerge", *header, "None")
        if jump is not None:
            if jump.opcode == "return":
                self.emit_return()
            else:
                m.op("OpBranch", loop[0] if jump.opcode == "break" else loop[1])
        elif isinstance(nxt, If):
            after = self.labels[nodes[i + 2]]
            then_label, else_label = (self.arm_target(arm, after, loop) for arm in (nxt.then_list, nxt.else_list))
            cond = self.plan_cf.negated.get(nxt)
            if cond is not None:
                then_label, else_label = else_label, then_label
            if nxt not in self.plan_cf.no_merge:
                m.op("OpSelectionMerge", after, "None")
            m.op("OpBranchConditional", self.value(nxt.cond if cond is None else cond), then_label, else_label)
        elif isinstance(nxt, Loop):
            m.op("OpBranch", self.loop_labels[nxt][0])
        elif follow is None:
            self.emit_return()
        else:
            m.op("OpBranch", follow)

    def arm_target(self, arm: list, after: int, loop: tuple[int, int] | None) -> int:
        """Where an if's branch into `arm` goes: a bare break/continue's target, the block after the if
        for an empty arm, else the arm's first block."""
        bare = self.plan_cf.bare.get(arm[0])
        if bare is not None and loop is not None:
            return loop[0] if bare == "break" else loop[1]
        return after if arm[0] in self.empty_arms else self.labels[first_block(arm)]

    def emit_return(self) -> None:
        if self.loop_counter is not None:
            self.loop_counter.flush()
        if self.bounds_check is not None:
            self.bounds_check.flush()
        self.m.op("OpReturn")

    def emit_phi(self, phi: Phi, incoming: list[tuple[int, int]]) -> None:
        """OpPhi from (predecessor label, value id) pairs."""
        pairs = [x for label, value in incoming for x in (value, label)]
        self.ids[phi] = self.m.op_id("OpPhi", self.types.of(phi.type), *pairs, result=self.forward.pop(phi, None))

    def emit_loop(self, loop: Loop, nodes: list, i: int) -> None:
        m = self.m
        header, cont = self.loop_labels[loop]
        merge = self.labels[nodes[i + 1]]
        before, first = nodes[i - 1], first_block(loop.body)
        back = [p for p in first.preds if p is not before and p in self.reachable]
        m.begin_block(header)
        merged: list[tuple[Phi, int]] = []
        for phi in first.phis():
            if not back:
                from_c = self.m.undef(self.types.of(phi.type))
            elif len(back) == 1:
                from_c = self.value(phi.value_for(back[0]))
            else:
                from_c = m.new_id()
                merged.append((phi, from_c))
            self.emit_phi(phi, [(self.labels[before], self.value(phi.value_for(before))), (cont, from_c)])
        if self.loop_counter is not None:
            from .loop_count import loops_inside
            self.loop_counter.count(1 + loops_inside(loop.body))
        if loop in self.plan_cf.header_first:
            self.open_header = (merge, cont)        # emit_block ends the header with the first block's code
        else:
            m.op("OpLoopMerge", merge, cont, "None")
            m.op("OpBranch", self.labels[first])
        self.emit_list(loop.body, cont, (merge, cont))
        if cont == header:
            return
        m.begin_block(cont)
        for phi, from_c in merged:
            pairs = [x for p in back for x in (self.value(phi.value_for(p)), self.labels[p])]
            m.op("OpPhi", self.types.of(phi.type), *pairs, result=from_c)
        m.op("OpBranch", header)


def _empty_arms(func: Function, reachable: set[Block]) -> set[Block]:
    """The arms of ifs that are one empty block, where the block after the if has no phis (which would
    name the arm as a predecessor): the if's branch goes to that block directly, as glslang writes it."""
    out: set[Block] = set()
    for nodes in cf_lists(func):
        for i, node in enumerate(nodes):
            if not isinstance(node, If):
                continue
            after = nodes[i + 1]
            if not isinstance(after, Block) or next(after.phis(), None) is not None:
                continue
            for arm in (node.then_list, node.else_list):
                if len(arm) == 1 and isinstance(arm[0], Block) and not arm[0].instrs and arm[0] in reachable:
                    out.add(arm[0])
    return out


def _reachable(entry: Block) -> set[Block]:
    seen, work = {entry}, [entry]
    while work:
        for s in work.pop().succs:
            if s not in seen:
                seen.add(s)
                work.append(s)
    return seen


def _loops(func: Function) -> list[Loop]:
    return [node for nodes in cf_lists(func) for node in nodes if isinstance(node, Loop)]


# SPIR-V 1.6 spec, section 2.17 "Universal Limits": structured control flow nests at most 1023 deep
# (spirv-val checks it as "Maximum Control Flow nesting depth")
SPIRV_MAX_NESTING = 1023


def compile_module(funcs: list[Function], options: SpirvOptions) -> bytes:
    emitter = ModuleEmitter(options)
    for f in funcs:
        depth = nesting_depth(f)
        if depth > SPIRV_MAX_NESTING:
            raise CompileError(f"{where(f)}: control flow nests {depth} levels deep; "
                               f"SPIR-V allows at most {SPIRV_MAX_NESTING} (its universal limits)")
        emitter.add_kernel(f)
    return emitter.assemble()
