"""The machine IR as text (what `--emit gen-mir` will print): one instruction per line, close to iga64's
syntax with %vN for virtual registers; deterministic."""
from __future__ import annotations

from .mir import Imm, MFunction, MInstr, Operand, PReg, VReg


def operand_text(op: Operand) -> str:
    v = op.value
    if isinstance(v, Imm):
        return str(v)
    mods = ("-" if op.neg else "") + ("(abs)" if op.abs else "")
    at = f"+{op.offset}" if op.offset else ""
    region = "" if op.region is None else f"<{op.region.vstride};{op.region.width},{op.region.hstride}>"
    name = f"%v{v.id}{'.u' if v.uniform else ''}" if isinstance(v, VReg) else f"r{v.reg}.{v.subreg}"
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
    parts = [operand_text(o) for o in ([ins.dst] if ins.dst is not None else []) + ins.srcs]
    if ins.sfid is not None:
        parts.append(f"sfid 0x{ins.sfid:X} desc 0x{ins.desc or 0:08X}")
    parts += ins.targets
    options = [o for o, on in (("NoMask", ins.no_mask), ("EOT", ins.eot)) if on]
    text = f"{pred}{name} ({ins.exec_size}) " + ", ".join(parts)
    return text + (f" {{{', '.join(options)}}}" if options else "")


def print_mfunction(func: MFunction) -> str:
    out = [f"gen function {func.name} SIMD{func.simd} ({len(func.vregs)} virtual registers)"]
    for b in func.blocks:
        out.append(f"{b.label}:")
        out += [f"  {instruction_text(i)}" for i in b.instrs]
    return "\n".join(out) + "\n"
