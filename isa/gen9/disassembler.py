"""Binary -> text in iga64's syntax: our output equals `iga64 -p=9 -d` character for character.

Labels `L<byte offset>:` start every basic block the way iga64 prints them: at offset 0, at every branch
target and after every branch or EOT send; branch operands name the label.  Columns are padded the way
iga64's formatter pads them (see _Columns).  Send messages get iga64's `// wr:..., rd:...; sfid; what`
comment for the messages sendmsg.py knows.
"""
from __future__ import annotations

from . import encoding as E
from . import fields as F
from . import opcodes
from .immediates import format_imm
from .model import VXH, DataType, Instruction, Operand, RegFile
from .sendmsg import describe

BRANCHES = opcodes.BRANCHES


def branch_targets(pc: int, inst: Instruction) -> list[int]:
    """Absolute byte targets of a branch instruction at pc (JIP first, then UIP)."""
    if inst.opcode == "jmpi":
        return [pc + 16 + inst.jip] if inst.jip is not None else []
    if inst.opcode in ("call", "calla"):
        return [inst.jip_bytes + (pc if inst.opcode == "call" else 0)]
    out = []
    if inst.opcode in F.BRANCH_JIP_UIP + F.BRANCH_JIP_ONLY and inst.jip is not None:
        out.append(pc + inst.jip)
    if inst.opcode in F.BRANCH_JIP_UIP and inst.uip is not None:
        out.append(pc + inst.uip)
    return out


def block_starts(items: list[tuple[int, Instruction, int]], end: int) -> set[int]:
    starts = {0}
    for pc, inst, n in items:
        if inst.opcode in BRANCHES or (inst.opcode in opcodes.SENDS_ALL and inst.eot):
            starts.add(pc + n)
            starts.update(branch_targets(pc, inst))
    pcs = {pc for pc, _, _ in items} | {end}
    return {s for s in starts if s in pcs}


def disassemble(data: bytes, labels: bool = True) -> str:
    """Text for a whole program (mixed compacted/native), one instruction per line.

    labels=False prints numeric branch offsets and no label lines, like `iga64 -n`.
    """
    items = E.walk(data)
    starts = block_starts(items, len(data)) if labels else set()
    lines = []
    for pc, inst, _ in items:
        if pc in starts:
            lines.append(f"L{pc}:")
        lines.append(format_instruction(inst, pc, starts))
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
    r = o.source_region
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


# Column layout of iga64's formatter (IGA Frontend/Formatter: a column is padded to its preferred
# width, an overflow becomes "debt" that later columns' padding pays back).  iga64 1.1.0's widths;
# immediate values and labels are written around the column bookkeeping, so they do not count.
_W_PRED, _W_OP, _W_FLAG, _W_DST, _W_SRC = 7, 13, 9, 12, 16
_W_SEND_DST, _W_SEND_SRC, _W_SEND_DESC = 7, 6, 10


class _Columns:
    def __init__(self):
        self.parts: list[str] = []
        self.debt = 0

    def raw(self, text: str) -> None:
        self.parts.append(text)

    def column(self, width: int, pieces: list[tuple[str, bool]]) -> None:
        """pieces: (text, counts toward the column width)."""
        self.parts.append("".join(t for t, _ in pieces))
        size = sum(len(t) for t, counted in pieces if counted)
        if size <= width:
            pad = width - size
            paid = min(self.debt, pad)
            self.debt -= paid
            self.parts.append(" " * (pad - paid))
        else:
            self.debt += size - width

    def text(self) -> str:
        return "".join(self.parts)


def _counted(text: str) -> list[tuple[str, bool]]:
    return [(text, True)]


def _src_pieces(o: Operand) -> list[tuple[str, bool]]:
    if o.file == RegFile.IMM:
        return [(format_imm(o.value, o.type), False), (":" + o.type.value, True)]
    return _counted(_a1_src(o))


