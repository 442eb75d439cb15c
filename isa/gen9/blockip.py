"""Per-lane blockIP linearization (Beignet's scheme): run any CFG, irreducible ones too, on SIMD lanes.

Why: structured Gen branches (if/else/endif/while) need a reducible, nested CFG. Beignet instead keeps
one 16-bit "block IP" per lane, the layout index of the block the lane must run next, and lays the
blocks out in one sequence. Every block starts by enabling exactly the lanes whose blockIP is at most
its own index, so a lane that was sent backwards waits until the thread jumps back, and lanes that are
sent forwards wait until the thread reaches their block: each block is a join point.

    entry L:   (W) cmp.le f0.1 null blockip:uw L     lanes that belong here (or earlier)
               (W)(-f0.1.anyNh) jmpi JIP              nobody: jump to the next pending block
               (+f0.1) if ... body ... endif
    fall:      (nothing: the next block's entry test picks the lanes up)
    br T>L:    mov blockip T ; endif ; (W) jmpi JIP (if the next pending block is not next in layout)
    cbr p,T>L: (+p) mov blockip T ; endif ; (W) cmp.g p blockip L+1 ; (W)(+p.allNh) jmpi JIP
    br/cbr to T<=L (backward): mov blockip L+1 ; (+p) mov blockip T ; endif ; (W)(+p.anyNh) jmpi T

JIP is the first block some lane may still be waiting for ("pending", Beignet's buildJIPs): forward
targets not yet reached, plus the block after a backward branch's source once its target is entered.
Undispatched lanes keep blockIP 0xFFFF, so they never pass an entry test. Facts: Beignet
backend/src/backend/gen_insn_selection.cpp (blockIP and JIP selection) and its unstructured_branches
documentation; jmpi's any/all predicate groups: Gen9 PRM vol. 2a "jmpi".
"""
from __future__ import annotations

from dataclasses import dataclass
from typing import Callable

from . import messages
from .builder import Builder, flag, grf, imm, null, pred
from .errors import IsaError
from .model import DataType, Instruction

Terminator = tuple  # ("fall",) | ("br", target) | ("cbr", target) | ("ret",); cbr: the condition flag true -> target


@dataclass
class BlockIPBlock:
    """One basic block: `body` emits its per-lane code (and sets the condition flag for a cbr)."""
    body: Callable[[Builder], None] | None
    term: Terminator


@dataclass(frozen=True)
class BlockIPRegisters:
    """Which registers the linearization owns (the caller's code must leave them alone)."""
    blockip: int = 2                      # GRF whose UW lanes hold each lane's block IP
    condition: tuple[int, int] = (0, 0)   # flag (register, subregister) a body sets for its cbr
    entry: tuple[int, int] = (0, 1)       # flag holding the block-entry lanes
    eot: int = 112                        # GRF the end-of-thread message header is copied into


def linearize(blocks: list[BlockIPBlock], simd: int,
              regs: BlockIPRegisters = BlockIPRegisters()) -> tuple[list[Instruction], dict[str, int]]:
    """Gen9 code for `blocks` in layout order (block i is label "B<i>"); the last one must be the return
    block, which only ends the thread. Returns the instructions and the label -> instruction index map."""
    if not blocks or blocks[-1].term != ("ret",):
        raise IsaError("blockIP linearization: the last block must be the return block")
    n_h = f"{simd}h"
    cond = regs.condition
    b = Builder(simd)

    def bip():
        return grf(regs.blockip, DataType.UW)

    b.mov(bip(), imm(0xFFFF, DataType.UW), mask_ctrl_we_all=True)
    b.mov(bip(), imm(0, DataType.UW))
    last = len(blocks) - 1
    back_into: dict[int, list[int]] = {i: [] for i in range(len(blocks))}
    for i, blk in enumerate(blocks):
        if blk.term[0] in ("br", "cbr"):
            if not 0 <= blk.term[1] <= last:
                raise IsaError(f"blockIP linearization: block {i} branches to unknown block {blk.term[1]}")
            if blk.term[1] <= i:
                back_into[blk.term[1]].append(i + 1)
    pending: set[int] = set()
    for i, blk in enumerate(blocks):
        b.label(f"B{i}")
        pending.discard(i)
        pending.update(back_into[i])
        if i == last:
            b.mov(grf(regs.eot, DataType.UD), grf(0, DataType.UD), n=8, mask_ctrl_we_all=True)
            b.emit("send", null(), grf(regs.eot, DataType.UD), n=8, sfid=messages.SFID_THREAD_SPAWNER,
                   desc=messages.eot_desc(), eot=True, mask_ctrl_we_all=True)
            break
        b.cmp(null(DataType.UW), bip(), imm(i, DataType.UW), cond_mod="le", flag_reg=regs.entry[0],
              flag_subreg=regs.entry[1], mask_ctrl_we_all=True)
        if pending:
            b.jmpi(f"B{min(pending)}", pred(*regs.entry, inv=True, control="any" + n_h))
        b.if_(pred(*regs.entry))
        b.mov(flag(*cond), imm(0, DataType.UW), n=1, mask_ctrl_we_all=True)   # no stale bits of other lanes
        if blk.body is not None:
            blk.body(b)
        kind, nxt = blk.term[0], i + 1
        if kind == "fall":
            b.endif()
        elif kind == "ret":
            raise IsaError(f"blockIP linearization: block {i} returns but is not the last block")
        elif kind == "br" and blk.term[1] > i:
            target = blk.term[1]
            b.mov(bip(), imm(target, DataType.UW))
            b.endif()
            pending.add(target)
            if min(pending) != nxt:
                b.jmpi(f"B{min(pending)}")
        elif kind == "br":
            b.mov(bip(), imm(blk.term[1], DataType.UW))
            b.endif()
            b.jmpi(f"B{blk.term[1]}")
        elif kind == "cbr" and blk.term[1] > i:
            target = blk.term[1]
            b.mov(bip(), imm(target, DataType.UW), predicate=pred(*cond))
            b.endif()
            pending.add(target)
            b.cmp(null(DataType.UW), bip(), imm(nxt, DataType.UW), cond_mod="gt", flag_reg=cond[0],
                  flag_subreg=cond[1], mask_ctrl_we_all=True)
            b.jmpi(f"B{min(pending)}", pred(*cond, control="all" + n_h))
        elif kind == "cbr":
            target = blk.term[1]
            b.mov(bip(), imm(nxt, DataType.UW))
            b.mov(bip(), imm(target, DataType.UW), predicate=pred(*cond))
            b.endif()
            b.jmpi(f"B{target}", pred(*cond, control="any" + n_h))
        else:
            raise IsaError(f"blockIP linearization: block {i} has an unknown terminator {blk.term!r}")
    return b.program(), b.labels
