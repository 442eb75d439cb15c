"""HLSL compute shaders (examples/hlsl), compiled by clang-22's HLSL front end for Vulkan at -O0 and -O2, run
on every target against the llvm reference lane by lane; the waterfall loop against numpy; the parameters
`run` binds; the OpenCL built-in names the adapter calls, checked against clang's own mangling; one-line
refusals for what the adapter does not take.

Every target runs sub-groups of 8 lanes (lavapipe's size), gen both SIMD8 (every --cf mode) and SIMD16
(against the reference at 16)."""
from __future__ import annotations

import os
import re
import subprocess

import numpy as np
import pytest

from reconverge.lowering.frontend.clang import CLANG
from reconverge.tools.cli import main
from reconverge.tools.targets.harness import GenRunOptions, InterpreterOptions, OracleOptions, load_program, run_target
from reconverge.tools.testing.hlsl import EXAMPLES, compile_hlsl

SEED = 20261126
LEVELS = ("-O0", "-O2")


@pytest.fixture(scope="module")
def shaders(tmp_path_factory) -> dict[tuple[str, str], str]:
    """(shader, level) -> the .ll clang-22 writes for it."""
    out = tmp_path_factory.mktemp("hlsl")
    return {(name, level): compile_hlsl(os.path.join(EXAMPLES, f"{name}.hlsl"), str(out / f"{name}{level}.ll"), level)
            for name in ("loop_break", "waterfall", "ids_shared") for level in LEVELS}


def loop_break_case(rng):
    return [rng.integers(0, 64, 32).astype(np.uint32), np.zeros(32, np.uint32)], (32, 1, 1)


def waterfall_case(rng):
    keys = rng.integers(0, 4, 64).astype(np.uint32)
    return [keys, rng.integers(-50, 50, 64).astype(np.int32), np.zeros(64, np.int32)], (64, 1, 1)


def ids_shared_case(rng):
    # parameters in (set, binding) order: Ids (set 0, implicit: binding 0), Result (0, 2), Scale (1, 0)
    return [np.zeros(256, np.uint32), np.zeros(64, np.float32), rng.integers(0, 10, 64).astype(np.float32)], (8, 4, 2)


CASES = {"loop_break": loop_break_case, "waterfall": waterfall_case, "ids_shared": ids_shared_case}
# (target, options) at sub-group size 8; the reference is llvm at 8
TARGETS = [("ir", InterpreterOptions(subgroup_size=8)), ("spirv", None), ("gen", GenRunOptions(8))]


_RESULTS: dict[tuple[str, str, object], list[np.ndarray]] = {}


def _run(path: str, name: str, target: str, options) -> list[np.ndarray]:
    """The buffers after a run (each run once per module: the reference serves several tests)."""
    key = (path, target, options)
    if key not in _RESULTS:
        args, global_size = CASES[name](np.random.default_rng(SEED))
        program = load_program(path, "-O0")
        _RESULTS[key] = run_target(target, program, "main", args, global_size, program.reqd_work_group_size("main"),
                                   options)
    return _RESULTS[key]


def _same(got: list[np.ndarray], want: list[np.ndarray], what: str) -> None:
    for i, (g, w) in enumerate(zip(got, want)):
        bad = np.flatnonzero(g != w)
        assert bad.size == 0, f"{what}: argument {i} differs first at [{bad[0]}]: {g[bad[0]]} != {w[bad[0]]}"


@pytest.mark.parametrize(("name", "level"), [("loop_break", "-O0"), ("loop_break", "-O2"), ("waterfall", "-O0"),
                                           ("waterfall", "-O2"), ("ids_shared", "-O2")])
def test_targets_match_the_reference(shaders, name, level):
    path = shaders[(name, level)]
    want = _run(path, name, "llvm", OracleOptions(8))
    for target, options in TARGETS:
        _same(_run(path, name, target, options), want, f"{name} {level} on {target}")


@pytest.mark.parametrize(("name", "cf"), [("waterfall", "structured"), ("waterfall", "blockip"),
                                         ("waterfall", "hybrid"), ("loop_break", "blockip")])
def test_gen_control_flow_modes(shaders, name, cf):
    path = shaders[(name, "-O2")]
    _same(_run(path, name, "gen", GenRunOptions(8, cf)), _run(path, name, "llvm", OracleOptions(8)),
          f"{name} -O2 on gen SIMD8 --cf {cf}")


