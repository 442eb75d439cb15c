"""The instruction set of the IR, as data: every opcode with its operand and result type rule, its
attribute schema and its properties. The front end emits only these; the validator checks every
instruction against this table, the interpreter and the reader take their opcode families from it.

Integer values are two's complement bit patterns (signedness lives in the opcode, as in LLVM); i1 is a bool.
Pointers are 64-bit byte addresses tagged with an address space (in the type).

A type rule is a function (operand types, result type, attributes) -> a problem in words, or None.
Properties:
- pure: no effect but its result (may be removed when unused, moved, or computed speculatively);
- reads_memory / writes_memory: touches memory through a pointer operand (or module data);
- terminator: ends a CFG-form block (targets in Instr.targets); jump: ends a structured-form block;
- convergent: all lanes of a group (or sub-group) that should run it together must reach it together,
  so no transformation may make it control-dependent on more or fewer values (LLVM's `convergent`);
- divergence_source: may give different lanes different results even from uniform operands.

Convergence control (LLVM LangRef, "Convergent Operation Semantics"): `convergence.entry/anchor/loop` give a
`token`; a convergent instruction may take one token as its LAST operand (LLVM's "convergencectrl" bundle),
and `convergence.loop` takes its parent token as its only operand. The type rules below never see that
trailing token (type_problem strips it); the validator checks the LangRef's static rules, and
lowering.passes.convergence honours and removes the tokens before any target sees the IR.
"""
from __future__ import annotations

from reconverge.lowering.ir.types import I1, I32, I64, TOKEN, VOID, Type
from reconverge.records import field, record

TYPE_CHECKING = False                   # not typing's: a compile's start-up does not import typing
if TYPE_CHECKING:
    from typing import Any, Callable, Iterable

    TypeRule = Callable[[list[Type], Type, dict[str, Any]], "str | None"]

ATOMIC_OPS = ("add", "sub", "xchg", "inc", "dec", "cmpxchg", "smin", "smax", "umin", "umax", "and", "or", "xor",
              "load", "store")
ATOMIC_SCOPES = ("workgroup", "device")
MEMORY_ORDERS = ("relaxed", "acquire", "release", "acq_rel", "seq_cst")

WORKITEM_FUNCTIONS = ("global_id", "local_id", "group_id", "global_size", "local_size", "num_groups",
                      "work_dim", "global_offset")
UNIFORM_WORKITEM_FUNCTIONS = ("group_id", "global_size", "local_size", "num_groups", "work_dim", "global_offset")

MATH_FUNCTIONS = ("sqrt", "rsqrt", "exp", "exp2", "exp10", "log", "log2", "log10", "sin", "cos", "tan",
                  "asin", "acos", "atan", "atan2", "sinh", "cosh", "tanh", "pow", "fabs", "floor", "ceil",
                  "round", "trunc", "rint", "copysign", "fmod", "hypot", "cbrt", "ldexp")
MATH_BINARY = ("atan2", "pow", "copysign", "fmod", "hypot", "ldexp")   # the others take one operand

# sub-groups (OpenCL C 3.0 section 6.15.16 and the cl_khr_subgroup_* extensions). Sizes and ids are i32.
# size is the sub-group's own (the last one of a work-group may be partial), max_size the target's width.
SUBGROUP_INFO = ("size", "max_size", "num", "id", "local_id")
UNIFORM_SUBGROUP_INFO = ("size", "max_size", "num", "id")      # the same for every lane of a sub-group
SUBGROUP_OPS = ("reduce", "inclusive_scan", "exclusive_scan", "broadcast", "broadcast_first", "shuffle",
                "shuffle_xor", "shuffle_up", "shuffle_down", "all", "any", "all_equal", "elect", "ballot")
SUBGROUP_SCANS = ("reduce", "inclusive_scan", "exclusive_scan")                  # take attrs['arith']
SUBGROUP_ARITH = ("add", "mul", "fadd", "fmul", "smin", "smax", "umin", "umax", "fmin", "fmax", "and", "or", "xor")
SUBGROUP_FLOAT_ARITH = ("fadd", "fmul", "fmin", "fmax")
# every active lane gets the same result (a clustered reduce does not: its result is per cluster)
SUBGROUP_UNIFORM_RESULTS = ("reduce", "broadcast", "broadcast_first", "all", "any", "all_equal", "ballot")

