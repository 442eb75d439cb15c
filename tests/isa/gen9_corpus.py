"""A generated corpus of Gen9 instructions in iga64 syntax that walks the encoding's fields.

Each group varies one or two fields over all their values while the rest stay simple, so a wrong
bit position or enum shows up as a mismatch against iga64 on a small, readable line.  The corpus is
deterministic (no randomness) and every line is accepted by `iga64 -p=9 -a`.
"""
from __future__ import annotations

import itertools

INT_TYPES = ("ud", "d", "uw", "w")
BYTE_TYPES = ("ub", "b")
PRED_CTRLS = ("", "anyv", "allv", "any2h", "all2h", "any4h", "all4h", "any8h", "all8h", "any16h",
              "all16h", "any32h", "all32h")
FLAGS = ("f0.0", "f0.1", "f1.0", "f1.1")
CONDS = ("eq", "ne", "gt", "ge", "lt", "le")
EXEC_OFFSETS = [(1, 0), (1, 4), (1, 28), (2, 0), (2, 8), (4, 0), (4, 12), (4, 28), (8, 0), (8, 8),
                (8, 16), (8, 24), (16, 0), (16, 16), (32, 0)]


def _src(t: str, reg: int = 11, region: str = "<8;8,1>", sub: int = 0) -> str:
    return f"r{reg}.{sub}{region}:{t}"


def _dst(t: str, reg: int = 10, stride: int = 1, sub: int = 0) -> str:
    return f"r{reg}.{sub}<{stride}>:{t}"


def alu_lines() -> list[str]:
    out = []
    # logic and shifts over the integer types
    for op, t in itertools.product(("and", "or", "xor", "shl", "shr", "asr"), INT_TYPES):
        out.append(f"{op} (8|M0) {_dst(t)} {_src(t)} {_src(t, 12)}")
    for op, t in itertools.product(("and", "or", "xor"), INT_TYPES):
        out.append(f"{op} (16|M0) {_dst(t)} {_src(t)} {_imm_int(t)}")
    for t in INT_TYPES:
        out.append(f"not (8|M0) {_dst(t)} {_src(t)}")
        out.append(f"sel (8|M0) (ge)f0.0 {_dst(t)} {_src(t)} {_src(t, 12)}")
        out.append(f"(f0.1) sel (8|M0) {_dst(t)} {_src(t)} {_imm_int(t)}")
    # arithmetic over int and float types
    for op, t in itertools.product(("add", "mul"), INT_TYPES + ("f",)):
        out.append(f"{op} (8|M0) {_dst(t)} {_src(t)} {_src(t, 12)}")
    for op in ("add", "mul", "sel"):
        out.append(f"{op} (8|M0) {_dst('hf')} {_src('hf')} {_src('hf', 12)}" if op != "sel" else
                   f"sel (8|M0) (lt)f0.0 {_dst('hf')} {_src('hf')} {_src('hf', 12)}")
    out.append(f"add (4|M0) {_dst('df')} {_src('df', 12, '<4;4,1>')} {_src('df', 14, '<4;4,1>')}")
    out.append(f"mul (4|M0) {_dst('df')} {_src('df', 12, '<4;4,1>')} {_src('df', 14, '<4;4,1>')}")
    out.append(f"add (4|M0) {_dst('q')} {_src('q', 12, '<4;4,1>')} {_src('q', 14, '<4;4,1>')}")
    # mixed-type integer multiply: mul/mach pair for a 32x32 multiply
    out.append("mul (8|M0) acc0.0<1>:d r11.0<8;8,1>:d r12.0<16;8,2>:uw")
    out.append("mach (8|M0) r10.0<1>:d r11.0<8;8,1>:d r12.0<8;8,1>:d {AccWrEn}")
    out.append("mov (8|M0) r13.0<1>:d acc0.0<8;8,1>:d")
    out.append("mul (8|M0) acc0.0<1>:ud r11.0<8;8,1>:ud r12.0<16;8,2>:uw")
    out.append("mach (8|M0) r10.0<1>:ud r11.0<8;8,1>:ud r12.0<8;8,1>:ud {AccWrEn}")
    out.append("avg (8|M0) r10.0<1>:d r11.0<8;8,1>:d r12.0<8;8,1>:d")
    # carry/borrow, bit-field, multiply-accumulate and NaN-aware compare
    out.append("addc (8|M0) r10.0<1>:ud r11.0<8;8,1>:ud r12.0<8;8,1>:ud {AccWrEn}")
    out.append("subb (8|M0) r10.0<1>:ud r11.0<8;8,1>:ud r12.0<8;8,1>:ud {AccWrEn}")
    out.append("bfi1 (8|M0) r10.0<1>:ud r11.0<8;8,1>:ud r12.0<8;8,1>:ud")
    out.append("bfe (8|M0) r10.0<1>:ud r11.0<2;1>:ud r12.0<2;1>:ud r13.0<1>:ud")
    out.append("bfi2 (8|M0) r10.0<1>:ud r11.0<2;1>:ud r12.0<2;1>:ud r13.0<1>:ud")
    out.append("mac (8|M0) r10.0<1>:d r11.0<8;8,1>:w r12.0<8;8,1>:w")
    out.append("cmpn (8|M0) (lt)f0.0 null<1>:f r11.0<8;8,1>:f r12.0<8;8,1>:f")
    out.append("sad2 (8|M0) r10.0<1>:w r11.0<8;8,1>:b r12.0<8;8,1>:b")
    # float unary rounding
    for op in ("frc", "rndd", "rnde", "rndz", "rndu"):
        out.append(f"{op} (8|M0) {_dst('f')} {_src('f')}")
        out.append(f"{op} (16|M0) (sat){_dst('f')} -{_src('f')}")
    # bit ops
    for op in ("lzd", "fbh", "fbl", "cbit", "bfrev"):
        out.append(f"{op} (8|M0) {_dst('ud')} {_src('ud')}")
    out.append(f"fbh (8|M0) {_dst('ud')} {_src('d')}")
    out.append(f"lzd (8|M0) {_dst('ud')} {_src('d')}")
    return out


