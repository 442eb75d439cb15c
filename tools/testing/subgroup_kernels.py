"""Sub-group test kernels as IR text, with numpy models of what they compute (tests/spirv/test_spirv_subgroups.py).

`every_op_kernel(T)` applies every sub-group operation the IR has for element type T to x[gid] (and, for
floats, fmin/fmax to y[gid], which holds NaNs) and stores each result at out[k * N + gid] (k: the operation's
index in `every_op_list(T)`); `expected_every_op` computes the same from the lock-step rule, all lanes active.
`divergent_kernel` has a reduction, a scan, a ballot and an elect under an if, and a reduction and a ballot
in a loop whose lanes leave at different iterations; `expected_divergent` models which lanes are active.
The models know only OpenCL's sub-groups: sub-group k of a work-group is local ids [k*S, (k+1)*S).
"""
from __future__ import annotations

import numpy as np

INT_ARITH = ("add", "mul", "smin", "smax", "umin", "umax", "and", "or", "xor")
FLOAT_ARITH = ("fadd", "fmul", "fmin", "fmax")
SCANS = ("reduce", "inclusive_scan", "exclusive_scan")
BOOL_ARITH = ("and", "or", "xor", "add", "mul", "umin", "umax", "smin", "smax")
DTYPES = {"i8": np.int8, "i16": np.int16, "i32": np.int32, "i64": np.int64,
          "f16": np.float16, "f32": np.float32, "f64": np.float64}
INFO = ("size", "max_size", "num", "id", "local_id")


def every_op_list(t: str) -> list[tuple[str, str]]:
    """(operation, where it is stored: 'out' of type t or 'outi' of i32) for the kernel of element type t."""
    ops: list[tuple[str, str]] = []
    arith = FLOAT_ARITH if t.startswith("f") else INT_ARITH
    ops += [(f"{scan} {a}", "out") for scan in SCANS for a in arith]
    if t.startswith("f"):
        ops += [(f"{scan} {a} y", "out") for scan in SCANS for a in ("fmin", "fmax")]
    ops += [(f"cluster4 {a}", "out") for a in arith] + [("cluster2 " + arith[0], "out")]
    if t.startswith("f"):
        ops += [("cluster4 fmin y", "out"), ("cluster4 fmax y", "out")]
    ops += [("broadcast 2", "out"), ("broadcast id%3", "out"), ("broadcast_first", "out"), ("shuffle l+1", "out"),
            ("shuffle_xor 1", "out"), ("shuffle_up 1", "out"), ("shuffle_down 1", "out"), ("all_equal", "outi"),
            ("all_equal half", "outi")]
    if t == "i32":
        ops += [(f"info {fn}", "outi") for fn in INFO]
        ops += [(f"bool {scan} {a}", "outi") for scan in SCANS for a in BOOL_ARITH]
        ops += [("bool all", "outi"), ("bool any", "outi"), ("bool all_equal", "outi"), ("bool ballot 0", "outi"),
                ("bool ballot 1", "outi"), ("bool elect", "outi"), ("bool broadcast 1", "outi"),
                ("bool shuffle_xor 1", "outi")]
    return ops


def _bytes(t: str) -> int:
    return int(t[1:]) // 8


