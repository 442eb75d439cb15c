"""The iga64 check every Gen test uses: Intel's disassembler reads the bytes without a warning, to exactly
our disassembler's text."""
from __future__ import annotations

import subprocess

from reconverge.isa.gen9.disassembler import disassemble


def iga_text(data: bytes, tmp_path, name: str = "k") -> str:
    """iga64's disassembly of `data`, checked to be warning-free and equal to ours line for line."""
    path = tmp_path / f"{name}.krn"
    path.write_bytes(data)
    iga = subprocess.run(["iga64", "-p=9", "-d", str(path)], capture_output=True, text=True)
    assert iga.returncode == 0 and "warning" not in iga.stderr.lower(), iga.stderr
    ours = [line.strip() for line in disassemble(data).splitlines() if line.strip()]
    theirs = [line.strip() for line in iga.stdout.splitlines() if line.strip() and not line.startswith("//")]
    assert ours == theirs, name
    return iga.stdout
