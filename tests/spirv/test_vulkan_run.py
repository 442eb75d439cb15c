"""reconverge.backend.spirv.vulkan_run on lavapipe: hand-written SPIR-V assembly, assembled and validated by
spirv-as / spirv-val, dispatched, and checked against numpy."""
from __future__ import annotations

import functools
import os
import subprocess
import sys
import threading

import numpy as np
import pytest

from reconverge.backend.spirv.vulkan_run import FEATURE_NAMES, VulkanError, device_features, device_name, dispatch

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
ENV = "vulkan1.3"

# out[i] = in[i] * k + i, with in at binding 0, out at binding 2 and k a push constant, all of type {T}.
SCALE = """
               OpCapability Shader
               {caps}
               OpMemoryModel Logical GLSL450
               OpEntryPoint GLCompute %main "main" %gid_var %in_var %out_var %pc_var
               OpExecutionMode %main LocalSize 8 1 1
               OpDecorate %gid_var BuiltIn GlobalInvocationId
               OpDecorate %arr ArrayStride {size}
               OpMemberDecorate %buf 0 Offset 0
               OpDecorate %buf Block
               OpDecorate %in_var DescriptorSet 0
               OpDecorate %in_var Binding 0
               OpDecorate %out_var DescriptorSet 0
               OpDecorate %out_var Binding 2
               OpMemberDecorate %pcs 0 Offset 0
               OpDecorate %pcs Block
       %void = OpTypeVoid
         %fn = OpTypeFunction %void
       %uint = OpTypeInt 32 0
     %uint_0 = OpConstant %uint 0
     %v3uint = OpTypeVector %uint 3
    %p_in_v3 = OpTypePointer Input %v3uint
    %gid_var = OpVariable %p_in_v3 Input
          %T = OpTypeInt {bits} {signed}
        %arr = OpTypeRuntimeArray %T
        %buf = OpTypeStruct %arr
      %p_buf = OpTypePointer StorageBuffer %buf
     %in_var = OpVariable %p_buf StorageBuffer
    %out_var = OpVariable %p_buf StorageBuffer
        %p_T = OpTypePointer StorageBuffer %T
        %pcs = OpTypeStruct %T
       %p_pc = OpTypePointer PushConstant %pcs
     %p_pc_T = OpTypePointer PushConstant %T
     %pc_var = OpVariable %p_pc PushConstant
       %main = OpFunction %void None %fn
      %entry = OpLabel
         %gv = OpLoad %v3uint %gid_var
          %g = OpCompositeExtract %uint %gv 0
         %gt = {convert} %T %g
         %kp = OpAccessChain %p_pc_T %pc_var %uint_0
          %k = OpLoad %T %kp
        %inp = OpAccessChain %p_T %in_var %uint_0 %g
          %x = OpLoad %T %inp
         %xk = OpIMul %T %x %k
          %r = OpIAdd %T %xk %gt
       %outp = OpAccessChain %p_T %out_var %uint_0 %g
               OpStore %outp %r
               OpReturn
               OpFunctionEnd
"""

# (dtype, capabilities, conversion of the 32-bit index to T, features the shader needs). The 32-bit T is
# signed only so that it differs from the index type (SPIR-V forbids declaring the same type twice);
# two's complement OpIMul/OpIAdd give the same bits as numpy's uint32 arithmetic.
SCALE_TYPES = {
    "u32": (np.uint32, "", "OpBitcast", ()),
    "u64": (np.uint64, "OpCapability Int64", "OpUConvert", ("shaderInt64",)),
    "u8": (np.uint8, "OpCapability Int8\nOpCapability StorageBuffer8BitAccess\nOpCapability StoragePushConstant8",
           "OpUConvert", ("shaderInt8", "storageBuffer8BitAccess", "storagePushConstant8")),
}

