"""Sub-group operations on the Vulkan device (lavapipe in CI: subgroupSize 8) against numpy's lock-step model.

One kernel per element type applies every sub-group operation (tools/testing/subgroup_kernels.py), launched
with a partial last sub-group (a work-group of 20: sub-groups of 8, 8 and 4, the "checked" layout) and, for
i32 and f32, with full sub-groups (16: the "full" layout, REQUIRE_FULL_SUBGROUPS); a second kernel has operations under an if
and in a loop that lanes leave at different iterations. Also: the modules pass spirv-val for every version and
environment that has sub-groups, each declares the capabilities its operations need, and the refusals (SPIR-V
below 1.3, a device lacking a sub-group feature, a device that groups lanes otherwise) are one line.
"""
from __future__ import annotations

import dataclasses

import numpy as np
import pytest

from reconverge.backend.spirv import compile_spirv
from reconverge.backend.spirv.launch import _check_subgroup_layout, run_spirv_kernel
from reconverge.backend.spirv.options import SpirvOptions
from reconverge.backend.spirv.tools import disassemble, validate
from reconverge.backend.spirv.vulkan_run import check_subgroup_support, device_info, select_device
from reconverge.lowering.errors import CompileError
from reconverge.lowering.program import compile_path
from reconverge.tools.testing import subgroup_kernels as sk

N = 40
TYPES = ("i8", "i16", "i32", "i64", "f16", "f32", "f64")
SHAPES = {"partial": (40, 20), "full": (32, 16)}


def _compile(tmp_path, name: str, text: str):
    path = tmp_path / f"{name}.nir"
    path.write_text(text)
    return compile_path(str(path))[name]


def _device_width(vk_device) -> int:
    info = select_device(vk_device)
    if "arithmetic" not in info.subgroup_operations:
        pytest.skip(f"{info.label} has no sub-group arithmetic")
    return info.subgroup_size


@pytest.mark.parametrize("t,shape", [(t, "partial") for t in TYPES] + [("i32", "full"), ("f32", "full")])
def test_every_operation_matches_numpy(tmp_path, vk_device, t, shape):
    width = _device_width(vk_device)
    n, local = SHAPES[shape]
    if local < 2 * width:
        pytest.skip(f"sub-groups of {width} lanes do not fit the shape")
    func = _compile(tmp_path, f"every_{t}", sk.every_op_kernel(t, n))
    ops = sk.every_op_list(t)
    x, y = sk.inputs(t, n, seed=len(t) + local)
    out = np.zeros(len(ops) * n, x.dtype)
    outi = np.zeros(len(ops) * n, np.int32)
    run_spirv_kernel(func, [x, y, out, outi], n, local)
    want = sk.expected_every_op(t, x, y, local, width)
    for k, (op, dest) in enumerate(ops):
        got = (out if dest == "out" else outi)[k * n:(k + 1) * n]
        value = want[op].astype(got.dtype)
        same = (got == value) | (np.isnan(got) & np.isnan(value) if got.dtype.kind == "f" else False)
        bad = np.nonzero(~same)[0]
        assert not bad.size, f"{t} {shape} {op}: lane {bad[0]} got {got[bad[0]]}, numpy {value[bad[0]]}"


@pytest.mark.parametrize("shape", SHAPES)
def test_operations_under_an_if_and_in_a_loop_lanes_leave(tmp_path, vk_device, shape):
    """Which lanes are active decides the results: an if's arms run under complementary masks, a loop until its
    last lane leaves; numpy follows the same rule (sk.expected_divergent)."""
    width = _device_width(vk_device)
    n, local = SHAPES[shape]
    func = _compile(tmp_path, "divergent", sk.divergent_kernel(n))
    x = np.random.default_rng(3).integers(0, 1000, n).astype(np.int32)
    out = np.zeros(sk.DIVERGENT_ROWS * n, np.uint32)
    run_spirv_kernel(func, [x, out], n, local)
    want = sk.expected_divergent(x, local, width)
    names = ("if reduce", "if scan", "if ballot", "if elect", "loop reduce", "loop ballots", "if clustered")
    for row, name in enumerate(names):
        got, value = out[row * n:(row + 1) * n], want[row * n:(row + 1) * n]
        bad = np.nonzero(got != value)[0]
        assert not bad.size, f"{shape} {name}: lane {bad[0]} got {got[bad[0]]}, numpy {value[bad[0]]}"


