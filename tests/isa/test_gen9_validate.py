"""The encoded-code validator (isa/gen9/validate.py): one hand-built violating instruction per rule is
flagged (through the binary wherever the encoder can write it), legal look-alikes are not, every violation
of a program is reported with its index, offset, text and rule, iga64's own checker agrees where it checks
the same rule, and `disasm --validate` reports and exits 1."""
from __future__ import annotations

import subprocess
import sys

import pytest

from reconverge.isa.gen9 import fields as F
from reconverge.isa.gen9.assembler import assemble
from reconverge.isa.gen9.builder import grf, imm
from reconverge.isa.gen9.encoding import encode_program
from reconverge.isa.gen9.layout import pack
from reconverge.isa.gen9.model import DataType, Instruction, Operand, Predicate, RegFile, Region
from reconverge.isa.gen9.validate import RULES, validate_binary, validate_program

T = DataType
EOT = "(W) send (8|M0) null r112 0x27 0x02000010 {EOT}"     # a kernel's end, so only the case is flagged


def _asm(text: str) -> list[str]:
    return sorted({v.rule.key for v in validate_binary(assemble(text + "\n" + EOT + "\n"))})


def _model(*insts: Instruction, binary: bool = True) -> list[str]:
    """The rules a model program breaks: through encode -> decode when the encoder can write it."""
    program = [*insts, *_eot()]
    found = validate_binary(encode_program(program)) if binary else validate_program(program)
    return sorted({v.rule.key for v in found})


def _eot() -> list[Instruction]:
    from reconverge.isa.gen9.assembler import assemble_instructions
    return assemble_instructions(EOT + "\n")


def _mov(dst: Operand, src: Operand, n: int = 8, **kw) -> Instruction:
    return Instruction("mov", n, dst=dst, srcs=[src], **kw)


# rule -> a violating instruction in iga64 syntax (assembled, then validated as a binary)
ASM_CASES = {
    "src-null": "mov (8|M0) r10.0<1>:d null<8;8,1>:d",
    "region-width": "mov (4|M0) r10.0<1>:f r20.0<8;8,1>:f",
    "region-vstride": "mov (8|M0) r10.0<1>:f r20.0<4;8,1>:f",
    "region-width1": "mov (8|M0) r10.0<1>:f r20.0<1;1,1>:f",
    "region-exec1": "mov (1|M0) r10.0<1>:f r20.0<1;1,0>:f",
    "region-scalar": "mov (4|M0) r10.0<1>:f r20.0<0;4,0>:f",
    "region-row-cross": "mov (8|M0) r10.0<1>:f r20.6<8;8,1>:f",
    "dst-hstride": "mov (8|M0) r10.0<0>:d r20.0<8;8,1>:d",
    "src-span": "mov (8|M0) r10.0<1>:d r20.0<16;4,4>:d",
    "dst-span": "mov (16|M0) r10.0<2>:f r20.0<8;8,1>:f",
    "math-dst-split": "math.inv (8|M0) r10.2<1>:f r20.0<8;8,1>:f",
    "exec-type-size": "mov (16|M0) r10.0<1>:d r20.0<0;1,0>:q",
    "packed-byte-dst": "add (8|M0) r10.0<1>:b r20.0<8;8,1>:b r30.0<8;8,1>:b",
    "dst-stride-exec-type": "mov (8|M0) r10.0<1>:w r20.0<8;8,1>:d",
    "dst-align-exec-type": "mov (8|M0) r10.1<2>:w r20.0<8;8,1>:d",
    "byte-64bit": "mov (4|M0) r10.0<4>:b r20.0<4;4,1>:df",
    "hf-64bit": "mov (4|M0) r10.0<4>:hf r20.0<4;4,1>:df",
    "int-hf-dst": "mov (8|M0) r10.0<1>:hf r20.0<8;8,1>:d",
    "f-hf-dst": "mov (8|M0) r10.0<4>:hf r20.0<8;8,1>:f",
    "mixed-indirect": "add (8|M0) r10.0<1>:f r[a0.0]<8;8,1>:hf r30.0<8;8,1>:f",
    "mixed-f-dst-simd8": "add (16|M0) r10.0<1>:f r20.0<8;8,1>:hf r30.0<8;8,1>:hf",
    "mixed-packed-hf-dst": "add (16|M0) r10.0<1>:hf r20.0<8;8,1>:f r22.0<8;8,1>:hf",
    "mixed-math-hf-stride": "math.inv (8|M0) r10.0<1>:f r20.0<8;8,1>:hf",
    "mixed-acc": "mac (8|M0) r10.0<1>:hf r20.0<8;8,1>:f r30.0<8;8,1>:f",
    "vector-imm-dst": "mov (8|M0) r10.0<1>:d 0x12345678:v",
    "mul-qword-source": "mul (4|M0) r10.0<1>:q r20.0<4;4,1>:q r30.0<4;4,1>:q",
    "math-types": "math.inv (4|M0) r10.0<1>:df r20.0<4;4,1>:df",
    "math-idiv-modifier": "math.idiv (8|M0) r10.0<1>:d -r20.0<8;8,1>:d r21.0<8;8,1>:d",
    "math-idiv-simd8": "math.idiv (16|M0) r10.0<1>:d r20.0<8;8,1>:d r22.0<8;8,1>:d",
    "send-src-grf": "send (8|M0) r10 acc0 0xA 0x02000010",
    "send-eot-r112": "send (8|M0) null r20 0x27 0x02000010 {EOT}",
    "send-lengths": "send (8|M0) r10 r20 0xA 0x00000010",
    "send-r127-overlap": "send (8|M0) r126 r120 0xA 0x0E200010",
    "sends-src1": "sends (8|M0) r10 r20 acc0 0x4A 0x04000010",
    "sends-overlap": "sends (8|M0) r10 r20 r21 0x4A 0x04000010",
    "channel-group": "mov (16|M8) r10.0<1>:f r0.1<0;1,0>:f",
    "cmp-cond-mod": "cmp (8|M0) null<1>:d r20.0<8;8,1>:d r30.0<8;8,1>:d",
    "branch-target": "(W) jmpi (1|M0) 8\nnop\nnop",
}

