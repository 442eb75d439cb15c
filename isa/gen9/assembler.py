"""Text in iga64's syntax (as `iga64 -p=9 -d` prints it) -> Instructions -> bytes.

Two passes: parse every line into an Instruction (branch operands kept as label names or numbers),
lay the program out (compacted instructions take 8 bytes), then resolve labels into byte offsets and
encode.  Numeric branch operands are relative to the branch itself, as iga64 writes them (for jmpi the
hardware field is that value minus 16, since the hardware counts from the next instruction).
"""
from __future__ import annotations

import re
from dataclasses import dataclass, field

from . import encoding as E
from . import fields as F
from . import opcodes
from .errors import IsaError
from .immediates import parse_imm
from .model import VXH, DataType, Instruction, Operand, Predicate, RegFile, Region

_OPTIONS = {"AccWrEn", "Atomic", "Breakpoint", "Compacted", "EOT", "NoDDChk", "NoDDClr", "Switch",
            "NoCompact"}
_LABEL_RE = re.compile(r"^([A-Za-z_$][\w$.]*):")
_PRED_RE = re.compile(r"^\((W)?(?:&?(~)?f([01])\.([01])(?:\.(\w+))?)?\)$")
_EXEC_RE = re.compile(r"^\((\d+)(?:\|M(\d+))?\)$")
_COND_RE = re.compile(r"^\((eq|ne|gt|ge|lt|le|ov|un|z|nz|g|l)\)f([01])\.([01])$")
_REG_RE = re.compile(
    r"^(?P<mods>-?(?:\(abs\))?)(?P<name>r\d+|null|acc\d+|f[01]|a0|sr0|cr0|n0|ip|ce|tm0|tdr0|sp|msg0"
    r"|r\[a0\.\d+(?:,\s*-?\d+)?\])"
    r"(?:\.(?P<sub>\d+))?(?P<region><[^>]*>)?(?::(?P<type>\w+))?$")
_COND_ALIASES = {"z": "eq", "nz": "ne", "g": "gt", "l": "lt"}
# ops whose (sat) or conditional modifier iga64 1.1.0 accepts but does not encode (the opcode table)
NO_SAT_OPS = frozenset(opcodes.NO_SATURATE)
NO_COND_MOD_OPS = frozenset(opcodes.NO_COND_MOD)


@dataclass
class _Pending:
    inst: Instruction
    line: int
    targets: list = field(default_factory=list)   # label names or ints, in IGA operand order
    no_compact: bool = False
    compact: bytes | None = None      # the 8-byte form, once known


class _Ctx:
    def __init__(self, filename: str):
        self.filename = filename
        self.line = 0

    def err(self, msg: str) -> IsaError:
        return IsaError(f"{self.filename}:{self.line}: {msg}")


def _split_operands(text: str) -> list[str]:
    """Whitespace-separated tokens, keeping <...> and (...) groups together."""
    toks, cur, depth = [], "", 0
    for ch in text:
        if ch in "<(":
            depth += 1
        elif ch in ">)":
            depth -= 1
        if ch.isspace() and depth == 0:
            if cur:
                toks.append(cur)
            cur = ""
        else:
            cur += ch
    if cur:
        toks.append(cur)
    return toks


def _dtype(ctx: _Ctx, t: str | None, default: str | None = None) -> DataType:
    t = (t or default or "").lower()
    try:
        return DataType(t)
    except ValueError:
        raise ctx.err(f"unknown type ':{t}'") from None


_IND_RE = re.compile(r"^r\[a0\.(\d+)(?:,\s*(-?\d+))?\]$")


def _set_indirect(ctx: _Ctx, op: Operand, name: str) -> Operand:
    m = _IND_RE.match(name)
    if m:
        op.indirect, op.addr_subreg, op.addr_imm = True, int(m.group(1)), int(m.group(2) or 0)
        if op.addr_subreg > 15 or not -512 <= op.addr_imm < 512:
            raise ctx.err(f"indirect address '{name}' out of range")
    return op