# a barrier's operand: OpenCL's cl_mem_fence_flags (CLK_LOCAL_MEM_FENCE 1, CLK_GLOBAL_MEM_FENCE 2,
# CLK_IMAGE_MEM_FENCE 4; OpenCL C 3.0 section 6.15.9)
FENCE_FLAGS = ((1, "local"), (2, "global"), (4, "image"))


def fence_spaces(flags: int | None) -> tuple[str, ...]:
    """The memory a barrier orders, from its flags (None: not a constant, so all local and global)."""
    if flags is None:
        return ("local", "global")
    return tuple(space for bit, space in FENCE_FLAGS if flags & bit)


CONVERGENCE_KINDS = ("entry", "anchor", "loop")


def _convergence(ops: list[Type], t: Type, attrs: dict[str, Any]) -> str | None:
    want = [TOKEN] if attrs.get("kind") == "loop" else []
    if ops != want or t != TOKEN:
        return f"convergence.{attrs.get('kind')} of {_names(ops)} -> {t} (expects {_names(want)} -> token)"
    return None


ICMP_PREDICATES = ("eq", "ne", "ugt", "uge", "ult", "ule", "sgt", "sge", "slt", "sle")
FCMP_PREDICATES = ("false", "oeq", "ogt", "oge", "olt", "ole", "one", "ord", "ueq", "ugt", "uge", "ult",
                   "ule", "une", "uno", "true")


@record(frozen=True)
class Attr:
    """One attribute of an opcode: its allowed values (a tuple) or its Python type, and whether it must be
    present."""
    allowed: tuple[object, ...] | type
    required: bool = True

    def problem(self, name: str, value: object) -> str | None:
        if isinstance(self.allowed, tuple):
            if value in self.allowed:
                return None
            return f"attribute {name} = {value!r} is not one of {', '.join(map(str, self.allowed))}"
        if self.allowed is int and (not isinstance(value, int) or isinstance(value, bool) or value < 0):
            return f"attribute {name} = {value!r} must be a non-negative integer"
        if not isinstance(value, self.allowed):
            return f"attribute {name} = {value!r} must be a {self.allowed.__name__}"
        return None


@record(frozen=True)
class Opcode:
    name: str
    kind: str           # family: int, float, cmp, select, cast, memory, builtin, ssa, control
    n_operands: int     # -1: variable (the type rule checks the count)
    types: TypeRule
    doc: str
    attrs: dict[str, Attr] = field(default_factory=dict)
    properties: frozenset[str] = frozenset()
    variant: str | None = None   # the attribute the text form writes as opcode.variant (icmp.slt)

    def has(self, prop: str) -> bool:
        return prop in self.properties


# ----- type rules
def _names(types: Iterable[Type]) -> str:
    return ", ".join(map(str, types)) or "nothing"


def same_as_result(kind: str) -> TypeRule:
    """Every operand has the result type, which is an integer (or a float)."""
    def rule(ops: list[Type], t: Type, attrs: dict[str, Any]) -> str | None:
        if t.kind != kind:
            return f"result is {t}, not {'an integer' if kind == 'int' else 'a float'}"
        if any(o != t for o in ops):
            return f"operands {_names(ops)} for a {t} result"
        return None
    return rule


def _unary_to(check: Callable[[Type, Type], bool], what: str) -> TypeRule:
    def rule(ops: list[Type], t: Type, attrs: dict[str, Any]) -> str | None:
        return None if check(ops[0], t) else f"{ops[0]} -> {t}: {what}"
    return rule


def _compare(kinds: tuple[str, ...]) -> TypeRule:
    def rule(ops: list[Type], t: Type, attrs: dict[str, Any]) -> str | None:
        if t != I1:
            return f"result is {t}, not i1"
        if ops[0] != ops[1] or ops[0].kind not in kinds:
            return f"compares {_names(ops)}"
        return None
    return rule


