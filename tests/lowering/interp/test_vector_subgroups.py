"""Every sub-group operation of the lock-step interpreter against a plain-Python model of issue 23's shared
semantics, on sub-group sizes 8, 16 and 32, with a partial last sub-group (work-groups of 44 items), under
divergent control flow (an `if` whose condition differs per lane) and in a loop that lanes leave at
different iterations. Kernels are .nir text, so no front end is involved."""
from __future__ import annotations

import functools

import numpy as np
import pytest

from reconverge.lowering.interp import InterpreterError
from reconverge.lowering.interp.vector import run_vector_kernel
from reconverge.lowering.ir.parser import parse_module

LOCAL, GROUPS = 44, 2
N = LOCAL * GROUPS
SIZES = (8, 16, 32)
RNG = np.random.default_rng(2311)

# the kernel: x = in[g]; y = aux[g]; if (cond[g]) r = OP else r = x; out[g] = r
TEMPLATE = """
kernel @k(ptr1 %out, ptr1 %in, ptr1 %aux, ptr1 %cond) {{
  block b0:
    %g = workitem.global_id i64 i32 0
    %o4 = mul i64 %g, 4
    %ox = mul i64 %g, {size}
    %px = ptradd ptr1 %in, %ox
    %x = load {ty} %px, align {size}
    %pa = ptradd ptr1 %aux, %o4
    %y = load i32 %pa, align 4
    %pc = ptradd ptr1 %cond, %o4
    %cw = load i32 %pc, align 4
    %c = icmp.ne i32 %cw, 0
    %xb = trunc i1 %y
  if %c {{
    block b1:
      %r = {op}
  }} else {{
    block b2:
  }}
  block b3:
    %v = phi {rty} [b1: %r], [b2: {fallback}]
    %po = ptradd ptr1 %out, %ox
    store {rty} %v, %po, align {size}
}}
"""

TYPES = {"i32": (np.uint32, 4), "i64": (np.uint64, 8), "f32": (np.float32, 4), "f64": (np.float64, 8),
         "i8": (np.uint8, 1)}


def _run(op_text: str, ty: str, rty: str, x: np.ndarray, y: np.ndarray, cond: np.ndarray, sg: int,
         fallback: str = "%x") -> np.ndarray:
    dt, size = TYPES[rty if rty in TYPES else ty]
    text = TEMPLATE.format(op=op_text, ty=ty, rty=rty, size=TYPES[ty][1], fallback=fallback)
    if rty != ty:        # a result of another type (i1 votes, i32 ballots): stored as i32, 4-byte slots
        text = text.replace("%po = ptradd ptr1 %out, %ox", "%po = ptradd ptr1 %out, %o4")
        text = text.replace(f"store {rty} %v, %po, align {TYPES[ty][1]}", f"store {rty} %v, %po, align 4")
    func = parse_module(text).functions["k"]
    out = np.zeros(N, np.uint32 if rty in ("i1", "i32") and rty != ty else dt)
    run_vector_kernel(func, [out, x, y.astype(np.uint32), cond.astype(np.uint32)], N, LOCAL, subgroup_size=sg)
    return out


def _subgroups(sg: int):
    """Lists of global ids, one per sub-group."""
    for g in range(GROUPS):
        for k in range(0, LOCAL, sg):
            yield [g * LOCAL + i for i in range(k, min(k + sg, LOCAL))]


def _mask(bits):
    return (1 << bits) - 1


def _signed(v, bits):
    return v - (1 << bits) if v >> (bits - 1) & 1 else v


def _arith(arith: str, bits: int):
    m = _mask(bits)
    return {"add": lambda a, b: (a + b) & m, "mul": lambda a, b: (a * b) & m, "and": lambda a, b: a & b,
            "or": lambda a, b: a | b, "xor": lambda a, b: a ^ b, "umin": min, "umax": max,
            "smin": lambda a, b: a if _signed(a, bits) <= _signed(b, bits) else b,
            "smax": lambda a, b: a if _signed(a, bits) >= _signed(b, bits) else b,
            "fadd": lambda a, b: a + b, "fmul": lambda a, b: a * b,
            "fmin": lambda a, b: b if b < a else a, "fmax": lambda a, b: b if b > a else a}[arith]


