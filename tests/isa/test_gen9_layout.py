"""layout.py packs and unpacks instruction words with integer shifts from the field table; construct's
BitStructs of the same table (layout_structs.py, a library we did not write, which `disasm --fields` and
`diff` read words through) must read every form the same, reserved gaps included, and pack must be
unpack's inverse."""
from __future__ import annotations

import random

import pytest

from reconverge.isa.gen9 import fields as F
from reconverge.isa.gen9.errors import IsaError
from reconverge.isa.gen9.layout import pack, unpack
from reconverge.isa.gen9.layout_structs import parse

FORMS = F.NATIVE_FORMS + F.COMPACT_FORMS


@pytest.mark.parametrize("form", FORMS)
def test_unpack_reads_every_field_as_constructs_bitstruct_does(form):
    rng = random.Random(form)
    for _ in range(50):
        data = rng.getrandbits(F.FORM_BITS[form]).to_bytes(F.FORM_BITS[form] // 8, "little")
        theirs = parse(form, data, reserved=True)
        assert unpack(form, data, reserved=True) == theirs
        assert list(unpack(form, data)) == [k for k in theirs if not k.startswith("_")]
        fields = unpack(form, data)
        assert unpack(form, pack(form, fields)) == fields
        if not any(v for k, v in theirs.items() if k.startswith("_rsv")):
            assert pack(form, fields) == data


def test_a_value_too_wide_for_its_field_and_a_short_word_are_isa_errors():
    with pytest.raises(IsaError, match="exec_size"):
        pack("a1", {"exec_size": 1 << 10})
    with pytest.raises(IsaError, match="truncated"):
        unpack("a1", bytes(8))
    with pytest.raises(IsaError, match="truncated"):
        parse("a1", bytes(8))
