"""The SPIR-V grammar (backend/spirv/grammar.py) answers as Khronos' files say: opcodes, operand lists,
operand kinds and enumerants agree with the generated Python header and with the core grammar's JSON
decoded whole, though only the objects asked for are decoded; a missing file is a one-line compile
error naming its Debian package."""
from __future__ import annotations

import json

import pytest

from reconverge.backend.spirv.grammar import CORE_FILE, GRAMMAR, Grammar
from reconverge.lowering.errors import CompileError


def test_grammar_matches_the_generated_python_header():
    namespace: dict = {}
    with open("/usr/include/spirv/unified1/spirv.py", encoding="utf-8") as header:
        exec(header.read(), namespace)      # noqa: S102 (the Khronos-generated header: a dict literal)
    spv = namespace["spv"]
    for name in ["OpIAdd", "OpPhi", "OpLoopMerge", "OpSwitch", "OpExtInst", "OpDecorate"]:
        assert GRAMMAR.opcode(name) == spv["Op"][name]
    assert GRAMMAR.enumerant("StorageClass", "StorageBuffer") == spv["StorageClass"]["StorageBuffer"]
    assert GRAMMAR.enumerant("BuiltIn", "GlobalInvocationId") == spv["BuiltIn"]["GlobalInvocationId"]
    assert GRAMMAR.enumerant("MemoryAccess", "Aligned") == spv["MemoryAccessMask"]["Aligned"]
    assert GRAMMAR.magic_number == spv["MagicNumber"]


def test_grammar_queries():
    assert GRAMMAR.operands("OpIAdd") == [("IdResultType", ""), ("IdResult", ""), ("IdRef", ""), ("IdRef", "")]
    assert GRAMMAR.operands("OpLoad")[-1] == ("MemoryAccess", "?")
    assert GRAMMAR.operands("OpPhi")[-1] == ("PairIdRefIdRef", "*")
    assert GRAMMAR.enumerant_parameters("Decoration", "ArrayStride") == [("LiteralInteger", "")]
    assert GRAMMAR.enumerant_parameters("Decoration", "BuiltIn") == [("BuiltIn", "")]
    assert GRAMMAR.enumerant_parameters("ExecutionMode", "LocalSize") == [("LiteralInteger", "")] * 3
    assert GRAMMAR.enumerant_parameters("Decoration", "Block") == []
    assert GRAMMAR.glsl("FMin") == 37 and GRAMMAR.glsl("Sqrt") == 31
    with pytest.raises(KeyError, match="OpBogus"):
        GRAMMAR.opcode("OpBogus")
    with pytest.raises(KeyError, match="Bogus"):
        GRAMMAR.enumerant("StorageClass", "Bogus")
    with pytest.raises(KeyError, match="Bogus"):
        GRAMMAR.glsl("Bogus")


def _reversed_keys(value):
    """The JSON value with every object's keys in the opposite order."""
    if isinstance(value, dict):
        return {k: _reversed_keys(value[k]) for k in reversed(list(value))}
    if isinstance(value, list):
        return [_reversed_keys(v) for v in value]
    return value


def _assert_grammar_answers(grammar: Grammar, core: dict) -> None:
    """Every instruction, operand kind and enumerant of `core` (the file decoded whole) as `grammar` gives it."""
    assert grammar.magic_number == int(core["magic_number"], 0)
    assert grammar.version == (core["major_version"], core["minor_version"])
    for inst in core["instructions"]:
        name = inst["opname"]
        assert grammar.opcode(name) == inst["opcode"], name
        assert grammar.operands(name) == [(o["kind"], o.get("quantifier", "")) for o in inst.get("operands", [])]
        assert grammar.instruction_class(name) == inst.get("class", "")
    for kind in core["operand_kinds"]:
        name = kind["kind"]
        assert grammar.category(name) == kind["category"], name
        if kind["category"] == "Composite":
            assert grammar.bases(name) == kind["bases"]
        if kind["category"] not in ("ValueEnum", "BitEnum"):
            continue
        first: dict[int, str] = {}
        for e in kind["enumerants"]:
            value = e["value"] if isinstance(e["value"], int) else int(e["value"], 0)
            first.setdefault(value, e["enumerant"])
            assert grammar.enumerant(name, e["enumerant"]) == value
            assert grammar.enumerant_parameters(name, e["enumerant"]) == \
                [(p["kind"], p.get("quantifier", "")) for p in e.get("parameters", [])]
        assert all(grammar.enumerant_name(name, value) == e for value, e in first.items())


def test_grammar_answers_as_the_whole_file_decoded(tmp_path):
    """The grammar decodes only the JSON objects asked for, found through an index of where each starts
    (issue 26: decoding the whole file was an eighth of a one-kernel compile). Its answers are those of
    the file decoded whole: for the installed file, through the index alone, and for the same file with
    every object's keys in the opposite order (the index's guesses are then refused), through the whole
    file decoded."""
    with open(CORE_FILE, encoding="utf-8") as f:
        core = json.load(f)
    first_lookups = Grammar()                   # an enumerant of a big kind: that enumerant's object alone
    assert first_lookups.enumerant("Capability", "Shader") == 1
    assert first_lookups.enumerant_parameters("Decoration", "ArrayStride") == [("LiteralInteger", "")]
    assert len(first_lookups._kinds["Capability"].values) == 1
    installed = Grammar()
    _assert_grammar_answers(installed, core)
    assert installed._whole is None             # answered without decoding the whole file
    reordered = tmp_path / "spirv.core.grammar.json"
    reordered.write_text(json.dumps(_reversed_keys(core), indent=2), encoding="utf-8")
    other = Grammar(core_path=str(reordered))
    _assert_grammar_answers(other, core)
    assert other._whole is not None
    with pytest.raises(KeyError, match="OpBogus"):
        other.opcode("OpBogus")
    with pytest.raises(KeyError, match="not a SPIR-V enumerated operand kind"):
        other.enumerant("IdRef", "Bogus")


def test_an_opcode_alone_is_read_off_the_text():
    """GRAMMAR.opcode reads the number after the instruction's "opname" without decoding its object (the
    dead-code pass asks for ~120 of them); every opcode of the file is the decoded file's."""
    with open(CORE_FILE, encoding="utf-8") as f:
        core = json.load(f)
    grammar = Grammar()
    assert all(grammar.opcode(inst["opname"]) == inst["opcode"] for inst in core["instructions"])
    assert grammar._instructions == {} and grammar._whole is None


def test_missing_grammar_is_a_compile_error():
    grammar = Grammar(core_path="/nonexistent/spirv.core.grammar.json")
    with pytest.raises(CompileError, match="spirv.core.grammar.json.*install the Debian package spirv-headers"):
        grammar.opcode("OpIAdd")