def test_gen_simd16(shaders):
    path = shaders[("waterfall", "-O2")]
    _same(_run(path, "waterfall", "gen", GenRunOptions(16)), _run(path, "waterfall", "llvm", OracleOptions(16)),
          "waterfall -O2 on gen SIMD16")


def test_unoptimised_module_calls_the_shader_function(shaders, tmp_path):
    """-disable-llvm-passes: @main calls the internal shader function past its convergence-entry token (the
    shape of LLVM's own SPIR-V structurizer tests); inlining hands the call's token to the callee."""
    path = compile_hlsl(os.path.join(EXAMPLES, "loop_break.hlsl"), str(tmp_path / "lb.ll"), "-O0",
                        extra=("-disable-llvm-passes",))
    assert "call spir_func void @_Z4mainDv3_j" in open(path).read()
    want = _run(shaders[("loop_break", "-O0")], "loop_break", "llvm", OracleOptions(8))
    _same(_run(path, "loop_break", "llvm", OracleOptions(8)), want, "loop_break unoptimised on llvm")
    _same(_run(path, "loop_break", "ir", InterpreterOptions(subgroup_size=8)), want, "loop_break unoptimised on ir")


def test_ids_at_O0_on_the_interpreter(shaders):
    """-O0 keeps the resources in locals and a global (the adapter's SROA resolves them): same buffers."""
    path = shaders[("ids_shared", "-O0")]
    _same(_run(path, "ids_shared", "ir", InterpreterOptions(subgroup_size=8)),
          _run(path, "ids_shared", "llvm", OracleOptions(8)), "ids_shared -O0 on ir")


def _waterfall_sums(keys: np.ndarray, values: np.ndarray, size: int) -> np.ndarray:
    """Each lane: the sum of the values of the lanes of its sub-group that hold its key."""
    out = np.zeros_like(values)
    for first in range(0, keys.size, size):
        k, v = keys[first:first + size], values[first:first + size]
        out[first:first + size] = [v[k == key].sum() for key in k]
    return out


@pytest.mark.parametrize("level", LEVELS)
def test_waterfall_is_lane_exact(shaders, level):
    """The reduction clang -O2 moves to the loop's exit block still runs over the lanes leaving together."""
    keys, values, _ = waterfall_case(np.random.default_rng(SEED))[0]
    got = _run(shaders[("waterfall", level)], "waterfall", "ir", InterpreterOptions(subgroup_size=8))
    assert got[2].tolist() == _waterfall_sums(keys, values, 8).tolist()


def test_loop_break_answers_agree_across_levels(shaders):
    """-O2 moves the break's WaveActiveSum out of the loop; the token keeps its meaning, so -O0 and -O2 agree
    (on the reference and, through test_targets_match_the_reference, on every target)."""
    _same(_run(shaders[("loop_break", "-O2")], "loop_break", "llvm", OracleOptions(8)),
          _run(shaders[("loop_break", "-O0")], "loop_break", "llvm", OracleOptions(8)), "loop_break -O2 against -O0")


def test_parameters_and_work_group_size(shaders):
    program = load_program(shaders[("ids_shared", "-O2")], "-O0")
    assert [p.name for p in program.params("main")] == ["Ids", "Result", "Scale"]
    assert program.reqd_work_group_size("main") == (4, 4, 2)
    assert [p.is_buffer for p in program.params("main")] == [True, True, True]


def test_run_binds_resources_by_name(shaders, tmp_path, capsys):
    data = tmp_path / "data.npy"
    np.save(data, np.arange(64, dtype=np.uint32))
    code = main(["run", shaders[("loop_break", "-O2")], "--target", "ir", "--global", "64", "--arg",
                 f"Data=@{data}", "--arg", "Out=zeros:64:uint32", "--out", str(tmp_path / "out")])
    printed = capsys.readouterr()
    assert code == 0, printed.err
    assert "global 64, local 32" in printed.out           # numthreads(32, 1, 1) is the work-group size
    assert np.load(tmp_path / "out" / "Out.npy").any()


