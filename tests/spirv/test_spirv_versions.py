"""Every SPIR-V version (1.0 to 1.6) with every Vulkan target environment that accepts it: kernels that need
extensions and capabilities (8-bit and 16-bit storage, Int64/Float64, Workgroup memory and barriers, two
entry points in one module) compile to modules `spirv-val --target-env ENV` accepts, whose header carries
the version asked for; a version newer than the environment is a clear error; and for the newest version
of each environment a kernel runs on lavapipe and gives the CPU reference's (llvmlite JIT) buffers."""
from __future__ import annotations

import os
import struct

import numpy as np
import pytest

from reconverge.backend.spirv import compile_spirv
from reconverge.backend.spirv.options import TARGET_ENVS, VERSIONS, SpirvOptions
from reconverge.backend.spirv.tools import disassemble, validate
from reconverge.lowering.errors import CompileError
from reconverge.tools.cli import main
from reconverge.tools.targets.harness import compare, kernel_params, load_program, run_target
from reconverge.tools.testing.kernel_spec import parse_spec

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
CORPUS = os.path.join(ROOT, "tests", "kernels")
SEED = 11

# 64-bit integers and floats in one kernel (no corpus kernel uses double).
DOUBLE_SOURCE = """
kernel void dbl(global double *out, global const double *in, global const long *k, double s)
{
    int gid = get_global_id(0);
    double x = in[gid] * s + (double)k[gid];
    out[gid] = x < 0.0 ? -x * 0.5 : sqrt(x) + floor(x);
}
"""

# name -> (path relative to ROOT or None for DOUBLE_SOURCE, what the module must declare)
KERNELS = {
    "uchar": ("tests/kernels/string_match.cl",
              ["OpCapability Int8", "OpCapability StorageBuffer8BitAccess"]),
    "short": ("tests/kernels/char_short.cl",
              ["OpCapability Int16", "OpCapability StorageBuffer16BitAccess"]),
    "long": ("tests/kernels/long_arith.cl", ["OpCapability Int64"]),
    "double": (None, ["OpCapability Float64", "OpCapability Int64"]),
    "local-barrier": ("tests/kernels/local_mem.cl", ["OpControlBarrier", "Workgroup"]),
    "narrow-local": ("tests/kernels_barrier/narrow_local.cl", ["OpControlBarrier", "OpTypeInt 8", "OpTypeInt 16"]),
    "two-kernels": ("tests/kernels/two_kernels.cl", ['"scale"', '"clip"']),
}
# the extensions 8/16-bit storage needs before SPIR-V 1.3 (8-bit: before 1.5) made it core
EXTENSIONS = {"uchar": ("SPV_KHR_8bit_storage", (1, 5)), "short": ("SPV_KHR_16bit_storage", (1, 3))}

PAIRS = [(v, env) for env, top in TARGET_ENVS.items() for v in VERSIONS if v <= top]
NEWEST = [(top, env) for env, top in TARGET_ENVS.items()]


def vid(version) -> str:
    return f"{version[0]}.{version[1]}"


@pytest.fixture(scope="module")
def double_path(tmp_path_factory):
    path = tmp_path_factory.mktemp("versions") / "dbl.cl"
    path.write_text(DOUBLE_SOURCE)
    return str(path)


@pytest.fixture(scope="module")
def programs(double_path):
    """name -> Program at -O2 (structured kernels and the LLVM text), loaded once."""
    return {name: load_program(os.path.join(ROOT, rel) if rel else double_path, "-O2")
            for name, (rel, _) in KERNELS.items()}


def version_word(binary: bytes) -> tuple[int, int]:
    magic, word = struct.unpack_from("<II", binary)
    assert magic == 0x07230203
    assert word & 0xFF0000FF == 0, hex(word)
    return word >> 16 & 0xFF, word >> 8 & 0xFF


def test_pairs_cover_every_accepted_combination():
    assert len(PAIRS) == 1 + 4 + 6 + 7
    assert {v for v, _ in PAIRS} == set(VERSIONS)


@pytest.mark.parametrize("version,env", PAIRS, ids=[f"{vid(v)}-{e}" for v, e in PAIRS])
def test_every_kernel_validates_for_the_pair(programs, version, env):
    options = SpirvOptions(version=version, target_env=env)
    for name, (_, needles) in KERNELS.items():
        binary = compile_spirv(list(programs[name].functions.values()), options)
        assert version_word(binary) == version, name
        validate(binary, env, f"{name} SPIR-V {vid(version)} {env}")
        text = disassemble(binary)
        for needle in needles:
            assert needle in text, (name, needle)
        if name in EXTENSIONS:
            extension, core_since = EXTENSIONS[name]
            if version < core_since:
                assert f'OpExtension "{extension}"' in text, (name, version)


@pytest.mark.parametrize("version,env", PAIRS, ids=[f"{vid(v)}-{e}" for v, e in PAIRS])
def test_validate_option_runs_the_validator(programs, version, env):
    """SpirvOptions(validate=True) checks the module for the same environment and gives the same bytes."""
    funcs = list(programs["two-kernels"].functions.values())
    plain = compile_spirv(funcs, SpirvOptions(version=version, target_env=env))
    checked = compile_spirv(funcs, SpirvOptions(version=version, target_env=env, validate=True))
    assert plain == checked


