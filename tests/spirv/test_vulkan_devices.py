"""`run --target spirv` on every Vulkan device of the machine (the vk_device fixture; CI has lavapipe only):
lavapipe's bugs worked around in its launches, its loop limit turned into an error, device selection, and
a fixed-seed slice of random control flow through SPIR-V on each device. The driver-bug table in the
README names these tests."""
from __future__ import annotations

import os
import random

import numpy as np
import pytest

from reconverge.backend.spirv import compile_spirv
from reconverge.backend.spirv.options import SpirvOptions
from reconverge.backend.spirv.tools import disassemble
from reconverge.backend.spirv.vulkan_run import VulkanError, devices, find_device
from reconverge.lowering.errors import CompileError
from reconverge.tools.targets.harness import compare, load_program, run_target

pytestmark = pytest.mark.usefixtures("vk_device")


def _on_lavapipe() -> bool:
    return find_device(None).is_lavapipe


# Reduced from random programs that lavapipe got wrong (issue 21): an atomic inside a loop that the lanes of
# one SIMD group leave at different iterations. With the acquire-release semantics OpenCL's seq_cst asks
# for, Mesa 22.3's lavapipe loses lanes (out[48..63] = 0, cnt = 28); relaxed ones in its launches fix it.
ATOMIC_IN_DIVERGENT_LOOP = """
kernel void k(global const uint *in, global uint *out, global uint *cnt, uint n) {
    uint gid = get_global_id(0), lid = get_local_id(0);
    uint g = 0u;
    while (g++ < 5u && lid > 49u) { atomic_inc(&cnt[0]); }
    out[gid] = g;
}
"""

LOOPS = """
kernel void two(global uint *out, uint a, uint b) {
    uint gid = get_global_id(0), y = 0;
    uint na = (gid & 1) ? a : 0, nb = (gid & 1) ? 0 : b;
    for (uint i = 0; i < na; i++) y++;
    for (uint i = 0; i < nb; i++) y += 2;
    out[gid] = y;
}
kernel void hidden(global uint *out, uint a, uint b) {
    uint gid = get_global_id(0), y = 0;
    for (uint i = 0; i < a; i++) { y++; if (gid == 999u) { for (uint j = 0; j < b; j++) y += j; } }
    out[gid] = y;
}
"""


def _program(tmp_path, name: str, source: str, level: str = "-O0"):
    path = tmp_path / name
    path.write_text(source)
    return load_program(str(path), level)


@pytest.mark.parametrize("level", ["-O0", "-O2"])
def test_an_atomic_in_a_loop_lanes_leave_at_different_iterations(tmp_path, level):
    program = _program(tmp_path, "atomic_loop.cl", ATOMIC_IN_DIVERGENT_LOOP, level)
    args = [np.zeros(256, np.uint32), np.zeros(128, np.uint32), np.zeros(4, np.uint32), np.uint32(128)]
    got = run_target("spirv", program, "k", args, (128,), (64,))
    assert got[1].tolist() == ([1] * 50 + [6] * 14) * 2
    assert got[2].tolist() == [140, 0, 0, 0]


def test_relaxed_atomics_only_in_lavapipe_launches(tmp_path):
    func = _program(tmp_path, "atomic_loop.cl", ATOMIC_IN_DIVERGENT_LOOP).function("k", "spirv")
    emitted = disassemble(compile_spirv([func], SpirvOptions()))       # what --emit spirv gives
    assert "OpAtomicIIncrement %uint %" in emitted
    assert "OpGroupNonUniformElect" not in emitted and "loop_counts" not in emitted
    relaxed = disassemble(compile_spirv([func], SpirvOptions(relaxed_atomics=True)))
    increments = [line for line in relaxed.splitlines() if "OpAtomicIIncrement" in line]
    assert increments and all(line.rstrip().endswith("%uint_0") for line in increments)
    assert not any(line.rstrip().endswith("%uint_0") for line in emitted.splitlines() if "OpAtomicIIncrement" in line)


