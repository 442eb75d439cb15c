"""Encoding inspection: every field `disasm --fields` shows is the value encoded (packing the shown
values gives back the bytes), a one-bit flip is exactly one changed field in `diff`, and the JSON
follows the schema the README documents."""
from __future__ import annotations

import json
import os
import subprocess
import sys

import pytest

from reconverge.isa.gen9.assembler import assemble
from reconverge.isa.gen9.inspect import diff, inspect
from reconverge.isa.gen9.layout import pack
from tests.isa.gen9_corpus import control_flow_lines, corpus, numeric_branch_lines

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
_LABELLED = set(control_flow_lines())
SAMPLE = [line for line in corpus() if line not in _LABELLED][::7] + numeric_branch_lines()


@pytest.fixture(scope="module")
def binaries() -> tuple[bytes, bytes]:
    text = "\n".join(SAMPLE) + "\n"
    return assemble(text, "sample"), assemble(text, "sample", autocompact=True)


def test_the_shown_fields_pack_back_into_the_bytes(binaries):
    native, compacted = binaries
    assert sum(1 for v in inspect(compacted) if v.compact_form) > 10       # the sample compacts some
    for data in (native, compacted):
        for v in inspect(data):
            if v.compact_form:
                assert pack(v.compact_form, {f.name: f.value for f in v.compact_fields}) == v.raw, v.text
                assert pack(v.form, {f.name: f.value for f in v.fields}) == v.expanded, v.text
            else:
                assert pack(v.form, {f.name: f.value for f in v.fields}) == v.raw, v.text


def test_meanings_agree_with_the_disassembly(binaries):
    for v in inspect(binaries[0]):
        by_name = {f.name: f for f in v.fields}
        mnemonics = {w.split(".")[0] for w in v.text.split()}
        assert by_name["opcode"].meaning in mnemonics, v.text
        size = by_name["exec_size"].meaning.split()[0]
        if v.form not in ("a16", "3src") and "|M" in v.text:       # Align16 scalars print as (1)
            assert f"({size}|" in v.text, v.text


def test_a_one_bit_flip_is_one_changed_field(binaries):
    checked = 0
    for data in binaries:
        for v in inspect(data)[::2]:
            for bit in range(len(v.raw) * 8):
                if bit == 29:
                    continue                         # CmptCtrl: the word becomes a different length
                flipped = bytearray(v.raw)
                flipped[bit // 8] ^= 1 << (bit % 8)
                try:
                    changes = diff(v.raw, bytes(flipped))
                except Exception:                    # noqa: BLE001 - a flip may make undecodable bytes
                    continue
                if changes and changes[0].form_a == changes[0].form_b:
                    assert len(changes[0].fields) == 1, (v.text, bit, changes[0].fields)
                    checked += 1
    assert checked > 1000


def _cli(*args: str) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, "-m", "reconverge.tools.cli", *args], cwd=ROOT, capture_output=True, text=True,
                          env=dict(os.environ, PYTHONPATH=ROOT))


def test_json_follows_the_documented_schema(tmp_path, binaries):
    path = tmp_path / "k.krn"
    path.write_bytes(binaries[1])
    out = _cli("disasm", str(path), "--format", "json")
    assert out.returncode == 0, out.stderr
    doc = json.loads(out.stdout)
    assert doc["schema"] == "reconverge-gen9-disasm/1" and len(doc["kernels"]) == 1
    for ins in doc["kernels"][0]["instructions"]:
        assert set(ins) <= {"offset", "size", "bytes", "text", "form", "fields", "compacted"}
        assert isinstance(ins["offset"], int) and ins["size"] in (8, 16) and len(ins["bytes"]) == 2 * ins["size"]
        groups = [ins["fields"]] + ([ins["compacted"]["fields"]] if "compacted" in ins else [])
        for fields in groups:
            for f in fields:
                assert set(f) == {"name", "bits", "value", "meaning"}
                hi, lo = f["bits"]
                assert 0 <= lo <= hi < 8 * 16 and 0 <= f["value"] < 1 << (hi - lo + 1)


def test_diff_command_exit_codes_and_text(tmp_path, binaries):
    a, b = tmp_path / "a.krn", tmp_path / "b.krn"
    a.write_bytes(binaries[0])
    flipped = bytearray(binaries[0])
    flipped[16 + 7] ^= 0x02                          # dst_reg of the second instruction, bit 57
    b.write_bytes(bytes(flipped))
    same = _cli("diff", str(a), str(a))
    assert same.returncode == 0 and "0 instructions differ" in same.stdout
    changed = _cli("diff", str(a), str(b))
    assert changed.returncode == 1 and "dst_reg:" in changed.stdout and "1 instruction differ" in changed.stdout
    fields = _cli("disasm", str(a), "--fields")
    assert fields.returncode == 0 and "opcode             [6:0]" in fields.stdout
    bad = tmp_path / "bad.krn"
    bad.write_bytes(binaries[0][:20])
    broken = _cli("disasm", str(bad), "--fields")
    assert broken.returncode == 1 and "truncated" in broken.stderr and broken.stderr.count("\n") == 1
