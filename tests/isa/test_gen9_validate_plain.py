"""validate._plainly_legal (the common ALU instruction vouched for in one pass) vouches only for
instructions in which every check finds nothing (validate._every_check), so check_instruction answers as
it did without it: on the iga64 corpus and its random lines, on compiled kernels, and on random
instructions built around the edges of each rule it stands in for (register and span limits, regions,
channel offsets, types, immediates, saturate, compares)."""
from __future__ import annotations

import random
from typing import Any

from reconverge.isa.gen9.model import DataType, Instruction, Operand, RegFile, Region
from reconverge.isa.gen9.validate import _alu, _every_check, _plainly_legal, check_instruction
from tests.isa.gen9_corpus import corpus, random_lines
from tests.isa.test_gen9_encoding_plain import _instructions

T = DataType


def _agrees(inst: Instruction) -> bool:
    """check_instruction is _every_check's answer; True when _plainly_legal vouched for the instruction."""
    alu = _alu(inst)
    try:
        full = _every_check(inst, alu)
    except (IndexError, KeyError, AttributeError) as error:      # (no sources, no region: as before)
        assert not (alu and _plainly_legal(inst)), f"vouched for an instruction the checks refuse: {inst}"
        try:
            check_instruction(inst)
        except type(error):
            return False
        raise AssertionError(f"check_instruction answered where the checks raise: {inst}") from None
    assert check_instruction(inst) == full
    vouched = alu and _plainly_legal(inst)
    assert not (vouched and full), f"vouched for an instruction that breaks {full}: {inst}"
    return bool(vouched)


def test_the_corpus_and_random_lines():
    insts = _instructions(corpus() + random_lines())
    vouched = sum(_agrees(i) for i in insts)
    assert vouched > 50


def test_compiled_kernels():
    from reconverge.backend.gen import GenOptions, compile
    from reconverge.lowering.program import load_program
    program = load_program("examples/bench/control_flow.cl", "-O2")
    insts = []
    for cf, simd in (("structured", 16), ("hybrid", 16), ("structured", 8)):
        for name in program.kernel_names():
            insts += compile(program, name, GenOptions(cf=cf, simd=simd)).program
    vouched = sum(_agrees(i) for i in insts)
    assert vouched > len(insts) // 2            # the common case is most of the code


_OPS = ("mov", "add", "mul", "cmp", "cmpn", "and", "or", "xor", "sel", "shl", "shr", "asr", "avg", "math",
        "not", "frc", "rndd", "lzd", "mac", "mach", "sad2", "sada2", "line", "pln", "dp4", "lrp", "mad")
_TYPES = (T.D, T.UD, T.F, T.HF, T.W, T.UW, T.B, T.UB, T.Q, T.UQ, T.DF, T.V, T.UV, T.VF)
_COMMON = (T.D, T.UD, T.F)


class _Rng(random.Random):
    common = 0.8                # how often _pick takes the common values


def _pick(rng: _Rng, common: tuple, rare: tuple) -> Any:
    return rng.choice(common) if rng.random() < rng.common else rng.choice(rare)


def _operand(rng: _Rng, source: bool) -> Operand:
    file = _pick(rng, (RegFile.GRF,), (RegFile.ARF, RegFile.IMM) if source else (RegFile.ARF,))
    t = _pick(rng, _COMMON, _TYPES)
    if file is RegFile.IMM:
        return Operand(RegFile.IMM, t, value=rng.randrange(1 << 32))
    if file is RegFile.ARF:
        return Operand(RegFile.ARF, t, reg=rng.choice((0x00, 0x10, 0x20, 0x21, 0x2A, 0x30, 0x32, 0x90)),
                       region=Region(0, 1, 0) if source else None)
    reg = _pick(rng, tuple(range(0, 120)), (-1, 125, 126, 127, 128, 130))
    sub = _pick(rng, (0, 0, 0, 1, 2, 4, 7), (-1, 8, 15, 16, 31))
    indirect = rng.random() < 0.03
    if not source:
        return Operand(RegFile.GRF, t, reg=reg, subreg=sub, hstride=_pick(rng, (1, 1, 2), (0, 3, 4, 8)),
                       indirect=indirect)
    region = None if rng.random() < 0.03 else Region(
        _pick(rng, (0, 8, 16, 1, 2, 4), (-1, 32, 3)), _pick(rng, (1, 8, 16), (2, 4, 0, 32)),
        _pick(rng, (0, 1), (2, 4, 3, -1)))
    return Operand(RegFile.GRF, t, reg=reg, subreg=sub, region=region, indirect=indirect,
                   neg=rng.random() < 0.1, abs=rng.random() < 0.05)


