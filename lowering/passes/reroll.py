"""Straight-line repeats rolled back into a loop (SPIR-V): what clang -O2 unrolled, a Vulkan driver unrolls
again where it pays, and glslang leaves rolled; rolled, the module is smaller (a 16-element fold in
examples/bench/private_array.cl is about 250 of its SPIR-V words unrolled).

A run of n consecutive groups of g instructions in one block, each group the same instructions as the one
before it (opcode, type, attributes), operand for operand, where an operand is
- the same value in every group (invariant),
- an instruction of its own group (internal),
- the instruction at some position of the previous group (carried; the first group's is a value from
  before the run, the carried phi's initial value: one phi per position and initial value),
- an integer constant that changes by the same step from group to group (induction),
becomes `loop { i = phi; carried phis; the last group, its induction operands computed from i; if (++i ==
end) break }` between the block's code before the run and a new block holding the code after it. Only the
last group's values may be used outside the run, and only after it (the loop body dominates what follows).
The loop runs the groups' instructions in the same order on the same values, so loads and stores keep
their order and results; only plain arithmetic, conversions, compares, selects, address arithmetic, loads
and stores are rolled (never barriers, atomics, calls or sub-group operations).
"""
from __future__ import annotations

from reconverge.lowering.ir.core import Block, Const, Function, If, Instr, Loop, Phi, Value, cf_list_of, cf_lists
from reconverge.lowering.ir.types import I1, I32, I64
from reconverge.lowering.target import TargetCaps

TYPE_CHECKING = False                   # not typing's: a compile's start-up does not import typing
if TYPE_CHECKING:
    from typing import Any, Callable

NAME, FORM = "reroll", "structured"

ROLLABLE = frozenset((
    "add", "sub", "mul", "and", "or", "xor", "shl", "lshr", "ashr", "fadd", "fsub", "fmul", "fneg", "icmp", "fcmp",
    "select", "zext", "sext", "trunc", "bitcast", "freeze", "ptradd", "load", "store", "fptosi", "fptoui", "sitofp",
    "uitofp", "fpext", "fptrunc"))
MIN_GROUPS = 4           # fewer repeats do not pay for the loop's own instructions
MIN_ROLLED = 12          # instructions removed ((n - 1) * g) at least
MAX_GROUP = 32           # the longest group looked for
MAX_BLOCK = 4000         # instructions: longer blocks are left as they are (the search is quadratic there)


def run(func: Function, caps: TargetCaps) -> bool:
    changed = False
    work = [b for nodes in cf_lists(func) for b in nodes if isinstance(b, Block)]
    users: dict[Value, list[Instr | If]] = {}

    def all_users() -> dict[Value, list[Instr | If]]:
        """Every value's users, made at the first candidate run (most functions have none)."""
        if not users:
            users.update(_users(func))
        return users

    naming: dict[Block, list[Phi]] = {}         # block -> the phis that name it as a predecessor
    for b in work:
        for phi in b.phis():
            for pred in phi.blocks:
                naming.setdefault(pred, []).append(phi)
    while work:
        block = work.pop()
        if len(block.instrs) > MAX_BLOCK:
            continue
        found = _find_run(block, all_users)
        if found is not None:
            rest, head, done = _roll(block, naming, *found)
            work.append(rest)
            for ins in head.instrs:         # the loop's new uses; those of the removed repeats stay
                for v in ins.operands:      # (stale users only ever stop a later run, never allow one)
                    users.setdefault(v, []).append(ins)
            users.setdefault(done, []).append(done_if(head))
            changed = True
    if changed:
        func.update_cfg()
    return changed


def _users(func: Function) -> dict[Value, list[Instr | If]]:
    users: dict[Value, list[Instr | If]] = {}
    for ins in func.instructions():
        for v in ins.operands:
            users.setdefault(v, []).append(ins)
    for nodes in cf_lists(func):
        for node in nodes:
            if isinstance(node, If):
                users.setdefault(node.cond, []).append(node)
    return users


# An operand's pattern: ("inv",), ("int", position), ("car", position, initial value), ("ind", first, step).
if TYPE_CHECKING:
    Pattern = tuple[Any, ...]


def _same_shape(a: Instr, b: Instr) -> bool:
    return a.opcode == b.opcode and a.type == b.type and a.attrs == b.attrs and len(a.operands) == len(b.operands)


