"""What the SPIR-V backend is asked to produce: version, target environment, work-group size."""
from __future__ import annotations

from reconverge.lowering.errors import CompileError
from reconverge.records import record

# The highest SPIR-V version each target environment consumes. TARGET_ENVS: the Vulkan versions (Vulkan
# spec, appendix "SPIR-V Environment"), each one swept by the tests; ALL_TARGET_ENVS adds every other
# environment spirv-val takes (SPIRV-Tools' spvParseTargetEnv) that a compute shader can be for: Vulkan
# 1.4 and Vulkan 1.1 with VK_KHR_spirv_1_4, OpenGL (ARB_gl_spirv consumes SPIR-V 1.0) and the universal
# environments (spirv-val spells universal1.x spv1.x). The OpenCL ones are refused: they take Kernel
# modules, and ours are Shader modules.
TARGET_ENVS = {"vulkan1.0": (1, 0), "vulkan1.1": (1, 3), "vulkan1.2": (1, 5), "vulkan1.3": (1, 6)}
ALL_TARGET_ENVS = {**TARGET_ENVS, "vulkan1.4": (1, 6), "vulkan1.1spv1.4": (1, 4),
                   **{f"opengl4.{minor}": (1, 0) for minor in (0, 1, 2, 3, 5)},
                   **{f"{name}1.{minor}": (1, minor) for name in ("spv", "universal") for minor in range(7)}}
OPENCL_ENVS = ("opencl1.2", "opencl1.2embedded", "opencl2.0", "opencl2.0embedded", "opencl2.1",
               "opencl2.1embedded", "opencl2.2", "opencl2.2embedded")
VERSIONS = [(1, minor) for minor in range(7)]


@record(frozen=True)
class SpirvOptions:
    version: tuple[int, int] = (1, 3)
    target_env: str = "vulkan1.3"
    # None: the kernel's reqd_work_group_size if it has one, else lowering.ndrange.COMPILE_TIME_LOCAL_SIZE
    local_size: tuple[int, int, int] | None = None
    validate: bool = False      # run spirv-val on the result and turn its verdict into a CompileError
    # Atomics with Relaxed memory semantics instead of acquire-release: only for launches on lavapipe
    # (backend.spirv.launch), which runs a memory barrier - and the one an atomic's semantics imply - in
    # divergent control flow wrongly, and whose atomics are sequentially consistent CPU atomics anyway.
    relaxed_atomics: bool = False
    # Count each subgroup's loop iterations into an extra buffer (backend.spirv.loop_count): lavapipe
    # launches only, so that a loop the driver cuts short is an error instead of a wrong answer.
    count_loop_iterations: bool = False
    # Check every memory access against its object's size and report the objects reached out of bounds in
    # an extra buffer (backend.spirv.bounds_check): `run --target spirv` launches, so that an out-of-bounds
    # access is an error instead of robust access's zeros and dropped writes.
    check_bounds: bool = False
    vk_device: str | None = None  # which Vulkan device runs a launch (vulkan_run.find_device); None: the default
    # How a launch makes the driver's subgroups OpenCL's sub-groups (backend.spirv.subgroups): None keeps the
    # driver's LocalInvocationId (`--emit spirv`); "full" or "checked" (launches of sub-group kernels only)
    # flatten the work-group and derive the local ids from the subgroup ids or check them.
    subgroup_layout: str | None = None
    # A clustered reduce from shuffles and a ballot instead of ClusteredReduce: only for launches on a device
    # without the clustered subgroup feature (lavapipe), see backend.spirv.subgroups.
    emulate_clustered: bool = False
    # OpName every block with the structured IR's name for it (the printer's b<N>; a loop's own header and
    # continue target loop.b<N> and continue.b<N> after its first block): --emit dot-spirv draws them.
    # Off everywhere else, so the modules we write and run do not change.
    block_names: bool = False
    # Declare MaximallyReconvergesKHR (SPV_KHR_maximal_reconvergence, backend.spirv.maximal_reconvergence):
    # launches on a device offering VK_KHR_shader_maximal_reconvergence, and `compile --maximal-reconvergence`.
    maximal_reconvergence: bool = False
    # Declare SignedZeroInfNanPreserve for each float width the module uses (SPV_KHR_float_controls, core in
    # SPIR-V 1.4): OpenCL C keeps the sign of a zero, and Vulkan lets a driver drop it without the mode (NVIDIA
    # 580 made `c ? -1.0f : 0.0f` -0.0 for a false c). Off where the build options give up signed zeros
    # (-cl-no-signed-zeros and the options that imply it: tools.spirv_args.NO_SIGNED_ZEROS).
    signed_zeros: bool = True

    def __post_init__(self):
        if self.version not in VERSIONS:
            raise CompileError(f"unsupported SPIR-V version {format_version(self.version)} (1.0 to 1.6)")
        if self.target_env in OPENCL_ENVS:
            raise CompileError(f"target environment '{self.target_env}': reconverge makes Vulkan-style compute "
                               f"shaders (Shader capability), which OpenCL environments do not take")
        if self.target_env not in ALL_TARGET_ENVS:
            raise CompileError(f"unknown target environment '{self.target_env}' (vulkan1.0..vulkan1.4, "
                               f"vulkan1.1spv1.4, opengl4.0..opengl4.5, spv1.0..spv1.6, universal1.0..universal1.6)")
        if self.subgroup_layout not in (None, "full", "checked"):
            raise CompileError(f"unknown sub-group layout '{self.subgroup_layout}' (full, checked)")
        if self.maximal_reconvergence and self.version < (1, 3):
            raise CompileError(f"MaximallyReconvergesKHR needs SPIR-V 1.3 or newer (VK_KHR_shader_maximal_"
                               f"reconvergence), not {format_version(self.version)}")
        if self.version > ALL_TARGET_ENVS[self.target_env]:
            raise CompileError(f"SPIR-V {format_version(self.version)} is newer than {self.target_env} "
                               f"accepts (at most {format_version(ALL_TARGET_ENVS[self.target_env])})")


def format_version(version: tuple[int, int]) -> str:
    return f"{version[0]}.{version[1]}"


def parse_version(text: str) -> tuple[int, int]:
    """'1.3' -> (1, 3); anything else is a CompileError naming the text."""
    try:
        major, minor = (int(x) for x in text.split("."))
    except ValueError:
        raise CompileError(f"bad SPIR-V version '{text}' (expected 1.0 to 1.6)") from None
    return major, minor


def parse_local_size(text: str) -> tuple[int, int, int]:
    """'8' or '8,8' or '8,8,1' -> a 3-tuple of positive sizes."""
    from reconverge.lowering.ndrange import parse_sizes
    try:
        dims = parse_sizes(text)
    except ValueError:
        raise CompileError(f"bad local size '{text}' (expected X[,Y[,Z]] of positive integers)") from None
    x, y, z = dims + (1,) * (3 - len(dims))
    return x, y, z
