"""Declare MaximallyReconvergesKHR in a finished module: `OpExtension "SPV_KHR_maximal_reconvergence"` and
`OpExecutionMode %entry MaximallyReconvergesKHR` for every GLCompute entry point.

Why a rewrite of the words and not the encoder: the two instructions are pure annotations (they change no
id, type or block), Debian 12's spirv-headers (1.3.239) and spirv-val (SPIRV-Tools 2023.1) predate the
extension, so the grammar-driven encoder cannot spell the mode and spirv-val rejects it. The pipeline
validates the module without them and adds them afterwards (backend.spirv.compile_spirv); a spirv-val that
knows the mode (`validator_knows_it`) checks the module as is. tools/gpu_replay.py loads this file beside
vulkan_run.py to add the mode to a recorded module on a device that offers VK_KHR_shader_maximal_reconvergence.
"""
from __future__ import annotations

import struct

from .grammar import GRAMMAR

EXTENSION = "SPV_KHR_maximal_reconvergence"
# ExecutionMode MaximallyReconvergesKHR = 6023: the SPIR-V registry's grammar (KhronosGroup/SPIRV-Headers,
# include/spirv/unified1/spirv.core.grammar.json, "MaximallyReconvergesKHR", "value" : 6023, extensions
# SPV_KHR_maximal_reconvergence) and the extension's specification (SPV_KHR_maximal_reconvergence, "Execution
# Mode": MaximallyReconvergesKHR 6023).
MAXIMALLY_RECONVERGES = 6023
# the numbers read here, from the Khronos grammar (in a GPU replay: the ones saved in the record)
OPCODE_NAMES = ("OpCapability", "OpExtension", "OpEntryPoint", "OpExecutionMode", "OpExecutionModeId")
_GL_COMPUTE_NAME = ("ExecutionModel", "GLCompute")


def _words(spirv: bytes) -> list[int]:
    if len(spirv) < 20 or len(spirv) % 4:
        raise ValueError(f"not a SPIR-V module: {len(spirv)} bytes")
    return list(struct.unpack(f"<{len(spirv) // 4}I", spirv))


def _string_words(text: str) -> list[int]:
    raw = text.encode("utf-8") + b"\0"
    raw += b"\0" * (-len(raw) % 4)
    return list(struct.unpack(f"<{len(raw) // 4}I", raw))


def declares_it(spirv: bytes) -> bool:
    """Whether the module already declares the extension."""
    op_extension = GRAMMAR.opcode("OpExtension")
    words, i = _words(spirv), 5
    while i < len(words):
        count, opcode = words[i] >> 16, words[i] & 0xFFFF
        if count == 0:
            break
        if opcode == op_extension and words[i + 1:i + count] == _string_words(EXTENSION):
            return True
        i += count
    return False


def with_maximal_reconvergence(spirv: bytes) -> bytes:
    """The module with the extension declared after its last OpCapability/OpExtension and the mode after the
    last execution mode (else the last entry point), once per GLCompute entry point; unchanged if declared."""
    if declares_it(spirv):
        return spirv
    op = {n: GRAMMAR.opcode(n) for n in OPCODE_NAMES}
    gl_compute = GRAMMAR.enumerant(*_GL_COMPUTE_NAME)
    words = _words(spirv)
    after_extensions = after_modes = after_entries = 5
    entries: list[int] = []
    i = 5
    while i < len(words):
        count, opcode = words[i] >> 16, words[i] & 0xFFFF
        if count == 0 or i + count > len(words):
            raise ValueError(f"malformed SPIR-V module: bad instruction at word {i}")
        if opcode in (op["OpCapability"], op["OpExtension"]):
            after_extensions = i + count
        elif opcode == op["OpEntryPoint"]:
            after_entries = i + count
            if words[i + 1] == gl_compute:
                entries.append(words[i + 2])
        elif opcode in (op["OpExecutionMode"], op["OpExecutionModeId"]):
            after_modes = i + count
        i += count
    name = _string_words(EXTENSION)
    extension = [(1 + len(name)) << 16 | op["OpExtension"], *name]
    modes = [w for entry in entries for w in (3 << 16 | op["OpExecutionMode"], entry, MAXIMALLY_RECONVERGES)]
    at_modes = max(after_modes, after_entries)
    out = words[:after_extensions] + extension + words[after_extensions:at_modes] + modes + words[at_modes:]
    return struct.pack(f"<{len(out)}I", *out)