def _pattern(a: Value, b: Value, g: int, at: dict[Instr, int], start: int) -> Pattern | None:
    """How operand b of group 1 relates to the same operand a of group 0 (positions are list indices); None
    where their types differ (a conversion's source: the value carried in from before the run would not
    be the type of the one carried round the loop; fuzz all-59946)."""
    if a.type != b.type:
        return None
    pb = at.get(b) if isinstance(b, Instr) else None
    pa = at.get(a) if isinstance(a, Instr) else None
    if pb is not None and pb >= start:
        if start + g <= pb < start + 2 * g:                  # group 1's own instruction
            return ("int", pb - start - g) if pa == pb - g else None
        if start <= pb < start + g:                          # group 0's: carried in
            return ("car", pb - start, a) if pa is None or pa < start else None
        return None
    if _same(a, b) and (pa is None or pa < start):
        return ("inv",)
    if isinstance(a, Const) and isinstance(b, Const) and a.type == b.type and a.type.is_int and a.type.bits in (32, 64):
        mask = (1 << a.type.bits) - 1
        return ("ind", int(a.value) & mask, (int(b.value) - int(a.value)) & mask)
    return None


def _same(a: Value, b: Value) -> bool:
    return a is b or isinstance(a, Const) and isinstance(b, Const) and a.type == b.type and a.value == b.value


def _matches(pattern: Pattern, a: Value, b: Value, k: int, g: int, at: dict[Instr, int], start: int) -> bool:
    """Operand b of group k + 1 against the same operand a of group k, for k >= 1."""
    kind = pattern[0]
    if kind == "inv":
        return _same(a, b)
    pb = at.get(b) if isinstance(b, Instr) else None
    if kind == "int":
        return bool(pb == start + (k + 1) * g + pattern[1])
    if kind == "car":
        return bool(pb == start + k * g + pattern[1])
    if not isinstance(b, Const) or b.type != a.type:
        return False
    mask = (1 << b.type.bits) - 1
    return bool(int(b.value) & mask == (pattern[1] + (k + 1) * pattern[2]) & mask)