def test_builtin_names_are_clangs(shaders, tmp_path):
    """Every OpenCL built-in the adapted modules call has the name clang-22 gives it in OpenCL C."""
    used: set[str] = set()
    for path in shaders.values():
        used |= set(re.findall(r"@(_Z\w+)\(", load_program(path, "-O0").llvm_text))
    source = tmp_path / "names.cl"
    source.write_text("""
kernel void k(global uint *u, global int *i, global float *f) {
  size_t g = get_global_id(0) + get_local_id(0) + get_group_id(0) + get_local_linear_id();
  uint4 b = sub_group_ballot(i[0]);
  u[0] = g + get_max_sub_group_size() + get_sub_group_local_id() + sub_group_ballot_bit_count(b)
       + sub_group_non_uniform_reduce_add(u[1]) + sub_group_non_uniform_reduce_max(u[2])
       + sub_group_non_uniform_reduce_min(u[3]) + sub_group_shuffle(u[4], 1u) + sub_group_elect()
       + sub_group_non_uniform_any(i[1]) + sub_group_non_uniform_all(i[2]);
  i[0] = sub_group_non_uniform_reduce_add(i[3]) + sub_group_non_uniform_reduce_max(i[4]) + sub_group_shuffle(i[5], 1u);
  f[0] = sub_group_non_uniform_reduce_add(f[1]) + sub_group_non_uniform_reduce_max(f[2]) + sub_group_shuffle(f[3], 1u);
  barrier(CLK_LOCAL_MEM_FENCE);
}
""")
    text = subprocess.run([CLANG, "-x", "cl", "-cl-std=CL3.0", "-Xclang", "-finclude-default-header",
                           "-cl-ext=+cl_khr_subgroups,+cl_khr_subgroup_ballot,+cl_khr_subgroup_non_uniform_vote,"
                           "+cl_khr_subgroup_non_uniform_arithmetic,+cl_khr_subgroup_shuffle,+__opencl_c_subgroups",
                           "-target", "spir64", "-emit-llvm", "-S", "-o", "-", str(source)],
                          capture_output=True, text=True, check=True).stdout
    assert used, "the shaders call OpenCL built-ins"
    assert used <= set(re.findall(r"@(_Z\w+)\(", text)), used - set(re.findall(r"@(_Z\w+)\(", text))


REFUSED = {
    "pixel": ("float4 main() : SV_Target { return 1; }", ["-hlsl-entry", "main"],
              '"hlsl.shader"="pixel": only compute shaders'),
    "typed": ("RWBuffer<uint> T : register(u0);\n[numthreads(4,1,1)] void main(uint3 i : SV_DispatchThreadID)"
              " { T[i.x] = 1; }", [], 'target("spirv.Image")'),
    "counter": ("RWStructuredBuffer<uint> O : register(u0);\n[numthreads(4,1,1)] void main()"
                " { O.IncrementCounter(); }", [], "@llvm.spv.resource.updatecounter"),
    "array": ("RWStructuredBuffer<uint> O[2] : register(u0);\n[numthreads(4,1,1)] void main(uint3 i :"
              " SV_DispatchThreadID) { O[i.x & 1][0] = 1; }", [], "resource"),
}


@pytest.mark.parametrize("case", list(REFUSED))
def test_unsupported_hlsl_is_a_one_line_error(case, tmp_path, capsys):
    source, _, expect = REFUSED[case]
    path = tmp_path / f"{case}.hlsl"
    path.write_text(source)
    triple = ["-triple", "spirv-unknown-vulkan1.3-pixel"] if case == "pixel" else []
    ll = str(tmp_path / f"{case}.ll")
    if triple:
        from reconverge.tools.testing.hlsl import hlsl_command
        cmd = hlsl_command(str(path), ll)
        cmd[cmd.index("-triple") + 1] = triple[1]
        subprocess.run(cmd, check=True, capture_output=True)
    else:
        compile_hlsl(str(path), ll)
    out = tmp_path / "out.spv"
    code = main(["compile", ll, "--emit", "spirv", "-o", str(out)])
    err = capsys.readouterr().err
    assert code == 1 and err.startswith("reconverge: error: ") and err.count("\n") == 1, err
    assert expect in err and "Traceback" not in err
    assert not out.exists()


PREFIX = os.path.join(os.path.dirname(os.path.abspath(__file__)), "kernels_hlsl", "prefix.ll")


