"""reconverge as a library: compile OpenCL C or LLVM IR, run a kernel on any target with numpy arrays,
compare targets lane by lane. The command line (tools/cli.py) and this API use the same driver.

    import reconverge
    prog = reconverge.load("examples/nested_break.cl", opt="-O2")   # or load_source(text, "cl")
    spirv = reconverge.to_spirv(prog)                     # bytes, checked by spirv-val
    gen = reconverge.to_gen(prog, "nested_break")         # GenBinary: .code, .asm, .simd, .mode
    out = reconverge.run(prog, "nested_break", "gen", 32, {"out": out0, "grid": grid}, local_size=8)
    problems = reconverge.compare(prog, "nested_break", ["llvm", "ir", "gen"], 32, {...})
    svg = reconverge.trace(prog, "nested_break", 32, {...}, local_size=8, path="lanes.svg")

The README's "Python API" section has the worked example (tests/test_api.py runs it). Every function
raises reconverge.CompileError with the command line's one-line message on bad input.
"""
from __future__ import annotations

from reconverge.lowering.errors import CompileError

TYPE_CHECKING = False                   # not typing's: the command line's start-up does not import typing
if TYPE_CHECKING:
    from typing import Any, Mapping, Sequence

    import numpy as np

    from reconverge.backend.gen import GenBinary
    from reconverge.lowering.program import Program

__all__ = ["CompileError", "GenBinary", "Program", "TARGETS", "compare", "load", "load_source", "run", "to_gen",
           "to_spirv", "trace"]


def __getattr__(name: str) -> Any:
    """reconverge.Program on first use: importing reconverge.lowering.errors (or any other submodule, which
    imports this package first) must not load the whole compiler (tools/gpu_replay.py loads two files), nor
    anything a command does not use (`reconverge --help` imports this file: tests/test_startup.py)."""
    if name == "Program":
        from reconverge.lowering.program import Program
        return Program
    if name == "GenBinary":
        from reconverge.backend.gen import GenBinary
        return GenBinary
    raise AttributeError(f"module 'reconverge' has no attribute '{name}'")


TARGETS = ("llvm", "ir", "spirv", "opencl", "gen")
_KINDS = {"cl": ".cl", "ll": ".ll", "nir": ".nir"}


def load(path: str, opt: str = "-O2", kernel: str | None = None, build_options: Sequence[str] = ()) -> Program:
    """Read an OpenCL C (.cl), LLVM IR (.ll), bitcode (.bc) or reconverge IR (.nir) file. `opt` is clang's
    level for OpenCL C (the command line's default is -O0; a library user usually wants optimised code)."""
    from reconverge.lowering.program import load_program
    return load_program(path, opt, kernel, build_options=tuple(build_options))


def load_source(text: str, kind: str = "cl", opt: str = "-O2", build_options: Sequence[str] = ()) -> Program:
    """Like load(), from a string: kind is "cl" (OpenCL C), "ll" (LLVM IR text) or "nir"."""
    if kind not in _KINDS:
        raise CompileError(f"load_source: kind '{kind}' is not one of {', '.join(_KINDS)}")
    import os
    import tempfile
    fd, path = tempfile.mkstemp(suffix=_KINDS[kind], prefix="reconverge-")
    try:
        with os.fdopen(fd, "w") as f:
            f.write(text)
        program = load(path, opt, build_options=build_options)
        program.module() if program.has_llvm else None         # read now, while the file exists
        for name in program.kernel_names():
            program.params(name)
        return program
    finally:
        os.unlink(path)


def to_spirv(program: Program, kernels: Sequence[str] | None = None, version: str = "1.3",
             target_env: str = "vulkan1.1", validate: bool = True) -> bytes:
    """A SPIR-V module (Vulkan compute) of the kernels (default: all), validated by spirv-val."""
    from reconverge.backend.spirv import compile_spirv
    from reconverge.backend.spirv.options import SpirvOptions, parse_version
    names = list(kernels) if kernels is not None else program.kernel_names()
    funcs = list(program.functions_for("spirv", names).values())
    return compile_spirv(funcs, SpirvOptions(version=parse_version(version), target_env=target_env,
                                             validate=validate))


def to_gen(program: Program, kernel: str, simd: int = 16, cf: str = "auto") -> GenBinary:
    """One kernel as Gen9 machine code; cf is auto, structured, blockip or hybrid."""
    from reconverge.backend.gen import GenBinary, GenOptions, compile
    from reconverge.isa.gen9.disassembler import disassemble
    from reconverge.isa.gen9.encoding import encode_program
    compiled = compile(program, kernel, GenOptions(simd, cf))
    code = encode_program(compiled.program)
    return GenBinary(compiled.name, code, disassemble(code), compiled.simd, compiled.mode)


