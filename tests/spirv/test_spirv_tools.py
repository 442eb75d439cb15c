"""The SPIRV-Tools wrappers: spirv-val verdicts become one-line CompileErrors, and spirv-dis, spirv-cfg
and spirv-opt round-trip real modules built with SpirvModule."""
from __future__ import annotations

import struct

import pytest

from reconverge.backend.spirv import tools
from reconverge.backend.spirv.grammar import GRAMMAR
from reconverge.backend.spirv.module import SpirvModule
from reconverge.lowering.errors import CompileError
from tests.spirv.test_module import build_kernel


def broken_module() -> bytes:
    """A function's id used as an integer operand: well-formed words, invalid SPIR-V."""
    m = SpirvModule()
    m.capability("Shader")
    m.memory_model("Logical", "GLSL450")
    void = m.type("OpTypeVoid")
    uint = m.type("OpTypeInt", 32, 0)
    fn = m.begin_function(void, m.type("OpTypeFunction", void))
    m.entry_point("GLCompute", fn, "main", [])
    m.execution_mode(fn, "LocalSize", 1, 1, 1)
    m.begin_block()
    m.op("OpIAdd", uint, m.constant(uint, 1), fn)
    m.op("OpReturn")
    m.end_function()
    return m.assemble()


def test_validate_accepts_a_valid_kernel():
    m, _ = build_kernel((1, 6))
    assert tools.validate(m.assemble(), "vulkan1.3", "kernel") is None


def test_validate_rejects_with_a_one_line_compile_error():
    with pytest.raises(CompileError) as info:
        tools.validate(broken_module(), "vulkan1.3", "broken.cl: kernel main")
    message = str(info.value)
    assert message.startswith("broken.cl: kernel main: spirv-val: ")
    assert "\n" not in message
    assert "error: line" not in message
    assert "OpIAdd" in message                  # the offending instruction is quoted


def test_validate_checks_the_target_environment():
    m, _ = build_kernel((1, 6))
    with pytest.raises(CompileError, match="spirv-val"):
        tools.validate(m.assemble(), "vulkan1.1", "kernel")     # Vulkan 1.1 takes at most SPIR-V 1.3


def test_validate_rejects_garbage():
    with pytest.raises(CompileError, match="garbage: spirv-val: .*magic"):
        tools.validate(b"not a SPIR-V module", "vulkan1.3", "garbage")


def test_missing_tools_are_compile_errors(monkeypatch, tmp_path):
    monkeypatch.setenv("PATH", str(tmp_path))
    with pytest.raises(CompileError, match="^spirv-val not found: install the Debian package spirv-tools$"):
        tools.validate(broken_module(), "vulkan1.3", "kernel")
    with pytest.raises(CompileError, match="^spirv-dis not found"):
        tools.disassemble(broken_module())
    with pytest.raises(CompileError, match="^spirv-opt not found"):
        tools.optimize(broken_module())
    with pytest.raises(CompileError, match="^spirv-cfg not found"):
        tools.cfg_dot(broken_module())


def test_disassemble_uses_friendly_names_without_colour():
    m, _ = build_kernel()
    text = tools.disassemble(m.assemble())
    assert "%uint = OpTypeInt 32 0" in text
    assert "%ulong = OpTypeInt 64 0" in text
    assert "%main = OpFunction %void None" in text
    assert "\x1b[" not in text
    assert text.startswith("; SPIR-V\n; Version: 1.3\n")


def test_disassemble_of_garbage_is_a_compile_error():
    with pytest.raises(CompileError, match="spirv-dis"):
        tools.disassemble(b"\x01\x02\x03\x04")


def test_cfg_dot_has_every_branch_edge():
    m, ids = build_kernel()
    dot = tools.cfg_dot(m.assemble())
    assert dot.startswith("digraph {")
    assert "Fn main entry" in dot
    edges = [line for line in dot.splitlines() if "->" in line and not line.startswith("legend")]
    # entry->header, header->{body,merge}, body->{odd,join}, odd->join, join->{case,default},
    # case->switch merge, default->switch merge, switch merge->continue, continue->header (back edge)
    solid = [e for e in edges if "style" not in e]
    assert len(solid) == 12
    assert any("style=dotted" in e for e in edges)        # the continue target
    assert sum("style=dashed" in e for e in edges) == 3   # loop merge and two selection merges


def test_optimize_returns_a_valid_smaller_module():
    m, _ = build_kernel()
    binary = m.assemble()
    optimized = tools.optimize(binary)
    assert struct.unpack("<I", optimized[:4])[0] == GRAMMAR.magic_number
    tools.validate(optimized, "vulkan1.3", "optimized kernel")
    text = tools.disassemble(optimized)
    assert "FMin" not in text                # fmin(0.5, 2.0) was folded
    assert "OpVariable %_ptr_Function" not in text
    assert len(optimized) < len(binary)


def test_optimize_with_explicit_passes_and_bad_arguments():
    m, _ = build_kernel()
    stripped = tools.optimize(m.assemble(), args=("--strip-debug",))
    assert "OpName" not in tools.disassemble(stripped)
    with pytest.raises(CompileError, match="spirv-opt"):
        tools.optimize(m.assemble(), args=("--no-such-pass",))
