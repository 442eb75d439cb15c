"""The kernel container: kernels packed with their names, SIMD widths and payload layouts come back
byte for byte, malformed files are one-line errors, and disasm (text, --fields, JSON) and diff read it."""
from __future__ import annotations

import json
import os
import subprocess
import sys

import pytest

from reconverge.isa.gen9.assembler import assemble
from reconverge.isa.gen9.container import ALIGN, Kernel, pack_container, unpack_container
from reconverge.isa.gen9.errors import IsaError

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
A = "add (16|M0) r10.0<1>:d r11.0<8;8,1>:d r12.0<8;8,1>:d\nmov (16|M0) r13.0<1>:f 1.5:f\n"
B = "mul (8|M0) r20.0<1>:d r21.0<8;8,1>:d 3:d\n"


def _kernels() -> list[Kernel]:
    return [Kernel("first", assemble(A, "a"), 16, {"local_ids": [1, 2, 3], "cross_thread": 4}),
            Kernel("second", assemble(B, "b"), 8, {})]


def test_kernels_come_back_as_they_went_in():
    data = pack_container(_kernels())
    back = unpack_container(data)
    assert [(k.name, k.code, k.simd, k.payload) for k in back] == [(k.name, k.code, k.simd, k.payload)
                                                                   for k in _kernels()]
    index = json.loads(data[16:16 + int.from_bytes(data[12:16], "little")])["kernels"]
    assert all(e["offset"] % ALIGN == 0 for e in index)
    assert unpack_container(assemble(A, "a"))[0].code == assemble(A, "a")      # a bare binary is one kernel



def test_the_index_is_sort_keys_json_of_the_kernels():
    """pack_container writes each kernel's index text once and settles the offsets on their digits: the
    index stays exactly json.dumps({"kernels": [...]}, sort_keys=True) of the kernels at their offsets,
    for names JSON escapes and for indexes whose own length moves the offsets across a digit."""
    code = assemble(A, "a")
    for count in (0, 1, 2, 12, 150):
        kernels = [Kernel(f'k\u00e9"{i}\\' if i % 3 else f"k{i}", code * (1 + i % 4), 8 if i % 2 else 16,
                          {"z": [i, 1.5, None], "a": {"y": True, "b": "\u00fc"}} if i % 5 else {})
                   for i in range(count)]
        data = pack_container(kernels)
        size = int.from_bytes(data[12:16], "little")
        index = json.loads(data[16:16 + size])["kernels"]
        assert data[16:16 + size] == json.dumps({"kernels": index}, sort_keys=True).encode()
        assert [(e["name"], e["simd"], e["size"], e["payload"]) for e in index] == \
            [(k.name, k.simd, len(k.code), k.payload) for k in kernels]
        assert index[:1] == [] or index[0]["offset"] == -(-(16 + size) // ALIGN) * ALIGN
        assert all(data[e["offset"]:e["offset"] + e["size"]] == k.code for e, k in zip(index, kernels))

@pytest.mark.parametrize("damage, message", [
    (lambda d: d[:12], "truncated"),
    (lambda d: d[:8] + (7).to_bytes(4, "little") + d[12:], "format version 7"),
    (lambda d: d[:16] + b"x" + d[17:], "index is not the JSON"),
    (lambda d: d[:-4], "lies outside the file"),
])
def test_malformed_containers_are_errors(damage, message):
    with pytest.raises(IsaError, match=message):
        unpack_container(damage(pack_container(_kernels())))


def _cli(*args: str) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, "-m", "reconverge.tools.cli", *args], cwd=ROOT, capture_output=True, text=True,
                          env=dict(os.environ, PYTHONPATH=ROOT))


def test_disasm_and_diff_read_containers(tmp_path):
    path, other = tmp_path / "k.bin", tmp_path / "k2.bin"
    path.write_bytes(pack_container(_kernels()))
    changed = _kernels()
    changed[1] = Kernel("second", assemble(B.replace("r20", "r22"), "b"), 8, {})
    other.write_bytes(pack_container(changed))
    text = _cli("disasm", str(path))
    assert text.returncode == 0 and "// kernel first: SIMD16" in text.stdout and "mul (8|M0)" in text.stdout
    assert "opcode             [6:0]" in _cli("disasm", str(path), "--fields").stdout
    doc = json.loads(_cli("disasm", str(path), "--format", "json").stdout)
    assert [k["name"] for k in doc["kernels"]] == ["first", "second"] and doc["kernels"][0]["payload"]["cross_thread"] == 4
    d = _cli("diff", str(path), str(other))
    assert d.returncode == 1 and "kernel second:\n~ #0 @0x0000 -> #0 @0x0000" in d.stdout and "dst_reg: 0x14 -> 0x16" in d.stdout
    assert _cli("diff", str(path), str(path)).returncode == 0