@pytest.mark.parametrize("kernel,a,b", [("two", 70000, 0), ("two", 40000, 40000), ("hidden", 40000, 3)])
def test_a_loop_lavapipe_would_cut_is_refused_there(tmp_path, kernel, a, b):
    program = _program(tmp_path, "loops.cl", LOOPS)
    args = [np.zeros(16, np.uint32), np.uint32(a), np.uint32(b)]
    if _on_lavapipe():
        with pytest.raises(CompileError, match=rf"@{kernel}: a SIMD group made \d+ passes through loops; lavapipe "
                                               r"stops looping after 65535"):
            run_target("spirv", program, kernel, args, (16,), (16,))
        return
    got = run_target("spirv", program, kernel, args, (16,), (16,))
    want = run_target("llvm", program, kernel, args, (16,), (16,))
    assert compare(want, got, ["out", "a", "b"]) == []


@pytest.mark.parametrize("kernel,a,b", [("two", 65000, 0), ("two", 30000, 30000), ("hidden", 32000, 3)])
def test_loops_just_below_lavapipes_limit_run_right(tmp_path, kernel, a, b):
    program = _program(tmp_path, "loops.cl", LOOPS)
    args = [np.zeros(16, np.uint32), np.uint32(a), np.uint32(b)]
    got = run_target("spirv", program, kernel, args, (16,), (16,))
    want = run_target("llvm", program, kernel, args, (16,), (16,))
    assert compare(want, got, ["out", "a", "b"]) == []


def test_loops_are_counted_below_spirv_1_3_too(tmp_path):
    """No subgroup instructions before SPIR-V 1.3: the count is per work-group, never below the real one."""
    program = _program(tmp_path, "loops.cl", LOOPS)
    args = [np.zeros(16, np.uint32), np.uint32(70000), np.uint32(0)]
    options = SpirvOptions(version=(1, 0), target_env="vulkan1.0")
    if _on_lavapipe():
        with pytest.raises(CompileError, match="passes through loops"):
            run_target("spirv", program, "two", args, (16,), (16,), options)


def test_device_names_and_numbers_are_found():
    found = [d for d in devices() if d.usable]
    assert found
    for d in found:
        assert find_device(str(d.index)) == d
        assert find_device(d.name.upper()) .index <= d.index
    if any(d.is_lavapipe for d in found):
        assert find_device("lavapipe").is_lavapipe
        assert find_device(None, prefer_gpu=False).is_lavapipe or "RECONVERGE_VK_DEVICE" in __import__("os").environ
    with pytest.raises(VulkanError, match=r"no Vulkan device matches 'no such gpu' \(devices: 0: "):
        find_device("no such gpu")


# A fixed-seed slice of random control flow (tools/testing/cfggen.py), run through SPIR-V on each device.
@pytest.mark.parametrize("seed", range(6))
def test_random_control_flow_on_the_device(seed):
    from reconverge.tools.fuzz_structurize import check_spirv
    from reconverge.tools.testing.cfggen import random_kernel
    module = random_kernel(random.Random(9000 + seed), 40, max_loop_depth=3)
    assert check_spirv(module, 9000 + seed) is None


# Reduced from random program 55 of issue 21: the compare `pa[..] < u0`, a boolean computed in a loop whose
# lanes leave at different iterations, used after it. lavapipe gave lanes a later iteration's value until its
# launches carried loop live-outs through private memory (backend/spirv/loop_live_outs.py).
BOOL_LIVE_OUT = """
kernel void k(global const uint *in, global uint *out, global uint *cnt, uint n) {
    uint gid = get_global_id(0);
    uint u0 = in[gid & 255u], u1 = in[0], u2 = in[0];
    uint pa[8];
    for (uint t = 0u; t < 8u; t++) pa[t] = u0 + t * u1;
    for (uint i1 = 0u; i1 < ((pa[(u2 + 879u) & 7u] % 16u) & 7u); i1++) {
        atomic_xor(&cnt[4], i1);
        u2 = (uint)(pa[(in[0] % ((u1 & 15u) + 1u)) & 7u] < u0);
    }
    out[gid] = u2;
}
"""


def test_a_boolean_computed_in_a_divergent_loop_and_used_after_it(tmp_path):
    program = _program(tmp_path, "bool_live_out.cl", BOOL_LIVE_OUT, "-O2")
    data = np.random.default_rng(55).integers(0, 2 ** 32, 256, dtype=np.uint64).astype(np.uint32)
    args = [data, np.zeros(256, np.uint32), np.zeros(8, np.uint32), np.uint32(256)]
    want = run_target("llvm", program, "k", args, (256,), (64,))
    got = run_target("spirv", program, "k", args, (256,), (64,))
    assert compare(want, got, ["in", "out", "cnt", "n"]) == []