def every_op_kernel(t: str, n: int) -> str:
    """IR text of kernel @every_<t>(x, y, out, outi) for n work-items in all."""
    b = _bytes(t)
    lines = [f"kernel @every_{t}(ptr1 %x, ptr1 %y, ptr1 %out, ptr1 %outi) {{", "  block b0:",
             "    %g = workitem.global_id i64 i32 0",
             f"    %xo = mul i64 %g, {b}", "    %xp = ptradd ptr1 %x, %xo", f"    %v = load {t} %xp, align {b}",
             "    %yp = ptradd ptr1 %y, %xo", f"    %w = load {t} %yp, align {b}",
             "    %l = subgroup_info.local_id i32", "    %sz = subgroup_info.size i32",
             "    %id = subgroup_info.id i32",
             "    %l1 = add i32 %l, 1", "    %next = urem i32 %l1, %sz", "    %idm = urem i32 %id, 3",
             "    %half = lshr i32 %l, 2"]
    if t.startswith("f"):
        lines += [f"    %hv = uitofp {t} %half"]
    else:
        lines += [f"    %hv = {'trunc' if b < 4 else 'zext' if b > 4 else 'add'} {t} %half" + (", 0" if b == 4 else "")]
    lines += ["    %vi = bitcast i" + str(8 * b) + " %v" if t.startswith("f") else "    %vi = add " + t + " %v, 0",
              f"    %odd = and i{8 * b} %vi, 1", f"    %c = icmp.ne i{8 * b} %odd, 0"]
    for k, (op, dest) in enumerate(every_op_list(t)):
        words = op.split()
        r = f"%r{k}"
        if words[0] in SCANS:
            src = "%w" if len(words) == 3 else "%v"
            lines.append(f"    {r} = subgroup.{words[0]} {t} {src}, arith \"{words[1]}\"")
        elif words[0].startswith("cluster"):
            src = "%w" if len(words) == 3 else "%v"
            lines.append(f"    {r} = subgroup.reduce {t} {src}, arith \"{words[1]}\", cluster {words[0][7:]}")
        elif words[0] == "broadcast":
            lane = "i32 2" if words[1] == "2" else "%idm"
            lines.append(f"    {r} = subgroup.broadcast {t} %v, {lane}")
        elif words[0] == "broadcast_first":
            lines.append(f"    {r} = subgroup.broadcast_first {t} %v")
        elif words[0] == "shuffle":
            lines.append(f"    {r} = subgroup.shuffle {t} %v, %next")
        elif words[0] == "shuffle_xor":
            lines.append(f"    {r} = subgroup.shuffle_xor {t} %v, i32 {words[1]}")
        elif words[0] in ("shuffle_up", "shuffle_down"):   # delta 0 where 1 would leave the sub-group
            lines.append(f"    {r}c = icmp.{'uge' if words[0] == 'shuffle_up' else 'ult'} i32 "
                         f"{'%l, 1' if words[0] == 'shuffle_up' else '%l1, %sz'}")
            lines.append(f"    {r}d = zext i32 {r}c")
            lines.append(f"    {r} = subgroup.{words[0]} {t} %v, {r}d")
        elif words[0] == "all_equal":
            lines.append(f"    {r}b = subgroup.all_equal i1 {'%hv' if len(words) == 2 else '%v'}")
            lines.append(f"    {r} = zext i32 {r}b")
        elif words[0] == "info":
            lines.append(f"    {r} = subgroup_info.{words[1]} i32")
        elif words[0] == "bool":
            if words[1] in SCANS:
                lines.append(f"    {r}b = subgroup.{words[1]} i1 %c, arith \"{words[2]}\"")
            elif words[1] in ("all", "any", "all_equal"):
                lines.append(f"    {r}b = subgroup.{words[1]} i1 %c")
            elif words[1] == "ballot":
                lines.append(f"    {r} = subgroup.ballot i32 %c, word {words[2]}")
            elif words[1] == "elect":
                lines.append(f"    {r}b = subgroup.elect i1")
            elif words[1] == "broadcast":
                lines.append(f"    {r}b = subgroup.broadcast i1 %c, i32 {words[2]}")
            else:
                lines.append(f"    {r}b = subgroup.{words[1]} i1 %c, i32 {words[2]}")
            if words[1] != "ballot":
                lines.append(f"    {r} = zext i32 {r}b")
        size, ty = (b, t) if dest == "out" else (4, "i32")
        lines += [f"    %o{k} = add i64 %g, {k * n}", f"    %ob{k} = mul i64 %o{k}, {size}",
                  f"    %op{k} = ptradd ptr1 %{dest}, %ob{k}", f"    store {ty} {r}, %op{k}, align {size}"]
    lines += ["    ret", "}", ""]
    return "\n".join(lines)


def inputs(t: str, n: int, seed: int = 0, wide: bool = False) -> tuple[np.ndarray, np.ndarray]:
    """x: small values whose sums and products are exact in t; y (floats): x with NaNs, one sub-group all NaN.
    `wide` (sub-groups of up to 64 lanes): floats are +-1 with a few 2s and 0.5s, so that no product of a
    sub-group's values overflows a half in any order."""
    rng = np.random.default_rng(seed)
    dtype = DTYPES[t]
    if t.startswith("f"):
        if wide:
            x = rng.choice([-1.0, 1.0], n).astype(dtype)
            x[::9], x[4::9] = 2, 0.5
        else:
            x = rng.integers(-2, 3, n).astype(dtype)
        y = x.copy()
        y[rng.random(n) < 0.3] = np.nan
        y[8:16] = np.nan
        return x, y
    info = np.iinfo(np.dtype(dtype).type(0))
    x = rng.integers(info.min, info.max, n, dtype=dtype, endpoint=True)
    x[::7] = 3       # repeated values make all_equal and min/max ties possible
    return x, np.zeros(n, dtype)


