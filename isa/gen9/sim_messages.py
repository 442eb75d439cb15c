"""SEND messages the simulator understands, with every descriptor field defined here and nowhere else.

Why one module: the descriptor bit layout is the contract between the backend (which builds
descriptors with the *_desc helpers below) and the simulator (which decodes them in execute_send).
Each constant cites where the fact comes from. Only Gen9 (Skylake) layouts are modelled.
"""
from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from .sim_memory import BTI_SLM, BTI_STATELESS, gather, scatter

# --- Shared function ids (SEND bits 27:24, or ex_desc 3:0) -- Mesa brw_eu_defines.h enum brw_message_target
SFID_NULL = 0                 # BRW_SFID_NULL
SFID_GATEWAY = 3              # BRW_SFID_MESSAGE_GATEWAY
SFID_THREAD_SPAWNER = 7       # BRW_SFID_THREAD_SPAWNER
SFID_DC0 = 10                 # GFX7_SFID_DATAPORT_DATA_CACHE
SFID_DC1 = 12                 # HSW_SFID_DATAPORT_DATA_CACHE_1

# --- Generic descriptor fields -- Mesa brw_eu.h brw_message_desc (Gfx5+)
#   mlen 28:25, rlen 24:20, header present 19
# --- Data-port descriptor -- Mesa brw_eu.h brw_dp_desc (Gfx8+): BTI 7:0, msg_control 13:8, msg_type 18:14

# Data cache port 0 message types -- Mesa brw_eu_defines.h HSW_DATAPORT_DC_PORT0_*
DC0_BYTE_SCATTERED_READ = 4
DC0_MEMORY_FENCE = 7
DC0_BYTE_SCATTERED_WRITE = 12
# Scratch block messages on DC0 -- Mesa brw_eu_defines.h GFX7_DATAPORT_SCRATCH_READ/WRITE:
#   bit 18 = scratch, bit 17 = write, block size at 13:12 (GFX7_DATAPORT_SCRATCH_NUM_REGS_SHIFT) read as
#   log2(registers): 1, 2, 4, 8 -- that is how iga64 1.1.0 decodes it (isa/gen9/sendmsg.py's bit sweep);
#   offset in 32-byte units at 11:0 (not checked).
SCRATCH_BIT = 1 << 18
SCRATCH_WRITE_BIT = 1 << 17

# Data cache port 1 message types -- Mesa brw_eu_defines.h HSW_DATAPORT_DC_PORT1_*
DC1_UNTYPED_SURFACE_READ = 1
DC1_UNTYPED_ATOMIC_OP = 2
DC1_UNTYPED_SURFACE_WRITE = 9
# Untyped atomic msg_control -- Mesa brw_eu.h brw_dp_untyped_atomic_desc:
#   3:0 atomic op (BRW_AOP_*), bit 4 = SIMD8 (else SIMD16), bit 5 = return the old value.
# Atomic ops -- Mesa brw_eu_defines.h BRW_AOP_*. CMPWR operand order (src0 compared, src1 stored) is the
# simulator's reading of the PRM wording, not checked against hardware.
AOP_AND, AOP_OR, AOP_XOR, AOP_MOV, AOP_INC, AOP_DEC, AOP_ADD, AOP_SUB = 1, 2, 3, 4, 5, 6, 7, 8
AOP_REVSUB, AOP_IMAX, AOP_IMIN, AOP_UMAX, AOP_UMIN, AOP_CMPWR, AOP_PREDEC = 9, 10, 11, 12, 13, 14, 15
_AOP_SOURCES = {AOP_INC: 0, AOP_DEC: 0, AOP_PREDEC: 0, AOP_CMPWR: 2}
# Untyped surface msg_control -- Mesa brw_eu.h brw_dp_untyped_surface_rw_desc:
#   3:0 channel mask, a set bit *disables* R/G/B/A (brw_mdc_cmask); 5:4 SIMD mode: 1 = SIMD16, 2 = SIMD8.
# Byte scattered msg_control -- Mesa brw_eu.h brw_dp_byte_scattered_rw_desc:
#   bit 0 = SIMD16; 3:2 data size 0 byte, 1 word, 2 dword (brw_mdc_ds).