# Each 64-invocation work-group sums its 64 inputs in shared memory (a halving tree with a barrier per
# step) and invocation 0 writes the sum to out[workgroup id].
REDUCE = """
               OpCapability Shader
               OpMemoryModel Logical GLSL450
               OpEntryPoint GLCompute %main "main" %gid_var %lid_var %wid_var %in_var %out_var %shared
               OpExecutionMode %main LocalSize 64 1 1
               OpDecorate %gid_var BuiltIn GlobalInvocationId
               OpDecorate %lid_var BuiltIn LocalInvocationId
               OpDecorate %wid_var BuiltIn WorkgroupId
               OpDecorate %arr ArrayStride 4
               OpMemberDecorate %buf 0 Offset 0
               OpDecorate %buf Block
               OpDecorate %in_var DescriptorSet 0
               OpDecorate %in_var Binding 0
               OpDecorate %out_var DescriptorSet 0
               OpDecorate %out_var Binding 1
       %void = OpTypeVoid
         %fn = OpTypeFunction %void
       %bool = OpTypeBool
       %uint = OpTypeInt 32 0
     %uint_0 = OpConstant %uint 0
     %uint_1 = OpConstant %uint 1
  %workgroup = OpConstant %uint 2
    %uint_32 = OpConstant %uint 32
    %uint_64 = OpConstant %uint 64
  %acq_rel_wg = OpConstant %uint 264
     %v3uint = OpTypeVector %uint 3
    %p_in_v3 = OpTypePointer Input %v3uint
    %gid_var = OpVariable %p_in_v3 Input
    %lid_var = OpVariable %p_in_v3 Input
    %wid_var = OpVariable %p_in_v3 Input
        %arr = OpTypeRuntimeArray %uint
        %buf = OpTypeStruct %arr
      %p_buf = OpTypePointer StorageBuffer %buf
     %in_var = OpVariable %p_buf StorageBuffer
    %out_var = OpVariable %p_buf StorageBuffer
     %p_uint = OpTypePointer StorageBuffer %uint
       %sarr = OpTypeArray %uint %uint_64
     %p_sarr = OpTypePointer Workgroup %sarr
    %p_wuint = OpTypePointer Workgroup %uint
     %shared = OpVariable %p_sarr Workgroup
       %main = OpFunction %void None %fn
      %entry = OpLabel
        %gv3 = OpLoad %v3uint %gid_var
          %g = OpCompositeExtract %uint %gv3 0
        %lv3 = OpLoad %v3uint %lid_var
        %lid = OpCompositeExtract %uint %lv3 0
        %wv3 = OpLoad %v3uint %wid_var
        %wid = OpCompositeExtract %uint %wv3 0
        %inp = OpAccessChain %p_uint %in_var %uint_0 %g
          %x = OpLoad %uint %inp
       %mine = OpAccessChain %p_wuint %shared %lid
               OpStore %mine %x
               OpControlBarrier %workgroup %workgroup %acq_rel_wg
               OpBranch %header
     %header = OpLabel
          %s = OpPhi %uint %uint_32 %entry %s_next %continue
               OpLoopMerge %done %continue None
               OpBranch %check
      %check = OpLabel
       %more = OpUGreaterThan %bool %s %uint_0
               OpBranchConditional %more %body %done
       %body = OpLabel
     %active = OpULessThan %bool %lid %s
               OpSelectionMerge %join None
               OpBranchConditional %active %add %join
        %add = OpLabel
    %partner = OpIAdd %uint %lid %s
   %other_p = OpAccessChain %p_wuint %shared %partner
          %a = OpLoad %uint %mine
          %b = OpLoad %uint %other_p
        %sum = OpIAdd %uint %a %b
               OpStore %mine %sum
               OpBranch %join
       %join = OpLabel
               OpControlBarrier %workgroup %workgroup %acq_rel_wg
               OpBranch %continue
   %continue = OpLabel
     %s_next = OpShiftRightLogical %uint %s %uint_1
               OpBranch %header
       %done = OpLabel
     %first = OpIEqual %bool %lid %uint_0
               OpSelectionMerge %end None
               OpBranchConditional %first %write %end
      %write = OpLabel
     %zero_p = OpAccessChain %p_wuint %shared %uint_0
      %total = OpLoad %uint %zero_p
       %outp = OpAccessChain %p_uint %out_var %uint_0 %wid
               OpStore %outp %total
               OpBranch %end
        %end = OpLabel
               OpReturn
               OpFunctionEnd
"""