def _identity(a: str, dtype) -> object:
    if a in ("add", "or", "xor", "fadd", "umax"):
        return 0
    if a in ("mul", "fmul"):
        return 1
    if a in ("and", "umin"):
        return -1 if np.dtype(dtype).kind == "i" else np.iinfo(dtype).max
    if a == "smin":
        return np.iinfo(dtype).max
    if a == "smax":
        return np.iinfo(dtype).min
    return np.inf if a == "fmin" else -np.inf


def _fold(a: str, values: np.ndarray) -> np.ndarray:
    """Inclusive scan of `values` (one sub-group's active lanes, in lane order) under operation a."""
    if a in ("umin", "umax"):
        unsigned = values.view(np.dtype(values.dtype.str.replace("i", "u")))
        return (np.minimum if a == "umin" else np.maximum).accumulate(unsigned).view(values.dtype)
    ufunc = {"add": np.add, "mul": np.multiply, "smin": np.minimum, "smax": np.maximum, "and": np.bitwise_and,
             "or": np.bitwise_or, "xor": np.bitwise_xor, "fadd": np.add, "fmul": np.multiply, "fmin": np.fmin,
             "fmax": np.fmax}[a]
    if values.dtype == bool:
        ufunc = {"and": np.logical_and, "mul": np.logical_and, "umin": np.logical_and, "smax": np.logical_and,
                 "or": np.logical_or, "umax": np.logical_or, "smin": np.logical_or, "xor": np.logical_xor,
                 "add": np.logical_xor}[a]
    with np.errstate(over="ignore"):
        return ufunc.accumulate(values, dtype=values.dtype)


def scan(kind: str, a: str, values: np.ndarray) -> np.ndarray:
    """reduce / inclusive_scan / exclusive_scan over one sub-group's active lanes."""
    inclusive = _fold(a, values)
    if kind == "reduce":
        return np.full_like(values, inclusive[-1])
    if kind == "inclusive_scan":
        return inclusive
    first = np.array([_identity(a, values.dtype)]).astype(values.dtype) if values.dtype != bool else \
        np.array([a in ("and", "mul", "umin", "smax")])
    return np.concatenate([first, inclusive[:-1]])


def clustered(a: str, values: np.ndarray, cluster: int, active: np.ndarray | None = None) -> np.ndarray:
    """A clustered reduce over one sub-group: each aligned cluster of lanes reduces over its active lanes."""
    active = np.ones(len(values), bool) if active is None else active
    out = np.zeros_like(values)
    for start in range(0, len(values), cluster):
        mine = np.arange(start, min(start + cluster, len(values)))
        mine = mine[active[mine]]
        if mine.size:
            out[mine] = scan("reduce", a, values[mine])[0]
    return out


def subgroups(n: int, local: int, width: int):
    """(work-group start, sub-group lanes as a slice of the global ids) in order."""
    for start in range(0, n, local):
        for k in range(0, local, width):
            yield slice(start + k, start + min(k + width, local)), k // width, -(-local // width)