def _arguments(program: Program, kernel: str, args: Mapping[str, Any]) -> list:
    params = program.params(kernel)
    names = [p.name for p in params]
    unknown = sorted(set(args) - set(names))
    if unknown:
        raise CompileError(f"kernel @{kernel} has no parameter '{unknown[0]}' (parameters: {', '.join(names)})")
    missing = [n for n in names if n not in args]
    if missing:
        raise CompileError(f"kernel @{kernel}: no argument for parameter '{missing[0]}'")
    return [args[n] for n in names]


def _geometry(global_size, local_size) -> tuple[tuple[int, ...], tuple[int, ...]]:
    from reconverge.lowering.ndrange import default_local_size
    g = (global_size,) if isinstance(global_size, int) else tuple(global_size)
    if local_size is None:
        return g, tuple(default_local_size(g, None))
    return g, (local_size,) if isinstance(local_size, int) else tuple(local_size)


def _options(target: str, options: Mapping[str, Any]) -> Any:
    from reconverge.tools.targets import harness
    if target == "gen":
        return harness.GenRunOptions(**options)
    if target == "ir":
        return harness.InterpreterOptions(**options)
    if target == "spirv":
        from reconverge.backend.spirv.options import SpirvOptions
        return SpirvOptions(**options)
    if options:
        raise CompileError(f"the {target} target takes no options ({', '.join(options)} given)")
    return None


def run(program: Program, kernel: str, target: str, global_size: int | Sequence[int],
        args: Mapping[str, Any], local_size: int | Sequence[int] | None = None,
        options: Mapping[str, Any] | None = None) -> dict[str, np.ndarray]:
    """Run `kernel` on `target` ("llvm", "ir", "spirv", "opencl", "gen"); args maps each parameter's name to
    a numpy array (a buffer), a number (a scalar) or tools.targets.harness.LocalArg (a __local buffer).
    The arrays given are not changed: the result maps each buffer parameter to its contents afterwards.
    options: the target's settings (gen: simd, cf, max_steps; ir: max_steps; spirv: SpirvOptions fields)."""
    from reconverge.tools.targets import harness
    if target not in TARGETS:
        raise CompileError(f"unknown target '{target}' (targets: {', '.join(TARGETS)})")
    g, local = _geometry(global_size, local_size)
    values = _arguments(program, kernel, args)
    backend = _options(target, options or {})
    if target == "spirv":
        from reconverge.records import replace
        backend = replace(backend, local_size=tuple(local) + (1,) * (3 - len(local)))
    results = harness.run_target(target, program, kernel, values, g, local, backend)
    return {p.name: results[i] for i, p in enumerate(program.params(kernel)) if p.is_buffer}


def compare(program: Program, kernel: str, targets: Sequence[str], global_size: int | Sequence[int],
            args: Mapping[str, Any], local_size: int | Sequence[int] | None = None,
            float_ulps: int = 0) -> dict[str, list[str]]:
    """Run `kernel` on every target and compare each with the first, lane by lane: target -> the problems
    (one line per differing buffer, naming its first differing element); empty lists mean all agree."""
    from reconverge.tools.targets import harness
    if len(targets) < 2:
        raise CompileError("compare needs at least two targets")
    runs = {t: run(program, kernel, t, global_size, args, local_size) for t in targets}
    ref_name = targets[0]
    names = list(runs[ref_name])
    reference = [runs[ref_name][n] for n in names]
    return {t: harness.compare(reference, [runs[t][n] for n in names], names, float_ulps, labels=(ref_name, t))
            for t in targets[1:]}


def trace(program: Program, kernel: str, global_size: int | Sequence[int], args: Mapping[str, Any],
          local_size: int | Sequence[int] | None = None, simd: int = 16, cf: str = "auto",
          path: str | None = None, fmt: str = "svg") -> bytes:
    """The lane picture of the first work-group on the Gen simulator (as `reconverge trace` draws it): one
    panel per hardware thread, lanes across, executed instructions down, block labels once per entry.
    The format is path's extension (.svg, .pdf, .png) or, without a path, `fmt`; the picture is written
    to `path` when given and returned either way."""
    from reconverge.isa.gen9.simulator import Trace
    from reconverge.lowering.output import write_output
    from reconverge.tools.lane_picture import FORMATS, trace_picture
    from reconverge.tools.targets import harness
    if path is None and "." + fmt not in FORMATS:
        raise CompileError(f"trace: format '{fmt}' is not one of {', '.join(f[1:] for f in FORMATS)}")
    g, local = _geometry(global_size, local_size)
    recorder = Trace()
    harness.run_target("gen", program, kernel, _arguments(program, kernel, args), g, local,
                       harness.GenRunOptions(simd, cf, recorder))
    picture = trace_picture(recorder, path or "picture." + fmt)
    if path is not None:
        write_output(path, picture, inputs=[program.path])
    return picture
