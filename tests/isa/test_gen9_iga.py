"""Gen9 encoding, assembler and disassembler checked bit-exactly against Intel's iga64.

iga64 is the oracle: the generated corpus (gen9_corpus.py, 700+ instructions) is assembled by iga64 once
natively and once with -Xautocompact, and disassembled by iga64; everything we produce must match.  A
missing iga64 is a failure, not a skip (CI installs it: Debian package libigc-tools).
"""
from __future__ import annotations

import re
import shutil
import subprocess
from types import SimpleNamespace

import pytest
from gen9_corpus import corpus, numeric_branch_lines, random_lines

from reconverge.isa.gen9 import encoding as E
from reconverge.isa.gen9.assembler import assemble, assemble_instructions
from reconverge.isa.gen9.disassembler import disassemble
from reconverge.records import fields, replace

REQUIRED_OPS = {"mov", "sel", "not", "and", "or", "xor", "shl", "shr", "asr", "cmp", "add", "mul", "mach",
                "mad", "math", "frc", "rndd", "rnde", "rndz", "lzd", "bfrev", "cbit", "fbh", "fbl", "jmpi",
                "if", "else", "endif", "while", "break", "cont", "halt", "send", "sends", "nop"}


def _iga(*args: str) -> subprocess.CompletedProcess:
    exe = shutil.which("iga64")
    if exe is None:
        pytest.fail("iga64 not found on PATH: it is the oracle for these tests (install libigc-tools)")
    r = subprocess.run([exe, "-p=9", *args], capture_output=True, text=True)
    if r.returncode != 0 or " error:" in r.stderr:
        pytest.fail(f"iga64 {' '.join(args)} failed:\n{r.stderr[-2000:]}")
    return r


def norm(text: str) -> list[str]:
    """iga64's text with runs of whitespace collapsed and blank lines dropped."""
    return [re.sub(r"\s+", " ", line).strip() for line in text.splitlines() if line.strip()]


@pytest.fixture(scope="module")
def oracle(tmp_path_factory):
    """Corpus source, iga64's native and autocompacted binaries, and iga64's disassembly of both."""
    d = tmp_path_factory.mktemp("iga9")
    lines = corpus() + random_lines()
    src = "\n".join(lines) + "\n"
    (d / "c.asm").write_text(src)
    _iga("-a", str(d / "c.asm"), "-o", str(d / "n.krn"))
    _iga("-a", "-Xautocompact", str(d / "c.asm"), "-o", str(d / "c.krn"))
    num = "\n".join(numeric_branch_lines()) + "\n"
    (d / "num.asm").write_text(num)
    _iga("-a", str(d / "num.asm"), "-o", str(d / "num.krn"))
    ns = SimpleNamespace(lines=lines, src=src, num_src=num,
                         native=(d / "n.krn").read_bytes(), compact=(d / "c.krn").read_bytes(),
                         num=(d / "num.krn").read_bytes())
    ns.native_text = _iga("-d", str(d / "n.krn")).stdout
    ns.native_text_n = _iga("-d", "-n", str(d / "n.krn")).stdout
    ns.compact_text = _iga("-d", str(d / "c.krn")).stdout
    ns.num_text = _iga("-d", str(d / "num.krn")).stdout
    ns.num_text_n = _iga("-d", "-n", str(d / "num.krn")).stdout
    return ns


def _first_diff(ours: bytes, ref: bytes, src_lines: list[str]) -> str:
    insts = [line for line in src_lines if not line.rstrip().endswith(":")]
    pc = k = 0
    while pc < min(len(ours), len(ref)):
        n = E.instruction_length(ref, pc)
        if ours[pc:pc + n] != ref[pc:pc + n]:
            return f"at byte {pc} ({insts[k] if k < len(insts) else '?'}): ours {ours[pc:pc + n].hex()} iga64 {ref[pc:pc + n].hex()}"
        pc, k = pc + n, k + 1
    return f"lengths differ: ours {len(ours)} iga64 {len(ref)}"


def _text_diff(ours, ref) -> str:
    if isinstance(ours, str):
        ours, ref = ours.split("\n"), ref.split("\n")
    for a, b in zip(ours, ref):
        if a != b:
            return f"\n ours:  {a!r}\n iga64: {b!r}"
    return f"line counts differ: ours {len(ours)} iga64 {len(ref)}"