# rule -> a violating model instruction the assembler refuses to write (encoded where the encoder can)
MODEL_CASES = {
    "grf-range": lambda: _mov(grf(127, T.D, subreg=4), grf(20, T.D, region=(8, 8, 1))),   # runs into r128
    "arf-number": lambda: _mov(grf(10, T.D), Operand(RegFile.ARF, T.D, 0xE0, region=Region(0, 1, 0))),
    "saturate": lambda: Instruction("and", 8, dst=grf(10, T.D), saturate=True,
                                    srcs=[grf(20, T.D, region=(8, 8, 1)), grf(30, T.D, region=(8, 8, 1))]),
    "qword-align16-exec": lambda: Instruction("add", 4, align16=True, dst=grf(10, T.Q),
                                              srcs=[grf(20, T.D), grf(30, T.D)]),
    "jmpi-scalar": lambda: Instruction("jmpi", 1, jip=0),
    "branch-offset-align": lambda: Instruction("jmpi", 1, jip=4, mask_ctrl_we_all=True),
    "branch-direction": lambda: Instruction("while", 8, jip=32, predicate=Predicate()),
}
# model programs the encoder refuses: validated as models
UNENCODABLE_CASES = {
    "imm-last-source": lambda: Instruction("add", 8, dst=grf(10, T.D), srcs=[imm(1), grf(20, T.D, region=(8, 8, 1))]),
    "imm64-one-source": lambda: Instruction("add", 4, dst=grf(10, T.Q),
                                            srcs=[grf(20, T.Q, region=(4, 4, 1)), imm(1, T.Q)]),
}


def test_every_rule_has_a_violating_case():
    covered = set(ASM_CASES) | set(MODEL_CASES) | set(UNENCODABLE_CASES) | {"encoding", "program-end"}
    assert covered == set(RULES)


@pytest.mark.parametrize("rule", sorted(ASM_CASES))
def test_assembled_violation_is_flagged(rule):
    assert rule in _asm(ASM_CASES[rule])


@pytest.mark.parametrize("rule", sorted(MODEL_CASES))
def test_model_violation_is_flagged_in_the_binary(rule):
    assert rule in _model(MODEL_CASES[rule]())


@pytest.mark.parametrize("rule", sorted(UNENCODABLE_CASES))
def test_unencodable_violation_is_flagged_in_the_model(rule):
    assert rule in _model(UNENCODABLE_CASES[rule](), binary=False)


def test_immediate_in_src0_of_a_two_source_word_is_flagged_from_the_raw_fields():
    """The decoder cannot read such a word (src1's region bits hold the immediate): the raw fields say why."""
    word = pack("a1imm", dict(opcode=F.OPCODES["add"], exec_size=3, dst_file=1, dst_type=1, dst_reg=10,
                              dst_hstride=1, src0_file=3, src0_type=F.IMM_TYPE["d"], src1_file=1, src1_type=1,
                              imm32=1))
    assert {v.rule.key for v in validate_binary(word, kernel=False)} == {"imm-last-source"}


