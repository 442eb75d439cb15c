"""encoding_plain.encode_plain (the common Align1 case packed by shifts) gives the bytes of the general path
(encoding.encode_fields: field values through layout.pack) on every instruction it takes, and takes none
that the general path would refuse: the iga64 corpus, its random lines, the instructions of compiled
kernels, and variations of each field's value past its range."""
from __future__ import annotations

import copy
import random

import pytest

from reconverge.isa.gen9 import fields as F
from reconverge.isa.gen9.assembler import assemble_instructions
from reconverge.isa.gen9.encoding import encode, encode_fields
from reconverge.isa.gen9.encoding_plain import encode_plain
from reconverge.isa.gen9.errors import IsaError
from reconverge.isa.gen9.model import DataType, Instruction, Operand, Predicate, RegFile, Region
from tests.isa.gen9_corpus import corpus, random_lines


def _same(inst: Instruction) -> bool:
    """encode_plain agrees with the general path; True when it took the instruction."""
    fast = encode_plain(inst)
    try:
        general = encode_fields(inst)
    except (IsaError, KeyError, AssertionError):
        assert fast is None, f"encode_plain encoded what the general path refuses: {inst}"
        return False
    if fast is None:
        return False
    assert fast == general, f"{inst}: {fast.hex()} != {general.hex()}"
    return True


def _instructions(lines: list[str]) -> list[Instruction]:
    out = []
    for line in lines:
        if line.rstrip().endswith(":"):
            continue
        try:
            out += assemble_instructions(line)
        except Exception:       # a line that needs a label or another line's context
            continue
    return out


def test_the_corpus_and_random_lines_encode_alike():
    insts = _instructions(corpus() + random_lines())
    taken = sum(_same(i) for i in insts)
    assert taken > len(insts) // 2              # most of the corpus is the common case


def test_compiled_kernels_encode_alike():
    from reconverge.backend.gen import GenOptions, compile
    from reconverge.lowering.program import load_program
    program = load_program("examples/bench/control_flow.cl", "-O2")
    insts = []
    for cf in ("structured", "hybrid"):
        for name in program.kernel_names():
            insts += compile(program, name, GenOptions(cf=cf)).program
    taken = sum(_same(i) for i in insts)
    assert taken > 2 * len(insts) // 3          # (the rest: sends and branches)
    assert b"".join(encode(i) for i in insts) == b"".join(encode_fields(i) for i in insts)


def _base() -> Instruction:
    return Instruction("add", exec_size=16, dst=Operand(RegFile.GRF, DataType.D, 10, 0),
                       srcs=[Operand(RegFile.GRF, DataType.D, 11, 0, Region(8, 8, 1)),
                             Operand(RegFile.GRF, DataType.D, 12, 0, Region(8, 8, 1))])


VARIATIONS = [
    ("exec_size", (1, 2, 4, 8, 16, 32, 3, 64)), ("chan_offset", (0, 4, 8, 28, 32, 2, -4)),
    ("saturate", (True, 2)), ("mask_ctrl_we_all", (True,)), ("acc_wr_en", (True,)), ("debug", (True,)),
    ("no_dd_clr", (True,)), ("no_dd_chk", (True, 3)), ("flag_reg", (0, 1, 2)), ("flag_subreg", (1, -1)),
    ("cond_mod", (None, *F.COND_MOD, "zz")), ("thread_ctrl", (None, "atomic", "switch", "other")),
    ("predicate", (None, Predicate(1, 1, True, ""), Predicate(0, 0, False, "any16h"), Predicate(2, 0),
                   Predicate(0, 0, False, "nope"))),
    ("align16", (True,)), ("opcode", ("mov", "mul", "sel", "cmp", "math", "if", "send", "mad", "jmpi", "zz")),
]


@pytest.mark.parametrize("name,values", VARIATIONS)
def test_each_header_field_and_its_refusals(name, values):
    for value in values:
        inst = _base()
        setattr(inst, name, value)
        if name == "opcode" and value == "math":
            for fc in ("inv", "fdiv", "idiv", None, "zz"):
                inst.math_fc = fc
                _same(copy.deepcopy(inst))
        _same(inst)


def test_operands_and_their_refusals():
    rng = random.Random(26)
    types = list(DataType)
    for _ in range(3000):
        inst = _base()
        inst.predicate = rng.choice((None, Predicate(rng.randrange(2), rng.randrange(2), rng.random() < 0.5)))
        for op in [inst.dst, *inst.srcs]:
            op.type = rng.choice(types)
            op.file = rng.choice((RegFile.GRF, RegFile.GRF, RegFile.ARF))
            op.reg = rng.choice((0, 5, 127, 255, 256, -1))
            op.subreg = rng.choice((0, 1, 3, 7, 15, 31, 40, -1))
            op.abs, op.neg = rng.random() < 0.2, rng.random() < 0.2
            op.indirect = rng.random() < 0.05
            if op is inst.dst:
                op.hstride = rng.choice((1, 2, 4, 0, 3))
            else:
                op.region = rng.choice((None, Region(8, 8, 1), Region(0, 1, 0), Region(16, 8, 2), Region(4, 4, 1),
                                        Region(-1, 1, 0), Region(3, 8, 1), Region(8, 3, 1), Region(8, 8, 3)))
        if rng.random() < 0.5:                        # an immediate: the last source, sometimes another
            i = len(inst.srcs) - 1 if rng.random() < 0.8 else 0
            inst.srcs[i] = Operand(RegFile.IMM, rng.choice(types), value=rng.getrandbits(40) - (1 << 39))
        if rng.random() < 0.2:
            inst.srcs = inst.srcs[: rng.randrange(0, 4)] + ([inst.srcs[0]] if rng.random() < 0.3 else [])
        if rng.random() < 0.05:
            inst.dst = None
        _same(inst)


