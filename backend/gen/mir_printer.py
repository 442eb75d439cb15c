"""The machine IR as text (what `--emit gen-mir` prints): one instruction per line, close to iga64's
syntax with %vN for virtual registers; deterministic, and lossless: mir_parser.py reads it back to an
equal function (a missing destination prints as `null`, a register's elements per lane as `*N`, a split
send's extended descriptor as `exdesc` and the private or __local object it may touch as `object KIND KEY
SIZE` (isel_memory._tag_object), a NaN immediate by its bits, and a `reg` line declares each
register whose first appearance does not show its own type and shape: one used only through views, or
never used)."""
from __future__ import annotations

import math
import struct

from .mir import Imm, MFunction, MInstr, Operand, PReg, VReg


def vreg_name(v: VReg) -> str:
    return f"%v{v.id}{'.u' if v.uniform else ''}{f'*{v.count}' if v.count != 1 else ''}"


def operand_text(op: Operand) -> str:
    v = op.value
    if isinstance(v, Imm):
        if isinstance(v.value, float) and math.isnan(v.value):       # str() would drop the payload
            return f"nan(0x{struct.unpack('<Q', struct.pack('<d', v.value))[0]:016X}):{v.type.value}"
        return str(v)
    mods = ("-" if op.neg else "") + ("(abs)" if op.abs else "")
    at = f"+{op.offset}" if op.offset else ""
    region = "" if op.region is None else f"<{op.region.vstride};{op.region.width},{op.region.hstride}>"
    name = vreg_name(v) if isinstance(v, VReg) else f"r{v.reg}.{v.subreg}"
    assert isinstance(v, (VReg, PReg))
    return f"{mods}{name}{at}{region}:{v.type.value}"


def instruction_text(ins: MInstr) -> str:
    pred = ""
    if ins.predicate is not None:
        f, sub, inv = ins.predicate
        pred = f"({'~' if inv else ''}f{f}.{sub}{'.' + ins.pred_control if ins.pred_control else ''}) "
    name = ins.opcode + (f".{ins.math_fc}" if ins.math_fc else "")
    if ins.cond_mod:
        name += f".{ins.cond_mod}.f{ins.flag[0]}.{ins.flag[1]}"
    parts = [operand_text(o) for o in ins.srcs]
    if ins.dst is not None or parts:
        parts.insert(0, "null" if ins.dst is None else operand_text(ins.dst))
    if ins.sfid is not None:
        parts.append(f"sfid 0x{ins.sfid:X} desc 0x{ins.desc or 0:08X}"
                     + (f" exdesc 0x{ins.ex_desc:08X}" if ins.ex_desc is not None else "")
                     + (" object {} {} {}".format(*(("-" if x is None else x) for x in ins.bounds))
                        if ins.bounds is not None else ""))
    parts += ins.targets
    options = [o for o, on in (("NoMask", ins.no_mask), ("EOT", ins.eot)) if on]
    text = f"{pred}{name} ({ins.exec_size})" + (" " + ", ".join(parts) if parts else "")
    return text + (f" {{{', '.join(options)}}}" if options else "")


def declarations(func: MFunction) -> list[VReg]:
    """The registers whose first appearance (in printed order) is not the register itself."""
    first: dict[int, VReg] = {}
    for b in func.blocks:
        for ins in b.instrs:
            for op in ([ins.dst] if ins.dst is not None else []) + ins.srcs:
                if isinstance(op.value, VReg):
                    first.setdefault(op.value.id, op.value)
    return [v for v in func.vregs.values() if first.get(v.id) != v]


def print_mfunction(func: MFunction) -> str:
    out = [f"gen function {func.name} SIMD{func.simd} ({len(func.vregs)} virtual registers)"]
    out += [f"reg {vreg_name(v)}:{v.type.value}" for v in declarations(func)]
    for b in func.blocks:
        out.append(f"{b.label}:")
        out += [f"  {instruction_text(i)}" for i in b.instrs]
    return "\n".join(out) + "\n"
