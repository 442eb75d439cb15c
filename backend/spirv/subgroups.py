"""Sub-group instructions (lowering/ir/opcodes.py: subgroup_info, subgroup, subgroup_barrier) as SPIR-V 1.3's
OpGroupNonUniform* with Subgroup scope, each declaring exactly the capability it needs (SPIR-V spec, section
3.31 "Capability", and the instructions' own capability lists in the grammar):

- subgroup_info max_size/id/local_id: the SubgroupSize, SubgroupId and SubgroupLocalInvocationId built-ins;
  size: min(SubgroupSize, local size - SubgroupId * SubgroupSize), OpenCL's partial last sub-group; num:
  ceil(local size / SubgroupSize), not NumSubgroups, which lavapipe rounds down (2 for 20 lanes of 8);
  elect: OpGroupNonUniformElect - GroupNonUniform;
- all, any, all_equal: OpGroupNonUniformAll/Any/AllEqual - GroupNonUniformVote;
- reduce, inclusive_scan, exclusive_scan: OpGroupNonUniformIAdd/IMul/FAdd/FMul/SMin/.../BitwiseXor, the
  Logical* ones on i1 - GroupNonUniformArithmetic; a reduce with a cluster: ClusteredReduce - GroupNonUniformClustered;
- ballot word w (OpGroupNonUniformBallot, component w), broadcast_first, broadcast of a constant lane (any lane
  from SPIR-V 1.5, where Id need only be uniform) - GroupNonUniformBallot;
- shuffle, shuffle_xor, and broadcast of a computed lane below SPIR-V 1.5 (as OpGroupNonUniformShuffle) -
  GroupNonUniformShuffle; shuffle_up, shuffle_down - GroupNonUniformShuffleRelative;
- subgroup_barrier: OpControlBarrier with Subgroup execution and memory scope, the fence flags' memory.

fmin/fmax: OpGroupNonUniformFMin/FMax should choose the other operand when one is a NaN, as OpenCL's fmin
does, and their result is undefined when every value used is a NaN (SPIR-V spec, OpGroupNonUniformFMin);
lavapipe's 16-bit FMin lets a NaN through (a sub-group of -1 and NaNs gave NaN). So a NaN operand enters the
group operation as the identity (+inf for fmin, -inf for fmax), and the emitter also counts the non-NaN
values with the same group operation: where there were values and none was a number, the result is a NaN
(an exclusive scan's first lane, which has no values, keeps the identity).

Which lanes form a sub-group is decided by the launch (SpirvOptions.subgroup_layout, backend.spirv.launch):
unset (`--emit spirv`), the module keeps the driver's LocalInvocationId; "full" and "checked" flatten the
work-group to (X*Y*Z, 1, 1) and derive OpenCL's local ids from a linear id L - "full":
L = SubgroupId * SubgroupSize + SubgroupLocalInvocationId, which the Vulkan spec makes a local invocation
index when full subgroups are enabled (the note under SubgroupLocalInvocationId), so sub-group k is OpenCL's
[k*S, (k+1)*S) by construction; "checked": L = LocalInvocationIndex, and every invocation writes
SubgroupId * SubgroupSize + SubgroupLocalInvocationId into slot L of an extra buffer, which the launcher
compares with L (a device that grouped lanes otherwise is refused after the run, its results dropped).
"""
from __future__ import annotations

from reconverge.lowering.errors import CompileError
from reconverge.lowering.ir.core import Const, Function, Instr
from reconverge.lowering.ir.types import Type

from .abi import kernel_abi
from .grammar import GRAMMAR

SUBGROUP_OPCODES = ("subgroup_info", "subgroup", "subgroup_barrier")
LAYOUTS = ("full", "checked")
I32 = Type("int", 32)

_BUILTINS = {"max_size": "SubgroupSize", "id": "SubgroupId", "local_id": "SubgroupLocalInvocationId"}
_INT_ARITH = {"add": "IAdd", "mul": "IMul", "smin": "SMin", "smax": "SMax", "umin": "UMin", "umax": "UMax",
              "and": "BitwiseAnd", "or": "BitwiseOr", "xor": "BitwiseXor"}
# i1 as OpenCL's logical operations: add and xor are xor (mod 2), mul and and are and; true is 1 unsigned
# (so umin is and, umax or) and -1 signed (so smin is or, smax and)
_BOOL_ARITH = {"and": "LogicalAnd", "mul": "LogicalAnd", "umin": "LogicalAnd", "smax": "LogicalAnd",
               "or": "LogicalOr", "umax": "LogicalOr", "smin": "LogicalOr", "xor": "LogicalXor", "add": "LogicalXor"}