def _reg_fields(ctx: _Ctx, name: str, sub: str | None, t: DataType) -> tuple[RegFile, int, int]:
    if name.startswith("r["):
        if sub is not None:
            raise ctx.err(f"malformed indirect register '{name}.{sub}'")
        return RegFile.GRF, 0, 0
    subreg = int(sub) if sub is not None else 0
    if name.startswith("r") and name[1:].isdigit():
        reg = int(name[1:])
        if reg > 127:
            raise ctx.err(f"register {name} out of range")
        if (subreg + 1) * t.size > 32:
            raise ctx.err(f"subregister {name}.{subreg} out of range for :{t.value}")
        return RegFile.GRF, reg, subreg
    if name in F.ARF:
        return RegFile.ARF, F.ARF[name], subreg
    m = re.fullmatch(r"(acc|f)(\d+)", name)
    if m:
        base = F.ARF["acc0" if m.group(1) == "acc" else "f0"]
        return RegFile.ARF, base + int(m.group(2)), subreg
    raise ctx.err(f"unknown register '{name}'")


def _parse_region(ctx: _Ctx, text: str) -> tuple[int, ...]:
    try:
        return tuple(int(x) for x in re.split(r"[;,]", text[1:-1]))
    except ValueError:
        raise ctx.err(f"malformed region '{text}'") from None


def _parse_dst(ctx: _Ctx, tok: str, inst: Instruction) -> Operand:
    if tok.startswith("(sat)"):
        inst.saturate = True
        tok = tok[5:]
    m = _REG_RE.match(tok)
    if not m or m.group("mods"):
        raise ctx.err(f"malformed destination '{tok}'")
    t = _dtype(ctx, m.group("type"), "ud")
    file, reg, sub = _reg_fields(ctx, m.group("name"), m.group("sub"), t)
    hs = 1
    if m.group("region"):
        r = _parse_region(ctx, m.group("region"))
        if len(r) != 1 or r[0] not in F.HSTRIDE:
            raise ctx.err(f"bad destination region '{m.group('region')}'")
        hs = r[0]
    return _set_indirect(ctx, Operand(file, t, reg=reg, subreg=sub, hstride=hs), m.group("name"))


def _parse_imm(ctx: _Ctx, tok: str) -> Operand | None:
    if ":" not in tok:
        return None
    val, _, t = tok.rpartition(":")
    if not re.match(r"^-?(\d|0x|inf|qnan|snan|\.)", val, re.I):
        return None
    ty = _dtype(ctx, t)
    if ty in (DataType.UB, DataType.B):
        raise ctx.err(f"byte immediates are not allowed ('{tok}')")
    try:
        return Operand(RegFile.IMM, ty, value=parse_imm(val, ty))
    except ValueError as e:
        raise ctx.err(f"bad immediate '{tok}': {e}") from None


def _parse_src(ctx: _Ctx, tok: str, three_src: bool = False, index: int = 0) -> Operand:
    imm = _parse_imm(ctx, tok)
    if imm is not None:
        if three_src:
            raise ctx.err("three-source instructions take no immediates on Gen9")
        return imm
    m = _REG_RE.match(tok)
    if not m:
        raise ctx.err(f"malformed source operand '{tok}'")
    mods = m.group("mods")
    t = _dtype(ctx, m.group("type"), "ud")
    file, reg, sub = _reg_fields(ctx, m.group("name"), m.group("sub"), t)
    op = Operand(file, t, reg=reg, subreg=sub, neg=mods.startswith("-"), abs="(abs)" in mods)
    _set_indirect(ctx, op, m.group("name"))
    r = _parse_region(ctx, m.group("region")) if m.group("region") else None
    if three_src:
        op.rep_ctrl = r is not None and all(x == 0 for x in r)
        return op
    if r is None:   # iga64's defaults: r11.0:f is a scalar <0;1,0>, r11:f a packed vector <1;1,0>
        r = (0, 1, 0) if m.group("sub") is not None or op.indirect else (1, 1, 0)
    if op.indirect and len(r) == 2:
        if r[0] not in F.WIDTH or r[1] not in F.HSTRIDE:
            raise ctx.err(f"bad source region '{m.group('region')}'")
        op.region = Region(VXH, *r)
        return op
    if len(r) != 3 or r[0] not in F.VSTRIDE or r[1] not in F.WIDTH or r[2] not in F.HSTRIDE:
        raise ctx.err(f"bad source region '{m.group('region')}'")
    op.region = Region(*r)
    return op


def _parse_target(ctx: _Ctx, tok: str):
    if re.fullmatch(r"-?(0x[0-9a-fA-F]+|\d+)(:d)?", tok):
        return int(tok.split(":")[0], 0)
    if re.fullmatch(r"[A-Za-z_$][\w$.]*", tok):
        return tok
    raise ctx.err(f"bad branch target '{tok}'")


