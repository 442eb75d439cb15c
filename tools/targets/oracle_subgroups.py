"""The llvm reference's model of a sub-group: its lanes, each on its own thread, meet at every cross-lane
built-in and compute it together over the lanes that meet.

Sub-group k of a work-group holds the items with linear local id in [k*S, (k+1)*S) (S: --subgroup-size;
the last one may be partial). The built-ins that only read a lane's own state (sizes and ids, ballot bit
queries, the lane masks) are plain OpenCL C in the library (sub_group_library_source); every cross-lane one
(reductions, scans, broadcasts, shuffles, votes, ballot, sub_group_barrier) calls `__oracle_subgroup`, a
host callback, which waits in the lane's SubGroupMeeting.

Which lanes compute an operation together.  A meeting completes when every lane of the sub-group that has
not returned waits at a sub-group operation; the lanes that meet form one dynamic instance of it when they
all wait at the same *key*: the same call instruction (oracle_sites.py numbers them), reached through the
same chain of calls, in the same iteration of every loop that encloses each call of the chain.  That is
LLVM's maximal convergence (LLVM docs, ConvergentOperations.rst, "Maximal Convergence"): threads converge
at a convergent operation when they reach it in the same iteration of every enclosing cycle; a lock-step
GPU running the structured tree runs exactly those lanes together (a node runs once per iteration of its
loops, under the mask of the lanes that reach it).  Counting only operations (the k-th operation at the
same call) is not enough: in `for (i = 0; i < 2; i++) if ((lid + i) & 1) r = sub_group_reduce_add(x);`
every lane makes its first reduction at the same call, half of them in each iteration.
Lanes may wait at different keys (an `if` around a reduction followed by another one, a loop some lanes
have left): the lanes waiting at a key K run it when no lane waiting elsewhere can still come to K
(Sites.reaches: a later iteration of a loop around both never comes back to an earlier one; in the same
iterations only a path inside the loop body that does not pass its header again leads from one call to
another); lanes at a work-group barrier take part in that ordering through their barrier's key. Where every
waiting key may still be reached from another one, the model cannot tell the order a GPU would run them
in, and the group is refused with a one-line error (never a guess, never a hang).

Float add and mul reduce and scan in lane order; min and max take the non-NaN operand (fmin/fmax); the
exclusive scans' identities are the shared ones (add/or/xor 0, mul 1, and all-ones, min the type's maximum,
max its minimum, fmin +inf, fmax -inf).  A broadcast or shuffle whose source lane is out of range or does not
take part, or whose index or cluster size differs between lanes, is undefined: an error.
"""
from __future__ import annotations

import ctypes
import threading

import numpy as np

from reconverge.tools.targets.oracle_builtins import _DEPTH, _GRP, _LID, _LSZ, _SGS, _SITE

# ---------------------------------------------------------------------------------------------------------
# The operations and their codes (shared by the library source and the host callback).

ARITH = ("add", "mul", "min", "max", "and", "or", "xor", "logical_and", "logical_or", "logical_xor")
OPS = ("reduce", "inclusive_scan", "exclusive_scan", "clustered_reduce", "broadcast", "broadcast_first",
       "shuffle", "shuffle_xor", "shuffle_up", "shuffle_down", "all", "any", "all_equal", "elect", "ballot",
       "barrier")
_KINDS = ("i", "u", "f")      # numpy kinds of the type codes: code = kind index * 16 + bytes

# OpenCL C scalar type -> (numpy kind, bytes)
SCALARS = {"char": ("i", 1), "uchar": ("u", 1), "short": ("i", 2), "ushort": ("u", 2), "int": ("i", 4),
           "uint": ("u", 4), "long": ("i", 8), "ulong": ("u", 8), "half": ("f", 2), "float": ("f", 4),
           "double": ("f", 8)}
INTEGERS = [t for t, (k, _) in SCALARS.items() if k != "f"]
VECTOR_WIDTHS = (2, 3, 4, 8, 16)