def _random_instruction(rng: _Rng) -> Instruction:
    n = _pick(rng, (8, 16, 1), (2, 4, 32, 3))
    m = _pick(rng, (0,), (4, 8, 12, 16, 24, 28, -8, 3))
    srcs = [_operand(rng, True) for _ in range(_pick(rng, (1, 2), (0, 3)))]
    op = _pick(rng, ("mov", "add", "mul", "cmp", "and", "sel"), _OPS)
    return Instruction(opcode=op, exec_size=n, chan_offset=m, saturate=rng.random() < 0.1,
                       cond_mod=rng.choice((None, None, "ne", "lt")), dst=_operand(rng, False), srcs=srcs,
                       math_fc=rng.choice(("inv", "fdiv", "idiv")) if op == "math" else None)


def test_random_instructions():
    for common, least in ((0.8, 500), (0.97, 1_500)):       # every field's edges; mostly the common case
        rng = _Rng(26)
        rng.common = common
        vouched = sum(_agrees(_random_instruction(rng)) for _ in range(40_000))
        assert vouched > least


def test_random_instructions_into_null():
    """A compare's null destination (an ARF of no span): of every type and stride, the ARF's other registers."""
    rng = _Rng(27)
    rng.common = 0.97
    vouched = 0
    for _ in range(20_000):
        inst = _random_instruction(rng)
        inst.dst = Operand(RegFile.ARF, _pick(rng, _COMMON, _TYPES), reg=_pick(rng, (0x00,), (0x01, 0x10, 0x20, 0x30)),
                           hstride=rng.choice((0, 1, 2)), indirect=rng.random() < 0.02)
        vouched += _agrees(inst)
    assert vouched > 1_000



def test_bare_branches():
    """validate_program's shortcut for a branch without operands (validate._bare_branch_checks) answers what
    _every_check does, on random branches around the edges of the control and branch rules."""
    from reconverge.isa.gen9.validate import _BRANCH_SET, _bare_branch_checks
    rng = random.Random(26)
    found = 0
    for _ in range(3000):
        op = rng.choice(sorted(_BRANCH_SET))
        inst = Instruction(op, rng.choice((1, 2, 4, 8, 16, 32)), chan_offset=rng.choice((0, 4, 8, 16, 24, 28)),
                           saturate=rng.random() < 0.1, mask_ctrl_we_all=rng.random() < 0.5,
                           jip=rng.choice((None, -64, -4, 0, 8, 12, 48)), uip=rng.choice((None, -16, 0, 4, 16, 96)))
        expected = _every_check(inst, _alu(inst))
        assert _bare_branch_checks(inst) == expected, inst
        found += bool(expected)
    assert found > 100


def test_plain_branches():
    """validate._plain_branch vouches only for a bare branch that breaks no rule (_every_check) and whose
    targets are instructions' starts, on random branches around the edges of the control and branch rules
    and of the program's layout."""
    from reconverge.isa.gen9.validate import _BRANCH_SET, _plain_branch, _targets
    rng = random.Random(28)
    vouched = 0
    for _ in range(20_000):
        op = rng.choice(sorted(_BRANCH_SET) + ["if", "else", "endif", "while", "break", "jmpi"] * 3)
        inst = Instruction(op, rng.choice((1, 1, 16, 16, 8, 2, 4, 32)),
                           chan_offset=rng.choice((0, 0, 0, 4, 8, 16, 24, 28, -8)),
                           saturate=rng.random() < 0.05, mask_ctrl_we_all=rng.random() < 0.7,
                           jip=rng.choice((None, -64, -32, -4, 0, 8, 16, 12, 48, 64)),
                           uip=rng.choice((None, -16, 0, 4, 8, 16, 32, 96)))
        pc = rng.choice((0, 16, 64, 128))
        starts = set(range(0, 256, rng.choice((16, 16, 32, 8))))
        problems = _every_check(inst, _alu(inst))
        strays = [t for _, t in _targets(inst, pc) if t not in starts]
        plain = _plain_branch(inst, pc, starts)
        assert not (plain and (problems or strays)), (inst, pc, problems, strays)
        vouched += plain
    assert vouched > 1_000
