"""SPIR-V size: what the emitter leaves out stays out, and what it declares still runs right.

- the push-constant block declares only the members the kernel reads (at their ABI offsets, in
  first-read order), and the launcher's full block still feeds them: checked on lavapipe against the
  CPU reference with a global offset;
- a fold clang -O2 unrolled runs rolled (lowering/passes/reroll.py) and right on lavapipe;
- an access chain into a variable at constant indices is made once per kernel (in its first block),
  however many blocks use it;
- examples/bench/private_array.cl stays within the size `make bench` reports (README "Benchmark"),
  so a clean-up that stops working shows here and not only in a benchmark run.
"""
from __future__ import annotations

import os

import numpy as np
import pytest

from reconverge.backend.spirv import compile_spirv
from reconverge.backend.spirv.tools import disassemble, validate
from reconverge.tools.targets.harness import compare, kernel_params, load_program, run_target

ROOT = os.path.join(os.path.dirname(__file__), os.pardir, os.pardir)
PRIVATE_ARRAY_WORDS = 534       # -O2 (glslang + spirv-opt -O: 563 words on private_array.comp)

PUSH_SOURCE = """
kernel void push_members(global uint *out, uint a, float unused, uint b, uint d)
{
    uint y = get_global_id(1);
    uint x = get_global_id(0);
    out[(x - get_global_offset(0)) + (y - get_global_offset(1)) * 8] = b + (uint)get_local_id(d) * a + x;
}
"""


@pytest.mark.usefixtures("vk_device")
def test_push_block_holds_only_what_is_read(tmp_path):
    path = tmp_path / "push_members.cl"
    path.write_text(PUSH_SOURCE)
    program = load_program(str(path), "-O2")
    func = program.functions["push_members"]
    binary = compile_spirv([func])
    validate(binary, "vulkan1.3", "push_members")
    members = [line.split('"')[1] for line in disassemble(binary).splitlines() if "OpMemberName" in line]
    assert "unused" not in members and "global_offset.z" not in members
    assert {"a", "b", "d", "global_offset.x", "global_offset.y"} <= set(members)
    args = [np.zeros(32, np.uint32), np.uint32(7), np.float32(1.5), np.uint32(100), np.uint32(1)]
    offset = (16, 4)
    reference = run_target("llvm", program, "push_members", args, (8, 4), (4, 2), global_offset=offset)
    got = run_target("spirv", program, "push_members", args, (8, 4), (4, 2), global_offset=offset)
    assert not compare(reference, got, [p.name for p in kernel_params(func)], labels=("llvm", "spirv"))
    assert len(set(reference[0].tolist())) > 4

FOLD_SOURCE = """
kernel void fold(global const uint *in, global uint *out)
{
    uint gid = get_global_id(0);
    uint acc = gid;
    for (uint i = 0; i < 12; i++)
        acc = acc * 31u + (in[i] ^ gid);
    out[gid] = acc;
}
"""


@pytest.mark.usefixtures("vk_device")
def test_an_unrolled_fold_runs_rolled(tmp_path):
    path = tmp_path / "fold.cl"
    path.write_text(FOLD_SOURCE)
    program = load_program(str(path), "-O2")
    func = program.functions["fold"]
    binary = compile_spirv([func.clone()])
    validate(binary, "vulkan1.3", "fold")
    text = disassemble(binary)
    assert text.count("OpLoopMerge") == 1 and text.count("OpLoad") < 6
    data = np.random.RandomState(3).randint(0, 1 << 32, 16, dtype=np.uint64).astype(np.uint32)
    args = [data, np.zeros(64, np.uint32)]
    reference = run_target("llvm", program, "fold", args, (64,), (16,))
    got = run_target("spirv", program, "fold", args, (64,), (16,))
    assert not compare(reference, got, [p.name for p in kernel_params(func)], labels=("llvm", "spirv"))
    assert len(set(reference[1].tolist())) > 32


def test_private_array_stays_small():
    program = load_program(os.path.join(ROOT, "examples", "bench", "private_array.cl"), "-O2")
    binary = compile_spirv(list(program.functions.values()))
    validate(binary, "vulkan1.3", "private_array")
    assert len(binary) // 4 <= PRIVATE_ARRAY_WORDS


def test_constant_access_chains_are_made_once():
    program = load_program(os.path.join(ROOT, "tests", "kernels", "private_array.cl"), "-O2")
    binary = compile_spirv(list(program.functions.values()))
    validate(binary, "vulkan1.3", "private_array")
    chains = [line.split("OpAccessChain")[1].split()[1:] for line in disassemble(binary).splitlines()
              if "OpAccessChain" in line]
    constant = [tuple(c) for c in chains if all(i.startswith("%uint_") for i in c[1:])]
    assert len(constant) > 8 and len(constant) == len(set(constant))
