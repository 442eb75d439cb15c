"""Type/constant text parsing and the datalayout engine, checked against LLVM's own TargetData."""
from __future__ import annotations

import math
import struct

import llvmlite.binding as llvm
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from reconverge.lowering.frontend.llvm_types import (
    DataLayout,
    TypeError_,
    constant_from_text,
    leaf_span,
    memory_leaves,
    scalar_leaves,
    type_from_text,
)
from tests.lowering.frontend.helpers import DL

SCALARS = ["i1", "i8", "i16", "i32", "i64", "half", "float", "double", "ptr", "ptr addrspace(3)", "i24"]


def _types():
    scalar = st.sampled_from(SCALARS)
    vec_elem = st.sampled_from(["i8", "i16", "i32", "i64", "half", "float", "double"])
    vector = st.builds(lambda n, e: f"<{n} x {e}>", st.sampled_from([2, 3, 4, 8, 16]), vec_elem)
    leaf = st.one_of(scalar, vector)

    def extend(inner):
        arr = st.builds(lambda n, e: f"[{n} x {e}]", st.integers(0, 5), inner)
        struct_ = st.builds(lambda es, p: ("<{ " if p else "{ ") + ", ".join(es) + (" }>" if p else " }"),
                            st.lists(inner, min_size=1, max_size=4), st.booleans())
        return st.one_of(arr, struct_)
    return st.recursive(leaf, extend, max_leaves=8)


@pytest.mark.parametrize("spec", [DL, "e", "e-i64:64-f80:128-a:0:32-p:32:32"])
@settings(max_examples=40, deadline=None)
@given(text=_types())
def test_layout_matches_llvm(spec, text):
    mod = llvm.parse_assembly(f'target datalayout = "{spec}"\n@g = global {text} zeroinitializer\n')
    tref = mod.get_global_variable("g").global_value_type
    td = llvm.create_target_data(spec)
    dl = DataLayout(spec)
    lt = type_from_text(str(tref))
    assert dl.alloc_size(lt) == td.get_abi_size(tref)
    assert dl.align(lt) == td.get_abi_alignment(tref)
    if lt.kind == "struct":
        for i in range(len(lt.elems)):
            assert dl.field_offset(lt, i) == td.get_element_offset(tref, i)


def test_named_struct_resolution():
    inner = type_from_text("{ i8, double }")
    lt = type_from_text("[2 x %S]", lambda name: inner if name == "S" else None)
    assert DataLayout(DL).alloc_size(lt) == 32
    with pytest.raises(TypeError_):
        type_from_text("%S")


@pytest.mark.parametrize("text", ["bfloat", "<vscale x 4 x i32>", "target(\"spirv.Image\")", "i32*", "x86_fp80"])
def test_unsupported_types(text):
    with pytest.raises(TypeError_):
        type_from_text(text)


def test_leaves_and_memory_offsets():
    dl = DataLayout(DL)
    lt = type_from_text("{ i8, <3 x float>, [2 x i16] }")
    assert [str(t) for t in scalar_leaves(lt)] == ["i8", "float", "float", "float", "i16", "i16"]
    assert [off for off, _ in memory_leaves(dl, lt)] == [0, 16, 20, 24, 32, 34]
    assert leaf_span(lt, [2, 1]) == (5, type_from_text("i16"))


@pytest.mark.parametrize("text,value", [
    ("float 0x3FB99999A0000000", struct.unpack("<f", struct.pack("<f", 0.1))[0]),
    ("double 1.000000e-01", 0.1),
    ("half 0xH3C00", 1.0),
    ("half 0xHFC00", -math.inf),
    ("float 0x7FF0000000000000", math.inf),
    ("i32 -7", (1 << 32) - 7),
    ("i1 true", 1),
    ("i64 -9223372036854775808", 1 << 63),
])
def test_scalar_constants(text, value):
    cv = constant_from_text(text)
    assert cv.value == value


def test_aggregate_constants_and_initializer_bytes():
    dl = DataLayout(DL)
    cv = constant_from_text("{ i8, i32, [2 x half] } { i8 -1, i32 258, [2 x half] [half 0xH3C00, half 0xH4000] }")
    assert dl.serialize(cv) == bytes([0xFF, 0, 0, 0, 2, 1, 0, 0, 0x00, 0x3C, 0x00, 0x40])
    s = constant_from_text('[4 x i8] c"a\\00\\5Cz"')
    assert dl.serialize(s) == b"a\x00\\z"
    sp = constant_from_text("<4 x i32> splat (i32 3)")
    assert [a.value for a in sp.args] == [3, 3, 3, 3]
    z = constant_from_text("[3 x float] zeroinitializer")
    assert dl.serialize(z) == bytes(12)


def test_constant_expression_parse():
    cv = constant_from_text("ptr addrspace(3) getelementptr inbounds nuw ([8 x float], ptr addrspace(3) @t, "
                            "i64 0, i64 5)")
    assert cv.kind == "expr" and cv.value == "getelementptr"
    assert str(cv.extra[0]) == "[8 x float]"
    assert [a.kind for a in cv.args] == ["global", "int", "int"]
    cast = constant_from_text("i64 ptrtoint (ptr addrspace(1) @g to i64)")
    assert cast.value == "ptrtoint" and str(cast.extra[0]) == "i64"


def test_pointer_initializer_is_rejected():
    with pytest.raises(TypeError_):
        DataLayout(DL).serialize(constant_from_text("[1 x ptr] [ptr @x]"))