# Loops until in[0] becomes non-zero, bumping out[0]. llvmpipe leaves any loop after 65535 iterations, so
# the test runs 65535 * 65535 work-groups of it, which takes hours.
SPIN = """
               OpCapability Shader
               OpMemoryModel Logical GLSL450
               OpEntryPoint GLCompute %main "main" %in_var %out_var
               OpExecutionMode %main LocalSize 1 1 1
               OpDecorate %arr ArrayStride 4
               OpMemberDecorate %buf 0 Offset 0
               OpDecorate %buf Block
               OpDecorate %in_var DescriptorSet 0
               OpDecorate %in_var Binding 0
               OpDecorate %out_var DescriptorSet 0
               OpDecorate %out_var Binding 1
       %void = OpTypeVoid
         %fn = OpTypeFunction %void
       %bool = OpTypeBool
       %uint = OpTypeInt 32 0
     %uint_0 = OpConstant %uint 0
     %uint_1 = OpConstant %uint 1
        %arr = OpTypeRuntimeArray %uint
        %buf = OpTypeStruct %arr
      %p_buf = OpTypePointer StorageBuffer %buf
     %in_var = OpVariable %p_buf StorageBuffer
    %out_var = OpVariable %p_buf StorageBuffer
     %p_uint = OpTypePointer StorageBuffer %uint
       %main = OpFunction %void None %fn
      %entry = OpLabel
        %inp = OpAccessChain %p_uint %in_var %uint_0 %uint_0
       %outp = OpAccessChain %p_uint %out_var %uint_0 %uint_0
               OpBranch %header
     %header = OpLabel
               OpLoopMerge %done %continue None
               OpBranch %body
       %body = OpLabel
          %n = OpLoad %uint %outp
         %n1 = OpIAdd %uint %n %uint_1
               OpStore %outp %n1
       %stop = OpLoad %uint %inp Volatile
      %ended = OpINotEqual %bool %stop %uint_0
               OpBranchConditional %ended %done %continue
   %continue = OpLabel
               OpBranch %header
       %done = OpLabel
               OpReturn
               OpFunctionEnd
"""


def _spirv_tool(tool: str, data: bytes, *args: str) -> subprocess.CompletedProcess:
    return subprocess.run([tool, "--target-env", ENV, *args], input=data, capture_output=True)


@functools.lru_cache(maxsize=None)
def assemble(text: str, validate: bool = True) -> bytes:
    """spirv-as the text; spirv-val the binary unless `validate` is False."""
    done = _spirv_tool("spirv-as", text.encode(), "-", "-o", "-")
    assert done.returncode == 0, done.stderr.decode()
    if validate:
        checked = _spirv_tool("spirv-val", done.stdout, "-")
        assert checked.returncode == 0, checked.stderr.decode()
    return done.stdout