def _identity(arith: str, bits: int):
    return {"add": 0, "or": 0, "xor": 0, "umax": 0, "mul": 1, "and": _mask(bits), "umin": _mask(bits),
            "smin": _mask(bits) >> 1, "smax": 1 << (bits - 1), "fadd": 0.0, "fmul": 1.0, "fmin": np.inf,
            "fmax": -np.inf}[arith]


def _model_scan(kind: str, arith: str, ty: str, x, cond, sg: int, cluster: int = 0) -> np.ndarray:
    bits = {"i8": 8, "i32": 32, "i64": 64, "f32": 32, "f64": 64}[ty]
    f = _arith(arith, bits)
    want = x.copy()
    is_float = ty.startswith("f")
    for lanes in _subgroups(sg):
        groups = [lanes] if not cluster else [lanes[i:i + cluster] for i in range(0, len(lanes), cluster)]
        for part in groups:
            act = [g for g in part if cond[g]]
            vals = [x[g] if is_float else int(x[g]) for g in act]
            if not act:
                continue
            if kind == "reduce":
                total = functools.reduce(f, vals)
                for g in act:
                    want[g] = total
            else:
                acc = None
                for g, v in zip(act, vals):
                    if kind == "exclusive_scan":
                        want[g] = _identity(arith, bits) if acc is None else acc
                    acc = v if acc is None else f(acc, v)
                    if kind == "inclusive_scan":
                        want[g] = acc
    return want


def _values(ty: str) -> np.ndarray:
    dt = TYPES[ty][0]
    if ty.startswith("f"):
        return (RNG.integers(-20, 20, N) * 0.5).astype(dt)           # sums and small products are exact
    if ty == "i8":
        return RNG.integers(0, 256, N).astype(dt)
    return RNG.integers(0, 1 << 16, N).astype(dt) * dt(977)       # some above 2**31 once multiplied


INT_ARITH = ("add", "mul", "and", "or", "xor", "umin", "umax", "smin", "smax")
FLOAT_ARITH = ("fadd", "fmul", "fmin", "fmax")


@pytest.mark.parametrize("sg", SIZES)
@pytest.mark.parametrize("kind", ("reduce", "inclusive_scan", "exclusive_scan"))
def test_scans_every_arith_and_type(sg, kind):
    cond = RNG.integers(0, 4, N) != 0                         # divergent: about a quarter of lanes off
    for ty in ("i32", "i64", "i8", "f32", "f64"):
        for arith in FLOAT_ARITH if ty.startswith("f") else INT_ARITH:
            x = _values(ty)
            if arith in ("mul", "fmul"):
                x = (x % 3 + 1).astype(x.dtype) if ty.startswith("f") else (x % 5 + 1).astype(x.dtype)
            got = _run(f'subgroup.{kind} {ty} %x, arith "{arith}"', ty, ty, x, np.zeros(N), cond, sg)
            want = _model_scan(kind, arith, ty, x, cond, sg)
            assert got.tobytes() == want.tobytes(), (ty, arith, kind, sg, got[:20], want[:20])


@pytest.mark.parametrize("sg", SIZES)
def test_clustered_reduce(sg):
    cond = RNG.integers(0, 3, N) != 0
    x = _values("i32")
    for cluster in (1, 2, 4, 8):
        got = _run(f'subgroup.reduce i32 %x, arith "add", cluster {cluster}', "i32", "i32", x, np.zeros(N), cond, sg)
        want = _model_scan("reduce", "add", "i32", x, cond, sg, cluster)
        assert (got == want).all(), (cluster, sg)


@pytest.mark.parametrize("sg", SIZES)
def test_logical_scans_on_i1(sg):
    """and/or/xor on i1 are the logical operations; the i1 result is stored as i32 0/1."""
    cond = RNG.integers(0, 3, N) != 0
    y = RNG.integers(0, 2, N)
    x = np.zeros(N, np.uint32)
    for arith in ("and", "or", "xor"):
        func_text = TEMPLATE.format(op=f'subgroup.reduce i1 %xb, arith "{arith}"', ty="i32", rty="i1", size=4,
                                    fallback="false")
        func_text = func_text.replace("store i1 %v, %po, align 4", "%w = zext i32 %v\n    store i32 %w, %po, align 4")
        func = parse_module(func_text).functions["k"]
        out = np.zeros(N, np.uint32)
        run_vector_kernel(func, [out, x, y.astype(np.uint32), cond.astype(np.uint32)], N, LOCAL, subgroup_size=sg)
        f = {"and": lambda a, b: a & b, "or": lambda a, b: a | b, "xor": lambda a, b: a ^ b}[arith]
        want = np.zeros(N, np.uint32)
        for lanes in _subgroups(sg):
            act = [g for g in lanes if cond[g]]
            if act:
                total = functools.reduce(f, [int(y[g]) & 1 for g in act])
                want[act] = total
        assert (out == want).all(), (arith, sg)


