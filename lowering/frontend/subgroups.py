"""OpenCL C sub-group built-ins as the IR's sub-group opcodes.

The functions are those of OpenCL C 3.0 section 6.15.16 (cl_khr_subgroups) and of the extensions
cl_khr_subgroup_non_uniform_vote, _ballot, _non_uniform_arithmetic, _shuffle, _shuffle_relative,
_clustered_reduce and _extended_types. Every cross-lane one becomes one `subgroup` instruction per
component (the uniform and `non_uniform_` spellings alike: both work over the lanes that reach them
together). The ballot's bit queries and the lane masks (get_sub_group_eq_mask and friends) are plain
integer arithmetic on the four ballot words and the lane's id, so no target needs them: they consider
the bits of lanes 0 to get_max_sub_group_size() - 1, as SPIR-V's OpGroupNonUniformBallotBitCount and
Vulkan's SubgroupGeMask do (SPIR-V 1.6 section 3.56.24; Vulkan 1.3, built-in variables).
"""
from __future__ import annotations

from reconverge.lowering.frontend.scalar import Unsupported
from reconverge.lowering.ir.core import Const, Value
from reconverge.lowering.ir.types import I1, I32, VOID, Type

INFO = {"get_sub_group_size": "size", "get_max_sub_group_size": "max_size", "get_num_sub_groups": "num",
        "get_enqueued_num_sub_groups": "num", "get_sub_group_id": "id", "get_sub_group_local_id": "local_id"}
_ARITH = ("add", "mul", "min", "max", "and", "or", "xor", "logical_and", "logical_or", "logical_xor")
_SCANS = {"reduce": "reduce", "scan_inclusive": "inclusive_scan", "scan_exclusive": "exclusive_scan"}
_SHUFFLES = {"broadcast": "broadcast", "non_uniform_broadcast": "broadcast", "shuffle": "shuffle",
             "shuffle_xor": "shuffle_xor", "shuffle_up": "shuffle_up", "shuffle_down": "shuffle_down"}
_MASKS = ("eq", "ge", "gt", "le", "lt")
_BALLOT_QUERIES = ("inverse_ballot", "ballot_bit_extract", "ballot_bit_count", "ballot_inclusive_scan",
                   "ballot_exclusive_scan", "ballot_find_lsb", "ballot_find_msb")
ALL_ONES = 0xFFFFFFFF


def is_subgroup_builtin(name: str) -> bool:
    return name in INFO or name.startswith("sub_group_") or name.startswith("get_sub_group_") and \
        name[len("get_sub_group_"):-len("_mask")] in _MASKS


def lower(L, name: str, kinds: list[str], args: list[list[Value]], rt: Type | None) -> list[Value] | None:
    """The IR for one call of the sub-group built-in `name`; kinds[i] is parameter i's "s", "u" or "f"."""
    if name in INFO:
        assert rt is not None
        return [L.fix_width(info(L, INFO[name]), rt, False)]
    if name.startswith("get_sub_group_"):
        return _lane_mask(L, name[len("get_sub_group_"):-len("_mask")])
    rest = name[len("sub_group_"):]
    if rest == "barrier":
        L.r.emit("subgroup_barrier", [L.fix_width(args[0][0], I32, False)], VOID, None)
        return None
    if rest in ("all", "any", "non_uniform_all", "non_uniform_any"):
        vote = _op(L, rest.rsplit("_", 1)[-1], [_truth(L, args[0][0])], I1)
        return [_from_bool(L, vote, rt)]
    if rest == "elect":
        return [_from_bool(L, _op(L, "elect", [], I1), rt)]
    if rest == "non_uniform_all_equal":
        return [_from_bool(L, _op(L, "all_equal", [args[0][0]], I1), rt)]
    if rest == "broadcast_first":
        return [_op(L, "broadcast_first", [x], x.type) for x in args[0]]
    if rest in _SHUFFLES:
        lane = L.fix_width(args[1][0], I32, False)
        return [_op(L, _SHUFFLES[rest], [x, lane], x.type) for x in args[0]]
    if rest == "ballot":
        bit = _truth(L, args[0][0])
        return [_op(L, "ballot", [bit], I32, word=w) for w in range(4)]
    if rest in _BALLOT_QUERIES:
        return [_ballot_query(L, rest, args)]
    return _arithmetic(L, name, rest, kinds, args, rt)


def info(L, fn: str) -> Value:
    return L.r.emit("subgroup_info", [], I32, {"fn": fn})


def _op(L, op: str, operands: list[Value], t: Type, **attrs) -> Value:
    return L.r.emit("subgroup", operands, t, {"op": op, **attrs})


def _truth(L, x: Value) -> Value:
    return x if x.type == I1 else L.icmp("ne", x, Const(x.type, 0))


def _from_bool(L, b: Value, rt: Type | None) -> Value:
    assert rt is not None
    return b if rt == I1 else L.op("zext", b, t=rt)