def _prefix_expect(x: np.ndarray, size: int) -> np.ndarray:
    """prefix.ll's buffer by numpy: exclusive scans, counts and the ballot over each sub-group of `size`."""
    out = np.zeros(4 * x.size, np.uint32)
    for first in range(0, x.size, size):
        lanes = x[first:first + size].astype(np.uint64)
        odd = (lanes & 3) | 1
        ballot = sum(1 << k for k, v in enumerate(lanes) if v & 1)
        for k in range(lanes.size):
            i = first + k
            out[4 * i] = lanes[:k].sum()
            out[4 * i + 1] = int(np.prod(odd[:k])) & 0xFFFFFFFF
            out[4 * i + 2] = (lanes[:k] > 4).sum()
            out[4 * i + 3] = k + (100 if k == 0 else 0) + 1000 * ballot
    return out


@pytest.mark.parametrize(("target", "options"), [("llvm", OracleOptions(8)), ("ir", InterpreterOptions(subgroup_size=8)),
                                                 ("spirv", None)])
def test_prefix_intrinsics(target, options):
    """The wave intrinsics clang-22 does not emit yet (prefix sum/product/count, the lane index), by hand."""
    x = np.random.default_rng(SEED).integers(0, 9, 32).astype(np.uint32)
    program = load_program(PREFIX, "-O0")
    got = run_target(target, program, "main", [x, np.zeros(128, np.uint32)], (32, 1, 1), (16, 1, 1), options)
    assert got[1].tolist() == _prefix_expect(x, 8).tolist()


def test_unknown_intrinsic_is_named(tmp_path, capsys):
    path = tmp_path / "unknown.ll"
    path.write_text(open(PREFIX).read().replace("llvm.spv.wave.prefix.product.i32", "llvm.spv.wave.multiprefix.i32"))
    assert main(["compile", str(path), "--emit", "nir", "-o", str(tmp_path / "out.nir")]) == 1
    err = capsys.readouterr().err
    assert err == f"reconverge: error: {path}: @main: unsupported HLSL intrinsic @llvm.spv.wave.multiprefix.i32\n"
    assert not (tmp_path / "out.nir").exists()


MEMCPY = """
target triple = "spirv-unknown-vulkan1.3-compute"
@.str = private unnamed_addr constant [4 x i8] c"Buf\\00", align 1
define void @main() #0 {
  %h = call target("spirv.VulkanBuffer", [0 x i32], 12, 1) @llvm.spv.resource.handlefrombinding.t(i32 0, i32 0, i32 1, i32 0, ptr @.str)
  %src = call ptr addrspace(11) @llvm.spv.resource.getpointer.p11.t(target("spirv.VulkanBuffer", [0 x i32], 12, 1) %h, i32 4)
  %dst = call ptr addrspace(11) @llvm.spv.resource.getpointer.p11.t(target("spirv.VulkanBuffer", [0 x i32], 12, 1) %h, i32 0)
  call void @llvm.memcpy.p11.p11.i64(ptr addrspace(11) %dst, ptr addrspace(11) %src, i64 16, i1 false)
  ret void
}
declare target("spirv.VulkanBuffer", [0 x i32], 12, 1) @llvm.spv.resource.handlefrombinding.t(i32, i32, i32, i32, ptr)
declare ptr addrspace(11) @llvm.spv.resource.getpointer.p11.t(target("spirv.VulkanBuffer", [0 x i32], 12, 1), i32)
declare void @llvm.memcpy.p11.p11.i64(ptr addrspace(11), ptr addrspace(11), i64, i1)
attributes #0 = { "hlsl.numthreads"="1,1,1" "hlsl.shader"="compute" }
"""


def test_buffer_pointers_in_intrinsic_names(tmp_path):
    """llvm.memcpy.p11.p11 (overloaded on the StorageBuffer pointers) becomes llvm.memcpy.p1.p1 (LLVM's parser
    renames an intrinsic after its new pointer types) and copies within the buffer."""
    path = tmp_path / "memcpy.ll"
    path.write_text(MEMCPY)
    program = load_program(str(path), "-O0")
    assert "@llvm.memcpy.p1.p1.i64(" in program.llvm_text
    got = run_target("ir", program, "main", [np.arange(8, dtype=np.uint32)], (1, 1, 1), (1, 1, 1), None)
    assert got[0].tolist() == [4, 5, 6, 7, 4, 5, 6, 7]