def expected_every_op(t: str, x: np.ndarray, y: np.ndarray, local: int, width: int) -> dict[str, np.ndarray]:
    """{op: expected values} for every_op_kernel(t) over len(x) work-items."""
    n = len(x)
    out = {}
    for op, _ in every_op_list(t):
        words = op.split()
        result = np.zeros(n, np.int64 if words[0] in ("info", "bool", "all_equal") else x.dtype)
        for lanes, k, count in subgroups(n, local, width):
            v, w = x[lanes], y[lanes]
            size = len(v)
            c = (v.view(f"u{v.dtype.itemsize}") & 1) != 0
            lane = np.arange(size)
            if words[0] in SCANS:
                result[lanes] = scan(words[0], words[1], w if len(words) == 3 else v)
            elif words[0].startswith("cluster"):
                result[lanes] = clustered(words[1], w if len(words) == 3 else v, int(words[0][7:]))
            elif words[0] == "broadcast":
                result[lanes] = v[2 if words[1] == "2" else k % 3]
            elif words[0] == "broadcast_first":
                result[lanes] = v[0]
            elif words[0] == "shuffle":
                result[lanes] = v[(lane + 1) % size]
            elif words[0] == "shuffle_xor":
                result[lanes] = v[lane ^ 1]
            elif words[0] == "shuffle_up":
                result[lanes] = np.where(lane >= 1, v[np.maximum(lane - 1, 0)], v)
            elif words[0] == "shuffle_down":
                result[lanes] = np.where(lane + 1 < size, v[np.minimum(lane + 1, size - 1)], v)
            elif words[0] == "all_equal":
                vals = lane >> 2 if len(words) == 2 else v
                result[lanes] = np.all(vals == vals[0])
            elif words[0] == "info":
                result[lanes] = {"size": size, "max_size": width, "num": count, "id": k, "local_id": lane}[words[1]]
            elif words[1] in SCANS:
                result[lanes] = scan(words[1], words[2], c)
            elif words[1] in ("all", "any"):
                result[lanes] = c.all() if words[1] == "all" else c.any()
            elif words[1] == "all_equal":
                result[lanes] = np.all(c == c[0])
            elif words[1] == "ballot":
                word = int(words[2])
                bits = sum(1 << i for i in range(size) if c[i] and 32 * word <= i < 32 * word + 32)
                result[lanes] = bits >> (32 * word)
            elif words[1] == "elect":
                result[lanes] = lane == 0
            elif words[1] == "broadcast":
                result[lanes] = c[int(words[2])]
            else:
                result[lanes] = c[lane ^ 1]
        out[op] = result
    return out


def expected_buffers(t: str, x: np.ndarray, y: np.ndarray, local: int, width: int) -> dict[int, np.ndarray]:
    """every_op_kernel(t)'s out (binding 2) and outi (binding 3) as the kernel leaves them."""
    n = len(x)
    ops = every_op_list(t)
    want = expected_every_op(t, x, y, local, width)
    out, outi = np.zeros(len(ops) * n, x.dtype), np.zeros(len(ops) * n, np.int32)
    for k, (op, dest) in enumerate(ops):
        (out if dest == "out" else outi)[k * n:(k + 1) * n] = want[op].astype(out.dtype if dest == "out" else np.int32)
    return {2: out, 3: outi}


DIVERGENT = """kernel @divergent(ptr1 %x, ptr1 %out) {
  block b0:
    %g = workitem.global_id i64 i32 0
    %xo = mul i64 %g, 4
    %xp = ptradd ptr1 %x, %xo
    %v = load i32 %xp, align 4
    %m3 = urem i32 %v, 3
    %c = icmp.ne i32 %m3, 0
    %odd = and i32 %v, 1
    %co = icmp.ne i32 %odd, 0
    %n = urem i32 %v, 5
  if %c {
    block b1:
      %r1 = subgroup.reduce i32 %v, arith "add"
      %s1 = subgroup.inclusive_scan i32 %v, arith "add"
      %bl = subgroup.ballot i32 %co, word 0
      %el = subgroup.elect i1
      %e1 = zext i32 %el
      %c1 = subgroup.reduce i32 %v, arith "add", cluster 4
  } else {
    block b2:
      %v2 = mul i32 %v, 2
      %r2 = subgroup.reduce i32 %v2, arith "add"
      %s2 = subgroup.exclusive_scan i32 %v, arith "umax"
      %bl2 = subgroup.ballot i32 %co, word 0
      %e2 = zext i32 %co
      %c2 = subgroup.reduce i32 %v, arith "umax", cluster 2
  }
  block b3:
    %r = phi i32 [b1: %r1], [b2: %r2]
    %s = phi i32 [b1: %s1], [b2: %s2]
    %b = phi i32 [b1: %bl], [b2: %bl2]
    %e = phi i32 [b1: %e1], [b2: %e2]
    %cl = phi i32 [b1: %c1], [b2: %c2]
  loop {
    block b4:
      %i = phi i32 [b3: 0], [b7: %i1]
      %acc = phi i32 [b3: 0], [b7: %acc1]
      %seen = phi i32 [b3: 0], [b7: %seen1]
      %done = icmp.uge i32 %i, %n
    if %done {
      block b5:
        break
    } else {
      block b6:
    }
    block b7:
      %iv = add i32 %i, %v
      %red = subgroup.reduce i32 %iv, arith "add"
      %acc1 = add i32 %acc, %red
      %all = subgroup.ballot i32 i1 true, word 0
      %sh = shl i32 %seen, 8
      %seen1 = or i32 %sh, %all
      %i1 = add i32 %i, 1
  }
  block b8:
    %o0 = add i64 %g, 0
    %ob0 = mul i64 %o0, 4
    %op0 = ptradd ptr1 %out, %ob0
    store i32 %r, %op0, align 4
    %o1 = add i64 %g, {n}
    %ob1 = mul i64 %o1, 4
    %op1 = ptradd ptr1 %out, %ob1
    store i32 %s, %op1, align 4
    %o2 = add i64 %g, {n2}
    %ob2 = mul i64 %o2, 4
    %op2 = ptradd ptr1 %out, %ob2
    store i32 %b, %op2, align 4
    %o3 = add i64 %g, {n3}
    %ob3 = mul i64 %o3, 4
    %op3 = ptradd ptr1 %out, %ob3
    store i32 %e, %op3, align 4
    %o4 = add i64 %g, {n4}
    %ob4 = mul i64 %o4, 4
    %op4 = ptradd ptr1 %out, %ob4
    store i32 %acc, %op4, align 4
    %o5 = add i64 %g, {n5}
    %ob5 = mul i64 %o5, 4
    %op5 = ptradd ptr1 %out, %ob5
    store i32 %seen, %op5, align 4
    %o6 = add i64 %g, {n6}
    %ob6 = mul i64 %o6, 4
    %op6 = ptradd ptr1 %out, %ob6
    store i32 %cl, %op6, align 4
}
"""


