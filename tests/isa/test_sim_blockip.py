"""Beignet-style per-lane blockIP programs (isa/gen9/blockip.py) on the simulator.

The linearizer turns a CFG (blocks in layout order, per-lane branches) into Gen code:
  entry L:  (W) cmp.le f0.1 null blockip:uw L ; (W)(-f0.1.anyNh) jmpi JIP ; (+f0.1) if endif endif
  fwd T:    mov blockip T ; endif ; (W) jmpi JIP
  fwd? p,T: (+p) mov blockip T ; endif ; (W) cmp.g p blockip next ; (W)(+p.allNh) jmpi JIP
  bwd? p,T: mov blockip next ; (+p) mov blockip T ; endif ; (W)(+p.anyNh) jmpi T
with JIPs from Beignet's buildJIPs (pending forward targets). Each lane's result and the order in which
it runs the blocks are compared with a direct per-lane walk of the CFG, including an irreducible CFG.
"""
import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from isa.gen9 import messages as sm
from isa.gen9.blockip import BlockIPBlock as Block
from isa.gen9.blockip import linearize
from isa.gen9.builder import Builder, flag, grf, imm, null, pred
from isa.gen9.model import DataType as T
from isa.gen9.simulator import Trace, layout, run_program

BLOCKIP, DATA, X, Y, CNT, LIM, TMP = 2, 4, 8, 12, 16, 20, 24
P = (0, 0)          # branch condition flag f0.0; f0.1 holds the block-entry mask


def _mark(b, marks, name):
    marks.setdefault(name, len(b.insts))


def irreducible_cfg(marks):
    """A -> B | C (two entries into the B <-> C cycle), both exit to D."""
    def A(b):
        _mark(b, marks, "A")
        b.mov(grf(X), imm(1))
        b.mov(grf(CNT), imm(0))
        b.shr(grf(LIM), grf(DATA), imm(1))
        b.emit("and", grf(LIM), grf(LIM), imm(7))
        b.emit("and", grf(TMP), grf(DATA), imm(1))
        b.cmp(null(), grf(TMP), imm(0), cond_mod="ne")

    def B(b):
        _mark(b, marks, "B")
        b.mul(grf(X), grf(X), imm(3))
        b.add(grf(X), grf(X), imm(1))
        b.add(grf(CNT), grf(CNT), imm(1))
        b.cmp(null(), grf(CNT), grf(LIM), cond_mod="ge")

    def C(b):
        _mark(b, marks, "C")
        b.add(grf(X), grf(X), imm(5))
        b.add(grf(CNT), grf(CNT), imm(1))
        b.cmp(null(), grf(CNT), grf(LIM), cond_mod="lt")

    def D(b):
        _mark(b, marks, "D")
        b.add(grf(Y), grf(X), grf(CNT))

    return [Block(A, ("cbr", 2)), Block(B, ("cbr", 3)), Block(C, ("cbr", 1)), Block(D, ("fall",)),
            Block(None, ("ret",))]


def irreducible_reference(d):
    x, cnt, lim = 1, 0, (d >> 1) & 7
    path, blk = ["A"], "C" if d & 1 else "B"
    while blk != "D":
        path.append(blk)
        if blk == "B":
            x, cnt = x * 3 + 1, cnt + 1
            blk = "D" if cnt >= lim else "C"
        else:
            x, cnt = x + 5, cnt + 1
            blk = "B" if cnt < lim else "D"
    path.append("D")
    return x, x + cnt, path