def _parse_line(ctx: _Ctx, text: str) -> _Pending:
    body = text
    opts: list[str] = []
    m = re.search(r"\{([^}]*)\}\s*$", body)
    if m:
        opts = [o.strip() for o in m.group(1).split(",") if o.strip()]
        body = body[:m.start()]
    toks = _split_operands(body)
    if not toks:
        raise ctx.err("empty instruction")
    inst = Instruction(opcode="nop")
    pred = None
    if toks[0].startswith("("):
        pm = _PRED_RE.match(toks.pop(0))
        if not pm or not toks:
            raise ctx.err("malformed predicate")
        inst.mask_ctrl_we_all = bool(pm.group(1))
        if pm.group(3) is not None:
            ctrl = pm.group(5) or ""
            if ctrl not in F.PRED_CTRL:
                raise ctx.err(f"unknown predicate control '.{ctrl}'")
            pred = Predicate(int(pm.group(3)), int(pm.group(4)), bool(pm.group(2)), ctrl)
    mnem = toks.pop(0)
    op, _, sub = mnem.partition(".")
    if op not in F.OPCODES:
        raise ctx.err(f"unknown mnemonic '{mnem}'")
    inst.opcode = op
    if op == "math":
        if sub not in F.MATH_FC:
            raise ctx.err(f"unknown math function '{mnem}'")
        inst.math_fc = sub
    elif sub == "b" and op in ("else", "goto", "join", "brc", "if"):
        inst.branch_ctrl = True
    elif sub:
        raise ctx.err(f"unknown subfunction '{mnem}'")
    inst.predicate = pred
    es_given = False
    if toks and _EXEC_RE.match(toks[0]):
        em = _EXEC_RE.match(toks.pop(0))
        assert em is not None                  # matched just above
        inst.exec_size, inst.chan_offset = int(em.group(1)), int(em.group(2) or 0)
        es_given = True
        if inst.exec_size not in F.EXEC_SIZE:
            raise ctx.err(f"bad execution size {inst.exec_size}")
        if inst.chan_offset % 4 or inst.chan_offset > 28:
            raise ctx.err(f"bad channel offset M{inst.chan_offset}")
    elif op in ("jmpi", "nop", "wait", "illegal"):
        inst.exec_size = 1
    else:
        raise ctx.err(f"{op}: missing execution size")
    if toks and _COND_RE.match(toks[0]):
        cm = _COND_RE.match(toks.pop(0))
        assert cm is not None                  # matched just above
        inst.cond_mod = _COND_ALIASES.get(cm.group(1), cm.group(1))
        inst.flag_reg, inst.flag_subreg = int(cm.group(2)), int(cm.group(3))
        if pred and (pred.flag_reg, pred.flag_subreg) != (inst.flag_reg, inst.flag_subreg):
            raise ctx.err("predicate and conditional modifier must use the same flag register")
    elif pred:
        inst.flag_reg, inst.flag_subreg = pred.flag_reg, pred.flag_subreg
    for o in opts:
        if o not in _OPTIONS:
            raise ctx.err(f"unknown instruction option '{o}'")
    inst.acc_wr_en = "AccWrEn" in opts
    inst.debug = "Breakpoint" in opts
    inst.compacted = "Compacted" in opts
    inst.no_dd_chk, inst.no_dd_clr = "NoDDChk" in opts, "NoDDClr" in opts
    inst.thread_ctrl = "atomic" if "Atomic" in opts else ("switch" if "Switch" in opts else None)
    pend = _Pending(inst, ctx.line, no_compact="NoCompact" in opts)
    _parse_operands(ctx, pend, toks, "EOT" in opts, es_given)
    return pend


def _expect(ctx: _Ctx, toks: list[str], n: int, what: str) -> None:
    if len(toks) != n:
        raise ctx.err(f"{what} expects {n} operand{'s' if n != 1 else ''}, got {len(toks)}")


