"""SpirvModule builds modules the Khronos validator accepts, encodes operands as the grammar says, and
rejects emitter mistakes (wrong operand count or kind) with a ValueError naming the opcode."""
from __future__ import annotations

import re
import struct

import pytest

from reconverge.backend.spirv.grammar import GRAMMAR
from reconverge.backend.spirv.module import SpirvModule
from reconverge.backend.spirv.tools import disassemble, validate

ULONG_VALUE = 0x0123456789ABCDEF      # 81985529216486895


def build_kernel(version=(1, 3)) -> tuple[SpirvModule, dict]:
    """A GLCompute kernel: buf.data[gid.x] = sum of the odd i < gid.x (switch-adjusted) + int(fmin(0.5, 2.0)).

    Has a StorageBuffer Block struct with a runtime array, the GlobalInvocationId input, a loop
    (OpLoopMerge) whose header phis refer forward to the continue block, a selection
    (OpSelectionMerge) with a phi in its merge block, an OpSwitch, an OpExtInst, and a function
    variable declared after several blocks were already emitted.
    """
    m = SpirvModule(version=version)
    ids: dict[str, int] = {}
    m.capability("Shader")
    m.capability("Int64")
    m.capability("Float64")
    m.capability("Shader")
    m.memory_model("Logical", "GLSL450")

    void = m.type("OpTypeVoid")
    fn_type = m.type("OpTypeFunction", void)
    boolean = m.type("OpTypeBool")
    uint = m.type("OpTypeInt", 32, 0)
    ulong = m.type("OpTypeInt", 64, 0)
    f32 = m.type("OpTypeFloat", 32)
    f64 = m.type("OpTypeFloat", 64)
    v3uint = m.type("OpTypeVector", uint, 3)
    runtime = m.type("OpTypeRuntimeArray", uint)
    m.decorate(runtime, "ArrayStride", 4)
    block = m.type("OpTypeStruct", runtime, unique=True)
    m.decorate(block, "Block")
    m.member_decorate(block, 0, "Offset", 0)
    m.name(block, "Buffer")
    m.member_name(block, 0, "data")
    p_block = m.type("OpTypePointer", "StorageBuffer", block)
    p_uint_sb = m.type("OpTypePointer", "StorageBuffer", uint)
    p_input = m.type("OpTypePointer", "Input", v3uint)
    p_uint_fn = m.type("OpTypePointer", "Function", uint)

    buf = m.global_variable(p_block, "StorageBuffer")
    m.decorate(buf, "DescriptorSet", 0)
    m.decorate(buf, "Binding", 0)
    m.name(buf, "buf")
    gid = m.global_variable(p_input, "Input")
    m.decorate(gid, "BuiltIn", "GlobalInvocationId")

    zero, one, three = m.constant(uint, 0), m.constant(uint, 1), m.constant(uint, 3)
    big = m.constant(ulong, ULONG_VALUE)
    half = m.constant(f32, 0.5)
    two = m.constant(f32, 2.0)
    tenth = m.constant(f64, 0.1)
    yes = m.constant(boolean, True)

    main = m.begin_function(void, fn_type)
    m.name(main, "main")
    interface = [gid, buf] if version >= (1, 4) else [gid]
    m.entry_point("GLCompute", main, "main", interface)
    m.execution_mode(main, "LocalSize", 64, 1, 1)

    entry = m.begin_block()
    x = m.op("OpCompositeExtract", uint, m.op("OpLoad", v3uint, gid), 0)
    header, body, odd, join, cont, merge = (m.new_id() for _ in range(6))
    m.op("OpBranch", header)

    m.begin_block(header)
    i_next, acc_next = m.new_id(), m.new_id()
    i = m.op("OpPhi", uint, zero, entry, i_next, cont)
    acc = m.op("OpPhi", uint, zero, entry, acc_next, cont)
    more = m.op("OpULessThan", boolean, i, x)
    m.op("OpLoopMerge", merge, cont, "None")
    m.op("OpBranchConditional", more, body, merge)

    m.begin_block(body)
    is_odd = m.op("OpINotEqual", boolean, m.op("OpBitwiseAnd", uint, i, one), zero)
    m.op("OpSelectionMerge", join, "None")
    m.op("OpBranchConditional", is_odd, odd, join)

    m.begin_block(odd)
    added = m.op("OpIAdd", uint, acc, i)
    m.op("OpBranch", join)

    m.begin_block(join)
    picked = m.op("OpPhi", uint, added, odd, acc, body)
    case3, default, switch_merge = m.new_id(), m.new_id(), m.new_id()
    m.op("OpSelectionMerge", switch_merge, "None")
    m.op("OpSwitch", i, default, 3, case3)
    m.begin_block(case3)
    plus3 = m.op("OpIAdd", uint, picked, three)
    m.op("OpBranch", switch_merge)
    m.begin_block(default)
    m.op("OpBranch", switch_merge)
    m.begin_block(switch_merge)
    m.op("OpPhi", uint, plus3, case3, picked, default, result=acc_next)
    m.op("OpBranch", cont)

    m.begin_block(cont)
    m.op("OpIAdd", uint, i, one, result=i_next)
    m.op("OpBranch", header)

    m.begin_block(merge)
    local = m.function_variable(p_uint_fn)           # declared late: must land in the entry block
    m.name(local, "local")
    smallest = m.ext_inst(f32, "FMin", half, two)
    m.op("OpStore", local, m.op("OpConvertFToU", uint, smallest))
    total = m.op("OpIAdd", uint, acc, m.op("OpLoad", uint, local))
    wide = m.op("OpIAdd", ulong, m.op("OpUConvert", ulong, total), big)
    narrow = m.op("OpUConvert", uint, wide)
    d = m.op("OpFConvert", f32, tenth)
    narrow = m.op("OpSelect", uint, yes, narrow, m.op("OpConvertFToU", uint, d))
    slot = m.op("OpAccessChain", p_uint_sb, buf, zero, x)
    m.op("OpStore", slot, narrow, "Aligned", 4)
    m.op("OpReturn")
    m.end_function()
    ids.update(uint=uint, ulong=ulong, f32=f32, boolean=boolean, block=block, main=main, local=local,
               half=half, big=big, buf=buf)
    return m, ids