def beignet_doc_cfg(marks):
    """The CFG of Beignet's unstructured_branches doc: 1 -> 4, 2 -> 5 must not skip 4; plus 4 -> 2 back."""
    def one(b):
        _mark(b, marks, "1")
        b.mov(grf(X), imm(0))
        b.emit("and", grf(LIM), grf(DATA), imm(3))
        b.mov(grf(CNT), imm(0))
        b.cmp(null(), grf(DATA), imm(20), cond_mod="ge")

    def two(b):
        _mark(b, marks, "2")
        b.add(grf(X), grf(X), imm(10))
        b.add(grf(CNT), grf(CNT), imm(1))
        b.cmp(null(), grf(DATA), imm(40), cond_mod="ge")

    def three(b):
        _mark(b, marks, "3")
        b.add(grf(X), grf(X), imm(100))

    def four(b):
        _mark(b, marks, "4")
        b.add(grf(X), grf(X), imm(1000))
        b.cmp(null(), grf(CNT), grf(LIM), cond_mod="lt")

    def five(b):
        _mark(b, marks, "5")
        b.add(grf(Y), grf(X), grf(CNT))

    return [Block(one, ("cbr", 3)), Block(two, ("cbr", 4)), Block(three, ("fall",)), Block(four, ("cbr", 1)),
            Block(five, ("fall",)), Block(None, ("ret",))]


def doc_reference(d):
    x, cnt, lim = 0, 0, d & 3
    path = ["1"]
    blk = "4" if d >= 20 else "2"
    while blk != "5":
        path.append(blk)
        if blk == "2":
            x, cnt = x + 10, cnt + 1
            blk = "5" if d >= 40 else "3"
        elif blk == "3":
            x += 100
            blk = "4"
        else:
            x += 1000
            blk = "2" if cnt < lim else "5"
    path.append("5")
    return x, x + cnt, path


def run_cfg(make_cfg, simd, data, dispatch):
    marks = {}
    prog, labels = linearize(make_cfg(marks), simd)
    trace = Trace()
    th = run_program(prog, simd, setup=lambda th: th.set_reg(DATA, data[:simd], T.D),
                     dispatch_masks=[dispatch], trace=trace, max_steps=20000)[0]
    addrs = layout(prog)
    first = {addrs[i]: name for name, i in marks.items()}
    return th, trace, first, prog


@pytest.mark.parametrize("make_cfg,reference", [(irreducible_cfg, irreducible_reference),
                                                (beignet_doc_cfg, doc_reference)])
@settings(max_examples=25, deadline=None)
@given(simd=st.sampled_from([8, 16]), seed=st.integers(0, 2**31), partial=st.booleans())
def test_blockip_programs_match_per_lane_cfg_walk(make_cfg, reference, simd, seed, partial):
    rng = np.random.default_rng(seed)
    data = rng.integers(0, 64, 16).astype(np.int32)
    dispatch = (1 << simd) - 1
    if partial:
        dispatch &= int(rng.integers(1, 1 << simd))
    th, trace, first, _ = run_cfg(make_cfg, simd, data, dispatch)
    for lane in range(simd):
        if not (dispatch >> lane) & 1:
            continue
        x, y, path = reference(int(data[lane]))
        assert th.reg(X, T.D, simd)[lane] == np.int32(np.int64(x).astype(np.int32)), lane
        assert th.reg(Y, T.D, simd)[lane] == np.int32(np.int64(y).astype(np.int32)), lane
        ran = [first[e.address] for e in trace.events if e.address in first and e.mask[lane]]
        assert ran == path, f"lane {lane}"


def test_blockip_uses_any_and_all_jumps_both_ways():
    data = np.array([1, 3, 5, 7, 9, 11, 13, 15, 0, 2, 4, 6, 8, 10, 12, 14], np.int32)
    th, trace, first, prog = run_cfg(irreducible_cfg, 16, data, 0xFFFF)
    addrs = layout(prog)
    at = dict(zip(addrs, prog))
    seq = [e.address for e in trace.events]
    taken = [at[a] for a, nxt in zip(seq, seq[1:]) if at[a].opcode == "jmpi" and nxt != a + 16]
    assert "any16h" in {i.predicate.control for i in taken if i.predicate}
    backward = [i for i in range(len(seq) - 1) if at[seq[i]].opcode == "jmpi" and seq[i + 1] < seq[i]]
    assert backward, "the B <-> C cycle must jump backwards"
    # lanes with odd data enter the cycle at C, even ones at B: both entries are used in one thread
    paths = {tuple(first[e.address] for e in trace.events if e.address in first and e.mask[lane])[:2]
             for lane in range(16)}
    assert ("A", "B") in paths and ("A", "C") in paths


