"""Build Gen9 Instruction lists with labels: the code generator's and the tests' way to write programs.

Why: branch offsets depend on the final layout, so code is emitted against names and resolved once at
the end. `Builder.program()` resolves labels and fills structured-CF JIP/UIP by the hardware rules
(Mesa brw_eu_emit.c brw_set_uip_jip / brw_find_next_block_end, IGC FlowGraph "HW Rules"):
  if: JIP = after the else (or the endif), UIP = endif;  else: JIP = UIP = endif;
  endif: JIP = the next block end at this level (endif/else/while/halt), else the next instruction;
  while: JIP = loop head;  break/cont: JIP = next block end, UIP = the while;
  halt: UIP = given label, JIP = next block end or UIP.
"""
from __future__ import annotations

import bisect
from itertools import compress

from .errors import IsaError
from .model import (
    DataType,
    Instruction,
    Operand,
    Predicate,
    RegFile,
    Region,
    instruction_size,
    layout,
)
from .opcodes import OPCODES
from .registers import ARF_ACC, ARF_FLAG, ARF_NULL

TYPE_CHECKING = False                   # not typing's: a compile's start-up does not import typing
if TYPE_CHECKING:
    from typing import Any, Callable

T = DataType


def grf(reg: int, t: DataType = T.D, subreg: int = 0, region: tuple[int, int, int] | None = None,
        hstride: int = 1, neg: bool = False, abs: bool = False) -> Operand:
    return Operand(RegFile.GRF, t, reg, subreg, Region(*region) if region else None, hstride, abs, neg)


def scalar(reg: int, t: DataType = T.D, subreg: int = 0, neg: bool = False, abs: bool = False) -> Operand:
    return grf(reg, t, subreg, (0, 1, 0), neg=neg, abs=abs)


def imm(value: int | float, t: DataType = T.D) -> Operand:
    import struct
    if t == T.F:
        raw = struct.unpack("<I", struct.pack("<f", float(value)))[0]
    elif t == T.HF:
        import numpy as np
        raw = int(np.array([value], np.float16).view(np.uint16)[0])
    elif t == T.DF:
        raw = struct.unpack("<Q", struct.pack("<d", float(value)))[0]
    else:
        raw = int(value) & ((1 << (8 * t.size)) - 1)
    return Operand(RegFile.IMM, t, value=raw)


def null(t: DataType = T.D) -> Operand:
    return Operand(RegFile.ARF, t, ARF_NULL)


def flag(f: int = 0, sub: int = 0, t: DataType = T.UW) -> Operand:
    return Operand(RegFile.ARF, t, ARF_FLAG + f, sub, Region(0, 1, 0))


def acc(t: DataType = T.D) -> Operand:
    return Operand(RegFile.ARF, t, ARF_ACC)


def pred(f: int = 0, sub: int = 0, inv: bool = False, control: str = "") -> Predicate:
    return Predicate(f, sub, inv, control)


# the opcodes program() resolves or counts (if-depth, block ends), and the block ends among them
_BLOCK_ENDS = frozenset(("endif", "else", "halt", "while"))
_RESOLVED = frozenset(("if", "else", "endif", "while", "break", "cont", "halt"))