@pytest.mark.parametrize("version", [(1, 3), (1, 6)])
def test_kernel_passes_spirv_val(version):
    m, _ = build_kernel(version)
    validate(m.assemble(), "vulkan1.3", "test kernel")


def test_disassembly_shows_the_instructions_and_constant_values():
    m, _ = build_kernel()
    text = disassemble(m.assemble())
    for expected in [
        "OpCapability Shader", "OpCapability Int64",
        'OpExtInstImport "GLSL.std.450"',
        "OpMemoryModel Logical GLSL450",
        'OpEntryPoint GLCompute %main "main" %gl_GlobalInvocationID',
        "OpExecutionMode %main LocalSize 64 1 1",
        "OpName %buf \"buf\"", "OpMemberName %Buffer 0 \"data\"",
        "OpDecorate %_runtimearr_uint ArrayStride 4",
        "OpDecorate %Buffer Block", "OpMemberDecorate %Buffer 0 Offset 0",
        "OpDecorate %gl_GlobalInvocationID BuiltIn GlobalInvocationId",
        "OpDecorate %buf DescriptorSet 0",
        f"OpConstant %ulong {ULONG_VALUE}", "OpConstant %float 0.5", "OpConstant %double 0.1",
        "OpConstantTrue %bool",
        "OpLoopMerge", "OpSelectionMerge", "OpSwitch", "FMin %float_0_5 %float_2",
        "OpStore", "Aligned 4",
    ]:
        assert expected in text, expected
    assert text.count("OpCapability Shader") == 1
    assert re.search(r"OpSwitch %\w+ %\w+ 3 %\w+", text)
    # the loop header's phis name values defined later in the continue and switch-merge blocks
    assert re.search(r"OpPhi %uint %uint_0 %\w+ %\w+ %\w+", text)