# `reconverge fuzz --seed 12 --mode basic` (F4), reduced: `a` (v * 31) is computed in the loop but not
# carried round it, so NIR keeps it an SSA value even when it is stored to a Function variable with a
# constant index, and llvmpipe computes SSA values for every lane of a subgroup in every pass: after the
# loop a lane that left early had the value of the last pass any lane ran. The loop-carried `v` was right.
NOT_CARRIED_LIVE_OUT = """
kernel void k(global uint *out, global const uint *in)
{
    uint gid = get_global_id(0);
    ulong v = in[gid + 2];
    uint x = in[gid + 1];
    ulong a = 0;
    for (uint i = 0; i < in[gid] % 5u; i++) {
        a = v * 31ul;
        v = a + ((ulong)x << 32);
    }
    out[gid] = (uint)a ^ (uint)(v >> 32) * 3u;
}
"""


def test_a_value_computed_in_a_divergent_loop_not_carried_and_used_after_it(tmp_path):
    program = _program(tmp_path, "not_carried.cl", NOT_CARRIED_LIVE_OUT, "-O2")
    data = np.random.default_rng(12).integers(0, 2 ** 32, 66, dtype=np.uint64).astype(np.uint32)
    args = [np.zeros(64, np.uint32), data]
    want = run_target("llvm", program, "k", args, (64,), (32,))
    got = run_target("spirv", program, "k", args, (64,), (32,))
    assert compare(want, got, ["out", "in"]) == []


# `reconverge fuzz --seed 148 --mode vector`, reduced: at -O0 the vector `w` stays in an alloca (stored
# element by element in the loop, loaded after it); NIR promotes the Function variable to SSA values, which
# makes it a loop live-out not carried round the loop, and lanes that left early got the last pass any lane
# ran (out = 1: the second element's first store). Right with local size 1. Such allocas go through an
# element NIR cannot fold in lavapipe launches (loop_live_outs.hide_loop_written_private_memory).
PRIVATE_VECTOR_LIVE_OUT = """
kernel void k(global uint *out, global const uint *in)
{
    uint gid = get_global_id(0);
    uint2 w;
    uint i = 0u;
    do {
        i++;
        w = (uint2)(in[gid] + i, i);
    } while (i < 5u && w.x < in[gid + 64]);
    out[gid] = w.x;
}
"""


def test_a_private_vector_stored_in_a_divergent_loop_and_read_after_it(tmp_path):
    program = _program(tmp_path, "private_live_out.cl", PRIVATE_VECTOR_LIVE_OUT, "-O0")
    data = np.random.default_rng(148).integers(0, 2 ** 32, 128, dtype=np.uint64).astype(np.uint32)
    data[64:] %= 2 ** 31
    args = [np.zeros(64, np.uint32), data]
    want = run_target("llvm", program, "k", args, (64,), (32,))
    got = run_target("spirv", program, "k", args, (64,), (32,))
    assert compare(want, got, ["out", "in"]) == []


# `reconverge fuzz --seed 19665 --mode basic` at -O2, reduced: pa[] is written in a loop through indices
# from loads and read after it. Its launch form used to move it to element (get_group_id(2) & 1) of two
# copies (a flat index 4 * parity + k), which lavapipe runs wrongly (GLSL_FLAT_PARITY below); NIR cannot
# promote an array with such indices anyway, so hide_loop_written_private_memory now leaves it alone.
PRIVATE_ARRAY_INDEXED_BY_LOADS = """
kernel void k(global uint *out, global const uint *in)
{
    uint gid = get_global_id(0);
    uint v0 = in[gid];
    uint pa[4] = {0u, 0u, 0u, 0u};
    for (uint i = 0u; i <= v0 % 4u; i++) {
        pa[i] = 9u;
        uint v2 = pa[in[64] & 3u];
        pa[(v0 + v2) & 3u] = i == 0u ? 7u : i + 100u;
    }
    out[gid] = pa[1];
}
"""


def _random_words(seed: int):
    """65 random words: `in` of the two kernels below (64 lanes' words and one chosen word)."""
    return np.random.default_rng(seed).integers(0, 2 ** 32, 65, dtype=np.uint64).astype(np.uint32)