# Message gateway -- Mesa brw_eu_defines.h BRW_MESSAGE_GATEWAY_SFID_BARRIER_MSG, sub-function in desc 2:0;
#   Mesa's barrier sends mlen 1, rlen 0 (brw_barrier in brw_eu_emit.c).
GATEWAY_BARRIER = 4

# Thread spawner end of thread: Beignet's EOT `send (8) null r112 0x27 0x02000010 {EOT}` (notes section 1,
#   checked with IGA): mlen 1, desc bit 4 set. Any SEND with the EOT bit ends the thread here.


def _bits(value: int, hi: int, lo: int) -> int:
    return (value >> lo) & ((1 << (hi - lo + 1)) - 1)


def message_desc(mlen: int, rlen: int, header: bool = False) -> int:
    return (mlen & 0xF) << 25 | (rlen & 0x1F) << 20 | int(header) << 19


def dp_desc(bti: int, msg_type: int, msg_control: int) -> int:
    return (bti & 0xFF) | (msg_control & 0x3F) << 8 | (msg_type & 0x1F) << 14


def untyped_surface_desc(bti: int, simd: int, channels: int, write: bool) -> int:
    """Untyped surface read/write of `channels` dwords per lane at byte addresses (no header)."""
    assert simd in (8, 16) and 1 <= channels <= 4
    regs = simd // 8
    cmask = 0xF & (0xF << channels)
    control = cmask | (2 if simd == 8 else 1) << 4
    if write:
        return message_desc(regs * (1 + channels), 0) | dp_desc(bti, DC1_UNTYPED_SURFACE_WRITE, control)
    return message_desc(regs, regs * channels) | dp_desc(bti, DC1_UNTYPED_SURFACE_READ, control)


def untyped_atomic_desc(bti: int, simd: int, aop: int, returns: bool) -> int:
    """Untyped atomic integer operation on one dword per lane at byte addresses (no header)."""
    assert simd in (8, 16) and 1 <= aop <= 15
    regs = simd // 8
    control = aop | int(simd == 8) << 4 | int(returns) << 5
    mlen = regs * (1 + _AOP_SOURCES.get(aop, 1))
    return message_desc(mlen, regs if returns else 0) | dp_desc(bti, DC1_UNTYPED_ATOMIC_OP, control)


def _atomic(aop: int, old: int, a: int, b: int) -> tuple[int, int]:
    """(new value, returned value) of one dword atomic; values are unsigned 32-bit."""
    s32 = lambda v: v - (1 << 32) if v & 0x80000000 else v
    new = {AOP_AND: lambda: old & a, AOP_OR: lambda: old | a, AOP_XOR: lambda: old ^ a, AOP_MOV: lambda: a,
           AOP_INC: lambda: old + 1, AOP_DEC: lambda: old - 1, AOP_PREDEC: lambda: old - 1,
           AOP_ADD: lambda: old + a, AOP_SUB: lambda: old - a, AOP_REVSUB: lambda: a - old,
           AOP_IMAX: lambda: max(s32(old), s32(a)), AOP_IMIN: lambda: min(s32(old), s32(a)),
           AOP_UMAX: lambda: max(old, a), AOP_UMIN: lambda: min(old, a),
           AOP_CMPWR: lambda: b if old == a else old}[aop]() & 0xFFFFFFFF
    return new, (new if aop == AOP_PREDEC else old)


def byte_scattered_desc(bti: int, simd: int, size: int, write: bool) -> int:
    """Byte scattered read/write of 1, 2 or 4 bytes per lane (data in the low bytes of a dword slot)."""
    assert simd in (8, 16) and size in (1, 2, 4)
    regs = simd // 8
    control = int(simd == 16) | {1: 0, 2: 1, 4: 2}[size] << 2
    if write:
        return message_desc(2 * regs, 0) | dp_desc(bti, DC0_BYTE_SCATTERED_WRITE, control)
    return message_desc(regs, regs) | dp_desc(bti, DC0_BYTE_SCATTERED_READ, control)