def test_function_variable_is_placed_right_after_the_first_label():
    m, _ = build_kernel()
    lines = [line.split("=", 1)[-1].strip() for line in disassemble(m.assemble()).splitlines()]
    function = lines.index(next(line for line in lines if line.startswith("OpFunction ")))
    assert lines[function + 1] == "OpLabel"
    assert lines[function + 2] == "OpVariable %_ptr_Function_uint Function"
    assert sum(line.startswith("OpVariable %_ptr_Function") for line in lines) == 1


@pytest.mark.parametrize("version, word", [((1, 3), 0x00010300), ((1, 6), 0x00010600), ((1, 0), 0x00010000)])
def test_header_words(version, word):
    m = SpirvModule(version=version)
    m.type("OpTypeVoid")
    m.new_id()                          # allocated but unused ids still count towards the bound
    binary = m.assemble()
    assert len(binary) % 4 == 0
    magic, version_word, generator, bound, schema = struct.unpack("<5I", binary[:20])
    assert magic == 0x07230203 == GRAMMAR.magic_number
    assert version_word == word
    assert generator == 0 and schema == 0
    assert bound == m.bound == 3
    assert len(binary) == 4 * (5 + 2)


def test_bound_is_max_id_plus_one_and_word_counts_tile_the_binary():
    m, _ = build_kernel()
    binary = m.assemble()
    words = struct.unpack(f"<{len(binary) // 4}I", binary)
    position, opcodes = 5, []
    while position < len(words):
        count = words[position] >> 16
        assert count >= 1
        opcodes.append(words[position] & 0xFFFF)
        position += count
    assert position == len(words)
    assert opcodes[0] == GRAMMAR.opcode("OpCapability")
    assert opcodes[-1] == GRAMMAR.opcode("OpFunctionEnd")
    import subprocess
    raw = subprocess.run(["spirv-dis", "--raw-id", "--no-color", "-"], input=binary,
                         capture_output=True, check=True).stdout.decode()
    used = {int(n) for n in re.findall(r"%(\d+)", raw)}
    assert words[3] == max(used) + 1


def test_logical_layout_order_regardless_of_call_order():
    m = SpirvModule()
    void = m.type("OpTypeVoid")
    fn = m.begin_function(void, m.type("OpTypeFunction", void))
    m.begin_block()
    m.op("OpReturn")
    m.end_function()
    m.decorate(void, "RelaxedPrecision")
    m.name(fn, "f")
    m.entry_point("GLCompute", fn, "f", [])
    m.execution_mode(fn, "LocalSize", 1, 1, 1)
    m.memory_model("Logical", "GLSL450")
    m.ext_inst_import("GLSL.std.450")
    m.extension("SPV_KHR_storage_buffer_storage_class")
    m.capability("Shader")
    lines = [line.split("=", 1)[-1].split()[0] for line in disassemble(m.assemble()).splitlines()
             if line.strip() and not line.startswith(";")]
    assert lines == ["OpCapability", "OpExtension", "OpExtInstImport", "OpMemoryModel", "OpEntryPoint",
                     "OpExecutionMode", "OpName", "OpDecorate", "OpTypeVoid", "OpTypeFunction",
                     "OpFunction", "OpLabel", "OpReturn", "OpFunctionEnd"]


