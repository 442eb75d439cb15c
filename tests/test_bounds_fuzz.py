"""A fixed slice of tools/bounds_fuzz.py: kernels that access a buffer, a private array, a kernel-scope
__local array, a __local parameter, a __constant table or a program-scope variable out of bounds (one work-item; before the start, one element or more
past the end, into a neighbouring array, far away), written and read, in straight code, under an if and in
a loop. Every target at -O0 and -O2 refuses each in one line, and runs its in-bounds twin with the buffers
ir prints. The slice's cases found, before they were fixed: the llvm target reading a buffer's guard bytes
or past a __constant table with exit 0 (and so the opencl target, whose check runs the llvm reference), the ir target's batched interpreter letting a lane read another lane's private array, gen
letting an index run into the neighbouring __local or private array, and the llvm reference writing past a
program-scope variable with exit 0 (and refusing in-bounds runs: its second launch started from the
first one's writes), and the llvm reference reading a float before a private array's start with exit 0
(seed 5032: both guard patterns read as NaN, which x86 converts to the same INT_MIN); and the ir
target refusing a store straddling an array's end without saying "out-of-bounds" (seed 9156: clang -O2
merged two byte stores)."""
import pytest

from reconverge.tools.bounds_fuzz import SPACES, check_case, make_case

SEEDS = [2, 4, 5, 7, 9, 10, 12, 18, 19, 26, 28, 37, 5032, 9156]


def test_the_slice_covers_every_memory_space_and_direction():
    cases = [make_case(s) for s in SEEDS]
    assert {c.about.split()[0] for c in cases} == set(SPACES)
    assert any(" at index -" in c.about for c in cases) and any(" at index 1000" in c.about for c in cases)


@pytest.mark.parametrize("seed", SEEDS)
def test_every_target_refuses_an_out_of_bounds_access_and_runs_its_twin(seed, tmp_path):
    assert check_case(make_case(seed), str(tmp_path)) == []