def test_the_results_depend_on_the_active_lanes():
    """The divergent model is not the uniform one: dropping the if (every lane active) changes the answers."""
    x = np.random.default_rng(3).integers(0, 1000, 40).astype(np.int32)
    uniform = np.array([x[s].sum() for s, _, _ in sk.subgroups(40, 20, 8) for _ in range(s.stop - s.start)])
    assert (sk.expected_divergent(x, 20, 8)[:40] != uniform).any()


def test_clustered_reduce_without_the_feature(tmp_path, vk_device):
    """A device without the clustered feature but with shuffles and ballots (lavapipe) runs a clustered reduce
    from shuffles (the every-operation test checks its values); one with neither refuses it in one line."""
    info = select_device(vk_device)
    text = """kernel @clustered(ptr1 %x, ptr1 %out) {
  block b0:
    %g = workitem.global_id i64 i32 0
    %o = mul i64 %g, 4
    %p = ptradd ptr1 %x, %o
    %v = load i32 %p, align 4
    %r = subgroup.reduce i32 %v, arith "add", cluster 4
    %q = ptradd ptr1 %out, %o
    store i32 %r, %q, align 4
    ret
}
"""
    func = _compile(tmp_path, "clustered", text)
    x = np.arange(40, dtype=np.int32) * 3
    out = np.zeros(40, np.int32)
    binary = compile_spirv([func])
    assert "OpCapability GroupNonUniformClustered" in disassemble(binary)
    with pytest.raises(CompileError, match="lacks the sub-group feature 'clustered'.*GroupNonUniformClustered"):
        check_subgroup_support(binary, dataclasses.replace(info, subgroup_operations=("basic", "arithmetic")), "k")
    run_spirv_kernel(func, [x, out], 40, 20)
    want = np.concatenate([np.repeat(x[s].reshape(-1, 4).sum(1), 4) for s in
                           (slice(a, a + 20) for a in (0, 20))])
    assert (out == want).all()


def test_modules_validate_and_declare_what_they_use(tmp_path):
    func = _compile(tmp_path, "every_i32", sk.every_op_kernel("i32", N))
    for version, env in (((1, 3), "vulkan1.1"), ((1, 5), "vulkan1.2"), ((1, 6), "vulkan1.3")):
        binary = compile_spirv([func], SpirvOptions(version=version, target_env=env, validate=True))
        validate(binary, env, "every_i32")
    text = disassemble(compile_spirv([func]))
    for capability in ("GroupNonUniform", "GroupNonUniformVote", "GroupNonUniformArithmetic",
                       "GroupNonUniformBallot", "GroupNonUniformShuffle", "GroupNonUniformShuffleRelative"):
        assert f"OpCapability {capability}\n" in text
    assert "OpCapability GroupNonUniformClustered" in text and "ClusteredReduce" in text
    emulated = compile_spirv([func], SpirvOptions(emulate_clustered=True, subgroup_layout="checked", validate=True))
    assert "Clustered" not in disassemble(emulated)      # a lavapipe launch's: shuffles and a ballot instead
    for builtin in ("SubgroupSize", "SubgroupLocalInvocationId", "SubgroupId"):
        assert f"BuiltIn {builtin}" in text
    assert "OpGroupNonUniformLogicalXor" in text and "OpGroupNonUniformBroadcast %uint %uint_3" in text


def test_a_vote_needs_only_the_vote_capability(tmp_path):
    text = """kernel @vote(ptr1 %out) {
  block b0:
    %l = subgroup_info.local_id i32
    %c = icmp.ult i32 %l, 3
    %a = subgroup.any i1 %c
    %z = zext i32 %a
    store i32 %z, %out, align 4
    subgroup_barrier i32 1
    ret
}
"""
    binary = compile_spirv([_compile(tmp_path, "vote", text)], SpirvOptions(validate=True))
    caps = [line.split()[1] for line in disassemble(binary).splitlines() if line.strip().startswith("OpCapability")]
    assert caps == ["Shader", "GroupNonUniform", "GroupNonUniformVote"]
    assert "OpControlBarrier %uint_3 %uint_3 %uint_264" in disassemble(binary)   # Subgroup, acq-rel | workgroup


