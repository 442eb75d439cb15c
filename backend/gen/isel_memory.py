"""Memory and messages: loads, stores and atomics through the data-port message each object, size
and alignment needs; pointers as byte offsets into their object's surface (or, in a flat kernel,
64-bit addresses); the private frame in the scratch space; fences and the gateway barrier.

Every function takes the SelectionContext of the function being selected and records the value it
computes in `cx.values`; isel_values.py's table sends load, store, atomic, barrier and the pointer
instructions here.
"""
from __future__ import annotations

from collections.abc import Callable
from functools import partial

from reconverge.isa.gen9 import messages as sm
from reconverge.isa.gen9.model import DataType
from reconverge.isa.gen9.payload import BARRIER_ID_MASK
from reconverge.lowering.analysis.provenance import MemoryObject
from reconverge.lowering.ir.core import Const, Instr, Value
from reconverge.lowering.ir.opcodes import fence_spaces

from .isel_context import (
    SCALAR,
    SelectionContext,
    gen_type,
    half_view,
    high_dword,
    low_dword,
    negated,
    raw_bits,
    retyped,
)
from .mir import Imm, MInstr, Operand, PReg, VReg

T = DataType
ATOMIC_AOP = {"add": sm.AOP_ADD, "sub": sm.AOP_SUB, "xchg": sm.AOP_MOV, "inc": sm.AOP_INC, "dec": sm.AOP_DEC,
              "cmpxchg": sm.AOP_CMPWR, "smin": sm.AOP_IMIN, "smax": sm.AOP_IMAX, "umin": sm.AOP_UMIN,
              "umax": sm.AOP_UMAX, "and": sm.AOP_AND, "or": sm.AOP_OR, "xor": sm.AOP_XOR}


def memory(cx: SelectionContext, ins: Instr, result: Instr | None = None) -> None:
    """_access, with its sends tagged by the private or __local object they must stay in (_tag_object)."""
    ptr = ins.operands[0] if ins.opcode == "load" else ins.operands[1]
    start = len(cx.block.instrs)
    _access(cx, ins, result)
    _tag_object(cx, ptr, start)


def _tag_object(cx: SelectionContext, ptr: Value, start: int) -> None:
    """Give the sends appended to the current block since `start` the object `ptr` points into, where it
    is a private variable or a __local array or parameter: the gen run target checks each access against
    its own object (backend/gen/launch.py), where the binary alone would only show the lane's private
    frame or the work-group's whole shared local memory."""
    obj = cx.provenance.base.get(ptr)
    if not isinstance(obj, MemoryObject) or obj.kind not in ("private", "workgroup"):
        return
    if obj.kind == "private":
        offset = next((off for alloca, off in cx.layout.private.items() if cx.provenance.base.get(alloca) is obj),
                      None)
        if offset is None:
            return
        bounds: tuple[str, int, int | None] = ("private", offset, obj.size)
    elif obj.arg is not None:
        bounds = ("local_arg", obj.arg.index, None)        # (its offset and size: the launch's)
    else:
        bounds = ("local", cx.layout.slm[obj.name], obj.size)
    for minstr in cx.block.instrs[start:]:
        if minstr.opcode in ("send", "sends"):
            minstr.bounds = bounds


