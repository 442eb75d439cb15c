"""MaximallyReconvergesKHR (SPV_KHR_maximal_reconvergence): declared where the launch's device offers
VK_KHR_shader_maximal_reconvergence (a fake device here: CI's lavapipe does not), by `compile
--maximal-reconvergence`, and by a GPU replay on such a device; validated without its two annotations by a
spirv-val that predates the extension (Debian 12's)."""
from __future__ import annotations

import dataclasses
import os
import struct
import subprocess
import sys

import numpy as np
import pytest

from reconverge.backend.spirv import compile_spirv
from reconverge.backend.spirv import vulkan_run as vr
from reconverge.backend.spirv.launch import run_spirv_kernel
from reconverge.backend.spirv.maximal_reconvergence import EXTENSION, MAXIMALLY_RECONVERGES
from reconverge.backend.spirv.options import SpirvOptions
from reconverge.backend.spirv.tools import disassemble, validate, validator_knows_maximal_reconvergence
from reconverge.lowering.errors import CompileError
from reconverge.lowering.program import compile_path

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.realpath(__file__))))
EXAMPLE = os.path.join(ROOT, "examples", "nested_break.cl")


def _instructions(spirv: bytes) -> list[tuple[int, ...]]:
    words = struct.unpack(f"<{len(spirv) // 4}I", spirv)
    out, i = [], 5
    while i < len(words):
        count = words[i] >> 16
        out.append(tuple(words[i:i + count]))
        i += count
    return out


def _annotations(spirv: bytes) -> tuple[list[tuple[int, ...]], list[tuple[int, ...]], bytes]:
    """(the OpExtension "SPV_KHR_maximal_reconvergence" instructions, the MaximallyReconvergesKHR modes,
    the module without both)."""
    name = (EXTENSION.encode() + b"\0").ljust(-(-(len(EXTENSION) + 1) // 4) * 4, b"\0")
    ext = [inst for inst in _instructions(spirv) if inst[0] & 0xFFFF == 10
           and struct.pack(f"<{len(inst) - 1}I", *inst[1:]) == name]      # OpExtension
    modes = [inst for inst in _instructions(spirv) if inst[0] & 0xFFFF == 16 and inst[2:] == (MAXIMALLY_RECONVERGES,)]
    rest = [w for inst in _instructions(spirv) if inst not in ext and inst not in modes for w in inst]
    return ext, modes, spirv[:20] + struct.pack(f"<{len(rest)}I", *rest)


def _entry_ids(spirv: bytes) -> list[int]:
    return [inst[2] for inst in _instructions(spirv) if inst[0] & 0xFFFF == 15]    # OpEntryPoint


def test_a_device_offering_it_gets_the_mode(monkeypatch):
    """A launch on a (fake) device offering the extension declares it and the mode for its entry point; without
    them the module is lavapipe's, byte for byte, and spirv-val accepts it."""
    func = compile_path(EXAMPLE, "-O0")["nested_break"]
    lavapipe = vr.select_device(None)
    assert not lavapipe.maximal_reconvergence
    captured: dict[bool, bytes] = {}

    class Stop(Exception):
        pass

    def dispatch(spirv, *args, **kwargs):
        captured[offered] = spirv
        raise Stop

    monkeypatch.setattr(vr, "dispatch", dispatch)
    args = [np.zeros(64, np.int32) for _ in func.args]
    for offered in (False, True):
        fake = dataclasses.replace(lavapipe, maximal_reconvergence=offered)
        monkeypatch.setattr(vr, "select_device", lambda spec, fake=fake: fake)
        with pytest.raises(Stop):
            run_spirv_kernel(func, [a.copy() if isinstance(a, np.ndarray) else a for a in args], 64, 64)
    ext, modes, without = _annotations(captured[True])
    assert len(ext) == 1 and [m[1] for m in modes] == _entry_ids(captured[True])
    assert without == captured[False]
    assert _annotations(captured[False])[:2] == ([], [])
    validate(without, "vulkan1.3", "the module without the annotations")
    # SPIR-V 1.0 (--target-env vulkan1.0) has no such mode: that launch runs without it
    offered = True
    with pytest.raises(Stop):
        run_spirv_kernel(func, [a.copy() for a in args], 64, 64, SpirvOptions(version=(1, 0), target_env="vulkan1.0"))
    assert _annotations(captured[True])[:2] == ([], [])


def test_compile_option_and_validation():
    """SpirvOptions.maximal_reconvergence with validate=True passes here (the module is checked without the two
    annotations by an old spirv-val, as is by a new one); an old spirv-val does reject the mode itself."""
    funcs = list(compile_path(EXAMPLE, "-O0").values())
    plain = compile_spirv(funcs, SpirvOptions(validate=True))
    declared = compile_spirv(list(compile_path(EXAMPLE, "-O0").values()),
                             SpirvOptions(validate=True, maximal_reconvergence=True))
    ext, modes, without = _annotations(declared)
    assert len(ext) == 1 and len(modes) == len(funcs) and without == plain
    if validator_knows_maximal_reconvergence():
        assert "MaximallyReconvergesKHR" in disassemble(declared)
    else:
        with pytest.raises(CompileError):
            validate(declared, "vulkan1.3", "declared")
    with pytest.raises(CompileError, match="needs SPIR-V 1.3"):
        SpirvOptions(version=(1, 0), target_env="vulkan1.0", maximal_reconvergence=True)


def _cli(*args: str) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, "-m", "reconverge.tools.cli", *args], cwd=ROOT, capture_output=True,
                          text=True, check=False)


