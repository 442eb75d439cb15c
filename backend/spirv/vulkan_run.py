"""Run a SPIR-V compute shader on a real Vulkan driver (Mesa lavapipe in CI).

Over 600 lines: kept one file so that tools/gpu_replay.py can load it alone on a machine without the
package.

Why: spirv-val only says a module is well formed; executing it on a driver is what shows
that the code we emit computes the right values. `dispatch` binds numpy arrays as storage
buffers (descriptor set 0), pushes constants, runs vkCmdDispatch and returns the buffers.

The instance and device are created once per process; everything else (buffers, memory,
shader module, pipeline, descriptors, command pool, fence) is created and destroyed per call.

Gotcha of the `vulkan` (cffi) binding: a struct copied into another struct or array does not
keep the objects its pointers refer to alive, so every struct built here stays in a local
variable until the call that uses it returns.
"""

from __future__ import annotations

import atexit
import os
import re
import threading
from dataclasses import dataclass, field
from functools import partial
from typing import Any, Callable

import numpy as np

from reconverge.lowering.errors import CompileError

from .grammar import GRAMMAR

FENCE_TIMEOUT_S = 120.0
"""How long `dispatch` waits for the GPU (seconds) before giving up."""

_CORE_FEATURES = ("shaderInt64", "shaderInt16", "shaderFloat64")
_VK11_FEATURES = ("storageBuffer16BitAccess", "uniformAndStorageBuffer16BitAccess", "storagePushConstant16")
_VK12_FEATURES = (
    "shaderInt8", "shaderFloat16", "storageBuffer8BitAccess", "uniformAndStorageBuffer8BitAccess",
    "storagePushConstant8", "vulkanMemoryModel", "shaderBufferInt64Atomics", "shaderSharedInt64Atomics",
    "shaderSubgroupExtendedTypes",
)
_VK13_FEATURES = ("computeFullSubgroups",)
FEATURE_NAMES = _CORE_FEATURES + _VK11_FEATURES + _VK12_FEATURES + _VK13_FEATURES

_NO_DRIVER = "no Vulkan driver found: install mesa-vulkan-drivers (lavapipe)"
# the numbers this module reads a SPIR-V header for, from the Khronos grammar (spirv-headers)
_SPIRV_MAGIC = GRAMMAR.magic_number
_OP_ENTRY_POINT, _OP_FUNCTION, _OP_VARIABLE, _OP_DECORATE = (
    GRAMMAR.opcode(n) for n in ("OpEntryPoint", "OpFunction", "OpVariable", "OpDecorate"))
_GL_COMPUTE = GRAMMAR.enumerant("ExecutionModel", "GLCompute")
_DEC_BINDING, _DEC_DESCRIPTOR_SET = (GRAMMAR.enumerant("Decoration", n) for n in ("Binding", "DescriptorSet"))
_SC_PUSH_CONSTANT = GRAMMAR.enumerant("StorageClass", "PushConstant")
_BUFFER_STORAGE = tuple(GRAMMAR.enumerant("StorageClass", n) for n in ("Uniform", "StorageBuffer"))


class VulkanError(CompileError):
    """Vulkan is missing, a limit is exceeded, or a Vulkan call failed (one-line message)."""


@dataclass(frozen=True)
class _Limits:
    """The device limits `dispatch` checks (copied: the binding's structs die with their owner)."""

    maxPushConstantsSize: int
    maxComputeWorkGroupCount: tuple[int, int, int]
    maxPerStageDescriptorStorageBuffers: int
    maxStorageBufferRange: int
    maxComputeWorkGroupSize: tuple[int, int, int]
    maxComputeWorkGroupInvocations: int
    maxComputeSharedMemorySize: int


@dataclass(frozen=True)
class DeviceInfo:
    """One Vulkan physical device as `reconverge devices` lists it (plain data, copied from the binding)."""

    index: int                      # its place in vkEnumeratePhysicalDevices' order (what --vk-device N means)
    name: str
    type: str                       # cpu, discrete-gpu, integrated-gpu, virtual-gpu, other
    api_version: str
    driver_id: int                  # VkDriverId (0 where the device predates Vulkan 1.2)
    driver_name: str
    driver_info: str
    driver_version: int             # raw; its encoding is the vendor's
    usable: bool                    # a compute queue and Vulkan 1.1: `dispatch` can run on it
    features: dict[str, bool]       # FEATURE_NAMES -> supported
    subgroup_size: int
    subgroup_operations: tuple[str, ...]
    subgroup_stages: tuple[str, ...]
    # VK_KHR_shader_maximal_reconvergence: the driver promises Vulkan's maximal reconvergence to modules that
    # ask for it (MaximallyReconvergesKHR); without it our structured modules are right by construction
    maximal_reconvergence: bool = False
    # the float widths whose signed zeros, Inf and NaN a module may ask the driver to keep (SignedZeroInfNanPreserve;
    # VkPhysicalDeviceFloatControlsProperties.shaderSignedZeroInfNanPreserveFloat16/32/64, Vulkan 1.2)
    signed_zero_widths: tuple[int, ...] = ()
    # VkPhysicalDeviceFloatControlsProperties.shaderRoundingModeRTEFloat16/32/64 (Vulkan 1.2)
    rte_widths: tuple[int, ...] = ()

    @property
    def is_lavapipe(self) -> bool:
        return self.driver_id == LAVAPIPE_DRIVER_ID

    @property
    def label(self) -> str:
        """'1: NVIDIA H200, driver NVIDIA 580.159': how messages name the device."""
        driver = f", driver {self.driver_name} {self.driver_info}".rstrip() if self.driver_name else ""
        return f"{self.index}: {self.name}{driver}"


LAVAPIPE_DRIVER_ID = 13  # VK_DRIVER_ID_MESA_LLVMPIPE (Vulkan spec, VkDriverId)
_DEVICE_TYPES = {0: "other", 1: "integrated-gpu", 2: "discrete-gpu", 3: "virtual-gpu", 4: "cpu"}
# VkSubgroupFeatureFlagBits and VkShaderStageFlagBits (Vulkan spec), in bit order
_SUBGROUP_OPERATIONS = ("basic", "vote", "arithmetic", "ballot", "shuffle", "shuffle-relative", "clustered", "quad")
_STAGES = ("vertex", "tess-control", "tess-eval", "geometry", "fragment", "compute")
# SPIR-V capability -> the VkSubgroupFeatureFlagBits the device must report for it (Vulkan spec, appendix
# "SPIR-V Capabilities": GroupNonUniform needs VK_SUBGROUP_FEATURE_BASIC_BIT, and so on)
SUBGROUP_CAPABILITIES = {"GroupNonUniform": "basic", "GroupNonUniformVote": "vote",
                         "GroupNonUniformArithmetic": "arithmetic", "GroupNonUniformBallot": "ballot",
                         "GroupNonUniformShuffle": "shuffle", "GroupNonUniformShuffleRelative": "shuffle-relative",
                         "GroupNonUniformClustered": "clustered", "GroupNonUniformQuad": "quad"}
