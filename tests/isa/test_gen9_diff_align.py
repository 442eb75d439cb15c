"""`reconverge diff` aligns the two instruction sequences (a longest common subsequence, as `diff` of two
iga64 listings does) instead of pairing them by index: one instruction inserted or deleted is that one
line, not every instruction after it; a changed instruction shows its fields with their meanings."""
from __future__ import annotations

import os
import subprocess
import sys

from reconverge.isa.gen9.assembler import assemble
from reconverge.isa.gen9.inspect import diff

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
LINES = [f"add (8|M0) r{10 + i}.0<1>:d r{20 + i}.0<8;8,1>:d r{30 + i}.0<8;8,1>:d" for i in range(12)]
EXTRA = "mul (8|M0) r90.0<1>:d r91.0<8;8,1>:d r92.0<8;8,1>:d"
EOT = ["(W) mov (8|M0) r112.0<1>:ud r0.0<8;8,1>:ud", "(W) send (8|M0) null:ud r112 0x27 0x02000010 {EOT}"]


def _asm(lines: list[str]) -> bytes:
    return assemble("\n".join(lines + EOT) + "\n", "t")


def test_an_inserted_instruction_is_one_insertion_and_nothing_after_it_changes():
    a = _asm(LINES)
    b = _asm(LINES[:5] + [EXTRA] + LINES[5:])
    [change] = diff(a, b)
    assert (change.kind, change.index_a, change.index_b, change.offset_b) == ("inserted", None, 5, 5 * 16)
    assert change.text_b.startswith("mul (8|M0)")
    [change] = diff(b, a)
    assert (change.kind, change.index_a, change.index_b) == ("deleted", 5, None)


def test_a_changed_instruction_is_paired_with_its_fields_and_their_meanings():
    a = _asm(LINES[:3] + ["mov (8|M0) r40.0<1>:uq r41.0<4;4,1>:uq"] + LINES[3:])
    b = _asm(LINES[:2] + ["mov (8|M0) r40.0<1>:q r41.0<4;4,1>:q"] + LINES[3:])      # LINES[2] deleted too
    changes = diff(a, b)
    assert [c.kind for c in changes] == ["deleted", "changed"]
    changed = changes[1]
    assert (changed.index_a, changed.index_b) == (3, 2)
    meanings = {name: m for (name, _, _), m in zip(changed.fields, changed.meanings)}
    assert meanings["dst_type"] == ("uq", "q") and meanings["src0_type"] == ("uq", "q")


def test_the_diff_command_prints_insertions_deletions_and_changes(tmp_path):
    (tmp_path / "a.krn").write_bytes(_asm(LINES[:3] + ["mov (8|M0) r40.0<1>:uq r41.0<4;4,1>:uq"] + LINES[3:]))
    (tmp_path / "b.krn").write_bytes(_asm(LINES[:3] + ["mov (8|M0) r40.0<1>:q r41.0<4;4,1>:q"] + LINES[3:]
                                          + [EXTRA]))
    done = subprocess.run([sys.executable, "-m", "reconverge.tools.cli", "diff", "a.krn", "b.krn"], cwd=tmp_path,
                          capture_output=True, text=True, env=dict(os.environ, PYTHONPATH=ROOT))
    assert done.returncode == 1, done.stderr
    lines = done.stdout.splitlines()
    assert lines[0] == "~ #3 @0x0030 -> #3 @0x0030"
    assert "      dst_type: 0x8 -> 0x9 (uq -> q)" in lines
    assert any(line.startswith("+ #13 @0x00d0  mul (8|M0)") for line in lines)
    assert lines[-1] == "2 instructions differ (1 changed, 1 inserted)"
