"""The Gen machine IR: hand-built functions (straight line, a diamond, a loop) print deterministically
and pass the verifier; each verifier rule, broken on purpose, is reported; liveness agrees with a
brute-force search of the paths from every block."""
from __future__ import annotations

from typing import Any

import pytest

from reconverge.backend.gen.mir import Imm, MFunction, MInstr, Operand, PReg, VReg
from reconverge.backend.gen.mir_liveness import liveness
from reconverge.backend.gen.mir_printer import print_mfunction
from reconverge.backend.gen.mir_verify import verify
from reconverge.isa.gen9.model import DataType, Region


def _set(obj: Any, **fields: Any) -> None:
    """Set several attributes of a machine instruction (a broken-instruction case below)."""
    for name, value in fields.items():
        setattr(obj, name, value)

T = DataType
EOT: dict[str, Any] = dict(sfid=0x7, desc=0x02000010, eot=True, no_mask=True)


def _eot(f: MFunction) -> MInstr:
    return MInstr("send", 8, srcs=[Operand(PReg(127))], **EOT)


def straight() -> MFunction:
    f = MFunction("straight", 16)
    b = f.block("entry")
    lid, one = f.vreg(T.UD), f.vreg(T.UD)
    b.append(MInstr("mov", 16, Operand(lid), [Operand(PReg(1, 0, T.UW), region=Region(16, 16, 1))]))
    b.append(MInstr("add", 16, Operand(one), [Operand(lid), Operand(Imm(1, T.UD))]))
    b.append(MInstr("send", 16, None, [Operand(one)], sfid=0xC, desc=0x08025E00))
    b.append(_eot(f))
    return f


def loop() -> MFunction:
    """i = 0; do { i = i + 1 } while (i < n); out = i * k, with n and k live through the loop."""
    f = MFunction("loop", 8)
    n, k, i, c, r = f.vreg(T.D), f.vreg(T.D, uniform=True), f.vreg(T.D), f.vreg(T.D), f.vreg(T.D)
    entry, head, body, done = f.block("entry"), f.block("head"), f.block("body"), f.block("done")
    entry.append(MInstr("mov", 8, Operand(n), [Operand(PReg(4, 0, T.D), region=Region(0, 1, 0))]))
    entry.append(MInstr("mov", 1, Operand(k), [Operand(Imm(3, T.D))]))
    entry.append(MInstr("mov", 8, Operand(i), [Operand(Imm(0, T.D))]))
    head.append(MInstr("add", 8, Operand(i), [Operand(i), Operand(Imm(1, T.D))]))
    head.append(MInstr("cmp", 8, Operand(c), [Operand(i), Operand(n)], cond_mod="lt"))
    head.append(MInstr("jmpi", 1, predicate=(0, 0, True), targets=["done"]))
    body.append(MInstr("jmpi", 1, targets=["head"]))
    done.append(MInstr("mul", 8, Operand(r), [Operand(i), Operand(k)]))
    done.append(MInstr("send", 8, None, [Operand(r)], sfid=0xC, desc=0x04026E00))
    done.append(_eot(f))
    return f


def diamond() -> MFunction:
    f = MFunction("diamond", 8)
    x, y, z = f.vreg(T.F), f.vreg(T.F), f.vreg(T.F)
    a, b, c, d = f.block("a"), f.block("b"), f.block("c"), f.block("d")
    a.append(MInstr("mov", 8, Operand(x), [Operand(Imm(1.5, T.F))]))
    a.append(MInstr("cmp", 8, None, [Operand(x), Operand(Imm(0.0, T.F))], cond_mod="gt", flag=(0, 1)))
    a.append(MInstr("jmpi", 1, predicate=(0, 1, False), targets=["c"]))
    b.append(MInstr("mov", 8, Operand(y), [Operand(x)]))
    b.append(MInstr("jmpi", 1, targets=["d"]))
    c.append(MInstr("mul", 8, Operand(y), [Operand(x), Operand(Imm(2.0, T.F))]))
    d.append(MInstr("math", 8, Operand(z), [Operand(y)], math_fc="sqrt"))
    d.append(MInstr("send", 8, None, [Operand(z)], sfid=0xC, desc=0x04026E00))
    d.append(_eot(f))
    return f


def test_valid_functions_pass_and_print_deterministically():
    for make in (straight, loop, diamond):
        assert verify(make()) == [], make.__name__
        assert print_mfunction(make()) == print_mfunction(make())
    text = print_mfunction(straight())
    assert "  add (16) %v1:ud, %v0:ud, 1:ud" in text and "mov (16) %v0:ud, r1.0<16;16,1>:uw" in text
    assert "send (8) null, r127.0:ud, sfid 0x7 desc 0x02000010 {NoMask, EOT}" in text
    assert "(~f0.0) jmpi (1) done" in print_mfunction(loop())


def _broken(make, change) -> str:
    f = make()
    change(f)
    problems = verify(f)
    assert problems, "the broken rule was not reported"
    return " | ".join(problems)


B = DataType


