"""Sub-group operations on the Gen target (backend/gen/isel_subgroup.py): every op on every integer and
float type, in SIMD8 and SIMD16 and every control-flow mode, executed by the simulator against numpy
answers computed from the shared rule (sub-group k of a work-group = linear local ids [kS, (k+1)S), S =
the SIMD width; an op works over the lanes that reach it together). The work-group size, 20, is no
multiple of 8 or 16, so the last sub-group is partial; a divergent `if` and a loop that lanes leave at
different trips decide which lanes are active. Every type in structured mode (what auto picks here); the
blockIP modes on a few types (their masks come from the blockIP entry `if`, or from the predicate)."""
from __future__ import annotations

import functools
import os
import tempfile
from dataclasses import dataclass
from typing import Callable

import numpy as np
import pytest

from reconverge.backend.gen import CF_MODES, choose_function, compile_gen_kernel
from reconverge.backend.gen.launch import run_gen_kernel
from reconverge.isa.gen9.encoding import encode_program
from reconverge.tools.targets.harness import load_program
from tests.gen.iga import iga_text

CL_TYPES = {"char": np.int8, "uchar": np.uint8, "short": np.int16, "ushort": np.uint16, "int": np.int32,
            "uint": np.uint32, "long": np.int64, "ulong": np.uint64, "half": np.float16, "float": np.float32,
            "double": np.float64}
GLOBAL, LOCAL = 20, 20                  # sub-groups of 8, 8, 4 at SIMD8 and of 16, 4 at SIMD16


@dataclass(frozen=True)
class Op:
    name: str
    cl: str                                           # the expression, of x (T), p (int predicate), i (uint)
    model: Callable[[np.ndarray, np.ndarray, np.ndarray], np.ndarray]   # (values, active, lanes) -> per lane
    ints: bool = True
    floats: bool = True


def _fold(f: Callable, values: np.ndarray):
    acc = values[0]
    for v in values[1:]:
        acc = f(acc, v)
    return acc


def _reduce(f):
    def model(x, on, lane):
        return np.full_like(x, _fold(f, x[on])) if on.any() else np.zeros_like(x)
    return model


def _scan(f, exclusive: bool, identity):
    def model(x, on, lane):
        out = np.zeros_like(x)
        acc = None
        for i in range(x.size):
            if on[i]:
                out[i] = (identity(x.dtype) if acc is None else acc) if exclusive else (x[i] if acc is None else f(acc, x[i]))
                acc = x[i] if acc is None else f(acc, x[i])
        return out
    return model