def _imm_int(t: str) -> str:
    return {"ud": "0x1234:ud", "d": "-7:d", "uw": "0xFF:uw", "w": "-3:w"}[t]


def mov_type_lines() -> list[str]:
    """Every register type to every other, plus strides that keep regions legal."""
    out = []
    for dt, st in itertools.product(INT_TYPES + ("f",), INT_TYPES + ("f",)):
        out.append(f"mov (8|M0) {_dst(dt)} {_src(st)}")
    for bt in BYTE_TYPES:
        out.append(f"mov (8|M0) {_dst('w')} {_src(bt, 11, '<16;8,2>')}")
        out.append(f"mov (8|M0) {_dst(bt, 10, 2)} {_src('w')}")
        out.append(f"mov (8|M0) {_dst(bt, 10, 4)} {_src('d')}")
        out.append(f"mov (8|M0) {_dst('d')} {_src(bt, 11, '<32;8,4>')}")
        out.append(f"mov (1|M0) {_dst(bt, 10, 1, 7)} {_src(bt, 11, '<0;1,0>', 5)}")
    out.append(f"mov (8|M0) {_dst('hf', 10, 2)} {_src('f')}")
    out.append(f"mov (8|M0) {_dst('f')} {_src('hf', 11, '<16;8,2>')}")
    out.append(f"mov (4|M0) {_dst('df')} {_src('f', 11, '<4;4,1>')}")
    out.append(f"mov (4|M0) {_dst('f', 10, 2)} {_src('df', 11, '<4;4,1>')}")
    out.append(f"mov (4|M0) {_dst('q')} {_src('d', 11, '<4;4,1>')}")
    out.append(f"mov (4|M0) {_dst('uq')} {_src('uq', 11, '<4;4,1>')}")
    out.append(f"mov (4|M0) {_dst('d', 10, 2)} {_src('q', 11, '<4;4,1>')}")
    return out


def region_lines() -> list[str]:
    out = []
    regions = ["<0;1,0>", "<1;1,0>", "<2;2,1>", "<4;4,1>", "<8;8,1>", "<16;8,2>", "<2;1,0>", "<4;2,2>",
               "<8;4,2>", "<16;16,1>", "<0;4,1>", "<4;1,0>", "<8;2,4>", "<0;2,1>"]
    for r in regions:
        out.append(f"mov (8|M0) {_dst('w')} {_src('w', 11, r)}")
        out.append(f"add (8|M0) {_dst('ud')} {_src('ud', 11, '<8;8,1>')} {_src('uw', 12, r)}")
    for stride in (1, 2, 4):
        out.append(f"mov (8|M0) {_dst('w', 10, stride)} {_src('w')}")
    for sub in range(0, 8):
        out.append(f"mov (1|M0) {_dst('d', 10, 1, sub)} {_src('d', 11, '<0;1,0>', 7 - sub)}")
    for sub in (0, 1, 5, 15):
        out.append(f"mov (1|M0) {_dst('w', 20, 1, sub)} {_src('uw', 21, '<0;1,0>', sub)}")
    for reg in (0, 1, 2, 4, 8, 16, 32, 64, 127):
        out.append(f"add (8|M0) {_dst('f', reg)} {_src('f', 127 - reg)} {_src('f', reg)}")
    # operands written without a region or subregister take iga64's defaults
    out += [
        "mov (8|M0) r10.0<1>:f r11.0:f",
        "mov (8|M0) r10.0:f r11.0:f",
        "mov (16|M0) r10.0<1>:f r11.0:f",
        "mov (1|M0) r10.0<1>:f r11.0:f",
        "mov (8|M0) r10.0<1>:w r11.0:w",
        "mov (8|M0) r10.0<1>:f r11:f",
        "mov (8|M0) r10<1>:f r11.0<8;8,1>:f",
        "add (8|M0) r10.0<1>:f r11.0:f r12.1:f",
        "mov (4|M0) r10.0<1>:f r11.0:f",
        "mov (8|M0) r10.0<1>:d f0.0:uw",
        "(W) mov (1|M0) r10.0<1>:ud sr0.0:ud",
    ]
    out.append("mov (16|M0) r10.0<1>:w r12.0<16;16,1>:w")
    out.append("mov (32|M0) r10.0<1>:w r12.0<16;16,1>:w")
    out.append("mov (32|M0) r10.0<1>:ub r12.0<32;32,1>:ub" if False else "mov (32|M0) r10.0<1>:b r12.0<16;16,1>:b")
    return out