def _spirv_agrees_with_llvm(program, data, local: int):
    """Run kernel k on 64 lanes on the llvm reference and on lavapipe, require the same buffers, and give
    the reference's buffers."""
    args = [np.zeros(64, np.uint32), data]
    want = run_target("llvm", program, "k", args, (64,), (local,))
    got = run_target("spirv", program, "k", args, (64,), (local,))
    assert compare(want, got, ["out", "in"]) == []
    return want


@pytest.mark.parametrize("chosen", [2, 3])
def test_a_private_array_indexed_by_loads_in_a_divergent_loop(tmp_path, chosen):
    program = _program(tmp_path, "indexed_by_loads.cl", PRIVATE_ARRAY_INDEXED_BY_LOADS, "-O2")
    data = _random_words(19665)
    data[64] = chosen
    _spirv_agrees_with_llvm(program, data, 16)


# The same kernel in GLSL, with pa[] as our launch form had it: two copies in one flat array, element
# parity * 4 + e. glslang's module (spirv-val accepts it) gives lanes wrong values on lavapipe (Mesa 22.3);
# `[2][4]` indexed [parity][e] (TWO_D) runs right. Stores and loads of a Function variable are the lane's
# own (SPIR-V 1.6 section 2.7 / 3.7: Function storage is private to the invocation), so it is the driver's.
GLSL_FLAT_PARITY = """#version 450
layout(local_size_x = 16) in;
layout(std430, binding = 0) buffer O { uint o[]; };
layout(std430, binding = 1) readonly buffer I { uint i[]; };
void main() {
    uint x = gl_GlobalInvocationID.x;
    uint p = (gl_WorkGroupID.z & 1u) * 4u;
    uint v0 = i[x];
    uint pa[8];
    pa[p + 1u] = 0u; pa[p + 2u] = 0u; pa[p + 3u] = 0u;
    uint s = i[64] & 3u;
    pa[p] = 9u;
    pa[p + ((pa[p + s] + v0) & 3u)] = 7u;
    if ((v0 & 3u) != 0u) {
        uint k = 1u;
        bool again;
        do {
            pa[p + k] = 9u;
            uint v2 = pa[p + s];
            pa[p + ((v2 + v0) & 3u)] = k + 100u;
            again = k < (v0 & 3u);
            k++;
        } while (again);
    }
    o[x] = pa[p + 1u];
}
"""
TWO_D = [("uint p = (gl_WorkGroupID.z & 1u) * 4u;", "uint q = gl_WorkGroupID.z & 1u;"),
         ("uint pa[8];", "uint pa[2][4];"), ("pa[p + ((v2 + v0) & 3u)]", "pa[q][(v2 + v0) & 3u]"),
         ("pa[p + ((pa[p + s] + v0) & 3u)]", "pa[q][(pa[q][s] + v0) & 3u]"), ("pa[p + ", "pa[q]["),
         ("pa[p]", "pa[q][0]")]


def _glsl_results(tmp_path, source: str, data: np.ndarray) -> list[int]:
    import subprocess

    from reconverge.backend.spirv.vulkan_run import dispatch
    text, binary = tmp_path / "k.comp", tmp_path / "k.spv"
    text.write_text(source)
    subprocess.run(["glslangValidator", "-V", "--target-env", "vulkan1.1", "-o", str(binary), str(text)],
                   check=True, capture_output=True)
    subprocess.run(["spirv-val", "--target-env", "vulkan1.1", str(binary)], check=True, capture_output=True)
    return dispatch(binary.read_bytes(), "main", {0: np.zeros(64, np.uint32), 1: data}, b"", (4, 1, 1))[0].tolist()


def test_what_lavapipe_makes_of_a_flat_private_array_indexed_parity_times_four_plus_k(tmp_path):
    data = np.random.default_rng(19665).integers(0, 2 ** 32, 65, dtype=np.uint64).astype(np.uint32)
    data[64] = 2
    want = []
    for v0 in data[:64].tolist():
        pa = [0, 0, 0, 0]
        for k in range(v0 % 4 + 1):
            pa[k] = 9
            pa[(v0 + pa[2]) & 3] = k + 100 if k else 7
        want.append(pa[1])
    two_d = GLSL_FLAT_PARITY
    for old, new in TWO_D:
        two_d = two_d.replace(old, new)
    assert "pa[p" not in two_d
    assert _glsl_results(tmp_path, two_d, data) == want
    flat = _glsl_results(tmp_path, GLSL_FLAT_PARITY, data)
    assert (flat != want) == _on_lavapipe()