def _access(cx: SelectionContext, ins: Instr, result: Instr | None = None) -> None:
    """A load or store through the message its object and size need (PRM vol. 7, "Data port messages";
    Mesa brw_eu.h): dwords by untyped surface read/write, qwords as two channels of one (the low
    dword at the address, the high one after it), bytes and words by byte scattered messages (a
    read's upper bytes are not promised, so they are masked off). A known object is reached by its
    binding-table index; a pointer whose object is not known (a flat kernel) by the A64 forms of the
    same messages, whose payload carries the 64-bit address as two dword blocks."""
    ptr = ins.operands[0] if ins.opcode == "load" else ins.operands[1]
    value_type = ins.type if ins.opcode == "load" else ins.operands[0].type
    size = value_type.size
    if size not in (1, 2, 4, 8) or value_type.bits == 1:
        raise cx.error(ins, f"a {value_type} access")
    align = int(ins.attrs.get("align", size))         # a power of two (LLVM's rule)
    obj = cx.provenance.base.get(ptr)
    if isinstance(obj, MemoryObject):                 # by binding-table index: a 32-bit offset per lane
        bti = _surface(cx, ins, ptr)
        address, address_type = retyped(low_dword(_offset_into(cx, obj, cx.operand(ptr))), T.UD), T.UD
        dwords = partial(sm.untyped_surface_desc, bti, cx.simd)
        small, small_sfid = partial(sm.byte_scattered_desc, bti, cx.simd), sm.SFID_DC0
    elif ptr.type.addrspace in (1, 2):                # A64 stateless: the 64-bit address per lane
        address, address_type = cx.operand(ptr), T.UQ
        dwords = partial(sm.a64_untyped_surface_desc, cx.simd)
        small, small_sfid = partial(sm.a64_byte_scattered_desc, cx.simd), sm.SFID_DC1
    else:
        raise cx.error(ins, f"a {ptr.type} pointer whose memory object is not known at compile time "
                            "(only __global and __constant pointers may be addresses)")
    address_blocks = address_type.size // 4           # dword-per-lane blocks the address takes
    t = gen_type(value_type)
    if align < min(size, 4):
        _unaligned(cx, ins, result, address, address_type, partial(small, align), small_sfid, align)
        return
    if ins.opcode == "load":
        dst = cx.fresh(t)
        address = cx.in_register(address, address_type)
        if size < 4:
            raw = cx.fresh(T.UD)
            cx.emit("send", raw, address, sfid=small_sfid, desc=small(size, False))
            if value_type.is_float:                     # a half: its low word, converted to f32
                cx.emit("mov", dst, half_view(raw))
            else:
                cx.emit("and", dst, raw, Operand(Imm((1 << 8 * size) - 1, T.UD)))
        elif size == 4:
            cx.emit("send", dst, address, sfid=sm.SFID_DC1, desc=dwords(1, False))
        else:
            halves = cx.fresh(T.UQ)                 # two dword-per-lane blocks: low, then high
            cx.emit("send", cx.part(halves, 0, T.UD), address, sfid=sm.SFID_DC1, desc=dwords(2, False))
            cx.emit("mov", low_dword(dst), cx.part(halves, 0, T.UD))
            cx.emit("mov", high_dword(dst), cx.part(halves, 1, T.UD))
        cx.values[result or ins] = dst
        return
    value = cx.operand(ins.operands[0])
    if size == 4 or (size < 4 and not value_type.is_float):
        _split_store(cx, address, address_type, value, t if size == 4 else T.UD,
                     dwords(1, True) if size == 4 else small(size, True), sm.SFID_DC1 if size == 4 else small_sfid)
        return
    data = address_blocks                             # the payload: the address blocks, then the data
    payload = Operand(cx.m.vreg(T.UD, False, data + (2 if size == 8 else 1)))
    cx.emit("mov", cx.part(payload, 0, address_type), address)
    if size == 8:
        cx.emit("mov", cx.part(payload, data, T.UD), low_dword(value))
        cx.emit("mov", cx.part(payload, data + 1, T.UD), high_dword(value))
        desc, sfid = dwords(2, True), sm.SFID_DC1
    else:
        part = cx.part(payload, data, t if size == 4 else T.UD)
        cx.emit("mov", half_view(part) if value_type.is_float and size == 2 else part, value)
        desc, sfid = (dwords(1, True), sm.SFID_DC1) if size == 4 else (small(size, True), small_sfid)
    cx.emit("send", None, cx.part(payload, 0, T.UD), sfid=sfid, desc=desc)