@pytest.mark.parametrize("field, value", [("dst_type", 11), ("src0_width", 5), ("src0_vstride", 8),
                                          ("cond_mod", 7), ("exec_size", 6), ("dst_file", 2)])
def test_undefined_field_values_are_encoding_violations(field, value):
    fields = dict(opcode=F.OPCODES["add"], exec_size=3, dst_file=1, dst_type=1, dst_reg=10, dst_hstride=1,
                  src0_file=1, src0_type=1, src0_reg=20, src0_vstride=4, src0_width=3, src0_hstride=1,
                  src1_file=1, src1_type=1, src1_reg=30, src1_vstride=4, src1_width=3, src1_hstride=1)
    assert validate_binary(pack("a1", fields), kernel=False) == []
    found = validate_binary(pack("a1", fields | {field: value}), kernel=False)
    assert any(v.rule.key == "encoding" and field.split("_")[-1] in v.detail.replace(" ", "_") for v in found), found


def test_a_program_that_does_not_end_its_thread():
    assert _asm_fragment("mov (8|M0) r10.0<1>:d r20.0<8;8,1>:d") == ["program-end"]
    assert _asm_fragment(EOT) == []


def _asm_fragment(text: str) -> list[str]:
    return sorted({v.rule.key for v in validate_binary(assemble(text + "\n"))})


LEGAL = [
    "mov (8|M0) r10.0<1>:f r20.0<8;8,1>:f",
    "mov (8|M0) r10.0<1>:f r20.0<8;4,1>:f",                  # two rows of 4
    "mov (16|M0) r10.0<1>:f r20.0<8;8,1>:f",                 # the second row crosses by VertStride
    "mov (16|M0) r10.0<1>:f r0.1<0;1,0>:f",
    "mov (8|M0) r10.0<1>:q r20.0<4;4,1>:q",                  # SIMD8 of 64 bits: two registers
    "mov (8|M0) r10.0<1>:q r0.1<0;1,0>:ud",
    "mul (8|M0) r10.0<1>:uq r20.0<8;4,2>:ud r30.0<8;4,2>:ud",  # D x D -> Q
    "mov (8|M0) r10.0<1>:ud r20.0<8;4,2>:ud",                # the low halves of 64-bit values
    "mov (8|M0) r10.0<4>:ub r20.0<8;8,1>:d",                 # byte destination strided to the DWord
    "mov (16|M0) r10.0<1>:ub r20.0<16;16,1>:ub",             # raw byte move
    "mov (8|M0) r10.0<2>:w r20.0<8;8,1>:d",
    "mov (8|M0) r10.0<1>:d r20.0<8;8,1>:w",
    "mov (8|M0) r10.0<2>:hf r20.0<8;8,1>:f",
    "mov (8|M0) r10.0<1>:hf r20.0<8;8,1>:f",                 # mixed mode: packed, OWord aligned, SIMD8
    "add (16|M0) r10.0<2>:hf r20.0<8;8,1>:f r22.0<8;8,1>:hf",
    "mov (8|M0) r10.0<1>:w 0x12345678:v",
    "mov (8|M0) r10.0<1>:q 0x1:q",
    "math.inv (16|M0) r10.0<1>:f r20.0<8;8,1>:f",
    "math.idiv (8|M0) r10.0<1>:d r20.0<8;8,1>:d r21.0<8;8,1>:d",
    "math.fdiv (8|M0) r10.0<1>:f r20.0<8;8,1>:f r21.0<8;8,1>:f",
    "mad (8|M0) r10.0<1>:f r20.0<2;1>:f r30.0<2;1>:f r40.0<1>:f",
    "mov (8|M8) r10.0<1>:f r0.1<0;1,0>:f",
    "(f0.0) sel (16|M0) r10.0<1>:d r20.0<8;8,1>:d 0:d",
    "cmp (16|M0) (lt)f0.0 null<1>:d r20.0<8;8,1>:d 0:d",
    "send (16|M0) r8 r6 0xA 0x04210102",
    "(W) jmpi (1|M0) 0\nnop",
]


@pytest.mark.parametrize("text", LEGAL)
def test_legal_instruction_is_clean(text):
    assert _asm(text) == []