class Builder:
    """Emit instructions; labels are names; `program()` resolves offsets and returns the list."""

    def __init__(self, simd: int = 16):
        self.simd = simd
        self.insts: list[Instruction] = []
        self.labels: dict[str, int] = {}            # label -> instruction index
        self.fixups: list[tuple[int, str, str]] = []  # (index, field, label)
        self._stack: list[tuple[str, int]] = []      # open structured constructs
        self._loop_heads: list[tuple[int, str]] = []  # (while index, label of the loop's first instruction)

    @property
    def position(self) -> int:
        """Index the next instruction will have (what a label set now names)."""
        return len(self.insts)

    def label(self, name: str) -> int:
        """Name the next instruction; returns its index."""
        self.labels[name] = len(self.insts)
        return self.labels[name]

    def emit_instruction(self, inst: Instruction, target: str | None = None) -> Instruction:
        """Append an instruction built elsewhere (the backend's emitter), unchanged. A branch that names
        its target by label gets it resolved in program(): jmpi jumps there, halt's UIP is there (its JIP
        follows the block rule), while loops back to it. Other branches take their offsets from the
        structured-control-flow rules; other instructions take no target."""
        if target is not None:
            i = len(self.insts)
            if inst.opcode == "jmpi":
                self.fixups.append((i, "jmpi", target))
            elif inst.opcode == "halt":
                self.fixups.append((i, "uip", target))
            elif inst.opcode == "while":
                self._loop_heads.append((i, target))
            else:
                raise IsaError(f"{inst.opcode} takes no branch target")
        self.insts.append(inst)
        return inst

    def emit(self, opcode: str, dst: Operand | None = None, *srcs: Operand, n: int | None = None,
             **kw: Any) -> Instruction:
        n = n or self.simd
        for s in srcs:                    # explicit regions, as a decoder would produce them
            if s.file == RegFile.GRF and s.region is None and not kw.get("align16"):
                s.region = Region(0, 1, 0) if n == 1 else Region(min(n, 8), min(n, 8), 1)
        inst = Instruction(opcode, n, dst=dst, srcs=list(srcs), **kw)
        self.insts.append(inst)
        return inst

    def __getattr__(self, opcode: str) -> Callable[..., Instruction]:
        """b.add(dst, a, b, ...) for every opcode of the table (opcodes.py) without a method of its own."""
        if opcode not in OPCODES:
            raise AttributeError(opcode)
        return lambda dst, *srcs, **kw: self.emit(opcode, dst, *srcs, **kw)

    def math(self, fc: str, dst: Operand | None, *srcs: Operand, **kw: Any) -> Instruction:
        return self.emit("math", dst, *srcs, math_fc=fc, **kw)

    # structured control flow: offsets are filled in program()
    def if_(self, p: Predicate | None = None, n: int | None = None) -> None:
        self.emit("if", None, n=n, predicate=p)

    def else_(self, n: int | None = None) -> None:
        self.emit("else", None, n=n)

    def endif(self, n: int | None = None) -> None:
        self.emit("endif", None, n=n)

    def do(self) -> None:
        self._stack.append(("do", len(self.insts)))

    def while_(self, p: Predicate | None = None, n: int | None = None) -> None:
        if not self._stack:
            raise IsaError("while without a matching do")
        _, head = self._stack.pop()
        inst = self.emit("while", None, n=n, predicate=p)
        inst.options["_head"] = head

    def break_(self, p: Predicate | None = None, n: int | None = None) -> None:
        self.emit("break", None, n=n, predicate=p)

    def cont(self, p: Predicate | None = None, n: int | None = None) -> None:
        self.emit("cont", None, n=n, predicate=p)

    def halt(self, target: str, p: Predicate | None = None, n: int | None = None) -> None:
        self.emit("halt", None, n=n, predicate=p)
        self.fixups.append((len(self.insts) - 1, "uip", target))

    def jmpi(self, target: str, p: Predicate | None = None) -> None:
        self.emit("jmpi", None, n=1, predicate=p, mask_ctrl_we_all=True)
        self.fixups.append((len(self.insts) - 1, "jmpi", target))

    def goto(self, jip: str, uip: str, p: Predicate | None = None, n: int | None = None) -> None:
        self.emit("goto", None, n=n, predicate=p)
        self.fixups.append((len(self.insts) - 1, "jip", jip))
        self.fixups.append((len(self.insts) - 1, "uip", uip))

    def join(self, jip: str, n: int | None = None) -> None:
        self.emit("join", None, n=n)
        self.fixups.append((len(self.insts) - 1, "jip", jip))

    # ---- resolution -----------------------------------------------------------------------------
    def program(self) -> list[Instruction]:
        insts = self.insts
        for w, name in self._loop_heads:
            if name not in self.labels:
                raise IsaError(f"unknown label {name}")
            insts[w].options["_head"] = self.labels[name]
        # the branches alone are walked in Python: their positions are found in C, from the opcodes, the byte addresses
        # by model.layout, and the if-depth changes at branches only, so it is kept after each branch and, per depth,
        # the positions of the instructions that can end a block there: every search below is a bisection in one of
        # these lists instead of a scan over the instructions (one scan per if, break and endif made deep nesting
        # quadratic; a Python walk over every instruction was most of a kernel's resolution)
        ops = [inst.opcode for inst in insts]
        branches = list(compress(range(len(ops)), map(_RESOLVED.__contains__, ops)))
        addr = layout(insts)                         # and the end's, after the last instruction
        addr.append(addr[-1] + instruction_size(insts[-1]) if insts else 0)
        depth_after: dict[int, int] = {}             # a branch's position -> the if-depth after it
        endifs: dict[int, list[int]] = {}
        elses: dict[int, list[int]] = {}
        stops: dict[int, list[int]] = {}
        d = 0
        for j in branches:
            o = ops[j]
            if o in _BLOCK_ENDS:
                stops.setdefault(d, []).append(j)
                if o == "endif":
                    endifs.setdefault(d, []).append(j)
                    d -= 1
                elif o == "else":
                    elses.setdefault(d, []).append(j)
            elif o == "if":
                d += 1
            depth_after[j] = d
        at = addr.__getitem__

        def while_jumps_before(w: int, i: int) -> bool:
            return insts[w].options.get("_head", w) <= i

        def first_after(positions: list[int], i: int) -> int | None:
            k = bisect.bisect_right(positions, i)
            return positions[k] if k < len(positions) else None

        def next_block_end(i: int) -> int | None:
            """The first endif, else or halt after i at i's if-depth, or a while there that jumps back
            to i or before it."""
            level = stops.get(depth_after[i], [])
            k = bisect.bisect_right(level, i)
            while k < len(level):
                j = level[k]
                if ops[j] != "while" or while_jumps_before(j, i):
                    return j
                k += 1
            return None

        # position -> the first while after it that jumps to or before it, for each break and cont: the whiles
        # open at a position, innermost on top, walking the loop branches backwards (a while's head lies
        # before it, so one that jumps past a position is closed for every earlier one too)
        loop_of: dict[int, int] = {}
        open_loops: list[int] = []
        if any(ops[i] == "break" or ops[i] == "cont" for i in branches):     # (loop_end's only askers)
            for j in reversed(branches):
                o = ops[j]
                if o == "while":
                    open_loops.append(j)
                elif o == "break" or o == "cont":
                    while open_loops and insts[open_loops[-1]].options.get("_head", open_loops[-1]) > j:
                        open_loops.pop()
                    if open_loops:
                        loop_of[j] = open_loops[-1]

        def loop_end(i: int) -> int:
            if i in loop_of:
                return loop_of[i]
            raise IsaError(f"{ops[i]} at {i} is outside a loop")

        def matching(i: int) -> tuple[int | None, int]:
            level = depth_after[i]
            end = first_after(endifs.get(level, []), i)
            if end is None:
                raise IsaError(f"if at {i} has no endif")
            candidates = elses.get(level, [])
            k = bisect.bisect_left(candidates, end) - 1
            return (candidates[k] if k >= 0 and candidates[k] > i else None), end

        for i in branches:
            inst, o = insts[i], ops[i]
            if o == "if":
                els, end = matching(i)
                inst.jip = at(els + 1 if els is not None else end) - at(i)
                inst.uip = at(end) - at(i)
            elif o == "else":
                closing = first_after(endifs.get(depth_after[i], []), i)
                j = closing if closing is not None else len(insts) - 1
                inst.jip = inst.uip = at(j) - at(i)
            elif o == "endif":
                e = next_block_end(i)
                inst.jip = at(e) - at(i) if e is not None else at(i + 1) - at(i)
            elif o == "while":
                inst.jip = at(inst.options["_head"]) - at(i)
            elif o in ("break", "cont"):
                w = loop_end(i)
                e = next_block_end(i)
                inst.uip = at(w) - at(i)
                inst.jip = at(e) - at(i) if e is not None else inst.uip
        for i, fld, name in self.fixups:
            if name not in self.labels:
                raise IsaError(f"unknown label {name}")
            target = at(self.labels[name])
            if fld == "jmpi":
                insts[i].jip = target - at(i + 1)     # jmpi counts from the next instruction
            elif fld == "uip":
                insts[i].uip = target - at(i)
                if insts[i].opcode == "halt":
                    e = next_block_end(i)
                    insts[i].jip = at(e) - at(i) if e is not None else insts[i].uip
            else:
                setattr(insts[i], fld, target - at(i))
        for i in branches:                           # (only a while has a head: while_, emit_instruction)
            if ops[i] == "while":
                insts[i].options.pop("_head", None)
        return insts