STACK_SLOTS = 32                  # state slots after _DEPTH: the calls leading to a sub-group call
STACK = _DEPTH + 1
PRIVATE = STACK + STACK_SLOTS     # the work-item's private arena and its slots' offsets (oracle_private.py)
LOOPS = PRIVATE + 2               # the first loop counter's slot
STATE_SLOTS = LOOPS               # a state array without loop counters


def op_code(op: str, arith: str | None = None) -> int:
    return OPS.index(op) * 16 + (ARITH.index(arith) if arith else 0)


def type_code(t: str) -> int:
    kind, size = SCALARS[t]
    return _KINDS.index(kind) * 16 + size


def _decode_type(code: int) -> np.dtype:
    return np.dtype(f"{_KINDS[code // 16]}{code % 16}")


# ---------------------------------------------------------------------------------------------------------
# The library's sub-group built-ins (OpenCL C, appended to oracle_builtins' source).

def _call(op: str, arith: str | None, t: str, count: int, value: str, arg: str) -> str:
    return (f"__oracle_subgroup({op_code(op, arith)}u, {type_code(t)}u, {count}u, &{value}, &r, {arg}); "
            f"return r;")


def sub_group_library_source() -> str:
    """Every sub-group built-in clang-22's OpenCL C header declares (cl_khr_subgroups and the
    cl_khr_subgroup_* extensions of issue 23); tests/test_oracle_subgroups.py checks the list against the
    header."""
    state = "__oracle_state()"
    lin = (f"(uint)(({state}[{_LID + 2}] * {state}[{_LSZ + 1}] + {state}[{_LID + 1}]) * {state}[{_LSZ}] "
           f"+ {state}[{_LID}])")
    total = f"(uint)({state}[{_LSZ}] * {state}[{_LSZ + 1}] * {state}[{_LSZ + 2}])"
    src = [
        "void __oracle_subgroup(uint code, uint type, uint count, const __generic void *in, "
        "__generic void *out, uint arg);\n",
        f"void __oracle_sg_site(ulong s) {{ {state}[{_SITE}] = s; }}\n",
        f"void __oracle_sg_push(ulong s) {{ __global ulong *st = {state}; st[{STACK} + st[{_DEPTH}]] = s; "
        f"st[{_DEPTH}] += 1; }}\n",
        f"void __oracle_sg_pop(void) {{ {state}[{_DEPTH}] -= 1; }}\n",
        f"void __oracle_loop_enter(uint l) {{ {state}[{LOOPS} + l] = 0; }}\n",
        f"void __oracle_loop_iter(uint l) {{ {state}[{LOOPS} + l] += 1; }}\n",
        f"static uint __sg_lin(void) {{ return {lin}; }}\n",
        f"static uint __sg_max(void) {{ return (uint){state}[{_SGS}]; }}\n",
        f"static uint __sg_size(void) {{ uint rest = {total} - __sg_lin() / __sg_max() * __sg_max(); "
        f"return rest < __sg_max() ? rest : __sg_max(); }}\n",
        "OV uint get_max_sub_group_size(void) { return __sg_max(); }\n",
        "OV uint get_sub_group_size(void) { return __sg_size(); }\n",
        f"OV uint get_num_sub_groups(void) {{ return ({total} + __sg_max() - 1u) / __sg_max(); }}\n",
        f"OV uint get_enqueued_num_sub_groups(void) {{ return ({total} + __sg_max() - 1u) / __sg_max(); }}\n",
        "OV uint get_sub_group_id(void) { return __sg_lin() / __sg_max(); }\n",
        "OV uint get_sub_group_local_id(void) { return __sg_lin() % __sg_max(); }\n",
        # ballot bit queries and lane masks: the bits of lanes 0 .. get_max_sub_group_size() - 1, as the front
        # end (lowering/frontend/subgroups.py) and SPIR-V's OpGroupNonUniformBallotBitCount count them
        "static uint __sg_bit(uint4 v, uint i) { return i < 128u ? (v[i >> 5] >> (i & 31u)) & 1u : 0u; }\n",
        "static uint __sg_count(uint4 v, uint lo, uint hi) { uint n = 0; "
        "for (uint i = lo; i < hi; i++) n += __sg_bit(v, i); return n; }\n",
        "OV int sub_group_inverse_ballot(uint4 v) { return (int)__sg_bit(v, get_sub_group_local_id()); }\n",
        "OV int sub_group_ballot_bit_extract(uint4 v, uint i) { return (int)__sg_bit(v, i); }\n",
        "OV uint sub_group_ballot_bit_count(uint4 v) { return __sg_count(v, 0u, __sg_max()); }\n",
        "OV uint sub_group_ballot_inclusive_scan(uint4 v) { return __sg_count(v, 0u, "
        "get_sub_group_local_id() + 1u); }\n",
        "OV uint sub_group_ballot_exclusive_scan(uint4 v) { return __sg_count(v, 0u, get_sub_group_local_id()); }\n",
        "OV uint sub_group_ballot_find_lsb(uint4 v) { for (uint i = 0; i < __sg_max(); i++) "
        "if (__sg_bit(v, i)) return i; return 0xffffffffu; }\n",
        "OV uint sub_group_ballot_find_msb(uint4 v) { for (uint i = __sg_max(); i > 0u; i--) "
        "if (__sg_bit(v, i - 1u)) return i - 1u; return 0xffffffffu; }\n",
    ]
    masks = {"eq": "i == l", "ge": "i >= l", "gt": "i > l", "le": "i <= l", "lt": "i < l"}
    for name, test in masks.items():
        src.append(f"OV uint4 get_sub_group_{name}_mask(void) {{ uint4 r = (uint4)(0u); uint l = "
                   f"get_sub_group_local_id(); for (uint i = 0; i < __sg_max(); i++) if ({test}) "
                   f"r[i >> 5] |= 1u << (i & 31u); return r; }}\n")
    for sig in ("uint f", "uint f, memory_scope s"):
        src.append(f"OV void sub_group_barrier({sig}) {{ int r, z = 0; "
                   f"__oracle_subgroup({op_code('barrier')}u, {type_code('int')}u, 1u, &z, &r, 0u); }}\n")
    for name, op in (("elect", "elect"),):
        src.append(f"OV int sub_group_{name}(void) {{ int r, z = 0; {_call(op, None, 'int', 1, 'z', '0u')} }}\n")
    for name, op in (("all", "all"), ("any", "any"), ("non_uniform_all", "all"), ("non_uniform_any", "any")):
        src.append(f"OV int sub_group_{name}(int p) {{ int r; {_call(op, None, 'int', 1, 'p', '0u')} }}\n")
    src.append(f"OV uint4 sub_group_ballot(int p) {{ uint4 r; {_call('ballot', None, 'int', 1, 'p', '0u')} }}\n")
    for t in SCALARS:
        arithmetic = ["add", "mul", "min", "max"] + (["and", "or", "xor"] if t in INTEGERS else [])
        for a in arithmetic:
            for prefix, op, extra, arg in (("reduce", "reduce", "", "0u"),
                                           ("scan_inclusive", "inclusive_scan", "", "0u"),
                                           ("scan_exclusive", "exclusive_scan", "", "0u"),
                                           ("clustered_reduce", "clustered_reduce", ", uint c", "c")):
                names = [f"sub_group_non_uniform_{prefix}_{a}"] if prefix != "clustered_reduce" else \
                    [f"sub_group_{prefix}_{a}"]
                if a in ("add", "min", "max") and prefix != "clustered_reduce":
                    names.append(f"sub_group_{prefix}_{a}")
                for name in names:
                    src.append(f"OV {t} {name}({t} x{extra}) {{ {t} r; {_call(op, a, t, 1, 'x', arg)} }}\n")
        for name, op, extra, arg in (("broadcast_first", "broadcast_first", "", "0u"),
                                     ("shuffle", "shuffle", ", uint i", "i"),
                                     ("shuffle_xor", "shuffle_xor", ", uint i", "i"),
                                     ("shuffle_up", "shuffle_up", ", uint i", "i"),
                                     ("shuffle_down", "shuffle_down", ", uint i", "i")):
            src.append(f"OV {t} sub_group_{name}({t} x{extra}) {{ {t} r; {_call(op, None, t, 1, 'x', arg)} }}\n")
        src.append(f"OV int sub_group_non_uniform_all_equal({t} x) {{ int r; "
                   f"{_call('all_equal', None, t, 1, 'x', '0u')} }}\n")
        for n in (1,) + VECTOR_WIDTHS:
            v = t if n == 1 else f"{t}{n}"
            for name in ("broadcast", "non_uniform_broadcast"):
                src.append(f"OV {v} sub_group_{name}({v} x, uint i) {{ {v} r; "
                           f"{_call('broadcast', None, t, n, 'x', 'i')} }}\n")
    for prefix, op, extra, arg in (("sub_group_non_uniform_reduce", "reduce", "", "0u"),
                                   ("sub_group_non_uniform_scan_inclusive", "inclusive_scan", "", "0u"),
                                   ("sub_group_non_uniform_scan_exclusive", "exclusive_scan", "", "0u"),
                                   ("sub_group_clustered_reduce", "clustered_reduce", ", uint c", "c")):
        for a in ("and", "or", "xor"):
            src.append(f"OV int {prefix}_logical_{a}(int x{extra}) {{ int r; "
                       f"{_call(op, 'logical_' + a, 'int', 1, 'x', arg)} }}\n")
    return "".join(src)