def scale_shader(kind: str) -> bytes:
    dtype, caps, convert, _ = SCALE_TYPES[kind]
    bits = np.dtype(dtype).itemsize * 8
    return assemble(SCALE.format(caps=caps, size=bits // 8, bits=bits, signed=int(bits == 32), convert=convert))


def test_lavapipe_device_and_features():
    assert device_name().startswith("llvmpipe"), device_name()
    features = device_features()
    assert set(features) == set(FEATURE_NAMES)
    # CI installs lavapipe (Mesa 22.3), which supports every feature the backend may use.
    assert all(features.values()), features


@pytest.mark.parametrize("kind", sorted(SCALE_TYPES))
def test_scale_sparse_bindings_push_constant(kind):
    dtype, _, _, needs = SCALE_TYPES[kind]
    features = device_features()
    assert all(features[n] for n in needs), f"lavapipe should support {needs}: {features}"
    groups = 5
    n = 8 * groups
    rng = np.random.default_rng(7)
    info = np.iinfo(dtype)
    data = rng.integers(0, info.max, size=n, dtype=dtype, endpoint=True)
    k = dtype(rng.integers(2, info.max, dtype=dtype))
    out = np.full(n, 0xAB, dtype=dtype)
    result = dispatch(scale_shader(kind), "main", {0: data, 2: out}, k.tobytes(), (groups, 1, 1))
    expected = data * k + np.arange(n).astype(dtype)  # numpy wraps like the shader's OpIMul/OpIAdd
    assert set(result) == {0, 2}
    assert result[2].dtype == dtype and result[2].shape == (n,)
    np.testing.assert_array_equal(result[2], expected)
    np.testing.assert_array_equal(result[0], data)
    assert (out == 0xAB).all(), "dispatch must not write into the caller's arrays"


def test_workgroup_reduction_with_barriers():
    groups = 6
    data = np.random.default_rng(3).integers(0, 2**32, size=64 * groups, dtype=np.uint32)
    out = np.zeros(groups, np.uint32)
    result = dispatch(assemble(REDUCE), "main", {0: data, 1: out}, b"", (groups, 1, 1))
    expected = data.reshape(groups, 64).sum(axis=1, dtype=np.uint32)
    np.testing.assert_array_equal(result[1], expected)


def test_result_keeps_dtype_and_shape_and_is_a_new_array():
    data = np.arange(80, dtype=np.uint32).reshape(8, 10)[:, ::2]  # not C-contiguous
    out = np.zeros((5, 8), np.uint32)
    result = dispatch(scale_shader("u32"), "main", {0: data, 2: out}, np.uint32(1).tobytes(), (5, 1, 1))
    assert result[0].shape == (8, 5) and result[0].dtype == np.uint32
    np.testing.assert_array_equal(result[0], data)
    assert result[2].shape == (5, 8)
    flat = np.ascontiguousarray(data).ravel()
    np.testing.assert_array_equal(result[2].ravel(), flat + np.arange(40, dtype=np.uint32))
    assert not np.shares_memory(result[0], data) and not np.shares_memory(result[2], out)


def test_empty_buffers():
    data = np.arange(8, dtype=np.uint32)
    spare = np.empty((0, 3), np.float32)
    result = dispatch(scale_shader("u32"), "main", {0: data, 1: spare, 2: np.zeros(8, np.uint32)},
                      np.uint32(2).tobytes(), (1, 1, 1))
    assert result[1].shape == (0, 3) and result[1].dtype == np.float32
    np.testing.assert_array_equal(result[2], data * 2 + np.arange(8, dtype=np.uint32))
    # No work-groups at all: both buffers are empty and come back empty.
    nothing = dispatch(scale_shader("u32"), "main", {0: np.empty(0, np.uint32), 2: np.empty(0, np.uint32)},
                       np.uint32(2).tobytes(), (0, 1, 1))
    assert {b: a.shape for b, a in nothing.items()} == {0: (0,), 2: (0,)}


def test_threads_share_the_device():
    data = np.arange(64, dtype=np.uint32)
    results: dict[int, np.ndarray] = {}

    def run(k: int) -> None:
        got = dispatch(scale_shader("u32"), "main", {0: data, 2: np.zeros(64, np.uint32)},
                       np.uint32(k).tobytes(), (8, 1, 1))
        results[k] = got[2]

    threads = [threading.Thread(target=run, args=(k,)) for k in range(2, 8)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    for k in range(2, 8):
        np.testing.assert_array_equal(results[k], data * k + np.arange(64, dtype=np.uint32))


def _buffers() -> dict[int, np.ndarray]:
    return {0: np.arange(8, dtype=np.uint32), 2: np.zeros(8, np.uint32)}


def test_push_constants_over_the_device_limit():
    with pytest.raises(VulkanError, match=r"push constants are 4096 bytes; the device allows at most \d+"):
        dispatch(scale_shader("u32"), "main", _buffers(), bytes(4096), (1, 1, 1))


def test_group_count_over_the_device_limit():
    with pytest.raises(VulkanError, match=r"work-group count y=4294967296 is outside 0\.\.\d+"):
        dispatch(scale_shader("u32"), "main", _buffers(), bytes(4), (1, 1 << 32, 1))


def test_missing_entry_point_and_not_spirv():
    with pytest.raises(VulkanError, match=r"no GLCompute entry point 'kernel' in the SPIR-V module \(has: 'main'\)"):
        dispatch(scale_shader("u32"), "kernel", _buffers(), bytes(4), (1, 1, 1))
    with pytest.raises(VulkanError, match="not a SPIR-V module"):
        dispatch(b"not a SPIR-V module", "main", _buffers(), bytes(4), (1, 1, 1))


def test_module_resources_must_match_the_call():
    with pytest.raises(VulkanError, match=r"uses storage buffer binding 2 \(variable %\d+\) but no buffer was "
                                          r"given for it \(given: \[0, 1\]\)"):
        dispatch(scale_shader("u32"), "main", {0: np.zeros(8, np.uint32), 1: np.zeros(8, np.uint32)}, bytes(4),
                 (1, 1, 1))
    with pytest.raises(VulkanError, match=r"entry point 'main' reads push constants \(variable %\d+\) but none"):
        dispatch(scale_shader("u32"), "main", _buffers(), b"", (1, 1, 1))
    set1 = assemble(SCALE.format(caps="", size=4, bits=32, signed=1, convert="OpBitcast").replace(
        "OpDecorate %out_var DescriptorSet 0", "OpDecorate %out_var DescriptorSet 1"))
    with pytest.raises(VulkanError, match=r"uses descriptor set 1 \(variable %\d+\); dispatch binds only set 0"):
        dispatch(set1, "main", _buffers(), bytes(4), (1, 1, 1))


def test_driver_rejects_module():
    # Use an id nobody defines: spirv-val rejects it, and so does the driver's SPIR-V parser.
    bad_text = SCALE.format(caps="", size=4, bits=32, signed=1, convert="OpBitcast").replace(
        "OpIMul %T %x %k", "OpIMul %T %x %nowhere")
    bad = assemble(bad_text, validate=False)
    assert _spirv_tool("spirv-val", bad, "-").returncode != 0
    with pytest.raises(VulkanError) as info:
        dispatch(bad, "main", _buffers(), bytes(4), (1, 1, 1))
    assert str(info.value).startswith("vkCreateComputePipelines failed: VK_ERROR_"), str(info.value)
    # The device is still usable afterwards.
    good = dispatch(scale_shader("u32"), "main", _buffers(), np.uint32(3).tobytes(), (1, 1, 1))
    np.testing.assert_array_equal(good[2], np.arange(8, dtype=np.uint32) * 4)


def _python(code: str, **env: str) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, "-c", code], cwd=ROOT, capture_output=True, text=True, timeout=120,
                          env={**os.environ, **env})


_PRINT_ERROR = """
from reconverge.backend.spirv.vulkan_run import VulkanError, device_name
try:
    device_name()
except VulkanError as exc:
    print(exc)
"""


def test_no_driver_message():
    done = _python(_PRINT_ERROR, VK_ICD_FILENAMES="/nonexistent", VK_DRIVER_FILES="/nonexistent")
    assert done.returncode == 0, done.stderr
    assert done.stdout == "no Vulkan driver found: install mesa-vulkan-drivers (lavapipe)\n"


def test_no_vulkan_package_message():
    done = _python("import sys\nsys.modules['vulkan'] = None\n" + _PRINT_ERROR)
    assert done.returncode == 0, done.stderr
    lines = done.stdout.splitlines()
    assert len(lines) == 1 and lines[0].endswith("install the 'vulkan' pip package / apt libvulkan1"), lines


def test_fence_timeout(tmp_path):
    spin = tmp_path / "spin.spv"
    spin.write_bytes(assemble(SPIN))
    code = f"""
import os, numpy as np
from reconverge.backend.spirv import vulkan_run
vulkan_run.FENCE_TIMEOUT_S = 0.5
try:
    vulkan_run.dispatch(open({str(spin)!r}, "rb").read(), "main", {{0: np.zeros(1, np.uint32),
                        1: np.zeros(1, np.uint32)}}, b"", (65535, 65535, 1))
except vulkan_run.VulkanError as exc:
    print(exc, flush=True)
os._exit(0)  # the device thread is still spinning
"""
    done = _python(code)
    assert done.returncode == 0, done.stderr
    assert done.stdout.startswith("the dispatch did not finish within 0.5 s on llvmpipe"), done.stdout
    assert done.stdout.rstrip().endswith("(vkWaitForFences: VK_TIMEOUT)"), done.stdout