def indirect_lines() -> list[str]:
    """Register-indirect operands r[a0.N,imm] (dst, src0, src1) and the Vx1/VxH region <W,H>."""
    out = []
    for sub, imm in ((0, 0), (1, 16), (3, -32), (7, 511), (15, -512), (2, 4)):
        tail = f",{imm}" if imm else ""
        out.append(f"mov (8|M0) r10.0<1>:f r[a0.{sub}{tail}]<8;8,1>:f")
        out.append(f"mov (8|M0) r[a0.{sub}{tail}]<1>:f r11.0<8;8,1>:f")
        out.append(f"add (8|M0) r10.0<1>:f r11.0<8;8,1>:f -r[a0.{sub}{tail}]<8;8,1>:f")
    for w, h in ((1, 0), (2, 0), (4, 1), (8, 1)):
        out.append(f"mov (8|M0) r10.0<1>:d r[a0.0,4]<{w},{h}>:d")
    out.append("mov (8|M0) r10.0<1>:w r[a0.0,2]<8;8,1>:w")
    out.append("(W) mov (1|M0) a0.0<1>:uw 0x140:uw")
    out.append("(W) add (1|M0) a0.1<1>:uw a0.0<0;1,0>:uw 0x20:uw")
    return out


def predicate_lines() -> list[str]:
    out = []
    for ctrl, flag, inv in itertools.product(PRED_CTRLS, FLAGS, ("", "~")):
        suffix = f".{ctrl}" if ctrl else ""
        es = 32 if ctrl in ("any32h", "all32h") else 16
        out.append(f"({inv}{flag}{suffix}) mov ({es}|M0) r10.0<1>:d r12.0<8;8,1>:d")
    for flag in FLAGS:
        out.append(f"(W&{flag}) add (8|M0) r10.0<1>:d r12.0<8;8,1>:d 1:d")
        out.append(f"(W&~{flag}.any8h) add (8|M0) r10.0<1>:d r12.0<8;8,1>:d 1:d")
    return out


def condmod_lines() -> list[str]:
    out = []
    for cm, flag in itertools.product(CONDS, FLAGS):
        out.append(f"cmp (8|M0) ({cm}){flag} null<1>:f r11.0<8;8,1>:f r12.0<8;8,1>:f")
        out.append(f"cmp (16|M0) ({cm}){flag} null<1>:d r11.0<8;8,1>:d 5:d")
    for cm in CONDS + ("ov",):
        out.append(f"add (8|M0) ({cm})f0.0 r10.0<1>:d r11.0<8;8,1>:d r12.0<8;8,1>:d")
    out.append("add (8|M0) (un)f0.1 r10.0<1>:f r11.0<8;8,1>:f r12.0<8;8,1>:f")
    out.append("(f0.0) cmp (8|M0) (lt)f0.0 r10.0<1>:f r11.0<8;8,1>:f 0.5:f")
    out.append("(~f1.1.any8h) cmp (16|M0) (ne)f1.1 null<1>:ud r11.0<8;8,1>:ud 0x0:ud")
    out.append("cmp (8|M0) (eq)f0.0 r10.0<1>:w r11.0<16;8,2>:w r12.0<16;8,2>:w")
    out.append("mov (8|M0) (ne)f0.0 r10.0<1>:f r11.0<8;8,1>:f")
    return out


def exec_lines() -> list[str]:
    out = []
    for es, m in EXEC_OFFSETS:
        rg = f"<{min(es, 8)};{min(es, 8)},1>" if es > 1 else "<0;1,0>"
        t = "w" if es == 32 else "d"
        rg = "<16;16,1>" if es == 32 else rg
        out.append(f"mov ({es}|M{m}) r10.0<1>:{t} r12.0{rg}:{t}")
        out.append(f"(W) mov ({es}|M{m}) r10.0<1>:{t} r12.0{rg}:{t}")
    for m in range(0, 32, 4):
        out.append(f"add (4|M{m}) r10.0<1>:f r12.0<4;4,1>:f 1.0:f")
    return out


