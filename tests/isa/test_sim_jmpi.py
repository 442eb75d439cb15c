"""jmpi's any/all group tests on the simulator (Gen9 PRM vol. 2a, "jmpi"): they read the flag bits of
undispatched lanes too, so a scheme that jumps on the lanes of a block (blockIP's entry test) must AND
the dispatch mask in first, as Beignet does (gen_insn_selection.cpp)."""
import numpy as np
import pytest

from reconverge.isa.gen9 import messages as sm
from reconverge.isa.gen9.builder import Builder, flag, grf, imm, null, pred
from reconverge.isa.gen9.model import DataType as T
from reconverge.isa.gen9.simulator import Trace, run_program

BLOCKIP, X = 2, 8


@pytest.mark.parametrize("and_emask", [False, True])
def test_any16h_sees_undispatched_lanes_unless_anded_with_emask(and_emask):
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