def test_every_violation_of_every_instruction_is_reported_in_order():
    text = "mov (8|M0) r10.0<1>:d r20.0<8;8,1>:d\nmov (16|M0) r10.0<1>:q r20.0<8;8,1>:q\n" \
           "mov (8|M0) r10.0<1>:b r20.0<8;8,1>:d\n" + EOT + "\n"
    found = validate_binary(assemble(text))
    assert [(v.index, v.offset) for v in found] == [(1, 16)] * 4 + [(2, 32)]
    assert {v.rule.key for v in found if v.index == 1} == {"region-row-cross", "src-span", "dst-span",
                                                           "exec-type-size"}
    line = str(found[-1])
    assert line.startswith("#2 @32: mov (8|M0) r10.0<1>:b r20.0<8;8,1>:d: packed-byte-dst: ")
    assert "SKL PRM Vol 7" in line


def test_every_rule_cites_a_prm_volume():
    assert all("PRM Vol" in rule.source for rule in RULES.values())


IGA_CHECKED = ("region-width", "region-vstride", "region-exec1", "region-scalar", "region-row-cross",
               "exec-type-size", "byte-64bit", "hf-64bit", "mul-qword-source", "math-types")


@pytest.mark.parametrize("rule", IGA_CHECKED)
def test_iga64_flags_the_same_case(rule, tmp_path):
    """Intel's assembler checks these rules too (-Wall): it warns on our violating case."""
    path = tmp_path / "case.asm"
    path.write_text(ASM_CASES[rule] + "\n")
    iga = subprocess.run(["iga64", "-p=9", "-a", "-Wall", str(path), "-o", str(tmp_path / "case.krn")],
                         capture_output=True, text=True)
    assert "warning" in iga.stderr, iga.stderr


def test_iga64_is_quiet_on_the_legal_cases(tmp_path):
    path = tmp_path / "legal.asm"
    path.write_text("\n".join(t for t in LEGAL if "jmpi" not in t) + "\n")
    iga = subprocess.run(["iga64", "-p=9", "-a", "-Wall", str(path), "-o", str(tmp_path / "legal.krn")],
                         capture_output=True, text=True)
    assert iga.returncode == 0 and "warning" not in iga.stderr, iga.stderr


def _cli(*args: str) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, "-m", "reconverge.tools.cli", *args], capture_output=True, text=True)


def test_disasm_validate(tmp_path):
    bad, good = tmp_path / "bad.krn", tmp_path / "good.krn"
    bad.write_bytes(assemble("mov (8|M0) r10.0<1>:b r20.0<8;8,1>:d\n" + EOT + "\n"))
    good.write_bytes(assemble("mov (8|M0) r10.0<1>:d r20.0<8;8,1>:d\n" + EOT + "\n"))
    out = _cli("disasm", str(bad), "--validate")
    assert out.returncode == 1 and out.stdout.splitlines()[0].startswith("#0 @0: mov (8|M0)")
    assert "packed-byte-dst" in out.stdout and out.stdout.endswith("1 violation in 1 kernel\n")
    out = _cli("disasm", str(good), "--validate")
    assert out.returncode == 0 and out.stdout == "0 violations in 1 kernel\n"
    out = _cli("disasm", str(good), "--validate", "--fields")
    assert out.returncode == 2 and out.stderr.startswith("reconverge: error: ") and len(out.stderr.splitlines()) == 1


def test_compacted_instructions_are_expanded_and_offsets_follow_the_bytes():
    text = "mov (8|M0) r10.0<1>:d r20.0<8;8,1>:d\nmov (8|M0) r10.0<1>:b r20.0<8;8,1>:d\n" + EOT + "\n"
    data = assemble(text, autocompact=True)
    assert len(data) < 48                                  # the first mov is compacted
    found = validate_binary(data)
    assert [(v.index, v.offset, v.rule.key) for v in found] == [(1, 8, "packed-byte-dst")]


def test_a_source_span_is_the_first_and_last_byte_of_its_rows():
    """_check_spans reads source_span; the region rules read source_rows: the two agree on every region."""
    from reconverge.isa.gen9.validate import source_rows, source_span
    for t in (DataType.UB, DataType.W, DataType.F, DataType.DF):
        for v in (0, 1, 2, 4, 8, 16, 32):
            for w in (1, 2, 4, 8, 16):
                for h in (0, 1, 2, 4):
                    for n in (1, 4, 8, 16):
                        o = Operand(RegFile.GRF, t, reg=3, subreg=1, region=Region(v, w, h))
                        rows = source_rows(o, n)
                        assert source_span(o, n) == (min(lo for lo, _ in rows), max(hi for _, hi in rows))
