"""A memset, memcpy or memmove whose length is known only at run time, as a loop of byte stores.

LLVM's loop idiom recognition turns a loop that fills or copies an array into one call of llvm.memset or
llvm.memcpy whose length is the loop's trip count (LoopIdiomRecognize.cpp): a value, where clang's own
calls (aggregate initialisation and copies) have a constant length, which the reader expands into
stores in place (builtins._mem). A run-time length needs control flow, and the reader makes blocks only
as the module has them, so it leaves a marker instruction (MARKER) where the call was, and `expand`
splits the marker's block around a loop once the whole function is read:

    head:  ...the code before the call...;  if (length == 0) goto tail
    loop:  i = phi [0, head], [i + 1, loop];  byte i of the destination = the value (memset) or
           byte i of the source (memcpy);  if (i + 1 < length) goto loop else tail
    tail:  ...the code after the call, the head's terminator with it (its successors' phis now name tail)

Byte by byte, as LLVM's own expansion for targets without the library call does (Transforms/Utils/
LowerMemIntrinsics.cpp: createMemSetLoop, createMemCpyLoopUnknownSize): a length need not be a multiple
of anything. A memmove (what the idiom makes of `a[i] = a[i + 1]` up to a bound) is the memcpy loop run
from the first byte up where the destination lies at or below the source, and from the last byte down
where above it (copies_backward: both pointers constant offsets into one object, or into two private
variables, which never overlap); a memmove between pointers of no known order is refused.
No lane waits for another inside the loop, and every lane leaves it for the tail, as every lane
leaves the call in LLVM's program.
"""
from __future__ import annotations

from reconverge.lowering.analysis.provenance import pointer_base
from reconverge.lowering.ir.core import Block, Const, Function, Instr, Phi, Value
from reconverge.lowering.ir.types import I1, I64, VOID, int_type

MARKER = "mem_loop"     # the reader's marker: operands (destination, value or source, i64 length); attrs
#                         memset (else a copy) and backward (a copy from the last byte down)
_BYTE = int_type(8)


def expand(func: Function, markers: list[Instr]) -> None:
    """Each marker (in the order the reader made them) as its loop; the function's blocks gain the loop
    and the tail after each marker's block."""
    for number, marker in enumerate(markers):
        _expand(func, marker, number)


def copies_backward(dst: Value, src: Value) -> bool | None:
    """Whether a memmove must copy from its last byte down (the destination above the source in one
    object), False where from the first byte up is right, None where the reader cannot tell."""
    dst_base, dst_offset = pointer_base(dst)
    src_base, src_offset = pointer_base(src)
    if dst_base is src_base:
        return None if dst_offset is None or src_offset is None else dst_offset > src_offset
    private = [isinstance(b, Instr) and b.opcode == "alloca" for b in (dst_base, src_base)]
    return False if all(private) else None


def _expand(func: Function, marker: Instr, number: int) -> None:
    head = marker.block
    assert head is not None, "a marker outside a block"
    at = head.instrs.index(marker)
    dst, value, length = marker.operands
    loop, tail = Block(f"{head.label}.memloop{number}"), Block(f"{head.label}.memdone{number}")
    rest = head.instrs[at + 1:]               # (a later marker of this block is among them: it moves to tail)
    del head.instrs[at:]
    for ins in rest:
        tail.append(ins)
    for succ in dict.fromkeys(rest[-1].targets):
        for phi in succ.phis():               # their edge from the head leaves the tail now
            phi.blocks = [tail if b is head else b for b in phi.blocks]
    last = head.append(Instr("sub", [length, Const(I64, 1)], I64)) if marker.attrs.get("backward") else None
    empty = head.append(Instr("icmp", [length, Const(I64, 0)], I1, {"pred": "eq"}))
    head.append(Instr("cbr", [empty], VOID, targets=[tail, loop]))
    count = loop.append(Phi(I64, name=f"mem.i{number}"))
    index = count if last is None else loop.append(Instr("sub", [last, count], I64))   # (backward: last - i)
    here = loop.append(Instr("ptradd", [dst, index], dst.type))
    byte = value
    if not marker.attrs["memset"]:
        there = loop.append(Instr("ptradd", [value, index], value.type))
        byte = loop.append(Instr("load", [there], _BYTE, {"align": 1}))
    loop.append(Instr("store", [byte, here], VOID, {"align": 1}))
    step = loop.append(Instr("add", [count, Const(I64, 1)], I64))
    more = loop.append(Instr("icmp", [step, length], I1, {"pred": "ult"}))
    loop.append(Instr("cbr", [more], VOID, targets=[loop, tail]))
    assert isinstance(count, Phi)
    count.add_incoming(head, Const(I64, 0))
    count.add_incoming(loop, step)
    after = func.blocks.index(head) + 1
    func.blocks[after:after] = [loop, tail]
