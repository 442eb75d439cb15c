"""The simulator's side of SEND: decode a descriptor (fields from messages.py) and perform the message.

Why apart from messages.py: the constructors there are what a code generator uses; executing a message
against simulated memory and registers is the simulator's business only.
"""
from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from .messages import (
    AOP_ADD,
    AOP_AND,
    AOP_CMPWR,
    AOP_DEC,
    AOP_IMAX,
    AOP_IMIN,
    AOP_INC,
    AOP_MOV,
    AOP_OR,
    AOP_PREDEC,
    AOP_REVSUB,
    AOP_SUB,
    AOP_UMAX,
    AOP_UMIN,
    AOP_XOR,
    BTI_SLM,
    BTI_STATELESS,
    DC0_BYTE_SCATTERED_READ,
    DC0_BYTE_SCATTERED_WRITE,
    DC0_MEMORY_FENCE,
    DC1_A64_SCATTERED_READ,
    DC1_A64_SCATTERED_WRITE,
    DC1_A64_UNTYPED_SURFACE_READ,
    DC1_A64_UNTYPED_SURFACE_WRITE,
    DC1_UNTYPED_ATOMIC_OP,
    DC1_UNTYPED_SURFACE_READ,
    DC1_UNTYPED_SURFACE_WRITE,
    GATEWAY_BARRIER,
    SCRATCH_BIT,
    SCRATCH_WRITE_BIT,
    SFID_DC0,
    SFID_DC1,
    SFID_GATEWAY,
    SFID_NULL,
    SFID_THREAD_SPAWNER,
    _bits,
)
from .registers import NUM_GRF
from .sim_memory import check_bounds, gather, lane_fault, scatter
from .sim_operands import SimulationError


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


@dataclass(frozen=True)
class MessageForm:
    """What a SEND does, decoded once from its descriptors (message_form): the one-thread simulator
    (execute_send) and the batched one (sim_batch_send) perform it from this.

    kind: "none" (EOT or a no-op), "barrier", "surface" (untyped surface or byte scattered access through
    a binding-table index), "a64" (the same through 64-bit addresses), "atomic", "scratch" (block access
    to the thread's scratch slot), "fence"."""
    kind: str
    d: Decoded
    regs: tuple[int, ...] = ()          # the payload: src0's mlen registers, then a split send's src1 ones
    simd: int = 0
    channels: tuple[int, ...] = (0,)    # channel c is the dword 4c bytes past each lane's address
    size: int = 4                       # bytes per lane and channel
    start: int = 0                      # payload dword of the first lane's address (after a header)
    write: bool = False
    aop: int = 0                        # atomic operation
    returns: bool = False               # an atomic writes the old values back
    nregs: int = 0                      # scratch: registers moved
    offset: int = 0                     # scratch: byte offset in the thread's slot


