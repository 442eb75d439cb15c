"""The machine IR's text form read back (what mir_printer.py prints, `--emit gen-mir`): so register
allocation and emission can be tested from text (tools/filetest.py's `regalloc` and `emit` tests),
without the instruction selector in between. print_mfunction(parse_mfunction(text)) == text for any
text print_mfunction wrote, and the function read equals the one printed (tests/gen/test_mir_parser.py).

    gen function NAME SIMD16 (N virtual registers)
    reg %v3*4:ud                                    (registers the instructions do not show as they are)
    LABEL:
      [(~f0.1.any16h) ]OPCODE[.MATH][.COND.fF.S] (EXEC) [DST|null[, SRC]...]
          [, sfid 0xS desc 0xD[ exdesc 0xE][ object KIND KEY SIZE]][, LABEL...][ {NoMask, EOT}]  (one line)

Operands: [-][(abs)]%vN[.u][*COUNT] or rR.S, then [+OFFSET][<V;W,H>]:TYPE; an immediate is VALUE:TYPE
(a NaN as nan(0xBITS), its double's bits, so its payload survives).
A malformed line is a one-line CompileError naming the file and line.
"""
from __future__ import annotations

import re
import struct

from reconverge.isa.gen9.model import DataType, Region
from reconverge.lowering.errors import CompileError

from .mir import Imm, MBlock, MFunction, MInstr, Operand, PReg, VReg

HEADER = re.compile(r"gen function (\S+) SIMD(\d+) \((\d+) virtual registers\)$")
REGISTER = re.compile(r"(?P<neg>-)?(?P<abs>\(abs\))?"
                      r"(?:%v(?P<id>\d+)(?P<u>\.u)?(?:\*(?P<count>\d+))?|r(?P<reg>\d+)\.(?P<sub>\d+))"
                      r"(?:\+(?P<off>-?\d+))?(?:<(?P<vs>-?\d+);(?P<w>\d+),(?P<hs>\d+)>)?:(?P<type>[a-z]+)$")
IMMEDIATE = re.compile(r"(?P<value>[^:\s]+):(?P<type>[a-z]+)$")
PREDICATE = re.compile(r"\((?P<inv>~)?f(?P<f>\d)\.(?P<sub>\d)(?:\.(?P<ctl>\w+))?\) ")
INSTRUCTION = re.compile(r"(?P<name>[\w.]+) \((?P<exec>\d+)\)(?: (?P<rest>.+))?$")
NAN = re.compile(r"nan\(0x([0-9A-F]{16})\)$")
SEND = re.compile(r"sfid 0x(?P<sfid>[0-9A-F]+) desc 0x(?P<desc>[0-9A-F]+)(?: exdesc 0x(?P<ex>[0-9A-F]+))?"
                  r"(?: object (?P<kind>private|local|local_arg) (?P<key>\d+) (?P<size>\d+|-))?$")
LABEL = re.compile(r"([^\s:,]+):$")
CONDITION = re.compile(r"f(\d)$")