def _vote_kernel(op_text: str, sg: int, y: np.ndarray, cond: np.ndarray, x: np.ndarray | None = None) -> np.ndarray:
    """Ops whose result is i1 or i32: stored as i32."""
    rty = "i32" if "ballot" in op_text or "info" in op_text else "i1"
    text = TEMPLATE.format(op=op_text, ty="i32", rty=rty, size=4, fallback="0" if rty == "i32" else "false")
    if rty == "i1":
        text = text.replace("store i1 %v, %po, align 4", "%w = zext i32 %v\n    store i32 %w, %po, align 4")
    func = parse_module(text).functions["k"]
    out = np.zeros(N, np.uint32)
    xs = x if x is not None else np.zeros(N, np.uint32)
    run_vector_kernel(func, [out, xs, y.astype(np.uint32), cond.astype(np.uint32)], N, LOCAL, subgroup_size=sg)
    return out


@pytest.mark.parametrize("sg", SIZES)
def test_votes_elect_ballot(sg):
    cond = RNG.integers(0, 3, N) != 0
    y = (RNG.integers(0, 6, N) != 0).astype(np.uint32)
    got = {op: _vote_kernel(text, sg, y, cond) for op, text in
           (("all", "subgroup.all i1 %xb"), ("any", "subgroup.any i1 %xb"), ("elect", "subgroup.elect i1"),
            ("ballot0", "subgroup.ballot i32 %xb, word 0"), ("ballot1", "subgroup.ballot i32 %xb, word 1"),
            ("all_equal", "subgroup.all_equal i1 %xb"))}
    for lanes in _subgroups(sg):
        act = [g for g in lanes if cond[g]]
        off = [g for g in lanes if not cond[g]]
        if not act:
            continue
        vals = [int(y[g]) for g in act]
        ballot = sum(1 << (g - lanes[0]) for g in act if y[g])
        expect = {"all": int(all(vals)), "any": int(any(vals)), "ballot0": ballot & 0xFFFFFFFF,
                  "ballot1": ballot >> 32, "all_equal": int(len(set(vals)) == 1)}
        for op, value in expect.items():
            assert (got[op][act] == value).all(), (op, sg, lanes[0])
            assert (got[op][off] == 0).all(), (op, "inactive lanes keep the else value")
        assert got["elect"][act].tolist() == [1] + [0] * (len(act) - 1)