def test_spirv_below_1_3_is_refused(tmp_path):
    func = _compile(tmp_path, "every_i32", sk.every_op_kernel("i32", N))
    with pytest.raises(CompileError, match="sub-group operations need SPIR-V 1.3"):
        compile_spirv([func], SpirvOptions(version=(1, 2), target_env="vulkan1.1"))


def test_a_device_lacking_a_feature_is_refused_in_one_line(tmp_path, vk_device):
    """A fake device description: each capability the module declares maps to its supportedOperations bit."""
    select_device(vk_device)
    info = device_info()
    binary = compile_spirv([_compile(tmp_path, "every_i32", sk.every_op_kernel("i32", N))])
    check_subgroup_support(binary, dataclasses.replace(info, subgroup_operations=sk_ops_all()), "k")
    for missing in ("basic", "vote", "arithmetic", "ballot", "shuffle", "shuffle-relative"):
        fake = dataclasses.replace(info, subgroup_operations=tuple(o for o in sk_ops_all() if o != missing))
        with pytest.raises(CompileError, match=f"lacks the sub-group feature '{missing}'") as err:
            check_subgroup_support(binary, fake, "k")
        assert "\n" not in str(err.value)
    no_compute = dataclasses.replace(info, subgroup_stages=("fragment",))
    with pytest.raises(CompileError, match="supportedStages lacks compute"):
        check_subgroup_support(binary, no_compute, "k")


def sk_ops_all() -> tuple[str, ...]:
    return ("basic", "vote", "arithmetic", "ballot", "shuffle", "shuffle-relative", "clustered", "quad")


def test_a_device_grouping_lanes_otherwise_is_refused(tmp_path):
    """The "checked" layout's record: slot L holds the lane position of the invocation with local index L."""
    func = _compile(tmp_path, "every_i32", sk.every_op_kernel("i32", N))
    info = device_info()
    right = np.tile(np.arange(20, dtype=np.uint32), 2)
    _check_subgroup_layout(func, right, (2, 1, 1), (20, 1, 1), info)
    swapped = right.copy()
    swapped[[25, 30]] = swapped[[30, 25]]
    with pytest.raises(CompileError, match="did not form sub-groups of consecutive local ids.*local id 5"):
        _check_subgroup_layout(func, swapped, (2, 1, 1), (20, 1, 1), info)


def test_lavapipe_rows_are_subgroups_unless_flattened(tmp_path, vk_device):
    """Why sub-group launches flatten the work-group (README, driver bugs): lavapipe makes each row of x ids a
    SIMD vector of its own, whose SubgroupId repeats across rows. The launch (flattened) gets OpenCL's
    linear sub-groups; the module as `--emit spirv` writes it, dispatched with the (5, 3) shape, does not."""
    from reconverge.backend.spirv.abi import kernel_abi, pack_push_constants
    from reconverge.backend.spirv.vulkan_run import dispatch
    info = select_device(vk_device)
    func = _compile(tmp_path, "layout", sk.LAYOUT)
    out = np.zeros(15, np.int32)
    run_spirv_kernel(func, [out], (5, 3), (5, 3))
    assert out.tolist() == sk.expected_layout(15, info.subgroup_size).tolist()
    if not info.is_lavapipe:
        return
    binary = compile_spirv([func], SpirvOptions(local_size=(5, 3, 1), validate=True))
    push = pack_push_constants(kernel_abi(func), [out], 2, (0, 0, 0))
    rows = dispatch(binary, "layout", {0: np.zeros(15, np.int32)}, push, (1, 1, 1))[0].reshape(3, 5)
    assert rows.tolist() == [[0, 1, 2, 3, 4], [0, 1, 2, 3, 4], [100, 101, 102, 103, 104]]