def test_validate_option_rejects_an_invalid_module(programs, monkeypatch):
    """validate=True really runs spirv-val: a module broken on purpose becomes a one-line CompileError."""
    import reconverge.backend.spirv.emit as emit
    good = emit.compile_module

    def broken(funcs, options):
        words = bytearray(good(funcs, options))
        words[12:16] = (1).to_bytes(4, "little")        # the id bound: every id is now out of range
        return bytes(words)
    monkeypatch.setattr(emit, "compile_module", broken)
    funcs = list(programs["two-kernels"].functions.values())
    compile_spirv(funcs, SpirvOptions())                 # not asked to validate: no complaint
    with pytest.raises(CompileError) as info:
        compile_spirv(funcs, SpirvOptions(validate=True))
    assert "spirv-val" in str(info.value) and "\n" not in str(info.value)


INCOMPATIBLE = [((1, 1), "vulkan1.0"), ((1, 4), "vulkan1.0"), ((1, 4), "vulkan1.1"), ((1, 6), "vulkan1.2")]


@pytest.mark.parametrize("version,env", INCOMPATIBLE, ids=[f"{vid(v)}-{e}" for v, e in INCOMPATIBLE])
def test_incompatible_pair_is_a_clear_error(version, env):
    with pytest.raises(CompileError) as info:
        SpirvOptions(version=version, target_env=env)
    message = str(info.value)
    assert f"SPIR-V {vid(version)}" in message and env in message, message
    assert vid(TARGET_ENVS[env]) in message, message      # says what the environment does accept


@pytest.mark.parametrize("version,env", INCOMPATIBLE, ids=[f"{vid(v)}-{e}" for v, e in INCOMPATIBLE])
def test_incompatible_pair_on_the_command_line(tmp_path, capsys, version, env):
    out = tmp_path / "out.spv"
    code = main(["compile", os.path.join(CORPUS, "two_kernels.cl"), "--emit", "spirv", "--spirv-version",
                 vid(version), "--target-env", env, "-o", str(out)])
    err = capsys.readouterr().err
    assert code == 2, err
    lines = err.strip().splitlines()
    assert len(lines) == 1 and lines[0].startswith("reconverge: error: "), err
    assert f"SPIR-V {vid(version)}" in lines[0] and env in lines[0], lines[0]
    assert not out.exists()


@pytest.mark.parametrize("env", ["vulkan1.0", "vulkan1.1"])
def test_validator_rejects_a_newer_module_for_an_older_environment(programs, env):
    """The validator really checks the environment: a SPIR-V 1.4 module is not a Vulkan 1.0/1.1 module."""
    binary = compile_spirv(list(programs["long"].functions.values()), SpirvOptions((1, 4), "vulkan1.2"))
    with pytest.raises(CompileError, match="spirv-val"):
        validate(binary, env, "long_arith")


@pytest.mark.parametrize("version,env", PAIRS, ids=[f"{vid(v)}-{e}" for v, e in PAIRS])
def test_command_line_writes_the_version(tmp_path, capsys, version, env):
    out = tmp_path / "k.spv"
    code = main(["compile", os.path.join(CORPUS, "char_short.cl"), "--emit", "spirv", "-O2", "--spirv-version",
                 vid(version), "--target-env", env, "--validate", "-o", str(out)])
    assert code == 0, capsys.readouterr().err
    assert version_word(out.read_bytes()) == version


# ----- running: the newest version of each environment, on lavapipe, against the CPU reference -----

def double_args(rng):
    n = 64
    return [np.zeros(n), rng.uniform(-50, 50, n), rng.integers(-1000, 1000, n, dtype=np.int64), np.float64(1.5)]


# environment -> the kernels run at its newest version: (program name, kernel or None, args or None = RUN line)
RUNS = {
    "vulkan1.0": [("short", None), ("uchar", None)],
    "vulkan1.1": [("long", None), ("local-barrier", None)],
    "vulkan1.2": [("two-kernels", "scale"), ("two-kernels", "clip")],
    "vulkan1.3": [("double", "dbl"), ("narrow-local", None)],
}


def launch(programs, name, kernel):
    """(kernel, args, global size, local size) from the kernel's RUN line, or made up for the others."""
    program = programs[name]
    if name == "double":
        return kernel, double_args(np.random.default_rng(SEED)), (64,), (16,)
    if name == "narrow-local":
        rng = np.random.default_rng(SEED)
        return "narrow_local", [np.zeros(96, np.uint8), np.zeros(96, np.int16), np.zeros(3, np.int16),
                                rng.integers(0, 256, 96, dtype=np.uint8),
                                rng.integers(-32768, 32768, 96, dtype=np.int16)], (96,), (32,)
    spec = parse_spec(program.path, kernel)
    return spec.kernel, spec.make_args(SEED), spec.global_size, spec.local_size


@pytest.mark.parametrize("version,env", NEWEST, ids=[f"{vid(v)}-{e}" for v, e in NEWEST])
def test_runs_on_lavapipe_like_the_cpu_reference(programs, version, env):
    options = SpirvOptions(version=version, target_env=env)
    for name, kernel in RUNS[env]:
        kernel, args, global_size, local_size = launch(programs, name, kernel)
        program = programs[name]
        names = [p.name for p in kernel_params(program.function(kernel))]
        # barrier kernels whose work-items share data: the lock-step interpreter is the reference
        reference = ("ir" if name == "narrow-local" else "llvm")
        if reference == "ir":
            from reconverge.lowering.interp import run_kernel
            want = [np.array(a, copy=True) if isinstance(a, np.ndarray) else a for a in args]
            run_kernel(program.function(kernel), want, global_size, local_size, lockstep=True)
        else:
            want = run_target("llvm", program, kernel, args, global_size, local_size)
        got = run_target("spirv", program, kernel, args, global_size, local_size, options)
        assert any(not np.array_equal(w, a) for w, a in zip(want, args) if isinstance(a, np.ndarray)), kernel
        problems = compare(want, got, names, labels=(reference, "spirv"))
        assert problems == [], (kernel, vid(version), env, problems)