def _find_run(block: Block, users: Callable[[], dict[Value, list[Instr | If]]]
              ) -> tuple[int, int, int, list[list[Pattern]]] | None:
    """(start, g, n, operand patterns) of the run that rolls the most instructions, or None."""
    instrs = block.instrs
    at = {ins: i for i, ins in enumerate(instrs)}
    body = [i for i, ins in enumerate(instrs) if not isinstance(ins, Phi) and not ins.is_jump]
    best = None
    s = body[0] if body else 0
    end = body[-1] + 1 if body else 0
    while s < end:
        found = None
        for g in range(1, min(MAX_GROUP, (end - s) // 2) + 1):
            n, patterns = _extend(instrs, s, g, end, at)
            if n >= MIN_GROUPS and (n - 1) * g >= MIN_ROLLED and _uses_ok(instrs, s, g, n, at, users()) and \
                    (found is None or n * g > found[2] * found[1]):
                found = (s, g, n, patterns)
        if found is not None and (best is None or found[1] * found[2] > best[1] * best[2]):
            best = found
        s = found[0] + found[1] * found[2] if found is not None else s + 1
    return best


def _extend(instrs: list[Instr], s: int, g: int, end: int, at: dict[Instr, int]) -> tuple[int, list[list[Pattern]]]:
    """How many groups of g from s repeat group 0 (1 if group 1 does not), and the operand patterns."""
    if s + 2 * g > end:
        return 1, []
    first, second = instrs[s], instrs[s + g]        # most (s, g) fail on the first pair: before any slicing
    if first.opcode not in ROLLABLE or not _same_shape(first, second):
        return 1, []
    g0, g1 = instrs[s:s + g], instrs[s + g:s + 2 * g]
    if not all(x.opcode in ROLLABLE and _same_shape(x, y) for x, y in zip(g0, g1)):
        return 1, []
    patterns: list[list[Pattern]] = []
    for x, y in zip(g0, g1):
        row = []
        for a, b in zip(x.operands, y.operands):
            p = _pattern(a, b, g, at, s)
            if p is None:
                return 1, []
            row.append(p)
        patterns.append(row)
    n = 2
    while s + (n + 1) * g <= end:
        base = s + (n - 1) * g
        prev, cur = instrs[base:base + g], instrs[base + g:base + 2 * g]
        if not all(_same_shape(x, y) and all(_matches(p, a, b, n - 1, g, at, s)
                                             for p, a, b in zip(row, x.operands, y.operands))
                   for x, y, row in zip(prev, cur, patterns)):
            break
        n += 1
    return n, patterns


def _uses_ok(instrs: list[Instr], s: int, g: int, n: int, at: dict[Instr, int],
             users: dict[Value, list[Instr | If]]) -> bool:
    """Values of groups before the last are used only by their own group and the next one."""
    for k in range(n - 1):
        lo, hi = s + k * g, s + (k + 2) * g
        for ins in instrs[s + k * g:s + (k + 1) * g]:
            for user in users.get(ins, ()):
                if not (isinstance(user, Instr) and user.block is instrs[0].block and lo <= at.get(user, -1) < hi):
                    return False
    return True


def done_if(head: Block) -> If:
    loop = head.parent
    assert isinstance(loop, Loop) and isinstance(loop.body[1], If)
    return loop.body[1]


def _roll(block: Block, naming: dict[Block, list[Phi]], s: int, g: int, n: int,
          patterns: list[list[Pattern]]) -> tuple[Block, Block, Instr]:
    """Rewrite the run into a loop; returns the block after it (which may hold another run), the loop's
    block and its exit condition."""
    instrs = block.instrs
    last = instrs[s + (n - 1) * g:s + n * g]
    before, after_code = instrs[:s], instrs[s + n * g:]
    head, tail = Block(), Block()
    loop = Loop([head])
    counter = Phi(I32)
    head.append(counter)
    inductions = [p for row in patterns for p in row if p[0] == "ind"]
    first = next((p for p in inductions if p[2] and _signed(p[1], 64) % _signed(p[2], 64) == 0), None)
    start = _signed(first[1], 64) // _signed(first[2], 64) if first is not None else 0
    if not 0 <= start < 1 << 20:
        start = 0
    # one phi per carried position and initial value: group 0 may read different values where the later groups
    # read one (InstCombine made `(uint)v` of `v = x * k + (y << 32)` read x * k; fuzz vector-67103, whose one
    # phi started the 64-bit chain at x * k)
    carried: dict[tuple[int, Value], Phi] = {}
    for row in patterns:
        for p in row:
            if p[0] == "car" and _carried(carried, p) is None:
                carried[(p[1], p[2])] = phi = Phi(last[p[1]].type)
                head.append(phi)
    widened: Value = head.append(Instr("zext", [counter], I64)) \
        if any(_width(p, last, patterns) == 64 for p in inductions) else counter
    for ins, row in zip(last, patterns):
        ops = list(ins.operands)
        for o, p in enumerate(row):
            if p[0] == "car":
                found = _carried(carried, p)
                assert found is not None
                ops[o] = found
            elif p[0] == "ind":
                t = ins.operands[o].type
                i = widened if t.bits == 64 else counter
                mask = (1 << t.bits) - 1
                offset = (p[1] - p[2] * start) & mask
                v: Value = i
                if p[2] != 1:
                    v = head.append(Instr("mul", [i, Const(t, _signed(p[2], t.bits))], t)) if p[2] else Const(t, 0)
                if offset:
                    v = head.append(Instr("add", [v, Const(t, _signed(offset, t.bits))], t))
                ops[o] = v
        ins.operands = ops
        head.append(ins)
    step = head.append(Instr("add", [counter, Const(I32, 1)], I32))
    done = head.append(Instr("icmp", [step, Const(I32, start + n)], I1, {"pred": "eq"}))
    leave = Block()
    leave.append(Instr("break", []))
    exit_if = If(done, [leave], [Block()])
    loop.add(exit_if)
    loop.add(tail)
    counter.add_incoming(block, Const(I32, start))
    counter.add_incoming(tail, step)
    for (pos, initial), phi in carried.items():
        phi.add_incoming(block, initial)
        phi.add_incoming(tail, last[pos])
    rest = Block()
    moved = naming.pop(block, [])               # every edge that left the block now leaves the new one
    for phi in moved:
        phi.blocks = [rest if b is block else b for b in phi.blocks]
    naming[rest] = moved
    new_phis = [counter, *carried.values()]
    naming.setdefault(block, []).extend(new_phis)
    naming[tail] = list(new_phis)
    block.instrs = []
    for ins in before:
        block.append(ins)
    for ins in after_code:
        rest.append(ins)
    nodes = cf_list_of(block)
    at = next(i for i, node in enumerate(nodes) if node is block)
    nodes[at + 1:at + 1] = [loop, rest]
    loop.parent = rest.parent = block.parent
    return rest, head, done


def _carried(carried: dict[tuple[int, Value], Phi], p: Pattern) -> Phi | None:
    """The phi made for a carried operand's position and initial value (_same: equal constants are one)."""
    return next((phi for (pos, initial), phi in carried.items() if pos == p[1] and _same(initial, p[2])), None)


def _width(p: Pattern, last: list[Instr], patterns: list[list[Pattern]]) -> int:
    for ins, row in zip(last, patterns):
        for o, q in enumerate(row):
            if q is p:
                return ins.operands[o].type.bits
    return 32


def _signed(value: int, bits: int) -> int:
    return value - (1 << bits) if value >> (bits - 1) & 1 else value