@pytest.mark.parametrize("sg", SIZES)
def test_info(sg):
    ones = np.ones(N, bool)
    for fn in ("size", "max_size", "num", "id", "local_id"):
        got = _vote_kernel(f"subgroup_info.{fn} i32", sg, np.zeros(N), ones)
        lid = np.arange(N) % LOCAL
        want = {"size": np.minimum(sg, LOCAL - lid // sg * sg), "max_size": np.full(N, sg),
                "num": np.full(N, -(-LOCAL // sg)), "id": lid // sg, "local_id": lid % sg}[fn]
        assert (got == want).all(), (fn, sg)


@pytest.mark.parametrize("sg", SIZES)
def test_broadcasts_and_shuffles(sg):
    """All lanes active; every source lane in range (the last sub-group is partial)."""
    lid = np.arange(N) % LOCAL % sg
    size = np.minimum(sg, LOCAL - (np.arange(N) % LOCAL) // sg * sg)
    base = np.arange(N) - lid
    x = _values("i64")
    ones = np.ones(N, bool)
    cases = {
        "broadcast": ((size - 1) // 2 * np.ones(N, int), lambda y: base + y),
        "shuffle": ((lid * 3 + 1) % size, lambda y: base + y),
        "shuffle_xor": (np.ones(N, int), lambda y: base + (lid ^ y)),
        "shuffle_up": (lid % 3, lambda y: base + lid - y),
        "shuffle_down": (np.minimum(2, size - 1 - lid), lambda y: base + lid + y),
    }
    for op, (y, source) in cases.items():
        if op == "broadcast":                  # the lane id must be the same across the sub-group
            y = np.array([(size[b] - 1) // 2 for b in range(N)])
        got = _run(f"subgroup.{op} i64 %x, %y", "i64", "i64", x, y, ones, sg)
        assert (got == x[source(y)]).all(), (op, sg)
    first = _run("subgroup.broadcast_first i64 %x", "i64", "i64", x, np.zeros(N), RNG.integers(0, 2, N) != 0, sg)
    assert first.dtype == np.uint64


def test_broadcast_first_is_lowest_active_lane():
    cond = np.zeros(N, bool)
    cond[[3, 5, 20]] = True
    x = np.arange(N, dtype=np.uint32) + 100
    got = _run("subgroup.broadcast_first i32 %x", "i32", "i32", x, np.zeros(N), cond, 16)
    assert got[3] == got[5] == 103 and got[20] == 120 and got[4] == 104


@pytest.mark.parametrize("source,why", [(1, "inactive"), (40, "outside the sub-group")])
def test_shuffle_from_an_inactive_or_missing_lane_is_an_error(source, why):
    cond = np.ones(N, bool)
    cond[1] = False
    with pytest.raises(InterpreterError, match=rf"instruction \d+ \(subgroup %r\), work-item \(0\): .*{why}"):
        _run("subgroup.shuffle i32 %x, %y", "i32", "i32", np.zeros(N, np.uint32), np.full(N, source), cond, 16)


LOOP = """
kernel @k(ptr1 %out, ptr1 %in, ptr1 %trip) {
  block b0:
    %g = workitem.global_id i64 i32 0
    %o = mul i64 %g, 4
    %px = ptradd ptr1 %in, %o
    %x = load i32 %px, align 4
    %pt = ptradd ptr1 %trip, %o
    %t = load i32 %pt, align 4
  loop {
    block b1:
      %i = phi i32 [b0: 0], [b4: %i1]
      %acc = phi i32 [b0: 0], [b4: %acc1]
      %done = icmp.uge i32 %i, %t
    if %done {
      block b2:
        break
    } else {
      block b3:
    }
    block b4:
      %s = subgroup.reduce i32 %x, arith "add"
      %acc1 = add i32 %acc, %s
      %i1 = add i32 %i, 1
  }
  block b5:
    %po = ptradd ptr1 %out, %o
    store i32 %acc, %po, align 4
}
"""


@pytest.mark.parametrize("sg", SIZES)
def test_reduction_in_a_loop_lanes_leave_at_different_iterations(sg):
    x = RNG.integers(0, 1000, N).astype(np.uint32)
    trip = RNG.integers(0, 6, N).astype(np.uint32)
    out = np.zeros(N, np.uint32)
    run_vector_kernel(parse_module(LOOP).functions["k"], [out, x, trip], N, LOCAL, subgroup_size=sg)
    want = np.zeros(N, np.uint32)
    for lanes in _subgroups(sg):
        for it in range(6):
            act = [g for g in lanes if trip[g] > it]
            total = sum(int(x[g]) for g in act) & 0xFFFFFFFF
            for g in act:
                want[g] = (int(want[g]) + total) & 0xFFFFFFFF
    assert (out == want).all()


def test_old_interpreter_refuses_subgroup_ops():
    from reconverge.lowering.interp import run_kernel
    func = parse_module(LOOP).functions["k"]
    with pytest.raises(InterpreterError, match="needs the lock-step interpreter"):
        run_kernel(func, [np.zeros(N, np.uint32), np.zeros(N, np.uint32), np.ones(N, np.uint32)], N, LOCAL)


def test_run_subgroup_size_flag(tmp_path, capsys):
    """`run --target ir --subgroup-size N` sets S (the reduction's extent); a bad N or another target: usage."""
    from reconverge.tools.cli import main
    path = tmp_path / "k.nir"
    path.write_text(LOOP)
    np.save(tmp_path / "x.npy", np.ones(32, np.int32))
    np.save(tmp_path / "t.npy", np.ones(32, np.int32))
    common = ["run", str(path), "--global", "32", "--local", "32", "--arg", "out=zeros:32:int32",
              "--arg", f"in=@{tmp_path / 'x.npy'}", "--arg", f"trip=@{tmp_path / 't.npy'}"]
    for size in (8, 16, 32):
        assert main([*common, "--target", "ir", "--subgroup-size", str(size), "--out", str(tmp_path / str(size))]) == 0
        assert (np.load(tmp_path / str(size) / "out.npy") == size).all()
    for bad in (["--target", "ir", "--subgroup-size", "12"], ["--target", "gen", "--subgroup-size", "8"]):
        assert main([*common, *bad, "--out", str(tmp_path / "bad")]) == 2
    assert "--subgroup-size" in capsys.readouterr().err


def test_subgroup_barrier_orders_local_memory_within_the_sub_group():
    """Each lane writes its value to __local memory, meets its sub-group at subgroup_barrier, then reads its
    neighbour's (lid ^ 1): lock step makes every write visible."""
    from reconverge.tools.targets.harness import LocalArg
    func = parse_module("""
kernel @k(ptr1 %out, ptr1 %in, ptr3 %tmp) {
  block b0:
    %g = workitem.global_id i64 i32 0
    %l = workitem.local_id i64 i32 0
    %o = mul i64 %g, 4
    %px = ptradd ptr1 %in, %o
    %x = load i32 %px, align 4
    %lo = mul i64 %l, 4
    %pl = ptradd ptr3 %tmp, %lo
    store i32 %x, %pl, align 4
    subgroup_barrier i32 1
    %n = xor i64 %l, 1
    %no = mul i64 %n, 4
    %pn = ptradd ptr3 %tmp, %no
    %y = load i32 %pn, align 4
    %po = ptradd ptr1 %out, %o
    store i32 %y, %po, align 4
}
""").functions["k"]
    x = RNG.integers(0, 1 << 30, 64).astype(np.uint32)
    out = np.zeros(64, np.uint32)
    run_vector_kernel(func, [out, x, LocalArg(32, np.uint32)], 64, 32, subgroup_size=8)
    assert (out == x[np.arange(64) ^ 1]).all()


FRONT_END_KERNEL = """
kernel void k(global int *out, global const int *in, global double *d, global uint *b) {
    int g = get_global_id(0);
    int x = in[g];
    int r = 0;
    if (x % 3 != 0) {
        r = sub_group_reduce_min(x) + sub_group_scan_exclusive_add(x) * 100;
        uint4 bal = sub_group_ballot(x > 10);
        b[g] = bal.x + sub_group_ballot_bit_count(bal) * 1000;
        d[g] = sub_group_reduce_add((double)x * 0.5);
    }
    out[g] = r + sub_group_shuffle_xor(x, 1) * 10000 + get_sub_group_local_id() * 1000000;
}
"""


def test_opencl_subgroup_builtins_through_the_front_end(tmp_path):
    """OpenCL C built-ins (the front end's lowering to the sub-group opcodes) on the ir target, S = 8,
    work-groups of 20 (a partial sub-group of 4), a divergent if: against the Python model."""
    from reconverge.tools.targets.harness import InterpreterOptions, load_program, run_target
    path = tmp_path / "k.cl"
    path.write_text(FRONT_END_KERNEL)
    x = (np.arange(40, dtype=np.int32) * 7) % 23
    args = [np.zeros(40, np.int32), x, np.zeros(40), np.zeros(40, np.uint32)]
    out, _, d, b = run_target("ir", load_program(str(path), "-O2"), "k", args, 40, 20, InterpreterOptions(None, 8))
    want_out, want_d, want_b = np.zeros(40, np.int64), np.zeros(40), np.zeros(40, np.int64)
    for lanes in ([g0 + k + i for i in range(min(8, 20 - k))] for g0 in (0, 20) for k in (0, 8, 16)):
        act = [g for g in lanes if x[g] % 3]
        ballot = sum(1 << (g - lanes[0]) for g in act if x[g] > 10)
        for pos, g in enumerate(act):
            want_out[g] = min(x[a] for a in act) + sum(int(x[a]) for a in act[:pos]) * 100
            want_b[g] = ballot + bin(ballot).count("1") * 1000
            want_d[g] = sum(x[a] * 0.5 for a in act)
        for lid, g in enumerate(lanes):
            want_out[g] += x[lanes[0] + (lid ^ 1)] * 10000 + lid * 1000000
    assert (out == want_out).all() and (d == want_d).all() and (b == want_b).all()