_FLOAT_ARITH = {"fadd": "FAdd", "fmul": "FMul", "fmin": "FMin", "fmax": "FMax"}
_GROUP_OPERATIONS = {"reduce": "Reduce", "inclusive_scan": "InclusiveScan", "exclusive_scan": "ExclusiveScan"}
_SIMPLE = {  # op -> (instruction, capability) for those taking (scope, value[, lane])
    "all": ("OpGroupNonUniformAll", "GroupNonUniformVote"), "any": ("OpGroupNonUniformAny", "GroupNonUniformVote"),
    "all_equal": ("OpGroupNonUniformAllEqual", "GroupNonUniformVote"),
    "broadcast_first": ("OpGroupNonUniformBroadcastFirst", "GroupNonUniformBallot"),
    "shuffle": ("OpGroupNonUniformShuffle", "GroupNonUniformShuffle"),
    "shuffle_xor": ("OpGroupNonUniformShuffleXor", "GroupNonUniformShuffle"),
    "shuffle_up": ("OpGroupNonUniformShuffleUp", "GroupNonUniformShuffleRelative"),
    "shuffle_down": ("OpGroupNonUniformShuffleDown", "GroupNonUniformShuffleRelative")}


def uses_subgroups(func: Function) -> bool:
    return any(ins.opcode in SUBGROUP_OPCODES for ins in func.instructions())


def layout_check_binding(func: Function) -> int:
    """The storage-buffer binding of a "checked" launch's layout record: after the kernel's buffers and the
    loop counters (backend.spirv.loop_count.counter_binding)."""
    return 2 + max((b.binding for b in kernel_abi(func).buffers), default=-1)


TYPE_CHECKING = False                   # not typing's: a compile's start-up does not import typing
if TYPE_CHECKING:          # what it is mixed in beside, for the type checker; a plain mixin at run time
    from .isel import InstructionSelector as _Host
else:
    _Host = object


