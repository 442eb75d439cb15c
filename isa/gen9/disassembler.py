"""Binary -> text in iga64's syntax, so that our output equals `iga64 -p=9 -d` up to whitespace.

Labels `L<byte offset>:` start every basic block the way iga64 prints them: at offset 0, at every branch
target and after every branch or EOT send; branch operands name the label.  Column padding is not
reproduced (tests compare whitespace-normalised text).
"""
from __future__ import annotations

from . import encoding as E
from . import fields as F
from .immediates import format_imm
from .model import VXH, Instruction, Operand, RegFile
from .sendmsg import describe

BRANCHES = F.BRANCH_JIP_UIP + F.BRANCH_JIP_ONLY + ("jmpi", "call", "calla", "ret")


def branch_targets(pc: int, inst: Instruction) -> list[int]:
    """Absolute byte targets of a branch instruction at pc (JIP first, then UIP)."""
    if inst.opcode == "jmpi":
        return [pc + 16 + inst.jip] if inst.jip is not None else []
    if inst.opcode in ("call", "calla"):
        return [inst.jip + (pc if inst.opcode == "call" else 0)]
    out = []
    if inst.opcode in F.BRANCH_JIP_UIP + F.BRANCH_JIP_ONLY and inst.jip is not None:
        out.append(pc + inst.jip)
    if inst.opcode in F.BRANCH_JIP_UIP and inst.uip is not None:
        out.append(pc + inst.uip)
    return out


def block_starts(items: list[tuple[int, Instruction, int]], end: int) -> set[int]:
    starts = {0}
    for pc, inst, n in items:
        if inst.opcode in BRANCHES or (inst.opcode in E.SEND_OPS + E.SENDS_OPS and inst.eot):
            starts.add(pc + n)
            starts.update(branch_targets(pc, inst))
    pcs = {pc for pc, _, _ in items} | {end}
    return {s for s in starts if s in pcs}


def disassemble(data: bytes, labels: bool = True) -> str:
    """Text for a whole program (mixed compacted/native), one instruction per line.

    labels=False prints numeric branch offsets and no label lines, like `iga64 -n`.
    """
    items, pc = [], 0
    while pc < len(data):
        n = E.instruction_length(data, pc)
        items.append((pc, E.decode(data[pc:pc + n]), n))
        pc += n
    starts = block_starts(items, len(data)) if labels else set()
    lines = []
    for pc, inst, n in items:
        if pc in starts:
            lines.append(f"L{pc}:")
        lines.append("        " + format_instruction(inst, pc, starts))
    if len(data) in starts and items:
        lines.append(f"L{len(data)}:")
    return "\n".join(lines) + "\n"


# ---------------------------------------------------------------------------------------------------


def _pred_prefix(inst: Instruction) -> str:
    parts = []
    p = inst.predicate
    if p is not None:
        s = f"{'~' if p.inverse else ''}f{p.flag_reg}.{p.flag_subreg}"
        if p.control:
            s += "." + p.control
        parts.append(s)
    if inst.mask_ctrl_we_all:
        parts.insert(0, "W")
    return f"({'&'.join(parts)}) " if parts else ""


def arf_name(reg: int) -> str:
    if reg in F.ARF_NAMES:
        return F.ARF_NAMES[reg]
    base = F.ARF_NAMES.get(reg & 0xF0, f"arf{reg >> 4}")
    return base.rstrip("0123456789") + str(reg & 0xF)


def _reg_text(o: Operand) -> str:
    if o.indirect:
        return f"r[a0.{o.addr_subreg}{',' + str(o.addr_imm) if o.addr_imm else ''}]"
    if o.file == RegFile.GRF:
        return f"r{o.reg}.{o.subreg}"
    name = arf_name(o.reg)
    if name in ("null", "ip", "ce"):
        return name
    return f"{name}.{o.subreg}"


def _mods(o: Operand) -> str:
    return ("-" if o.neg else "") + ("(abs)" if o.abs else "")


