"""Random OpenCL C kernels free of undefined behaviour by construction (after Csmith and CLsmith: Lidbury,

Over 600 lines: one generator class whose statement and expression makers share its scope state
(the variables in scope, the loop nest, the guards that keep each operation free of UB).

Lascu, Chong, Donaldson, "Many-Core Compiler Fuzzing", PLDI 2015).

Every work-item computes on private variables of several types and folds all of them into one checksum,
out[gid]; the comparison of that one number per work-item across targets is the test. Undefined or
unspecified behaviour cannot be written:

- integer arithmetic is done in uint/ulong (wrapping); signed values exist as bit casts (as_int) and are
  only compared, shifted right or divided through safe_sdiv/safe_smod (divisor 0 and INT_MIN / -1 give
  the dividend); unsigned divisors are `| 1u`;
- shift counts are masked (& 31u, & 63u);
- array and buffer indices are masked to the (power-of-two) length;
- every loop counts its iterations in a guard counter with a small bound, so the trip counts depend on
  the data but stay finite (the whole kernel runs a few thousand statements per work-item at most, far
  below lavapipe's 65,535 iterations per loop), and control flow nests at most MAX_DEPTH levels (lavapipe
  goes wrong from 80);
- floats hold integer values of at most 2^16 (clamped after every assignment, inputs are integers) and go
  through + - * only, which OpenCL C rounds correctly; with expressions at most two operations deep no
  value reaches infinity, so no NaN is made and no denormal either. `#pragma OPENCL FP_CONTRACT OFF`
  forbids fused multiply-adds. Division and math built-ins only write the `fapprox` buffer, compared
  within the OpenCL C ULP bounds (tools/testing/float_policy.py), never feeding other values;
- `goto` cycles count their steps like loops; no declaration is jumped over;
- barriers stand only at the kernel's top level (uniform control flow, no early return before the last);
  __local exchanges follow a fixed permutation of the work-items, between two barriers;
- atomics are commutative and associative (add/sub/inc/dec, or, and, xor, min, max, one family per
  counter) and their results are never read, so the final counters do not depend on the order;
- sub-group operations (mode subgroup, and all): reductions, scans, votes, ballots and their bit queries,
  broadcast_first and the shuffle of the first active lane anywhere, in uniform code (the kernel's top level
  before any return, where every lane is active) also broadcasts of lane 0, shuffles by xor with 1, 2, 4 and
  sub_group_barrier; floats only through add, min and max of integer values below 2^16 (exact sums).
  The answers depend on the sub-group size, which the runner matches per target. They are drawn from
  their own random stream, so an `all` program is the one it was before sub-groups with their
  statements added.

Modes (CLsmith's, plus goto and subgroup): basic, vector, barrier, atomic, goto, subgroup, all; and cfg
(the LLVM IR CFGs of tools/testing/cfggen.py, irreducible ones among them).
"""
from __future__ import annotations

import contextlib
import random
from collections.abc import Iterator
from dataclasses import dataclass, field

from reconverge.tools.fuzz import MODES

FEATURES = {
    "basic": {"float"},
    "vector": {"float", "vector"},
    "barrier": {"barrier"},
    "atomic": {"atomic", "barrier"},
    "goto": {"goto", "float"},
    "subgroup": {"float", "subgroup"},
    "all": {"float", "vector", "barrier", "atomic", "goto", "approx", "subgroup"},
    "convergence": {"float", "subgroup", "convergence"},
}
# chance of a sub-group statement before each statement
SUBGROUP_RATE = {"subgroup": 0.3, "all": 0.08, "convergence": 0.3}
NESTED_DO_RATE = 0.04      # convergence mode: a seed-004 nested do/while before a statement (its own stream)
CONTINUE_LOOP_RATE = 0.04  # convergence mode: a while loop gone back to from two places (continue_loop; its own)
SIGNED_ZERO_RATE = 0.05    # convergence mode: a select of 1.0 and a zero of the other sign (signed_zero; its own)
CLOSED_LOOP_RATE = 0.02    # convergence mode: a loop LLVM can end in closed form, left with an operation (its own)
INNER_EXIT_RATE = 0.005    # convergence mode: a while ending in an inner loop left by a break (inner_exit_loop)
GOTO_LOOP_RATE = 0.006     # convergence mode: closed_loop's shape written with goto (goto_loop; its own stream)
LINE_RATE = 0.01           # convergence mode: a `#line` naming another file before a statement (its own stream)
CHOSEN_ELEMENT_RATE = 0.03  # every C mode: a small private array whose elements are chosen by conditions (its own)
RUNTIME_FILL_RATE = 0.03   # every C mode but convergence (its pinned seeds stay): the private array filled or
#                            copied up to a run-time bound (runtime_fill; its own stream)
BOOL_FLOAT_RATE = 0.03     # every C mode but convergence (which has signed_zero): a float a condition makes -1.0,
#                            1.0 or a signed zero (bool_float; its own stream)
INT_BUILTIN_RATE = 0.06    # every C mode but convergence: an integer built-in on a type and width of its own
#                            (int_builtin; its own stream)
INT_TYPES = ("char", "uchar", "short", "ushort", "int", "uint", "long", "ulong")
FUSED_RATE = 0.04          # every C mode but convergence: an fma whose product is not exact, folded into a uint
#                            variable (fused_residual; its own stream)
LINE_IN_GOTO_LOOP = 0.3    # ... and before a goto loop's operation, in its loop (redteam2 g02)
IN_SIZE = 256               # elements of `in` (indices are masked with IN_SIZE - 1)
LOCAL_WORDS = 64            # elements of the __local exchange array: the largest work-group generated
COUNTERS = 8                # global atomic counters; counter c takes only ATOMIC_FAMILIES[c]
ATOMIC_FAMILIES = ("add", "add", "or", "and", "xor", "min", "max", "add")
APPROX_SLOTS = 4            # fapprox floats per work-item
MAX_DEPTH = 5               # nesting of statements (far below lavapipe's 80)
MAX_LOOPS = 3               # loops (and goto cycles) nested in each other: at most 6 * 6 * 10 iterations
FLOAT_LIMIT = 65536.0

@dataclass
class FuzzProgram:
    """One generated program: its source, how to launch it and the arguments it is run with."""
    seed: int
    mode: str
    source: str
    language: str                       # "cl" (OpenCL C) or "ll" (LLVM IR text)
    global_size: int
    local_size: int
    kernel: str = "k"
    uses_approx: bool = False           # fapprox holds division / math built-in results (compared in ULPs)
    irreducible: bool = False           # may contain cycles with two entries (the tree cannot take them)
    n_arg: int = 0                      # the scalar `n` (cl programs)
    arg_names: list[str] = field(default_factory=list)
    uses_subgroups: bool = False        # its answers depend on the sub-group size
    build_options: tuple[str, ...] = ()  # clang's, for a cl program (convergence mode: -g)
    cl_source: str = ""                 # an ll program made from OpenCL C (convergence mode's tokens): that source

    @property
    def name(self) -> str:
        return f"{self.mode}-{self.seed}"

    def make_args(self) -> list:
        """Fresh arguments (new arrays at every call) from the program's seed."""
        import numpy as np  # here: `reconverge --help` loads this module for MODES
        rng = np.random.default_rng(self.seed)
        if self.language == "ll" and not self.cl_source:
            return [np.zeros(self.global_size, np.int32),
                    rng.integers(-1000, 1000, self.global_size).astype(np.int32)]
        pick = rng.integers(0, 4, IN_SIZE)
        small = rng.integers(0, 16, IN_SIZE)
        medium = rng.integers(0, 2000, IN_SIZE)
        wide = rng.integers(0, 1 << 32, IN_SIZE, dtype=np.uint64)
        edge = rng.choice(np.array([0, 1, 0x7fffffff, 0x80000000, 0xffffffff, 0xfffffffe], np.uint64), IN_SIZE)
        data = np.select([pick == 0, pick == 1, pick == 2], [small, medium, wide], edge).astype(np.uint32)
        counters = rng.integers(0, 1 << 20, COUNTERS).astype(np.uint32)
        return [np.zeros(self.global_size, np.uint32), data, counters,
                np.zeros(self.global_size * APPROX_SLOTS, np.float32), np.uint32(self.n_arg)]


# ----- the OpenCL C generator ----------------------------------------------------------------------------

PRELUDE = """\
#pragma OPENCL FP_CONTRACT OFF
static inline int safe_sdiv(int a, int b) { return (b == 0 || (a == (-2147483647 - 1) && b == -1)) ? a : a / b; }
static inline int safe_smod(int a, int b) { return (b == 0 || (a == (-2147483647 - 1) && b == -1)) ? 0 : a % b; }
static inline float fclampi(float x) { return x > 65536.0f ? 65536.0f : (x < -65536.0f ? -65536.0f : x); }
static inline uint hmix(uint h, uint x) { return (h ^ x) * 16777619u + 2654435769u; }
"""

KERNEL_PARAMS = ("__global uint *out, __global const uint *in, __global uint *cnt, __global float *fapprox, "
                 "uint n")
ARG_NAMES = ["out", "in", "cnt", "fapprox", "n"]
SCALAR_TYPES = ("uint", "uint", "int", "uchar", "ushort", "ulong")
INTERESTING = ("0u", "1u", "0x2u", "3u", "7u", "31u", "255u", "0x7fffffffu", "0x80000000u", "0xffffffffu",
               "0xfffffffeu", "65535u", "16u")


class _Var:
    __slots__ = ("name", "type")

    def __init__(self, name: str, type_: str):
        self.name, self.type = name, type_


class _Loop:
    """An enclosing loop: its flag variable (1: break it, 2: continue it) set by inner loops."""
    __slots__ = ("flag", "used")

    def __init__(self, flag: str):
        self.flag, self.used = flag, False


