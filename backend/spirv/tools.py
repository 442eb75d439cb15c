"""SPIRV-Tools (Debian spirv-tools) through subprocess: the Khronos validator is the judge of our output,
and the disassembler/CFG printer/optimizer are how tests and users look at it. Binaries go through
stdin/stdout ("-"), so no temporary files are needed.
"""
from __future__ import annotations

import functools

from reconverge.lazy_regex import lazy_compile
from reconverge.lowering import child_process
from reconverge.lowering.errors import CompileError

TYPE_CHECKING = False                   # subprocess is not imported: child_process spawns the tools itself
if TYPE_CHECKING:
    import subprocess

_ERROR_PREFIX = lazy_compile(r"^error:\s*(line \d+:\s*)?")


def _run(tool: str, args: list[str], binary: bytes) -> subprocess.CompletedProcess:
    try:
        return child_process.run([tool, *args], input=binary, capture_output=True, check=False)
    except FileNotFoundError:
        raise CompileError(f"{tool} not found: install the Debian package spirv-tools") from None


def _first_error(output: str) -> str:
    """The first error of a SPIRV-Tools report on one line, with the offending instruction if shown.

    'error: line 11: Invalid use of ...' -> 'Invalid use of ...': the line number counts
    instructions, which means nothing to whoever reads the message.
    """
    lines = output.splitlines()
    for index, line in enumerate(lines):
        if line.startswith("error"):
            message = _ERROR_PREFIX.sub("", line).strip()
            following = lines[index + 1].strip() if index + 1 < len(lines) else ""
            if following and lines[index + 1][:1].isspace() and "Op" in following:
                message += f" (at: {following[:160]})"
            return message
    text = " ".join(output.split())
    return text[:300] or "no output"


def _check(tool: str, result: subprocess.CompletedProcess, what: str) -> None:
    if result.returncode != 0:
        report = result.stderr.decode("utf-8", "replace") + result.stdout.decode("utf-8", "replace")
        raise CompileError(f"{what}: {tool}: {_first_error(report)}")


def validate(binary: bytes, target_env: str, what: str) -> None:
    """Run spirv-val for the target environment ('vulkan1.3', 'spv1.6', ...); CompileError on failure."""
    _check("spirv-val", _run("spirv-val", ["--target-env", validator_env(target_env), "-"], binary), what)


@functools.lru_cache(maxsize=1)
def validator_knows_maximal_reconvergence() -> bool:
    """Whether this spirv-val accepts SPV_KHR_maximal_reconvergence (SPIRV-Tools 2023.1 does not), tried
    once on a minimal compute shader that declares MaximallyReconvergesKHR."""
    from .maximal_reconvergence import with_maximal_reconvergence
    from .module import SpirvModule
    m = SpirvModule((1, 3))
    m.capability("Shader")
    m.memory_model("Logical", "GLSL450")
    void = m.type("OpTypeVoid")
    fid = m.begin_function(void, m.type("OpTypeFunction", void))
    m.begin_block(m.new_id())
    m.op("OpReturn")
    m.end_function()
    m.entry_point("GLCompute", fid, "main")
    m.execution_mode(fid, "LocalSize", 1, 1, 1)
    probe = with_maximal_reconvergence(m.assemble())
    return _run("spirv-val", ["--target-env", "vulkan1.1", "-"], probe).returncode == 0


def validator_env(target_env: str) -> str:
    """spirv-val's name for a target environment (backend.spirv.options.ALL_TARGET_ENVS): universal1.x is its
    spv1.x; vulkan1.4, for a spirv-val older than Vulkan 1.4 (SPIRV-Tools before v2024.4), is checked under
    vulkan1.3's rules, the newest it has (Vulkan 1.4 consumes the same SPIR-V 1.6)."""
    if target_env.startswith("universal"):
        return "spv" + target_env[len("universal"):]
    if target_env == "vulkan1.4" and "vulkan1.4" not in _validator_envs():
        return "vulkan1.3"
    return target_env


@functools.lru_cache(maxsize=1)
def _validator_envs() -> str:
    """spirv-val --help's text, which lists the environments it knows."""
    result = _run("spirv-val", ["--help"], b"")
    return result.stdout.decode("utf-8", "replace")


def disassemble(binary: bytes, what: str = "SPIR-V module") -> str:
    """spirv-dis text with friendly names (%uint, %float_0_5) and no colour codes."""
    result = _run("spirv-dis", ["--no-color", "-o", "-", "-"], binary)
    _check("spirv-dis", result, what)
    return result.stdout.decode("utf-8")


def cfg_dot(binary: bytes, what: str = "SPIR-V module") -> str:
    """The control-flow graph of every function as GraphViz dot (spirv-cfg)."""
    result = _run("spirv-cfg", ["-o", "-", "-"], binary)
    _check("spirv-cfg", result, what)
    return result.stdout.decode("utf-8")


def optimize(binary: bytes, args=("-O",), what: str = "SPIR-V module") -> bytes:
    """spirv-opt with the given passes (default -O); the optimized binary."""
    result = _run("spirv-opt", [*args, "-", "-o", "-"], binary)
    _check("spirv-opt", result, what)
    return result.stdout