def modifier_lines() -> list[str]:
    out = []
    for a, b in itertools.product(("", "-", "(abs)", "-(abs)"), repeat=2):
        out.append(f"add (8|M0) r10.0<1>:f {a}r11.0<8;8,1>:f {b}r12.0<8;8,1>:f")
    for a in ("", "-", "(abs)", "-(abs)"):
        out.append(f"mov (8|M0) (sat)r10.0<1>:f {a}r11.0<8;8,1>:f")
        out.append(f"add (8|M0) r10.0<1>:d {a}r11.0<8;8,1>:d 3:d")
    out.append("mov (8|M0) (sat)r10.0<1>:hf r11.0<8;8,1>:hf")
    # (sat) on every op family: iga64 keeps it on some and silently drops it on others
    out += [
        "mov (8|M0) (sat)r10.0<1>:f r11.0<8;8,1>:f",
        "sel (8|M0) (lt)f0.0 (sat)r10.0<1>:f r11.0<8;8,1>:f r12.0<8;8,1>:f",
        "add (8|M0) (sat)r10.0<1>:f r11.0<8;8,1>:f r12.0<8;8,1>:f",
        "mul (8|M0) (sat)r10.0<1>:f r11.0<8;8,1>:f r12.0<8;8,1>:f",
        "frc (8|M0) (sat)r10.0<1>:f r11.0<8;8,1>:f",
        "rndd (8|M0) (sat)r10.0<1>:f r11.0<8;8,1>:f",
        "cmp (8|M0) (lt)f0.0 (sat)r10.0<1>:f r11.0<8;8,1>:f r12.0<8;8,1>:f",
        "cmpn (8|M0) (lt)f0.0 (sat)r10.0<1>:f r11.0<8;8,1>:f r12.0<8;8,1>:f",
        "mad (8|M0) (sat)r10.0<1>:f r11.0<2;1>:f r12.0<2;1>:f r13.0<1>:f",
        "lrp (8|M0) (sat)r10.0<1>:f r11.0<2;1>:f r12.0<2;1>:f r13.0<1>:f",
        "math.inv (8|M0) (sat)r10.0<1>:f r11.0<8;8,1>:f",
        "mac (8|M0) (sat)r10.0<1>:f r11.0<8;8,1>:f r12.0<8;8,1>:f",
        "mach (8|M0) (sat)r10.0<1>:d r11.0<8;8,1>:d r12.0<8;8,1>:d {AccWrEn}",
        "avg (8|M0) (sat)r10.0<1>:d r11.0<8;8,1>:d r12.0<8;8,1>:d",
        "add (8|M0) (sat)r10.0<1>:d r11.0<8;8,1>:d r12.0<8;8,1>:d",
        "shl (8|M0) (sat)r10.0<1>:d r11.0<8;8,1>:d r12.0<8;8,1>:d",
        "and (8|M0) (sat)r10.0<1>:d r11.0<8;8,1>:d r12.0<8;8,1>:d",
        "not (8|M0) (sat)r10.0<1>:d r11.0<8;8,1>:d",
        "lzd (8|M0) (sat)r10.0<1>:ud r11.0<8;8,1>:ud",
        "fbh (8|M0) (sat)r10.0<1>:ud r11.0<8;8,1>:ud",
        "cbit (8|M0) (sat)r10.0<1>:ud r11.0<8;8,1>:ud",
        "bfrev (8|M0) (sat)r10.0<1>:ud r11.0<8;8,1>:ud",
        "bfe (8|M0) (sat)r10.0<1>:ud r11.0<2;1>:ud r12.0<2;1>:ud r13.0<1>:ud",
        "addc (8|M0) (sat)r10.0<1>:ud r11.0<8;8,1>:ud r12.0<8;8,1>:ud {AccWrEn}",
        "asr (8|M0) (sat)r10.0<1>:d r11.0<8;8,1>:d r12.0<8;8,1>:d",
        "sad2 (8|M0) (sat)r10.0<1>:w r11.0<8;8,1>:b r12.0<8;8,1>:b",
        "or (8|M0) (sat)r10.0<1>:d r11.0<8;8,1>:d r12.0<8;8,1>:d",
        "xor (8|M0) (sat)r10.0<1>:d r11.0<8;8,1>:d r12.0<8;8,1>:d",
        "shr (8|M0) (sat)r10.0<1>:d r11.0<8;8,1>:d r12.0<8;8,1>:d",
        "fbl (8|M0) (sat)r10.0<1>:ud r11.0<8;8,1>:ud",
        "bfi1 (8|M0) (sat)r10.0<1>:ud r11.0<8;8,1>:ud r12.0<8;8,1>:ud",
        "bfi2 (8|M0) (sat)r10.0<1>:ud r11.0<2;1>:ud r12.0<2;1>:ud r13.0<1>:ud",
        "subb (8|M0) (sat)r10.0<1>:ud r11.0<8;8,1>:ud r12.0<8;8,1>:ud {AccWrEn}",
        "rnde (8|M0) (sat)r10.0<1>:f r11.0<8;8,1>:f",
        "rndz (8|M0) (sat)r10.0<1>:f r11.0<8;8,1>:f",
        "rndu (8|M0) (sat)r10.0<1>:f r11.0<8;8,1>:f",
        "math.idiv (8|M0) (sat)r10.0<1>:d r11.0<8;8,1>:d r12.0<8;8,1>:d",
        "mov (8|M0) (sat)r10.0<1>:d r11.0<8;8,1>:d",
        "sel (8|M0) (ge)f0.0 (sat)r10.0<1>:d r11.0<8;8,1>:d r12.0<8;8,1>:d",
        "mul (8|M0) (sat)r10.0<1>:d r11.0<8;8,1>:d r12.0<8;8,1>:d",
    ]
    out.append("mul (8|M0) (sat)r10.0<1>:f r11.0<8;8,1>:f 2.0:f")
    for opts in ("{Atomic}", "{Switch}", "{NoDDClr}", "{NoDDChk}", "{NoDDClr, NoDDChk}", "{AccWrEn}",
                 "{Breakpoint}", "{Atomic, NoDDChk, AccWrEn}"):
        out.append(f"mov (8|M0) r10.0<1>:ud r11.0<8;8,1>:ud {opts}")
    return out