# VkPipelineShaderStageCreateFlagBits (Vulkan 1.3 core, VK_EXT_subgroup_size_control before): every subgroup
# of the stage launched with all its invocations active (needs the computeFullSubgroups feature)
REQUIRE_FULL_SUBGROUPS = 0x2
try:
    _OP_CAPABILITY = GRAMMAR.opcode("OpCapability")
    _CAPABILITY_NAMES = {GRAMMAR.enumerant("Capability", c): c for c in SUBGROUP_CAPABILITIES}
except KeyError:        # a tools/gpu_replay record made before sub-groups: no capability to check
    _OP_CAPABILITY, _CAPABILITY_NAMES = -1, {}
try:
    _OP_EXTENSION = GRAMMAR.opcode("OpExtension")
except KeyError:        # a tools/gpu_replay record made before MaximallyReconvergesKHR: no extension to check
    _OP_EXTENSION = -1
_SPV_MAXIMAL_RECONVERGENCE = "SPV_KHR_maximal_reconvergence"
try:
    _OP_EXECUTION_MODE = GRAMMAR.opcode("OpExecutionMode")
    _SIGNED_ZERO_MODE = GRAMMAR.enumerant("ExecutionMode", "SignedZeroInfNanPreserve")
    _RTE_MODE = GRAMMAR.enumerant("ExecutionMode", "RoundingModeRTE")
except KeyError:        # a tools/gpu_replay record made before the mode: no mode to check
    _OP_EXECUTION_MODE, _SIGNED_ZERO_MODE, _RTE_MODE = -1, -1, -1


@dataclass
class _Context:
    """The instance, one device and its queue, plus what `dispatch` checks against."""

    vk: Any
    instance: Any
    device: Any
    queue: Any
    queue_family: int
    name: str
    info: DeviceInfo
    features: dict[str, bool]
    limits: _Limits
    memory_types: list[tuple[int, int]]  # (propertyFlags, heapIndex) per memory type
    wedged: bool = False  # a dispatch timed out: the device may still be busy, so never tear it down
    queue_lock: threading.Lock = field(default_factory=threading.Lock)


@dataclass
class _Instance:
    vk: Any
    handle: Any
    physical: list[Any]
    infos: list[DeviceInfo]


_lock = threading.Lock()
_instance: _Instance | None = None
_init_error: str | None = None
_contexts: dict[int, _Context] = {}
_selected: int | None = None  # the device index `dispatch` runs on (None: the default, see select_device)


def _result_name(exc: BaseException) -> str:
    """VkErrorOutOfHostMemory -> VK_ERROR_OUT_OF_HOST_MEMORY."""
    return "VK_" + re.sub(r"(?<=[a-z0-9])(?=[A-Z])", "_", type(exc).__name__[2:]).upper()


def _call(vk: Any, name: str, fn: Callable[..., Any], *args: Any) -> Any:
    """Call a Vulkan function, turning a VkResult error into a VulkanError naming the call."""
    try:
        return fn(*args)
    except (vk.VkError, vk.VkException) as exc:
        raise VulkanError(f"{name} failed: {_result_name(exc)}") from None


def _import_vulkan() -> Any:
    """The `vulkan` module, which loads libvulkan.so.1 when imported."""
    try:
        import vulkan
    except ImportError as exc:
        raise VulkanError(f"cannot import the 'vulkan' Python package ({exc}): install the 'vulkan' "
                          "pip package / apt libvulkan1") from None
    except OSError:
        raise VulkanError("cannot load the Vulkan loader libvulkan.so.1: install the 'vulkan' "
                          "pip package / apt libvulkan1") from None
    return vulkan


def _version_text(v: int) -> str:
    return f"{v >> 22}.{(v >> 12) & 0x3FF}.{v & 0xFFF}"


def _flag_names(mask: int, names: tuple[str, ...]) -> tuple[str, ...]:
    return tuple(n for i, n in enumerate(names) if mask & (1 << i))


def _query_features(vk: Any, pd: Any, has_12: bool, has_13: bool = False) -> dict[str, bool]:
    """FEATURE_NAMES -> supported, from vkGetPhysicalDeviceFeatures2."""
    q11 = vk.VkPhysicalDeviceVulkan11Features(sType=vk.VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_VULKAN_1_1_FEATURES)
    q12 = vk.VkPhysicalDeviceVulkan12Features(sType=vk.VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_VULKAN_1_2_FEATURES,
                                              pNext=q11)
    q13 = vk.VkPhysicalDeviceVulkan13Features(sType=vk.VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_VULKAN_1_3_FEATURES,
                                              pNext=q12)
    q2 = vk.VkPhysicalDeviceFeatures2(sType=vk.VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_FEATURES_2,
                                      pNext=(q13 if has_13 else q12) if has_12 else None)
    vk.vkGetPhysicalDeviceFeatures2(pd, q2)
    features = {n: bool(getattr(q2.features, n)) for n in _CORE_FEATURES}
    features.update({n: has_12 and bool(getattr(q11, n)) for n in _VK11_FEATURES})
    features.update({n: has_12 and bool(getattr(q12, n)) for n in _VK12_FEATURES})
    features.update({n: has_13 and bool(getattr(q13, n)) for n in _VK13_FEATURES})
    return features