class _Reader:
    def __init__(self, source: str) -> None:
        self.source = source
        self.line = 0
        self.first: dict[int, VReg] = {}          # the first appearance of each register
        self.declared: dict[int, VReg] = {}

    def error(self, message: str) -> CompileError:
        return CompileError(f"{self.source}:{self.line}: {message}")

    def data_type(self, text: str) -> DataType:
        try:
            return DataType(text)
        except ValueError:
            raise self.error(f"unknown type ':{text}'") from None

    def operand(self, text: str) -> Operand:
        m = REGISTER.match(text)
        if m is None:
            i = IMMEDIATE.match(text)
            if i is None:
                raise self.error(f"cannot read operand '{text}'")
            return Operand(Imm(self.number(i["value"]), self.data_type(i["type"])))
        kind = self.data_type(m["type"])
        value: VReg | PReg
        if m["id"] is not None:
            value = VReg(int(m["id"]), kind, m["u"] is not None, int(m["count"] or 1))
            self.first.setdefault(value.id, value)
        else:
            value = PReg(int(m["reg"]), int(m["sub"]), kind)
        region = None if m["vs"] is None else Region(int(m["vs"]), int(m["w"]), int(m["hs"]))
        return Operand(value, int(m["off"] or 0), region, m["neg"] is not None, m["abs"] is not None)

    def number(self, text: str) -> int | float:
        nan = NAN.match(text)
        if nan is not None:
            return float(struct.unpack("<d", int(nan[1], 16).to_bytes(8, "little"))[0])
        try:
            return int(text)
        except ValueError:
            pass
        try:
            return float(text)
        except ValueError:
            raise self.error(f"cannot read immediate '{text}'") from None

    def instruction(self, text: str) -> MInstr:
        ins = MInstr("", 0)
        p = PREDICATE.match(text)
        if p is not None:
            ins.predicate = (int(p["f"]), int(p["sub"]), p["inv"] is not None)
            ins.pred_control = p["ctl"] or ""
            text = text[p.end():]
        options = ""
        if text.endswith("}") and " {" in text:
            text, options = text[:text.rindex(" {")].rstrip(), text[text.rindex(" {") + 2:-1]
        m = INSTRUCTION.match(text)
        if m is None:
            raise self.error(f"cannot read instruction '{text}'")
        names = m["name"].split(".")
        if len(names) >= 4 and CONDITION.match(names[-2]) and names[-1].isdigit():
            ins.cond_mod, ins.flag = names[-3], (int(names[-2][1:]), int(names[-1]))
            names = names[:-3]
        ins.opcode = names[0]
        ins.math_fc = ".".join(names[1:]) or None
        ins.exec_size = int(m["exec"])
        for option in options.split(", ") if options else ():
            if option not in ("NoMask", "EOT"):
                raise self.error(f"unknown instruction option '{option}'")
            ins.no_mask |= option == "NoMask"
            ins.eot |= option == "EOT"
        operands: list[Operand | None] = []
        for part in (m["rest"] or "").split(", ") if m["rest"] else ():
            send = SEND.match(part)
            if send is not None:
                ins.sfid, ins.desc = int(send["sfid"], 16), int(send["desc"], 16)
                ins.ex_desc = int(send["ex"], 16) if send["ex"] is not None else None
                if send["kind"] is not None:
                    ins.bounds = (send["kind"], int(send["key"]), None if send["size"] == "-" else int(send["size"]))
            elif part == "null" and not operands:
                operands.append(None)
            elif ":" in part:
                operands.append(self.operand(part))
            elif LABEL.match(part + ":"):
                ins.targets.append(part)
            else:
                raise self.error(f"cannot read '{part}'")
        if operands:
            ins.dst = operands[0]
            srcs = operands[1:]
            if any(s is None for s in srcs):
                raise self.error("'null' is only a destination")
            ins.srcs = [s for s in srcs if s is not None]
        return ins

    def function(self, text: str) -> MFunction:
        lines = text.splitlines()
        self.line = 1
        head = HEADER.match(lines[0].strip()) if lines else None
        if head is None:
            raise self.error("expected 'gen function NAME SIMDn (N virtual registers)'")
        func = MFunction(head[1], int(head[2]))
        block: MBlock | None = None
        for self.line, line in enumerate(lines[1:], start=2):
            if not line.strip() or line.lstrip().startswith(("//", ";")):
                continue
            if line.startswith("reg "):
                if block is not None:
                    raise self.error("'reg' lines come before the first block")
                op = self.operand(line[4:].strip())
                if not isinstance(op.value, VReg) or op.value.id in self.declared:
                    raise self.error(f"'{line.strip()}' declares no new virtual register")
                self.declared[op.value.id] = op.value
                del self.first[op.value.id]
                continue
            label = LABEL.match(line)
            if label is not None:
                block = func.block(label[1])
                continue
            if block is None or not line.startswith("  "):
                raise self.error(f"expected 'LABEL:' or an indented instruction, not '{line.strip()}'")
            block.append(self.instruction(line.strip()))
        self.line = 1
        for i in range(int(head[3])):
            v = self.declared.get(i, self.first.get(i))
            if v is None:
                raise self.error(f"%v{i} is neither declared nor used")
            func.vregs[i] = v
        extra = sorted((set(self.first) | set(self.declared)) - set(range(int(head[3]))))
        if extra:
            raise self.error(f"%v{extra[0]} is beyond the {head[3]} virtual registers the header names")
        labels = {b.label for b in func.blocks}
        for b in func.blocks:
            for ins in b.instrs:
                missing = [t for t in ins.targets if t not in labels]
                if missing:
                    raise CompileError(f"{self.source}: {b.label}: branch to unknown block '{missing[0]}'")
        return func


def parse_mfunction(text: str, source: str = "<mir>") -> MFunction:
    """One machine function from its text; `source` names the file in errors."""
    return _Reader(source).function(text)


def parse_mfunctions(text: str, source: str = "<mir>") -> list[MFunction]:
    """Every function of a text holding several (as `--emit gen-mir` prints a file's kernels), in order;
    line numbers in errors count from the start of the whole text."""
    starts = [i for i, line in enumerate(text.splitlines(keepends=True)) if line.startswith("gen function ")]
    if not starts:
        return [parse_mfunction(text, source)]
    lines = text.splitlines(keepends=True)
    out = []
    for n, start in enumerate(starts):
        end = starts[n + 1] if n + 1 < len(starts) else len(lines)
        try:
            out.append(parse_mfunction("".join(lines[start:end]), source))
        except CompileError as exc:
            raise CompileError(_shift(str(exc), source, start)) from None
    return out


def _shift(message: str, source: str, by: int) -> str:
    prefix = f"{source}:"
    if message.startswith(prefix):
        number, _, rest = message[len(prefix):].partition(":")
        if number.isdigit():
            return f"{prefix}{int(number) + by}:{rest}"
    return message