def immediate_lines() -> list[str]:
    out = []
    ints = {"ud": ("0x0", "0x1", "0x7FFFFFFF", "0x80000000", "0xFFFFFFFF", "0x1234"),
            "d": ("0", "1", "-1", "2147483647", "-2147483648", "4096", "-4097"),
            "uw": ("0x0", "0xFFFF", "0x8000", "0x12"),
            "w": ("0", "-1", "32767", "-32768", "100")}
    for t, vals in ints.items():
        for v in vals:
            out.append(f"mov (8|M0) r10.0<1>:{t} {v}:{t}")
    floats = ("0.0", "-0.0", "1.0", "-1.5", "0.1", "3.14159", "1e+30", "1e-05", "100000.0", "1e+06",
              "1.234567e+06", "0x4CEB79A3", "inf", "-inf", "qnan(0x0)", "-qnan(0x1)", "snan(0x5)",
              "1.4013e-45", "0x7F7FFFFF", "65504.0", "2.0")
    for v in floats:
        out.append(f"mov (8|M0) r10.0<1>:f {v}:f")
        out.append(f"add (8|M0) r10.0<1>:f r11.0<8;8,1>:f {v}:f")
    for v in ("0.0", "-0.0", "1.5", "0x2E66", "65504.0", "inf", "-inf", "qnan(0x0)", "0x1", "0.5",
              "-2.0", "snan(0x3)"):
        out.append(f"mov (8|M0) r10.0<1>:hf {v}:hf")
    for v in ("0.0", "-0.0", "0.1", "1e+100", "qnan(0x1)", "-inf", "1.5", "0x3FF0000000000001"):
        out.append(f"mov (4|M0) r10.0<1>:df {v}:df")
    for v in ("0", "-3", "9223372036854775807", "-9223372036854775808"):
        out.append(f"mov (4|M0) r10.0<1>:q {v}:q")
    for v in ("0x0", "0x3", "0xFFFFFFFFFFFFFFFF"):
        out.append(f"mov (4|M0) r10.0<1>:uq {v}:uq")
    for v in ("0x12345678", "0x0", "0xFEDCBA98"):
        out.append(f"mov (8|M0) r10.0<1>:w {v}:v")
        out.append(f"mov (8|M0) r10.0<1>:uw {v}:uv")
    for v in ("0x3F800000", "0x0", "0x38302820"):
        out.append(f"mov (4|M0) r10.0<1>:f {v}:vf")
    return out


def math_lines() -> list[str]:
    out = []
    for fc in ("inv", "log", "exp", "sqt", "rsqt", "sin", "cos"):
        out.append(f"math.{fc} (8|M0) r10.0<1>:f r11.0<8;8,1>:f")
        out.append(f"math.{fc} (16|M16) (sat)r10.0<1>:f -r11.0<8;8,1>:f")
    for fc in ("fdiv", "pow"):
        out.append(f"math.{fc} (8|M0) r10.0<1>:f r11.0<8;8,1>:f r12.0<8;8,1>:f")
        out.append(f"math.{fc} (8|M0) r10.0<1>:f r11.0<8;8,1>:f 2.0:f")
    for fc in ("idiv", "iqot", "irem"):
        for t in ("d", "ud"):
            out.append(f"math.{fc} (8|M0) r10.0<1>:{t} r11.0<8;8,1>:{t} r12.0<8;8,1>:{t}")
    out.append("math.inv (8|M0) r10.0<1>:hf r11.0<8;8,1>:hf")
    out.append("(f0.0) math.sqt (8|M0) r10.0<1>:f (abs)r11.0<8;8,1>:f")
    return out


def mad_lines() -> list[str]:
    out = []
    for t in ("f", "hf", "df", "d", "ud"):
        es = 4 if t == "df" else 8
        out.append(f"mad ({es}|M0) r10.0<1>:{t} r11.0<2;1>:{t} r12.0<2;1>:{t} r13.0<1>:{t}")
    for rep in itertools.product((False, True), repeat=3):
        s = [f"r{11 + i}.{i if r else 0}{('<0;0>' if i < 2 else '<0>') if r else ('<2;1>' if i < 2 else '<1>')}:f"
             for i, r in enumerate(rep)]
        out.append(f"mad (8|M0) r10.0<1>:f {s[0]} {s[1]} {s[2]}")
    for m in ("", "-", "(abs)", "-(abs)"):
        out.append(f"mad (8|M0) r10.0<1>:f {m}r11.0<2;1>:f {m}r12.0<2;1>:f {m}r13.0<1>:f")
    for sub in range(0, 8):
        out.append(f"mad (8|M0) r10.{sub}<1>:f r11.{sub}<0;0>:f r12.0<2;1>:f r13.{7 - sub}<0>:f")
    out.append("mad (16|M16) (sat)r10.0<1>:f r11.0<2;1>:f r12.0<2;1>:f r13.0<1>:f")
    out.append("(f0.1) mad (8|M0) (lt)f0.1 r10.0<1>:f r11.0<2;1>:f r12.0<2;1>:f r13.0<1>:f")
    out.append("(W) mad (1|M0) r10.0<1>:f r11.0<0;0>:f r12.0<0;0>:f r13.0<0>:f")
    out.append("mad (8|M0) r10.0<1>:f r11.0<2;1>:hf r12.0<2;1>:f r13.0<1>:hf")
    out.append("mad (8|M0) r10.0<1>:hf r11.0<2;1>:hf r12.0<2;1>:f r13.0<1>:f")
    out.append("mad (16|M0) r120.0<1>:f r121.0<2;1>:f r126.0<2;1>:f r127.0<1>:f")
    out.append("lrp (8|M0) r10.0<1>:f r11.0<2;1>:f r12.0<2;1>:f r13.0<1>:f")
    return out


