"""`disasm --fields` hides the fields an instruction does not use (a unary mov's src1_*, math.inv's
second source) unless --all-fields, and `--only dst,src0` keeps just those operands' fields (the compact
ones too); an unknown name is a one-line usage error."""
from __future__ import annotations

import os
import subprocess
import sys

from reconverge.isa.gen9.assembler import assemble
from reconverge.isa.gen9.inspect import field_filter, format_fields, inspect, uses

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
TEXT = """mov (8|M0) r40.0<1>:uq r41.0<4;4,1>:uq
add (8|M0) r10.0<1>:d r20.0<8;8,1>:d r30.0<8;8,1>:d
math.inv (8|M0) r10.0<1>:f r20.0<8;8,1>:f
"""


def _blocks(text: str) -> list[str]:
    """The field lines of each instruction, one string per instruction."""
    out: list[str] = []
    for line in text.splitlines():
        if not line.startswith(" "):
            out.append("")
        else:
            out[-1] += line + "\n"
    return out


def test_unused_operand_fields_are_hidden_and_all_fields_shows_them():
    views = inspect(assemble(TEXT, "t", autocompact=True))
    mov, add, inv = _blocks(format_fields(views))
    assert "src1_" not in mov and "src1_" not in inv and "src0_reg" in mov and "src0_reg" in inv
    assert "src1_reg" in add and "c_src1_reg" in add                      # add is compacted: both kinds
    mov_all = _blocks(format_fields(views, all_fields=True))[0]
    assert "src1_reg" in mov_all
    assert not uses(views[0], "src1_type") and uses(views[0], "dst_type") and uses(views[0], "exec_size")


def test_only_keeps_the_named_operands_and_fields():
    views = inspect(assemble(TEXT, "t", autocompact=True))
    keep = field_filter(["dst", "exec_size"])
    for block in _blocks(format_fields(views, keep)):
        names = {line.split()[0] for line in block.splitlines() if not line.startswith("  compacted")
                 and not line.startswith("  expands") and not line.startswith("  form")}
        assert names and all(n == "exec_size" or n.startswith(("dst_", "c_dst_")) for n in names), names


def test_only_on_the_command_line(tmp_path):
    (tmp_path / "t.krn").write_bytes(assemble(TEXT, "t"))

    def cli(*args):
        return subprocess.run([sys.executable, "-m", "reconverge.tools.cli", "disasm", "t.krn", *args], cwd=tmp_path,
                              capture_output=True, text=True, env=dict(os.environ, PYTHONPATH=ROOT))
    done = cli("--fields", "--only", "src0")
    assert done.returncode == 0 and "src0_type" in done.stdout and "dst_type" not in done.stdout
    bad = cli("--fields", "--only", "bogus")
    assert bad.returncode == 2 and "no field is named 'bogus'" in bad.stderr and bad.stderr.count("\n") == 1