# ---------------------------------------------------------------------------------------------------------
# What one meeting computes.

class SubGroupUB(Exception):
    """The operation is undefined for these lanes (a source lane out of range or not taking part, ...)."""


def _identity(arith: str, dtype: np.dtype):
    if arith in ("add", "or", "xor", "logical_or", "logical_xor"):
        return dtype.type(0)
    if arith in ("mul", "logical_and"):
        return dtype.type(1)
    if arith == "and":
        return dtype.type(-1) if dtype.kind == "i" else np.iinfo(dtype).max
    if dtype.kind == "f":
        return dtype.type(np.inf if arith == "min" else -np.inf)
    info = np.iinfo(dtype)
    return dtype.type(info.max if arith == "min" else info.min)


def _combine(arith: str, a, b):
    with np.errstate(over="ignore", invalid="ignore"):
        if arith == "add":
            return a + b
        if arith == "mul":
            return a * b
        if arith == "min":
            return np.fmin(a, b) if a.dtype.kind == "f" else np.minimum(a, b)
        if arith == "max":
            return np.fmax(a, b) if a.dtype.kind == "f" else np.maximum(a, b)
        if arith == "and":
            return a & b
        if arith == "or":
            return a | b
        if arith == "xor":
            return a ^ b
        x, y = a != 0, b != 0
        out = {"logical_and": x & y, "logical_or": x | y, "logical_xor": x ^ y}[arith]
        return a.dtype.type(out)