def test_deduplication():
    m = SpirvModule()
    uint = m.type("OpTypeInt", 32, 0)
    assert m.type("OpTypeInt", 32, 0) == uint
    assert m.type("OpTypeInt", 32, 1) != uint
    ptr = m.type("OpTypePointer", "StorageBuffer", uint)
    storage_buffer = GRAMMAR.enumerant("StorageClass", "StorageBuffer")
    assert m.type("OpTypePointer", storage_buffer, uint) == ptr
    struct_a = m.type("OpTypeStruct", uint)
    assert m.type("OpTypeStruct", uint) == struct_a
    assert m.type("OpTypeStruct", uint, unique=True) != struct_a
    one = m.constant(uint, 1)
    assert m.constant(uint, 1) == one and m.constant(uint, 2) != one
    assert m.constant(uint, -1) == m.constant(uint, 0xFFFFFFFF)
    f32 = m.type("OpTypeFloat", 32)
    assert m.constant(f32, 1.0) == m.constant(f32, 1)
    assert m.constant(f32, 0.0) != m.constant(f32, -0.0)
    vec = m.type("OpTypeVector", uint, 2)
    pair = m.constant_composite(vec, [one, one])
    assert m.constant_composite(vec, [one, one]) == pair
    assert m.null(vec) == m.null(vec) != m.null(uint)
    assert m.undef(vec) == m.undef(vec)
    glsl = m.ext_inst_import("GLSL.std.450")
    assert m.ext_inst_import("GLSL.std.450") == glsl
    m.capability("Shader")
    m.capability("Shader")
    m.capability(GRAMMAR.enumerant("Capability", "Shader"))
    m.extension("SPV_KHR_8bit_storage")
    m.extension("SPV_KHR_8bit_storage")
    text = disassemble(m.assemble())
    assert text.count("OpCapability Shader") == 1
    assert text.count("OpExtension") == 1
    assert text.count("OpTypeInt 32 0") == 1
    assert text.count("OpConstantNull %v2uint") == 1


def test_type_width():
    m = SpirvModule()
    assert m.type_width(m.type("OpTypeInt", 64, 0)) == 64
    assert m.type_width(m.type("OpTypeInt", 8, 1)) == 8
    assert m.type_width(m.type("OpTypeFloat", 16)) == 16
    assert m.type_width(m.type("OpTypeBool")) is None
    assert m.type_width(12345) is None


def _constant_words(m: SpirvModule, constant_id: int) -> list[int]:
    words = list(m.words())
    position = 5
    while position < len(words):
        count = words[position] >> 16
        if words[position] & 0xFFFF == GRAMMAR.opcode("OpConstant") and words[position + 2] == constant_id:
            return words[position + 3:position + count]
        position += count
    raise AssertionError(f"no OpConstant %{constant_id}")


def test_constant_encodings():
    m = SpirvModule()
    u16, s16, u32, s32 = (m.type("OpTypeInt", w, s) for w, s in [(16, 0), (16, 1), (32, 0), (32, 1)])
    u64, s64 = m.type("OpTypeInt", 64, 0), m.type("OpTypeInt", 64, 1)
    f16, f32, f64 = (m.type("OpTypeFloat", w) for w in (16, 32, 64))
    assert _constant_words(m, m.constant(u16, -1)) == [0x0000FFFF]       # zero-extended (spec 2.2.1)
    assert _constant_words(m, m.constant(s16, -1)) == [0xFFFFFFFF]       # sign-extended
    assert _constant_words(m, m.constant(s16, 0x7FFF)) == [0x7FFF]
    assert _constant_words(m, m.constant(u32, -2)) == [0xFFFFFFFE]
    assert _constant_words(m, m.constant(s32, 1 << 32 | 5)) == [5]       # masked
    assert _constant_words(m, m.constant(u64, ULONG_VALUE)) == [0x89ABCDEF, 0x01234567]   # low word first
    assert _constant_words(m, m.constant(s64, -2)) == [0xFFFFFFFE, 0xFFFFFFFF]
    assert _constant_words(m, m.constant(f16, 1.0)) == [0x3C00]
    assert _constant_words(m, m.constant(f16, -2.0)) == [0xC000]
    assert _constant_words(m, m.constant(f16, 1e6)) == [0x7C00]
    assert _constant_words(m, m.constant(f32, 0.5)) == [0x3F000000]
    assert _constant_words(m, m.constant(f32, 1e39)) == [0x7F800000]    # beyond float32: infinity
    assert _constant_words(m, m.constant(f64, 1.0)) == [0, 0x3FF00000]
    text = disassemble(m.assemble())
    assert "OpConstant %half 0x1p+0" in text            # spirv-dis prints half floats in hex
    assert "OpConstant %float 0x1p+128" in text          # float infinity
    assert "OpConstant %short -1" in text
    assert "OpConstant %long -2" in text
    assert "OpConstant %double 1" in text