def test_corpus_is_large_and_covers_the_required_opcodes():
    insts = assemble_instructions("\n".join(corpus()))
    assert len(insts) >= 500
    assert REQUIRED_OPS <= {i.opcode for i in insts}
    assert {i.math_fc for i in insts if i.opcode == "math"} >= {"inv", "sqt", "rsqt", "exp", "log", "sin",
                                                               "cos", "pow", "fdiv", "idiv", "iqot", "irem"}
    assert {i.exec_size for i in insts} == {1, 2, 4, 8, 16, 32}
    assert {i.chan_offset for i in insts} == set(range(0, 32, 4))
    assert {i.predicate.control for i in insts if i.predicate} >= {"", "anyv", "allv", "any2h", "all32h"}


def test_assembler_bytes_equal_iga64(oracle):
    ours = assemble(oracle.src, "corpus.asm")
    assert ours == oracle.native, _first_diff(ours, oracle.native, oracle.lines)


def test_autocompacted_bytes_equal_iga64(oracle):
    ours = assemble(oracle.src, "corpus.asm", autocompact=True)
    assert len(oracle.compact) < len(oracle.native)          # iga64 did compact some
    assert ours == oracle.compact, _first_diff(ours, oracle.compact, oracle.lines)


def test_disassembly_equals_iga64(oracle):
    # whitespace-normalised first (the contract), then character for character (column padding too)
    ours, ref = norm(disassemble(oracle.native)), norm(oracle.native_text)
    assert ours == ref, _text_diff(ours, ref)
    assert disassemble(oracle.native) == oracle.native_text, _text_diff(disassemble(oracle.native), oracle.native_text)
    ours, ref = disassemble(oracle.native, labels=False), oracle.native_text_n
    assert ours == ref, _text_diff(ours, ref)


def test_disassembly_of_compacted_program_equals_iga64(oracle):
    ours, ref = norm(disassemble(oracle.compact)), norm(oracle.compact_text)
    assert sum("{Compacted" in line for line in ref) > 100
    assert ours == ref, _text_diff(ours, ref)
    assert disassemble(oracle.compact) == oracle.compact_text, _text_diff(disassemble(oracle.compact),
                                                                          oracle.compact_text)


@pytest.mark.parametrize("which", ["native", "compact", "num"])
def test_decode_encode_round_trip(oracle, which):
    data = getattr(oracle, which)
    assert E.encode_program(E.decode_program(data)) == data


@pytest.mark.parametrize("which", ["native", "compact"])
def test_iga64_text_reassembles_to_the_same_bytes(oracle, which):
    text = oracle.native_text if which == "native" else oracle.compact_text
    data = oracle.native if which == "native" else oracle.compact
    ours = assemble(text, "iga64.txt")
    assert ours == data, _first_diff(ours, data, norm(text))


def test_decoded_instructions_equal_assembled_instructions(oracle):
    ours = assemble_instructions(oracle.src)
    decoded = E.decode_program(oracle.native)
    assert len(ours) == len(decoded)
    for src, a, b in zip([line for line in oracle.lines if not line.endswith(":")], ours, decoded):
        assert a == b, f"{src}: {_dataclass_diff(a, b)}"


def test_compacted_instructions_decode_like_their_native_form(oracle):
    native, compact = E.decode_program(oracle.native), E.decode_program(oracle.compact)
    assert len(native) == len(compact)
    seen = 0
    for a, b in zip(native, compact):
        if b.compacted:
            seen += 1
            b = replace(b, compacted=False)
            if a.chan_offset != b.chan_offset:        # iga64's compactor drops NibCtrl (see encoding)
                a = replace(a, chan_offset=a.chan_offset & ~4)
        a, b = (replace(x, jip=None, uip=None) for x in (a, b))
        assert a == b, _dataclass_diff(a, b)
    assert seen > 100


def test_numeric_branch_offsets(oracle):
    assert assemble(oracle.num_src, "num.asm") == oracle.num
    assert disassemble(oracle.num) == oracle.num_text
    assert disassemble(oracle.num, labels=False) == oracle.num_text_n
    assert assemble(oracle.num_text_n, "num.txt") == oracle.num


def _dataclass_diff(a, b) -> str:
    da, db = ({f.name: getattr(x, f.name) for f in fields(x)} for x in (a, b))
    return str({k: (da[k], db[k]) for k in da if da[k] != db[k]})