def _describe(vk: Any, index: int, pd: Any) -> DeviceInfo:
    """What `reconverge devices` shows about one physical device."""
    props = vk.vkGetPhysicalDeviceProperties(pd)
    has_11 = props.apiVersion >= vk.VK_MAKE_VERSION(1, 1, 0)
    has_12 = props.apiVersion >= vk.VK_MAKE_VERSION(1, 2, 0)
    has_13 = props.apiVersion >= vk.VK_MAKE_VERSION(1, 3, 0)
    families = vk.vkGetPhysicalDeviceQueueFamilyProperties(pd)
    compute = any(f.queueFlags & vk.VK_QUEUE_COMPUTE_BIT for f in families)
    driver_id, driver_name, driver_info = 0, "", ""
    sub_size, sub_ops, sub_stages = 0, 0, 0
    signed_zero_widths: tuple[int, ...] = ()
    rte_widths: tuple[int, ...] = ()
    if has_11:
        sub = vk.VkPhysicalDeviceSubgroupProperties(sType=vk.VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_SUBGROUP_PROPERTIES)
        drv = vk.VkPhysicalDeviceDriverProperties(sType=vk.VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_DRIVER_PROPERTIES,
                                                  pNext=sub)
        floats = vk.VkPhysicalDeviceFloatControlsProperties(
            sType=vk.VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_FLOAT_CONTROLS_PROPERTIES, pNext=drv)
        p2 = vk.VkPhysicalDeviceProperties2(sType=vk.VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_PROPERTIES_2,
                                            pNext=floats if has_12 else sub)
        vk.vkGetPhysicalDeviceProperties2(pd, p2)
        sub_size, sub_ops, sub_stages = int(sub.subgroupSize), int(sub.supportedOperations), int(sub.supportedStages)
        if has_12:
            driver_id = int(drv.driverID)
            driver_name = vk.ffi.string(drv.driverName).decode("utf-8", "replace")
            driver_info = vk.ffi.string(drv.driverInfo).decode("utf-8", "replace")
            signed_zero_widths = tuple(w for w in (16, 32, 64)
                                       if getattr(floats, f"shaderSignedZeroInfNanPreserveFloat{w}"))
            rte_widths = tuple(w for w in (16, 32, 64) if getattr(floats, f"shaderRoundingModeRTEFloat{w}"))
    return DeviceInfo(index=index, name=str(props.deviceName), type=_DEVICE_TYPES.get(int(props.deviceType), "other"),
                      api_version=_version_text(int(props.apiVersion)), driver_id=driver_id,
                      driver_name=driver_name, driver_info=driver_info, driver_version=int(props.driverVersion),
                      usable=compute and has_11, features=_query_features(vk, pd, has_12, has_13),
                      subgroup_size=sub_size, subgroup_operations=_flag_names(sub_ops, _SUBGROUP_OPERATIONS),
                      subgroup_stages=_flag_names(sub_stages, _STAGES),
                      maximal_reconvergence=_has_maximal_reconvergence(vk, pd, has_11),
                      signed_zero_widths=signed_zero_widths, rte_widths=rte_widths)


MAXIMAL_RECONVERGENCE = "VK_KHR_shader_maximal_reconvergence"
# VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_SHADER_MAXIMAL_RECONVERGENCE_FEATURES_KHR (Vulkan spec, VkStructureType;
# extension 435: 1000000000 + 434 * 1000)
_MAXIMAL_RECONVERGENCE_FEATURES = 1000434000


def _maximal_reconvergence_features(vk: Any, enable: bool = False, then: Any = None) -> Any:
    """A VkPhysicalDeviceShaderMaximalReconvergenceFeaturesKHR {sType, pNext, shaderMaximalReconvergence}. The
    `vulkan` binding (1.3.275) predates it, so this is the binding's struct of the same layout (Vulkan's
    VkPhysicalDeviceShaderSubgroupUniformControlFlowFeaturesKHR: sType, pNext, one VkBool32) with its sType."""
    return vk.VkPhysicalDeviceShaderSubgroupUniformControlFlowFeaturesKHR(
        sType=_MAXIMAL_RECONVERGENCE_FEATURES, pNext=then, shaderSubgroupUniformControlFlow=1 if enable else 0)


def _has_maximal_reconvergence(vk: Any, pd: Any, has_11: bool) -> bool:
    """The device offers the extension and its shaderMaximalReconvergence feature (vkGetPhysicalDeviceFeatures2)."""
    if not has_11 or MAXIMAL_RECONVERGENCE not in _extension_names(vk, pd):
        return False
    query = _maximal_reconvergence_features(vk)
    q2 = vk.VkPhysicalDeviceFeatures2(sType=vk.VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_FEATURES_2, pNext=query)
    vk.vkGetPhysicalDeviceFeatures2(pd, q2)
    return bool(query.shaderSubgroupUniformControlFlow)


def _extension_names(vk: Any, pd: Any) -> set[str]:
    """The device extensions the driver offers."""
    found = vk.vkEnumerateDeviceExtensionProperties(pd, None)
    return {e.extensionName if isinstance(e.extensionName, str) else vk.ffi.string(e.extensionName).decode()
            for e in found}


def _create_instance() -> _Instance:
    """The Vulkan instance and every physical device it sees, described."""
    os.environ.setdefault("MESA_SHADER_CACHE_DISABLE", "true")
    vk = _import_vulkan()
    app = vk.VkApplicationInfo(sType=vk.VK_STRUCTURE_TYPE_APPLICATION_INFO, pApplicationName="reconverge",
                               applicationVersion=1, pEngineName="reconverge", engineVersion=1,
                               apiVersion=vk.VK_MAKE_VERSION(1, 3, 0))
    inst_info = vk.VkInstanceCreateInfo(sType=vk.VK_STRUCTURE_TYPE_INSTANCE_CREATE_INFO, pApplicationInfo=app)
    try:
        instance = vk.vkCreateInstance(inst_info, None)
    except vk.VkErrorIncompatibleDriver:
        raise VulkanError(_NO_DRIVER) from None
    except (vk.VkError, vk.VkException) as exc:
        raise VulkanError(f"vkCreateInstance failed: {_result_name(exc)}") from None
    try:
        physical = list(vk.vkEnumeratePhysicalDevices(instance))
        infos = [_describe(vk, i, pd) for i, pd in enumerate(physical)]
    except (vk.VkError, vk.VkException):
        vk.vkDestroyInstance(instance, None)
        raise VulkanError(_NO_DRIVER) from None
    if not any(info.usable for info in infos):
        vk.vkDestroyInstance(instance, None)
        raise VulkanError(_NO_DRIVER)
    return _Instance(vk, instance, physical, infos)


def _get_instance() -> _Instance:
    """The cached instance (call with _lock held); a failure is remembered and re-raised."""
    global _instance, _init_error
    if _instance is None:
        if _init_error is not None:
            raise VulkanError(_init_error)
        try:
            _instance = _create_instance()
        except VulkanError as exc:
            _init_error = str(exc)
            raise
    return _instance


def devices() -> list[DeviceInfo]:
    """Every Vulkan physical device, in the loader's order (VulkanError when there is no driver at all)."""
    with _lock:
        return list(_get_instance().infos)


def default_device(prefer_gpu: bool = False) -> DeviceInfo:
    """lavapipe when present, so that runs are the same everywhere; else the first usable device. With
    prefer_gpu (the GPU replay), the first usable device that is not a CPU, else the default."""
    usable = [d for d in devices() if d.usable]
    if prefer_gpu:
        gpus = [d for d in usable if d.type != "cpu"]
        if gpus:
            return gpus[0]
    return next((d for d in usable if d.is_lavapipe), usable[0])


