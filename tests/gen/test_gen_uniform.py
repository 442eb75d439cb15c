"""Uniform branches (a scalar jmpi) and uniform values in scalar registers on Gen (isel_structured,
isel_uniform), against the CPU JIT in SIMD8 and SIMD16, with a partial last thread: a uniform if inside a
divergent one, where the disabled lanes' flag bits are stale; uniform breaks and ifs in a loop lanes
leave at different iterations, whose counter is read after it; a uniform loop under a divergent if."""
from __future__ import annotations

import os

import numpy as np
import pytest

from reconverge.tools.targets.harness import GenRunOptions, compare, load_program, run_target

HERE = os.path.dirname(os.path.abspath(__file__))
KERNELS = ("stale_flags", "divergent_loop", "uniform_nest")     # uniform_branches.cl


@pytest.fixture(scope="module")
def program():
    return load_program(os.path.join(HERE, "uniform_branches.cl"), "-O2")


def _args(kernel: str, items: int, key: int) -> list:
    rng = np.random.default_rng(7)
    data = rng.integers(0, 50, items + 8).astype(np.int32)
    data[0] = key
    args: list = [data, np.zeros(items, np.int32)]
    return args if kernel == "stale_flags" else args + [np.int32(9)]


@pytest.mark.parametrize("simd", [8, 16])
@pytest.mark.parametrize("kernel", KERNELS)
@pytest.mark.parametrize("key", [12345, 4])
def test_uniform_branches_agree_with_the_reference(program, kernel, simd, key):
    items = 44                                   # a partial last thread in both widths
    want = run_target("llvm", program, kernel, _args(kernel, items, key), (items,), (items,))
    got = run_target("gen", program, kernel, _args(kernel, items, key), (items,), (items,),
                     GenRunOptions(simd, "structured"))
    names = ["in", "out", "n"][:len(want)]
    problems = compare(want, got, names, labels=("llvm", "gen"))
    assert not problems, "; ".join(problems)


@pytest.mark.parametrize("simd", [8, 16])
@pytest.mark.parametrize("key", [12345, 4])
def test_stale_flag_bits_of_disabled_lanes_are_not_read(simd, key):
    """uniform_stale_flags.nir against the interpreter: without clearing f0.0 first, the jmpi saw the
    disabled lanes' bits and ran the uniform if's arm for key 4."""
    program = load_program(os.path.join(HERE, "uniform_stale_flags.nir"), "-O0")
    items = 44
    want = run_target("ir", program, "stale_flags", _args("stale_flags", items, key), (items,), (items,))
    got = run_target("gen", program, "stale_flags", _args("stale_flags", items, key), (items,), (items,),
                     GenRunOptions(simd, "structured"))
    problems = compare(want, got, ["in", "out"], labels=("ir", "gen"))
    assert not problems, "; ".join(problems)
    assert (want[1] == 2).any() == (key == 12345)


def test_the_uniform_if_is_a_jmpi_and_the_counter_a_scalar(program):
    """What the test above exercises is there: uniform ifs as jmpi (not if/endif), the loop counter of
    uniform_nest written once with the mask off; without the option, none of it."""
    from reconverge.backend.gen import GenOptions, compile
    from reconverge.isa.gen9.disassembler import disassemble
    from reconverge.isa.gen9.encoding import encode_program

    def text(kernel: str, uniform: bool) -> str:
        compiled = compile(program, kernel, GenOptions(16, "structured", uniform_branches=uniform))
        return disassemble(encode_program(compiled.program))
    assert "any16h) jmpi" in text("stale_flags", True) and "jmpi" not in text("stale_flags", False)
    assert "(W)     add (1|M0)" in text("uniform_nest", True)
    assert "(1|M0)" not in text("uniform_nest", False)