# `reconverge fuzz --seed 2000 --mode all` (F3), reduced: a product with a factor that is 0.0 (a literal
# one, or one NIR derives: a ushort is never above 65535) must be -0.0 for a negative other factor;
# lavapipe gave +0.0 (backend/spirv/zero_operands.py).
ZERO_FACTORS = """
kernel void k(global uint *out, global const uint *in)
{
    uint gid = get_global_id(0);
    float w = (float)(as_int(in[gid + 1]) % 4096);
    float known = (float)((uint)(ushort)in[gid] > 65535u);
    float2 r = (float2)(w * known, (0.0f * w) / (w - 5000.0f));
    out[gid] = as_uint(r.x) ^ (as_uint(r.y) >> 1) ^ as_uint(fma(w, 0.0f, -0.0f));
}
"""


@pytest.mark.parametrize("level", ["-O0", "-O2"])
def test_a_product_with_a_zero_factor_keeps_its_sign(tmp_path, level):
    program = _program(tmp_path, "zero_factors.cl", ZERO_FACTORS, level)
    data = np.random.default_rng(2000).integers(0, 2 ** 32, 65, dtype=np.uint64).astype(np.uint32)
    args = [np.zeros(64, np.uint32), data]
    want = run_target("llvm", program, "k", args, (64,), (32,))
    assert len({int(x) for x in want[0]}) > 1           # both signs of zero occur
    got = run_target("spirv", program, "k", args, (64,), (32,))
    assert compare(want, got, ["out", "in"]) == []


# A sum with a term known to be 0.0 (reconverge fuzz --seed 364 --mode basic: `(float)(i1 % 4096) - f6` in a
# loop with i1 = 0, 7 lanes of 64 wrong at -O2): lavapipe gave `0.0 - w` for w = +0.0 as -0.0 and
# `x + 0.0` for x = -0.0 as -0.0 (both +0.0 in IEEE arithmetic).
ZERO_TERMS = """
kernel void k(global uint *out, global const uint *in)
{
    uint gid = get_global_id(0);
    float w = (float)(as_int(in[gid + 1]) % 4096);
    float known = (float)((uint)(ushort)in[gid] > 65535u);
    float m = -w * (float)(gid & 1u);
    out[gid] = as_uint(0.0f - w) ^ (as_uint(known - w) >> 1) ^ (as_uint(m + 0.0f) >> 2) ^ (as_uint(m + known) >> 3);
}
"""


@pytest.mark.parametrize("level", ["-O0", "-O2"])
def test_a_sum_with_a_zero_term_keeps_its_sign(tmp_path, level):
    program = _program(tmp_path, "zero_terms.cl", ZERO_TERMS, level)
    data = np.random.default_rng(364).integers(0, 2 ** 32, 65, dtype=np.uint64).astype(np.uint32)
    data[::3] &= 0xfffff000                     # w = +0.0 in a third of the lanes
    args = [np.zeros(64, np.uint32), data]
    want = run_target("llvm", program, "k", args, (64,), (32,))
    assert len({int(x) >> 28 for x in want[0]}) > 1        # zero and nonzero results both occur
    got = run_target("spirv", program, "k", args, (64,), (32,))
    assert compare(want, got, ["out", "in"]) == []


# `reconverge fuzz --seed 16248 --mode convergence` (tests/fuzz_regressions/spirv-literal-minus-zero-factor):
# NIR turns `c ? 1.0 : 0.0` into b2f(c) and `c ? -1.0 : -0.0` into -b2f(c), and its constant match takes
# -0.0 for 0.0 and 0.0 for -0.0, bits whatever the type: lavapipe gave +0.0 for `c ? 1.0f : -0.0f` (and
# for the launches' own `never ? 1.0 : -0.0` hiding a literal -0.0 factor), -0.0 for `c ? -1.0f : 0.0f`,
# at 16 and 32 bits, and 0 for an integer select of those bit patterns (backend/spirv/zero_operands.py).
SIGNED_ZERO_SELECTS = """
#pragma OPENCL EXTENSION cl_khr_fp16 : enable
kernel void k(global uint *out, global const uint *in)
{
    uint gid = get_global_id(0);
    float w = (float)(as_int(in[gid + 1]) % 4096);
    float a = (in[gid] & 1u) ? 1.0f : -0.0f;
    float b = (in[gid] & 2u) ? 0.0f : -1.0f;
    half c = (in[gid] & 4u) ? -0.0h : 1.0h;
    uint d = (in[gid] & 8u) ? 0xbf800000u : 0u;
    out[gid] = as_uint(a) ^ (as_uint(b) >> 1) ^ ((uint)as_ushort(c) << 3) ^ (d >> 4) ^ as_uint(w * (0.0f * -5.0f));
}
"""