def send_lines() -> list[str]:
    out = []
    # data port 1: untyped surface read/write (SIMD8/16, channel masks, BTIs incl. 254 = SLM)
    for mt, mask, simd, bti in itertools.product((1, 9), (0xE, 0xC, 0x8, 0x0), (0x2000, 0x1000), (0, 5, 254)):
        desc = (2 << 25) | (mt << 14) | simd | (mask << 8) | bti | ((1 << 20) if mt == 1 else 0)
        out.append(f"send (8|M0) {'r20' if mt == 1 else 'null'} r112 0xC 0x{desc:08X}")
    # data port 0: byte scattered read/write (8/16/32-bit), dword gather/scatter, oword block, scratch
    for mt, size in itertools.product((4, 12), (0, 1, 2)):
        desc = (2 << 25) | (mt << 14) | (size << 10) | 0x100 | 3 | ((2 << 20) if mt == 4 else 0)
        out.append(f"send (16|M0) {'r20' if mt == 4 else 'null'} r112 0xA 0x{desc:08X}")
    for mt, blk in itertools.product((3, 11), range(4)):
        desc = (1 << 25) | (mt << 14) | (blk << 10) | 0xFE | ((1 << 20) if mt == 3 else 0)
        out.append(f"send (8|M0) {'r20' if mt == 3 else 'null'} r112 0xA 0x{desc:08X}")
    for mt, n in itertools.product((0, 1, 8), range(6)):
        desc = (1 << 25) | (1 << 19) | (mt << 14) | (n << 8) | 0xFF | ((1 << 20) if mt != 8 else 0)
        out.append(f"send (8|M0) r20 r112 0xA 0x{desc:08X}")
    for rw, n in itertools.product((0, 1), range(4)):
        desc = (1 << 25) | (1 << 19) | (1 << 18) | (rw << 17) | (n << 12) | 0x10 | ((0 if rw else 1) << 20)
        out.append(f"send (8|M0) {'null' if rw else 'r20'} r112 0xA 0x{desc:08X}")
    for mt in (2, 10):
        out.append(f"send (8|M0) r20 r112 0xA 0x{(2 << 25) | (1 << 19) | (mt << 14) | 0x0300:08X}")
    # untyped atomics (every op), typed surface read/write, fences (global with flushes, SLM), constant cache
    for aop in range(16):
        out.append(f"send (8|M0) r20 r112 0xC 0x{(3 << 25) | (1 << 20) | (2 << 14) | (aop << 8) | 0x2000 | (aop * 7 % 256):08X}")
    for mt, mask, group in itertools.product((5, 13), (0x0, 0xE), (0, 2)):
        out.append(f"send (8|M0) r20 r112 0xC 0x{(2 << 25) | (1 << 20) | (mt << 14) | (group << 12) | (mask << 8) | 3:08X}")
    for flush, sync, bti in itertools.product((0x000, 0x100, 0x200, 0x400, 0x800, 0x1000, 0x1E00), (0, 1), (0, 0xFE)):
        out.append(f"(W) send (8|M0) r20 r112 0xA 0x{(1 << 25) | (1 << 20) | (1 << 19) | (7 << 14) | (sync << 13) | flush | bti:08X}")
    for mt, n in itertools.product((0, 1, 3), (0, 2, 4)):
        out.append(f"(W) send (1|M0) r20 r112 0x9 0x{(1 << 25) | (1 << 20) | (1 << 19) | (mt << 14) | (n << 8) | 9:08X}")
    for mt in (5, 9, 13):
        out.append(f"send (8|M0) r20 r112 0xA 0x{(1 << 25) | (1 << 20) | (mt << 14) | 0x100:08X}")
    # split sends
    out.append("sends (8|M0) null:ud r112 r114 0x8C 0x04026E00")
    out.append("sends (16|M0) null:ud r112 r116 0x10C 0x04026C00")
    out.append("sends (8|M0) r20:ud r112 null 0xC 0x04125E00")
    # gateway barrier and the EOT
    out.append("(W) send (1|M0) null r1 0x3 0x02008004")
    out.append("(W) send (8|M0) null r112 0x27 0x02000010 {EOT}")
    out.append("(W) send (16|M0) null r127 0x27 0x02000010 {EOT}")
    out.append("sendc (8|M0) r20 r112 0xC 0x04125E00")
    for opts in ("{NoDDClr}", "{NoDDChk}", "{Atomic}", "{Switch}", "{Breakpoint}", "{EOT, NoDDClr}"):
        sfid = "0x27" if "EOT" in opts else "0xC"
        out.append(f"(W) send (8|M0) null r112 {sfid} 0x04026E00 {opts}")
    out.append("sends (8|M0) null:ud r112 r114 0x8C 0x04026E00 {NoDDClr, Atomic}")
    out.append("if (8|M0) IFX IFX {Switch}")
    out.append("IFX:")
    out.append("endif (8|M0) ENDX {Breakpoint}")
    out.append("ENDX:")
    out.append("(f0.0) send (16|M16) r40 r80 0xC 0x08085C00")
    return out