def test_the_compile_flag(tmp_path):
    out = tmp_path / "k.spv"
    done = _cli("compile", EXAMPLE, "--emit", "spirv", "--validate", "--maximal-reconvergence", "-o", str(out))
    assert done.returncode == 0, done.stderr
    assert len(_annotations(out.read_bytes())[1]) >= 1
    gen = tmp_path / "k.gen"
    refused = _cli("compile", EXAMPLE, "--emit", "gen", "--maximal-reconvergence", "-o", str(gen))
    assert refused.returncode == 2 and not gen.exists()
    assert refused.stderr.strip().splitlines() == \
        ["reconverge: error: --maximal-reconvergence only applies to --emit spirv, spirv-asm, dot-spirv"]


def test_gpu_replay_declares_it_on_such_a_device():
    """A recorded (driver-independent) module replayed on a device offering the extension carries the mode, as
    a launch there compiles it; a record without the opcodes it needs runs as recorded."""
    from reconverge.tools import gpu_replay
    numbers = gpu_replay._grammar_numbers()
    rvr = gpu_replay.load_vulkan_run(numbers)
    info = dataclasses.replace(vr.select_device(None), maximal_reconvergence=True)
    declare = gpu_replay.maximal_reconvergence(numbers, info)
    assert declare is not None
    plain = compile_spirv(list(compile_path(EXAMPLE, "-O0").values()), SpirvOptions())
    assert declare(plain) == compile_spirv(list(compile_path(EXAMPLE, "-O0").values()),
                                           SpirvOptions(maximal_reconvergence=True))
    assert gpu_replay.maximal_reconvergence(numbers, dataclasses.replace(info, maximal_reconvergence=False)) is None
    old = {**numbers, "opcodes": {k: v for k, v in numbers["opcodes"].items() if k != "OpExtension"}}
    assert gpu_replay.maximal_reconvergence(old, info) is None
    assert rvr.MAXIMAL_RECONVERGENCE == "VK_KHR_shader_maximal_reconvergence"


def test_a_device_without_it_refuses_the_mode():
    """dispatch refuses a module declaring the mode on a device that does not offer the extension (lavapipe)
    instead of running it without the promise."""
    declared = compile_spirv(list(compile_path(EXAMPLE, "-O0").values()), SpirvOptions(maximal_reconvergence=True))
    vr.select_device(None)
    with pytest.raises(vr.VulkanError, match="does not offer VK_KHR_shader_maximal_reconvergence"):
        vr.dispatch(declared, "nested_break", {0: np.zeros(64, np.int32), 1: np.zeros(64, np.int32)}, bytes(64),
                    (1, 1, 1))