def format_instruction(inst: Instruction, pc: int = 0, starts: set[int] | None = None) -> str:
    """One instruction laid out exactly as iga64 -p=9 -d prints it (without the leading label line);
    branch targets become labels when `starts` has them, else numeric offsets."""
    starts = starts or set()
    op = inst.opcode
    mnem = op + ("." + str(inst.math_fc) if op == "math" else "") + (".b" if inst.branch_ctrl else "")
    exec_info = "" if op in ("jmpi", "nop", "wait", "illegal") else f"({inst.exec_size}|M{inst.chan_offset})"
    cond = f"({inst.cond_mod})f{inst.flag_reg}.{inst.flag_subreg}" if inst.cond_mod else ""
    line = _Columns()
    line.column(_W_PRED, _counted(_pred_prefix(inst).strip()))
    line.raw(" ")
    line.column(_W_OP, _counted(f"{mnem} {exec_info}"))
    line.raw(" ")
    line.column(_W_FLAG, _counted(cond))

    send = op in opcodes.SENDS_ALL
    dst: list[tuple[str, bool]] | None = None
    srcs: list[list[tuple[str, bool]]] = []
    comment = None

    def label(target: int, rel: int) -> list[tuple[str, bool]]:
        return [(_target(pc, target, rel, starts), False)]

    if op == "jmpi":
        srcs = [_counted(_reg_text(inst.srcs[0]))] if inst.srcs else \
            [label(pc + 16 + inst.jip_bytes, inst.jip_bytes + 16)]
    elif op in ("call", "calla"):
        dst = _counted(_reg_text(inst.destination))
        srcs = [label(inst.jip_bytes + (pc if op == "call" else 0), inst.jip_bytes)]
    elif op == "ret":
        srcs = [_counted(_reg_text(inst.srcs[0]))]
    elif op == "wait":
        srcs = [_counted(_a1_src(inst.srcs[0]))]
    elif op in F.BRANCH_JIP_UIP:
        srcs = [label(pc + inst.jip_bytes, inst.jip_bytes), label(pc + inst.uip_bytes, inst.uip_bytes)]
    elif op in F.BRANCH_JIP_ONLY:
        srcs = [label(pc + inst.jip_bytes, inst.jip_bytes)]
    elif send:
        d = inst.destination            # iga64 shows a send's type unless it is :ud (a split send's always)
        suffix = f":{d.type.value}" if op in opcodes.SPLIT_SEND or d.type != DataType.UD else ""
        dst = _counted(_reg_text(d).split(".")[0] + suffix)
        srcs = [_counted(_reg_text(s).split(".")[0]) for s in inst.srcs]
        exmlen = (inst.ex_desc or 0) >> 6 & 0xF
        comment = describe(inst.sfid or 0, inst.desc or 0, exmlen)
    elif inst.dst is not None:
        d = inst.dst
        dst = _counted(f"{'(sat)' if inst.saturate else ''}{_reg_text(d)}<{d.hstride}>:{d.type.value}")
        if op in opcodes.THREE_SRC:
            srcs = [_counted(_t3_src(s, i)) for i, s in enumerate(inst.srcs)]
        else:
            srcs = [_src_pieces(s) for s in inst.srcs]

    opts = _options(inst)
    if dst is not None:
        line.raw("  ")
        line.column(_W_SEND_DST if send else _W_DST, dst)
    elif srcs or opts:
        line.raw(" " * _W_DST)
    if not srcs:
        if opts:
            line.raw(" " * _W_SRC)
    else:
        width = _W_SEND_SRC if send else _W_SRC
        for i, src in enumerate(srcs):
            line.raw("  ")
            line.column(width, src)
            if i == 0 and len(srcs) == 1 and not send:
                line.column(_W_SRC, [])          # at least two source columns, except for sends
    if send:
        exmlen = (inst.ex_desc or 0) >> 6 & 0xF
        line.raw("  ")
        line.column(_W_SEND_DESC, [(f"0x{(inst.sfid or 0) | inst.eot << 5 | exmlen << 6:X}", False)])
        line.raw("  ")
        line.column(_W_SEND_DESC, [(f"0x{inst.desc:08X}", False)])
    if opts:
        line.raw(" {" + ",".join(opts) + "}")
    if comment:
        line.raw(" // " + comment)
    return line.text()