def scratch_desc(offset_bytes: int, nregs: int, write: bool) -> int:
    """Scratch block read/write of 1, 2, 4 or 8 registers at a 32-byte aligned per-thread offset."""
    assert nregs in (1, 2, 4, 8) and offset_bytes % 32 == 0
    base = SCRATCH_BIT | (nregs.bit_length() - 1) << 12 | (offset_bytes // 32) & 0xFFF
    if write:
        return message_desc(1 + nregs, 0, True) | base | SCRATCH_WRITE_BIT
    return message_desc(1, nregs, True) | base


def decode_mlen_rlen(desc: int) -> tuple[int, int]:
    return _bits(desc, 28, 25), _bits(desc, 24, 20)


def barrier_desc() -> int:
    return message_desc(1, 0) | GATEWAY_BARRIER


def eot_desc() -> int:
    return message_desc(1, 0) | 1 << 4


@dataclass
class Decoded:
    sfid: int
    mlen: int
    rlen: int
    header: bool
    desc: int

    @property
    def bti(self) -> int:
        return _bits(self.desc, 7, 0)

    @property
    def msg_type(self) -> int:
        return _bits(self.desc, 18, 14)

    @property
    def msg_control(self) -> int:
        return _bits(self.desc, 13, 8)


class MessageError(Exception):
    """A SEND the simulator does not model (unknown SFID/type, bad lengths)."""


def decode(inst) -> Decoded:
    desc = inst.desc if inst.desc is not None else (inst.srcs[1].value if len(inst.srcs) > 1 else 0)
    sfid = inst.sfid if inst.sfid is not None else (inst.ex_desc or 0) & 0xF
    return Decoded(sfid, _bits(desc, 28, 25), _bits(desc, 24, 20), bool(_bits(desc, 19, 19)), desc)


def _payload(thread, inst, d: Decoded) -> np.ndarray:
    """The message payload as dwords: src0's mlen registers, then a split send's src1 registers."""
    regs = [inst.srcs[0].reg + k for k in range(d.mlen)]
    if inst.opcode == "sends" and len(inst.srcs) > 1:
        ex_mlen = _bits(inst.ex_desc or 0, 9, 6)   # Mesa brw_message_ex_desc: ex_mlen 9:6
        regs += [inst.srcs[1].reg + k for k in range(ex_mlen)]
    return thread.read_regs(regs).view(np.uint32)


def _lanes(mask: np.ndarray, simd: int) -> np.ndarray:
    active = np.zeros(simd, bool)
    n = min(simd, mask.size)
    active[:n] = mask[:n]
    return active


def _buffer(thread, bti: int) -> np.ndarray:
    if bti == BTI_SLM:
        return thread.slm
    if bti == BTI_STATELESS:
        raise MessageError("stateless (BTI 255) accesses are not modelled")
    buf = thread.memory.surfaces.get(bti)
    if buf is None:
        raise MessageError(f"no surface bound at binding table index {bti}")
    return buf


def _writeback(thread, inst, d: Decoded, dwords: np.ndarray, lane_mask: np.ndarray, simd: int) -> None:
    """Write `dwords` (rows of simd lanes) into the rlen destination registers, active lanes only."""
    if inst.dst is None or d.rlen == 0 or inst.dst.file.value == "arf":
        return
    base = inst.dst.reg
    per_row = max(1, simd // 8)
    for row in range(dwords.shape[0]):
        thread.write_lanes(base + row * per_row, dwords[row], lane_mask)


def execute_send(thread, inst, mask: np.ndarray) -> str | None:
    """Run one SEND for `thread` on the lanes in `mask`; returns "barrier" when the thread must wait."""
    d = decode(inst)
    if d.sfid in (SFID_THREAD_SPAWNER, SFID_NULL):
        return None                     # EOT (handled by the caller) or a no-op message
    if d.sfid == SFID_GATEWAY:
        if _bits(d.desc, 2, 0) == GATEWAY_BARRIER:
            return "barrier"
        raise MessageError(f"gateway sub-function {_bits(d.desc, 2, 0)} is not modelled")
    payload = _payload(thread, inst, d)
    if d.sfid == SFID_DC1 and d.msg_type in (DC1_UNTYPED_SURFACE_READ, DC1_UNTYPED_SURFACE_WRITE):
        mode = _bits(d.msg_control, 5, 4)
        if mode not in (1, 2):
            raise MessageError("untyped surface SIMD4x2 mode is not modelled")
        simd = 16 if mode == 1 else 8
        channels = [c for c in range(4) if not (d.msg_control >> c) & 1]
        start = 8 if d.header else 0
        addrs = payload[start:start + simd]
        active = _lanes(mask, simd)
        buf = _buffer(thread, d.bti)
        if d.msg_type == DC1_UNTYPED_SURFACE_WRITE:
            for k, c in enumerate(channels):
                data = payload[start + simd * (1 + k): start + simd * (2 + k)]
                scatter(buf, addrs.astype(np.int64) + 4 * c, data, 4, active)
            return None
        rows = [gather(buf, addrs.astype(np.int64) + 4 * c, 4, active).astype(np.uint32) for c in channels]
        _writeback(thread, inst, d, np.stack(rows), active, simd)
        return None
    if d.sfid == SFID_DC1 and d.msg_type == DC1_UNTYPED_ATOMIC_OP:
        simd = 8 if d.msg_control & 0x10 else 16
        aop = d.msg_control & 0xF
        if aop == 0:
            raise MessageError("untyped atomic op 0 is reserved")
        start = 8 if d.header else 0
        addrs = payload[start:start + simd].astype(np.int64)
        srcs = [payload[start + simd * (1 + k): start + simd * (2 + k)] for k in range(2)]
        active = _lanes(mask, simd)
        buf = _buffer(thread, d.bti)
        ret = np.zeros(simd, np.uint32)
        for lane in np.nonzero(active)[0]:          # lanes in order: same-address lanes accumulate
            one = np.array([True])
            at = addrs[lane:lane + 1]
            old = int(gather(buf, at, 4, one)[0])
            a = int(srcs[0][lane]) if srcs[0].size > lane else 0
            b = int(srcs[1][lane]) if srcs[1].size > lane else 0
            new, ret[lane] = _atomic(aop, old, a, b)
            scatter(buf, at, np.array([new], np.uint64), 4, one)
        if d.msg_control & 0x20:
            _writeback(thread, inst, d, ret[None], active, simd)
        return None
    if d.sfid == SFID_DC0 and d.desc & SCRATCH_BIT:
        nregs = 1 << _bits(d.desc, 13, 12)
        offset = _bits(d.desc, 11, 0) * 32
        if offset + 32 * nregs > thread.scratch.size:
            raise MessageError("scratch access beyond the thread's scratch space")
        if d.desc & SCRATCH_WRITE_BIT:
            thread.scratch[offset:offset + 32 * nregs] = payload[8:8 + 8 * nregs].view(np.uint8)
        elif inst.dst is not None and inst.dst.file.value == "grf":
            thread.write_regs(inst.dst.reg, thread.scratch[offset:offset + 32 * nregs])
        return None
    if d.sfid == SFID_DC0 and d.msg_type in (DC0_BYTE_SCATTERED_READ, DC0_BYTE_SCATTERED_WRITE):
        simd = 16 if d.msg_control & 1 else 8
        size = {0: 1, 1: 2, 2: 4}.get(_bits(d.msg_control, 3, 2))
        if size is None:
            raise MessageError("byte scattered data size 3 is reserved")
        start = 8 if d.header else 0
        addrs = payload[start:start + simd]
        active = _lanes(mask, simd)
        buf = _buffer(thread, d.bti)
        if d.msg_type == DC0_BYTE_SCATTERED_WRITE:
            scatter(buf, addrs, payload[start + simd:start + 2 * simd], size, active)
            return None
        _writeback(thread, inst, d, gather(buf, addrs, size, active).astype(np.uint32)[None], active, simd)
        return None
    if d.sfid == SFID_DC0 and d.msg_type == DC0_MEMORY_FENCE:
        if inst.dst is not None and inst.dst.file.value == "grf" and d.rlen:
            thread.write_regs(inst.dst.reg, np.zeros(32 * d.rlen, np.uint8))
        return None
    raise MessageError(f"SEND sfid {d.sfid} desc {d.desc:#010x} is not modelled")
