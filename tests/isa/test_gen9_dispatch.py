"""NDRange dispatch with the documented thread payload: a hand-written kernel (checked by iga64 and our
assembler) that reads group ids, uint16 local ids and the cross-thread header computes every work-item's
global id right, over 2-D NDRanges with a global offset, SIMD8 and SIMD16, and with a partial last
thread whose disabled lanes write nothing."""
from __future__ import annotations

import os

import numpy as np
import pytest

from reconverge.isa.gen9.assembler import assemble
from reconverge.isa.gen9.dispatch import ARGUMENTS, cross_thread_header, run_ndrange
from reconverge.isa.gen9.encoding import decode_program
from reconverge.isa.gen9.errors import IsaError

HERE = os.path.dirname(os.path.abspath(__file__))


def _program(simd: int):
    with open(os.path.join(HERE, "data", "global_ids.asm")) as f:
        text = f.read()
    if simd == 8:          # the same kernel at SIMD8: 8 lanes, one GRF per value, so the data follows
        text = (text.replace("(16|M0)", "(8|M0)").replace("<16;16,1>:uw", "<8;8,1>:uw")   # the address in r31
                .replace("r32.0<1>:ud", "r31.0<1>:ud").replace("0x08025E00", "0x04026E00"))
    return decode_program(assemble(text, "global_ids.asm"))


@pytest.mark.parametrize("simd", [8, 16])
@pytest.mark.parametrize("global_size, local_size, offset", [
    ((32, 4), (16, 2), (0, 0)),
    ((24, 6), (4, 3), (5, 7)),          # 12 items a group: SIMD16 runs one thread with 12 lanes on
    ((10, 1), (10, 1), (3, 0)),
])
def test_every_work_item_sees_its_global_id(simd, global_size, local_size, offset):
    n = global_size[0] * global_size[1]
    out = np.full(n + 16, 0xDEADBEEF, np.uint32)       # past the end: lanes that must stay off
    run_ndrange(_program(simd), simd, global_size, local_size, surfaces={0: out}, global_offset=offset)
    gx, gy = np.meshgrid(np.arange(global_size[0]) + offset[0], np.arange(global_size[1]) + offset[1])
    np.testing.assert_array_equal(out[:n], (gx * 1000 + gy).reshape(-1))
    assert (out[n:] == 0xDEADBEEF).all()


def test_the_cross_thread_header_layout():
    header = np.frombuffer(cross_thread_header((1, 2, 3), (8, 4, 1), (5, 6, 7), 2), np.uint32)
    assert len(header) * 4 == ARGUMENTS
    assert header[:10].tolist() == [1, 2, 3, 8, 4, 1, 5, 6, 7, 2]


def test_sizes_are_checked():
    with pytest.raises(IsaError, match="does not divide"):
        run_ndrange(_program(16), 16, (30,), (16,))
    with pytest.raises(IsaError, match="SIMD32"):
        run_ndrange(_program(16), 32, (32,), (32,))