def _select(ops: list[Type], t: Type, attrs: dict[str, Any]) -> str | None:
    return None if ops == [I1, t, t] and t != VOID else f"select of {_names(ops)} -> {t}"


def _math(ops: list[Type], t: Type, attrs: dict[str, Any]) -> str | None:
    want = 2 if attrs.get("fn") in MATH_BINARY else 1
    if len(ops) != want:
        return f"{attrs.get('fn')} takes {want} operand{'s' * (want > 1)}, has {len(ops)}"
    if not t.is_float or ops[0] != t:
        return f"math on {_names(ops)} -> {t}"
    if want == 2 and attrs.get("fn") != "ldexp" and ops[1] != t:
        return f"math on {_names(ops)} -> {t}"
    if attrs.get("fn") == "ldexp" and not ops[1].is_int:
        return f"ldexp's exponent is {ops[1]}, not an integer"
    return None


def _alloca(ops: list[Type], t: Type, attrs: dict[str, Any]) -> str | None:
    return None if t.is_ptr and t.addrspace == 0 else f"alloca gives {t}, not a private pointer (ptr0)"


def _load(ops: list[Type], t: Type, attrs: dict[str, Any]) -> str | None:
    if not ops[0].is_ptr:
        return f"load through {ops[0]}, not a pointer"
    return "load of nothing (void result)" if t == VOID else None


def _store(ops: list[Type], t: Type, attrs: dict[str, Any]) -> str | None:
    if not ops[1].is_ptr:
        return f"store through {ops[1]}, not a pointer"
    if ops[0] == VOID or t != VOID:
        return f"store of {ops[0]} -> {t}"
    return None


def _ptradd(ops: list[Type], t: Type, attrs: dict[str, Any]) -> str | None:
    return None if ops[0].is_ptr and ops[1] == I64 and t == ops[0] else f"ptradd {_names(ops)} -> {t}"


def _global_addr(ops: list[Type], t: Type, attrs: dict[str, Any]) -> str | None:
    return None if t.is_ptr else f"global_addr gives {t}, not a pointer"


def _workitem(ops: list[Type], t: Type, attrs: dict[str, Any]) -> str | None:
    want = I32 if attrs.get("fn") == "work_dim" else I64
    if ops == [I32] and t == want:
        return None
    return f"workitem.{attrs.get('fn')} of {_names(ops)} -> {t} (expects i32 -> {want})"


def _barrier(ops: list[Type], t: Type, attrs: dict[str, Any]) -> str | None:
    return None if ops == [I32] and t == VOID else f"barrier of {_names(ops)} -> {t} (expects i32 fence flags)"


def _subgroup_info(ops: list[Type], t: Type, attrs: dict[str, Any]) -> str | None:
    return None if not ops and t == I32 else f"subgroup_info.{attrs.get('fn')} of {_names(ops)} -> {t} (expects -> i32)"


def _subgroup(ops: list[Type], t: Type, attrs: dict[str, Any]) -> str | None:
    op = attrs.get("op")
    if (op in SUBGROUP_SCANS) != ("arith" in attrs):
        return f"subgroup.{op} {'needs' if op in SUBGROUP_SCANS else 'takes no'} attribute arith"
    if "cluster" in attrs and (op != "reduce" or attrs["cluster"] < 1 or attrs["cluster"] & (attrs["cluster"] - 1)):
        return "attribute cluster belongs to subgroup.reduce and is a power of two"
    if ("word" in attrs) != (op == "ballot") or attrs.get("word", 0) > 3:
        return "subgroup.ballot (only) takes attribute word, 0 to 3 (which 32 lanes of the ballot it gives)"
    if op in SUBGROUP_SCANS:
        arith = attrs["arith"]
        want = t.is_float if arith in SUBGROUP_FLOAT_ARITH else t.is_int
        if ops != [t] or not want:
            return f"subgroup.{op} {arith} of {_names(ops)} -> {t}"
        return None
    expected: dict[str, tuple[list[Type], bool]] = {
        "broadcast": ([t, I32], t != VOID), "shuffle": ([t, I32], t != VOID), "shuffle_xor": ([t, I32], t != VOID),
        "shuffle_up": ([t, I32], t != VOID), "shuffle_down": ([t, I32], t != VOID),
        "broadcast_first": ([t], t != VOID), "all": ([I1], t == I1), "any": ([I1], t == I1),
        "all_equal": (ops[:1], t == I1 and len(ops) == 1 and ops[0] != VOID), "elect": ([], t == I1),
        "ballot": ([I1], t == I32)}
    want_ops, result_ok = expected[str(op)]
    return None if ops == want_ops and result_ok else f"subgroup.{op} of {_names(ops)} -> {t}"


