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

from reconverge.backend.gen import compile_gen_kernel
from reconverge.backend.gen.isel_blockip import layout
from reconverge.backend.gen.launch import run_gen_kernel
from reconverge.isa.gen9 import encoding as codec
from reconverge.isa.gen9.model import Instruction
from reconverge.isa.gen9.sim_trace import CF_OPS
from reconverge.isa.gen9.simulator import Trace
from reconverge.isa.gen9.simulator import layout as addresses
from reconverge.records import replace
from reconverge.tools.targets.harness import program_from_llvm

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


@dataclasses.dataclass
class Run:
    xs: np.ndarray
    ys: np.ndarray
    paths: list[list[str]]          # per lane: the blocks whose body ran with it enabled, in order
    bodies_run: set[str]            # the blocks whose body ran at all
    jumps: list[tuple[int, int, str]]   # each jmpi taken: (from, to, its group test)


def _run(kernel: str, simd: int, data: np.ndarray, lanes: int, decoded: bool = False) -> tuple[Run, Trace]:
    """Run one thread of `lanes` work-items (the others undispatched)."""
    func = _function(kernel)
    compiled = compile_gen_kernel(func, simd)
    if decoded:
        compiled = replace(compiled, program=codec.decode_program(codec.encode_program(compiled.program)))
    xs, ys = np.zeros(simd, np.int32), np.zeros(simd, np.int32)
    trace = Trace()
    run_gen_kernel(func, [data[:simd].copy(), xs, ys], (lanes,), (lanes,), simd, trace=trace, compiled=compiled)
    names = [b.label for b in layout(func)]
    starts = sorted((address, int(label[1:])) for address, label in trace.labels.items()  # type: ignore[attr-defined]
                    if label[0] == "B" and label[1:].isdigit())
    blocks = [(address, names[i]) for address, i in starts if i < len(names)]
    paths: list[list[str]] = [[] for _ in range(simd)]
    bodies_run: set[str] = set()
    for e in trace.events:
        if e.we_all or e.opcode in CF_OPS:
            continue
        inside = [name for address, name in blocks if address <= e.address]
        if not inside:                               # the prologue: every lane's first blockIP
            continue
        block = inside[-1]
        bodies_run.add(block)
        for lane in np.flatnonzero(e.mask):
            if not paths[lane] or paths[lane][-1] != block:
                paths[lane].append(block)
    at = addresses(compiled.program)
    ins, following = dict(zip(at, compiled.program)), dict(zip(at, at[1:]))
    seq = [e.address for e in trace.events]
    jumps = [(a, b, _predicate(ins[a])) for a, b in zip(seq, seq[1:])
             if ins[a].opcode == "jmpi" and b != following.get(a)]
    return Run(xs, ys, paths, bodies_run, jumps), trace


@pytest.mark.parametrize("kernel", sorted(CFGS))
@pytest.mark.parametrize("simd", [8, 16])
@pytest.mark.parametrize("seed", [1, 2, 3])
def test_each_lane_runs_the_blocks_of_a_walk_of_the_cfg_to_its_results(kernel, simd, seed):
    rng = np.random.default_rng(seed)
    data = rng.integers(0, 64, 16).astype(np.int32)
    lanes = simd if seed != 3 else simd - 3          # seed 3: the last lanes are not dispatched
    run, _ = _run(kernel, simd, data, lanes)
    walk = CFGS[kernel][1]
    for lane in range(simd):
        if lane >= lanes:                            # never entered a block, wrote nothing
            assert run.paths[lane] == [] and run.xs[lane] == 0 and run.ys[lane] == 0, lane
            continue
        x, y, path = walk(int(data[lane]))
        assert (run.xs[lane], run.ys[lane]) == (x, y), lane
        assert run.paths[lane] == path, f"lane {lane}"


def test_both_entries_of_the_irreducible_cycle_run_in_one_thread_with_jumps_both_ways():
    data = np.array([1, 3, 5, 7, 9, 11, 13, 15, 0, 2, 4, 6, 8, 10, 12, 14], np.int32)
    run, _ = _run("irreducible", 16, data, 16)
    assert {tuple(p[:2]) for p in run.paths} == {("A", "B"), ("A", "C")}
    assert any(b < a for a, b, _ in run.jumps), "the B <-> C cycle must jump backwards"
    assert {control for _, _, control in run.jumps} == {"any16h"}


def test_a_block_every_lane_skips_is_jumped_over():
    odd = np.array([1, 3] * 8, np.int32)             # every lane goes A -> C -> D: nobody wants B
    run, _ = _run("irreducible", 16, odd, 16)
    assert all(p == ["A", "C", "D"] for p in run.paths)
    assert "B" not in run.bodies_run and {"A", "C", "D"} <= run.bodies_run   # B's if jumped to its endif


@pytest.mark.parametrize("kernel", sorted(CFGS))
def test_the_encoded_and_decoded_binary_runs_the_same(kernel):
    data = np.random.default_rng(5).integers(0, 64, 16).astype(np.int32)
    (plain, t0), (decoded, t1) = (_run(kernel, 16, data, 16, decoded) for decoded in (False, True))
    assert (plain.xs.tolist(), plain.ys.tolist(), plain.paths) == (decoded.xs.tolist(), decoded.ys.tolist(),
                                                                  decoded.paths)
    assert [(e.address, e.mask.tolist()) for e in t0.events] == [(e.address, e.mask.tolist()) for e in t1.events]


def _predicate(ins: Instruction) -> str:
    """A jmpi's predicate control ('' when it jumps unconditionally)."""
    return ins.predicate.control if ins.predicate else ""
