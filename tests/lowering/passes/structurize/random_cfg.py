"""Random reducible CFG-form functions built directly in our IR (no LLVM), for fast shape tests.

Loops are properly nested intervals of the block order; a forward edge may only enter a loop through
its header, and a back edge only goes to the header of a loop holding its source: so every cycle has a
single entry and the CFG is reducible by construction. Conditions come from i1 arguments, switch values
from an i32 argument, and every block stores its number so that an interpreter sees which blocks ran.
"""
from __future__ import annotations

import random

from reconverge.lowering.ir.core import Arg, Block, Const, Function, Instr, Phi
from reconverge.lowering.ir.types import I1, I32, ptr


def _loops(rng: random.Random, n: int, count: int) -> list[tuple[int, int]]:
    """Properly nested [header, last] intervals inside 1..n-1."""
    loops: list[tuple[int, int]] = []
    for _ in range(count):
        h = rng.randrange(1, n - 1)
        e = rng.randrange(h, min(n - 1, h + rng.randrange(1, 12)))
        if all(e < a or h > b or (a <= h and e <= b) or (h <= a and b <= e) for a, b in loops) \
                and (h, e) not in loops:
            loops.append((h, e))
    return loops


def random_function(rng: random.Random, n: int, loop_count: int | None = None) -> Function:
    n = max(n, 3)
    out = Arg(ptr(1), 0, "out")
    conds = [Arg(I1, 1 + i, f"c{i}") for i in range(4)]
    sel = Arg(I32, 5, "sel")
    func = Function("random", [out, *conds, sel])
    blocks = [Block(f"n{i}") for i in range(n)]
    func.blocks = blocks
    loops = _loops(rng, n, rng.randrange(0, n // 2 + 3) if loop_count is None else loop_count)

    def holders(i: int) -> list[tuple[int, int]]:
        return [lp for lp in loops if lp[0] <= i <= lp[1]]

    def legal_forward(i: int, j: int) -> int:
        """Redirect an edge i->j so it enters loops only through their headers."""
        inside_i = set(holders(i))
        entered = [lp for lp in holders(j) if lp not in inside_i]
        if entered:
            return min(lp[0] for lp in entered)     # header of the outermost loop entered
        return j

    def random_target(i: int) -> int:
        r = rng.random()
        own = holders(i)
        if own and r < 0.25:
            return rng.choice(own)[0]               # back edge (continue, multi-level continue)
        if i + 1 >= n or r > 0.9:
            return n - 1
        return legal_forward(i, rng.randrange(i + 1, min(n, i + 1 + rng.randrange(1, 8))))

    for i, b in enumerate(blocks):
        b.append(Instr("store", [Const(I32, i), out]))
        if i == n - 1:
            b.append(Instr("ret", []))
            continue
        nxt = legal_forward(i, i + 1)
        kind = rng.random()
        if kind < 0.3:
            t = [nxt]
            b.append(Instr("br", [], targets=[blocks[x] for x in t]))
        elif kind < 0.85:
            t = [nxt, random_target(i)]
            rng.shuffle(t)
            b.append(Instr("cbr", [rng.choice(conds)], targets=[blocks[x] for x in t]))
        elif kind < 0.95:
            cases = rng.sample(range(-3, 6), rng.randrange(1, 4))
            t = [random_target(i)] + [nxt] + [random_target(i) for _ in cases[1:]]
            b.append(Instr("switch", [sel], attrs={"cases": cases}, targets=[blocks[x] for x in t]))
        else:
            b.append(Instr("ret", []))
    func.update_cfg()
    _add_phis(rng, func)
    return func


def _add_phis(rng: random.Random, func: Function) -> None:
    """Give some join blocks phis of constants, stored so an interpreter can observe them."""
    out = func.args[0]
    for b in func.blocks:
        if len(b.preds) >= 2 and rng.random() < 0.5:
            phi = Phi(I32, [(p, Const(I32, 1000 + p_i)) for p_i, p in enumerate(b.preds)])
            b.insert(0, phi)
            term = b.terminator
            assert term is not None
            b.insert(b.instrs.index(term), Instr("store", [phi, out]))