_ATOMIC_VALUES = {"inc": 0, "dec": 0, "load": 0, "cmpxchg": 2}


def _atomic(ops: list[Type], t: Type, attrs: dict[str, Any]) -> str | None:
    op = str(attrs.get("op"))
    n_values = _ATOMIC_VALUES.get(op, 1)
    if len(ops) != 1 + n_values:
        return f"atomic {op} takes a pointer and {n_values} value{'s' * (n_values != 1)}, has {len(ops)} operands"
    if not ops[0].is_ptr:
        return f"atomic through {ops[0]}, not a pointer"
    value_type = ops[1] if op == "store" else t
    floats_too = op in ("xchg", "load", "store")          # OpenCL's atomic_xchg takes float as well
    if not (value_type.is_int or (floats_too and value_type.is_float)) or value_type.bits not in (32, 64):
        return f"atomic {op} on {value_type}: only i32 and i64" + (" (or f32, f64)" if floats_too else "")
    if op == "store" and t != VOID:
        return f"atomic store gives {t}"
    if any(o != value_type for o in ops[1:]):
        return f"atomic {op} values {_names(ops[1:])} for {value_type}"
    return None


def _phi(ops: list[Type], t: Type, attrs: dict[str, Any]) -> str | None:
    if t == VOID:
        return "phi without a type"
    return None if all(o == t for o in ops) else f"incoming {_names(ops)} for a {t} phi"


def _void(ops: list[Type], t: Type, attrs: dict[str, Any]) -> str | None:
    return None if t == VOID else f"result {t} on an instruction that has none"


def _var_load(ops: list[Type], t: Type, attrs: dict[str, Any]) -> str | None:
    return "var_load of nothing" if t == VOID else None


def _cbr(ops: list[Type], t: Type, attrs: dict[str, Any]) -> str | None:
    return None if ops == [I1] and t == VOID else f"branch on {_names(ops)}, not i1"


def _switch(ops: list[Type], t: Type, attrs: dict[str, Any]) -> str | None:
    return None if ops[0].is_int and t == VOID else f"switch on {ops[0]}, not an integer"


def _returned(ops: list[Type], t: Type, attrs: dict[str, Any]) -> str | None:
    # the returned value's type against the function's is checked by the validator, which knows it
    return None if len(ops) <= 1 and t == VOID else f"return of {_names(ops)} -> {t}"


# cast rules: (source check, result check, what must hold)
def _cast(op: str) -> TypeRule:
    checks: dict[str, tuple[Callable[[Type, Type], bool], str]] = {
        "trunc": (lambda a, b: a.is_int and b.is_int and b.bits < a.bits, "an integer to a narrower one"),
        "zext": (lambda a, b: a.is_int and b.is_int and b.bits > a.bits, "an integer to a wider one"),
        "sext": (lambda a, b: a.is_int and b.is_int and b.bits > a.bits, "an integer to a wider one"),
        "fptrunc": (lambda a, b: a.is_float and b.is_float and b.bits < a.bits, "a float to a narrower one"),
        "fpext": (lambda a, b: a.is_float and b.is_float and b.bits > a.bits, "a float to a wider one"),
        "fptoui": (lambda a, b: a.is_float and b.is_int, "a float to an integer"),
        "fptosi": (lambda a, b: a.is_float and b.is_int, "a float to an integer"),
        "uitofp": (lambda a, b: a.is_int and b.is_float, "an integer to a float"),
        "sitofp": (lambda a, b: a.is_int and b.is_float, "an integer to a float"),
        "ptrtoint": (lambda a, b: a.is_ptr and b.is_int, "a pointer to an integer"),
        "inttoptr": (lambda a, b: a.is_int and b.is_ptr, "an integer to a pointer"),
        "bitcast": (lambda a, b: a.bits == b.bits and a.kind not in ("void", "token") and a.is_ptr == b.is_ptr,
                    "same size, pointers to pointers only"),
        "addrspacecast": (lambda a, b: a.is_ptr and b.is_ptr, "a pointer to a pointer"),
        "freeze": (lambda a, b: a == b and a != VOID, "the same type"),
    }
    check, what = checks[op]
    return _unary_to(check, f"{op} converts {what}")


