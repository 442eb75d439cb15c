"""Gen9 encoding tests that need no iga64: golden triples, round trips, errors, the CLI commands.

The golden (text, hex) triples were produced by `iga64 -p=9 -a` and printed back by `iga64 -p=9 -d -n`
(iga64 1.1.0); the corpus tests in test_gen9_iga.py check everything else against iga64 directly.
"""
from __future__ import annotations

import argparse
import os
import re

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from reconverge.isa.gen9 import encoding as E
from reconverge.isa.gen9 import fields as F
from reconverge.isa.gen9.assembler import NO_SAT_OPS, assemble
from reconverge.isa.gen9.disassembler import disassemble
from reconverge.isa.gen9.errors import IsaError
from reconverge.isa.gen9.model import DataType, Instruction, Operand, Predicate, RegFile, Region
from reconverge.lowering.errors import CompileError

GOLDEN = [
    ("mov (8|M0) r10.0<1>:ud r11.0<8;8,1>:ud", "010060000802402160018d0000000000"),
    ("(f0.1) add (16|M16) r10.0<1>:f -r12.0<8;8,1>:f (abs)r14.0<8;8,1>:f", "40208100e93a402180418d3ac0218d00"),
    ("(~f1.0.any8h) sel (8|M8) (ge)f1.0 r10.0<2>:w r12.1<16;8,2>:w 7:w", "021078046a1a40418201ae1e07000700"),
    ("cmp (8|M0) (le)f0.1 null<1>:d r2.0<8;8,1>:d r3.0<8;8,1>:d", "10006006210a002040008d0a60008d00"),
    ("mad (8|M0) r10.0<1>:f r11.0<2;1>:f r12.0<2;1>:f r13.0<1>:f", "5b01600000001e0ac8b1003918204703"),
    ("math.idiv (8|M0) r10.0<1>:d r11.0<8;8,1>:d r12.0<8;8,1>:d", "3800600b280a402160018d0a80018d00"),
    ("send (8|M0) null r112 0xC 0x04026E00 // wr:2+0, rd:0; hdc.dc1; untyped surface write with x",
     "3100600c00020020000e0006006e0204"),
    ("(W) send (8|M0) null r112 0x27 0x02000010 {EOT} // wr:1+0, rd:0; spawner; end of thread",
     "3100600704020020000e000610000082"),
    ("mov (4|M0) r10.0<1>:df 1.5:df", "01004000c8564021000000000000f83f"),
    ("(W) jmpi 32", "20000000040000340014000e10000000"),
    ("if (16|M0) 16 16", "22008000000e00201000000010000000"),
]
# compacted (8-byte) golden words from `iga64 -p=9 -a -Xautocompact`
GOLDEN_COMPACT = [
    ("mov (8|M0) r10.0<1>:ud r11.0<8;8,1>:ud {Compacted}", "014b0020070a0b00"),
    ("add (16|M0) r10.0<1>:f r11.0<8;8,1>:f r12.0<8;8,1>:f {Compacted}", "40560220e70a0b0c"),
    ("add (8|M0) r10.0<1>:d r11.0<8;8,1>:d 5:d {Compacted}", "40cb0120070a0b05"),
    ("mad (8|M0) r10.0<1>:f r11.0<2;1>:f r12.0<2;1>:f r13.0<1>:f {Compacted}", "5ba100200058301a"),
]


def _norm(s: str) -> str:
    return re.sub(r"\s+", " ", s).strip()


@pytest.mark.parametrize("text,hexbytes", GOLDEN + GOLDEN_COMPACT)
def test_golden_triples(text, hexbytes):
    data = bytes.fromhex(hexbytes)
    assert assemble(text) == data
    assert _norm(disassemble(data, labels=False)) == _norm(text)
    assert E.encode_program(E.decode_program(data)) == data


def test_compact_golden_decodes_to_the_native_instruction():
    native = assemble("mov (8|M0) r10.0<1>:ud r11.0<8;8,1>:ud")
    compact = bytes.fromhex(GOLDEN_COMPACT[0][1])
    assert E.expand_compact(compact) == native
    assert E.try_compact(native) == compact


def test_field_table_has_no_overlaps_and_fills_each_form():
    for form in F.NATIVE_FORMS + F.COMPACT_FORMS:
        used = 0
        for name, hi, lo in F.form_fields(form):
            mask = ((1 << (hi - lo + 1)) - 1) << lo
            assert not used & mask, f"{name} overlaps in {form}"
            used |= mask
        assert used < 1 << F.FORM_BITS[form]


def test_compaction_tables_have_32_distinct_entries():
    for table in (F.CONTROL_TABLE, F.DATATYPE_TABLE, F.SUBREG_TABLE, F.SRC_INDEX_TABLE):
        assert len(table) == 32 == len(set(table))


