"""The kinds of LLVM values the reader tells apart, numbered as llvmlite numbers its ValueKind.

The text records (llvm_text.py) say what kind of value each one is without importing llvmlite, and the
reader compares kinds with `==`: an IntEnum member equals llvmlite's member of the same number, so
llvmlite's own values (the rare forms it still answers for) compare the same way. llvmlite's numbering is
its ffi's LLVMPY_GetValueKind (llvmlite/binding/value.py); tests/lowering/frontend/test_text_module.py
checks the two stay equal.
"""
from __future__ import annotations

import enum


class ValueKind(enum.IntEnum):
    argument = 0
    basic_block = 1
    memory_use = 2
    memory_def = 3
    memory_phi = 4
    function = 5
    global_alias = 6
    global_ifunc = 7
    global_variable = 8
    block_address = 9
    constant_expr = 10
    constant_array = 11
    constant_struct = 12
    constant_vector = 13
    undef_value = 14
    constant_aggregate_zero = 15
    constant_data_array = 16
    constant_data_vector = 17
    constant_int = 18
    constant_fp = 19
    constant_pointer_null = 20
    constant_token_none = 21
    metadata_as_value = 22
    inline_asm = 23
    instruction = 24
    poison_value = 25
