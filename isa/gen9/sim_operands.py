"""Where an instruction's operands, predicate and condition flags live: the decoding both Gen simulators use.

Why one module: the one-thread reference (simulator.Thread) and the batched engine (sim_batch_ops) must read
the same bytes for the same operand; each turns these offsets and indices into its own access (a byte index
into one thread's registers, or element columns of every thread's). The model is simulator.py's docstring.
"""
from __future__ import annotations

import numpy as np

from .model import Instruction, Operand, Predicate, RegFile
from .registers import (
    ARF_ACC,
    ARF_ADDRESS,
    ARF_CONTROL,
    ARF_FLAG,
    ARF_IP,
    ARF_MASK,
    ARF_NOTIFICATION,
    ARF_NULL,
    ARF_STATE,
    ARF_TIMESTAMP,
    GRF_SIZE,
    NUM_GRF,
)


class SimulationError(Exception):
    """The program did something the simulator cannot execute (bad address, unmodelled form, hang)."""


# what an ARF operand is, for the simulators: "zero" reads 0 and drops writes (null, state, control,
# notification, ip), "acc" the per-element accumulator, "mask" ce0, "timestamp" the thread's step count,
# "flag" and "address" byte storage (direct_storage); None: a GRF or an immediate
_ARF_KINDS = {ARF_NULL: "zero", ARF_STATE: "zero", ARF_CONTROL: "zero", ARF_NOTIFICATION: "zero", ARF_IP: "zero",
              ARF_ACC: "acc", ARF_MASK: "mask", ARF_TIMESTAMP: "timestamp", ARF_FLAG: "flag",
              ARF_ADDRESS: "address"}


def arf_kind(op: Operand) -> str | None:
    if op.file != RegFile.ARF:
        return None
    return _ARF_KINDS.get(op.reg & 0xF0, "other")


def source_offsets(op: Operand, n: int, align16: bool) -> np.ndarray:
    """Byte offsets of a direct source's n elements from its first: the Align1 region <v;w,h> (none: one
    element, or consecutive ones), or the Align16 swizzle (replicated: every lane the first)."""
    size = op.type.size
    i = np.arange(n)
    if align16:
        if op.rep_ctrl:
            return np.zeros(n, np.int64)
        swz = np.array(["xyzw".index(c) for c in (op.swizzle or "xyzw")], np.int64)
        return ((i // 4) * 4 + swz[i % 4]) * size
    r = op.region
    if r is None:
        return np.zeros(n, np.int64) if n == 1 else i * size
    width = max(1, r.width)
    return ((i // width) * r.vstride + (i % width) * r.hstride) * size


def dest_offsets(op: Operand, n: int, align16: bool) -> tuple[np.ndarray, np.ndarray | None]:
    """(byte offsets of a destination's n elements from its first, the lanes its Align16 writemask keeps or
    None): Align1 steps by the destination's horizontal stride, Align16 by one element."""
    size = op.type.size
    i = np.arange(n)
    if align16:
        return i * size, np.array(["xyzw"[k] in (op.writemask or "xyzw") for k in range(4)])[i % 4]
    return i * max(op.hstride, 0) * size, None


def acc_index(op: Operand, element_offsets: np.ndarray) -> np.ndarray:
    """Accumulator elements of an acc operand's lanes (acc0 and acc1 are elements 0-7 and 8-15 of 64)."""
    return ((op.reg & 0xF) * 8 + op.subreg + element_offsets) % 64


def direct_storage(op: Operand) -> tuple[str, int, int]:
    """(storage name "grf", "flag" or "a0", base byte offset, storage size) of a direct register operand."""
    size = op.type.size
    if op.file == RegFile.GRF:
        if not 0 <= op.reg < NUM_GRF:
            raise SimulationError(f"register r{op.reg} out of range")
        return "grf", op.reg * GRF_SIZE + op.subreg * size, NUM_GRF * GRF_SIZE
    kind = arf_kind(op)
    if kind == "flag":
        return "flag", (op.reg & 0xF) * 4 + op.subreg * size, 8
    if kind == "address":
        return "a0", op.subreg * size, 32
    raise SimulationError(f"operand {op.file.value} {op.reg:#x} has no byte storage")


def check_a0(subreg: int) -> None:
    if not 0 <= subreg < 16:
        raise SimulationError(f"a0.{subreg} out of range")


def _pred_group(control: str) -> tuple[str, int] | None:
    """("any"|"all", group size) for any/all predicate controls; None for a normal predicate."""
    if not control:
        return None
    if control in ("anyv", "allv"):
        return control[:3], 4
    kind, size = control[:3], control[3:].rstrip("h")
    if kind not in ("any", "all") or not size.isdigit():
        raise SimulationError(f"unknown predicate control {control!r}")
    return kind, int(size)


def predicate_bits(pred: Predicate, inst: Instruction) -> tuple[str | None, np.ndarray]:
    """(None, the flag bit of each channel) for a normal predicate; ("any"|"all", [channels, group] bits)
    for a grouped one, each channel reading its group's bits (a scalar jmpi: channel M's group). Flag bits
    are numbered f0.0 0-15, f0.1 16-31, f1.0 32-47, f1.1 48-63."""
    n, m = inst.exec_size, inst.chan_offset
    base = pred.flag_reg * 32 + pred.flag_subreg * 16
    ch = m + np.arange(n)
    grp = _pred_group(pred.control)
    if grp is None:
        bits = base + ch
        kind = None
    else:
        kind, size = grp
        if n == 1 and inst.opcode == "jmpi":
            ch = np.array([m])
        bits = base + ((ch // size) * size)[:, None] + np.arange(size)
    if bits.max() >= 64:
        raise SimulationError("predicate reads past f1")
    return kind, bits


def condition_bits(inst: Instruction) -> slice:
    """The flag bits a conditional modifier writes: one per channel of the instruction."""
    first = inst.flag_reg * 32 + inst.flag_subreg * 16 + inst.chan_offset
    if first + inst.exec_size > 64:
        raise SimulationError("conditional modifier writes past f1")
    return slice(first, first + inst.exec_size)