def control_flow_lines() -> list[str]:
    """Structured control flow with labels, forward and backward, plus jmpi forms."""
    return [
        "mov (16|M0) r10.0<1>:d 0:d",
        "LOOP0:",
        "(f0.0) if (16|M0) ELSE0 ENDIF0",
        "add (16|M0) r10.0<1>:d r10.0<8;8,1>:d 1:d",
        "(f1.0) break (16|M0) ENDIF0 WEND0",
        "ELSE0:",
        "else (16|M0) ENDIF0 ENDIF0",
        "(~f0.1) cont (16|M0) ENDIF0 WEND0",
        "add (16|M0) r10.0<1>:d r10.0<8;8,1>:d -1:d",
        "ENDIF0:",
        "endif (16|M0) WEND0",
        "WEND0:",
        "(f0.0) while (16|M0) LOOP0",
        "(f0.0.any16h) while (8|M8) LOOP0",
        "if (8|M0) E1 E1",
        "else.b (8|M0) E1 E1",
        "halt (8|M0) E1 END",
        "E1:",
        "endif (8|M0) J1",
        "J1:",
        "(W) jmpi J2",
        "(W&f0.0.any16h) jmpi J2",
        "(W&~f1.1.all16h) jmpi LOOP0",
        "(W&f0.1.any8h) jmpi J1",
        "J2:",
        "(W) jmpi r2.0",
        "(W) jmpi r3.2",
        "(f0.0) if (32|M0) E2 E2",
        "E2:",
        "endif (32|M0) END",
        "nop",
        "goto (16|M0) JN1 END",
        "JN1:",
        "join (16|M0) BR1",
        "BR1:",
        "brd (16|M0) BR2",
        "BR2:",
        "brc (16|M0) END END",
        "call (1|M0) r100.0 SUB",
        "(W) jmpi END",
        "SUB:",
        "ret (1|M0) r100.0",
        "calla (1|M0) r101.0 0x0",
        "wait n0.0<0;1,0>:ud",
        "illegal",
        "END:",
        "(W) send (8|M0) null r112 0x27 0x02000010 {EOT}",
    ]


def subgroup_lines() -> list[str]:
    """The forms backend/gen/isel_subgroup.py emits: one GRF of a run starting at any element (<1;1,0>),
    a cluster head replicated over its lanes (<C;C,0>), NoMask moves of four qwords, min/max by sel on
    every channel, the lane-number compare and the predicated broadcast of one element."""
    out = []
    for t, n in (("d", 8), ("ud", 8), ("f", 8), ("q", 4), ("uq", 4), ("df", 4)):
        for sub in (1, 3, n - 1):
            out.append(f"(W) mov ({n}|M0) r10.0<1>:{t} r11.{sub}<1;1,0>:{t}")
        out.append(f"(W) mov ({n}|M0) r10.0<1>:{t} r11.0<{n};{n},1>:{t}")
    for c in (2, 4, 8):
        out.append(f"(W) mov (16|M0) r10.0<1>:d r12.0<{c};{c},0>:d")
        out.append(f"(W) mov (8|M8) r10.0<1>:q r14.0<{c};{c},0>:q")
    for t in ("q", "uq", "df", "d", "f"):
        for mod in ("l", "ge"):
            rg = "<4;4,1>" if t in ("q", "uq", "df") else "<8;8,1>"
            out.append(f"(W) sel (8|M0) ({mod})f0.1 r10.0<1>:{t} r12.0{rg}:{t} r14.0{rg}:{t}")
    out += [
        "(W) cmp (16|M0) (eq)f0.1 null<1>:ud r20.0<8;8,1>:ud r22.3<0;1,0>:ud",
        "(W) cmp (16|M0) (eq)f0.1 null<1>:ud r20.0<8;8,1>:ud 0x5:ud",
        "(W&f0.1) mov (16|M0) r10.0<1>:d r24.5<0;1,0>:d",
        "(W&f0.1) mov (8|M8) r10.0<1>:q r24.3<0;1,0>:q",
        "(W) mov (1|M0) r10.3<1>:df 0x0:df",
        "(W) mov (16|M0) r10.0<1>:df -inf:df",
        "(W) mov (8|M0) r10.0<1>:uw 0x76543210:v",
        "(W) shl (16|M0) r10.0<1>:ud r12.0<8;8,1>:ud r14.0<8;8,1>:ud",
    ]
    return out


