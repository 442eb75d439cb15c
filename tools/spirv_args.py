"""The SPIR-V options of the command line (compile's --emit spirv*, run --target spirv, check): the
version, the target environment (every one spirv-val takes that a compute shader can be for:
backend.spirv.options.ALL_TARGET_ENVS) and compile's work-group size, each complaint a usage error."""
from __future__ import annotations

from reconverge.lowering.errors import CompileError
from reconverge.tools.usage import UsageError

SPIRV_EMITS = ("spirv", "spirv-asm", "dot-spirv")
DEFAULT_SPIRV_VERSION, DEFAULT_TARGET_ENV = "1.3", "vulkan1.3"
TARGET_ENV_HELP = (f"the environment the module is for, as spirv-val names them: vulkan1.0..vulkan1.4, "
                   f"vulkan1.1spv1.4, opengl4.0..opengl4.5, spv1.0..spv1.6 or universal1.0..universal1.6 "
                   f"(default {DEFAULT_TARGET_ENV})")


# OpenCL build options that let a kernel lose the sign of a zero (OpenCL 1.2 spec, 5.6.4.2: -cl-fast-relaxed-math
# implies -cl-unsafe-math-optimizations, which implies -cl-no-signed-zeros): no SignedZeroInfNanPreserve then
NO_SIGNED_ZEROS = ("-cl-no-signed-zeros", "-cl-unsafe-math-optimizations", "-cl-fast-relaxed-math")


def spirv_options(version: str | None, target_env: str | None, local_size: tuple[int, int, int] | None = None,
                  validate: bool = False, maximal_reconvergence: bool = False, signed_zeros: bool = True):
    """SpirvOptions from command-line text (None: the default; the default version is the newest the
    environment takes, up to DEFAULT_SPIRV_VERSION); its complaints are usage errors."""
    from reconverge.backend.spirv.options import ALL_TARGET_ENVS, SpirvOptions, parse_version
    target_env = target_env or DEFAULT_TARGET_ENV
    try:
        chosen = parse_version(version) if version is not None else \
            min(parse_version(DEFAULT_SPIRV_VERSION), ALL_TARGET_ENVS.get(target_env, (1, 0)))
        return SpirvOptions(version=chosen, target_env=target_env, local_size=local_size, validate=validate,
                            maximal_reconvergence=maximal_reconvergence, signed_zeros=signed_zeros)
    except CompileError as exc:
        raise UsageError(str(exc)) from None


def compile_spirv_given(args) -> list[str]:
    return [flag for flag, value in (("--spirv-version", args.spirv_version), ("--target-env", args.target_env),
                                     ("--local", args.local_size), ("--validate", args.validate or None),
                                     ("--maximal-reconvergence", args.maximal_reconvergence or None))
            if value is not None]


def compile_spirv_options(args):
    """The SPIR-V options of `compile`, or None when not emitting SPIR-V (then none may be given)."""
    given = compile_spirv_given(args)
    if args.emit not in SPIRV_EMITS:
        if given:
            raise UsageError(f"{given[0]} only applies to --emit {', '.join(SPIRV_EMITS)}")
        return None
    local_size = None
    if args.local_size is not None:
        from reconverge.backend.spirv.options import parse_local_size
        try:
            local_size = parse_local_size(args.local_size)
        except CompileError as exc:
            raise UsageError(f"--local: {exc}") from None
    signed_zeros = not set(getattr(args, "cl_options", ())) & set(NO_SIGNED_ZEROS)
    return spirv_options(args.spirv_version, args.target_env, local_size, args.validate, args.maximal_reconvergence,
                         signed_zeros)