# ---- round trips over random instructions ---------------------------------------------------------

TYPES = ["ud", "d", "uw", "w", "f"]


@st.composite
def alu_instruction(draw):
    t = draw(st.sampled_from(TYPES))
    size = DataType(t).size
    es = draw(st.sampled_from([1, 2, 4, 8, 16]))
    off = draw(st.sampled_from([m for m in range(0, 32, 4) if m % es == 0 or es < 4]))
    op = draw(st.sampled_from(["mov", "add", "and", "sel", "mul", "xor", "cmp", "not", "shl"]))
    pred = draw(st.none() | st.builds(Predicate, st.integers(0, 1), st.integers(0, 1), st.booleans(),
                                      st.sampled_from(list(F.PRED_CTRL))))
    cm = draw(st.none() | st.sampled_from(list(F.COND_MOD)))
    fr, fs = (pred.flag_reg, pred.flag_subreg) if pred else (draw(st.integers(0, 1)), draw(st.integers(0, 1)))
    if pred is None and cm is None:
        fr = fs = 0            # the flag field is invisible in text unless something uses it

    def src(i):
        if i == 1 and draw(st.booleans()):
            return Operand(RegFile.IMM, DataType(t), value=draw(st.integers(0, (1 << (8 * min(size, 4))) - 1)))
        region = draw(st.sampled_from([Region(8, 8, 1), Region(0, 1, 0), Region(16, 8, 2), Region(4, 4, 1)]))
        return Operand(RegFile.GRF, DataType(t), reg=draw(st.integers(0, 127)),
                       subreg=draw(st.integers(0, 32 // size - 1)), region=region,
                       abs=draw(st.booleans()), neg=draw(st.booleans()))

    n = 1 if op in ("mov", "not") else 2
    return Instruction(op, exec_size=es, chan_offset=off, predicate=pred, cond_mod=cm, flag_reg=fr, flag_subreg=fs,
                       saturate=op not in NO_SAT_OPS and draw(st.booleans()), mask_ctrl_we_all=draw(st.booleans()),
                       dst=Operand(RegFile.GRF, DataType(t), reg=draw(st.integers(0, 127)),
                                   subreg=draw(st.integers(0, 32 // size - 1)), hstride=draw(st.sampled_from([1, 2, 4]))),
                       srcs=[src(i) for i in range(n)], no_dd_clr=draw(st.booleans()), no_dd_chk=draw(st.booleans()),
                       thread_ctrl=draw(st.sampled_from([None, "atomic", "switch"])), acc_wr_en=draw(st.booleans()),
                       debug=draw(st.booleans()))


@settings(max_examples=150, deadline=None)
@given(alu_instruction())
def test_random_instruction_round_trips_through_bytes_and_text(inst):
    data = E.encode(inst)
    back = E.decode(data)
    if inst.srcs[-1].file == RegFile.IMM and inst.srcs[-1].type.size == 2:
        inst.srcs[-1].value &= 0xFFFF
    assert back == inst
    assert assemble(disassemble(data)) == data
    small = E.try_compact(data)
    if small is not None:
        assert E.expand_compact(small) == data


@settings(max_examples=300, deadline=None)
@given(st.binary(min_size=16, max_size=16))
def test_decoding_random_words_never_crashes_unexpectedly(word):
    try:
        E.decode(word)
    except (IsaError, KeyError, ValueError):
        pass


# ---- errors --------------------------------------------------------------------------------------

BAD = [
    ("mov (8|M0) r10.0<1>:f r11.0<8;8,1>:zz", "unknown type"),
    ("frob (8|M0) r10.0<1>:f r11.0<8;8,1>:f", "unknown mnemonic"),
    ("mov (8|M0) r200.0<1>:f r11.0<8;8,1>:f", "out of range"),
    ("mov (8|M0) r10.0<1>:f r11.0<8;3,1>:f", "bad source region"),
    ("add (8|M0) r10.0<1>:f 1.0:f r11.0<8;8,1>:f", "only the last source"),
    ("mov (7|M0) r10.0<1>:f r11.0<8;8,1>:f", "bad execution size"),
    ("mov (8|M3) r10.0<1>:f r11.0<8;8,1>:f", "bad channel offset"),
    ("(f0.0) cmp (8|M0) (lt)f1.0 null<1>:f r1.0<8;8,1>:f r2.0<8;8,1>:f", "same flag"),
    ("jmpi NOWHERE", "undefined label"),
    ("mov (8|M0) r10.0<1>:f", "expects 2 operands"),
    ("math.foo (8|M0) r10.0<1>:f r11.0<8;8,1>:f", "unknown math function"),
    ("mov (8|M0) r10.0<1>:f r11.0<8;8,1>:f {Bogus}", "unknown instruction option"),
    ("mov (8|M0) r10.0<1>:d 99999999999:d", "bad immediate"),
    ("send (8|M0) null r112 0xC", "expects 4 operands"),
    ("send (8|M0) (eq)f0.0 null r112 0xC 0x04026E00", "no conditional modifier"),
    ("send (8|M0) null r112 0xC 0x04026E00 {AccWrEn}", "no AccWrEn"),
    ("mov (8|M0) r10.0<1>:f r[a0.16]<8;8,1>:f", "out of range"),
]


@pytest.mark.parametrize("text,msg", BAD)
def test_bad_input_raises_one_line_compile_error_with_file_and_line(text, msg):
    with pytest.raises(IsaError) as e:
        assemble("nop\n\n" + text + "\n", "k.asm")
    s = str(e.value)
    assert s.startswith("k.asm:3: ") and msg in s and "\n" not in s


# ---- command line --------------------------------------------------------------------------------


def _parser():
    from reconverge.tools.isa_commands import add_commands
    p = argparse.ArgumentParser()
    add_commands(p.add_subparsers(dest="cmd", required=True))
    return p


def test_cli_asm_then_disasm(tmp_path, capsys):
    src = tmp_path / "k.asm"
    src.write_text("\n".join(t.split(" //")[0] for t, _ in GOLDEN) + "\n")
    out = tmp_path / "k.krn"
    args = _parser().parse_args(["asm", str(src), "-o", str(out)])
    args.func(args)
    assert out.read_bytes() == b"".join(bytes.fromhex(h) for _, h in GOLDEN)
    args = _parser().parse_args(["disasm", str(out)])
    args.func(args)
    assert "math.idiv (8|M0)" in capsys.readouterr().out
    txt = tmp_path / "k.txt"
    args = _parser().parse_args(["disasm", str(out), "-o", str(txt)])
    args.func(args)
    assert assemble(txt.read_text()) == out.read_bytes()


def test_cli_bad_input_leaves_no_output_file(tmp_path):
    src = tmp_path / "bad.asm"
    src.write_text("mov (8|M0) r1.0<1>:f r2.0<8;8,1>:zz\n")
    out = tmp_path / "bad.krn"
    args = _parser().parse_args(["asm", str(src), "-o", str(out)])
    with pytest.raises(CompileError, match=r"bad\.asm:1: "):
        args.func(args)
    assert os.listdir(tmp_path) == ["bad.asm"]
    args = _parser().parse_args(["asm", str(tmp_path / "missing.asm"), "-o", str(out)])
    with pytest.raises(CompileError, match="cannot read"):
        args.func(args)
    trunc = tmp_path / "t.krn"
    trunc.write_bytes(bytes.fromhex(GOLDEN[0][1])[:12])
    args = _parser().parse_args(["disasm", str(trunc), "-o", str(tmp_path / "t.txt")])
    with pytest.raises(CompileError, match="truncated"):
        args.func(args)
    assert not (tmp_path / "t.txt").exists()


def test_comments_labels_and_blank_lines_are_accepted():
    text = """
    // a comment line
    START:  /* [0000] */  mov (8|M0) r10.0<1>:ud r11.0<8;8,1>:ud   // trailing comment
    LOOP: (W) jmpi START
    """
    data = assemble(text, "c.asm")
    assert data[:16] == bytes.fromhex(GOLDEN[0][1])
    assert E.decode(data[16:]).jip == -16 - 16       # back to START, counted from the next instruction
    assert [_norm(x) for x in disassemble(data).splitlines()] == [
        "L0:", "mov (8|M0) r10.0<1>:ud r11.0<8;8,1>:ud", "(W) jmpi L0", "L32:"]   # as iga64 prints it


@pytest.mark.parametrize("value", [1.5, -0.0, float("inf"), float("-inf"), 1e100])
def test_builder_double_immediate_is_the_ieee_pattern(value, tmp_path):
    """builder.imm of a :df value holds its IEEE double bits (it truncated the value to an integer, so
    1.5 became 1 and infinity raised), and iga64 assembles our text of the mov to our bytes."""
    import struct
    import subprocess

    from reconverge.isa.gen9.builder import imm
    assert imm(value, DataType.DF).value == struct.unpack("<Q", struct.pack("<d", value))[0]
    ours = E.encode_program([Instruction(opcode="mov", exec_size=4, srcs=[imm(value, DataType.DF)],
                                         dst=Operand(RegFile.GRF, DataType.DF, 10, 0, None, 1))])
    (tmp_path / "m.asm").write_text(disassemble(ours))
    subprocess.run(["iga64", "-p=9", "-a", str(tmp_path / "m.asm"), "-o", str(tmp_path / "m.krn")], check=True)
    assert (tmp_path / "m.krn").read_bytes() == ours
