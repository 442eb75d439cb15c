"""Per-lane blockIP on the simulator, lane by lane: the backend's `--cf blockip` code for two hand-written
CFGs (tests/gen/blockip/lanes_*.ll: an irreducible cycle with two entries, and the CFG of Beignet's
unstructured_branches document, whose forward branches jump over blocks other lanes still need) runs
each lane through the blocks a direct walk of the CFG visits, in that order, to the walk's results.

A lane's path is read off the simulator's trace: the blocks (gen-asm's B<i> labels, block i of
isel_blockip.layout) in which an instruction of the body ran with that lane enabled.
"""
from __future__ import annotations

import dataclasses
import os

import numpy as np
import pytest

from backend.gen import compile_gen_kernel
from backend.gen.isel_blockip import layout
from backend.gen.launch import run_gen_kernel
from isa.gen9 import encoding as codec
from isa.gen9.sim_trace import CF_OPS
from isa.gen9.simulator import Trace
from isa.gen9.simulator import layout as addresses
from tools.targets.harness import program_from_llvm

HERE = os.path.join(os.path.dirname(__file__), "blockip")


def irreducible_walk(d: int) -> tuple[int, int, list[str]]:
    x, cnt, lim = 1, 0, (d >> 1) & 7
    path, blk = ["A"], "C" if d & 1 else "B"
    while blk != "D":
        path.append(blk)
        if blk == "B":
            x, cnt = x * 3 + 1, cnt + 1
            blk = "D" if cnt >= lim else "C"
        else:
            x, cnt = x + 5, cnt + 1
            blk = "B" if cnt < lim else "D"
    return x, x + cnt, path + ["D"]


def beignet_doc_walk(d: int) -> tuple[int, int, list[str]]:
    x, cnt, lim = 0, 0, d & 3
    path, blk = ["one"], "four" if d >= 20 else "two"
    while blk != "five":
        path.append(blk)
        if blk == "two":
            x, cnt = x + 10, cnt + 1
            blk = "five" if d >= 40 else "three"
        elif blk == "three":
            x += 100
            blk = "four"
        else:
            x += 1000
            blk = "two" if cnt < lim else "five"
    return x, x + cnt, path + ["five"]


CFGS = {"irreducible": ("lanes_irreducible.ll", irreducible_walk),
        "beignet_doc": ("lanes_beignet_doc.ll", beignet_doc_walk)}


def _function(kernel: str):
    path = os.path.join(HERE, CFGS[kernel][0])
    with open(path) as f:
        return program_from_llvm(f.read(), path).function(kernel, "gen-blockip")


def _run(kernel: str, simd: int, data: np.ndarray, lanes: int, decoded: bool = False):
    """Run one thread of `lanes` work-items (the others undispatched); returns x, y, each lane's path of
    blocks, the trace (its `bodies_run`: the blocks whose body ran, for any lane) and the program."""
    func = _function(kernel)
    compiled = compile_gen_kernel(func, simd)
    if decoded:
        compiled = dataclasses.replace(compiled, program=codec.decode_program(codec.encode_program(compiled.program)))
    xs, ys = np.zeros(simd, np.int32), np.zeros(simd, np.int32)
    trace = Trace()
    run_gen_kernel(func, [data[:simd].copy(), xs, ys], (lanes,), (lanes,), simd, trace=trace, compiled=compiled)
    at = addresses(compiled.program)
    names = [b.label for b in layout(func)]
    starts = sorted((address, int(label[1:])) for address, label in trace.labels.items()
                    if label[0] == "B" and label[1:].isdigit())
    starts = [(address, names[i]) for address, i in starts if i < len(names)]
    paths: list[list[str]] = [[] for _ in range(simd)]
    for e in trace.events:
        if e.we_all or e.opcode in CF_OPS:
            continue
        block = [name for address, name in starts if address <= e.address][-1:]
        trace.bodies_run = getattr(trace, "bodies_run", set()) | set(block)
        for lane in np.flatnonzero(e.mask):
            if block and (not paths[lane] or paths[lane][-1] != block[0]):
                paths[lane].append(block[0])
    return xs, ys, paths, trace, compiled.program, at


@pytest.mark.parametrize("kernel", sorted(CFGS))
@pytest.mark.parametrize("simd", [8, 16])
@pytest.mark.parametrize("seed", [1, 2, 3])
def test_each_lane_runs_the_blocks_of_a_walk_of_the_cfg_to_its_results(kernel, simd, seed):
    rng = np.random.default_rng(seed)
    data = rng.integers(0, 64, 16).astype(np.int32)
    lanes = simd if seed != 3 else simd - 3          # seed 3: the last lanes are not dispatched
    xs, ys, paths, *_ = _run(kernel, simd, data, lanes)
    walk = CFGS[kernel][1]
    for lane in range(simd):
        if lane >= lanes:
            assert paths[lane] == [] and xs[lane] == 0 and ys[lane] == 0, lane   # never entered a block
            continue
        x, y, path = walk(int(data[lane]))
        assert (xs[lane], ys[lane]) == (x, y), lane
        assert paths[lane] == path, f"lane {lane}"


def test_both_entries_of_the_irreducible_cycle_run_in_one_thread_with_jumps_both_ways():
    data = np.array([1, 3, 5, 7, 9, 11, 13, 15, 0, 2, 4, 6, 8, 10, 12, 14], np.int32)
    _, _, paths, trace, program, at = _run("irreducible", 16, data, 16)
    assert {tuple(p[:2]) for p in paths} == {("A", "B"), ("A", "C")}
    jumps = _taken_jumps(trace, program, at)
    assert any(b < a for a, b, _ in jumps), "the B <-> C cycle must jump backwards"
    assert {control for _, _, control in jumps} == {"any16h"}


def test_a_block_every_lane_skips_is_jumped_over():
    odd = np.array([1, 3] * 8, np.int32)             # every lane goes A -> C -> D: nobody wants B
    _, _, paths, trace, program, at = _run("irreducible", 16, odd, 16)
    assert all(p == ["A", "C", "D"] for p in paths)
    assert "B" not in trace.bodies_run and {"A", "C", "D"} <= trace.bodies_run   # B's if jumped to its endif


def _taken_jumps(trace: Trace, program: list, at: list[int]) -> list[tuple[int, int, str]]:
    """(from, to, group test) of each jmpi the thread took (went elsewhere than the next instruction)."""
    ins, following = dict(zip(at, program)), dict(zip(at, at[1:]))
    seq = [e.address for e in trace.events]
    return [(a, b, ins[a].predicate.control if ins[a].predicate else "") for a, b in zip(seq, seq[1:])
            if ins[a].opcode == "jmpi" and b != following.get(a)]


@pytest.mark.parametrize("kernel", sorted(CFGS))
def test_the_encoded_and_decoded_binary_runs_the_same(kernel):
    data = np.random.default_rng(5).integers(0, 64, 16).astype(np.int32)
    runs = [_run(kernel, 16, data, 16, decoded) for decoded in (False, True)]
    (x0, y0, p0, t0, *_), (x1, y1, p1, t1, *_) = runs
    assert x0.tolist() == x1.tolist() and y0.tolist() == y1.tolist() and p0 == p1
    assert [(e.address, e.mask.tolist()) for e in t0.events] == [(e.address, e.mask.tolist()) for e in t1.events]