def test_branches_and_their_refusals():
    """The branch form (if, else, break, cont, halt, goto), endif, while, join and an immediate jmpi: every
    header field, the offsets past 32 bits, branch_ctrl, acc_wr_en (which the branch form drops), operands
    the general path ignores, and the ones it leaves to itself (brc, brd, a register jmpi)."""
    rng = random.Random(27)
    taken = 0
    for _ in range(4000):
        op = rng.choice(("if", "else", "break", "cont", "halt", "goto", "endif", "while", "join", "jmpi", "brc",
                         "brd"))
        inst = Instruction(op, rng.choice((1, 8, 16, 32, 3)), rng.choice((0, 8, 16, 28, 2)),
                           predicate=rng.choice((None, Predicate(rng.randrange(3), rng.randrange(2),
                                                                 rng.random() < 0.5, rng.choice(("", "any16h", "zz")))
                                                 )),
                           cond_mod=rng.choice((None, None, "ne", "zz")), flag_reg=rng.choice((0, 1, 2)),
                           flag_subreg=rng.randrange(2), saturate=rng.random() < 0.1,
                           mask_ctrl_we_all=rng.random() < 0.5, align16=rng.random() < 0.05,
                           jip=rng.choice((None, 0, 32, -48, 1 << 31, (1 << 32) + 16)),
                           uip=rng.choice((None, 0, 64, -16, 1 << 33)), branch_ctrl=rng.choice((False, True, 2)),
                           acc_wr_en=rng.random() < 0.1, thread_ctrl=rng.choice((None, None, "switch")),
                           no_dd_clr=rng.random() < 0.05, debug=rng.random() < 0.05)
        if rng.random() < 0.2:
            inst.srcs = [Operand(RegFile.GRF, DataType.D, 4, 0, Region(0, 1, 0))]
        if rng.random() < 0.2:
            inst.dst = Operand(RegFile.GRF, DataType.D, 5, 0)
        taken += _same(inst)
    assert taken > 400


def test_sends_and_their_refusals():
    """send and sendc: every header field, the SFID (or ex_desc's low bits without one) past its four bits,
    registers past their fields, a descriptor past 31 bits, EOT, and what the general path leaves to itself
    or refuses (a conditional modifier, no destination, types and files outside its tables)."""
    rng = random.Random(28)
    types = list(DataType)
    taken = 0
    for _ in range(4000):
        inst = Instruction(rng.choice(("send", "sendc", "sends")), rng.choice((1, 8, 16, 32, 3)),
                           rng.choice((0, 8, 16, 28, 2)),
                           predicate=rng.choice((None, None, Predicate(rng.randrange(3), rng.randrange(2),
                                                                       rng.random() < 0.5, rng.choice(("", "zz"))))),
                           cond_mod=rng.choice((None, None, None, "ne")), flag_reg=rng.choice((0, 1, 2)),
                           flag_subreg=rng.randrange(2), saturate=rng.random() < 0.1,
                           mask_ctrl_we_all=rng.random() < 0.5, align16=rng.random() < 0.05,
                           thread_ctrl=rng.choice((None, None, "switch", "zz")),
                           dst=Operand(rng.choice((RegFile.GRF, RegFile.GRF, RegFile.ARF, RegFile.IMM)),
                                       rng.choice((DataType.UD, DataType.UD, rng.choice(types))),
                                       rng.choice((0, 20, 127, 255, 256, -1)), 0),
                           srcs=[Operand(rng.choice((RegFile.GRF, RegFile.GRF, RegFile.ARF)),
                                         rng.choice((DataType.UD, rng.choice(types))),
                                         rng.choice((0, 30, 127, 255, 256, -1)), 0, Region(8, 8, 1))],
                           sfid=rng.choice((None, 0, 2, 7, 15, 16, -1)),
                           desc=rng.choice((None, 0, 0x2290000, 0x7FFFFFFF, 0xFFFFFFFF, -3, 1 << 40)),
                           ex_desc=rng.choice((None, 0, 0x2C, 0x7, -1)), eot=rng.choice((False, True, 2)))
        if inst.opcode == "sends":                     # (a split send: two sources, the general path's)
            inst.srcs.append(Operand(RegFile.GRF, DataType.UD, 40, 0, Region(8, 8, 1)))
        if rng.random() < 0.05:
            inst.dst = None
        taken += _same(inst)
    assert taken > 50                          # (main took none: sends went the general way)