def message_form(inst) -> MessageForm:
    """Decode a SEND (MessageError: a message the simulators do not model)."""
    d = decode(inst)
    if d.sfid in (SFID_THREAD_SPAWNER, SFID_NULL):
        return MessageForm("none", d)               # EOT (handled by the caller) or a no-op message
    if d.sfid == SFID_GATEWAY:
        if _bits(d.desc, 2, 0) == GATEWAY_BARRIER:
            return MessageForm("barrier", d)
        raise MessageError(f"gateway sub-function {_bits(d.desc, 2, 0)} is not modelled")
    regs = [inst.srcs[0].reg + k for k in range(d.mlen)]
    if inst.opcode == "sends" and len(inst.srcs) > 1:
        ex_mlen = _bits(inst.ex_desc or 0, 9, 6)   # Mesa brw_message_ex_desc: ex_mlen 9:6
        regs += [inst.srcs[1].reg + k for k in range(ex_mlen)]
    for r in regs:
        if not 0 <= r < NUM_GRF:
            raise SimulationError(f"register r{r} out of range")
    start = 8 if d.header else 0
    if d.sfid == SFID_DC1 and d.msg_type in (DC1_UNTYPED_SURFACE_READ, DC1_UNTYPED_SURFACE_WRITE):
        simd, channels = _untyped_channels(d)
        return MessageForm("surface", d, tuple(regs), simd, tuple(channels), 4, start,
                           d.msg_type == DC1_UNTYPED_SURFACE_WRITE)
    if d.sfid == SFID_DC1 and d.msg_type in (DC1_A64_UNTYPED_SURFACE_READ, DC1_A64_UNTYPED_SURFACE_WRITE,
                                             DC1_A64_SCATTERED_READ, DC1_A64_SCATTERED_WRITE):
        if d.msg_type in (DC1_A64_UNTYPED_SURFACE_READ, DC1_A64_UNTYPED_SURFACE_WRITE):
            simd, channels = _untyped_channels(d)
            size = 4
        else:
            simd, channels = (16 if d.msg_control & 0x10 else 8), [0]
            if _bits(d.msg_control, 1, 0) != 0:
                raise MessageError("A64 dword/qword scattered messages are not modelled")
            size = _byte_size(d)
        write = d.msg_type in (DC1_A64_UNTYPED_SURFACE_WRITE, DC1_A64_SCATTERED_WRITE)
        return MessageForm("a64", d, tuple(regs), simd, tuple(channels), size, 0, write)
    if d.sfid == SFID_DC1 and d.msg_type == DC1_UNTYPED_ATOMIC_OP:
        aop = d.msg_control & 0xF
        if aop == 0:
            raise MessageError("untyped atomic op 0 is reserved")
        return MessageForm("atomic", d, tuple(regs), 8 if d.msg_control & 0x10 else 16, start=start, write=True,
                           aop=aop, returns=bool(d.msg_control & 0x20))
    if d.sfid == SFID_DC0 and d.desc & SCRATCH_BIT:
        return MessageForm("scratch", d, tuple(regs), write=bool(d.desc & SCRATCH_WRITE_BIT),
                           nregs=1 << _bits(d.desc, 13, 12), offset=_bits(d.desc, 11, 0) * 32)
    if d.sfid == SFID_DC0 and d.msg_type in (DC0_BYTE_SCATTERED_READ, DC0_BYTE_SCATTERED_WRITE):
        return MessageForm("surface", d, tuple(regs), 16 if d.msg_control & 1 else 8, (0,), _byte_size(d), start,
                           d.msg_type == DC0_BYTE_SCATTERED_WRITE)
    if d.sfid == SFID_DC0 and d.msg_type == DC0_MEMORY_FENCE:
        return MessageForm("fence", d, tuple(regs))
    raise MessageError(f"SEND sfid {d.sfid} desc {d.desc:#010x} is not modelled")


def lanes_of(mask: np.ndarray, simd: int) -> np.ndarray:
    """The message's `simd` lanes from the instruction's channel mask (last axis), missing ones off."""
    active = np.zeros(mask.shape[:-1] + (simd,), bool)
    n = min(simd, mask.shape[-1])
    active[..., :n] = mask[..., :n]
    return active


def _buffer(thread, bti: int) -> np.ndarray:
    if bti == BTI_SLM:
        return thread.slm
    if bti == BTI_STATELESS:
        return thread.scratch_space
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


def _transfer(thread, inst, d: Decoded, where, data: np.ndarray, channels: tuple[int, ...], size: int, write: bool,
              active: np.ndarray, simd: int) -> None:
    """Scattered reads or writes of `size` bytes per lane and channel (channel c at byte 4c past the
    lane's address); `where(extra)` gives the (buffer, byte offsets, lanes) parts the addresses plus
    `extra` fall in; `data` holds the channels' write blocks, one per channel, simd lanes each."""
    rows = []
    for k, c in enumerate(channels):
        got = np.zeros(simd, np.uint64)
        for buf, offsets, lanes in where(4 * c):
            if write:
                scatter(buf, offsets, data[simd * k: simd * (k + 1)], size, lanes)
            else:
                got |= gather(buf, offsets, size, lanes)
        rows.append(got.astype(np.uint32))
    if not write:
        _writeback(thread, inst, d, np.stack(rows), active, simd)


def _space(bti: int) -> str:
    return "slm" if bti == BTI_SLM else "scratch" if bti == BTI_STATELESS else "surface"


def _surface_parts(thread, bti: int, addrs: np.ndarray, active: np.ndarray, size: int, write: bool):
    """`where` for a binding-table index: one buffer, the addresses as byte offsets into it (checked
    against its size when the memory is: Memory.checked)."""
    buf = _buffer(thread, bti)

    def where(extra: int):
        offsets = addrs.astype(np.int64) + extra
        if thread.memory.checked:
            check_bounds(_space(bti), bti, buf, offsets, size, active, write)
            _check_private(thread, bti, offsets, size, active, write)
        return [(buf, offsets, active)]
    return where