def test_op_constant_through_op_uses_the_type_width():
    m = SpirvModule()
    u64 = m.type("OpTypeInt", 64, 0)
    c = m.op("OpSpecConstant", u64, ULONG_VALUE)
    m.decorate(c, "SpecId", 7)
    text = disassemble(m.assemble())
    assert f"OpSpecConstant %ulong {ULONG_VALUE}" in text
    assert "SpecId 7" in text


def test_switch_literals_are_as_wide_as_the_selector():
    m = SpirvModule()
    m.capability("Shader")
    m.capability("Int64")
    m.memory_model("Logical", "GLSL450")
    void = m.type("OpTypeVoid")
    u64 = m.type("OpTypeInt", 64, 0)
    fn = m.begin_function(void, m.type("OpTypeFunction", void))
    m.entry_point("GLCompute", fn, "main", [])
    m.execution_mode(fn, "LocalSize", 1, 1, 1)
    m.begin_block()
    x = m.op("OpIAdd", u64, m.constant(u64, 1), m.constant(u64, 2))
    case, default = m.new_id(), m.new_id()
    m.op("OpSelectionMerge", default, "None")
    m.op("OpSwitch", x, default, ULONG_VALUE, case)
    m.begin_block(case)
    m.op("OpBranch", default)
    m.begin_block(default)
    m.op("OpReturn")
    m.end_function()
    binary = m.assemble()
    validate(binary, "vulkan1.3", "switch test")
    assert re.search(rf"OpSwitch %\w+ %\w+ {ULONG_VALUE} %\w+", disassemble(binary))
    words = list(m.words())
    switch = words.index((6 << 16) | GRAMMAR.opcode("OpSwitch"))   # selector, default, 2-word literal, label
    assert words[switch + 3:switch + 5] == [0x89ABCDEF, 0x01234567]


def test_bit_enum_operands_and_their_parameters():
    m = SpirvModule()
    uint = m.type("OpTypeInt", 32, 0)
    ptr = m.type("OpTypePointer", "Function", uint)
    void = m.type("OpTypeVoid")
    m.begin_function(void, m.type("OpTypeFunction", void))
    m.begin_block()
    var = m.function_variable(ptr)
    loaded = m.op("OpLoad", uint, var, "Volatile|Aligned", 16)
    m.op("OpStore", var, loaded, GRAMMAR.enumerant("MemoryAccess", "Aligned"), 8)
    m.op("OpReturn")
    m.end_function()
    text = disassemble(m.assemble())
    assert "OpLoad %uint %" in text and "Volatile|Aligned 16" in text
    assert "Aligned 8" in text
    with pytest.raises(ValueError, match="OpLoad"):
        SpirvModule().op("OpLoad", 1, 1, "Aligned")


def test_enumerant_parameters_are_checked():
    m = SpirvModule()
    uint = m.type("OpTypeInt", 32, 0)
    arr = m.type("OpTypeRuntimeArray", uint)
    with pytest.raises(ValueError, match="OpDecorate"):
        m.decorate(arr, "ArrayStride")              # missing the stride
    with pytest.raises(ValueError, match="OpDecorate"):
        m.decorate(arr, "ArrayStride", 4, 4)        # one too many
    with pytest.raises(ValueError, match="OpDecorate"):
        m.decorate(arr, "ArrayStride", "4")         # a string for a LiteralInteger
    with pytest.raises(ValueError, match="NotADecoration"):
        m.decorate(arr, "NotADecoration")
    with pytest.raises(ValueError, match="OpDecorate"):
        m.decorate(arr, "BuiltIn", "NoSuchBuiltIn")
    with pytest.raises(ValueError, match="OpExecutionMode"):
        m.execution_mode(1, "LocalSize", 64, 1)


