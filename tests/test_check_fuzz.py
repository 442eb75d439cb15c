"""`check` on corrupt SPIR-V: 1,000 bit-flipped and truncated modules (a fixed seed) are each read to a
structure report or refused with a SpirvParseError; none raises anything else. A slice goes through
check_one, the whole per-input path with spirv-val, and every verdict is a one-line message."""
from __future__ import annotations

import os
import random

import pytest

from reconverge.backend.spirv.structure import SpirvParseError, dot, explain, parse, report
from reconverge.tools.check_command import check_one
from reconverge.tools.cli import main
from tests.test_cli import ROOT

SOURCES = ("nested_break.cl", "seed.cl")


@pytest.fixture(scope="module")
def modules(tmp_path_factory):
    d = tmp_path_factory.mktemp("fuzz")
    out = []
    for name in SOURCES:
        path = d / f"{name}.spv"
        assert main(["compile", os.path.join(ROOT, "examples", name), "-O2", "--emit", "spirv", "-o", str(path)]) == 0
        out.append(path.read_bytes())
    return out


def corrupted(modules: list[bytes], count: int, seed: int):
    """`count` broken modules: every fourth truncated at a random byte, the others with 1-4 bits flipped."""
    rng = random.Random(seed)
    for i in range(count):
        data = bytearray(rng.choice(modules))
        if i % 4 == 0:
            del data[rng.randrange(len(data)):]
        else:
            for _ in range(rng.randint(1, 4)):
                bit = rng.randrange(len(data) * 8)
                data[bit // 8] ^= 1 << (bit % 8)
        yield bytes(data)


def test_a_thousand_corrupt_modules_raise_nothing_but_parse_errors(modules):
    read = refused = 0
    for data in corrupted(modules, 1000, seed=19):
        try:
            flow = parse(data)
        except SpirvParseError as exc:
            assert "\n" not in str(exc)
            refused += 1
            continue
        report(flow)
        dot(flow)
        for f in flow.functions:
            for problem in f.problems:
                assert "\n" not in explain(flow, f, problem)
        read += 1
    assert read and refused                    # both paths were taken


def test_check_gives_corrupt_modules_a_one_line_verdict(modules, tmp_path):
    for i, data in enumerate(corrupted(modules, 12, seed=7)):
        path = tmp_path / f"m{i}.spv"
        path.write_bytes(data)
        for case in check_one(str(path), "-O2", "vulkan1.3"):
            assert "internal error" not in case["message"] and "\n" not in case["message"], case["message"]