def _check_private(thread, bti: int, offsets: np.ndarray, size: int, active: np.ndarray, write: bool) -> None:
    """A checked access to private or __local memory against the one object its send may touch
    (Memory.send_objects), else a private one against its lane's arrays (Memory.private_arrays)."""
    memory = thread.memory
    frames = memory.private_arrays
    obj = memory.send_objects.get(thread.ip)
    if bti == BTI_STATELESS and frames is not None:
        rel = offsets - thread.tid * memory.scratch_bytes - np.arange(offsets.size) * frames[0]
    elif bti == BTI_SLM and obj is not None:
        rel = offsets
    else:
        return
    found = lane_fault(memory, obj, rel, size, active, write)
    if found is not None:
        raise found[1]


def _flat_parts(thread, addrs: np.ndarray, size: int, active: np.ndarray, write: bool):
    """`where` for A64 addresses: the buffers the launcher mapped into the flat space (Memory.map_flat)."""
    def where(extra: int):
        try:
            return thread.memory.flat_lanes(addrs + np.uint64(extra), size, active, write)
        except ValueError as exc:
            raise MessageError(str(exc)) from None
    return where


def _untyped_channels(d: Decoded) -> tuple[int, list[int]]:
    """SIMD width and enabled channels of an untyped surface message (a set mask bit disables one)."""
    mode = _bits(d.msg_control, 5, 4)
    if mode not in (1, 2):
        raise MessageError("untyped surface SIMD4x2 mode is not modelled")
    return (16 if mode == 1 else 8), [c for c in range(4) if not (d.msg_control >> c) & 1]


def _byte_size(d: Decoded) -> int:
    size = {0: 1, 1: 2, 2: 4}.get(_bits(d.msg_control, 3, 2))
    if size is None:
        raise MessageError("byte scattered data size 3 is reserved")
    return size


def execute_send(thread, inst, mask: np.ndarray) -> str | None:
    """Run one SEND for `thread` on the lanes in `mask`; returns "barrier" when the thread must wait."""
    f = message_form(inst)
    d = f.d
    if f.kind == "none":
        return None
    if f.kind == "barrier":
        return "barrier"
    payload = thread.read_regs(f.regs).view(np.uint32)
    active = lanes_of(mask, f.simd)
    if f.kind == "surface":
        addrs = payload[f.start:f.start + f.simd]
        _transfer(thread, inst, d, _surface_parts(thread, d.bti, addrs, active, f.size, f.write),
                  payload[f.start + f.simd:], f.channels, f.size, f.write, active, f.simd)
    elif f.kind == "a64":
        # each lane's 64-bit address (a qword per lane, lanes in order) names a byte in the flat address
        # space the launcher mapped buffers into, then the data as for the binding-table forms
        where = _flat_parts(thread, payload[:2 * f.simd].view(np.uint64), f.size, active, f.write)
        _transfer(thread, inst, d, where, payload[2 * f.simd:], f.channels, f.size, f.write, active, f.simd)
    elif f.kind == "atomic":
        simd = f.simd
        addrs = payload[f.start:f.start + simd].astype(np.int64)
        srcs = [payload[f.start + simd * (1 + k): f.start + simd * (2 + k)] for k in range(2)]
        buf = _buffer(thread, d.bti)
        if thread.memory.checked:
            check_bounds(_space(d.bti), d.bti, buf, addrs, 4, active, True)
            _check_private(thread, d.bti, addrs, 4, active, True)
        ret = np.zeros(simd, np.uint32)
        for lane in np.nonzero(active)[0]:          # lanes in order: same-address lanes accumulate
            one = np.array([True])
            at = addrs[lane:lane + 1]
            old = int(gather(buf, at, 4, one)[0])
            a = int(srcs[0][lane]) if srcs[0].size > lane else 0
            b = int(srcs[1][lane]) if srcs[1].size > lane else 0
            new, ret[lane] = _atomic(f.aop, old, a, b)
            scatter(buf, at, np.array([new], np.uint64), 4, one)
        if f.returns:
            _writeback(thread, inst, d, ret[None], active, simd)
    elif f.kind == "scratch":
        span = slice(f.offset, f.offset + 32 * f.nregs)
        if span.stop > thread.scratch.size:
            raise MessageError("scratch access beyond the thread's scratch space")
        if f.write:
            thread.scratch[span] = payload[8:8 + 8 * f.nregs].view(np.uint8)
        elif inst.dst is not None and inst.dst.file.value == "grf":
            thread.write_regs(inst.dst.reg, thread.scratch[span])
    elif f.kind == "fence":
        if inst.dst is not None and inst.dst.file.value == "grf" and d.rlen:
            thread.write_regs(inst.dst.reg, np.zeros(32 * d.rlen, np.uint8))
    return None