def test_operand_mistakes_raise_value_error_naming_the_opcode():
    m = SpirvModule()
    uint = m.type("OpTypeInt", 32, 0)
    one = m.constant(uint, 1)
    void = m.type("OpTypeVoid")
    m.begin_function(void, m.type("OpTypeFunction", void))
    m.begin_block()
    with pytest.raises(ValueError, match="OpIAdd"):
        m.op("OpIAdd", uint, one)                       # too few
    with pytest.raises(ValueError, match="OpIAdd"):
        m.op("OpIAdd", uint, one, one, one)             # too many
    with pytest.raises(ValueError, match="OpIAdd"):
        m.op("OpIAdd", uint, one, "one")                # a name where an id goes
    with pytest.raises(ValueError, match="OpIAdd"):
        m.op("OpIAdd", uint, one, 10_000)               # an id never allocated
    with pytest.raises(ValueError, match="OpPhi"):
        m.op("OpPhi", uint, one)                        # half a (value, parent) pair
    with pytest.raises(ValueError, match="OpLoopMerge"):
        m.op("OpLoopMerge", one, one, "Sometimes")
    with pytest.raises(ValueError, match="OpReturn"):
        m.op("OpReturn", result=m.new_id())             # no result id to give
    with pytest.raises(ValueError, match="FMin"):
        m.ext_inst(uint, "FMin", one)
    with pytest.raises(KeyError, match="OpNoSuchThing"):
        m.op("OpNoSuchThing")
    m.op("OpReturn")
    with pytest.raises(ValueError, match="outside a block"):
        m.op("OpIAdd", uint, one, one)                  # after the terminator
    m.begin_block()
    with pytest.raises(ValueError, match="terminator"):
        m.begin_block()
    with pytest.raises(ValueError, match="type declaration"):
        m.type("OpIAdd", uint, one, one)
    with pytest.raises(ValueError, match="OpTypeInt: 2-bit"):
        m.type("OpTypeInt", 2, 0)
    with pytest.raises(ValueError, match="OpTypeFloat: 8-bit"):
        m.op("OpTypeFloat", 8)


def test_decorations_with_id_parameters_use_op_decorate_id():
    m = SpirvModule(version=(1, 6))
    uint = m.type("OpTypeInt", 32, 0)
    m.capability("Shader")
    m.memory_model("Logical", "GLSL450")
    void = m.type("OpTypeVoid")
    fn = m.begin_function(void, m.type("OpTypeFunction", void))
    m.entry_point("GLCompute", fn, "main", [])
    m.execution_mode(fn, "LocalSizeId", m.constant(uint, 8), m.constant(uint, 1), m.constant(uint, 1))
    m.begin_block()
    m.op("OpReturn")
    m.end_function()
    binary = m.assemble()
    validate(binary, "vulkan1.3", "LocalSizeId test")
    assert re.search(r"OpExecutionModeId %\w+ LocalSizeId %uint_8 %uint_1 %uint_1", disassemble(binary))


def test_a_100k_instruction_module_assembles_and_validates():
    """Size, not speed: timing belongs in benchmarks (tools/bench_spirv.py), never in tests."""
    m = SpirvModule()
    m.capability("Shader")
    m.memory_model("Logical", "GLSL450")
    void = m.type("OpTypeVoid")
    uint = m.type("OpTypeInt", 32, 0)
    fn = m.begin_function(void, m.type("OpTypeFunction", void))
    m.entry_point("GLCompute", fn, "main", [])
    m.execution_mode(fn, "LocalSize", 1, 1, 1)
    m.begin_block()
    value = m.constant(uint, 1)
    for _ in range(100_000):
        value = m.op("OpIAdd", uint, value, value)
    m.op("OpReturn")
    m.end_function()
    binary = m.assemble()
    assert len(binary) // 4 > 5 * 100_000      # 100k five-word OpIAdds
    validate(binary, "vulkan1.3", "100k module")


