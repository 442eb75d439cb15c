"""The text form is deterministic: the same input prints the same, in one process and across two."""
import os
import subprocess
import sys

from reconverge.lowering.frontend.clang import compile_opencl
from reconverge.lowering.ir.printer import print_function
from reconverge.lowering.pipeline import compile_llvm

ROOT = os.path.abspath(os.path.join(os.path.dirname(__file__), os.pardir, os.pardir, os.pardir))
EXAMPLE = os.path.join(ROOT, "examples", "nested_break.cl")


def test_printing_is_deterministic_within_and_across_processes():
    ir = compile_opencl(EXAMPLE, "-O2")
    first = print_function(compile_llvm(ir, EXAMPLE)["nested_break"])
    second = print_function(compile_llvm(ir, EXAMPLE)["nested_break"])
    assert first == second
    env = dict(os.environ, PYTHONPATH=ROOT, PYTHONHASHSEED="12345")
    other = subprocess.run([sys.executable, "-m", "reconverge.tools.cli", "compile", EXAMPLE, "-O2"], env=env,
                           capture_output=True, text=True, check=True).stdout
    assert other == first


def test_every_value_and_block_is_named_once():
    ir = compile_opencl(EXAMPLE, "-O0")
    text = print_function(compile_llvm(ir, EXAMPLE)["nested_break"])
    defs = [line.split(" = ")[0].strip() for line in text.splitlines() if " = " in line]
    assert len(defs) == len(set(defs))
    blocks = [line.split(":")[0].strip() for line in text.splitlines() if line.strip().startswith("block b")]
    assert blocks == [f"block b{i}" for i in range(len(blocks))]