BALLOT_CL = """#pragma OPENCL EXTENSION cl_khr_subgroup_ballot : enable
kernel void ballots(global const uint *in, global uint *out) {
    size_t g = get_global_id(0);
    uint v = in[g];
    uint4 b = sub_group_ballot(v & 1);
    out[8 * g] = sub_group_ballot_bit_count(b);
    out[8 * g + 1] = sub_group_ballot_inclusive_scan(b);
    out[8 * g + 2] = sub_group_ballot_exclusive_scan(b);
    out[8 * g + 3] = sub_group_ballot_find_lsb(b) + 100 * sub_group_ballot_find_msb(b);
    out[8 * g + 4] = sub_group_ballot_bit_extract(b, (get_sub_group_local_id() + 1) % get_sub_group_size());
    out[8 * g + 5] = sub_group_inverse_ballot(b) + 2 * get_sub_group_lt_mask().x;
    out[8 * g + 6] = (v % 3) ? sub_group_non_uniform_reduce_max(v) : sub_group_non_uniform_scan_inclusive_min(v);
    out[8 * g + 7] = sub_group_non_uniform_all_equal(v & 1) + 2 * sub_group_elect();
}
"""


def test_ballot_queries_from_opencl_c(tmp_path, vk_device):
    """OpenCL C's ballot queries (plain integer IR over the ballot words, lowering/frontend/subgroups.py) and
    non-uniform reductions under a ?: on the device, against numpy, with a partial last sub-group."""
    width = _device_width(vk_device)
    path = tmp_path / "ballots.cl"
    path.write_text(BALLOT_CL)
    func = compile_path(str(path))["ballots"]
    n, local = 40, 20
    x = np.random.default_rng(5).integers(0, 1000, n).astype(np.uint32)
    out = np.zeros(8 * n, np.uint32)
    run_spirv_kernel(func, [x, out], n, local)
    want = np.zeros((n, 8), np.int64)
    for lanes, _, _ in sk.subgroups(n, local, width):
        v = x[lanes].astype(np.int64)
        size, lane, odd = len(v), np.arange(len(v)), (v & 1) == 1
        bits = odd.nonzero()[0]
        want[lanes, 0] = odd.sum()
        want[lanes, 1] = np.cumsum(odd)
        want[lanes, 2] = np.cumsum(odd) - odd
        assert bits.size, "find_lsb/msb of an empty ballot is undefined: the inputs must give each a bit"
        want[lanes, 3] = bits.min() + 100 * bits.max()
        want[lanes, 4] = odd[(lane + 1) % size]
        want[lanes, 5] = odd + 2 * ((1 << lane) - 1)
        arm = v % 3 != 0
        want[lanes, 6] = np.where(arm, v[arm].max() if arm.any() else 0, 0)
        if (~arm).any():
            want[np.arange(lanes.start, lanes.stop)[~arm], 6] = np.minimum.accumulate(v[~arm])
        want[lanes, 7] = np.all(odd == odd[0]) + 2 * (lane == 0)
    got = out.reshape(n, 8)
    names = ("bit_count", "inclusive_scan", "exclusive_scan", "find_lsb/msb", "bit_extract", "inverse/lt_mask",
             "non-uniform reduce/scan under ?:", "all_equal/elect")
    for col, name in enumerate(names):
        bad = np.nonzero(got[:, col] != want[:, col] % 2**32)[0]
        assert not bad.size, f"{name}: work-item {bad[0]} got {got[bad[0], col]}, numpy {want[bad[0], col] % 2**32}"


WIDE_CLUSTER_CL = """kernel void k(global int *o) {
    o[get_global_id(0)] = sub_group_clustered_reduce_add((int)get_global_id(0), 64);
}
"""


def test_command_line_refusals_are_one_line(tmp_path):
    """A cluster wider than the device's sub-groups, and sub-groups below SPIR-V 1.3: one line, no output."""
    from tests.test_cli import assert_one_line_error, run, write
    source = write(tmp_path, "k.cl", WIDE_CLUSTER_CL)
    width = device_info().subgroup_size
    result = run("run", source, "--target", "spirv", "--global", "64", "--local", "64", "--arg", "o=zeros:64:int32",
                 "--out", str(tmp_path / "out"))
    if width < 64:
        assert_one_line_error(result, 1, "a cluster of 64 lanes is wider than the device's sub-groups")
        assert not (tmp_path / "out").exists()
    result = run("compile", source, "--emit", "spirv", "--spirv-version", "1.2", "--target-env", "vulkan1.1",
                 "-o", str(tmp_path / "k.spv"))
    assert_one_line_error(result, 1, "@k", "sub-group operations need SPIR-V 1.3")
    assert not (tmp_path / "k.spv").exists()


