"""The opcode table (isa/gen9/opcodes.py) checked row by row against Intel's iga64, where iga64 can tell:
the mnemonic set, each opcode's number, how many sources it takes, whether (sat) and a conditional
modifier are encoded, and each math function's source count.  Our assembler must agree with iga64 on the
same lines (it drops what iga64 drops).  A missing iga64 is a failure (CI installs libigc-tools).
"""
from __future__ import annotations

import shutil
import subprocess

import pytest

from reconverge.isa.gen9 import encoding as E
from reconverge.isa.gen9 import opcodes
from reconverge.isa.gen9.assembler import assemble
from reconverge.isa.gen9.opcodes import OPCODES, TABLE, Operands


def _iga(*args: str) -> subprocess.CompletedProcess:
    exe = shutil.which("iga64")
    if exe is None:
        pytest.fail("iga64 not found on PATH: it is the oracle for these tests (install libigc-tools)")
    return subprocess.run([exe, "-p=9", *args], capture_output=True, text=True)


def _assemble_iga(tmp_path, text: str) -> bytes | None:
    """iga64's bytes for `text`, or None when it rejects it."""
    src, out = tmp_path / "t.asm", tmp_path / "t.krn"
    src.write_text(text + "\n")
    r = _iga("-a", str(src), "-o", str(out))
    if r.returncode != 0 or " error" in r.stderr:
        return None
    return out.read_bytes()


def _generic(op: opcodes.Opcode, n: int, modifiers: str = "", sat: str = "") -> str:
    """`op` with n register sources, typed for its operand class."""
    t = "d" if op.operands is Operands.INT else "f"
    src = (lambda i: f"r{2 + i}.0<{'1' if i == 2 else '2;1'}>:{t}") if op.three_src else (lambda i: f"r{2 + i}.0<8;8,1>:{t}")
    return " ".join([f"{op.name} (8|M0)", modifiers, f"{sat}r1.0<1>:{t}"] + [src(i) for i in range(n)]).replace("  ", " ")


# the generic ALU rows: math has per-function sources (below), madm only math-macro operands
ALU = [o for o in TABLE if o.alu and o.name not in ("math", "madm")]


def test_the_mnemonics_are_iga64s():
    r = _iga("-Xlist-ops")
    listed = {line.split()[0] for line in r.stdout.splitlines()[1:] if line.strip()}
    assert listed == set(OPCODES)


def test_numbers_and_flags_match_iga64(tmp_path):
    """One line per ALU opcode with (sat) and a conditional modifier: the opcode field is the table's
    number, and the saturate and cond-mod bits are set exactly where the table says they are encoded."""
    lines = [_generic(o, o.srcs, "(lt)f0.0", "(sat)") for o in ALU]
    ref = _assemble_iga(tmp_path, "\n".join(lines))
    assert ref is not None
    for k, o in enumerate(ALU):
        inst = E.decode(ref[16 * k:16 * k + 16])
        assert ref[16 * k] & 0x7F == o.number, o.name
        assert (inst.opcode, inst.saturate, inst.cond_mod) == (o.name, o.saturate, "lt" if o.cond_mod else None)
    assert assemble("\n".join(lines)) == ref          # the assembler drops what iga64 drops


@pytest.mark.parametrize("op", ALU, ids=lambda o: o.name)
def test_source_counts_match_iga64(tmp_path, op):
    assert _assemble_iga(tmp_path, _generic(op, op.srcs)) is not None
    assert _assemble_iga(tmp_path, _generic(op, op.srcs + 1)) is None
    if op.srcs:
        assert _assemble_iga(tmp_path, _generic(op, op.srcs - 1)) is None


@pytest.mark.parametrize("fc", sorted(set(opcodes.MATH_FC) - {"invm", "rsqtm"}))
def test_math_source_counts_match_iga64(tmp_path, fc):
    n = opcodes.MATH_SOURCES[fc]
    line = f"math.{fc} (8|M0) r1.0<1>:f " + " ".join(f"r{2 + i}.0<8;8,1>:f" for i in range(n))
    ref = _assemble_iga(tmp_path, line)
    assert ref is not None and assemble(line) == ref
    assert _assemble_iga(tmp_path, line + " r9.0<8;8,1>:f") is None
    assert ref[3] & 0x0F == opcodes.MATH_FC[fc]


def test_branch_and_send_rows_encode_as_iga64_does(tmp_path):
    """The numbers of the rows the generic lines do not reach (branches, sends, nop), and that the
    branch-form rows are the ones with JIP and UIP."""
    lines = ["L0:", "if (8|M0) L1 L1", "else (8|M0) L1 L1", "endif (8|M0) L1", "L1:", "while (8|M0) L0",
             "break (8|M0) L1 L1", "cont (8|M0) L1 L1", "halt (8|M0) L1 L1", "goto (8|M0) L1 L1",
             "join (8|M0) L1", "jmpi L1", "send (8|M0) r10 r2 0xA 0x02100000", "sendc (8|M0) r10 r2 0xA 0x02100000",
             "sends (8|M0) r10 r2 r3 0x4A 0x02100000", "sendsc (8|M0) r10 r2 r3 0x4A 0x02100000", "nop"]
    text = "\n".join(lines)
    ref = _assemble_iga(tmp_path, text)
    assert ref is not None and assemble(text) == ref
    names = [line.split()[0] for line in lines if not line.endswith(":")]
    for k, name in enumerate(names):
        assert ref[16 * k] & 0x7F == OPCODES[name].number, name
        assert (E.native_form(ref[16 * k:16 * k + 16]) == "branch") == (name in opcodes.BRANCH_JIP_UIP), name


def test_derived_name_lists_are_the_rows():
    assert set(opcodes.THREE_SRC) == {o.name for o in TABLE if o.srcs == 3 and o.alu}
    assert set(opcodes.SENDS_ALL) == {"send", "sendc", "sends", "sendsc"}
    assert set(opcodes.BRANCHES) >= set(opcodes.BRANCH_JIP_UIP) | set(opcodes.BRANCH_JIP_ONLY) | {"jmpi"}
    assert len({o.number for o in TABLE}) == len(TABLE)
    assert set(opcodes.MATH_FC) == set(opcodes.MATH_SOURCES) >= opcodes.MATH_INT
