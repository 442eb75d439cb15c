"""Conditions selected straight into a flag: a compare, and the logical and / or / not of compares,
chained through the flag as IGC does (`cmp.lt f0.0 a b` then `(f0.0) cmp.gt f0.0 c d` for `a < b && c > d`)
instead of 0/-1 dwords combined with `sel` / `and` and tested again with `cmp.ne`.

A chain works because a predicated compare writes the flag bits of the channels it runs on only (PRM
vol. 7, "Flag Register"; isa/gen9/simulator.py does the same): after `cmp f a`, `(f) cmp f b` leaves the
lanes where a is false at false and sets the others to b, which is a && b; `(~f) cmp f b` gives a || b.
A negation is pushed to the leaves (De Morgan): an integer compare negated is the opposite condition,
and so are the float compares oeq and une (Gen's cmp is false on NaN for every condition but ne); any
other negated float compare, and every i1 value that is not a compare of the condition's own, is a leaf
testing its 0/-1 dword (`cmp.ne` or `cmp.eq` against 0).

A plan owns (defers: nothing selects them in their block) the instructions it reads only through
itself: each is read once, in the consumer's block (the branch after it, or a select in it). Only
left-deep chains are planned: the second operand of each and/or is a leaf, as a predicated compare can
add one condition to the flag but cannot make a second flag value.
"""
from __future__ import annotations

from collections.abc import Callable

from reconverge.lowering.ir.core import Block, Const, Instr, Value
from reconverge.records import record

NEGATED_MOD = {"eq": "ne", "ne": "eq", "lt": "ge", "ge": "lt", "gt": "le", "le": "gt"}


@record(frozen=True)
class FlagLeaf:
    """One compare into the flag: `value` itself (`fused`: an owned compare) or a test of its 0/-1 dword."""
    value: Value
    fused: bool
    negated: bool = False


@record(frozen=True)
class FlagChain:
    """`first` into the flag, then `then` compared into it on the lanes where it is true (`conjunction`,
    an and) or false (an or)."""
    first: FlagPlan
    then: FlagLeaf
    conjunction: bool


FlagPlan = FlagLeaf | FlagChain


def logical(ins: Value) -> tuple[str, Value, Value | None] | None:
    """("and" | "or", a, b) or ("not", a, None) for an i1 instruction that is one, else None:
    and / or, xor with true, and the selects LLVM writes for && and || (select c, x, false;
    select c, true, x)."""
    if not isinstance(ins, Instr) or not (ins.type.is_int and ins.type.bits == 1):
        return None
    ops = ins.operands
    if ins.opcode in ("and", "or") and not isinstance(ops[0], Const) and not isinstance(ops[1], Const):
        return ins.opcode, ops[0], ops[1]
    if ins.opcode == "xor":
        for v, other in ((ops[1], ops[0]), (ops[0], ops[1])):
            if isinstance(v, Const) and v.value == 1 and not isinstance(other, Const):
                return "not", other, None
        return None
    if ins.opcode == "select" and not isinstance(ops[0], Const):
        c, t, f = ops
        if isinstance(f, Const) and f.value == 0 and not isinstance(t, Const):
            return "and", c, t
        if isinstance(t, Const) and t.value == 1 and not isinstance(f, Const):
            return "or", c, f
    return None


class FlagPlanner:
    """Plans conditions for one function: `one_cmp` says which compares are one cmp ((mod, signed) or
    None), `uses` counts each value's readers; `chains` off plans single compares only (Beignet's scheme A
    predicates every body instruction on its entry flag, so no compare there may be predicated).
    `taken` holds what earlier plans deferred: such an instruction is never selected as a value, so a
    later plan may compare it into the flag again but not test its dword (that sub-condition is then
    left to be selected as a value itself)."""

    def __init__(self, uses: dict[Value, int], one_cmp: Callable[[Instr], tuple[str, bool] | None],
                 chains: bool = True):
        self.uses, self.one_cmp, self.chains = uses, one_cmp, chains
        self.taken: set[Instr] = set()

    def plan(self, cond: Value, block: Block) -> FlagPlan | None:
        """The plan of `cond`, read once by a consumer in (or right after) `block`, its instructions
        added to `taken`; None where it owns nothing (then the consumer tests cond's dword, as before)."""
        if not self._owned(cond, block):
            return None
        planned = self._plan(cond, block, False)
        if planned is None or not planned[1]:
            return None
        self.taken.update(planned[1])
        return planned[0]

    def _owned(self, v: Value, block: Block) -> bool:
        return isinstance(v, Instr) and v.block is block and self.uses.get(v, 0) == 1

    def _leaf(self, v: Value, negated: bool) -> tuple[FlagPlan, list[Instr]] | None:
        """A test of v's dword: None where no one would select v (an earlier plan took it)."""
        return None if v in self.taken else (FlagLeaf(v, False, negated), [])

    def _plan(self, v: Value, block: Block, negated: bool) -> tuple[FlagPlan, list[Instr]] | None:
        if not self._owned(v, block):
            return self._leaf(v, negated)
        assert isinstance(v, Instr)
        form = logical(v) if self.chains else None
        if form is not None and form[0] == "not":
            inner = self._plan(form[1], block, not negated)
            return None if inner is None else (inner[0], [v, *inner[1]])
        if form is not None:
            kind, a, b = form
            assert b is not None
            if logical(b) is not None and self._owned(b, block) and logical(a) is None:
                a, b = b, a                                 # the leaf second
            then = self._plan(b, block, negated)
            if then is None or isinstance(then[0], FlagChain):  # b is no leaf: its dword is tested
                then = self._leaf(b, negated)
            first = self._plan(a, block, negated)
            if then is None or first is None:
                return self._leaf(v, negated)
            assert isinstance(then[0], FlagLeaf)
            return FlagChain(first[0], then[0], (kind == "and") != negated), [v, *first[1], *then[1]]
        single = self.one_cmp(v)
        if single is not None and (not negated or v.opcode == "icmp" or v.attrs.get("pred") in ("oeq", "une")):
            return FlagLeaf(v, True, negated), [v]
        return self._leaf(v, negated)
