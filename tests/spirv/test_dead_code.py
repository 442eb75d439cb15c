"""dead_code.remove_dead_code: results nobody uses leave the finished module (with their names and
decorations), dead phi cycles included; what has an effect, and what it uses, stays; spirv-val accepts
the result."""
from __future__ import annotations

from reconverge.backend.spirv.dead_code import remove_dead_code
from reconverge.backend.spirv.module import SpirvModule
from reconverge.backend.spirv.tools import disassemble, validate


def _kernel() -> SpirvModule:
    """out[0] = 7, with an unused add (named), an unused 64-bit type and constant,
    and a loop carrying a phi cycle nothing reads."""
    m = SpirvModule()
    m.capability("Shader")
    m.capability("Int64")
    m.memory_model("Logical", "GLSL450")
    void = m.type("OpTypeVoid")
    fn_type = m.type("OpTypeFunction", void)
    boolean = m.type("OpTypeBool")
    uint = m.type("OpTypeInt", 32, 0)
    ulong = m.type("OpTypeInt", 64, 0)
    runtime = m.type("OpTypeRuntimeArray", uint)
    m.decorate(runtime, "ArrayStride", 4)
    block = m.type("OpTypeStruct", runtime, unique=True)
    m.decorate(block, "Block")
    m.member_decorate(block, 0, "Offset", 0)
    var = m.global_variable(m.type("OpTypePointer", "StorageBuffer", block), "StorageBuffer")
    m.decorate(var, "DescriptorSet", 0)
    m.decorate(var, "Binding", 0)
    zero, one, seven = m.constant(uint, 0), m.constant(uint, 1), m.constant(uint, 7)
    big = m.constant(ulong, 1 << 40)
    fn = m.begin_function(void, fn_type)
    entry, header, body, cont, merge = m.new_id(), m.new_id(), m.new_id(), m.new_id(), m.new_id()
    m.begin_block(entry)
    unused = m.op_id("OpIAdd", uint, seven, one)
    m.name(unused, "unused")
    m.op("OpBranch", header)
    m.begin_block(header)
    carried, next_carried = m.new_id(), m.new_id()
    m.op("OpPhi", uint, zero, entry, next_carried, cont, result=carried)
    m.op("OpLoopMerge", merge, cont, "None")
    m.op("OpBranch", body)
    m.begin_block(body)
    m.op("OpIAdd", uint, carried, one, result=next_carried)
    m.op("OpBranch", cont)
    m.begin_block(cont)
    m.op("OpBranchConditional", m.constant(boolean, False), header, merge)
    m.begin_block(merge)
    pointer = m.op_id("OpAccessChain", m.type("OpTypePointer", "StorageBuffer", uint), var, zero, zero)
    m.op("OpStore", pointer, seven)
    m.op("OpReturn")
    m.end_function()
    m.entry_point("GLCompute", fn, "k", [])
    m.execution_mode(fn, "LocalSize", 1, 1, 1)
    assert big and pointer
    return m


def test_unused_results_go_and_used_ones_stay():
    m = _kernel()
    before = m.words()
    after = remove_dead_code(before)
    text = disassemble(after.tobytes())
    assert len(after) < len(before)
    assert "OpIAdd" not in text and "OpPhi" not in text     # the unused add, the phi cycle nothing reads
    assert "OpTypeInt 64" not in text                        # the unused 64-bit constant and its type
    assert "Int64" not in text                               # and the capability no type needs any more
    assert "OpName" not in text                              # the name of the removed add went with it
    assert "OpStore" in text and "OpAccessChain" in text
    validate(after.tobytes(), "vulkan1.1", "the module without its dead code")


def test_a_literal_equal_to_an_id_keeps_nothing():
    """Widths (OpTypeInt 32), storage classes (StorageBuffer is 12) and constant values are literals: one
    equal to the id of an unused result does not keep it."""
    m = SpirvModule()
    m.capability("Shader")
    m.memory_model("Logical", "GLSL450")
    void = m.type("OpTypeVoid")
    fn_type = m.type("OpTypeFunction", void)
    uint = m.type("OpTypeInt", 32, 0)
    runtime = m.type("OpTypeRuntimeArray", uint)
    m.decorate(runtime, "ArrayStride", 4)
    block = m.type("OpTypeStruct", runtime, unique=True)
    m.decorate(block, "Block")
    m.member_decorate(block, 0, "Offset", 0)
    var = m.global_variable(m.type("OpTypePointer", "StorageBuffer", block), "StorageBuffer")
    m.decorate(var, "DescriptorSet", 0)
    m.decorate(var, "Binding", 0)
    zero = m.constant(uint, 0)
    fn = m.begin_function(void, fn_type)
    m.begin_block(m.new_id())
    unused = [m.op_id("OpIAdd", uint, zero, zero) for _ in range(40)]     # ids up to past 32 (OpTypeInt 32)
    stored = m.constant(uint, unused[-1])        # a constant whose value is the id of an unused add
    pointer = m.op_id("OpAccessChain", m.type("OpTypePointer", "StorageBuffer", uint), var, zero, zero)
    m.op("OpStore", pointer, stored)
    m.op("OpReturn")
    m.end_function()
    m.entry_point("GLCompute", fn, "k", [])
    m.execution_mode(fn, "LocalSize", 1, 1, 1)
    assert 32 in unused
    text = disassemble(remove_dead_code(m.words()).tobytes())
    assert "OpIAdd" not in text