def _parse_operands(ctx: _Ctx, pend: _Pending, toks: list[str], eot: bool, es_given: bool) -> None:
    inst, op = pend.inst, pend.inst.opcode
    if eot and op not in opcodes.SENDS_ALL:
        raise ctx.err("EOT is only valid on send")
    if op in ("nop", "illegal"):
        _expect(ctx, toks, 0, op)
    elif op in ("call", "calla"):
        _expect(ctx, toks, 2, op)
        inst.dst = _parse_dst(ctx, toks[0] if ":" in toks[0] else toks[0] + ":d", inst)
        pend.targets = [_parse_target(ctx, toks[1])]
    elif op == "ret":
        _expect(ctx, toks, 1, op)
        text, _, ty = toks[0].partition(":")
        src = _parse_src(ctx, (text if "<" in text else text + "<2;2,1>") + ":" + (ty or "d"))
        inst.srcs = [src]
    elif op == "wait":
        _expect(ctx, toks, 1, op)
        inst.srcs = [_parse_src(ctx, toks[0])]
        s0 = inst.srcs[0]
        inst.dst = Operand(s0.file, s0.type, reg=s0.reg, subreg=s0.subreg)
    elif op == "jmpi":
        _expect(ctx, toks, 1, op)
        inst.mask_ctrl_we_all = True
        if re.match(r"^r\d+", toks[0]):
            m = _REG_RE.match(toks[0])
            if not m:
                raise ctx.err(f"bad jmpi operand '{toks[0]}'")
            _, reg, sub = _reg_fields(ctx, m.group("name"), m.group("sub"), DataType.D)
            inst.srcs = [Operand(RegFile.GRF, DataType.D, reg=reg, subreg=sub, region=Region(0, 1, 0))]
        else:
            pend.targets = [_parse_target(ctx, toks[0])]
    elif op in F.BRANCH_JIP_UIP:
        if len(toks) == 1:
            toks = toks * 2
        _expect(ctx, toks, 2, op)
        pend.targets = [_parse_target(ctx, t) for t in toks]
    elif op in F.BRANCH_JIP_ONLY:
        _expect(ctx, toks, 1, op)
        pend.targets = [_parse_target(ctx, toks[0])]
    elif op in opcodes.SENDS_ALL:
        split = op in opcodes.SPLIT_SEND
        if inst.cond_mod:
            raise ctx.err(f"{op} takes no conditional modifier")
        if inst.acc_wr_en:
            raise ctx.err(f"{op} takes no AccWrEn")
        inst.no_dd_clr = inst.no_dd_chk = False    # iga64 1.1.0 silently drops NoDDClr/NoDDChk on sends
        _expect(ctx, toks, 5 if split else 4, op)
        regs = []
        for tok in toks[:-2]:
            m = _REG_RE.match(tok)
            if not m or m.group("mods") or m.group("region"):
                raise ctx.err(f"bad send operand '{tok}'")
            file, reg, _ = _reg_fields(ctx, m.group("name"), None, DataType.UD)
            regs.append(Operand(file, DataType.UD, reg=reg))
        try:
            ex_desc, desc = int(toks[-2], 0), int(toks[-1], 0)
        except ValueError:
            raise ctx.err("send descriptors must be integers") from None
        if desc >> 31 or ex_desc >> 10 or (not split and ex_desc >> 6):
            raise ctx.err("send descriptor out of range")
        inst.dst, inst.srcs = regs[0], regs[1:]
        inst.eot = eot or bool(ex_desc >> 5 & 1)
        inst.sfid, inst.desc, inst.ex_desc = ex_desc & 0xF, desc, (ex_desc & 0x3CF) | (inst.eot << 5)
    elif op in opcodes.THREE_SRC:
        _expect(ctx, toks, 4, op)
        inst.align16 = True
        inst.dst = _parse_dst(ctx, toks[0], inst)
        inst.dst.hstride = 1
        _drop_unencoded(inst)
        if inst.exec_size == 1:
            inst.dst.writemask = "x"    # how Align16 expresses SIMD1 (see encoding)
        inst.srcs = [_parse_src(ctx, t, True, i) for i, t in enumerate(toks[1:])]
    else:
        n = opcodes.num_srcs(op, inst.math_fc)
        _expect(ctx, toks, n + 1, f"{op}{'.' + inst.math_fc if inst.math_fc else ''}")
        inst.dst = _parse_dst(ctx, toks[0], inst)
        inst.srcs = [_parse_src(ctx, t) for t in toks[1:]]
        _drop_unencoded(inst)
        for i, s in enumerate(inst.srcs):
            if s.file == RegFile.IMM and i != len(inst.srcs) - 1:
                raise ctx.err(f"{op}: only the last source may be an immediate")


def _drop_unencoded(inst: Instruction) -> None:
    """iga64 1.1.0 silently drops (sat) and a conditional modifier where the opcode has none (its flag
    register stays); do the same, to stay bit-exact with it."""
    if inst.opcode in NO_SAT_OPS:
        inst.saturate = False
    if inst.opcode in NO_COND_MOD_OPS and inst.opcode != "math":
        inst.cond_mod = None


