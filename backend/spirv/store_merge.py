"""Byte stores of one value, one after another, as the one store of the value they spell out.

`vstore4(as_uchar4(x), i, bytes)`, a byte-wise copy or a packed struct reach the backend as stores of
`trunc(x)`, `trunc(x >> 8)`, ... to `p`, `p + 1`, ...: each a separate access, and in a private array of
words (memory.py) each a read-modify-write. When such stores cover every byte of x, little-endian, in one
block with nothing in between that reads or writes memory, they store exactly x at p: the last of them
becomes `store x, p` and the others go (LLVM's DAGCombiner merges consecutive stores the same way, in
mergeConsecutiveStores). The IR is not changed; the emitter and the memory plan read the merge from here.
"""
from __future__ import annotations

from reconverge.lowering.ir.core import Const, Function, Instr, Value
from reconverge.records import record

# what may stand between the stores: instructions that neither read nor write memory
_PURE = frozenset({"ptradd", "trunc", "zext", "sext", "lshr", "ashr", "shl", "add", "sub", "mul", "and", "or",
                   "xor", "bitcast", "freeze", "addrspacecast", "icmp", "select"})


@record(frozen=True)
class WideStore:
    value: Value        # the whole value the pieces were cut from
    pointer: Value      # where its first byte goes


class StoreMerges:
    """wide[last piece] = the store it becomes; merged = the other pieces, which are not emitted."""

    def __init__(self, func: Function):
        self.wide: dict[Instr, WideStore] = {}
        self.merged: set[Instr] = set()
        for block in func.all_blocks():
            self._scan(block.instrs)

    def _scan(self, instrs) -> None:
        key: tuple[Value, Value] | None = None
        pieces: dict[int, Instr] = {}
        for ins in instrs:
            if ins.opcode == "store":
                piece = _piece(ins)
                if piece is None:
                    key, pieces = None, {}
                    continue
                value, base, offset, width = piece
                if (value, base) != key or offset in pieces:
                    key, pieces = (value, base), {}
                pieces[offset] = ins
                if len(pieces) * width == value.type.bits:
                    self.wide[ins] = WideStore(value, base)
                    self.merged.update(p for p in pieces.values() if p is not ins)
                    key, pieces = None, {}
            elif ins.opcode not in _PURE:
                key, pieces = None, {}


def _piece(store: Instr) -> tuple[Value, Value, int, int] | None:
    """(whole value, pointer to its first byte, byte offset, piece bits) of a store of trunc(x >> 8k) to
    p + k, else None."""
    part, ptr = store.operands
    if store.attrs.get("volatile") or not (isinstance(part, Instr) and part.opcode == "trunc"):
        return None
    width = part.type.bits
    whole, shift = part.operands[0], 0
    if isinstance(whole, Instr) and whole.opcode == "lshr":
        amount = whole.operands[1]
        if not isinstance(amount, Const):
            return None
        whole, shift = whole.operands[0], int(amount.value)
    bits = whole.type.bits
    if width not in (8, 16, 32) or bits not in (16, 32, 64) or not whole.type.is_int or shift % width \
            or shift + width > bits:
        return None
    offset = shift // 8
    if offset == 0:
        return whole, ptr, 0, width
    if isinstance(ptr, Instr) and ptr.opcode == "ptradd" and isinstance(ptr.operands[1], Const) \
            and ptr.operands[1].signed() == offset:
        return whole, ptr.operands[0], offset, width
    return None