@pytest.mark.parametrize("level", ["-O0", "-O2"])
def test_a_select_between_one_and_a_zero_keeps_the_zeros_sign(tmp_path, level):
    program = _program(tmp_path, "signed_zero_selects.cl", SIGNED_ZERO_SELECTS, level)
    want = _spirv_agrees_with_llvm(program, _random_words(16248), 32)
    assert len({int(x) >> 31 for x in want[0]}) == 2        # both signs of each zero occur


# `reconverge fuzz --seed 38706 --mode convergence` (23 of 32 lanes): at -O2 the 0.0 of `c ? -1.0f : 0.0f`
# reaches the select through the phis of three nested ifs (safe_smod's); with the launches' zeroing of
# their undefined inputs NIR folds them to 0.0 and then the select to -b2f(c): -0.0 for a positive factor.
SIGNED_ZERO_THROUGH_PHIS = """
static inline int safe_smod(int a, int b) { return (b == 0 || (a == (-2147483647 - 1) && b == -1)) ? 0 : a % b; }
kernel void k(global uint *out, global const uint *in)
{
    uint gid = get_global_id(0);
    float f = (float)(as_int(in[gid]) % 4096);
    float m = (as_uint(safe_smod((int)f, as_int(in[gid + 1] & 7u))) == 0u) ? -1.0f : 0.0f;
    out[gid] = as_uint(f * m);
}
"""


def test_a_zero_that_reaches_a_select_through_phis_keeps_its_sign(tmp_path):
    program = _program(tmp_path, "signed_zero_phis.cl", SIGNED_ZERO_THROUGH_PHIS, "-O2")
    want = _spirv_agrees_with_llvm(program, _random_words(38706), 32)
    assert {0, 0x80000000} <= {int(x) for x in want[0]}       # both zeros occur


# `clz(0xffffffff)` is 0 only to NIR's constant folding (our IR and clang -O0 keep the call), so the
# hidden factor `never ? 1.0 : zero` became b2f(never), and the product came out -0.0 for +0.0 (fuzz
# subgroup-40694, every lane, at -O0 and -O2).
SIGNED_ZERO_FOLDED_BY_NIR = """
kernel void k(global uint *out, global const uint *in)
{
    uint gid = get_global_id(0);
    float x = (float)(as_int(gid & in[gid]) % 4096) * -2.0f;
    out[gid] = as_uint(x * ((float)(as_int(clz(0xffffffffu)) % 4096) * -18.0f));
}
"""


@pytest.mark.parametrize("level", ["-O0", "-O2"])
def test_a_zero_only_nir_folds_keeps_its_sign(tmp_path, level):
    program = _program(tmp_path, "signed_zero_folded.cl", SIGNED_ZERO_FOLDED_BY_NIR, level)
    want = _spirv_agrees_with_llvm(program, _random_words(40694), 16)
    assert {int(x) for x in want[0]} == {0}                 # +0.0 in every lane, never -0.0


GLSL_SELECT = """#version 450
layout(local_size_x = 8) in;
layout(std430, binding = 0) buffer O { uint o[]; };
layout(std430, binding = 1) readonly buffer I { uint i[]; };
void main() {
    uint x = gl_GlobalInvocationID.x;
    o[x] = (i[x] & 1u) != 0u ? 0x3f800000u : 0x80000000u;
}
"""