def test_result_ids_must_come_from_new_id_and_be_defined_once():
    m = SpirvModule()
    uint = m.type("OpTypeInt", 32, 0)
    one = m.constant(uint, 1)
    void = m.type("OpTypeVoid")
    m.begin_function(void, m.type("OpTypeFunction", void))
    m.begin_block()
    later = m.new_id()
    assert m.op("OpIAdd", uint, one, one, result=later) == later
    with pytest.raises(ValueError, match="OpISub: result id .* already defined"):
        m.op("OpISub", uint, one, one, result=later)     # defined twice
    with pytest.raises(ValueError, match="OpISub"):
        m.op("OpISub", uint, one, one, result=one)       # an id this module allocated itself
    label = m.new_id()
    m.op("OpBranch", label)
    assert m.begin_block(label) == label
    m.op("OpReturn")
    with pytest.raises(ValueError, match="OpLabel"):
        m.begin_block(label)


def test_a_type_asked_for_again_is_the_same_id_and_no_new_words():
    """type() remembers a request it encoded (opname and int/str operands), so the next identical one is
    answered without encoding; the answer is still the grammar's: another spelling of the same words
    (an enumerant by number) is the same type, and a bool where the grammar wants an integer is refused
    every time, not only before an int of equal value was asked for."""
    m = SpirvModule()
    uint = m.type("OpTypeInt", 32, 0)
    words = len(m._sections["globals"])
    assert m.type("OpTypeInt", 32, 0) == uint and len(m._sections["globals"]) == words
    function_ptr = m.type("OpTypePointer", "Function", uint)
    assert m.type("OpTypePointer", GRAMMAR.enumerant("StorageClass", "Function"), uint) == function_ptr
    assert m.type("OpTypePointer", "Function", uint) == function_ptr
    with pytest.raises(ValueError, match="integer literal"):
        m.type("OpTypeInt", 32, False)
    assert m.type("OpTypeInt", 32, 0, unique=True) != uint


def test_type_declarations_through_op_are_shared_with_type():
    m = SpirvModule(version=(1, 6))
    m.capability("Shader")
    m.capability("PhysicalStorageBufferAddresses")
    m.memory_model("PhysicalStorageBuffer64", "GLSL450")
    uint = m.op("OpTypeInt", 32, 0)
    assert m.type("OpTypeInt", 32, 0) == uint
    assert m.type_width(uint) == 32
    # a linked-list node: struct { uint value; node *next; } needs a forward pointer
    pointer = m.new_id()
    m.op("OpTypeForwardPointer", pointer, "PhysicalStorageBuffer")
    node = m.type("OpTypeStruct", uint, pointer)
    m.member_decorate(node, 0, "Offset", 0)
    m.member_decorate(node, 1, "Offset", 8)
    assert m.type("OpTypePointer", "PhysicalStorageBuffer", node, result=pointer) == pointer
    assert m.type("OpTypePointer", "PhysicalStorageBuffer", node) == pointer
    void = m.type("OpTypeVoid")
    fn = m.begin_function(void, m.type("OpTypeFunction", void))
    m.entry_point("GLCompute", fn, "main", [])
    m.execution_mode(fn, "LocalSize", 1, 1, 1)
    m.begin_block()
    m.op("OpReturn")
    m.end_function()
    binary = m.assemble()
    validate(binary, "vulkan1.3", "forward pointer test")
    text = disassemble(binary)
    assert "OpTypeForwardPointer" in text
    assert text.count("OpTypePointer PhysicalStorageBuffer") == 1