def _split_store(cx: SelectionContext, address: Operand, address_type: DataType, value: Operand, t: DataType,
                 desc: int, sfid: int) -> None:
    """A one-dword-per-lane store as a split send (`sends`): the address registers as the first payload,
    the data as the second, each where it already is (PRM vol. 2a "sends"; IGC writes so), instead of
    copying both into one contiguous payload. The two payloads may not overlap, so a value that is its
    own address is copied."""
    address = cx.in_register(address, address_type)
    data = cx.in_register(retyped(value, t) if value.type.size == 4 else value, t)
    if isinstance(data.value, VReg) and isinstance(address.value, VReg) and data.value.id == address.value.id:
        data = cx.fresh(t)
        cx.emit("mov", data, address)
    address_regs = address_type.size * cx.simd // 32
    mlen_field = 0xF << 25
    cx.emit("sends", None, retyped(address, T.UD), data, sfid=sfid, desc=desc & ~mlen_field | address_regs << 25,
            ex_desc=sm.split_send_ex_desc(sfid, cx.simd // 8))


def _unaligned(cx: SelectionContext, ins: Instr, result: Instr | None, address: Operand, address_type: DataType,
               piece_desc: Callable[[bool], int], sfid: int, piece: int) -> None:
    """An access aligned to less than its size (at most 4) as one byte scattered message per `piece`
    bytes (its alignment: 1 or 2), each at an address aligned to its size, as the data port needs
    (PRM vol. 7, "Byte scattered read/write"); the pieces are shifted into (or out of) little-endian
    dwords."""
    value_type = ins.type if ins.opcode == "load" else ins.operands[0].type
    size, t = value_type.size, gen_type(value_type)
    mask, per_dword = (1 << 8 * piece) - 1, 4 // piece

    def address_of(k: int) -> Operand:
        if k == 0:
            return cx.in_register(address, address_type)
        at = cx.fresh(address_type)
        cx.emit("add", at, address, Operand(Imm(k * piece, address_type)))
        return at
    if ins.opcode == "load":
        words = []
        for j in range(max(1, size // 4)):
            word: Operand | None = None
            for k in range(j * per_dword, min(size // piece, (j + 1) * per_dword)):
                raw, bits = cx.fresh(T.UD), cx.fresh(T.UD)
                cx.emit("send", raw, address_of(k), sfid=sfid, desc=piece_desc(False))
                cx.emit("and", bits, raw, Operand(Imm(mask, T.UD)))
                if word is not None:
                    shifted, merged = cx.fresh(T.UD), cx.fresh(T.UD)
                    cx.emit("shl", shifted, bits, Operand(Imm(8 * piece * (k % per_dword), T.UD)))
                    cx.emit("or", merged, word, shifted)
                    bits = merged
                word = bits
            assert word is not None
            words.append(word)
        dst = cx.fresh(t)
        if size == 8:
            cx.emit("mov", low_dword(dst), words[0])
            cx.emit("mov", high_dword(dst), words[1])
        elif size == 2 and value_type.is_float:       # a half: its bits, converted to f32
            cx.emit("mov", dst, half_view(words[0]))
        else:
            cx.emit("mov", retyped(dst, T.UD), words[0])
        cx.values[result or ins] = dst
        return
    value = cx.operand(ins.operands[0])
    if size == 8:
        words = [low_dword(value), high_dword(value)]
    elif size == 2 and value_type.is_float:           # f32 -> the half's bits in a dword's low word
        bits = cx.fresh(T.UD)
        cx.emit("mov", bits, Operand(Imm(0, T.UD)))
        cx.emit("mov", half_view(bits), value)
        words = [bits]
    else:
        words = [raw_bits(value)]
    blocks = address_type.size // 4
    for k in range(size // piece):
        payload = Operand(cx.m.vreg(T.UD, False, blocks + 1))
        cx.emit("mov", cx.part(payload, 0, address_type), address_of(k))
        data, shift = cx.part(payload, blocks, T.UD), 8 * piece * (k % per_dword)
        word = words[k // per_dword]
        if shift:
            cx.emit("shr", data, cx.register(word), Operand(Imm(shift, T.UD)))
        else:
            cx.emit("mov", data, word)
        cx.emit("send", None, cx.part(payload, 0, T.UD), sfid=sfid, desc=piece_desc(True))


def _offset_into(cx: SelectionContext, obj: MemoryObject, ptr: Operand) -> Operand:
    """A pointer as a byte offset into its object's surface: itself, except in a flat kernel, where
    buffer and constant-table pointers are addresses and the object's base comes off."""
    if not cx.layout.flat or obj.kind not in ("buffer", "constant"):
        return ptr
    key = obj.arg if obj.kind == "buffer" else obj.name
    assert key is not None
    base = cx.object_base(key)
    ptr = cx.register(ptr)
    offset = cx.fresh(T.Q)
    cx.emit("add", offset, retyped(ptr, T.Q), negated(base))
    return offset


def atomic(cx: SelectionContext, ins: Instr) -> None:
    """A 32-bit atomic through an untyped atomic message, which returns the old value (PRM vol. 7,
    "Untyped atomic operation"; Mesa brw_eu.h BRW_AOP_*): the address block, then the operands
    (cmpxchg: the compared value, then the new one). Atomic loads and stores are plain dword
    accesses: the data port orders a lane's accesses to one address."""
    fn = ins.attrs["op"]
    value_type = ins.type if fn != "store" else ins.operands[1].type
    if value_type.bits != 32 or not (value_type.is_int or fn in ("xchg", "load", "store")):
        raise cx.error(ins, f"an atomic {fn} on {value_type}")
    if fn in ("load", "store"):
        if fn == "store":
            memory(cx, Instr("store", [ins.operands[1], ins.operands[0]], ins.type, {"align": 4}))
        else:
            memory(cx, Instr("load", [ins.operands[0]], ins.type, {"align": 4}), ins)
        return
    bti = _surface(cx, ins, ins.operands[0])
    sources = [ins.operands[2], ins.operands[1]] if fn == "cmpxchg" else list(ins.operands[1:])
    payload = Operand(cx.m.vreg(T.UD, False, 1 + len(sources)))
    cx.emit("mov", cx.part(payload, 0, T.UD), low_dword(cx.operand(ins.operands[0])))
    for k, src in enumerate(sources):
        cx.emit("mov", cx.part(payload, k + 1, T.UD), raw_bits(cx.operand(src, False)))
    dst = cx.fresh(gen_type(value_type))
    start = len(cx.block.instrs)
    cx.emit("send", dst, cx.part(payload, 0, T.UD), sfid=sm.SFID_DC1,
              desc=sm.untyped_atomic_desc(bti, cx.simd, ATOMIC_AOP[fn], True))
    _tag_object(cx, ins.operands[0], start)
    cx.values[ins] = dst


def _surface(cx: SelectionContext, ins: Instr, ptr: Value) -> int:
    """The binding-table index of the object `ptr` points into; a pointer whose object is not known
    at compile time (it may point into two, or was loaded or made from an integer) is refused."""
    obj = cx.provenance.base.get(ptr)
    if not isinstance(obj, MemoryObject):
        raise cx.error(ins, "a pointer whose memory object is not known at compile time")
    if obj.kind == "buffer":
        assert obj.arg is not None
        return cx.layout.buffer_bti[obj.arg]
    if obj.kind == "constant":
        return cx.layout.constants[obj.name][0]
    if obj.kind == "workgroup":
        return sm.BTI_SLM
    return sm.BTI_STATELESS


def pointer(cx: SelectionContext, ins: Instr) -> None:
    """alloca, global_addr and pointer casts: a pointer is a byte offset into its object's surface."""
    op = ins.opcode
    if op == "alloca":
        address, dst = cx.fresh(T.UD), cx.fresh(T.UQ)
        cx.emit("add", address, _private_base(cx), Operand(Imm(cx.layout.private[ins], T.UD)))
        cx.emit("mov", dst, address)
    elif op == "global_addr":
        sym = ins.attrs["symbol"]
        dst = cx.object_base(sym) if sym in cx.layout.constants else Operand(Imm(cx.layout.slm[sym], T.UQ))
    else:                                           # addrspacecast, bitcast: the same offset
        dst = cx.operand(ins.operands[0])
    cx.values[ins] = dst


def _private_base(cx: SelectionContext) -> Operand:
    """This lane's private frame in the scratch space: (r0.5 & ~1023) + lane * private_bytes, computed
    once in the entry block (lane numbers from a packed-vector immediate, 8 at a time)."""
    if cx.private_base is not None:
        return cx.private_base
    lanes = Operand(cx.m.vreg(T.UW))
    entry = cx.m.blocks[0]
    code = [MInstr("mov", 8, lanes, [Operand(Imm(0x76543210, T.V))], no_mask=True)]
    if cx.simd == 16:
        code.append(MInstr("add", 8, Operand(lanes.value, 16), [Operand(lanes.value, 0), Operand(Imm(8, T.UW))],
                           no_mask=True))
    slot, offsets, base = cx.fresh(T.UD, uniform=True), cx.fresh(T.UD), cx.fresh(T.UD)
    code += [MInstr("and", 1, slot, [Operand(PReg(0, 5, T.UD), region=SCALAR), Operand(Imm(0xFFFFFC00, T.UD))],
                    no_mask=True),
             MInstr("mul", cx.simd, offsets, [lanes, Operand(Imm(cx.layout.private_bytes, T.UW))]),
             MInstr("add", cx.simd, base, [offsets, slot])]
    entry.instrs[0:0] = code
    cx.private_base = base
    return base


def fences(cx: SelectionContext, spaces: tuple[str, ...]) -> list[Operand]:
    """A data-port memory fence (with commit) for SLM and for the rest of memory, as `spaces` name them;
    returns the registers their commits are written to (reading one waits for its fence)."""
    commits = []
    for bti in ([sm.BTI_SLM] if "local" in spaces else []) + ([0] if "global" in spaces else []):
        done = cx.fresh(T.UD, uniform=True, count=8)
        cx.emit("send", done, Operand(PReg(0, 0, T.UD)), n=8, no_mask=True, sfid=sm.SFID_DC0,
                desc=sm.memory_fence_desc(bti))
        commits.append(done)
    return commits


def barrier(cx: SelectionContext, ins: Instr) -> None:
    """Fences for the memory the flags name (SLM, then the rest), then the gateway barrier, whose
    payload carries r0.2's barrier id, and `wait` on n0 until every thread of the group has sent
    one (Mesa brw_fs_nir.cpp emit_barrier; PRM vol. 7, "Message gateway")."""
    flags = ins.operands[0]
    fences(cx, fence_spaces(int(flags.value) if isinstance(flags, Const) else None))
    payload = cx.fresh(T.UD, uniform=True, count=8)
    cx.emit("mov", payload, Operand(Imm(0, T.UD)), n=8, no_mask=True)
    cx.emit("and", Operand(payload.value, 8), Operand(PReg(0, 2, T.UD), region=SCALAR),
              Operand(Imm(BARRIER_ID_MASK, T.UD)), n=1, no_mask=True)
    cx.emit("send", None, payload, n=1, no_mask=True, sfid=sm.SFID_GATEWAY, desc=sm.barrier_desc())
    cx.emit("wait", None, n=1, no_mask=True)