def _arithmetic(L, name: str, rest: str, kinds: list[str], args, rt: Type | None) -> list[Value]:
    """reduce/scan_inclusive/scan_exclusive (non_uniform_ and clustered_ too) of one arithmetic op."""
    cluster = None
    for prefix in ("non_uniform_", "clustered_"):
        if rest.startswith(prefix):
            rest = rest[len(prefix):]
            if prefix == "clustered_":
                size = args[1][0]
                cluster = int(size.value) if isinstance(size, Const) and isinstance(size.value, int) else 0
                if cluster < 1 or cluster & (cluster - 1):
                    raise Unsupported(f"{name}: the cluster size must be a constant power of two")
    kind = next((k for k in _SCANS if rest.startswith(k + "_")), "")
    op = rest[len(kind) + 1:]
    if kind not in _SCANS or op not in _ARITH or (cluster is not None and kind != "reduce"):
        raise Unsupported(f"OpenCL builtin {name}")
    x = args[0][0]
    signedness = kinds[0] if kinds else "s"
    attrs: dict[str, object] = {"op": _SCANS[kind]}
    if cluster is not None:
        attrs["cluster"] = cluster
    if op.startswith("logical_"):
        result = L.r.emit("subgroup", [_truth(L, x)], I1, {**attrs, "arith": op[len("logical_"):]})
        return [_from_bool(L, result, rt)]
    if x.type.is_float:
        arith = {"add": "fadd", "mul": "fmul", "min": "fmin", "max": "fmax"}.get(op)
    elif op in ("min", "max"):
        arith = ("s" if signedness == "s" else "u") + op
    else:
        arith = op
    if arith is None:
        raise Unsupported(f"OpenCL builtin {name} on {x.type}")
    return [L.r.emit("subgroup", [x], x.type, {**attrs, "arith": arith})]


# ----- ballot words as integers: word w holds lanes 32w .. 32w+31

def _word_range_mask(L, lo: Value, hi: Value, w: int) -> Value:
    """The bits of word w for lanes in [lo, hi) (i32 lane numbers, lo <= hi)."""
    base = Const(I32, 32 * w)
    top = Const(I32, 32 * w + 32)

    def clamp(x: Value) -> Value:
        return L.op("umin", L.op("umax", x, base), top)
    below_hi = _low_bits(L, L.op("sub", clamp(hi), base))          # clamp(x) - base is 0..32
    if isinstance(lo, Const) and lo.value == 0:
        return below_hi
    below_lo = _low_bits(L, L.op("sub", clamp(lo), base))
    return L.op("and", below_hi, L.op("xor", below_lo, Const(I32, ALL_ONES)))


def _low_bits(L, n: Value) -> Value:
    """(1 << n) - 1 for n in 0..32, without a shift by 32."""
    shifted = L.op("shl", Const(I32, 1), L.op("and", n, Const(I32, 31)))
    return L.sel(L.icmp("uge", n, Const(I32, 32)), Const(I32, ALL_ONES), L.op("sub", shifted, Const(I32, 1)))


def _lane_mask(L, which: str) -> list[Value]:
    lane = info(L, "local_id")
    one = Const(I32, 1)
    size = info(L, "max_size")
    lo, hi = {"eq": (lane, L.op("add", lane, one)), "ge": (lane, size), "gt": (L.op("add", lane, one), size),
              "le": (Const(I32, 0), L.op("add", lane, one)), "lt": (Const(I32, 0), lane)}[which]
    return [_word_range_mask(L, lo, hi, w) for w in range(4)]


def _bit_of(L, words: list[Value], index: Value) -> Value:
    """Bit `index` of the 128-bit ballot, as i32 0 or 1 (an index past 127 reads 0)."""
    word = Const(I32, 0)
    for w in range(3, -1, -1):
        word = L.sel(L.icmp("eq", L.op("lshr", index, Const(I32, 5)), Const(I32, w)), words[w], word)
    return L.op("and", L.op("lshr", word, L.op("and", index, Const(I32, 31))), Const(I32, 1))


def _ballot_query(L, which: str, args) -> Value:
    words = [L.fix_width(x, I32, False) for x in args[0]]
    if which == "inverse_ballot":
        return _bit_of(L, words, info(L, "local_id"))
    if which == "ballot_bit_extract":
        return _bit_of(L, words, L.fix_width(args[1][0], I32, False))
    lane, size = info(L, "local_id"), info(L, "max_size")
    hi = {"ballot_inclusive_scan": L.op("add", lane, Const(I32, 1)), "ballot_exclusive_scan": lane}.get(which, size)
    hi = L.op("umin", hi, size)
    kept = [L.op("and", words[w], _word_range_mask(L, Const(I32, 0), hi, w)) for w in range(4)]
    if which in ("ballot_bit_count", "ballot_inclusive_scan", "ballot_exclusive_scan"):
        total: Value = L.op("popcount", kept[0])
        for w in kept[1:]:
            total = L.op("add", total, L.op("popcount", w))
        return total
    # find_lsb / find_msb: undefined when no bit is set; this gives 0xffffffff then
    result: Value = Const(I32, ALL_ONES)
    order = range(3, -1, -1) if which == "ballot_find_lsb" else range(4)
    for w in order:
        if which == "ballot_find_lsb":
            pos = L.op("add", L.op("ctz", kept[w]), Const(I32, 32 * w))
        else:
            pos = L.op("sub", Const(I32, 32 * w + 31), L.op("clz", kept[w]))
        result = L.sel(L.icmp("ne", kept[w], Const(I32, 0)), pos, result)
    return result
