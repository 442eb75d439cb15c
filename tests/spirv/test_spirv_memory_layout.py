"""How memory objects are laid out in SPIR-V (backend/spirv/memory.py), against the CPU reference: a private
array written through byte stores and read as words is an array of words (the byte stores of a whole word
one store of it, store_merge.py; other narrow stores read-modify-writes of one element, at a constant or a
computed position), and the module carries no 64-bit address arithmetic nobody uses (dead_code.py)."""
from __future__ import annotations

import subprocess

import numpy as np
import pytest

from reconverge.backend.spirv import compile_spirv
from reconverge.tools.targets.harness import load_program, run_target

BYTE_STORES = """
kernel void sort_words(global const uint *in, global uint *out)
{
    uint gid = get_global_id(0);
    uint buf[16];
    private uchar *bytes = (private uchar *)buf;
    for (uint i = 0; i < 16; i++)
        vstore4(as_uchar4(in[gid * 16 + i] * 2654435761u), i, bytes);
    for (uint i = 1; i < 16; i++) {
        uint v = buf[i];
        int j = (int)i - 1;
        while (j >= 0 && buf[j] > v) { buf[j + 1] = buf[j]; j--; }
        buf[j + 1] = v;
    }
    uint acc = 0;
    for (uint i = 0; i < 16; i++) acc = acc * 31u + buf[i];
    out[gid] = acc;
}
"""

COMPUTED_POSITIONS = """
kernel void scatter(global const uint *in, global uint *out, global ulong *wide)
{
    uint gid = get_global_id(0);
    uint words[8];
    ulong longs[4];
    private uchar *bytes = (private uchar *)words;
    private uchar *long_bytes = (private uchar *)longs;
    for (int i = 0; i < 8; i++) words[i] = in[gid * 8 + i];
    for (int i = 0; i < 4; i++) longs[i] = (ulong)in[gid * 8 + i] << 32 | in[gid * 8 + 7 - i];
    for (uint i = 0; i < 12; i++) {
        bytes[(in[gid * 8 + (i & 7)] + i) & 31] = (uchar)(i * 37 + gid);
        long_bytes[(in[gid * 8 + (i & 7)] >> 3) & 31] ^= (uchar)(i * 41);
    }
    bytes[5] = (uchar)gid;                  // one byte at a known position: a constant mask
    uint acc = bytes[in[gid * 8] & 31];
    for (int i = 0; i < 8; i++) acc = acc * 33u + words[i];
    out[gid] = acc + long_bytes[gid & 31];
    wide[gid] = longs[0] ^ longs[1] ^ longs[2] ^ longs[3];
}
"""


def _disassemble(binary: bytes) -> str:
    subprocess.run(["spirv-val", "-"], input=binary, check=True, capture_output=True)
    return subprocess.run(["spirv-dis", "--raw-id", "-"], input=binary, check=True,
                          capture_output=True).stdout.decode()


def _program(tmp_path, source: str):
    path = tmp_path / "kernel.cl"
    path.write_text(source)
    return load_program(str(path), "-O2")


def test_a_private_array_written_through_byte_stores_is_an_array_of_words(tmp_path):
    program = _program(tmp_path, BYTE_STORES)
    binary = compile_spirv(list(program.functions_for("spirv").values()))
    text = _disassemble(binary)
    uint = next(line.split()[0] for line in text.splitlines() if line.endswith("OpTypeInt 32 0"))
    arrays = [line.split() for line in text.splitlines() if "OpTypeArray" in line]
    assert [a[3] for a in arrays] == [uint], arrays      # the private array's element is a 32-bit word
    # before: a byte array, 4 accesses per word read (3,017 words); glslang's own GLSL is 733 words
    assert len(binary) // 4 < 1000, len(binary) // 4
    assert "OpBitwiseOr" not in text        # the four byte stores of a word are one store of it, no merging
    data = np.random.default_rng(3).integers(0, 2**32, 64 * 16, dtype=np.uint64).astype(np.uint32)
    args = [data, np.zeros(64, np.uint32)]
    want = run_target("llvm", program, "sort_words", args, (64,), (32,))[1]
    got = run_target("spirv", program, "sort_words", args, (64,), (32,))[1]
    assert np.array_equal(want, got)


@pytest.mark.parametrize("seed", [5, 6])
def test_narrow_stores_at_computed_positions_match_the_jit(tmp_path, seed):
    program = _program(tmp_path, COMPUTED_POSITIONS)
    text = _disassemble(compile_spirv(list(program.functions_for("spirv").values())))
    assert "OpNot" in text          # a mask made at run time: the position is not a constant
    data = np.random.default_rng(seed).integers(0, 2**32, 32 * 8, dtype=np.uint64).astype(np.uint32)
    args = [data, np.zeros(32, np.uint32), np.zeros(32, np.uint64)]
    want = run_target("llvm", program, "scatter", args, (32,), (16,))
    got = run_target("spirv", program, "scatter", args, (32,), (16,))
    assert np.array_equal(want[1], got[1]) and np.array_equal(want[2], got[2])


def test_address_arithmetic_is_32_bit(tmp_path):
    """size_t index arithmetic that only feeds addresses is redone in 32 bits; the 64-bit form is dead."""
    program = _program(tmp_path, BYTE_STORES)
    text = _disassemble(compile_spirv(list(program.functions_for("spirv").values())))
    ulong = next((line.split()[0] for line in text.splitlines() if "OpTypeInt 64 0" in line), None)
    assert ulong is None or f"OpIMul {ulong}" not in text
