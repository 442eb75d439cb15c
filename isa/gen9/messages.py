"""Gen9 SEND message descriptors: every field the backend builds and the simulator decodes, defined once.

Why its own module: the descriptor bit layout is the contract between a code generator (which builds
descriptors with the *_desc constructors below) and the simulator (which decodes them in sim_messages).
Each constant cites where the fact comes from. Only Gen9 (Skylake) layouts are modelled.
"""
from __future__ import annotations

# Binding-table indices with a fixed meaning -- Mesa brw_eu_defines.h
BTI_SLM = 254          # GFX7_BTI_SLM: shared local memory of the workgroup
BTI_STATELESS = 255    # BRW_BTI_STATELESS: flat (A64/A32) addresses

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
# A64 (stateless, 64-bit address per lane) messages on DC1 -- Mesa brw_eu_defines.h
# GFX8_DATAPORT_DC_PORT1_A64_*; iga64 names them (isa/gen9/sendmsg.py sweep): scattered read 0x10,
# untyped surface read 0x11, untyped surface write 0x19, scattered write 0x1A. Untyped ones take the
# untyped surface msg_control; scattered: 1:0 subtype (0 byte, 1 dword, 2 qword), 3:2 a byte subtype's
# size (0 8-bit, 1 16-bit, 2 32-bit), bit 4 SIMD16.
DC1_A64_SCATTERED_READ = 0x10
DC1_A64_UNTYPED_SURFACE_READ = 0x11
DC1_A64_UNTYPED_SURFACE_WRITE = 0x19
DC1_A64_SCATTERED_WRITE = 0x1A
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

# Thread spawner end of thread: Beignet's EOT `send (8) null r112 0x27 0x02000010 {EOT}` (Beignet
#   gen_encoder.cpp; iga64 assembles and decodes the same bytes): mlen 1, desc bit 4 set. Any SEND with the
#   EOT bit ends the thread here.


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


def a64_untyped_surface_desc(simd: int, channels: int, write: bool) -> int:
    """A64 untyped surface read/write: 64-bit addresses (two registers per 8 lanes), then the data."""
    assert simd in (8, 16) and 1 <= channels <= 4
    regs = simd // 8
    control = (0xF & (0xF << channels)) | (2 if simd == 8 else 1) << 4
    if write:
        return message_desc(regs * (2 + channels), 0) | dp_desc(BTI_STATELESS, DC1_A64_UNTYPED_SURFACE_WRITE, control)
    return message_desc(2 * regs, regs * channels) | dp_desc(BTI_STATELESS, DC1_A64_UNTYPED_SURFACE_READ, control)


def a64_byte_scattered_desc(simd: int, size: int, write: bool) -> int:
    """A64 byte scattered read/write of 1, 2 or 4 bytes per lane (in the low bytes of a dword slot)."""
    assert simd in (8, 16) and size in (1, 2, 4)
    regs = simd // 8
    control = {1: 0, 2: 1, 4: 2}[size] << 2 | int(simd == 16) << 4
    if write:
        return message_desc(3 * regs, 0) | dp_desc(BTI_STATELESS, DC1_A64_SCATTERED_WRITE, control)
    return message_desc(2 * regs, regs) | dp_desc(BTI_STATELESS, DC1_A64_SCATTERED_READ, control)


def untyped_atomic_desc(bti: int, simd: int, aop: int, returns: bool) -> int:
    """Untyped atomic integer operation on one dword per lane at byte addresses (no header)."""
    assert simd in (8, 16) and 1 <= aop <= 15
    regs = simd // 8
    control = aop | int(simd == 8) << 4 | int(returns) << 5
    mlen = regs * (1 + _AOP_SOURCES.get(aop, 1))
    return message_desc(mlen, regs if returns else 0) | dp_desc(bti, DC1_UNTYPED_ATOMIC_OP, control)


def byte_scattered_desc(bti: int, simd: int, size: int, write: bool) -> int:
    """Byte scattered read/write of 1, 2 or 4 bytes per lane (data in the low bytes of a dword slot)."""
    assert simd in (8, 16) and size in (1, 2, 4)
    regs = simd // 8
    control = int(simd == 16) | {1: 0, 2: 1, 4: 2}[size] << 2
    if write:
        return message_desc(2 * regs, 0) | dp_desc(bti, DC0_BYTE_SCATTERED_WRITE, control)
    return message_desc(regs, regs) | dp_desc(bti, DC0_BYTE_SCATTERED_READ, control)


def scratch_desc(offset_bytes: int, nregs: int, write: bool, split: bool = False) -> int:
    """Scratch block read/write of 1, 2, 4 or 8 registers at a 32-byte aligned per-thread offset. A split
    write (`sends`) carries only the header in src0; its data registers are src1 (split_send_ex_desc)."""
    assert nregs in (1, 2, 4, 8) and offset_bytes % 32 == 0 and offset_bytes // 32 < 1 << 12
    base = SCRATCH_BIT | (nregs.bit_length() - 1) << 12 | (offset_bytes // 32) & 0xFFF
    if write:
        return message_desc(1 if split else 1 + nregs, 0, True) | base | SCRATCH_WRITE_BIT
    return message_desc(1, nregs, True) | base


def split_send_ex_desc(sfid: int, ex_mlen: int) -> int:
    """A split send's extended descriptor: the SFID in 3:0 and src1's length in registers in 9:6
    (Mesa brw_eu.h brw_message_ex_desc, Gen9)."""
    return (ex_mlen & 0xF) << 6 | sfid & 0xF


def memory_fence_desc(bti: int = 0, commit: bool = True) -> int:
    """A data-cache memory fence (header r0, mlen 1); with commit it returns a register once every earlier
    access is globally visible (Mesa brw_eu.h brw_dp_desc with msg_control bit 5 = commit enable; Gen9
    fences SLM with BTI 254)."""
    return message_desc(1, int(commit), True) | dp_desc(bti, DC0_MEMORY_FENCE, int(commit) << 5)


def decode_mlen_rlen(desc: int) -> tuple[int, int]:
    return _bits(desc, 28, 25), _bits(desc, 24, 20)


def barrier_desc() -> int:
    return message_desc(1, 0) | GATEWAY_BARRIER


def eot_desc() -> int:
    return message_desc(1, 0) | 1 << 4