# ----- the table
PURE = frozenset({"pure"})
_ALIGN = {"align": Attr(int, required=False)}
_ATOMIC_ATTRS = {"op": Attr(ATOMIC_OPS), "scope": Attr(ATOMIC_SCOPES), "order": Attr(MEMORY_ORDERS)}


def _family(kind: str, n: int, names: str, rule: TypeRule, doc: str, **extra: Any) -> list[Opcode]:
    return [Opcode(name, kind, n, rule, doc, **extra) for name in names.split()]


OPCODES: dict[str, Opcode] = {op.name: op for op in [
    *_family("int", 2, "add sub mul shl lshr ashr and or xor", same_as_result("int"),
             "LLVM integer semantics on same-typed operands (wrapping); a shift by >= the width gives poison "
             "(optimised code may compute it speculatively: it must not trap)", properties=PURE),
    *_family("int", 2, "udiv sdiv urem srem", same_as_result("int"),
             "division by zero or INT_MIN / -1 is undefined behaviour (the interpreter reports it), so not "
             "speculated", properties=frozenset()),
    *_family("int", 2, "smin smax umin umax", same_as_result("int"), "integer min/max, signed or unsigned",
             properties=PURE),
    *_family("int", 2, "mulhi_s mulhi_u", same_as_result("int"), "high half of the double-width product",
             properties=PURE),
    *_family("int", 1, "abs", same_as_result("int"), "integer absolute value (INT_MIN stays INT_MIN)",
             properties=PURE),
    *_family("int", 1, "popcount clz ctz bitreverse", same_as_result("int"),
             "bit counting on the operand's width (clz/ctz of 0 = width)", properties=PURE),
    *_family("float", 2, "fadd fsub fmul fmin fmax", same_as_result("float"),
             "IEEE arithmetic in the operand type; fmin/fmax return the non-NaN operand", properties=PURE),
    Opcode("fdiv", "float", 2, same_as_result("float"), "IEEE division in the operand type; attrs['approx']: "
           "the source allows OpenCL's 2.5 ULP (LLVM's !fpmath, which clang sets unless "
           "-cl-fp32-correctly-rounded-divide-sqrt), so a target may divide approximately",
           {"approx": Attr(bool, required=False)}, PURE),
    Opcode("frem", "float", 2, same_as_result("float"), "remainder with the dividend's sign (C's fmod, LLVM's "
           "frem); attrs['relaxed']: its edges (zero sign, infinite divisor) are the target's (lower_math_edges)",
           {"relaxed": Attr(bool, required=False)}, PURE),
    *_family("float", 1, "fneg", same_as_result("float"), "sign flip", properties=PURE),
    *_family("float", 3, "fma", same_as_result("float"), "fused multiply-add a*b+c, one rounding", properties=PURE),
    *_family("float", 3, "fmuladd", same_as_result("float"),
             "a*b+c, rounded after the multiply and after the add (as the CPU JIT runs llvm.fmuladd)",
             properties=PURE),
    Opcode("math", "float", -1, _math, "attrs['fn'] in MATH_FUNCTIONS: libm function of 1-2 float operands "
           "(ldexp: float, integer; precision: the host libm's, not OpenCL's ulp bounds); attrs['relaxed']: "
           "the operands avoid the function's OpenCL edge cases (lowering.passes.lower_math_edges put it there); "
           "attrs['approx'] on sqrt: the source allows OpenCL's 3 ULP (LLVM's !fpmath), else it is correctly rounded",
           {"fn": Attr(MATH_FUNCTIONS), "relaxed": Attr(bool, required=False),
            "approx": Attr(bool, required=False)}, PURE, "fn"),
    Opcode("icmp", "cmp", 2, _compare(("int", "ptr")), "integer or pointer compare; result i1",
           {"pred": Attr(ICMP_PREDICATES)}, PURE, "pred"),
    Opcode("fcmp", "cmp", 2, _compare(("float",)), "float compare, ordered or unordered; result i1",
           {"pred": Attr(FCMP_PREDICATES)}, PURE, "pred"),
    Opcode("select", "select", 3, _select, "cond ? a : b", properties=PURE),
    *[Opcode(name, "cast", 1, _cast(name), "LLVM cast semantics to the result type (fptosi/fptoui out of range "
             "give poison); freeze is a copy", properties=PURE)
      for name in ("trunc zext sext fptrunc fpext fptoui fptosi uitofp sitofp ptrtoint inttoptr bitcast "
                   "addrspacecast freeze").split()],
    Opcode("alloca", "memory", 0, _alloca, "private memory of attrs['size'] bytes, attrs['align']; result ptr0",
           {"size": Attr(int), "align": Attr(int, required=False)}),
    Opcode("load", "memory", 1, _load, "load the result type from operand 0 (a pointer)", _ALIGN,
           frozenset({"reads_memory"})),
    Opcode("store", "memory", 2, _store, "store operand 0 to operand 1 (a pointer)", _ALIGN,
           frozenset({"writes_memory"})),
    Opcode("ptradd", "memory", 2, _ptradd, "pointer + i64 byte offset (GEPs are lowered to this)",
           properties=PURE),
    Opcode("global_addr", "memory", 0, _global_addr,
           "address of module data attrs['symbol'] (__local arrays, constant tables)",
           {"symbol": Attr(str)}, PURE),
    Opcode("workitem", "builtin", 1, _workitem,
           "attrs['fn'] in WORKITEM_FUNCTIONS of dimension operand 0 (i32); result i64 (work_dim: i32)",
           {"fn": Attr(WORKITEM_FUNCTIONS)}, frozenset({"pure", "divergence_source"}), "fn"),
    Opcode("barrier", "builtin", 1, _barrier, "work-group barrier; operand 0 = OpenCL fence flags (i32)",
           properties=frozenset({"convergent", "reads_memory", "writes_memory"})),
    Opcode("subgroup_info", "subgroup", 0, _subgroup_info,
           "attrs['fn'] in SUBGROUP_INFO: the sub-group's size (partial at a work-group's end), the target's "
           "sub-group size, the work-group's sub-group count, the sub-group's id, the lane's id in it; result i32",
           {"fn": Attr(SUBGROUP_INFO)}, frozenset({"pure", "divergence_source"}), "fn"),
    Opcode("subgroup", "subgroup", -1, _subgroup,
           "attrs['op'] in SUBGROUP_OPS over the sub-group's active lanes (those that run this instruction "
           "together): reduce/inclusive_scan/exclusive_scan with attrs['arith'] (and/or/xor on i1: the logical "
           "ones; attrs['cluster']: reduce within aligned clusters of that many lanes), broadcast (operand 1: "
           "the lane id), broadcast_first (the lowest active lane's), shuffle/shuffle_xor/shuffle_up/shuffle_down "
           "(operand 1: the lane, mask or delta; a source lane out of range or inactive gives an undefined "
           "value), all/any of an i1, all_equal, elect (true in the lowest active lane), ballot (i1 -> the "
           "attrs['word']th 32 bits of the active lanes' mask)",
           {"op": Attr(SUBGROUP_OPS), "arith": Attr(SUBGROUP_ARITH, required=False),
            "cluster": Attr(int, required=False), "word": Attr(int, required=False)},
           frozenset({"convergent", "divergence_source"}), "op"),
    Opcode("subgroup_barrier", "subgroup", 1, _barrier,
           "sub-group barrier (its lanes wait for each other; memory ordered as by barrier); operand 0 = "
           "OpenCL fence flags (i32)", properties=frozenset({"convergent", "reads_memory", "writes_memory"})),
    Opcode("atomic", "memory", -1, _atomic,
           "atomic read-modify-write at operand 0 (pointer): attrs['op'] in ATOMIC_OPS, operand 1 the value "
           "(none for inc/dec/load), operand 2 the compared value of cmpxchg; result: the old value (store: "
           "none). attrs['scope']: workgroup or device, attrs['order']: an OpenCL memory_order name",
           _ATOMIC_ATTRS, frozenset({"reads_memory", "writes_memory", "divergence_source"}), "op"),
    Opcode("convergence", "ssa", -1, _convergence,
           "a convergence-control token (LLVM's llvm.experimental.convergence.*, attrs['kind']): entry (the "
           "lanes that entered the kernel together), anchor (an implementation-chosen set: here the lanes that "
           "run it together), loop (operand 0 the parent token; in a cycle's header, one per iteration)",
           {"kind": Attr(CONVERGENCE_KINDS)}, frozenset({"convergent"}), "kind"),
    Opcode("phi", "ssa", -1, _phi, "one operand per predecessor block (Phi.blocks)", properties=PURE),
    Opcode("var_load", "ssa", 0, _var_load, "structurizer-internal: read variable attrs['var']; gone after "
           "SSA construction", {"var": Attr(object)}),
    Opcode("var_store", "ssa", 1, _void, "structurizer-internal: write variable attrs['var']; gone after SSA "
           "construction", {"var": Attr(object)}),
    # CFG form terminators (targets in Instr.targets)
    Opcode("br", "control", 0, _void, "goto targets[0]", properties=frozenset({"terminator"})),
    Opcode("cbr", "control", 1, _cbr, "operand 0 ? targets[0] : targets[1]", properties=frozenset({"terminator"})),
    Opcode("switch", "control", 1, _switch, "attrs['cases'][i] -> targets[i+1], otherwise targets[0]",
           {"cases": Attr(list)}, frozenset({"terminator"})),
    Opcode("ret", "control", -1, _returned, "return (operand 0 if the function returns a value)",
           properties=frozenset({"terminator"})),
    Opcode("unreachable", "control", 0, _void, "undefined behaviour if reached", properties=frozenset({"terminator"})),
    # structured form jumps
    Opcode("break", "control", 0, _void, "leave the innermost loop", properties=frozenset({"jump"})),
    Opcode("continue", "control", 0, _void, "go to the innermost loop's first block", properties=frozenset({"jump"})),
    Opcode("return", "control", -1, _returned, "leave the function", properties=frozenset({"jump"})),
]}