DEVICE_ENV = "RECONVERGE_VK_DEVICE"
"""An environment variable naming the device to use when none is given (as --vk-device does)."""


def find_device(spec: str | int | None, prefer_gpu: bool = False) -> DeviceInfo:
    """The device a --vk-device value names: its index N, or a case-insensitive part of its name or driver
    name ('lavapipe' names Mesa's CPU driver); None is $RECONVERGE_VK_DEVICE if set, else the default."""
    if spec is None:
        spec = os.environ.get(DEVICE_ENV) or None
    if spec is None:
        return default_device(prefer_gpu)
    known = devices()
    text = str(spec).strip()
    if text.isdigit():
        found = [d for d in known if d.index == int(text)]
    else:
        want = text.lower()
        found = [d for d in known if want in d.name.lower() or want in d.driver_name.lower()
                 or (want == "lavapipe" and d.is_lavapipe)]
    if not found:
        listing = "; ".join(d.label for d in known)
        raise VulkanError(f"no Vulkan device matches '{text}' (devices: {listing})")
    if not found[0].usable:
        raise VulkanError(f"Vulkan device {found[0].label} cannot run compute shaders (no compute queue or "
                          "Vulkan 1.0 only)")
    return found[0]


def select_device(spec: str | int | None) -> DeviceInfo:
    """Make `dispatch` (and the queries below) use the device `spec` names (see find_device) from now on."""
    global _selected
    info = find_device(spec)
    _selected = info.index
    return info


def _create_context(inst: _Instance, index: int) -> _Context:
    """A device (with every supported feature of FEATURE_NAMES enabled) and queue on physical device `index`."""
    vk, pd, info = inst.vk, inst.physical[index], inst.infos[index]
    families = vk.vkGetPhysicalDeviceQueueFamilyProperties(pd)
    family = next(i for i, f in enumerate(families) if f.queueFlags & vk.VK_QUEUE_COMPUTE_BIT)
    props = vk.vkGetPhysicalDeviceProperties(pd)
    has_12 = props.apiVersion >= vk.VK_MAKE_VERSION(1, 2, 0)
    features = dict(info.features)
    # Enable exactly the supported subset of FEATURE_NAMES.
    e11 = vk.VkPhysicalDeviceVulkan11Features(sType=vk.VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_VULKAN_1_1_FEATURES,
                                              **{n: 1 for n in _VK11_FEATURES if features[n]})
    e12 = vk.VkPhysicalDeviceVulkan12Features(sType=vk.VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_VULKAN_1_2_FEATURES,
                                              pNext=e11, **{n: 1 for n in _VK12_FEATURES if features[n]})
    e13 = vk.VkPhysicalDeviceVulkan13Features(sType=vk.VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_VULKAN_1_3_FEATURES,
                                              pNext=e12, **{n: 1 for n in _VK13_FEATURES if features[n]})
    core = vk.VkPhysicalDeviceFeatures(**{n: 1 for n in _CORE_FEATURES if features[n]})
    has_13 = props.apiVersion >= vk.VK_MAKE_VERSION(1, 3, 0)
    chain = (e13 if has_13 else e12) if has_12 else None
    # a device offering VK_KHR_shader_maximal_reconvergence gets it enabled with its feature, so that our modules
    # may declare MaximallyReconvergesKHR (backend.spirv.launch)
    extensions = [MAXIMAL_RECONVERGENCE] if info.maximal_reconvergence else []
    maximal = _maximal_reconvergence_features(vk, enable=True, then=chain) if extensions else None
    chain = maximal if maximal is not None else chain
    e2 = vk.VkPhysicalDeviceFeatures2(sType=vk.VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_FEATURES_2, pNext=chain,
                                      features=core)
    priorities = [1.0]
    queue_info = vk.VkDeviceQueueCreateInfo(sType=vk.VK_STRUCTURE_TYPE_DEVICE_QUEUE_CREATE_INFO,
                                            queueFamilyIndex=family, queueCount=1, pQueuePriorities=priorities)
    queue_infos = [queue_info]
    dev_info = vk.VkDeviceCreateInfo(sType=vk.VK_STRUCTURE_TYPE_DEVICE_CREATE_INFO, pNext=e2,
                                     queueCreateInfoCount=1, pQueueCreateInfos=queue_infos,
                                     enabledExtensionCount=len(extensions),
                                     ppEnabledExtensionNames=extensions or None)
    device = _call(vk, "vkCreateDevice", vk.vkCreateDevice, pd, dev_info, None)
    queue = vk.vkGetDeviceQueue(device, family, 0)
    mem = vk.vkGetPhysicalDeviceMemoryProperties(pd)
    memory_types = [(mem.memoryTypes[i].propertyFlags, mem.memoryTypes[i].heapIndex)
                    for i in range(mem.memoryTypeCount)]
    lim = props.limits
    gx, gy, gz = (int(n) for n in lim.maxComputeWorkGroupCount)
    lx, ly, lz = (int(n) for n in lim.maxComputeWorkGroupSize)
    limits = _Limits(int(lim.maxPushConstantsSize), (gx, gy, gz),
                     int(lim.maxPerStageDescriptorStorageBuffers), int(lim.maxStorageBufferRange),
                     (lx, ly, lz), int(lim.maxComputeWorkGroupInvocations),
                     int(lim.maxComputeSharedMemorySize))
    return _Context(vk=vk, instance=inst.handle, device=device, queue=queue, queue_family=family,
                    name=info.name, info=info, features=features, limits=limits, memory_types=memory_types)


def _get_context() -> _Context:
    """The selected device's context, created on first use."""
    index = _selected if _selected is not None else default_device().index
    with _lock:
        if index not in _contexts:
            _contexts[index] = _create_context(_get_instance(), index)
        return _contexts[index]


@atexit.register
def _shutdown() -> None:
    global _instance
    with _lock:
        contexts, inst = list(_contexts.values()), _instance
        _contexts.clear()
        _instance = None
    wedged = any(ctx.wedged for ctx in contexts)
    for ctx in contexts:
        if not ctx.wedged:
            ctx.vk.vkDestroyDevice(ctx.device, None)
    if inst is not None and not wedged:
        inst.vk.vkDestroyInstance(inst.handle, None)


def device_name() -> str:
    """The name of the device `dispatch` runs on, e.g. 'llvmpipe (LLVM 15.0.6, 256 bits)'."""
    return _get_context().name


def device_info() -> DeviceInfo:
    """The device `dispatch` runs on."""
    return _get_context().info