def _a1_src(o: Operand) -> str:
    if o.file == RegFile.IMM:
        return f"{format_imm(o.value, o.type)}:{o.type.value}"
    r = o.region
    region = f"<{r.width},{r.hstride}>" if r.vstride == VXH else f"<{r.vstride};{r.width},{r.hstride}>"
    return f"{_mods(o)}{_reg_text(o)}{region}:{o.type.value}"


def _t3_src(o: Operand, i: int) -> str:
    if i == 2:
        reg = "<0>" if o.rep_ctrl else "<1>"
    else:
        reg = "<0;0>" if o.rep_ctrl else "<2;1>"
    return f"{_mods(o)}{_reg_text(o)}{reg}:{o.type.value}"


def _options(inst: Instruction) -> list[str]:
    opts = []
    if inst.acc_wr_en:
        opts.append("AccWrEn")
    if inst.thread_ctrl == "atomic":
        opts.append("Atomic")
    if inst.debug:
        opts.append("Breakpoint")
    if inst.compacted:
        opts.append("Compacted")
    if inst.eot:
        opts.append("EOT")
    if inst.no_dd_chk:
        opts.append("NoDDChk")
    if inst.no_dd_clr:
        opts.append("NoDDClr")
    if inst.thread_ctrl == "switch":
        opts.append("Switch")
    return sorted(opts)


def _target(pc: int, target: int, rel: int, starts: set[int]) -> str:
    return f"L{target}" if target in starts else str(rel)


def format_instruction(inst: Instruction, pc: int = 0, starts: set[int] | None = None) -> str:
    """One instruction in IGA syntax; branch targets become labels when `starts` has them."""
    starts = starts or set()
    op = inst.opcode
    mnem = op
    if op == "math":
        mnem += "." + inst.math_fc
    if inst.branch_ctrl:
        mnem += ".b"
    toks = [_pred_prefix(inst) + mnem]
    if op not in ("jmpi", "nop", "wait", "illegal"):
        toks.append(f"({inst.exec_size}|M{inst.chan_offset})")
    if inst.cond_mod:
        toks.append(f"({inst.cond_mod})f{inst.flag_reg}.{inst.flag_subreg}")
    comment = None
    if op == "jmpi":
        if inst.srcs:
            toks.append(_reg_text(inst.srcs[0]))
        else:
            t = pc + 16 + inst.jip
            toks.append(_target(pc, t, inst.jip + 16, starts))
    elif op in ("call", "calla"):
        t = inst.jip + (pc if op == "call" else 0)
        toks += [_reg_text(inst.dst), _target(pc, t, inst.jip, starts)]
    elif op == "ret":
        toks.append(_reg_text(inst.srcs[0]))
    elif op == "wait":
        toks.append(_a1_src(inst.srcs[0]))
    elif op in F.BRANCH_JIP_UIP:
        toks.append(_target(pc, pc + inst.jip, inst.jip, starts))
        toks.append(_target(pc, pc + inst.uip, inst.uip, starts))
    elif op in F.BRANCH_JIP_ONLY:
        toks.append(_target(pc, pc + inst.jip, inst.jip, starts))
    elif op in E.SEND_OPS + E.SENDS_OPS:
        d = inst.dst
        split = op in E.SENDS_OPS
        toks.append(_reg_text(d).split(".")[0] + (":ud" if split else ""))
        toks += [_reg_text(s).split(".")[0] for s in inst.srcs]
        exmlen = (inst.ex_desc or 0) >> 6 & 0xF
        toks.append(f"0x{(inst.sfid or 0) | inst.eot << 5 | exmlen << 6:X}")
        toks.append(f"0x{inst.desc:08X}")
        comment = describe(inst.sfid or 0, inst.desc or 0, exmlen)
    elif inst.dst is not None:
        d = inst.dst
        sat = "(sat)" if inst.saturate else ""
        toks.append(f"{sat}{_reg_text(d)}<{d.hstride}>:{d.type.value}")
        if op in E.THREE_SRC_OPS:
            toks += [_t3_src(s, i) for i, s in enumerate(inst.srcs)]
        else:
            toks += [_a1_src(s) for s in inst.srcs]
    opts = _options(inst)
    if opts:
        toks.append("{" + ",".join(opts) + "}")
    if comment:
        toks.append("// " + comment)
    return " ".join(toks)