class _ClGen:
    def __init__(self, rng: random.Random, features: set[str], size: int,
                 subgroup: tuple[random.Random, float] | None = None):
        self.rng = rng
        self.subgroup = subgroup             # (its own random stream, chance per statement)
        self.uses_subgroups = False
        self.returned = False                # a return may have ended some lanes
        self.ballots = 0
        self.features = features
        self.size = size                     # statements budget
        self.statements = 0
        self.counter = 0
        self.scalars: list[_Var] = []
        self.floats: list[_Var] = []
        self.vectors: list[_Var] = []
        self.arrays: list[tuple[str, int]] = []
        self.readonly: list[str] = []        # loop counters in scope (uint, never assigned)
        self.context: list[object] = []      # _Loop or "switch", innermost last
        self.allow_return = True
        self.uses_approx = False
        self.uses_goto = False
        self.loops = 0                       # loops (and goto machines) around the statement being made
        self.leaf_depth = 0
        self.nested_do_stream: random.Random | None = None   # convergence mode: nested_do's own stream
        self.nested_dos = 0
        self.continue_loop_stream: random.Random | None = None     # ... continue_loop's
        self.continue_loops = 0
        self.signed_zero_stream: random.Random | None = None       # ... signed_zero's
        self.closed_loop_stream: random.Random | None = None       # ... closed_loop's
        self.closed_loops = 0
        self.goto_loop_stream: random.Random | None = None         # ... goto_loop's
        self.goto_loops = 0
        self.inner_exit_stream: random.Random | None = None        # ... inner_exit_loop's
        self.inner_exits = 0
        self.line_stream: random.Random | None = None              # ... line_directive's
        self.chosen_element_stream: random.Random | None = None    # ... chosen_element's (every C mode)
        self.chosen_elements = 0
        self.runtime_fill_stream: random.Random | None = None      # ... runtime_fill's (every C mode but one)
        self.runtime_fills = 0
        self.bool_float_stream: random.Random | None = None        # ... bool_float's (every C mode but one)
        self.int_builtin_stream: random.Random | None = None       # ... int_builtin's (every C mode but one)
        self.fused_stream: random.Random | None = None             # ... fused_residual's (every C mode but one)
        # a clustered reduction's operand type: drawn from a stream of its own, so that the sub-group stream
        # (and every seed's program from before) is unchanged
        self.cluster_type_stream: random.Random | None = None

    @contextlib.contextmanager
    def _drawing_from(self, stream: random.Random | None) -> Iterator[None]:
        """Statements drawn from a stream of their own: the main stream, and so the rest of the program, is
        the same with or without them (old campaigns' seeds and the tests that pin them)."""
        assert stream is not None
        main, self.rng = self.rng, stream
        try:
            yield
        finally:
            self.rng = main

    def fresh(self, prefix: str) -> str:
        self.counter += 1
        return f"{prefix}{self.counter}"

    def chance(self, p: float) -> bool:
        return self.rng.random() < p

    # -- expressions (all of type uint unless named otherwise) ---------------------------------------------

    def leaf(self) -> str:
        rng = self.rng
        r = rng.random() if self.leaf_depth < 2 else 0.86 + 0.14 * rng.random()
        if r < 0.45 and self.scalars:
            v = rng.choice(self.scalars)
            return {"int": f"as_uint({v.name})", "ulong": f"(uint)({v.name} >> {rng.choice((0, 13, 32))})"}.get(
                v.type, f"(uint){v.name}" if v.type != "uint" else v.name)
        if r < 0.55 and self.readonly:
            return rng.choice(self.readonly)
        if r < 0.62:
            return rng.choice(("gid", "lid"))
        if r < 0.7:
            return f"in[({self.index_expr()}) & {IN_SIZE - 1}u]"
        if r < 0.76 and self.arrays:
            name, length = rng.choice(self.arrays)
            return f"{name}[({self.index_expr()}) & {length - 1}u]"
        if r < 0.8 and self.floats:
            return f"(uint)(int){rng.choice(self.floats).name}"
        if r < 0.85 and self.vectors:
            v = rng.choice(self.vectors)
            lane = rng.choice(("x", "y", "z", "w", "s2", "s3"))
            return f"as_uint({v.name}.{lane})" if v.type == "int4" else f"{v.name}.{lane}"
        if r < 0.93:
            return rng.choice(INTERESTING)
        return f"{rng.randrange(1 << 32)}u"

    def index_expr(self) -> str:
        self.leaf_depth += 1
        try:
            return self.expr(1)
        finally:
            self.leaf_depth -= 1

    def expr(self, depth: int) -> str:
        rng = self.rng
        if depth <= 0 or self.chance(0.25):
            return self.leaf()
        a = self.expr(depth - 1)
        r = rng.random()
        if r < 0.35:
            return f"({a} {rng.choice('+-*&|^')} {self.expr(depth - 1)})"
        if r < 0.45:
            return f"({a} {rng.choice(('<<', '>>'))} ({self.expr(depth - 1)} & 31u))"
        if r < 0.5:
            return f"({a} {rng.choice('/%')} ({self.expr(depth - 1)} | 1u))"
        if r < 0.54:
            return f"as_uint(safe_s{rng.choice(('div', 'mod'))}(as_int({a}), as_int({self.expr(depth - 1)})))"
        if r < 0.58:
            return f"as_uint(as_int({a}) >> ({self.expr(depth - 1)} & 31u))"
        if r < 0.66:
            return f"(uint)({self.condition(depth - 1)})"
        if r < 0.74:
            return f"({self.condition(depth - 1)} ? {a} : {self.expr(depth - 1)})"
        if r < 0.8:
            return f"({rng.choice(('~', '-'))}{a})"
        if r < 0.92:
            fn = rng.choice(("min", "max", "rotate", "mul_hi", "add_sat", "sub_sat", "hadd", "abs_diff"))
            return f"{fn}({a}, {self.expr(depth - 1)})"
        fn = rng.choice(("clz", "popcount"))
        return f"{fn}({a})"

    def condition(self, depth: int) -> str:
        rng = self.rng
        r = rng.random()
        if r < 0.35:
            a, b = self.expr(depth), self.expr(depth)
            if a == b:                  # clang warns about comparing a thing with itself
                b = f"{rng.randrange(1 << 32)}u"
            return f"({a} {rng.choice(('<', '>', '<=', '>=', '==', '!='))} {b})"
        if r < 0.55:
            return f"(as_int({self.expr(depth)}) {rng.choice(('<', '>', '<=', '>='))} {rng.randint(-50, 50)})"
        if r < 0.75:
            mask = rng.choice((1, 3, 7, 15))
            return f"((({self.expr(depth)}) & {mask}u) == {rng.randint(0, min(mask, 3))}u)"
        if r < 0.83 and self.floats:
            f, g = rng.choice(self.floats).name, self.fexpr(1)
            return f"({f} {rng.choice(('<', '>', '<=', '=='))} {g if g != f else '0.0f'})"
        if r < 0.92 and depth > 0:
            return f"({self.condition(depth - 1)} {rng.choice(('&&', '||'))} {self.condition(depth - 1)})"
        return f"(!{self.condition(max(0, depth - 1))})" if depth > 0 else f"({self.leaf()} != 0u)"

    def side_effect_condition(self) -> tuple[str, str]:
        """`c && (v op= e)`-style: the assignment runs only when the short circuit lets it; (the condition,
        the variable it modifies)."""
        target = self.rng.choice([v for v in self.scalars if v.type == "uint"])
        op = self.rng.choice(("+=", "^=", "*=", "-="))
        effect = f"(({target.name} {op} {self.expr(1)}) & {self.rng.choice((1, 3, 8))}u)"
        first = self.condition(1)
        return f"({first} {self.rng.choice(('&&', '||'))} {effect})", target.name

    def fleaf(self) -> str:
        r = self.rng.random()
        if r < 0.55 and self.floats:
            return self.rng.choice(self.floats).name
        if r < 0.8:
            return f"(float)(as_int({self.expr(1)}) % 4096)"
        return f"{self.rng.randint(-20, 20)}.0f"

    def fexpr(self, depth: int) -> str:
        """Integer-valued floats of magnitude <= 2^16 in, at most two operations deep: below 2^64 out."""
        if depth <= 0 or self.chance(0.3):
            return self.fleaf()
        return f"({self.fexpr(depth - 1)} {self.rng.choice('+-*')} {self.fexpr(depth - 1)})"

    def vexpr(self, depth: int) -> str:
        """A uint4 expression."""
        rng = self.rng
        if depth <= 0 or self.chance(0.25):
            r = rng.random()
            if r < 0.5 and self.vectors:
                v = rng.choice(self.vectors)
                swz = rng.choice(("", "", ".wzyx", ".yxwz", ".xxyy", ".zwxy", ".s1032"))
                return f"as_uint4({v.name}{swz})" if v.type == "int4" else f"{v.name}{swz}"
            if r < 0.7:
                return f"(uint4)({self.expr(1)})"
            if r < 0.85:
                return f"vload4(({self.expr(1)}) & {IN_SIZE // 4 - 1}u, in)"
            return f"(uint4)({self.expr(0)}, {self.expr(0)}, {self.expr(0)}, {self.expr(0)})"
        a = self.vexpr(depth - 1)
        r = rng.random()
        if r < 0.45:
            return f"({a} {rng.choice('+-*&|^')} {self.vexpr(depth - 1)})"
        if r < 0.6:
            return f"({a} {rng.choice(('<<', '>>'))} ({self.vexpr(depth - 1)} & 31u))"
        if r < 0.68:
            return f"({a} {rng.choice('/%')} ({self.vexpr(depth - 1)} | 1u))"
        if r < 0.78:
            return f"as_uint4({a} {rng.choice(('<', '>', '==', '!='))} {self.vexpr(depth - 1)})"
        if r < 0.86:
            return f"as_uint4(as_int4({a}) >> ({self.expr(0)} & 31u))"
        if r < 0.93:
            return f"{rng.choice(('min', 'max', 'rotate'))}({a}, {self.vexpr(depth - 1)})"
        return f"select({a}, {self.vexpr(depth - 1)}, as_uint4({a} > {self.vexpr(0)}))"

    # -- statements ------------------------------------------------------------------------------------------

    def block(self, out: list[str], indent: str, depth: int, count: int) -> None:
        for _ in range(count):
            if self.statements >= self.size:
                return
            if self.subgroup is not None and self.subgroup[0].random() < self.subgroup[1]:
                self.s_subgroup(out, indent, depth)
            self.statement(out, indent, depth)

    def s_subgroup(self, out: list[str], indent: str, depth: int) -> None:
        """A sub-group operation folded into a scalar, drawn from the sub-group stream (the main stream, and
        so the rest of the program, is the same with or without it)."""
        assert self.subgroup is not None
        with self._drawing_from(self.subgroup[0]):
            self._subgroup_statement(out, indent, depth == 0 and not self.context and not self.loops
                                     and not self.returned)
        self.uses_subgroups = True

    def _subgroup_statement(self, out: list[str], indent: str, uniform: bool) -> None:
        rng = self.rng
        target = rng.choice([v for v in self.scalars if v.type == "uint"])
        nu = "" if uniform and self.chance(0.5) else "non_uniform_"
        r = rng.random()
        if r < 0.3:
            kind = rng.choice(("reduce", "scan_inclusive", "scan_exclusive"))
            arith = rng.choice(("add", "min", "max") if not nu else ("add", "mul", "min", "max", "and", "or", "xor"))
            t = rng.choice(("uint", "int", "ulong", "ushort"))
            cast = {"uint": "", "int": "as_int", "ulong": "(ulong)", "ushort": "(ushort)"}[t]
            value = f"sub_group_{nu}{kind}_{arith}({cast}({self.expr(2)}))"
            value = f"as_uint({value})" if t == "int" else f"(uint){value}"
        elif r < 0.4 and self.floats:
            f = rng.choice(self.floats)
            kind = rng.choice(("reduce", "scan_inclusive", "scan_exclusive"))
            arith = rng.choice(("add", "min", "max"))
            operand = rng.choice((f.name, f"(float)(as_int({self.expr(1)}) % 4096)"))
            if operand == f.name:
                # min/max of -0.0 and +0.0 may answer either zero (the comparison order of a scan or
                # reduction is unspecified, and FMin/FMax return either operand of equal ones; fuzz
                # subgroup-20219), and so may a sum of -0.0s (+0.0 where the operation's identity, 0, is
                # added in, -0.0 where it is not; fuzz convergence-25163's exclusive scan): adding +0.0
                # makes every zero +0.0
                operand = f"{f.name} + 0.0f"
            out.append(f"{indent}{f.name} = fclampi(sub_group_{nu}{kind}_{arith}({operand}));")
            return
        elif r < 0.5:
            cluster = rng.choice((1, 2, 4, 8))
            arith = rng.choice(("add", "min", "max", "and", "or", "xor"))
            # signed ones too: an int operand's min and max are OpGroupNonUniformSMin/SMax (their
            # ClusterSize once came before the Value, which NVIDIA's compiler crashed on)
            t = self.cluster_type_stream.choice(("uint", "int", "int", "ulong", "ushort")) \
                if self.cluster_type_stream is not None else "uint"
            cast = {"uint": "", "int": "as_int", "ulong": "(ulong)", "ushort": "(ushort)"}[t]
            value = f"sub_group_clustered_reduce_{arith}({cast}({self.expr(2)}), {cluster}u)"
            value = {"uint": value, "int": f"as_uint({value})"}.get(t, f"(uint){value}")
        elif r < 0.62:
            self.ballots += 1
            ballot = f"sgb{self.ballots}"
            out.append(f"{indent}uint4 {ballot} = sub_group_ballot({self.condition(1)});")
            query = rng.choice((f"sub_group_ballot_bit_count({ballot})", f"sub_group_ballot_inclusive_scan({ballot})",
                                f"sub_group_ballot_exclusive_scan({ballot})", f"{ballot}.x",
                                f"(uint)sub_group_inverse_ballot({ballot})",
                                f"(uint)sub_group_ballot_bit_extract({ballot}, {self.expr(1)} & 31u)"))
            value = f"{query} + sub_group_ballot_find_lsb(sub_group_ballot(1)) * 7u"
        elif r < 0.72:
            vote = rng.choice(("all", "any"))
            value = f"(uint)sub_group_{nu}{vote}({self.condition(1)})" if self.chance(0.7) else \
                f"(uint)sub_group_non_uniform_all_equal({self.expr(1)})"
        elif r < 0.8:
            value = rng.choice((f"sub_group_broadcast_first({self.expr(2)})",
                                f"sub_group_shuffle({self.expr(2)}, sub_group_ballot_find_lsb(sub_group_ballot(1)))",
                                "(uint)sub_group_elect()"))
        elif r < 0.88:
            value = rng.choice(("get_sub_group_local_id()", "get_sub_group_id()", "get_sub_group_size()",
                                "get_num_sub_groups()", "get_max_sub_group_size()"))
        elif uniform:
            m = rng.choice((1, 2, 4))
            value = rng.choice((f"sub_group_broadcast({self.expr(2)}, 0u)",
                                f"sub_group_shuffle_xor({self.expr(2)}, {m}u)",
                                f"sub_group_shuffle({self.expr(2)}, get_sub_group_local_id() ^ {m}u)"))
            if self.chance(0.3):
                out.append(f"{indent}sub_group_barrier(CLK_LOCAL_MEM_FENCE);")
        else:
            value = f"sub_group_non_uniform_reduce_add({self.expr(1)})"
        out.append(f"{indent}{target.name} {rng.choice(('+=', '^=', '='))} {value};")

    def statement(self, out: list[str], indent: str, depth: int) -> None:
        if (self.nested_do_stream is not None and depth < MAX_DEPTH and self.statements + 1 < self.size
                and self.loops < MAX_LOOPS and self.nested_do_stream.random() < NESTED_DO_RATE):
            self.nested_do(out, indent, depth)
        if (self.continue_loop_stream is not None and depth < MAX_DEPTH and self.statements + 1 < self.size
                and self.loops < MAX_LOOPS and self.continue_loop_stream.random() < CONTINUE_LOOP_RATE):
            self.continue_loop(out, indent, depth)
        if self.signed_zero_stream is not None and self.floats and self.signed_zero_stream.random() < SIGNED_ZERO_RATE:
            self.signed_zero(out, indent)
        if (self.closed_loop_stream is not None and depth < MAX_DEPTH and self.loops < MAX_LOOPS
                and self.closed_loop_stream.random() < CLOSED_LOOP_RATE):
            self.closed_loop(out, indent)
        if (self.goto_loop_stream is not None and depth < MAX_DEPTH and self.loops < MAX_LOOPS
                and self.goto_loop_stream.random() < GOTO_LOOP_RATE):
            self.goto_loop(out, indent)
        if (self.inner_exit_stream is not None and depth < MAX_DEPTH and self.loops < MAX_LOOPS
                and self.inner_exit_stream.random() < INNER_EXIT_RATE):
            self.inner_exit_loop(out, indent)
        if self.line_stream is not None and self.line_stream.random() < LINE_RATE:
            self.line_directive(out)
        if (self.chosen_element_stream is not None and self.chosen_element_stream.random() < CHOSEN_ELEMENT_RATE
                and any(v.type == "uint" for v in self.scalars)):
            self.chosen_element(out, indent)
        if (self.runtime_fill_stream is not None and self.arrays
                and self.runtime_fill_stream.random() < RUNTIME_FILL_RATE):
            self.runtime_fill(out, indent)
        if self.bool_float_stream is not None and self.floats and self.bool_float_stream.random() < BOOL_FLOAT_RATE:
            self.bool_float(out, indent)
        if (self.int_builtin_stream is not None and self.int_builtin_stream.random() < INT_BUILTIN_RATE
                and any(v.type == "uint" for v in self.scalars)):
            self.int_builtin(out, indent)
        if (self.fused_stream is not None and self.floats and self.fused_stream.random() < FUSED_RATE
                and any(v.type == "uint" for v in self.scalars)):
            self.fused_residual(out, indent)
        self.statements += 1
        rng = self.rng
        nest = depth < MAX_DEPTH and self.statements < self.size
        kinds = [("assign", 6), ("side_effect", 1)]
        if nest:
            kinds += [("if", 3), ("switch", 1)]
            if self.loops < MAX_LOOPS:
                kinds += [("for", 2), ("while", 1), ("do", 1)]
                if "goto" in self.features:
                    kinds.append(("goto", 2))
        if self.floats:
            kinds.append(("float", 2))
        if self.vectors:
            kinds.append(("vector", 3))
        if self.arrays:
            kinds.append(("array", 2))
        if "atomic" in self.features:
            kinds.append(("atomic", 2))
        if "approx" in self.features and self.floats:
            kinds.append(("approx", 1))
        if any(isinstance(c, _Loop) for c in self.context):
            kinds.append(("jump", 2 if "convergence" not in self.features else 5))
        if "convergence" in self.features and nest and self.loops < MAX_LOOPS:
            kinds.append(("waterfall", 2))
        if self.allow_return:
            kinds.append(("return", 1))
        if nest:
            kinds.append(("dead", 1))
        names, weights = zip(*kinds)
        getattr(self, "s_" + rng.choices(names, weights)[0])(out, indent, depth)

    def assignable(self) -> _Var:
        return self.rng.choice(self.scalars)

    def assign_to(self, v: _Var, value: str) -> str:
        if v.type == "uint":
            return f"{v.name} = {value};"
        if v.type == "int":
            return f"{v.name} = as_int({value});"
        if v.type == "ulong":
            hi = self.expr(1)
            return f"{v.name} = ({v.name} * (ulong)({hi} | 1u)) + (((ulong){value}) << {self.rng.choice((0, 7, 32))});"
        return f"{v.name} = ({v.type})({value});"

    def s_assign(self, out, indent, depth):
        v = self.assignable()
        if v.type == "uint" and self.chance(0.3):
            out.append(f"{indent}{v.name} {self.rng.choice(('+=', '-=', '^=', '|=', '*='))} {self.expr(2)};")
        else:
            out.append(f"{indent}{self.assign_to(v, self.expr(3))}")

    def s_side_effect(self, out, indent, depth):
        cond, modified = self.side_effect_condition()
        choices = [v for v in self.scalars if v.type == "uint" and v.name != modified]
        if not choices:
            return self.s_assign(out, indent, depth)
        target = self.rng.choice(choices)
        out.append(f"{indent}{target.name} = {cond} ? {self.expr(2)} : {self.expr(2)};")

    def s_float(self, out, indent, depth):
        f = self.rng.choice(self.floats)
        out.append(f"{indent}{f.name} = fclampi({self.fexpr(2)});")

    def s_vector(self, out, indent, depth):
        v = self.rng.choice(self.vectors)
        r = self.rng.random()
        value = self.vexpr(2)
        if r < 0.25:
            lanes = self.rng.choice(("x", "y", "z", "w", "xy", "zw", "wx", "s31"))
            width = len(lanes) if not lanes.startswith("s") else len(lanes) - 1
            scalar = self.expr(1)
            rhs = f"({scalar})" if width == 1 else f"(uint{width})({scalar})"
            if v.type == "int4":
                rhs = f"as_int{'' if width == 1 else width}({rhs})"
            out.append(f"{indent}{v.name}.{lanes} = {rhs};")
        else:
            out.append(f"{indent}{v.name} = {'as_int4(' + value + ')' if v.type == 'int4' else value};")

    def s_array(self, out, indent, depth):
        name, length = self.rng.choice(self.arrays)
        out.append(f"{indent}{name}[({self.expr(2)}) & {length - 1}u] = {self.expr(2)};")

    def s_atomic(self, out, indent, depth):
        c = self.rng.randrange(COUNTERS)
        family = ATOMIC_FAMILIES[c]
        local = "barrier" in self.features and self.chance(0.4)
        where = f"&lcnt[{c % 4}]" if local else f"&cnt[{c}]"
        if local:
            family = ("add", "or", "xor", "max")[c % 4]
        value = self.expr(2)
        if family == "add":
            op = self.rng.choice(("atomic_add", "atomic_sub", "atomic_inc", "atomic_dec"))
            call = f"{op}({where})" if op in ("atomic_inc", "atomic_dec") else f"{op}({where}, {value})"
        else:
            call = f"atomic_{family}({where}, {value})"
        out.append(f"{indent}{call};")

    def s_approx(self, out, indent, depth):
        self.uses_approx = True
        slot = self.rng.randrange(APPROX_SLOTS)
        a, b = self.rng.choice(self.floats).name, self.rng.choice(self.floats).name
        value = self.rng.choice((f"{a} / (fabs({b}) < 1.0f ? 1.0f : {b})", f"sqrt(fabs({a}))",
                                 f"exp({a} * 0.0001f)", f"log(fabs({a}) + 1.0f)", f"{a} / 7.0f"))
        out.append(f"{indent}fapprox[gid * {APPROX_SLOTS}u + {slot}u] = {value};")

    def s_if(self, out, indent, depth):
        if self.chance(0.2):
            cond, _ = self.side_effect_condition()
        else:
            cond = self.condition(2)
        out.append(f"{indent}if {cond} {{")
        self.block(out, indent + "    ", depth + 1, self.rng.randint(1, 3))
        if self.chance(0.5):
            out.append(f"{indent}}} else {{")
            self.block(out, indent + "    ", depth + 1, self.rng.randint(1, 3))
        out.append(f"{indent}}}")

    def _loop(self, out, indent, depth, head: list[str], open_: str, close: str, guard: str | None):
        loop = _Loop(self.fresh("fl"))
        inner = indent + "    "
        lines = [inner + h for h in head] + [f"{inner}{open_}"]
        if guard:
            lines.append(f"{inner}    {guard}")
        self.context.append(loop)
        self.loops += 1
        self.block(lines, inner + "    ", depth + 1, self.rng.randint(1, 4))
        self.loops -= 1
        self.context.pop()
        lines.append(f"{inner}{close}")
        self.after_loop(lines, inner)
        out.append(f"{indent}{{")
        if loop.used:
            out.append(f"{inner}uint {loop.flag} = 0u;")
        out.extend(lines)
        out.append(f"{indent}}}")

    def after_loop(self, out: list[str], indent: str) -> None:
        """After a loop closes: the flags inner statements may have set for enclosing loops (up to the
        nearest switch, past which no flag is set) break out of, or continue, the loop around this one."""
        for i, c in enumerate(reversed(self.context)):
            if c == "switch":
                break
            if not isinstance(c, _Loop) or not c.used:
                continue
            if i == 0:
                out.append(f"{indent}if ({c.flag} == 1u) break;")
                out.append(f"{indent}if ({c.flag} == 2u) {{ {c.flag} = 0u; continue; }}")
            else:
                out.append(f"{indent}if ({c.flag} != 0u) break;")

    def trip(self) -> str:
        """A data-dependent trip bound of 1..6 (or a constant)."""
        if self.chance(0.3):
            return f"{self.rng.randint(1, 5)}u"
        return f"(({self.expr(2)}) % {self.rng.randint(2, 6)}u + {self.rng.randint(0, 1)}u)"

    def s_for(self, out, indent, depth):
        i, lim = self.fresh("i"), self.fresh("lim")
        head = [f"uint {lim} = {self.trip()};"]
        self.readonly.append(i)
        self._loop(out, indent, depth, head, f"for (uint {i} = 0u; {i} < {lim}; {i}++) {{", "}", None)
        self.readonly.remove(i)

    def s_while(self, out, indent, depth):
        g = self.fresh("g")
        test = f"{g} < {self.rng.randint(1, 6)}u && {self.condition(1)}"
        if "convergence" in self.features:
            # the same loop left only by a break (clang -O0: the exit block is reached from the break alone,
            # after the loop's first branch, as the blockIP layout of fuzz convergence-1049 had it)
            self._loop(out, indent, depth, [f"uint {g} = 0u;"], "for (;;) {", "}", f"if (!({test})) break; {g}++;")
            return
        self._loop(out, indent, depth, [f"uint {g} = 0u;"], f"while ({test}) {{", "}", f"{g}++;")

    def s_do(self, out, indent, depth):
        g = self.fresh("g")
        self._loop(out, indent, depth, [f"uint {g} = 0u;"], "do {",
                   f"}} while ({g} < {self.rng.randint(1, 5)}u && {self.condition(1)});", f"{g}++;")

    def s_switch(self, out, indent, depth):
        cases = sorted(self.rng.sample(range(8), self.rng.randint(1, 4)))
        anchor = self.rng.choice([v.name for v in self.scalars if v.type == "uint"])   # never a constant
        out.append(f"{indent}switch (({self.expr(2)} + {anchor}) & 7u) {{")
        self.context.append("switch")
        labels = [f"case {c}u:" for c in cases] + (["default:"] if self.chance(0.7) else [])
        self.rng.shuffle(labels)
        for label in labels:
            out.append(f"{indent}{label} {{")
            self.block(out, indent + "    ", depth + 1, self.rng.randint(1, 2))
            out.append(f"{indent}    }}")
            if self.chance(0.65):
                out.append(f"{indent}    break;")
        self.context.pop()
        out.append(f"{indent}}}")

    def s_jump(self, out, indent, depth):
        """break / continue of the innermost loop, or, through its flag, of an enclosing one."""
        reachable = []
        for c in reversed(self.context):
            if c == "switch":
                break
            reachable.append(c)
        cond = self.condition(1)
        if not reachable:          # inside a switch inside the loop: `continue` still means the loop
            out.append(f"{indent}if {cond} continue;")
            return
        target = self.rng.randrange(len(reachable))
        kind = self.rng.choice(("break", "continue"))
        if "convergence" in self.features and self.rng.random() < 0.6:
            # a sub-group operation on the exit path: clang puts it outside the natural loop it was
            # written in, -O2 often in the loop's exit block, and it still runs in the exiting iteration
            out.append(f"{indent}if {cond} {{")
            # its operands may branch (?:, &&, safe_s*) and it may sit under an if (and else) of its own:
            # then it lies deeper in the path than the block that leaves the loop
            self.deep_subgroup(out, indent + "    ", depth + 1)
            if target:
                reachable[target].used = True
                out.append(f"{indent}    {reachable[target].flag} = {1 if kind == 'break' else 2}u;")
            out.append(f"{indent}    {kind if not target else 'break'};")
            out.append(f"{indent}}}")
        elif target == 0:
            out.append(f"{indent}if {cond} {kind};")
        else:
            reachable[target].used = True
            out.append(f"{indent}if {cond} {{ {reachable[target].flag} = {1 if kind == 'break' else 2}u; break; }}")

    def deep_subgroup(self, out, indent, depth):
        """A sub-group operation on a loop's exit path: directly, or under an if (with an else that runs
        another one or a plain statement), so that clang puts it deeper in the path than the exit block."""
        if not self.chance(0.4):
            return self.s_subgroup(out, indent, depth)
        out.append(f"{indent}if {self.condition(1)} {{")
        self.s_subgroup(out, indent + "    ", depth + 1)
        if self.chance(0.5):
            out.append(f"{indent}}} else {{")
            (self.s_subgroup if self.chance(0.5) else self.s_assign)(out, indent + "    ", depth + 1)
        out.append(f"{indent}}}")

    def s_waterfall(self, out, indent, depth):
        """Seed 001's waterfall loop: each pass, the lanes whose key is the first active lane's leave with a
        reduction over themselves (at most 8 keys, so at most 8 passes; the guard only bounds it)."""
        key, g, first = self.fresh("wk"), self.fresh("wg"), self.fresh("wf")
        target = self.rng.choice([v for v in self.scalars if v.type == "uint"])
        inner = indent + "    "
        out.append(f"{indent}{{")
        out.append(f"{inner}uint {key} = ({self.expr(2)}) & 7u;")
        out.append(f"{inner}for (uint {g} = 0u; {g} < 32u; {g}++) {{")
        out.append(f"{inner}    uint {first} = sub_group_broadcast_first({key});")
        op = self.rng.choice(("reduce_add", "reduce_max", "scan_inclusive_add", "scan_exclusive_min"))
        out.append(f"{inner}    if ({first} == {key}) {{")
        update = f"{target.name} {self.rng.choice(('+=', '^=', '='))} sub_group_{op}({self.expr(2)});"
        if self.chance(0.35):             # only some of the leaving lanes meet (deeper than the exit block)
            out.append(f"{inner}        if {self.condition(1)} {update}")
        else:
            out.append(f"{inner}        {update}")
        out.append(f"{inner}        break;")
        out.append(f"{inner}    }}")
        out.append(f"{inner}}}")
        out.append(f"{indent}}}")
        self.uses_subgroups = True

    def nested_do(self, out, indent, depth):
        """Seed 004's shape: a do/while in a while, both counting one counter, left on a lane condition. At -O2
        LLVM can merge the two into one loop with two back edges; with -g the front end separates them again
        (lowering/frontend/loop_separation.py), so the sub-group operations in the do body meet as written.
        Drawn from its own stream, names its own: every other statement of a seed's program stays as it was
        (old campaigns' seeds and the tests that pin them)."""
        stream, self.nested_do_stream = self.nested_do_stream, None
        assert stream is not None
        main, ballots, self.rng = self.rng, self.ballots, stream
        self.nested_dos += 1
        self.ballots = 1000 * self.nested_dos          # sgb1001..: apart from the main program's ballots
        try:
            self._nested_do(out, indent, depth, f"nj{self.nested_dos}", f"nl{self.nested_dos}")
        finally:
            self.rng, self.ballots, self.nested_do_stream = main, ballots, stream
        self.uses_subgroups = True

    def _nested_do(self, out, indent, depth, j: str, lim: str):
        lane = self.rng.choice(("(lid & 1u) == 0u", "(lid % 3u) != 1u", f"gid < {self.rng.randint(1, 12)}u",
                                self.condition(1)))
        inner, body = indent + "    ", indent + "        "
        out.append(f"{indent}{{")
        out.append(f"{inner}uint {j} = 0u;")
        out.append(f"{inner}uint {lim} = {self.trip()};")
        out.append(f"{inner}while ({j} < {lim}) {{")
        out.append(f"{body}do {{")
        out.append(f"{body}    {j}++;")
        self.readonly.append(j)
        # LLVM merges the loops only where the counter is all they carry: mostly the operations
        # store to out[gid] (read back after the loops), not into a scalar
        in_memory = self.chance(0.7)
        if in_memory:
            op = self.rng.choice(("sub_group_non_uniform_reduce_add", "sub_group_non_uniform_reduce_max",
                                  "sub_group_scan_inclusive_add", "sub_group_broadcast_first"))
            out.append(f"{body}    out[gid] = {op}({self.expr(2)} + {j} * {self.rng.randint(1, 99)}u);")
        else:
            for _ in range(self.rng.randint(1, 2)):
                self._subgroup_statement(out, body + "    ", False)
        out.append(f"{body}}} while ({lane} && {j} < {lim});")
        out.append(f"{body}if ({lane}) break;")
        if in_memory:
            out.append(f"{body}out[gid] = sub_group_ballot({lane} || {self.condition(1)}).x + {j};")
        else:
            self._subgroup_statement(out, body, False)
        self.readonly.remove(j)
        out.append(f"{inner}}}")
        if in_memory:
            out.append(f"{inner}{self.rng.choice([v for v in self.scalars if v.type == 'uint']).name} ^= out[gid];")
        out.append(f"{indent}}}")

    def continue_loop(self, out, indent, depth):
        """A while loop gone back to from two places, with sub-group operations in it: a `continue` under an
        if or in a switch case before the body's end (the class of fuzz subgroup-16441, which blockIP ran
        wrong: the lanes of the first back edge started the next pass alone). Drawn from its own stream,
        names its own, as nested_do: every other statement of a seed's program stays as it was."""
        stream, self.continue_loop_stream = self.continue_loop_stream, None
        assert stream is not None
        main, ballots, self.rng = self.rng, self.ballots, stream
        self.continue_loops += 1
        self.ballots = 100000 + 1000 * self.continue_loops      # sgb101001..: apart from the others
        try:
            self._continue_loop(out, indent, f"cj{self.continue_loops}", f"cl{self.continue_loops}")
        finally:
            self.rng, self.ballots, self.continue_loop_stream = main, ballots, stream
        self.uses_subgroups = True

    def _continue_loop(self, out, indent, j: str, lim: str):
        inner, body = indent + "    ", indent + "        "
        out.append(f"{indent}{{")
        out.append(f"{inner}uint {j} = 0u;")
        out.append(f"{inner}uint {lim} = {self.trip()};")
        out.append(f"{inner}while ({j} < {lim}) {{")
        out.append(f"{body}{j}++;")
        self.readonly.append(j)
        self._subgroup_statement(out, body, False)
        if self.chance(0.5):
            out.append(f"{body}if {self.condition(1)} {{")
            self._loop_statement(out, body + "    ", 0.5)
            out.append(f"{body}    continue;")
            out.append(f"{body}}}")
        else:                       # a switch's blocks stay blockIP units in the hybrid too
            anchor = self.rng.choice([v.name for v in self.scalars if v.type == "uint"])
            out.append(f"{body}switch (({self.expr(1)} + {anchor}) & 3u) {{")
            out.append(f"{body}case {self.rng.randrange(4)}u:")
            self.s_assign(out, body + "    ", 0)
            out.append(f"{body}    continue;")
            out.append(f"{body}default:")
            out.append(f"{body}    break;")
            out.append(f"{body}}}")
        for _ in range(self.rng.randint(1, 2)):
            self._loop_statement(out, body, 0.6)
        self.readonly.remove(j)
        out.append(f"{inner}}}")
        out.append(f"{indent}}}")

    def closed_loop(self, out, indent):
        """A counting loop each lane leaves with a sub-group operation at its own iteration (`j == key`),
        the rest of its body sums only what SCEV writes in closed form, so -O2 can delete the loop (by
        IndVarSimplify's exit predication, full unrolling, or LoopDeletion of a one-exit loop) and the
        operation on the break path would meet lanes of every iteration (fuzz convergence-23120); or leaves
        it on a loop-invariant test (the loop then unswitched away, with the same meeting). Its own stream
        and names, as nested_do."""
        self.closed_loops += 1
        n = self.closed_loops
        key, j, acc = f"xk{n}", f"xj{n}", f"xs{n}"
        inner, body = indent + "    ", indent + "        "
        with self._drawing_from(self.closed_loop_stream):
            target = self.rng.choice([v for v in self.scalars if v.type == "uint"])
            out.append(f"{indent}{{")
            out.append(f"{inner}uint {key} = ({self.expr(2)}) & {self.rng.choice((3, 7))}u;")
            out.append(f"{inner}uint {acc} = 0u;")
            bound = self.rng.choice(("", f"{j} < {self.rng.randint(2, 8)}u"))
            leave = f"{j} == {key}" if self.chance(0.75) else f"{key} == {self.rng.randint(0, 3)}u"
            if not bound and j not in leave:        # an invariant test leaves only the first pass: bounded
                bound = f"{j} < {self.rng.randint(2, 8)}u"      # (fuzz convergence-26405 never ended)
            out.append(f"{inner}for (uint {j} = 0u; {bound}; {j}++) {{")
            op = self.rng.choice(("sub_group_non_uniform_reduce_add", "sub_group_reduce_max",
                                  "sub_group_scan_inclusive_add", "sub_group_non_uniform_reduce_add"))
            out.append(f"{body}if ({leave}) {{")
            out.append(f"{body}    {target.name} {self.rng.choice(('+=', '^='))} {op}({self.expr(1)});")
            out.append(f"{body}    break;")
            out.append(f"{body}}}")
            if self.chance(0.7):
                out.append(f"{body}{acc} += {j} * {self.rng.randint(1, 9)}u + {self.rng.randint(0, 3)}u;")
            out.append(f"{inner}}}")
            out.append(f"{inner}{target.name} ^= {acc};")
            out.append(f"{indent}}}")
        self.uses_subgroups = True

    def goto_loop(self, out, indent):
        """closed_loop's loop written with goto: no loop statement, so no `!llvm.loop` names it, and -O2
        deletes it where it counts the exit (redteam c05, c06; removed_loops spans its code instead). The
        lane leaves with a sub-group operation at its own pass (`j == key`) or at the bound. Its own stream."""
        self.goto_loops += 1
        n = self.goto_loops
        key, j, acc = f"yk{n}", f"yj{n}", f"ys{n}"
        inner = indent + "    "
        with self._drawing_from(self.goto_loop_stream):
            target = self.rng.choice([v for v in self.scalars if v.type == "uint"])
            op = self.rng.choice(("sub_group_non_uniform_reduce_add", "sub_group_reduce_max",
                                  "sub_group_scan_inclusive_add", "sub_group_ballot_bit_count"))
            value = f"{op}(sub_group_ballot({self.condition(1)}))" if op.endswith("bit_count") else \
                f"{op}({self.expr(1)})"
            out.append(f"{indent}{{")
            out.append(f"{inner}uint {key} = ({self.expr(2)}) & {self.rng.choice((3, 7))}u;")
            out.append(f"{inner}uint {acc} = 0u, {j} = 0u;")
            after = self.chance(0.4)        # the operation after the loop in its braces (redteam2 g08)
            out.append(f"{indent}yl{n}:")
            out.append(f"{inner}if ({j} == {key}) {{")
            if self.line_stream is not None and self.line_stream.random() < LINE_IN_GOTO_LOOP:
                self.line_directive(out)
            if not after:
                out.append(f"{inner}    {target.name} {self.rng.choice(('+=', '^='))} {value};")
            out.append(f"{inner}    goto yo{n};")
            out.append(f"{inner}}}")
            if self.chance(0.7):
                out.append(f"{inner}{acc} += {j} * {self.rng.randint(1, 9)}u + {self.rng.randint(0, 3)}u;")
            out.append(f"{inner}{j}++;")
            out.append(f"{inner}if ({j} < {self.rng.randint(2, 8)}u) goto yl{n};")
            out.append(f"{indent}yo{n}:")
            if after:
                out.append(f"{inner}{target.name} {self.rng.choice(('+=', '^='))} {value};")
            out.append(f"{inner}{target.name} ^= {acc};")
            out.append(f"{indent}}}")
        self.uses_subgroups = True

    def line_directive(self, out):
        """`#line` naming another file: the code after it is placed there in -g's locations, so a loop's
        code can lie in two files with no order between them (redteam2 g02: a goto loop's span). Its own
        stream."""
        stream = self.line_stream
        assert stream is not None
        out.append(f'#line {stream.randint(100, 900)} "{stream.choice(("part_a.cl", "part_b.cl"))}"')

    def inner_exit_loop(self, out, indent):
        """A `while` whose body ends in an inner loop holding a sub-group operation, left by a `break`: a
        `for` of one to three passes with the break before the operation (redteam2 b01: its exit goes
        straight back to the `while`'s header, and blockIP ran the next pass before the inner loop's
        lanes were done), or a `for (;;)` with the break after it, whose back edge is unconditional
        (redteam2 s09, s17: a nest SimplifyCFG merged into one loop). Its own stream, as nested_do."""
        self.inner_exits += 1
        n = self.inner_exits
        j, lim, k = f"zj{n}", f"zl{n}", f"zk{n}"
        inner, body = indent + "    ", indent + "        "
        with self._drawing_from(self.inner_exit_stream):
            target = self.rng.choice([v for v in self.scalars if v.type == "uint"])
            op = self.rng.choice(("sub_group_non_uniform_reduce_add", "sub_group_reduce_max",
                                  "sub_group_scan_exclusive_add", "sub_group_broadcast_first"))
            update = f"{target.name} {self.rng.choice(('+=', '^='))} {op}({self.expr(1)} + {j});"
            out.append(f"{indent}{{")
            out.append(f"{inner}uint {j} = 0u, {lim} = ({self.expr(2)}) % 3u + 1u;")
            out.append(f"{inner}while ({j} < {lim}) {{")
            out.append(f"{body}{j}++;")
            if self.chance(0.5):
                out.append(f"{body}for (uint {k} = 0u; {k} < {self.rng.randint(1, 3)}u; {k}++) {{")
                out.append(f"{body}    if ({self.condition(1)}) break;")
                out.append(f"{body}    {update}")
            else:
                out.append(f"{body}for (uint {k} = 0u;; {k}++) {{")
                out.append(f"{body}    {update}")
                out.append(f"{body}    if ({k} >= {self.rng.randint(0, 2)}u || {self.condition(1)}) break;")
            out.append(f"{body}}}")
            out.append(f"{inner}}}")
            out.append(f"{indent}}}")
        self.uses_subgroups = True

    def chosen_element(self, out, indent):
        """A private array of two to four elements, filled and read by loops, whose other indices are
        constants or chosen by a short circuit with a costly second half (`q[(uint)(c || f)]`, f comparing
        two converted remainders): LLVM's SROA splits it into one variable per element and leaves pointers
        that select and merge (a phi after the short circuit) between variables, which logical addressing
        cannot express (fuzz goto-120072). Its own stream."""
        self.chosen_elements += 1
        q, inner = f"zq{self.chosen_elements}", indent + "    "
        with self._drawing_from(self.chosen_element_stream):
            rng = self.rng
            length = rng.choice((2, 3, 4, 4))

            def costly() -> str:
                return (f"((float)(as_int({self.expr(1)}) % 4096) {rng.choice(('<=', '<', '>'))} "
                        f"(float)(as_int({self.expr(1)}) % 4096))")

            def index() -> str:
                form, op = rng.random(), rng.choice(("||", "&&"))
                if form < 0.6:
                    return f"((uint)({self.condition(0)} {op} {costly()}) + {rng.randrange(length - 1)}u)"
                if form < 0.85:
                    i, j = rng.sample(range(length), 2)
                    return f"(({self.condition(0)} {op} {costly()}) ? {i}u : {j}u)"
                return f"{rng.randrange(length)}u"

            target = rng.choice([v for v in self.scalars if v.type == "uint"])
            out.append(f"{indent}{{")
            out.append(f"{inner}uint {q}[{length}];")
            out.append(f"{inner}for (uint c = 0u; c < {length}u; c++) {q}[c] = {self.expr(1)} + c;")
            for _ in range(rng.randint(1, 3)):
                where = f"{q}[{index()}]"
                r = rng.random()
                if r < 0.5:
                    out.append(f"{inner}{where} = {self.expr(1)};")
                elif r < 0.7:
                    out.append(f"{inner}{where} {rng.choice(('+=', '^=', '*='))} {self.expr(1)};")
                elif r < 0.85:
                    out.append(f"{inner}if ({self.condition(1)}) {where} = {self.expr(1)};")
                else:
                    out.append(f"{inner}{target.name} ^= {where};")
            out.append(f"{inner}for (uint c = 0u; c < {length}u; c++) {target.name} = {target.name} * 31u + {q}[c];")
            out.append(f"{indent}}}")

    def runtime_fill(self, out, indent):
        """The private array filled with a constant of one repeated byte, or copied from `in`, up to a bound
        computed at run time (at most its length), and perhaps then shifted down by one below it: LLVM's
        loop idiom recognition makes each loop one llvm.memset, llvm.memcpy or llvm.memmove call of a
        run-time length, which the reader makes a loop of byte stores (fuzz subgroup-65390 met one once
        in 3,685 programs, and every target refused it). Its own stream."""
        self.runtime_fills += 1
        n, inner = self.runtime_fills, indent + "    "
        with self._drawing_from(self.runtime_fill_stream):
            rng = self.rng
            name, length = rng.choice(self.arrays)
            out.append(f"{indent}{{")
            out.append(f"{inner}uint zf{n} = ({self.expr(1)}) % {length + 1}u;")
            if rng.random() < 0.5:
                value = rng.choice(("0u", "0xffffffffu", "0x5a5a5a5au"))
            else:
                out.append(f"{inner}uint zb{n} = ({self.expr(1)}) & {IN_SIZE // 2 - 1}u;")
                value = f"in[zb{n} + zc{n}]"
            out.append(f"{inner}for (uint zc{n} = 0u; zc{n} < zf{n}; zc{n}++) {name}[zc{n}] = {value};")
            if rng.random() < 0.4:                  # a shift down by one: a memmove of a run-time length
                out.append(f"{inner}for (uint zc{n} = 0u; zc{n} + 1u < zf{n}; zc{n}++) "
                           f"{name}[zc{n}] = {name}[zc{n} + 1u];")
            out.append(f"{indent}}}")

    def _loop_statement(self, out: list[str], indent: str, subgroup: float) -> None:
        """A divergent sub-group operation (with chance `subgroup`), else an assignment."""
        if self.chance(subgroup):
            self._subgroup_statement(out, indent, False)
        else:
            self.s_assign(out, indent, 0)

    def signed_zero(self, out, indent):
        """A float that is 1.0 or a zero of the other sign by a lane's condition, or a product with a literal
        -0.0 (the class of fuzz convergence-16248: lavapipe's NIR folds `c ? 1.0 : -0.0` to +0.0, as it
        did the launches' own hiding of a -0.0 factor); its own stream, as nested_do."""
        with self._drawing_from(self.signed_zero_stream):
            f, g = self.rng.choice(self.floats).name, self.rng.choice(self.floats).name
            one, zero = self.rng.choice((("1.0f", "-0.0f"), ("-1.0f", "0.0f")))
            pick = f"{self.condition(1)} ? {one} : {zero}" if self.chance(0.5) else \
                f"{self.condition(1)} ? {zero} : {one}"
            out.append(f"{indent}{f} = " + self.rng.choice((f"fclampi({g} * ({pick}));", f"({pick});",
                                                            f"fclampi({g} * (0.0f * -{self.rng.randint(1, 9)}.0f));")))

    def bool_float(self, out, indent):
        """A float a lane's condition makes -1.0 or 1.0 or a zero: `(float)(c ? -1 : 0)` (clang -O2 makes it a sitofp
        of an i1, which our SPIR-V wrote as `c ? -1.0 : 0.0` and lavapipe's NIR folded to -0.0 for a false c, as
        our vector interpreter computed it), its unsigned twin, or signed_zero's selects (NVIDIA 580 folded `c ?
        1.0f : -0.0f` to +0.0 even under SignedZeroInfNanPreserve); its own stream, as runtime_fill."""
        with self._drawing_from(self.bool_float_stream):
            f, g = self.rng.choice(self.floats).name, self.rng.choice(self.floats).name
            c = self.condition(1)
            value = self.rng.choice((f"(float)({c} ? -1 : 0)", f"(float)({c} ? 1u : 0u)", f"(float)(-(int){c})",
                                     f"({c} ? 1.0f : -0.0f)", f"({c} ? -1.0f : 0.0f)", f"({c} ? -0.0f : 1.0f)"))
            out.append(f"{indent}{f} = " + self.rng.choice((f"{value};", f"fclampi({g} * {value});")))

    def int_builtin(self, out, indent):
        """An integer built-in of OpenCL C 3.0 (6.15.3, 6.4.3, 6.15.13) on a type and vector width of its own,
        folded into a uint variable: chars to longs (a long made of two dwords, `((ulong)a << 32) | b`),
        saturating and rounding conversions, shuffles. Every one is total (clamp's bounds ordered, mul24's
        operands within 24 bits), so no program gains undefined behaviour. Found missing: mad_sat on every
        type, mul_hi of chars and shorts, Gen's 64-bit min/max and the low dword of `(ulong)a << 32`, the
        reference's integer _sat conversions, shuffles, bitselect, mad_hi and mad_sat of longs. Its own
        stream, as runtime_fill; a block of its own, so its temporary's name never meets another."""
        with self._drawing_from(self.int_builtin_stream):
            rng = self.rng
            t = rng.choice(INT_TYPES)
            u = t if t[0] == "u" else "u" + t
            n = rng.choice((1, 1, 2, 4))

            def operand(of: str) -> str:
                if of.endswith("long") and self.chance(0.5):
                    return f"({of})(((ulong){self.expr(1)} << 32) | {self.expr(1)})"
                return f"({of})({self.expr(1)})"

            def vec(of: str = t) -> str:
                return operand(of) if n == 1 else f"({of}{n})({', '.join(operand(of) for _ in range(n))})"
            kinds = ["unary", "binary", "ternary", "convert"]
            if t not in ("long", "ulong"):
                kinds.append("upsample")
            if n > 1:
                kinds.append("shuffle")
            if self.floats:
                kinds.append("round")
            kind = rng.choice(kinds)
            result, width = t, n                    # the result's element type and width
            if kind == "unary":
                fn = rng.choice(("abs", "clz", "ctz", "popcount"))
                value = f"{fn}({vec()})"
                result = u if fn == "abs" else t
            elif kind == "binary":
                fn = rng.choice(("abs_diff", "add_sat", "sub_sat", "hadd", "rhadd", "max", "min", "mul_hi", "rotate"))
                value = f"{fn}({vec()}, {vec()})"
                result = u if fn == "abs_diff" else t
            elif kind == "ternary":
                fn = rng.choice(("mad_hi", "mad_sat", "clamp", "bitselect", "mad24"))
                if fn == "clamp":
                    a, b = vec(), vec()
                    value = f"clamp({vec()}, min({a}, {b}), max({a}, {b}))"
                elif fn == "mad24" and t == "uint":
                    value = f"mad24({vec()} & 0xffffffu, {vec()} & 0xffffffu, {vec()})"
                elif fn == "mad24" and t == "int":        # (24-bit values, signed: shifted as unsigned)
                    w = n if n > 1 else ""
                    x, y = (f"as_int{w}(as_uint{w}({vec()}) << 8) >> 8" for _ in "xy")
                    value = f"mad24({x}, {y}, {vec()})"
                else:                                      # (mad24 is of int and uint only: mad_sat for the rest)
                    value = f"{'mad_sat' if fn == 'mad24' else fn}({vec()}, {vec()}, {vec()})"
            elif kind == "convert":
                value = f"convert_{t}{n if n > 1 else ''}_sat({vec(rng.choice(INT_TYPES))})"
            elif kind == "upsample":
                result = {"char": "short", "uchar": "ushort", "short": "int", "ushort": "uint", "int": "long",
                          "uint": "ulong"}[t]
                value = f"upsample({vec()}, {vec(u)})"
            elif kind == "shuffle":
                width = rng.choice((2, 4))
                mask = f"({u}{width})({', '.join(operand(u) for _ in range(width))})"
                value = f"shuffle({vec()}, {mask})" if self.chance(0.5) else f"shuffle2({vec()}, {vec()}, {mask})"
            else:                       # a float rounded to an integer type (the floats hold integers of at
                mode = rng.choice(("rte", "rtz", "rtp", "rtn"))     # most 2^16: the scale makes the halves)
                floats = [f"{rng.choice(self.floats).name} * {rng.choice(('0.5f', '0.25f', '-1.5f', '0.75f'))}"
                          for _ in range(n)]
                f = floats[0] if n == 1 else f"(float{n})({', '.join(floats)})"
                # (without _sat only into int and long, which hold every such value: out of range is undefined)
                sat = rng.choice(("", "_sat")) if t in ("int", "long") else "_sat"
                value = f"convert_{t}{n if n > 1 else ''}{sat}_{mode}({f})"
            target = rng.choice([v for v in self.scalars if v.type == "uint"])
            lanes = [""] if width == 1 else [f".s{i:x}" for i in range(width)]
            high = " >> 13" if result.endswith("long") else ""
            mixed = " + ".join(f"(uint)(ib{lane}{high if k % 2 else ''}) * {2 * k + 1}u"
                               for k, lane in enumerate(lanes))
            out.append(f"{indent}{{ {result}{width if width > 1 else ''} ib = {value}; {target.name} ^= {mixed}; }}")

    def fused_residual(self, out, indent):
        """Float results where one rounding, or none, is the rule and Vulkan's instructions differ, each folded
        into a uint variable by its bits: fma(a, b, c) of floats whose product is not exact (the variables,
        which hold integers of at most 2^16, scaled by a fraction), c often -(a * b), the product's rounding
        error (a multiply and an add give 0.0: Vulkan's Fma may, and lavapipe's did, until lower_fma); then,
        each by chance, an fmod of a quotient past 2^24 (OpFRem was far off), an ldexp to an overflow or a
        subnormal (GLSL's Ldexp is undefined there), an int widened to long compared with constants
        (lavapipe's sext compare), and a 64-bit integer converted to float (Gen's simulator read a :uq past
        2^63 as signed). No NaN arises (fmod's divisor is at least 0.5). Its own stream, as runtime_fill."""
        with self._drawing_from(self.fused_stream):
            rng = self.rng
            a = f"({rng.choice(self.floats).name} * {rng.choice(('0.1f', '0.3f', '1.7f', '-0.7f', '2.3f'))})"
            b = f"({rng.choice(self.floats).name} * {rng.choice(('0.1f', '0.9f', '-1.3f', '3.1f'))})"
            c = rng.choice((f"-({a} * {b})", f"-({a} * {b})", f"{rng.choice(self.floats).name}",
                            f"({rng.choice(self.floats).name} * 0.01f)"))
            target = rng.choice([v for v in self.scalars if v.type == "uint"])
            out.append(f"{indent}{target.name} ^= as_uint(fma({a}, {b}, {c}));")
            if self.chance(0.5):            # an exact fmod of a quotient past 2^24 (OpFRem was far off there)
                x, y = rng.choice(self.floats).name, rng.choice(self.floats).name
                out.append(f"{indent}{target.name} ^= as_uint(fmod({x} * {rng.choice(('997.0f', '-613.5f'))}, "
                           f"fabs({y}) * 0.001f + 0.5f));")
            if self.chance(0.4):            # ldexp to an overflow or a subnormal (GLSL's Ldexp undefined there)
                x = rng.choice(self.floats).name
                k = f"(int)({self.expr(1)} % 301u) - {rng.choice((150, 160, 10))}"
                out.append(f"{indent}{target.name} ^= as_uint(ldexp({x} * 0.37f, {k}));")
            if self.chance(0.5):            # an extended value against constants (lavapipe's sext compare)
                e = self.expr(1)
                out.append(f"{indent}{target.name} ^= (uint)(((long)as_int({e}) > {rng.randint(-9000, 9000)}) | "
                           f"(((long)as_int({e}) <= {rng.randint(-9000, 9000)}l) << 1) | "
                           f"(((ulong)({e}) > {rng.randint(0, 1 << 31)}ul) << 2));")
            if self.chance(0.4):            # 64-bit integers to float, past 2^63 and 2^53 (rounded once)
                wide = f"(((ulong){self.expr(1)} << 32) | {self.expr(1)})"
                out.append(f"{indent}{target.name} ^= as_uint((float){wide}) ^ as_uint((float)as_long({wide}));")

    def s_dead(self, out, indent, depth):
        """Code that never runs, behind a test of the host's `n` (always below 8) that no compiler can fold
        (CLsmith's EMI blocks): it must compile and must not change anything."""
        out.append(f"{indent}if (n >= {self.rng.randint(8, 1000)}u) {{")
        self.block(out, indent + "    ", depth + 1, self.rng.randint(1, 3))
        out.append(f"{indent}}}")

    def s_return(self, out, indent, depth):
        self.returned = True
        out.append(f"{indent}if {self.condition(1)} {{")
        self.checksum(out, indent + "    ")
        out.append(f"{indent}    return;")
        out.append(f"{indent}}}")

    def s_goto(self, out, indent, depth):
        """A state machine, or a loop entered in the middle of its body as well as at its top: a cycle
        with two entries (irreducible)."""
        self.uses_goto = True
        if self.chance(0.35):
            return self.two_entry_loop(out, indent, depth)
        return self.state_machine(out, indent, depth)

    def two_entry_loop(self, out, indent, depth):
        """`if (c) goto mid; do { A; mid: B; } while (++g < N && ...)`: the guard counter counts every pass.

        The count sits in the condition, not at `mid`: a `continue` in A (or an inner loop's flag that
        continues this loop) jumps to the condition past `mid`, so a count at `mid` could be skipped on
        every pass and the loop never end (campaign seed 1292)."""
        loop = _Loop(self.fresh("fl"))
        g, mid = self.fresh("g"), self.fresh("M")
        inner = indent + "    "
        lines = [f"{inner}uint {g} = 0u;", f"{inner}if {self.condition(1)} goto {mid};", f"{inner}do {{"]
        self.context.append(loop)
        self.loops += 1
        for half in (0, 1):
            if half:
                lines.append(f"{inner}{mid}:")
            lines.append(f"{inner}    {{")
            self.block(lines, inner + "        ", depth + 2, self.rng.randint(1, 2))
            lines.append(f"{inner}    }}")
        self.loops -= 1
        self.context.pop()
        lines.append(f"{inner}}} while (++{g} < {self.rng.randint(2, 6)}u && {self.condition(1)});")
        self.after_loop(lines, inner)
        out.append(f"{indent}{{")
        if loop.used:
            out.append(f"{inner}uint {loop.flag} = 0u;")
        out.extend(lines)
        out.append(f"{indent}}}")

    def state_machine(self, out, indent, depth):
        """2-4 labelled states, entered at two of them (an irreducible cycle), each state counting one step
        and leaving once a data-dependent budget is spent."""
        k = self.rng.randint(2, 4)
        base = self.fresh("L")
        states = [f"{base}_{j}" for j in range(k)]
        steps, end = self.fresh("st"), f"{base}_end"
        out.append(f"{indent}{{")
        inner = indent + "    "
        out.append(f"{inner}uint {steps} = 0u;")
        out.append(f"{inner}uint {steps}_lim = {self.trip()} + 2u;")
        second = self.rng.randrange(1, k)
        out.append(f"{inner}if {self.condition(1)} goto {states[second]};")
        self.loops += 1
        for j, label in enumerate(states):
            out.append(f"{indent}{label}:")
            out.append(f"{inner}{{")
            self.block(out, inner + "    ", depth + 1, self.rng.randint(1, 2))
            out.append(f"{inner}}}")
            out.append(f"{inner}if (++{steps} >= {steps}_lim) goto {end};")
            out.append(f"{inner}if {self.condition(1)} goto {self.rng.choice(states)};")
            if j + 1 == k or self.chance(0.3):
                out.append(f"{inner}goto {self.rng.choice(states)};")
        self.loops -= 1
        out.append(f"{indent}{end}: ;")
        out.append(f"{indent}}}")

    # -- the kernel ------------------------------------------------------------------------------------------

    def checksum(self, out: list[str], indent: str) -> None:
        out.append(f"{indent}uint h = 0u;")
        for v in self.scalars:
            if v.type == "ulong":
                out.append(f"{indent}h = hmix(hmix(h, (uint){v.name}), (uint)({v.name} >> 32));")
            else:
                value = f"as_uint({v.name})" if v.type == "int" else f"(uint){v.name}"
                out.append(f"{indent}h = hmix(h, {value});")
        for f in self.floats:
            out.append(f"{indent}h = hmix(h, as_uint({f.name}));")
        for v in self.vectors:
            for lane in "xyzw":
                value = f"as_uint({v.name}.{lane})" if v.type == "int4" else f"{v.name}.{lane}"
                out.append(f"{indent}h = hmix(h, {value});")
        for name, length in self.arrays:
            out.append(f"{indent}for (uint c = 0u; c < {length}u; c++) h = hmix(h, {name}[c]);")
        out.append(f"{indent}out[gid] = h;")

    def exchange(self, out: list[str], indent: str) -> None:
        """Work-items swap values through __local memory in a fixed permutation, between barriers."""
        src, dst = self.rng.choice(self.scalars), self.rng.choice([v for v in self.scalars if v.type == "uint"])
        perm = self.rng.choice(("(lid + {k}u) % lsize", "lid ^ ({k}u & (lsize - 1u))", "lsize - 1u - lid"))
        perm = perm.format(k=self.rng.randint(1, 31))
        read = f"lm[{perm}]"
        value = {"int": f"as_uint({src.name})", "ulong": f"(uint){src.name}"}.get(src.type, f"(uint){src.name}")
        if self.chance(0.5):
            rounds = self.fresh("r")
            out.append(f"{indent}for (uint {rounds} = 0u; {rounds} < (n & 3u) + 1u; {rounds}++) {{")
            inner = indent + "    "
        else:
            rounds, inner = None, indent
        out.append(f"{inner}lm[lid] = {value};")
        out.append(f"{inner}barrier(CLK_LOCAL_MEM_FENCE);")
        out.append(f"{inner}{dst.name} {self.rng.choice(('+=', '^=', '='))} {read};")
        out.append(f"{inner}barrier(CLK_LOCAL_MEM_FENCE);")
        if rounds:
            out.append(f"{indent}}}")

    def kernel(self) -> str:
        rng = self.rng
        out = [PRELUDE.rstrip("\n"), f"__kernel void k({KERNEL_PARAMS})", "{"]
        ind = "    "
        out.append(f"{ind}const uint gid = get_global_id(0);")
        out.append(f"{ind}const uint lid = get_local_id(0);")
        barrier = "barrier" in self.features
        if barrier:
            out.append(f"{ind}const uint lsize = get_local_size(0);")
            out.append(f"{ind}__local uint lm[{LOCAL_WORDS}];")
        if "atomic" in self.features:
            out.append(f"{ind}__local uint lcnt[4];")
        names = iter(range(1000))
        for _ in range(rng.randint(3, 6)):
            t = rng.choice(SCALAR_TYPES)
            v = _Var(f"v{next(names)}", t)
            init = f"in[(gid + {rng.randrange(IN_SIZE)}u) & {IN_SIZE - 1}u]"
            if t == "int":
                out.append(f"{ind}int {v.name} = as_int({init});")
            elif t == "ulong":
                out.append(f"{ind}ulong {v.name} = ((ulong){init} << 32) | {init.replace('gid +', 'gid * 3u +')};")
            else:
                out.append(f"{ind}{t} {v.name} = ({t}){init};")
            self.scalars.append(v)
        if not any(v.type == "uint" for v in self.scalars):
            v = _Var(f"v{next(names)}", "uint")
            out.append(f"{ind}uint {v.name} = gid;")
            self.scalars.append(v)
        if "float" in self.features:
            for _ in range(rng.randint(1, 3)):
                f = _Var(f"f{next(names)}", "float")
                out.append(f"{ind}float {f.name} = (float)(as_int(in[(gid + {rng.randrange(IN_SIZE)}u) & "
                           f"{IN_SIZE - 1}u]) % 4096);")
                self.floats.append(f)
        if "vector" in self.features:
            for _ in range(rng.randint(1, 3)):
                t = rng.choice(("uint4", "uint4", "int4"))
                v = _Var(f"w{next(names)}", t)
                load = f"vload4((gid + {rng.randrange(64)}u) & {IN_SIZE // 4 - 1}u, in)"
                out.append(f"{ind}{t} {v.name} = {'as_int4(' + load + ')' if t == 'int4' else load};")
                self.vectors.append(v)
        if self.chance(0.6):
            length = rng.choice((4, 8, 16))
            name = f"pa{next(names)}"
            out.append(f"{ind}uint {name}[{length}];")
            out.append(f"{ind}for (uint c = 0u; c < {length}u; c++) {name}[c] = in[(gid * {length}u + c) & "
                       f"{IN_SIZE - 1}u];")
            self.arrays.append((name, length))
        if "atomic" in self.features:
            out.append(f"{ind}if (lid < 4u) lcnt[lid] = lid * 7u;")
            out.append(f"{ind}barrier(CLK_LOCAL_MEM_FENCE);")
        if self.subgroup is not None and self.subgroup[1] >= SUBGROUP_RATE["subgroup"]:
            self.s_subgroup(out, ind, 0)            # at least one, in uniform code
        phases = rng.randint(1, 3) if barrier else 1
        for phase in range(phases):
            last = phase == phases - 1
            self.allow_return = last and "atomic" not in self.features
            self.block(out, ind, 0, max(1, (self.size - self.statements) // (phases - phase)))
            if barrier and not last:
                self.exchange(out, ind)
        if "atomic" in self.features:
            out.append(f"{ind}barrier(CLK_LOCAL_MEM_FENCE);")
            v = rng.choice([v for v in self.scalars if v.type == "uint"])
            out.append(f"{ind}{v.name} ^= lcnt[{v.name} & 3u];")
            out.append(f"{ind}barrier(CLK_LOCAL_MEM_FENCE);")
            out.append(f"{ind}if (lid < 4u) atomic_add(&cnt[0], lcnt[lid]);")
        self.checksum(out, ind)
        out.append("}")
        return "\n".join(out) + "\n"


# cfg mode: the share of programs that are goto-style state machines (cfggen.random_state_machine), half
# of them with a sub-group scan after the machine, which only lanes leaving it together agree on (the
# class of fuzz all-56733, which blockIP's layout got wrong and cfggen.random_kernel never made)
STATE_MACHINE_RATE = 0.3


def generate(seed: int, mode: str = "all", size: int | None = None) -> FuzzProgram:
    """The program a (seed, mode) pair stands for: the same every time, on every machine."""
    if mode not in MODES:
        raise ValueError(f"unknown fuzz mode '{mode}' (modes: {', '.join(MODES)})")
    rng = random.Random(f"{mode}:{seed}")
    local = rng.choice((8, 16, 16, 32, 64))
    global_size = local * rng.choice((1, 2, 4)) if local < 64 else 64
    global_size = max(global_size, 16)
    if mode == "cfg":
        from reconverge.tools.testing.cfggen import random_kernel, random_state_machine
        states = random.Random(f"{mode}:{seed}:states")      # (its own stream: the other programs stay as they were)
        if states.random() < STATE_MACHINE_RATE:
            two_entries, scan = states.random() < 0.6, states.random() < 0.5
            text = str(random_state_machine(states, states.randint(3, 12), memory=states.random() < 0.25,
                                            two_entries=two_entries, scan=scan))
            return FuzzProgram(seed, mode, text, "ll", global_size, min(local, global_size),
                               irreducible=two_entries, arg_names=["out", "in"], uses_subgroups=scan)
        irreducible = rng.random() < 0.5
        text = str(random_kernel(rng, rng.randint(4, 40), max_loop_depth=rng.randint(1, 3),
                                 irreducible=0.3 if irreducible else 0.0))
        return FuzzProgram(seed, mode, text, "ll", global_size, min(local, global_size), irreducible=irreducible,
                           arg_names=["out", "in"])
    subgroup = (random.Random(f"{mode}:{seed}:subgroup"), SUBGROUP_RATE[mode]) \
        if "subgroup" in FEATURES[mode] else None
    gen = _ClGen(rng, FEATURES[mode], size if size is not None else rng.randint(4, 18), subgroup)
    gen.chosen_element_stream = random.Random(f"{mode}:{seed}:chosen_element")
    if mode != "convergence":
        gen.runtime_fill_stream = random.Random(f"{mode}:{seed}:runtime_fill")
        gen.bool_float_stream = random.Random(f"{mode}:{seed}:bool_float")
        gen.int_builtin_stream = random.Random(f"{mode}:{seed}:int_builtin")
        gen.fused_stream = random.Random(f"{mode}:{seed}:fused")
    if subgroup is not None:
        gen.cluster_type_stream = random.Random(f"{mode}:{seed}:cluster_type")
    if mode == "convergence":
        gen.nested_do_stream = random.Random(f"{mode}:{seed}:nested_do")
        gen.continue_loop_stream = random.Random(f"{mode}:{seed}:continue_loop")
        gen.signed_zero_stream = random.Random(f"{mode}:{seed}:signed_zero")
        gen.closed_loop_stream = random.Random(f"{mode}:{seed}:closed_loop")
        gen.goto_loop_stream = random.Random(f"{mode}:{seed}:goto_loop")
        gen.inner_exit_stream = random.Random(f"{mode}:{seed}:inner_exit")
        if seed % 2 == 0:       # (odd seeds run as token IR, whose loops tokens.py finds by source line)
            gen.line_stream = random.Random(f"{mode}:{seed}:line")
    source = gen.kernel()
    program = FuzzProgram(seed, mode, source, "cl", global_size, local, uses_approx=gen.uses_approx,
                          irreducible=gen.uses_goto, n_arg=rng.randrange(8), arg_names=list(ARG_NAMES),
                          uses_subgroups=gen.uses_subgroups)
    if mode == "convergence":
        program.build_options = ("-g",)
        if seed % 2:
            from reconverge.tools.fuzz.tokens import TokenError
            try:
                program.source, program.language, program.cl_source = with_tokens(source), "ll", source
                program.build_options = ()
            except TokenError:
                pass        # clang's IR has a shape tokens.py cannot read (seed 9179): the C with -g form
    return program


def with_tokens(source: str) -> str:
    """The LLVM IR of a generated kernel (clang-22 -O0 -g) with convergence tokens as its loops nest
    (tools/fuzz/tokens.py)."""
    from reconverge.lowering.frontend.clang import run_clang
    from reconverge.tools.fuzz.tokens import add_tokens
    return add_tokens(run_clang("-", "-O0", ("-g",), source=source.encode()).llvm_text, source)