def _scan(arith: str, values: list, dtype: np.dtype, inclusive: bool) -> list:
    """Running combination in lane order (each step rounded in the type, as a lane-by-lane GPU loop)."""
    acc, out = _identity(arith, dtype), []
    for v in values:
        if not inclusive:
            out.append(acc)
        acc = _combine(arith, acc, v)
        if inclusive:
            out.append(acc)
    return out


def compute(op: str, arith: str | None, lanes: list[int], values: list, args: list[int], size: int) -> list:
    """The results of one sub-group operation: `lanes` are the sub-group local ids that take part (in
    increasing order), `values` their operands (numpy scalars, or arrays for vectors), `args` their index,
    delta, mask or cluster size, `size` the sub-group's size."""
    where = {lane: i for i, lane in enumerate(lanes)}
    arith = arith or "add"
    if op in ("broadcast", "clustered_reduce") and len(set(args)) > 1:
        raise SubGroupUB(f"the {'lane index' if op == 'broadcast' else 'cluster size'} differs between lanes "
                         f"({sorted(set(args))})")
    if op == "reduce":
        total = _scan(arith, values, values[0].dtype, True)[-1]
        return [total] * len(lanes)
    if op in ("inclusive_scan", "exclusive_scan"):
        return _scan(arith, values, values[0].dtype, op == "inclusive_scan")
    if op == "clustered_reduce":
        c = args[0]
        if c < 1 or c & (c - 1) or c > size:
            raise SubGroupUB(f"cluster size {c} is not a power of two of at most the sub-group size {size}")
        totals: dict[int, object] = {}
        for lane, v in zip(lanes, values):
            k = lane // c
            totals[k] = v if k not in totals else _combine(arith, totals[k], v)
        return [totals[lane // c] for lane in lanes]
    if op in ("broadcast", "shuffle", "shuffle_xor", "shuffle_up", "shuffle_down"):
        out = []
        for lane, a in zip(lanes, args):
            src = {"broadcast": a, "shuffle": a, "shuffle_xor": lane ^ a, "shuffle_up": lane - a,
                   "shuffle_down": lane + a}[op]
            if src not in where:
                state = "outside the sub-group" if not 0 <= src < size else "not taking part"
                raise SubGroupUB(f"lane {lane} reads lane {src}, which is {state}")
            out.append(values[where[src]])
        return out
    if op == "broadcast_first":
        return [values[0]] * len(lanes)
    if op in ("all", "any"):
        bits = [bool(v != 0) for v in values]
        r = np.int32(all(bits) if op == "all" else any(bits))
        return [r] * len(lanes)
    if op == "all_equal":
        first = values[0]
        same = all(bool(np.all(v == first)) for v in values)
        return [np.int32(same)] * len(lanes)
    if op == "elect":
        return [np.int32(i == 0) for i in range(len(lanes))]
    if op == "ballot":
        words = np.zeros(4, np.uint32)
        for lane, v in zip(lanes, values):
            if v != 0:
                words[lane // 32] |= np.uint32(1 << (lane % 32))
        return [words.copy() for _ in lanes]
    if op == "barrier":
        return [np.int32(0)] * len(lanes)
    raise AssertionError(op)


def _result_dtype(op: str, dtype: np.dtype) -> np.dtype:
    if op in ("all", "any", "all_equal", "elect", "barrier"):
        return np.dtype(np.int32)
    if op == "ballot":
        return np.dtype(np.uint32)
    return dtype


# ---------------------------------------------------------------------------------------------------------
# Meetings.

class Arrival:
    """One lane waiting at a sub-group operation."""
    __slots__ = ("lane", "key", "code", "value", "arg", "out", "dtype", "count", "done")

    def __init__(self, lane, key, code, value, arg, out, dtype, count):
        self.lane, self.key, self.code, self.value, self.arg = lane, key, code, value, arg
        self.out, self.dtype, self.count = out, dtype, count
        self.done = False


class SubGroupMeeting:
    """The lanes of one sub-group; the work-group's lock (`cond`'s) guards everything here."""

    def __init__(self, index: int, size: int, sync):
        self.index, self.size, self.sync = index, size, sync
        self.cond = threading.Condition(sync.cond)        # shares the work-group's lock
        self.waiting: dict[int, Arrival] = {}
        self.at_barrier: dict[int, tuple | None] = {}     # lane -> its key at the work-group barrier
        self.finished: set[int] = set()

    def arrive(self, arrival: Arrival) -> None:
        """Called with the lock held; returns once the operation ran (or the group failed)."""
        self.waiting[arrival.lane] = arrival
        self.settle()
        while not arrival.done and self.sync.error is None:
            self.cond.wait()

    def settle(self) -> None:
        """Once every lane that has not returned waits: run each operation that no waiting lane can still
        come to (the lanes waiting at it are all that will run it); refuse when there is none."""
        if self.sync.error is not None or not self.waiting:
            return
        if len(self.waiting) + len(self.at_barrier) + len(self.finished) < self.size:
            return
        sites = self.sync.sites
        keys = {a.key for a in self.waiting.values()}
        everywhere = keys | set(self.at_barrier.values())
        runnable = [k for k in keys if sites is not None and None not in everywhere
                    and not any(sites.reaches(o, k) for o in everywhere if o != k)]
        if not runnable:
            self.refuse(keys)
            return
        for key in sorted(runnable):
            arrivals = [self.waiting[lane] for lane in sorted(self.waiting) if self.waiting[lane].key == key]
            if not self.run(arrivals):
                return
            for a in arrivals:
                a.done = True
                del self.waiting[a.lane]
        self.cond.notify_all()

    def refuse(self, keys: set) -> None:
        groups = sorted(({lane for lane, a in self.waiting.items() if a.key == k} for k in keys), key=min)
        where = [f"lane(s) {_lanes(g)} at {self.sync.describe(self.waiting[min(g)].key)}" for g in groups[:3]]
        if self.at_barrier:
            where.append(f"lane(s) {_lanes(self.at_barrier)} at a work-group barrier")
        self.sync.fail(f"a sub-group operation in divergent control flow (sub-group {self.index}: "
                       f"{'; '.join(where)}): the llvm reference cannot tell which lanes run it together; "
                       f"use --target ir")

    def run(self, arrivals: list[Arrival]) -> bool:
        """Compute one operation for the lanes that meet at it and write their results."""
        op, arith = OPS[arrivals[0].code // 16], None
        if op in ("reduce", "inclusive_scan", "exclusive_scan", "clustered_reduce"):
            arith = ARITH[arrivals[0].code % 16]
        try:
            results = compute(op, arith, [a.lane for a in arrivals], [a.value for a in arrivals],
                              [a.arg for a in arrivals], self.size)
        except SubGroupUB as e:
            self.sync.fail(f"sub-group {self.index}: {self.sync.describe(arrivals[0].key)}: {e} (undefined)")
            return False
        for a, r in zip(arrivals, results):
            data = np.ascontiguousarray(np.asarray(r, _result_dtype(op, a.dtype)))
            ctypes.memmove(a.out, data.ctypes.data, data.nbytes)
        return True


def _lanes(lanes) -> str:
    """'0-3, 6' for {0, 1, 2, 3, 6}."""
    out: list[str] = []
    run: list[int] = []
    for lane in sorted(lanes):
        if run and lane == run[-1] + 1:
            run.append(lane)
            continue
        if run:
            out.append(f"{run[0]}-{run[-1]}" if len(run) > 1 else f"{run[0]}")
        run = [lane]
    if run:
        out.append(f"{run[0]}-{run[-1]}" if len(run) > 1 else f"{run[0]}")
    return ", ".join(out)


def read_operand(pointer: int, dtype: np.dtype, count: int):
    """The lane's operand: a numpy scalar, or an array of `count` elements for a vector."""
    data = np.frombuffer(ctypes.string_at(pointer, dtype.itemsize * count), dtype).copy()
    return data[0] if count == 1 else data


def lane_key(state: np.ndarray, sites) -> tuple:
    """The dynamic instance a lane is at: every call of the chain, with the loop iterations around it."""
    depth = int(state[_DEPTH])
    chain = [int(s) for s in state[STACK:STACK + depth]] + [int(state[_SITE])]
    return tuple((s, tuple(int(state[LOOPS + loop]) for loop in sites.loops[s])) for s in chain)


def lane_position(state: np.ndarray) -> tuple[int, int]:
    """(sub-group index, local id in it) of the work-item whose state this is."""
    lsz = state[_LSZ:_LSZ + 3]
    lid = state[_LID:_LID + 3]
    linear = int((lid[2] * lsz[1] + lid[1]) * lsz[0] + lid[0])
    s = int(state[_SGS])
    return linear // s, linear % s


def group_name(state: np.ndarray) -> tuple[int, ...]:
    return tuple(int(g) for g in state[_GRP:_GRP + 3])


def decode(code: int, type_: int) -> tuple[str, np.dtype]:
    return OPS[code // 16], _decode_type(type_)