# (sets: only ever asked whether an opcode is one, and on hot walks)
TERMINATORS = frozenset(name for name, op in OPCODES.items() if op.has("terminator"))
JUMPS = frozenset(name for name, op in OPCODES.items() if op.has("jump"))
STRUCTURIZER_ONLY = ("var_load", "var_store")


def opcodes_of(kind: str) -> tuple[str, ...]:
    """The opcodes of one family, in table order (for example every cast, for a reader or an emitter)."""
    return tuple(name for name, op in OPCODES.items() if op.kind == kind)


def type_problem(opcode: str, operand_types: list[Type], result: Type, attrs: dict[str, Any]) -> str | None:
    """What is wrong with an instruction of `opcode` on these types and attributes, or None."""
    op = OPCODES.get(opcode)
    if op is None:
        return f"unknown opcode {opcode}"
    if operand_types and operand_types[-1] == TOKEN and op.has("convergent") and opcode != "convergence":
        operand_types = operand_types[:-1]          # the convergencectrl token: the validator checks it
    if op.n_operands >= 0 and len(operand_types) != op.n_operands:
        return f"{opcode} takes {op.n_operands} operand{'s' * (op.n_operands != 1)}, has {len(operand_types)}"
    for name, spec in op.attrs.items():
        if name not in attrs:
            if spec.required:
                return f"attribute {name} is missing"
        elif (problem := spec.problem(name, attrs[name])) is not None:
            return problem
    unknown = sorted(set(attrs) - set(op.attrs))
    if unknown:
        return f"unknown attribute {unknown[0]} on {opcode}"
    return op.types(operand_types, result, attrs)