def test_undispatched_lanes_keep_blockip_max():
    data = np.arange(16, dtype=np.int32)
    th, *_ = run_cfg(irreducible_cfg, 16, data, 0x0FFF)
    bip = th.reg(BLOCKIP, T.UW, 16)
    assert (bip[12:] == 0xFFFF).all() and (bip[:12] == 3).all()
    assert (th.reg(Y, T.D, 16)[12:] == 0).all()


def test_all16h_forward_jump_skips_a_block_no_lane_needs():
    odd = np.arange(16, dtype=np.int32) * 2 + 1          # every lane goes A -> C, nobody runs B first
    th, trace, first, prog = run_cfg(irreducible_cfg, 16, odd, 0xFFFF)
    at = dict(zip(layout(prog), prog))
    seq = [e.address for e in trace.events]
    taken = [at[a] for a, nxt in zip(seq, seq[1:]) if at[a].opcode == "jmpi" and nxt != a + 16]
    assert taken[0].predicate.control == "all16h"
    assert [first[a] for a in seq if a in first][:2] == ["A", "C"]


@pytest.mark.parametrize("make_cfg", [irreducible_cfg, beignet_doc_cfg])
def test_blockip_program_survives_binary_encode_decode(make_cfg):
    from isa.gen9 import encoding as codec
    prog, _ = linearize(make_cfg({}), 16)
    decoded = codec.decode_program(codec.encode_program(prog))
    data = np.random.default_rng(5).integers(0, 64, 16).astype(np.int32)
    results = []
    for p in (prog, decoded):
        trace = Trace()
        th = run_program(p, 16, setup=lambda th: th.set_reg(DATA, data, T.D), trace=trace, max_steps=20000)[0]
        results.append((th.reg(Y, T.D, 16).tolist(), [(e.address, e.mask.tolist()) for e in trace.events]))
    assert results[0] == results[1]
    assert any(i.opcode == "jmpi" and i.predicate and i.predicate.control == "all16h" for i in decoded)


@pytest.mark.parametrize("and_emask", [False, True])
def test_any16h_sees_undispatched_lanes_unless_anded_with_emask(and_emask):
    """jmpi's any/all group tests read flag bits of undispatched lanes too (PRM vol. 2a, "jmpi"), so
    Beignet ANDs the dispatch mask in first (Beignet gen_insn_selection.cpp)."""
    b = Builder(16)
    b.mov(grf(X), imm(0))
    b.cmp(null(T.UW), grf(BLOCKIP, T.UW), imm(5, T.UW), cond_mod="le", flag_reg=0, flag_subreg=1,
          mask_ctrl_we_all=True)                                  # undispatched lanes hold 0 here: true
    if and_emask:
        b.emit("and", flag(0, 1), flag(0, 1), grf(30, T.UW, region=(0, 1, 0)), n=1, mask_ctrl_we_all=True)
    b.jmpi("skip", pred(0, 1, inv=True, control="any16h"))
    b.mov(grf(X), imm(1))                                          # "block body"
    b.label("skip")
    b.mov(grf(112, T.UD), grf(0, T.UD), n=8, mask_ctrl_we_all=True)
    b.emit("send", null(), grf(112, T.UD), n=8, sfid=sm.SFID_THREAD_SPAWNER, desc=sm.eot_desc(), eot=True,
           mask_ctrl_we_all=True)

    def setup(th):
        bip = np.full(16, 9, np.uint16)
        bip[12:] = 0                                              # stale/zero blockip in dead lanes
        th.set_reg(BLOCKIP, bip, T.UW)
        th.set_reg(30, [0x0FFF] * 16, T.UW)                        # emask: lanes 0-11 dispatched

    trace = Trace()
    run_program(b.program(), 16, setup=setup, dispatch_masks=[0x0FFF], trace=trace)
    ran_body = any(e.opcode == "mov" and e.mask[:12].any() and e.address == 0x30 + (16 if and_emask else 0)
                   for e in trace.events)
    # without the AND the dead lanes' bits make "any" true: the body runs (with no live lane wanting it)
    assert ran_body == (not and_emask)