def divergent_kernel(n: int) -> str:
    return DIVERGENT.replace("{n}", str(n)).replace("{n2}", str(2 * n)).replace("{n3}", str(3 * n)) \
        .replace("{n4}", str(4 * n)).replace("{n5}", str(5 * n)).replace("{n6}", str(6 * n))


DIVERGENT_ROWS = 7


def expected_divergent(x: np.ndarray, local: int, width: int) -> np.ndarray:
    """out (DIVERGENT_ROWS * len(x) u32) of divergent_kernel: the if's arms run under complementary masks, the
    loop until no lane of the sub-group is active (lock step)."""
    n = len(x)
    out = np.zeros((DIVERGENT_ROWS, n), np.uint32)
    u = x.astype(np.uint32)
    for lanes, _, _ in subgroups(n, local, width):
        v = u[lanes]
        idx = np.arange(lanes.start, lanes.stop)
        c, co, trips = v % 3 != 0, (v & 1) != 0, v % 5
        lane = np.arange(len(v))
        for arm, value in ((c, v), (~c, v * 2)):
            if not arm.any():
                continue
            act = idx[arm]
            out[0, act] = value[arm].sum(dtype=np.uint32)
            out[2, act] = sum(1 << int(i) for i in lane[arm & co] if i < 32)
        out[1, idx[c]] = np.cumsum(v[c], dtype=np.uint32)
        if (~c).any():
            out[1, idx[~c]] = np.concatenate([[0], np.maximum.accumulate(v[~c])[:-1]])
        out[3, idx[c]] = lane[c] == lane[c][0] if c.any() else []
        out[3, idx[~c]] = co[~c]
        acc = np.zeros(len(v), np.uint32)
        seen = np.zeros(len(v), np.uint32)
        for i in range(int(trips.max(initial=0))):
            active = trips > i
            acc[active] += (v[active] + np.uint32(i)).sum(dtype=np.uint32)
            mask = sum(1 << int(j) for j in lane[active] if j < 32)
            seen[active] = (seen[active] << np.uint32(8)) | np.uint32(mask)
        out[4, idx], out[5, idx] = acc, seen
        out[6, idx] = np.where(c, clustered("add", v, 4, c), clustered("umax", v, 2, ~c))
    return out.reshape(-1)


# Each work-item of a (5, Y) work-group writes its sub-group id * 100 + its sub-group local id at its linear id.
LAYOUT = """kernel @layout(ptr1 %out) {
  block b0:
    %x = workitem.local_id i64 i32 0
    %y = workitem.local_id i64 i32 1
    %row = mul i64 %y, 5
    %i = add i64 %row, %x
    %l = subgroup_info.local_id i32
    %id = subgroup_info.id i32
    %a = mul i32 %id, 100
    %t = add i32 %a, %l
    %o = mul i64 %i, 4
    %p = ptradd ptr1 %out, %o
    store i32 %t, %p, align 4
}
"""


def expected_layout(n: int, width: int) -> np.ndarray:
    linear = np.arange(n, dtype=np.int32)
    return linear // width * 100 + linear % width