def corpus() -> list[str]:
    """The whole corpus, one instruction (or label) per line."""
    groups = [alu_lines(), mov_type_lines(), region_lines(), indirect_lines(), predicate_lines(), condmod_lines(),
              exec_lines(), modifier_lines(), immediate_lines(), math_lines(), mad_lines(), send_lines(),
              control_flow_lines(), subgroup_lines()]
    return [line for g in groups for line in g]


def numeric_branch_lines() -> list[str]:
    """Branches with numeric offsets (relative to the branch itself, as iga64 writes them)."""
    return [
        "if (16|M0) 64 96", "else (16|M0) 48 48", "else.b (16|M0) 32 32", "endif (16|M0) 16",
        "(f0.0) while (16|M0) -64", "(f0.0) break (16|M0) 16 48", "(f1.0) cont (16|M0) 16 32",
        "halt (16|M0) 16 16", "(W) jmpi -16", "(W&f0.0.any16h) jmpi 32", "(W) jmpi 0", "nop",
        "(W) jmpi -176",
    ]


def random_lines(n: int = 400, seed: int = 9) -> list[str]:
    """Seeded random mixes of the fields the systematic groups vary one at a time (plus random
    immediate bit patterns, which exercise iga64's float printing)."""
    import random
    rnd = random.Random(seed)
    out = []
    for _ in range(n):
        t = rnd.choice(("ud", "d", "uw", "w", "f", "hf"))
        op = rnd.choice(("mov", "add", "mul", "sel", "cmp", "and", "or", "xor", "not", "shl", "asr", "avg")
                        if t not in ("f", "hf") else ("mov", "add", "mul", "sel", "cmp", "frc", "rndd", "rnde"))
        if op in ("mul", "avg") and t in ("ud", "d", "uw", "w"):
            t = "d" if t in ("d", "w") else "ud"
        es, m = rnd.choice([(1, 0), (1, 12), (2, 4), (4, 8), (4, 20), (8, 0), (8, 8), (8, 24), (16, 0), (16, 16)])
        size = {"ud": 4, "d": 4, "uw": 2, "w": 2, "f": 4, "hf": 2}[t]
        pred = ""
        flag = rnd.choice(FLAGS)
        if rnd.random() < 0.5:
            ctrl = rnd.choice(PRED_CTRLS[:11])
            pred = f"({'W&' if rnd.random() < 0.3 else ''}{'~' if rnd.random() < 0.5 else ''}{flag}{'.' + ctrl if ctrl else ''}) "
        elif rnd.random() < 0.3:
            pred = "(W) "
        cm = ""
        if op == "cmp" or (op not in ("sel",) and rnd.random() < 0.2):
            cm = f" ({rnd.choice(CONDS)}){flag}"
        if op == "sel" and not pred and not cm:
            cm = f" ({rnd.choice(('ge', 'lt'))}){flag}"
        hs = rnd.choice((1, 2)) if size == 2 else 1
        dreg, dsub = rnd.randrange(1, 120), rnd.randrange(0, 32 // size // hs) if es == 1 else 0
        sat = "(sat)" if t in ("f", "hf") and op != "frc" and rnd.random() < 0.3 else ""
        dst = f"{sat}r{dreg}.{dsub}<{hs}>:{t}" if not (op == "cmp" and rnd.random() < 0.5) else f"null<1>:{t}"

        def src():
            mods = rnd.choice(("", "", "-", "(abs)", "-(abs)")) if op not in ("and", "or", "xor", "not", "shl",
                                                                             "asr", "sel") else rnd.choice(("", "", "-"))
            if op in ("and", "or", "xor", "not") and mods == "-":
                mods = ""
            if es == 1:
                return f"{mods}r{rnd.randrange(1, 120)}.{rnd.randrange(0, 32 // size)}<0;1,0>:{t}"
            w = min(es, 8 if size == 4 else 16)
            reg = rnd.choice((f"<{w};{w},1>", "<0;1,0>"))
            return f"{mods}r{rnd.randrange(1, 120)}.0{reg}:{t}"

        def imm():
            if t == "f":
                return f"0x{rnd.getrandbits(32):08X}:f"
            if t == "hf":
                return f"0x{rnd.getrandbits(16):04X}:hf"
            bits = 8 * size
            v = rnd.getrandbits(bits)
            return f"0x{v:X}:{t}" if t.startswith("u") else f"{v - (1 << bits) if v >> (bits - 1) else v}:{t}"

        nsrc = 1 if op in ("mov", "not", "frc", "rndd", "rnde") else 2
        srcs = [src() for _ in range(nsrc)]
        if rnd.random() < 0.4:
            srcs[-1] = imm()
        opts = rnd.choice(("", "", "", " {NoDDClr}", " {AccWrEn}", " {Atomic}", " {NoDDChk, NoDDClr}"))
        out.append(f"{pred}{op} ({es}|M{m}){cm} {dst} {' '.join(srcs)}{opts}")
    return out