def _strip_comment(line: str) -> str:
    """Drop `// ...` and single-line `/* ... */` comments (iga64 -Xprint-pc writes the latter)."""
    line = re.sub(r"/\*.*?\*/", " ", line)
    i = line.find("//")
    return line if i < 0 else line[:i]


def parse(text: str, filename: str = "<asm>", autocompact: bool = False
          ) -> tuple[list[_Pending], dict[str, int]]:
    ctx = _Ctx(filename)
    pend: list[_Pending] = []
    labels: dict[str, int] = {}
    label_at: list[tuple[str, int, int]] = []   # (name, instruction index, line)
    for ctx.line, raw in enumerate(text.splitlines(), 1):
        line = _strip_comment(raw).strip()
        while True:
            m = _LABEL_RE.match(line)
            if not m:
                break
            if m.group(1) in {n for n, _, _ in label_at}:
                raise ctx.err(f"label '{m.group(1)}' defined twice")
            label_at.append((m.group(1), len(pend), ctx.line))
            line = line[m.end():].strip()
        if line:
            pend.append(_parse_line(ctx, line))
    if autocompact:   # like iga64 -Xautocompact: compact every instruction the tables can express
        for p in pend:
            if not p.targets and not p.inst.compacted and not p.no_compact:
                ctx.line = p.line
                try:
                    p.compact = E.try_compact(E.encode(p.inst), drop_nib_ctrl=True)
                    p.inst.compacted = p.compact is not None
                except IsaError as e:
                    raise ctx.err(str(e)) from None
    # lay out
    pcs, pc = [], 0
    for p in pend:
        pcs.append(pc)
        if p.inst.compacted:
            if p.targets:
                ctx.line = p.line
                raise ctx.err(f"{p.inst.opcode} cannot be compacted")
            try:
                small = p.compact or E.try_compact(E.encode(p.inst), drop_nib_ctrl=autocompact)
            except IsaError as e:
                ctx.line = p.line
                raise ctx.err(str(e)) from None
            if small is None:
                ctx.line = p.line
                raise ctx.err("instruction cannot be compacted")
            p.compact = small
        pc += 8 if p.inst.compacted else 16
    pcs.append(pc)
    for name, idx, _ in label_at:
        labels[name] = pcs[idx]
    for p, at in zip(pend, pcs):
        _resolve(ctx, p, at, labels)
    return pend, labels


def _resolve(ctx: _Ctx, p: _Pending, pc: int, labels: dict[str, int]) -> None:
    ctx.line = p.line
    rel = []
    for t in p.targets:
        if isinstance(t, str):
            if t not in labels:
                raise ctx.err(f"undefined label '{t}'")
            rel.append(labels[t] - pc)
        else:
            rel.append(t)
    inst = p.inst
    if inst.opcode == "jmpi" and rel:
        inst.jip = rel[0] - 16
    elif inst.opcode == "call":
        inst.jip = rel[0]
    elif inst.opcode == "calla":       # absolute: a label's address, or the number as written
        inst.jip = labels[p.targets[0]] if isinstance(p.targets[0], str) else p.targets[0]
    elif inst.opcode in F.BRANCH_JIP_UIP:
        inst.jip, inst.uip = rel
    elif inst.opcode in F.BRANCH_JIP_ONLY:
        inst.jip = rel[0]
    for r in rel:
        if not -(1 << 31) <= r < (1 << 31):
            raise ctx.err("branch offset out of range")


def assemble_instructions(text: str, filename: str = "<asm>", autocompact: bool = False) -> list[Instruction]:
    """The Instructions of a program, branch offsets resolved (what decode_program of its bytes gives)."""
    return [p.inst for p in parse(text, filename, autocompact)[0]]


def assemble(text: str, filename: str = "<asm>", autocompact: bool = False) -> bytes:
    """Assemble iga64-syntax text to a Gen9 binary; IsaError('FILE:LINE: ...') on bad input.

    autocompact=True compacts every instruction it can, as `iga64 -Xautocompact` does.
    """
    pend, _ = parse(text, filename, autocompact)
    out = bytearray()
    ctx = _Ctx(filename)
    for p in pend:
        ctx.line = p.line
        try:
            out += p.compact if p.inst.compacted and p.compact is not None else E.encode(p.inst)
        except IsaError as e:
            raise ctx.err(str(e)) from None
        except (KeyError, ValueError, TypeError) as e:
            raise ctx.err(f"cannot encode {p.inst.opcode}: {e}") from None
    return bytes(out)