def is_lavapipe() -> bool:
    """Whether `dispatch` runs on Mesa's lavapipe (llvmpipe), whose bugs backend.spirv.launch works around."""
    return _get_context().info.is_lavapipe


def device_features() -> dict[str, bool]:
    """FEATURE_NAMES -> whether the device supports (and so has enabled) that feature."""
    return dict(_get_context().features)


@dataclass
class _ModuleSummary:
    """What `dispatch` checks in a SPIR-V module before handing it to the driver."""

    version: int
    capabilities: set[str] = field(default_factory=set)
    extensions: set[str] = field(default_factory=set)
    entry_points: dict[tuple[int, str], list[int]] = field(default_factory=dict)  # (model, name) -> interface
    variables: dict[int, int] = field(default_factory=dict)  # module-scope variable id -> storage class
    decorations: dict[tuple[int, int], int] = field(default_factory=dict)  # (id, decoration) -> literal
    signed_zero_widths: set[int] = field(default_factory=set)   # SignedZeroInfNanPreserve's, on any entry point
    rte_widths: set[int] = field(default_factory=set)           # RoundingModeRTE's, likewise


def _summarize(spirv: bytes) -> _ModuleSummary:
    """Entry points, module-scope variables and their bindings; VulkanError if this is not SPIR-V."""
    if len(spirv) < 20 or len(spirv) % 4:
        raise VulkanError(f"not a SPIR-V module: {len(spirv)} bytes (need a multiple of 4, at least 20)")
    words = np.frombuffer(spirv, dtype="<u4")
    if words[0] == int.from_bytes(_SPIRV_MAGIC.to_bytes(4, "little"), "big"):
        words = words.byteswap()
    elif words[0] != _SPIRV_MAGIC:
        raise VulkanError(f"not a SPIR-V module: magic number {int(words[0]):#010x}")
    summary, i = _ModuleSummary(version=int(words[1])), 5
    while i < len(words):
        count, opcode = int(words[i]) >> 16, int(words[i]) & 0xFFFF
        if count == 0 or i + count > len(words):
            raise VulkanError(f"malformed SPIR-V module: bad instruction at word {i}")
        operands = [int(w) for w in words[i + 1:i + count]]
        if opcode == _OP_FUNCTION:
            break  # everything checked here precedes the first function
        if opcode == _OP_CAPABILITY and operands:
            summary.capabilities.add(_CAPABILITY_NAMES.get(operands[0], str(operands[0])))
        if opcode == _OP_EXTENSION and count >= 2:
            summary.extensions.add(words[i + 1:i + count].astype("<u4").tobytes().partition(b"\0")[0].decode(
                "utf-8", "replace"))
        if opcode == _OP_ENTRY_POINT and count >= 4:
            raw = words[i + 3:i + count].astype("<u4").tobytes()
            name, _, _ = raw.partition(b"\0")
            interface = operands[2 + len(name) // 4 + 1:]
            summary.entry_points[(operands[0], name.decode("utf-8", "replace"))] = interface
        elif opcode == _OP_VARIABLE and count >= 4:
            summary.variables[operands[1]] = operands[2]
        elif opcode == _OP_DECORATE and count >= 4:
            summary.decorations[(operands[0], operands[1])] = operands[2]
        elif opcode == _OP_EXECUTION_MODE and count >= 4 and operands[1] == _SIGNED_ZERO_MODE:
            summary.signed_zero_widths.add(operands[2])
        elif opcode == _OP_EXECUTION_MODE and count >= 4 and operands[1] == _RTE_MODE:
            summary.rte_widths.add(operands[2])
        i += count
    return summary


def check_subgroup_support(spirv: bytes, info: DeviceInfo, what: str) -> None:
    """The sub-group capabilities a module declares against the device's VkPhysicalDeviceSubgroupProperties:
    compute among supportedStages, and each capability's bit among supportedOperations (one-line refusal); a
    module declaring MaximallyReconvergesKHR against VK_KHR_shader_maximal_reconvergence."""
    module = _summarize(spirv)
    if _SPV_MAXIMAL_RECONVERGENCE in module.extensions and not info.maximal_reconvergence:
        raise VulkanError(f"{what}: the module declares MaximallyReconvergesKHR ({_SPV_MAXIMAL_RECONVERGENCE}) but "
                          f"the Vulkan device {info.label} does not offer {MAXIMAL_RECONVERGENCE}")
    capabilities = module.capabilities
    needed = [c for c in SUBGROUP_CAPABILITIES if c in capabilities]
    if needed and "compute" not in info.subgroup_stages:
        raise VulkanError(f"{what}: the Vulkan device {info.label} has no sub-group operations in compute shaders "
                          "(VkPhysicalDeviceSubgroupProperties.supportedStages lacks compute)")
    for capability in needed:
        if SUBGROUP_CAPABILITIES[capability] not in info.subgroup_operations:
            raise VulkanError(f"{what}: the Vulkan device {info.label} lacks the sub-group feature "
                              f"'{SUBGROUP_CAPABILITIES[capability]}' (VkPhysicalDeviceSubgroupProperties."
                              f"supportedOperations) that OpCapability {capability} needs")


def check_float_controls(spirv: bytes, info: DeviceInfo, what: str) -> None:
    """The float widths a module asks to keep signed zeros, Inf and NaN of (SignedZeroInfNanPreserve) and to
    round to nearest even (RoundingModeRTE) against the device's shaderSignedZeroInfNanPreserveFloat and
    shaderRoundingModeRTEFloat properties (one-line refusal: without them the driver may drop a zero's sign or
    round toward zero, which OpenCL C allows neither)."""
    module = _summarize(spirv)
    missing = sorted(module.signed_zero_widths - set(info.signed_zero_widths))
    if missing:
        raise VulkanError(f"{what}: the Vulkan device {info.label} cannot keep the sign of a zero, Inf and NaN of "
                          f"{missing[0]}-bit floats (VkPhysicalDeviceFloatControlsProperties.shaderSignedZero"
                          f"InfNanPreserveFloat{missing[0]}), which OpenCL C needs")
    missing = sorted(module.rte_widths - set(info.rte_widths))
    if missing:
        raise VulkanError(f"{what}: the Vulkan device {info.label} cannot promise rounding to nearest even for "
                          f"{missing[0]}-bit floats (VkPhysicalDeviceFloatControlsProperties.shaderRoundingModeRTE"
                          f"Float{missing[0]}), which OpenCL C needs")


def _check_module(spirv: bytes, entry: str, bindings: set[int], push_constants: bytes) -> None:
    """The entry point exists, and its resources are exactly what `dispatch` binds."""
    module = _summarize(spirv)
    if (_GL_COMPUTE, entry) not in module.entry_points:
        have = ", ".join(repr(n) for m, n in module.entry_points if m == _GL_COMPUTE) or "none"
        raise VulkanError(f"no GLCompute entry point {entry!r} in the SPIR-V module (has: {have})")
    # Before SPIR-V 1.4 the interface lists only Input/Output variables, so look at them all.
    used = module.entry_points[(_GL_COMPUTE, entry)] if module.version >= 0x10400 else list(module.variables)
    for var in used:
        storage = module.variables.get(var)
        if storage == _SC_PUSH_CONSTANT and not push_constants:
            raise VulkanError(f"entry point {entry!r} reads push constants (variable %{var}) but none were given")
        if storage not in _BUFFER_STORAGE:
            continue
        binding = module.decorations.get((var, _DEC_BINDING))
        dset = module.decorations.get((var, _DEC_DESCRIPTOR_SET), 0)
        if dset != 0:
            raise VulkanError(f"entry point {entry!r} uses descriptor set {dset} (variable %{var}); "
                              "dispatch binds only set 0")
        if binding is not None and binding not in bindings:
            raise VulkanError(f"entry point {entry!r} uses storage buffer binding {binding} (variable %{var}) "
                              f"but no buffer was given for it (given: {sorted(bindings)})")


def check_work_group(local_size: tuple[int, int, int], shared_bytes: int, what: str) -> None:
    """The work-group shape and Workgroup memory a module declares, against the device's limits (the
    driver does not diagnose them: lavapipe runs such a launch anyway, outside valid usage)."""
    ctx = _get_context()
    limits = ctx.limits
    for axis, n, most in zip("xyz", local_size, limits.maxComputeWorkGroupSize):
        if n > most:
            raise VulkanError(f"{what}: local size {axis}={n} exceeds the device's maxComputeWorkGroupSize "
                              f"({most}, {ctx.name})")
    total = local_size[0] * local_size[1] * local_size[2]
    if total > limits.maxComputeWorkGroupInvocations:
        raise VulkanError(f"{what}: a work-group of {total} work-items exceeds the device's "
                          f"maxComputeWorkGroupInvocations ({limits.maxComputeWorkGroupInvocations}, {ctx.name})")
    if shared_bytes > limits.maxComputeSharedMemorySize:
        raise VulkanError(f"{what}: {shared_bytes} bytes of __local memory exceed the device's "
                          f"maxComputeSharedMemorySize ({limits.maxComputeSharedMemorySize}, {ctx.name})")


def _check_request(ctx: _Context, spirv: bytes, entry: str, buffers: dict[int, np.ndarray],
                   push_constants: bytes, groups: tuple[int, int, int]) -> None:
    """Reject what the driver would not diagnose clearly (or would silently get wrong)."""
    limits = ctx.limits
    if len(push_constants) > limits.maxPushConstantsSize:
        raise VulkanError(f"push constants are {len(push_constants)} bytes; the device allows at most "
                          f"{limits.maxPushConstantsSize} ({ctx.name})")
    if len(groups) != 3:
        raise VulkanError(f"groups must be 3 counts (x, y, z), got {groups!r}")
    for axis, n, most in zip("xyz", groups, limits.maxComputeWorkGroupCount):
        if not isinstance(n, (int, np.integer)) or n < 0 or n > most:
            raise VulkanError(f"work-group count {axis}={n} is outside 0..{most} (maxComputeWorkGroupCount "
                              f"of {ctx.name})")
    if len(buffers) > limits.maxPerStageDescriptorStorageBuffers:
        raise VulkanError(f"{len(buffers)} storage buffers; the device allows at most "
                          f"{limits.maxPerStageDescriptorStorageBuffers} per stage")
    for binding, array in buffers.items():
        if not isinstance(binding, (int, np.integer)) or binding < 0:
            raise VulkanError(f"buffer binding {binding!r} is not a non-negative integer")
        if not isinstance(array, np.ndarray) or array.dtype.hasobject:
            raise VulkanError(f"buffer at binding {binding} must be a numpy array of plain data")
        if array.nbytes > limits.maxStorageBufferRange:
            raise VulkanError(f"buffer at binding {binding} is {array.nbytes} bytes; the device allows at most "
                              f"{limits.maxStorageBufferRange}")
    _check_module(spirv, entry, {int(b) for b in buffers}, push_constants)
    check_subgroup_support(spirv, ctx.info, f"entry point {entry!r}")
    check_float_controls(spirv, ctx.info, f"entry point {entry!r}")


def _memory_type(ctx: _Context, type_bits: int) -> int:
    want = ctx.vk.VK_MEMORY_PROPERTY_HOST_VISIBLE_BIT | ctx.vk.VK_MEMORY_PROPERTY_HOST_COHERENT_BIT
    for i, (flags, _) in enumerate(ctx.memory_types):
        if type_bits & (1 << i) and flags & want == want:
            return i
    raise VulkanError(f"{ctx.name} has no host-visible coherent memory for a storage buffer")


def dispatch(spirv: bytes, entry: str, buffers: dict[int, np.ndarray], push_constants: bytes,
             groups: tuple[int, int, int], spec_constants: dict[int, int] | None = None,
             full_subgroups: bool = False) -> dict[int, np.ndarray]:
    """Run entry point `entry` of the SPIR-V module `spirv` (GLCompute) with vkCmdDispatch(*groups).

    buffers: binding number (descriptor set 0, VK_DESCRIPTOR_TYPE_STORAGE_BUFFER) -> a numpy array
    whose raw bytes are the buffer's initial contents (any dtype/shape).
    push_constants: raw bytes for one push-constant range (offset 0, compute stage); b"" means none.
    spec_constants: SpecId -> a 32-bit unsigned value, given to the pipeline (VkSpecializationInfo).
    full_subgroups: create the stage with REQUIRE_FULL_SUBGROUPS (the device must have computeFullSubgroups,
    and the work-group's x size must be a multiple of its subgroupSize).
    Returns binding -> a new numpy array with the same dtype and shape holding the buffer's contents
    after the run.
    """
    ctx = _get_context()
    spirv = bytes(spirv)
    push_constants = bytes(push_constants)
    _check_request(ctx, spirv, entry, buffers, push_constants, groups)
    if full_subgroups and not ctx.features.get("computeFullSubgroups"):
        raise VulkanError(f"{ctx.name} lacks computeFullSubgroups (VK_PIPELINE_SHADER_STAGE_CREATE_REQUIRE_FULL_"
                          "SUBGROUPS_BIT)")
    cleanup: list[Callable[[], None]] = []
    try:
        return _run(ctx, spirv, entry, buffers, push_constants, tuple(int(g) for g in groups), cleanup,
                    dict(spec_constants or {}), REQUIRE_FULL_SUBGROUPS if full_subgroups else 0)
    except _FenceTimeout:
        # The device may still use every object: leaking them is the only safe choice.
        raise VulkanError(f"the dispatch did not finish within {FENCE_TIMEOUT_S:g} s on {ctx.name} "
                          "(vkWaitForFences: VK_TIMEOUT)") from None
    finally:
        for undo in reversed(cleanup):
            undo()


class _FenceTimeout(Exception):
    pass


def _run(ctx: _Context, spirv: bytes, entry: str, buffers: dict[int, np.ndarray], push_constants: bytes,
         groups: tuple[int, ...], cleanup: list[Callable[[], None]],
         spec_constants: dict[int, int], stage_flags: int = 0) -> dict[int, np.ndarray]:
    """The body of `dispatch`; appends a destroy call to `cleanup` for each object it creates."""
    vk, dev = ctx.vk, ctx.device
    arrays = {int(b): np.ascontiguousarray(a) for b, a in sorted(buffers.items())}

    # One buffer and one allocation per binding, mapped for the whole call (host-coherent).
    mapped: dict[int, Any] = {}
    vk_buffers: dict[int, Any] = {}
    for binding, array in arrays.items():
        size = max(array.nbytes, 4)
        buf_info = vk.VkBufferCreateInfo(sType=vk.VK_STRUCTURE_TYPE_BUFFER_CREATE_INFO, size=size,
                                         usage=vk.VK_BUFFER_USAGE_STORAGE_BUFFER_BIT,
                                         sharingMode=vk.VK_SHARING_MODE_EXCLUSIVE)
        buf = _call(vk, "vkCreateBuffer", vk.vkCreateBuffer, dev, buf_info, None)
        cleanup.append(partial(vk.vkDestroyBuffer, dev, buf, None))
        req = vk.vkGetBufferMemoryRequirements(dev, buf)
        alloc_info = vk.VkMemoryAllocateInfo(sType=vk.VK_STRUCTURE_TYPE_MEMORY_ALLOCATE_INFO,
                                             allocationSize=req.size,
                                             memoryTypeIndex=_memory_type(ctx, req.memoryTypeBits))
        mem = _call(vk, "vkAllocateMemory", vk.vkAllocateMemory, dev, alloc_info, None)
        cleanup.append(partial(vk.vkFreeMemory, dev, mem, None))
        _call(vk, "vkBindBufferMemory", vk.vkBindBufferMemory, dev, buf, mem, 0)
        view = _call(vk, "vkMapMemory", vk.vkMapMemory, dev, mem, 0, size, 0)
        cleanup.append(partial(vk.vkUnmapMemory, dev, mem))
        if array.nbytes:
            vk.ffi.memmove(view, array, array.nbytes)
        else:
            view[0:size] = bytes(size)
        mapped[binding], vk_buffers[binding] = view, buf

    code_info = vk.VkShaderModuleCreateInfo(sType=vk.VK_STRUCTURE_TYPE_SHADER_MODULE_CREATE_INFO,
                                            codeSize=len(spirv), pCode=spirv)
    module = _call(vk, "vkCreateShaderModule", vk.vkCreateShaderModule, dev, code_info, None)
    cleanup.append(lambda: vk.vkDestroyShaderModule(dev, module, None))

    # Descriptor set 0: one storage buffer per binding.
    layout_bindings = [vk.VkDescriptorSetLayoutBinding(binding=b, descriptorType=vk.VK_DESCRIPTOR_TYPE_STORAGE_BUFFER,
                                                       descriptorCount=1, stageFlags=vk.VK_SHADER_STAGE_COMPUTE_BIT)
                       for b in arrays]
    set_layout_info = vk.VkDescriptorSetLayoutCreateInfo(
        sType=vk.VK_STRUCTURE_TYPE_DESCRIPTOR_SET_LAYOUT_CREATE_INFO, bindingCount=len(layout_bindings),
        pBindings=layout_bindings or None)
    set_layout = _call(vk, "vkCreateDescriptorSetLayout", vk.vkCreateDescriptorSetLayout, dev, set_layout_info, None)
    cleanup.append(lambda: vk.vkDestroyDescriptorSetLayout(dev, set_layout, None))

    pc_size = -(-len(push_constants) // 4) * 4  # Vulkan wants a multiple of 4
    pc_data = push_constants + bytes(pc_size - len(push_constants))
    pc_ranges = [vk.VkPushConstantRange(stageFlags=vk.VK_SHADER_STAGE_COMPUTE_BIT, offset=0, size=pc_size)]
    set_layouts = [set_layout]
    layout_info = vk.VkPipelineLayoutCreateInfo(
        sType=vk.VK_STRUCTURE_TYPE_PIPELINE_LAYOUT_CREATE_INFO, setLayoutCount=1, pSetLayouts=set_layouts,
        pushConstantRangeCount=1 if pc_size else 0, pPushConstantRanges=pc_ranges if pc_size else None)
    layout = _call(vk, "vkCreatePipelineLayout", vk.vkCreatePipelineLayout, dev, layout_info, None)
    cleanup.append(lambda: vk.vkDestroyPipelineLayout(dev, layout, None))

    entry_name = entry.encode("utf-8")
    specialization = None
    if spec_constants:
        ids = sorted(spec_constants)
        entries = [vk.VkSpecializationMapEntry(constantID=i, offset=4 * k, size=4) for k, i in enumerate(ids)]
        spec_data = b"".join(int(spec_constants[i]).to_bytes(4, "little") for i in ids)
        specialization = vk.VkSpecializationInfo(mapEntryCount=len(entries), pMapEntries=entries,
                                                 dataSize=len(spec_data), pData=vk.ffi.from_buffer(spec_data))
    stage = vk.VkPipelineShaderStageCreateInfo(sType=vk.VK_STRUCTURE_TYPE_PIPELINE_SHADER_STAGE_CREATE_INFO,
                                               flags=stage_flags, stage=vk.VK_SHADER_STAGE_COMPUTE_BIT,
                                               module=module, pName=entry_name,
                                               pSpecializationInfo=specialization)
    pipeline_info = vk.VkComputePipelineCreateInfo(sType=vk.VK_STRUCTURE_TYPE_COMPUTE_PIPELINE_CREATE_INFO,
                                                   stage=stage, layout=layout)
    pipeline_infos = [pipeline_info]
    try:
        pipeline = vk.vkCreateComputePipelines(dev, vk.VK_NULL_HANDLE, 1, pipeline_infos, None)[0]
    except (vk.VkError, vk.VkException) as exc:
        raise VulkanError(f"vkCreateComputePipelines failed: {_result_name(exc)} ({ctx.name} rejected the "
                          "shader; check it with spirv-val --target-env vulkan1.3)") from None
    cleanup.append(lambda: vk.vkDestroyPipeline(dev, pipeline, None))

    descriptor_set = None
    if arrays:
        pool_sizes = [vk.VkDescriptorPoolSize(type=vk.VK_DESCRIPTOR_TYPE_STORAGE_BUFFER, descriptorCount=len(arrays))]
        pool_info = vk.VkDescriptorPoolCreateInfo(sType=vk.VK_STRUCTURE_TYPE_DESCRIPTOR_POOL_CREATE_INFO,
                                                  maxSets=1, poolSizeCount=1, pPoolSizes=pool_sizes)
        pool = _call(vk, "vkCreateDescriptorPool", vk.vkCreateDescriptorPool, dev, pool_info, None)
        cleanup.append(lambda: vk.vkDestroyDescriptorPool(dev, pool, None))
        set_alloc = vk.VkDescriptorSetAllocateInfo(sType=vk.VK_STRUCTURE_TYPE_DESCRIPTOR_SET_ALLOCATE_INFO,
                                                   descriptorPool=pool, descriptorSetCount=1, pSetLayouts=set_layouts)
        descriptor_set = _call(vk, "vkAllocateDescriptorSets", vk.vkAllocateDescriptorSets, dev, set_alloc)[0]
        buffer_infos = [vk.VkDescriptorBufferInfo(buffer=vk_buffers[b], offset=0, range=max(a.nbytes, 4))
                        for b, a in arrays.items()]
        writes = [vk.VkWriteDescriptorSet(sType=vk.VK_STRUCTURE_TYPE_WRITE_DESCRIPTOR_SET, dstSet=descriptor_set,
                                          dstBinding=b, descriptorCount=1,
                                          descriptorType=vk.VK_DESCRIPTOR_TYPE_STORAGE_BUFFER, pBufferInfo=[info])
                  for b, info in zip(arrays, buffer_infos)]
        vk.vkUpdateDescriptorSets(dev, len(writes), writes, 0, None)

    cmd_pool_info = vk.VkCommandPoolCreateInfo(sType=vk.VK_STRUCTURE_TYPE_COMMAND_POOL_CREATE_INFO,
                                               flags=vk.VK_COMMAND_POOL_CREATE_TRANSIENT_BIT,
                                               queueFamilyIndex=ctx.queue_family)
    cmd_pool = _call(vk, "vkCreateCommandPool", vk.vkCreateCommandPool, dev, cmd_pool_info, None)
    cleanup.append(lambda: vk.vkDestroyCommandPool(dev, cmd_pool, None))
    cmd_alloc = vk.VkCommandBufferAllocateInfo(sType=vk.VK_STRUCTURE_TYPE_COMMAND_BUFFER_ALLOCATE_INFO,
                                               commandPool=cmd_pool, level=vk.VK_COMMAND_BUFFER_LEVEL_PRIMARY,
                                               commandBufferCount=1)
    cmd = _call(vk, "vkAllocateCommandBuffers", vk.vkAllocateCommandBuffers, dev, cmd_alloc)[0]
    begin = vk.VkCommandBufferBeginInfo(sType=vk.VK_STRUCTURE_TYPE_COMMAND_BUFFER_BEGIN_INFO,
                                        flags=vk.VK_COMMAND_BUFFER_USAGE_ONE_TIME_SUBMIT_BIT)
    _call(vk, "vkBeginCommandBuffer", vk.vkBeginCommandBuffer, cmd, begin)
    vk.vkCmdBindPipeline(cmd, vk.VK_PIPELINE_BIND_POINT_COMPUTE, pipeline)
    if descriptor_set is not None:
        vk.vkCmdBindDescriptorSets(cmd, vk.VK_PIPELINE_BIND_POINT_COMPUTE, layout, 0, 1, [descriptor_set], 0, None)
    if pc_size:
        pc_buffer = vk.ffi.from_buffer(pc_data)
        vk.vkCmdPushConstants(cmd, layout, vk.VK_SHADER_STAGE_COMPUTE_BIT, 0, pc_size, pc_buffer)
    vk.vkCmdDispatch(cmd, *groups)
    # Make the shader's writes visible to the host reads below.
    barrier = vk.VkMemoryBarrier(sType=vk.VK_STRUCTURE_TYPE_MEMORY_BARRIER, srcAccessMask=vk.VK_ACCESS_SHADER_WRITE_BIT,
                                 dstAccessMask=vk.VK_ACCESS_HOST_READ_BIT)
    vk.vkCmdPipelineBarrier(cmd, vk.VK_PIPELINE_STAGE_COMPUTE_SHADER_BIT, vk.VK_PIPELINE_STAGE_HOST_BIT, 0,
                            1, [barrier], 0, None, 0, None)
    _call(vk, "vkEndCommandBuffer", vk.vkEndCommandBuffer, cmd)

    fence_info = vk.VkFenceCreateInfo(sType=vk.VK_STRUCTURE_TYPE_FENCE_CREATE_INFO)
    fence = _call(vk, "vkCreateFence", vk.vkCreateFence, dev, fence_info, None)
    cleanup.append(lambda: vk.vkDestroyFence(dev, fence, None))
    cmds = [cmd]
    submit = vk.VkSubmitInfo(sType=vk.VK_STRUCTURE_TYPE_SUBMIT_INFO, commandBufferCount=1, pCommandBuffers=cmds)
    submits = [submit]
    with ctx.queue_lock:  # vkQueueSubmit needs the queue externally synchronized
        _call(vk, "vkQueueSubmit", vk.vkQueueSubmit, ctx.queue, 1, submits, fence)
    try:
        vk.vkWaitForFences(dev, 1, [fence], vk.VK_TRUE, int(FENCE_TIMEOUT_S * 1e9))
    except vk.VkTimeout:
        cleanup.clear()
        ctx.wedged = True
        raise _FenceTimeout() from None
    except (vk.VkError, vk.VkException) as exc:
        raise VulkanError(f"vkWaitForFences failed: {_result_name(exc)}") from None

    results = {}
    for binding, array in arrays.items():
        raw = np.frombuffer(mapped[binding], dtype=np.uint8, count=array.nbytes).copy()
        results[binding] = raw.view(array.dtype).reshape(array.shape) if array.nbytes else np.empty_like(array)
    return results