def test_what_lavapipe_makes_of_an_integer_select_of_the_bits_of_one_and_minus_zero(tmp_path):
    """The driver's fault, not our module's: glslang's module, which spirv-val accepts, selects between two
    uint literals (OpSelect: the result is Object 1 or Object 2, SPIR-V 1.6 section 3.42.15; no float
    arithmetic is involved), and lavapipe (Mesa 22.3) gives 0 where it must give 0x80000000."""
    import subprocess
    source, binary = tmp_path / "select.comp", tmp_path / "select.spv"
    source.write_text(GLSL_SELECT)
    subprocess.run(["glslangValidator", "-V", "--target-env", "vulkan1.1", "-o", str(binary), str(source)],
                   check=True, capture_output=True)
    subprocess.run(["spirv-val", "--target-env", "vulkan1.1", str(binary)], check=True, capture_output=True)
    assert "OpSelect %uint" in disassemble(binary.read_bytes())
    from reconverge.backend.spirv.vulkan_run import dispatch
    got = dispatch(binary.read_bytes(), "main", {0: np.zeros(16, np.uint32), 1: np.arange(16, dtype=np.uint32)},
                   b"", (2, 1, 1))[0]
    minus_zero = 0 if _on_lavapipe() else 0x80000000
    assert got.tolist() == [0x3F800000 if x & 1 else minus_zero for x in range(16)]


def test_nesting_lavapipe_gets_wrong_is_refused_there(tmp_path):
    depth = 85
    body = "".join(f"if (x != {k}) {{ acc += {k}; " for k in range(depth)) + "}" * depth
    source = f"kernel void deep(global int *out) {{ int x = get_global_id(0), acc = 0; {body} out[x] = acc; }}\n"
    program = _program(tmp_path, "deep.cl", source)
    args = [np.zeros(128, np.int32)]
    if _on_lavapipe():
        with pytest.raises(CompileError, match=r"@deep: control flow nests \d+ levels deep; lavapipe gives wrong "
                                               r"lanes from 80 levels on"):
            run_target("spirv", program, "deep", args, (128,), (64,))
        return
    assert compare(run_target("llvm", program, "deep", args, (128,), (64,)),
                   run_target("spirv", program, "deep", args, (128,), (64,)), ["out"]) == []


@pytest.mark.parametrize("seed", [5, 118])
def test_random_programs_lavapipe_got_wrong(seed):
    """Two of issue 21's random programs as generated (the reduced forms are above), launched as
    tools/gpu_replay.py launches them; wrong on lavapipe before its launches got relaxed atomics."""
    from reconverge.tools.gpu_replay_groups import random_program_launch
    path = os.path.join(os.path.dirname(__file__), "data", f"lavapipe_random_{seed}.cl")
    with open(path, encoding="utf-8") as f:
        source = f.read()
    global_size, local, args = random_program_launch(source, seed)
    want = run_target("llvm", load_program(path, "-O0"), "k", args, (global_size,), (local,))
    got = run_target("spirv", load_program(path, "-O2"), "k", args, (global_size,), (local,))
    assert compare(want, got, ["in", "out", "cnt", "n"]) == []


def test_an_endless_loop_never_exits_0_from_the_command_line(tmp_path):
    """On lavapipe the loop stops at the driver's limit and `run` says so; elsewhere it runs until --timeout."""
    from tests.test_cli import assert_one_line_error, run, write
    source = write(tmp_path, "spin.cl", "kernel void spin(global int *out, int n) "
                                        "{ int i = 0; while (i != n) i += 2; out[0] = i; }\n")
    result = run("run", source, "--target", "spirv", "--global", "1", "--arg", "out=zeros:1:int32", "--arg", "n=3",
                 "--timeout", "20", "--out", str(tmp_path / "o"))
    if _on_lavapipe():
        assert_one_line_error(result, 1, "passes through loops", "lavapipe stops looping after 65535")
    else:
        assert_one_line_error(result, 1, "did not finish within 20 s")
    assert not (tmp_path / "o").exists()


def test_random_program_19_reduced():
    """Wrong on lavapipe (some lanes had other values) until its launches kept loop live-outs in private
    memory that NIR cannot fold back into SSA values (backend/spirv/loop_live_outs.py)."""
    path = os.path.join(os.path.dirname(__file__), "data", "lavapipe_open_19.cl")
    data = np.random.default_rng(19).integers(0, 2 ** 32, 256, dtype=np.uint64).astype(np.uint32)
    args = [data, np.zeros(256, np.uint32), np.zeros(8, np.uint32), np.uint32(259)]
    want = run_target("llvm", load_program(path, "-O0"), "k", args, (256,), (32,))
    got = run_target("spirv", load_program(path, "-O2"), "k", args, (256,), (32,))
    assert compare(want, got, ["in", "out", "cnt", "n"]) == []