def _differential_cases(tmp_path):
    """(program, kernel, args, global, local) of every kernel above, for the spirv-vs-ir comparison."""
    from reconverge.tools.targets.harness import load_program

    def program(name: str, text: str, ext: str = "nir"):
        path = tmp_path / f"{name}.{ext}"
        path.write_text(text)
        return load_program(str(path))
    for t in TYPES:
        x, y = sk.inputs(t, N, seed=len(t))
        count = len(sk.every_op_list(t)) * N
        yield (program(f"every_{t}", sk.every_op_kernel(t, N)), f"every_{t}",
               [x, y, np.zeros(count, x.dtype), np.zeros(count, np.int32)], N, 20)
    x = np.random.default_rng(3).integers(0, 1000, N).astype(np.int32)
    yield program("divergent", sk.divergent_kernel(N)), "divergent", [x, np.zeros(7 * N, np.uint32)], N, 20
    ballots = np.random.default_rng(5).integers(0, 1000, N).astype(np.uint32)
    yield program("ballots", BALLOT_CL, "cl"), "ballots", [ballots, np.zeros(8 * N, np.uint32)], N, 20
    yield program("layout", sk.LAYOUT), "layout", [np.zeros(15, np.int32)], (5, 3), (5, 3)


def test_spirv_equals_the_lockstep_interpreter(tmp_path, vk_device):
    """Every kernel above on the device and on `--target ir --subgroup-size S` (S: the device's), lane by lane:
    the interpreter is the executable definition of the sub-group semantics."""
    from reconverge.tools.targets.harness import InterpreterOptions, compare, run_target
    width = _device_width(vk_device)
    problems = []
    for program, kernel, args, global_size, local_size in _differential_cases(tmp_path):
        ir = run_target("ir", program, kernel, args, global_size, local_size, InterpreterOptions(subgroup_size=width))
        got = run_target("spirv", program, kernel, args, global_size, local_size)
        names = [f"{kernel}.arg{i}" for i in range(len(args))]
        problems += compare(ir, got, names, labels=("ir", "spirv"))
    assert problems == []


@pytest.mark.parametrize("t", TYPES)
def test_group_operations_take_the_value_then_the_cluster_size(tmp_path, t):
    """Every OpGroupNonUniform<arith> reads, as spirv-dis shows it: scope, group operation, a Value of the
    result's own type, then (ClusteredReduce) a constant ClusterSize. The signed SMin/SMax once wrote the
    cluster size before the value: spirv-val (2023.1) let it by, lavapipe has no clustered operations, and
    NVIDIA 580's pipeline compiler crashed on it (replayed on an H200, 2026-11-27)."""
    text = disassemble(compile_spirv([_compile(tmp_path, f"every_{t}", sk.every_op_kernel(t, N))]))
    type_of = {}
    constants = set()
    checked = 0
    for line in text.splitlines():
        words = line.split()
        if len(words) > 3 and words[1] == "=" and words[2].startswith("Op") and words[2] != "OpTypePointer":
            type_of[words[0]] = words[3]
            if words[2] == "OpConstant":
                constants.add(words[0])
        if len(words) > 6 and words[2].startswith("OpGroupNonUniform") and words[5] in (
                "Reduce", "InclusiveScan", "ExclusiveScan", "ClusteredReduce"):
            value = words[6]
            assert type_of.get(value) == words[3], f"{line.strip()}: Value {value} is not a {words[3]}"
            assert len(words) == (8 if words[5] == "ClusteredReduce" else 7), line
            if words[5] == "ClusteredReduce":
                assert words[7] in constants, f"{line.strip()}: ClusterSize is not a constant"
            checked += 1
    assert checked >= 20