class SubgroupSelector(_Host):
    """Mixed into the function emitter beside isel.InstructionSelector (whose helpers it uses)."""

    _flat_local: int | None = None

    def subgroup_scope(self) -> int:
        if self.module.options.version < (1, 3):
            raise CompileError(f"{self.where(self.current)}: sub-group operations need SPIR-V 1.3 or later "
                               "(Vulkan 1.1; --spirv-version)")
        self.m.capability("GroupNonUniform")
        return self.u32(GRAMMAR.enumerant("Scope", "Subgroup"))

    def subgroup_builtin(self, name: str) -> int:
        """The u32 value of a sub-group built-in (SubgroupSize, SubgroupId, ...), loaded here."""
        self.subgroup_scope()
        return self.op("OpLoad", self.types.u32, self.builtin_variable(name, self.types.u32))

    # ----- the work-group layout of a launch (SpirvOptions.subgroup_layout) -----
    def prepare_layout(self) -> None:
        """In the entry block: OpenCL's local id vector from the linear id L (see the module docstring)."""
        layout = self.module.options.subgroup_layout
        if layout is None:
            return
        u32 = self.types.u32
        lanes = self.op("OpIAdd", u32, self.op("OpIMul", u32, self.subgroup_builtin("SubgroupId"),
                                               self.subgroup_builtin("SubgroupSize")),
                        self.subgroup_builtin("SubgroupLocalInvocationId"))
        if layout == "full":
            linear = lanes
        else:
            linear = self.op("OpLoad", u32, self.builtin_variable("LocalInvocationIndex", u32))
            self._record_layout(linear, lanes)
        lx, ly, _ = self.local_size
        x = self.op("OpUMod", u32, linear, self.u32(lx))
        y = self.op("OpUMod", u32, self.op("OpUDiv", u32, linear, self.u32(lx)), self.u32(ly))
        z = self.op("OpUDiv", u32, linear, self.u32(lx * ly))
        self._flat_local = self.op("OpCompositeConstruct", self.types.v3u32, x, y, z)

    def _record_layout(self, linear: int, lanes: int) -> None:
        """record[group * local size + L] = SubgroupId * SubgroupSize + SubgroupLocalInvocationId."""
        from .loop_count import group_record
        types, u32 = self.types, self.types.u32
        var, first = group_record(self, "subgroup_layout", layout_check_binding(self.func))
        slot = self.op("OpIAdd", u32, first, linear)
        pointer = self.op("OpAccessChain", types.pointer("StorageBuffer", u32), var, self.u32(0), slot)
        self.m.op("OpStore", pointer, lanes)

    def flat_local_id(self) -> int | None:
        """OpenCL's local id vector under a launch layout (None: the LocalInvocationId built-in is it)."""
        return self._flat_local

    def execution_local_size(self) -> tuple[int, int, int]:
        x, y, z = self.local_size
        return (x * y * z, 1, 1) if self.module.options.subgroup_layout else (x, y, z)

    # ----- the instructions -----
    def _op_subgroup_info(self, ins: Instr, res) -> int:
        fn = ins.attrs["fn"]
        if fn in _BUILTINS:
            return self.finish(res, ins.type, self.subgroup_builtin(_BUILTINS[fn]))
        u32 = self.types.u32
        width = self.subgroup_builtin("SubgroupSize")
        total = self.local_size[0] * self.local_size[1] * self.local_size[2]
        if fn == "num":         # ceil(local size / S): lavapipe's NumSubgroups rounds down (2 for 20 lanes of 8)
            return self.op("OpUDiv", u32, self.op("OpIAdd", u32, self.u32(total - 1), width), width, result=res)
        first = self.op("OpIMul", u32, self.subgroup_builtin("SubgroupId"), width)
        left = self.op("OpISub", u32, self.u32(total), first)
        return self.glsl(I32, "UMin", width, left, result=res)

    def _op_subgroup_barrier(self, ins: Instr, res) -> None:
        semantics = self.barrier_semantics(ins.operands[0])
        scope = self.subgroup_scope()
        self.m.op("OpControlBarrier", scope, scope, self.u32(semantics))
        return None

    def _op_subgroup(self, ins: Instr, res) -> int:
        op = ins.attrs["op"]
        scope = self.subgroup_scope()
        t = ins.type
        if op in _GROUP_OPERATIONS:
            return self._group_arith(ins, res, scope)
        if op == "elect":
            return self.op("OpGroupNonUniformElect", self.types.bool, scope, result=res)
        if op == "ballot":
            self.m.capability("GroupNonUniformBallot")
            v4 = self.m.type("OpTypeVector", self.types.u32, 4)
            mask = self.op("OpGroupNonUniformBallot", v4, scope, self.value(ins.operands[0]))
            return self.op("OpCompositeExtract", self.types.u32, mask, ins.attrs["word"], result=res)
        if op == "broadcast":
            lane = ins.operands[1]
            if isinstance(lane, Const) or self.module.options.version >= (1, 5):
                self.m.capability("GroupNonUniformBallot")      # Id: a constant before 1.5, uniform from 1.5
                return self.op("OpGroupNonUniformBroadcast", self.types.of(t), scope, self.value(ins.operands[0]),
                               self.value(lane), result=res)
            op = "shuffle"
        name, capability = _SIMPLE[op]
        self.m.capability(capability)
        return self.op(name, self.types.of(t), scope, *(self.value(x) for x in ins.operands), result=res)

    def _group_arith(self, ins: Instr, res, scope: int) -> int:
        op, arith, t = ins.attrs["op"], ins.attrs["arith"], ins.type
        cluster = ins.attrs.get("cluster")
        if cluster is not None and self.module.options.emulate_clustered:
            return self._clustered_by_shuffles(ins, res, scope, cluster)
        extra: tuple[int, ...]
        if cluster is not None:
            self.m.capability("GroupNonUniformClustered")
            operation, extra = "ClusteredReduce", (self.u32(cluster),)
        else:
            self.m.capability("GroupNonUniformArithmetic")
            operation, extra = _GROUP_OPERATIONS[op], ()
        x = self.value(ins.operands[0])
        if t.is_float:
            name = "OpGroupNonUniform" + _FLOAT_ARITH[arith]
        elif t.bits == 1:
            name = "OpGroupNonUniform" + _BOOL_ARITH[arith]
        else:
            name = "OpGroupNonUniform" + _INT_ARITH[arith]
        type_id = self.types.of(t)
        if arith in ("smin", "smax") and t.bits != 1:     # signed operand and result, as glslang writes them
            # (Value, then ClusterSize: NVIDIA 580's compiler crashed on the two swapped, which spirv-val let by)
            return self._signed(name, type_id, [self.as_signed(x), *extra], res, (scope, operation))
        if arith not in ("fmin", "fmax"):
            return self.op(name, type_id, scope, operation, x, *extra, result=res)
        identity = self.const(t, float("inf") if arith == "fmin" else float("-inf"))
        number = self.op("OpSelect", type_id, self.op("OpIsNan", self.types.bool, x), identity, x)
        raw = self.op(name, type_id, scope, operation, number, *extra)
        return self._nan_if_only_nans(ins, res, scope, operation, extra, x, raw)

    def _nan_if_only_nans(self, ins: Instr, res, scope: int, operation: str, extra: tuple, x: int, raw: int) -> int:
        """`raw` (a group FMin/FMax), or a NaN where the values it used were all NaNs (see the docstring)."""
        u32, b = self.types.u32, self.types.bool
        number = self.op("OpSelect", u32, self.op("OpIsNan", b, x), self.u32(0), self.u32(1))
        numbers = self.op("OpGroupNonUniformIAdd", u32, scope, operation, number, *extra)
        only_nans = self.op("OpIEqual", b, numbers, self.u32(0))
        if operation == "ExclusiveScan":       # no values at all (the first active lane): the identity stays
            seen = self.op("OpGroupNonUniformIAdd", u32, scope, operation, self.u32(1))
            only_nans = self.op("OpLogicalAnd", b, only_nans, self.op("OpINotEqual", b, seen, self.u32(0)))
        nan = self.const(ins.type, float("nan"))
        return self.op("OpSelect", self.types.of(ins.type), only_nans, nan, raw, result=res)

    def _clustered_by_shuffles(self, ins: Instr, res, scope: int, cluster: int) -> int:
        """A clustered reduce without GroupNonUniformClustered: each lane reads the cluster's lanes with
        OpGroupNonUniformShuffle, in lane order, and folds those a ballot of the active lanes names (a shuffle
        from an inactive lane is undefined, so its value is never used). fmin/fmax skip NaNs and give a NaN
        where the cluster's active values all were."""
        arith, t = ins.attrs["arith"], ins.type
        self.m.capability("GroupNonUniformShuffle")
        self.m.capability("GroupNonUniformBallot")
        u32, b, type_id = self.types.u32, self.types.bool, self.types.of(t)
        x = self.value(ins.operands[0])
        lane = self.subgroup_builtin("SubgroupLocalInvocationId")
        base = self.op("OpBitwiseAnd", u32, lane, self.u32(~(cluster - 1) & 0xFFFFFFFF))
        active = self.op("OpGroupNonUniformBallot", self.m.type("OpTypeVector", u32, 4), scope,
                         self.const(Type("int", 1), True))
        acc, have = self.m.undef(type_id), self.const(Type("int", 1), False)
        for k in range(cluster):
            source = self.op("OpIAdd", u32, base, self.u32(k))
            value = self.op("OpGroupNonUniformShuffle", type_id, scope, x, source)
            use = self.op("OpGroupNonUniformBallotBitExtract", b, scope, active, source)
            if arith in ("fmin", "fmax"):
                use = self.op("OpLogicalAnd", b, use, self.op("OpLogicalNot", b, self.op("OpIsNan", b, value)))
            combined = self.op("OpSelect", type_id, have, self._combine(arith, t, acc, value), value)
            acc = self.op("OpSelect", type_id, use, combined, acc)
            have = self.op("OpLogicalOr", b, have, use)
        if arith in ("fmin", "fmax"):
            return self.op("OpSelect", type_id, have, acc, self.const(t, float("nan")), result=res)
        return self.finish(res, t, acc)

    def _combine(self, arith: str, t: Type, a: int, c: int) -> int:
        """a (arith) c for one clustered-reduce step (non-NaN operands for fmin/fmax)."""
        type_id = self.types.of(t)
        if t.is_float:
            if arith in ("fmin", "fmax"):       # operands are numbers here: a compare and a select
                smaller = self.op("OpFOrdLessThan", self.types.bool, c, a)
                return self.op("OpSelect", type_id, smaller, c, a) if arith == "fmin" else \
                    self.op("OpSelect", type_id, smaller, a, c)
            operation = {"fadd": "OpFAdd", "fmul": "OpFMul"}[arith]
            result = self.op(operation, type_id, a, c)
            self.m.decorate(result, "NoContraction")
            return result
        if t.bits == 1:
            name = {"LogicalAnd": "OpLogicalAnd", "LogicalOr": "OpLogicalOr",
                    "LogicalXor": "OpLogicalNotEqual"}[_BOOL_ARITH[arith]]
            return self.op(name, type_id, a, c)
        if arith in ("smin", "smax", "umin", "umax"):
            return self.glsl(t, {"smin": "SMin", "smax": "SMax", "umin": "UMin", "umax": "UMax"}[arith], a, c)
        name = {"add": "OpIAdd", "mul": "OpIMul", "and": "OpBitwiseAnd", "or": "OpBitwiseOr",
                "xor": "OpBitwiseXor"}[arith]
        return self.op(name, type_id, a, c)