def _shl_of_a_float(ins: MInstr) -> None:
    ins.opcode = "shl"
    ins.srcs[1] = Operand(Imm(1.0, B.F))


@pytest.mark.parametrize("make, change, words", [
    (straight, lambda f: f.blocks[0].instrs[1].srcs.append(Operand(VReg(99, B.UD))), "not a register of this function"),
    (straight, lambda f: _shl_of_a_float(f.blocks[0].instrs[1]), "takes integers"),
    (diamond, lambda f: f.blocks[2].instrs[0].srcs.__setitem__(1, Operand(Imm(2, B.D))), "mixes integer and float"),
    (straight, lambda f: setattr(f.blocks[0].instrs[1], "opcode", "rndd"), "takes floats"),
    (straight, lambda f: f.blocks[0].instrs[1].srcs.pop(), "add takes 2 sources, not 1"),
    (straight, lambda f: _set(f.blocks[0].instrs[1], opcode="mach", cond_mod="eq"),
     "mach takes no conditional modifier"),
    (straight, lambda f: setattr(f.blocks[0].instrs[1], "opcode", "madd"), "madd is not a Gen9 opcode"),
    (loop, lambda f: setattr(f.blocks[1].instrs[1], "cond_mod", None), "cmp needs a conditional modifier"),
    (loop, lambda f: setattr(f.blocks[1].instrs[1], "cond_mod", "bogus"), "unknown conditional modifier"),
    (loop, lambda f: setattr(f.blocks[1].instrs[1], "flag", (2, 0)), "flags are f0.0"),
    (diamond, lambda f: setattr(f.blocks[3].instrs[0], "math_fc", None), "math needs a function"),
    (straight, lambda f: setattr(f.blocks[0].instrs[2], "desc", None), "needs an SFID and a descriptor"),
    (straight, lambda f: setattr(f.blocks[0].instrs[1], "exec_size", 3), "execution size 3 (1, 2, 4, 8 or 16)"),
    (straight, lambda f: setattr(f.blocks[0].instrs[1], "exec_size", 4), "execution size 4 in a SIMD16 function "
                                                                           "without NoMask"),
    (straight, lambda f: setattr(f.blocks[0].instrs[1], "exec_size", 8), "without NoMask"),
    (straight, lambda f: f.blocks[0].instrs[1].srcs.__setitem__(0, Operand(f.vregs[0], offset=8)),
     "reaches byte 72"),
    (loop, lambda f: f.blocks[2].instrs[0].targets.__setitem__(0, "nowhere"), "not a block of this function"),
    (loop, lambda f: f.blocks[1].instrs.append(MInstr("add", 8, Operand(f.vregs[2]), [Operand(f.vregs[2])])),
     "a branch must end its block"),
    (loop, lambda f: f.blocks[3].instrs.append(MInstr("nop", 1)), "nothing may follow the end of the thread"),
    (loop, lambda f: f.blocks[3].instrs.pop(), "must end the thread with an EOT send"),
    (loop, lambda f: f.blocks[2].instrs[0].targets.clear(), "a branch needs a target"),
])
def test_each_rule_is_reported(make, change, words):
    assert words in _broken(make, change)


def _brute_live_in(f: MFunction, label: str, v: VReg) -> bool:
    """Is there a path from the start of `label` that reads v before an unpredicated write of it?"""
    succs = f.successors()
    blocks = {b.label: b for b in f.blocks}
    seen, work = set(), [label]
    while work:
        name = work.pop()
        if name in seen:
            continue
        seen.add(name)
        for ins in blocks[name].instrs:
            if v in ins.uses():
                return True
            if v in ins.defs() and ins.predicate is None:
                break
        else:
            work += succs[name]
    return False


@pytest.mark.parametrize("make", [straight, loop, diamond])
def test_liveness_agrees_with_a_path_search(make):
    f = make()
    live = liveness(f)
    for b in f.blocks:
        for v in f.vregs.values():
            assert (v in live.live_in[b.label]) == _brute_live_in(f, b.label, v), (b.label, v)
    lp = liveness(loop())
    n, i = lp.intervals[loop().vregs[0]], lp.intervals[loop().vregs[2]]
    assert n[0] == 0 and n[1] >= 4 and i[1] >= 6        # n and i live across the whole loop


def test_the_cost_estimate_weighs_each_loop_level_by_eight():
    from reconverge.backend.gen.cost import estimated_cost
    from reconverge.backend.gen.mir import MFunction, MInstr
    m = MFunction("k", 16)
    for label, count, back in (("a", 2, None), ("b", 3, None), ("c", 1, "b"), ("d", 4, "a"), ("e", 1, None)):
        block = m.block(label)
        for _ in range(count - (back is not None)):
            block.append(MInstr("nop", 16))
        if back is not None:
            block.append(MInstr("while", 16, targets=[back]))
    # b..c inside two loops (c's while to b, d's while to a), a and d inside one, e in none
    assert estimated_cost(m) == 2 * 8 + (3 + 1) * 64 + 4 * 8 + 1