def _clustered(f, c):
    def model(x, on, lane):
        out = np.zeros_like(x)
        for i in range(x.size):
            if on[i]:
                out[i] = _fold(f, x[on & (lane // c == lane[i] // c)])
        return out
    return model


def _first(x, on, lane):
    return np.full_like(x, x[on][0]) if on.any() else np.zeros_like(x)


def _ident_min(t):
    return np.array(np.inf if np.issubdtype(t, np.floating) else np.iinfo(t).max, t)


def _ident_max(t):
    return np.array(-np.inf if np.issubdtype(t, np.floating) else np.iinfo(t).min, t)


ADD, MUL = (lambda a, b: a + b), (lambda a, b: a * b)
MIN, MAX = np.minimum, np.maximum
# the ops inside `if (p)`: their source lanes are the active ones
DIVERGENT = (
    Op("reduce_add", "sub_group_reduce_add(x)", _reduce(ADD)),
    Op("reduce_min", "sub_group_reduce_min(x)", _reduce(MIN)),
    Op("reduce_max", "sub_group_reduce_max(x)", _reduce(MAX)),
    Op("reduce_mul", "sub_group_non_uniform_reduce_mul(x)", _reduce(MUL)),
    Op("reduce_and", "sub_group_non_uniform_reduce_and(x)", _reduce(np.bitwise_and), floats=False),
    Op("reduce_or", "sub_group_non_uniform_reduce_or(x)", _reduce(np.bitwise_or), floats=False),
    Op("reduce_xor", "sub_group_non_uniform_reduce_xor(x)", _reduce(np.bitwise_xor), floats=False),
    Op("scan_add", "sub_group_scan_inclusive_add(x)", _scan(ADD, False, None)),
    Op("scan_min", "sub_group_scan_inclusive_min(x)", _scan(MIN, False, None)),
    Op("scan_mul", "sub_group_non_uniform_scan_inclusive_mul(x)", _scan(MUL, False, None)),
    Op("scan_xor", "sub_group_non_uniform_scan_inclusive_xor(x)", _scan(np.bitwise_xor, False, None),
       floats=False),
    Op("xscan_add", "sub_group_scan_exclusive_add(x)", _scan(ADD, True, lambda t: np.zeros((), t))),
    Op("xscan_max", "sub_group_scan_exclusive_max(x)", _scan(MAX, True, _ident_max)),
    Op("xscan_min", "sub_group_scan_exclusive_min(x)", _scan(MIN, True, _ident_min)),
    Op("xscan_and", "sub_group_non_uniform_scan_exclusive_and(x)",
       _scan(np.bitwise_and, True, lambda t: np.array(-1).astype(t)), floats=False),
    Op("xscan_mul", "sub_group_non_uniform_scan_exclusive_mul(x)", _scan(MUL, True, lambda t: np.ones((), t))),
    Op("cluster2_add", "sub_group_clustered_reduce_add(x, 2u)", _clustered(ADD, 2)),
    Op("cluster4_max", "sub_group_clustered_reduce_max(x, 4u)", _clustered(MAX, 4)),
    Op("cluster8_or", "sub_group_clustered_reduce_or(x, 8u)", _clustered(np.bitwise_or, 8), floats=False),
    Op("broadcast_first", "sub_group_broadcast_first(x)", _first),
)


def _numbers(t: type, n: int, rng: np.random.Generator) -> np.ndarray:
    """Values whose sums and products are exact in every float type and wrap alike in the integers."""
    if np.issubdtype(t, np.floating):
        return rng.choice(np.array([1, 2, -1, 0.5, -2, 1, -1, -0.5], t), n)    # products of powers of 2
    info = np.iinfo(t)
    return rng.integers(max(info.min, -100), min(info.max, 100), n, endpoint=True).astype(t)


def _kernel(cl_type: str) -> str:
    floats = cl_type in ("half", "float", "double")
    ops = [op for op in DIVERGENT if (op.floats if floats else op.ints)]
    body = "\n".join(f"    out[{k}u * n + g] = {op.cl};" for k, op in enumerate(ops))
    pragma = "#pragma OPENCL EXTENSION cl_khr_fp16 : enable\n" if cl_type == "half" else ""
    return f"""{pragma}
kernel void k(global const TYPE *in, global const int *on, global const int *trips, global const uint *idx,
              global TYPE *out, global TYPE *moved, global int *votes, global TYPE *looped) {{
  uint g = get_global_id(0), n = get_global_size(0);
  TYPE x = in[g];
  int p = on[g];
  if (p) {{
{body}
    votes[0u * n + g] = sub_group_all(x > (TYPE)0);
    votes[1u * n + g] = sub_group_any(x > (TYPE)1);
    votes[2u * n + g] = sub_group_non_uniform_all_equal(x);
    votes[3u * n + g] = sub_group_elect();
    votes[4u * n + g] = (int)sub_group_ballot(x > (TYPE)0).x;
    votes[5u * n + g] = sub_group_non_uniform_all_equal((TYPE)3);
  }}
  moved[0u * n + g] = sub_group_shuffle(x, idx[g]);
  moved[1u * n + g] = sub_group_shuffle_xor(x, 1u);
  moved[2u * n + g] = sub_group_shuffle_up(x, 3u);
  moved[3u * n + g] = sub_group_shuffle_down(x, 2u);
  moved[4u * n + g] = sub_group_broadcast(x, 5u);
  moved[5u * n + g] = sub_group_broadcast(x, (uint)trips[0]);
  TYPE acc = (TYPE)0;
  for (int t = 0; t < trips[g]; t++)
    acc += sub_group_reduce_max(x + (TYPE)t);
  looped[g] = acc;
  sub_group_barrier(CLK_GLOBAL_MEM_FENCE | CLK_LOCAL_MEM_FENCE);
  votes[7u * n + g] = (int)looped[g - get_sub_group_local_id()];      // written by another lane
  votes[6u * n + g] = get_sub_group_size() * 1000000 + get_max_sub_group_size() * 10000
                    + get_num_sub_groups() * 1000 + get_sub_group_id() * 100 + get_sub_group_local_id();
}}""".replace("TYPE", cl_type)


def _subgroups(simd: int):
    """(first global id, lane count) of every sub-group of the NDRange."""
    for group in range(0, GLOBAL, LOCAL):
        for first in range(0, LOCAL, simd):
            yield group + first, min(simd, LOCAL - first)


def expected(cl_type: str, simd: int, args: dict) -> tuple[dict, dict]:
    """The numpy answers and, per output, which lanes are defined (shuffles read only valid lanes)."""
    t = CL_TYPES[cl_type]
    floats = np.issubdtype(t, np.floating)
    ops = [op for op in DIVERGENT if (op.floats if floats else op.ints)]
    x, on, trips, idx = args["in"], args["on"] != 0, args["trips"], args["idx"]
    n = GLOBAL
    out = np.zeros((len(ops), n), t)
    moved, defined = np.zeros((6, n), t), np.zeros((6, n), bool)
    votes, looped = np.zeros((8, n), np.int32), np.zeros(n, t)
    with np.errstate(over="ignore"):
        for first, size in _subgroups(simd):
            sl = slice(first, first + size)
            lane = np.arange(size)
            xs, act = x[sl], on[sl]
            for k, op in enumerate(ops):
                out[k, sl] = np.where(act, op.model(xs, act, lane), 0)
            if act.any():
                pos, big = xs > 0, xs > 1
                votes[0, sl] = np.where(act, int(pos[act].all()), 0)
                votes[1, sl] = np.where(act, int(big[act].any()), 0)
                votes[2, sl] = np.where(act, int((xs[act] == xs[act][0]).all()), 0)
                votes[3, sl] = np.where(act, (lane == lane[act][0]).astype(np.int32), 0)
                votes[4, sl] = np.where(act, np.int32(np.uint32(sum(1 << int(i) for i in lane[act & pos]))
                                                      .astype(np.int32)), 0)
                votes[5, sl] = np.where(act, 1, 0)
            moved[0, sl] = xs[idx[sl]]
            defined[0, sl] = True
            defined[1, sl] = (lane ^ 1) < size
            moved[1, sl] = xs[np.minimum(lane ^ 1, size - 1)]
            defined[2, sl] = lane >= 3
            moved[2, sl] = xs[np.maximum(lane - 3, 0)]
            defined[3, sl] = lane + 2 < size
            moved[3, sl] = xs[np.minimum(lane + 2, size - 1)]
            defined[4, sl] = 5 < size
            moved[4, sl] = xs[min(5, size - 1)]
            defined[5, sl] = True
            moved[5, sl] = xs[int(trips[0])]
            acc = np.zeros(size, t)
            for it in range(int(trips[sl].max())):
                live = trips[sl] > it
                total = (xs + t(it))[live].max()
                acc = np.where(live, acc + total, acc).astype(t)
            looped[sl] = acc
            votes[7, sl] = acc[0].astype(np.int32) if not floats else np.int32(acc[0])
            sub_id = (first % LOCAL) // simd
            votes[6, sl] = size * 1000000 + simd * 10000 + -(-LOCAL // simd) * 1000 + sub_id * 100 + lane
    return {"out": out.ravel(), "moved": moved.ravel(), "votes": votes.ravel(), "looped": looped}, \
        {"moved": defined.ravel()}


def fresh_args(cl_type: str, simd: int, seed: int = 0) -> dict:
    rng = np.random.default_rng(seed)
    t = CL_TYPES[cl_type]
    floats = np.issubdtype(t, np.floating)
    n_ops = len([op for op in DIVERGENT if (op.floats if floats else op.ints)])
    on = (rng.random(GLOBAL) < 0.6).astype(np.int32)
    on[::7] = 1                                      # every sub-group has an active lane
    idx = np.zeros(GLOBAL, np.uint32)
    for first, size in _subgroups(simd):
        idx[first:first + size] = rng.integers(0, size, size)
    x = _numbers(t, GLOBAL, rng)
    x[rng.random(GLOBAL) < 0.2] = 3                  # some sub-groups all equal
    return {"in": x, "on": on, "trips": rng.integers(0, 4, GLOBAL).astype(np.int32), "idx": idx,
            "out": np.zeros(n_ops * GLOBAL, t), "moved": np.zeros(6 * GLOBAL, t),
            "votes": np.zeros(8 * GLOBAL, np.int32), "looped": np.zeros(GLOBAL, t)}


# the kernels' source files, removed when the test process ends (a directory per call was left behind)
_SCRATCH = tempfile.TemporaryDirectory(prefix="gensg")


@functools.lru_cache(maxsize=None)
def program(cl_type: str, level: str):
    path = os.path.join(_SCRATCH.name, f"subgroups_{cl_type}.cl")
    with open(path, "w") as f:
        f.write(_kernel(cl_type))
    return load_program(path, level)


def run(cl_type: str, simd: int, cf: str, level: str = "-O2", seed: int = 0) -> None:
    if cf == "auto":
        func, mode = choose_function(program(cl_type, level), "k", "auto")
    else:
        mode = CF_MODES[cf]
        func = program(cl_type, level).function("k", mode.pipeline)
    args = fresh_args(cl_type, simd, seed)
    want, defined = expected(cl_type, simd, args)
    order = ["in", "on", "trips", "idx", "out", "moved", "votes", "looped"]
    run_gen_kernel(func, [args[k] for k in order], GLOBAL, LOCAL, simd, regions=mode.regions, entry=mode.entry)
    for name, value in want.items():
        got = args[name]
        keep = defined.get(name, np.ones(got.size, bool))
        bad = np.flatnonzero((got != value) & keep)
        assert not bad.size, (f"{cl_type} SIMD{simd} {cf} {name}: first differences at {bad[:8]}: "
                              f"got {got[bad[:8]]}, want {value[bad[:8]]}")


SIMD8_TYPES = ("char", "long", "double")


@pytest.mark.parametrize("cl_type", list(CL_TYPES))
def test_every_op_and_type_structured_simd16(cl_type):
    run(cl_type, 16, "structured")


@pytest.mark.parametrize("cl_type", SIMD8_TYPES)
def test_structured_simd8(cl_type):
    run(cl_type, 8, "structured")


@pytest.mark.parametrize("cf", ["blockip", "hybrid"])
@pytest.mark.parametrize("cl_type, simd", [("int", 16), ("double", 16), ("ulong", 8)])
def test_blockip_and_hybrid(cl_type, simd, cf):
    run(cl_type, simd, cf)


@pytest.mark.parametrize("cl_type", ["short", "long"])
def test_blockip_predicated_scheme(cl_type):
    """Beignet's scheme A: no if; the one masked copy is predicated on the block's entry flag."""
    run(cl_type, 8, "blockip-predicated")


def test_auto_mode_and_unoptimized_input():
    run("uint", 16, "auto", level="-O0", seed=1)


@pytest.mark.parametrize("cl_type, simd", [("long", 16), ("half", 8), ("double", 8)])
def test_binaries_read_by_iga64_as_we_do(cl_type, simd, tmp_path):
    func = program(cl_type, "-O2").function("k", "gen")
    iga_text(encode_program(compile_gen_kernel(func, simd).program), tmp_path, f"{cl_type}{simd}")


LEFT_LOOP = """
kernel void k(global uint *out, global const uint *in) {
    uint lid = get_local_id(0);
    uint a = in[lid], b = a, c = a, d = a, e = 0, f = a;
    uint g = 0;
    do { g++; a = sub_group_non_uniform_reduce_add(a | 1u); b = sub_group_scan_inclusive_max(b + g);
         c = sub_group_broadcast_first(c + 1); d = sub_group_ballot(d & 2).x; e = sub_group_elect();
         f = sub_group_clustered_reduce_min(f + g, 2u); }
    while (g < 3u && (in[lid] & 1));
    out[get_global_id(0)] = a + 3 * b + 5 * c + 7 * d + 11 * e + 13 * f;
}
"""


@pytest.mark.parametrize("cf", ["structured", "blockip", "hybrid", "blockip-predicated"])
@pytest.mark.parametrize("simd, level", [(8, "-O0"), (16, "-O0"), (8, "-O2")])
def test_a_lane_that_left_the_loop_keeps_the_result_it_left_with(simd, level, cf):
    """Regression (fuzz seed 319): the result of a sub-group operation in a loop is the same register in
    every iteration; written on every channel, it gave lanes that had left the loop the next iterations'
    results. Against the lock-step interpreter at the same sub-group size."""
    from reconverge.tools.targets.harness import GenRunOptions, InterpreterOptions, compare, run_target
    prog = program_text(LEFT_LOOP, level)
    values = np.arange(32, dtype=np.uint32) * 7 % 5
    args = [np.zeros(32, np.uint32), values]
    want = run_target("ir", prog, "k", args, (32,), (32,), InterpreterOptions(subgroup_size=simd))
    got = run_target("gen", prog, "k", args, (32,), (32,), GenRunOptions(simd, cf))
    assert compare(want, got, ["out", "in"], labels=("ir", "gen")) == []


def program_text(source: str, level: str):
    fd, path = tempfile.mkstemp(suffix=".cl")
    with os.fdopen(fd, "w") as f:
        f.write(source)
    try:
        prog = load_program(path, level)
        prog.kernel_names()
        return prog
    finally:
        os.unlink(path)
