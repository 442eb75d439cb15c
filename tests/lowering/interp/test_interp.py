"""The interpreter's control flow (CFG and structured forms), memory model and NDRange, on hand-built IR.

Over 600 lines: each hand-built kernel sits next to its assertions in both forms; to be split by topic
when the interpreter's tests move to tests/lowering/interp/.

Most kernels are built twice, once per form, and must give the same buffers and the same block traces.
Opcode semantics are checked in test_interp_ops.py, against the CPU JIT in test_interp_jit.py.
"""
from __future__ import annotations

import numpy as np
import pytest

from reconverge.lowering.interp import InterpreterError, run_kernel
from reconverge.lowering.ir import F32, I1, I8, I32, I64, Arg, Block, Const, Function, If, Instr, Loop, Phi, ptr


class B:
    """A tiny builder: appends named instructions to a block."""

    def __init__(self, block: Block):
        self.block = block

    def __call__(self, opcode, operands, type=None, name="", **attrs):
        from reconverge.lowering.ir import VOID
        return self.block.append(Instr(opcode, operands, type or VOID, attrs, name=name))

    def gid(self, dim=0, fn="global_id"):
        return self("workitem", [Const(I32, dim)], I64, fn=fn)

    def elem(self, base, index, size=4):
        off = self("mul", [index, Const(I64, size)], I64)
        return self("ptradd", [base, off], ptr(1))

    def br(self, target):
        return self.block.append(Instr("br", [], targets=[target]))

    def cbr(self, cond, yes, no):
        return self.block.append(Instr("cbr", [cond], targets=[yes, no]))


def i32(v):
    return Const(I32, v)


def i64(v):
    return Const(I64, v)


def cfg_function(name, args, blocks):
    f = Function(name, args)
    f.blocks = blocks
    f.update_cfg()
    return f


def tree_function(name, args, body):
    f = Function(name, args)
    for node in body:
        f.add(node)
    f.is_structured = True
    f.update_cfg()
    return f


def labels(trace):
    return [b.label for b in trace]


# ----- a counted loop: out[gid] = sum(0..gid), in both forms -----

def sum_loop_cfg():
    out = Arg(ptr(1), 0, "out")
    entry, loop, exit_ = Block("entry"), Block("loop"), Block("exit")
    b = B(entry)
    gid = b.gid()
    b.br(loop)
    b = B(loop)
    i = b.block.append(Phi(I64, name="i"))
    s = b.block.append(Phi(I64, name="s"))
    s2 = b("add", [s, i], I64, "s2")
    i2 = b("add", [i, i64(1)], I64, "i2")
    c = b("icmp", [i2, gid], I1, "c", pred="sle")
    b.cbr(c, loop, exit_)
    i.add_incoming(entry, i64(0))
    i.add_incoming(loop, i2)
    s.add_incoming(entry, i64(0))
    s.add_incoming(loop, s2)
    b = B(exit_)
    b("store", [b("trunc", [s2], I32), b.elem(out, gid)])
    b("ret", [])
    return cfg_function("sum_loop", [out], [entry, loop, exit_])


def sum_loop_tree():
    out = Arg(ptr(1), 0, "out")
    entry, head, cont, brk, after_if, exit_ = (Block(n) for n in ("entry", "loop", "cont", "brk", "after_if", "exit"))
    b = B(entry)
    gid = b.gid()
    b = B(head)
    i = head.append(Phi(I64, name="i"))
    s = head.append(Phi(I64, name="s"))
    s2 = b("add", [s, i], I64, "s2")
    i2 = b("add", [i, i64(1)], I64, "i2")
    c = b("icmp", [i2, gid], I1, "c", pred="sle")
    B(cont)("continue", [])
    B(brk)("break", [])
    i.add_incoming(entry, i64(0))
    i.add_incoming(cont, i2)
    s.add_incoming(entry, i64(0))
    s.add_incoming(cont, s2)
    b = B(exit_)
    b("store", [b("trunc", [s2], I32), b.elem(out, gid)])
    b("return", [])
    loop = Loop([head, If(c, [cont], [brk]), after_if])
    return tree_function("sum_loop", [out], [entry, loop, exit_])


@pytest.mark.parametrize("make", [sum_loop_cfg, sum_loop_tree], ids=["cfg", "tree"])
def test_counted_loop(make):
    out = np.full(10, -1, np.int32)
    run_kernel(make(), [out], 10, 5)
    np.testing.assert_array_equal(out, [n * (n + 1) // 2 for n in range(10)])


def test_forms_give_the_same_block_trace():
    traces = []
    for make in (sum_loop_cfg, sum_loop_tree):
        trace = []
        run_kernel(make(), [np.zeros(3, np.int32)], 3, 3, on_block=trace.append)
        traces.append([label for label in labels(trace) if label in ("entry", "loop", "exit")])
    assert traces[0] == traces[1] == ["entry", "loop", "exit", "entry", "loop", "loop", "exit",
                                      "entry", "loop", "loop", "loop", "exit"]


def test_tree_trace_shows_the_jump_blocks():
    trace = []
    run_kernel(sum_loop_tree(), [np.zeros(2, np.int32)], 2, 1, on_block=trace.append)
    assert labels(trace) == ["entry", "loop", "brk", "exit", "entry", "loop", "cont", "loop", "brk", "exit"]


# ----- phis are parallel copies -----

def swap_loop_cfg():
    """(a, b) = (1, 2); repeat gid times: (a, b) = (b, a); out[gid] = 10*a + b."""
    out = Arg(ptr(1), 0, "out")
    entry, loop, exit_ = Block("entry"), Block("loop"), Block("exit")
    b = B(entry)
    gid = b.gid()
    b.br(loop)
    b = B(loop)
    a = loop.append(Phi(I32, name="a"))
    bb = loop.append(Phi(I32, name="b"))
    n = loop.append(Phi(I64, name="n"))
    n2 = b("add", [n, i64(1)], I64)
    c = b("icmp", [n, gid], I1, pred="ult")
    b.cbr(c, loop, exit_)
    a.add_incoming(entry, i32(1))
    a.add_incoming(loop, bb)        # reads the *old* b
    bb.add_incoming(entry, i32(2))
    bb.add_incoming(loop, a)        # reads the *old* a
    n.add_incoming(entry, i64(0))
    n.add_incoming(loop, n2)
    b = B(exit_)
    r = b("add", [b("mul", [a, i32(10)], I32), bb], I32)
    b("store", [r, b.elem(out, gid)])
    b("ret", [])
    return cfg_function("swap", [out], [entry, loop, exit_])


def test_phis_are_evaluated_as_parallel_copies():
    out = np.zeros(4, np.int32)
    run_kernel(swap_loop_cfg(), [out], 4, 4)
    assert out.tolist() == [12, 21, 12, 21]      # sequential copies would give 22


# ----- if/else with a phi after it: the phi reads the branch that ran -----

def if_else_tree():
    """out[gid] = gid odd ? gid * 3 : gid + 100, via a phi after the if."""
    out = Arg(ptr(1), 0, "out")
    entry, then_b, else_b, merge = Block("entry"), Block("then"), Block("else"), Block("merge")
    b = B(entry)
    gid = b.gid()
    odd = b("trunc", [gid], I1)
    t = B(then_b)("mul", [gid, i64(3)], I64)
    e = B(else_b)("add", [gid, i64(100)], I64)
    phi = merge.append(Phi(I64, [(then_b, t), (else_b, e)], "v"))
    b = B(merge)
    b("store", [b("trunc", [phi], I32), b.elem(out, gid)])
    return tree_function("if_else", [out], [entry, If(odd, [then_b], [else_b]), merge])


def if_else_cfg():
    out = Arg(ptr(1), 0, "out")
    entry, then_b, else_b, merge = Block("entry"), Block("then"), Block("else"), Block("merge")
    b = B(entry)
    gid = b.gid()
    odd = b("trunc", [gid], I1)
    b.cbr(odd, then_b, else_b)
    t = B(then_b)("mul", [gid, i64(3)], I64)
    B(then_b).br(merge)
    e = B(else_b)("add", [gid, i64(100)], I64)
    B(else_b).br(merge)
    phi = merge.append(Phi(I64, [(then_b, t), (else_b, e)], "v"))
    b = B(merge)
    b("store", [b("trunc", [phi], I32), b.elem(out, gid)])
    b("ret", [])
    return cfg_function("if_else", [out], [entry, then_b, else_b, merge])


@pytest.mark.parametrize("make", [if_else_cfg, if_else_tree], ids=["cfg", "tree"])
def test_if_else_phi(make):
    out = np.zeros(6, np.int32)
    run_kernel(make(), [out], 6, 2)
    assert out.tolist() == [100, 3, 102, 9, 104, 15]


# ----- return from inside nested loops (structured) -----

def nested_return_tree():
    """for i: for j: if i*j == gid: out[gid] = 100*i + j; return;  (then out[gid] = -1)"""
    out = Arg(ptr(1), 0, "out")
    entry = Block("entry")
    b = B(entry)
    gid = b.gid()
    oh, ih, ret_b, no_b, after_if, inner_exit_if, inc_i, brk_outer, after2 = (
        Block(n) for n in ("outer", "inner", "ret", "noret", "after_if", "ie", "inc_i", "brk_outer", "after2"))
    i = oh.append(Phi(I64, name="i"))
    b = B(oh)
    j = ih.append(Phi(I64, name="j"))
    b = B(ih)
    p = b("mul", [i, j], I64)
    hit = b("icmp", [p, gid], I1, pred="eq")
    b = B(ret_b)
    v = b("add", [b("mul", [i, i64(100)], I64), j], I64)
    b("store", [b("trunc", [v], I32), b.elem(out, gid)])
    b("return", [])
    b = B(no_b)
    j2 = b("add", [j, i64(1)], I64)
    more_j = b("icmp", [j2, i64(4)], I1, pred="ult")
    c_j, x_j = Block("cont_j"), Block("exit_j")
    B(c_j)("continue", [])
    B(x_j)("break", [])
    j.add_incoming(oh, i64(0))
    j.add_incoming(c_j, j2)
    inner = Loop([ih, If(hit, [ret_b], [no_b, If(more_j, [c_j], [x_j]), after_if]), inner_exit_if])
    b = B(inc_i)
    i2 = b("add", [i, i64(1)], I64)
    more_i = b("icmp", [i2, i64(4)], I1, pred="ult")
    c_i, x_i = Block("cont_i"), Block("exit_i")
    B(c_i)("continue", [])
    B(x_i)("break", [])
    i.add_incoming(entry, i64(0))
    i.add_incoming(c_i, i2)
    outer = Loop([oh, inner, inc_i, If(more_i, [c_i], [x_i]), after2])
    tail = Block("tail")
    b = B(tail)
    b("store", [i32(-1), b.elem(out, gid)])
    return tree_function("nested_return", [out], [entry, outer, tail])


def test_return_from_nested_loops():
    out = np.zeros(12, np.int32)
    run_kernel(nested_return_tree(), [out], 12, 4)
    want = []
    for g in range(12):
        found = next((100 * i + j for i in range(4) for j in range(4) if i * j == g), -1)
        want.append(found)
    assert out.tolist() == want


# ----- switch -----

def switch_cfg():
    """out[gid] = {-1: 10, 2: 20, 5: 20 (shared target)}.get(in[gid], 99)"""
    inp, out = Arg(ptr(1), 0, "in"), Arg(ptr(1), 1, "out")
    entry, ten, twenty, dflt, merge = (Block(n) for n in ("entry", "ten", "twenty", "default", "merge"))
    b = B(entry)
    gid = b.gid()
    x = b("load", [b.elem(inp, gid)], I32)
    entry.append(Instr("switch", [x], attrs={"cases": [-1, 2, 5]}, targets=[dflt, ten, twenty, twenty]))
    for blk in (ten, twenty, dflt):
        B(blk).br(merge)
    phi = merge.append(Phi(I32, [(ten, i32(10)), (twenty, i32(20)), (dflt, i32(99))]))
    b = B(merge)
    b("store", [phi, b.elem(out, gid)])
    b("ret", [])
    return cfg_function("switch", [inp, out], [entry, ten, twenty, dflt, merge])


def test_switch_with_negative_and_shared_cases():
    inp = np.array([-1, 2, 5, 0, 3, 0x7FFFFFFF], np.int32)
    out = np.zeros(6, np.int32)
    run_kernel(switch_cfg(), [inp, out], 6, 6)
    assert out.tolist() == [10, 20, 20, 99, 99, 99]


# ----- errors -----

def test_unreachable_is_an_error():
    entry = Block("entry")
    entry.append(Instr("unreachable", []))
    f = cfg_function("dead", [], [entry])
    with pytest.raises(InterpreterError, match="unreachable"):
        run_kernel(f, [], 1, 1)


def infinite_cfg():
    entry, loop = Block("entry"), Block("spin")
    B(entry).br(loop)
    B(loop).br(loop)
    return cfg_function("spin", [], [entry, loop])


def infinite_tree():
    body = Block("spin")
    return tree_function("spin", [], [Block("entry"), Loop([body]), Block("exit")])


@pytest.mark.parametrize("make", [infinite_cfg, infinite_tree], ids=["cfg", "tree"])
def test_step_limit_stops_endless_loops(make):
    with pytest.raises(InterpreterError, match="step limit of 10000 per work-item exceeded"):
        run_kernel(make(), [], 1, 1, max_steps=10_000)


def test_step_limit_counts_instructions_per_work_item():
    # the longest item (gid 49): entry 2 + 50 loop iterations of 6 + exit 5 = 307 steps
    for lockstep in (False, True):
        run_kernel(sum_loop_cfg(), [np.zeros(50, np.int32)], 50, 10, max_steps=307, lockstep=lockstep)
        with pytest.raises(InterpreterError, match=r"work-item \(49\): step limit of 306 "):
            run_kernel(sum_loop_cfg(), [np.zeros(50, np.int32)], 50, 10, max_steps=306, lockstep=lockstep)


def test_use_before_definition_is_reported():
    out = Arg(ptr(1), 0, "out")
    entry, late = Block("entry"), Block("late")
    b = B(late)
    v = b("add", [i32(1), i32(2)], I32, "v")
    b("ret", [])
    b = B(entry)
    b("store", [v, out])
    b.br(late)
    f = cfg_function("bad", [out], [entry, late])
    with pytest.raises(InterpreterError, match=r"block b0 \(entry\), instruction 0 \(store\).*uses %v before"):
        run_kernel(f, [np.zeros(1, np.int32)], 1, 1)


def test_phi_without_incoming_for_the_taken_edge():
    entry, other, merge = Block("entry"), Block("other"), Block("merge")
    B(entry).br(merge)
    B(other).br(merge)
    merge.append(Phi(I32, [(other, i32(1))], "p"))
    B(merge)("ret", [])
    f = cfg_function("bad_phi", [], [entry, other, merge])
    with pytest.raises(InterpreterError, match=r"\(phi %p\).*no incoming value for b0 \(entry\)"):
        run_kernel(f, [], 1, 1)


def test_wrong_argument_count_and_bad_arrays():
    f = sum_loop_cfg()
    with pytest.raises(InterpreterError, match="takes 1 arguments, 2 given"):
        run_kernel(f, [np.zeros(4, np.int32), np.int32(1)], 4, 1)
    with pytest.raises(InterpreterError, match="not C-contiguous"):
        run_kernel(f, [np.zeros(8, np.int32)[::2]], 4, 1)
    with pytest.raises(InterpreterError, match="does not divide"):
        run_kernel(f, [np.zeros(4, np.int32)], 4, 3)


# ----- the NDRange -----

WI_FNS = ["global_id", "local_id", "group_id", "global_size", "local_size", "num_groups", "global_offset"]


def workitem_dump():
    """out[linear global id][fn][dim] = fn(dim) for dims 0..3 (3 is out of range), plus work_dim."""
    out = Arg(ptr(1), 0, "out")
    entry = Block("entry")
    b = B(entry)
    g = [b.gid(d) for d in range(3)]
    o = [b.gid(d, "global_offset") for d in range(3)]
    s = [b.gid(d, "global_size") for d in range(3)]
    lin = b("add", [b("mul", [b("add", [b("mul", [b("sub", [g[2], o[2]], I64), s[1]], I64),
                                        b("sub", [g[1], o[1]], I64)], I64), s[0]], I64),
                    b("sub", [g[0], o[0]], I64)], I64)
    row = b("mul", [lin, i64(len(WI_FNS) * 4 + 1)], I64)
    k = 0
    for fn in WI_FNS:
        for d in range(4):
            v = b.gid(d, fn)
            b("store", [v, b.elem(out, b("add", [row, i64(k)], I64), 8)])
            k += 1
    wd = b("workitem", [i32(0)], I32, fn="work_dim")
    b("store", [b("zext", [wd], I64), b.elem(out, b("add", [row, i64(k)], I64), 8)])
    b("ret", [])
    return cfg_function("wi", [out], [entry])


@pytest.mark.parametrize("gsize,lsize,offset", [((8,), (4,), (0,)), ((4, 6), (2, 3), (10, 20)),
                                                ((2, 4, 6), (1, 2, 3), (1, 2, 3))])
def test_workitem_builtins(gsize, lsize, offset):
    n = int(np.prod(gsize))
    out = np.zeros((n, len(WI_FNS) * 4 + 1), np.int64)
    run_kernel(workitem_dump(), [out], gsize, lsize, offset)
    dims = len(gsize)
    g3 = list(gsize) + [1] * (3 - dims)
    l3 = list(lsize) + [1] * (3 - dims)
    o3 = list(offset) + [0] * (3 - dims)
    for z in range(g3[2]):
        for y in range(g3[1]):
            for x in range(g3[0]):
                gid = (x, y, z)
                row = out[(z * g3[1] + y) * g3[0] + x]
                want = {"global_id": [gid[d] + o3[d] for d in range(3)], "local_id": [gid[d] % l3[d] for d in range(3)],
                        "group_id": [gid[d] // l3[d] for d in range(3)], "global_size": g3, "local_size": l3,
                        "num_groups": [g3[d] // l3[d] for d in range(3)], "global_offset": o3}
                defaults = {"global_size": 1, "local_size": 1, "num_groups": 1}
                for k, fn in enumerate(WI_FNS):
                    assert row[4 * k: 4 * k + 4].tolist() == want[fn] + [defaults.get(fn, 0)], (fn, gid)
                assert row[-1] == dims


def order_recorder():
    """log[1 + log[0]++] = global_id(0) + 100 * global_id(1): records the execution order."""
    log = Arg(ptr(1), 0, "log")
    entry = Block("entry")
    b = B(entry)
    n = b("load", [log], I32)
    b("store", [b("add", [n, i32(1)], I32), log])
    slot = b("add", [b("sext", [n], I64), i64(1)], I64)
    v = b("add", [b.gid(0), b("mul", [b.gid(1), i64(100)], I64)], I64)
    b("store", [b("trunc", [v], I32), b.elem(log, slot)])
    b("ret", [])
    return cfg_function("order", [log], [entry])


def test_work_items_run_group_by_group_dimension_0_fastest():
    log = np.zeros(1 + 16, np.int32)
    run_kernel(order_recorder(), [log], (4, 4), (2, 2))
    order = [(v % 100, v // 100) for v in log[1:]]
    want = [(gx * 2 + lx, gy * 2 + ly) for gy in range(2) for gx in range(2) for ly in range(2) for lx in range(2)]
    assert order == want


# ----- memory: allocas, __local, __constant, pointers -----

def private_array_kernel():
    """int a[4] on the stack; a[k] = gid + k for k < 4 (unrolled); out[gid] = a[0] + a[3] + stale, where
    stale is a[1] read *before* the stores: a fresh zeroed stack per work-item gives 0."""
    out = Arg(ptr(1), 0, "out")
    entry = Block("entry")
    b = B(entry)
    gid = b.gid()
    arr = b("alloca", [], ptr(0), "arr", size=16, align=4)
    stale = b("load", [b("ptradd", [arr, i64(4)], ptr(0))], I32)
    g32 = b("trunc", [gid], I32)
    for k in range(4):
        b("store", [b("add", [g32, i32(k)], I32), b("ptradd", [arr, i64(4 * k)], ptr(0))])
    a0 = b("load", [arr], I32)
    a3 = b("load", [b("ptradd", [arr, i64(12)], ptr(0))], I32)
    b("store", [b("add", [b("add", [a0, a3], I32), stale], I32), b.elem(out, gid)])
    b("ret", [])
    return cfg_function("private_array", [out], [entry])


def test_allocas_are_fresh_per_work_item():
    out = np.zeros(5, np.int32)
    run_kernel(private_array_kernel(), [out], 5, 5)
    assert out.tolist() == [2 * g + 3 for g in range(5)]


def test_alloca_out_of_bounds_names_the_instruction():
    entry = Block("entry")
    b = B(entry)
    arr = b("alloca", [], ptr(0), "arr", size=8, align=4)
    b("store", [i32(1), b("ptradd", [arr, i64(8)], ptr(0), "past_end")], name="")
    b("ret", [])
    f = cfg_function("oob", [], [entry])
    with pytest.raises(InterpreterError, match=r"instruction 2 \(store\).*0 bytes past the end of private buffer 'arr'"):
        run_kernel(f, [], 1, 1)


@pytest.mark.parametrize("offset,msg", [(-4, "before"), (64, "past the end"), (62, "straddles")])
def test_out_of_bounds_on_a_buffer_argument(offset, msg):
    out = Arg(ptr(1), 0, "out")
    entry = Block("entry")
    b = B(entry)
    b("store", [i32(7), b("ptradd", [out, i64(offset)], ptr(1))])
    b("ret", [])
    f = cfg_function("oob", [out], [entry])
    with pytest.raises(InterpreterError, match=msg + ".*global buffer 'out'"):
        run_kernel(f, [np.zeros(16, np.int32)], 1, 1)


def test_null_pointer_load():
    entry = Block("entry")
    b = B(entry)
    b("load", [Const(ptr(1), 0)], I32)
    b("ret", [])
    with pytest.raises(InterpreterError, match="null address"):
        run_kernel(cfg_function("null", [], [entry]), [], 1, 1)


class Sym:
    def __init__(self, name, size, data=None, align=4):
        self.name, self.size, self.data, self.align = name, size, data, align


def local_and_constant_kernel(local_name="tile", const_name="table"):
    """tile[lid] = table[gid % 4] * (group_id + 1); out[gid] = tile[lid] + tile[(lid+1) % L] (racy on
    purpose: with items run in order, the neighbour is either this group's value or still zero)."""
    out = Arg(ptr(1), 0, "out")
    entry = Block("entry")
    b = B(entry)
    gid, lid, grp, lsz = b.gid(), b.gid(0, "local_id"), b.gid(0, "group_id"), b.gid(0, "local_size")
    tile = b("global_addr", [], ptr(3), symbol=local_name)
    table = b("global_addr", [], ptr(2), symbol=const_name)
    t = b("load", [b("ptradd", [table, b("mul", [b("urem", [gid, i64(4)], I64), i64(4)], I64)], ptr(2))], I32)
    v = b("mul", [t, b("trunc", [b("add", [grp, i64(1)], I64)], I32)], I32)
    b("store", [v, b("ptradd", [tile, b("mul", [lid, i64(4)], I64)], ptr(3))])
    b("barrier", [i32(1)])
    nb = b("urem", [b("add", [lid, i64(1)], I64), lsz], I64)
    w = b("load", [b("ptradd", [tile, b("mul", [nb, i64(4)], I64)], ptr(3))], I32)
    b("store", [b("add", [v, w], I32), b.elem(out, gid)])
    b("ret", [])
    f = cfg_function("local_const", [out], [entry])
    f.local_memory = [Sym("tile", 16)]
    f.constant_data = [Sym("table", 16, np.array([1, 10, 100, 1000], np.int32).tobytes())]
    return f


def test_local_memory_per_group_and_constant_tables():
    out = np.zeros(8, np.int32)
    run_kernel(local_and_constant_kernel(), [out], 8, 4)
    table = [1, 10, 100, 1000]
    want = []
    for g in range(8):
        grp, lid = divmod(g, 4)
        v = table[g % 4] * (grp + 1)
        # the neighbour lid+1 has not run yet (fresh local memory per group: 0), except lid 3 reads lid 0
        nb = table[(grp * 4) % 4] * (grp + 1) if lid == 3 else 0
        want.append(v + nb)
    assert out.tolist() == want


def test_unknown_symbol_and_store_to_constant():
    with pytest.raises(InterpreterError, match="no module data named 'nope'"):
        run_kernel(local_and_constant_kernel(const_name="nope"), [np.zeros(4, np.int32)], 4, 4)
    table = Arg(ptr(2), 0, "table")
    entry = Block("entry")
    b = B(entry)
    b("store", [i32(1), table])
    b("ret", [])
    with pytest.raises(InterpreterError, match="read-only constant buffer 'table'"):
        run_kernel(cfg_function("w", [table], [entry]), [np.zeros(4, np.int32)], 1, 1)


def test_pointer_arithmetic_and_comparison():
    """Pointers are addresses: p + 8 - 8 == p, ptrtoint differences, a pointer stored and reloaded."""
    buf, out = Arg(ptr(1), 0, "buf"), Arg(ptr(1), 1, "out")
    entry = Block("entry")
    b = B(entry)
    p8 = b("ptradd", [buf, i64(8)], ptr(1))
    back = b("ptradd", [p8, i64(-8)], ptr(1))
    same = b("zext", [b("icmp", [back, buf], I1, pred="eq")], I64)
    diff = b("sub", [b("ptrtoint", [p8], I64), b("ptrtoint", [buf], I64)], I64)
    slot = b("alloca", [], ptr(0), size=8, align=8)
    b("store", [p8, slot])
    reloaded = b("load", [slot], ptr(1))
    x = b("load", [reloaded], I64)
    for k, v in enumerate((same, diff, x)):
        b("store", [v, b("ptradd", [out, i64(8 * k)], ptr(1))])
    b("ret", [])
    out_a = np.zeros(3, np.int64)
    run_kernel(cfg_function("ptrs", [buf, out], [entry]), [np.array([5, 42], np.int64), out_a], 1, 1)
    assert out_a.tolist() == [1, 8, 42]


def test_scalar_arguments_of_every_kind():
    args = [Arg(I8, 0, "c"), Arg(I32, 1, "u"), Arg(I64, 2, "l"), Arg(F32, 3, "f"), Arg(ptr(1), 4, "out")]
    entry = Block("entry")
    b = B(entry)
    vals = [b("sext", [args[0]], I64), b("zext", [args[1]], I64), args[2],
            b("fptosi", [b("fmul", [args[3], Const(F32, 4.0)], F32)], I64)]
    for k, v in enumerate(vals):
        b("store", [v, b("ptradd", [args[4], i64(8 * k)], ptr(1))])
    b("ret", [])
    out = np.zeros(4, np.int64)
    run_kernel(cfg_function("scalars", args, [entry]),
               [np.int8(-3), np.uint32(0xFFFFFFFF), np.int64(-(2 ** 40)), np.float32(2.5), out], 1, 1)
    assert out.tolist() == [-3, 0xFFFFFFFF, -(2 ** 40), 10]


def test_structured_function_rejects_cfg_terminators():
    entry = Block("entry")
    entry.append(Instr("ret", []))
    f = tree_function("mixed", [], [entry])
    with pytest.raises(InterpreterError, match="CFG terminator ret in a structured function"):
        run_kernel(f, [], 1, 1)


def test_a_long_running_loop_completes_under_the_step_limit():
    """A few hundred thousand instructions across 64 work-items (speed is for benchmarks, not tests)."""
    out = np.zeros(64, np.int32)
    run_kernel(sum_loop_tree(), [out], 64, 16)
    assert out[-1] == 63 * 64 // 2


# ----- lockstep mode: barriers synchronise a work-group -----

def test_lockstep_barrier_makes_neighbours_writes_visible():
    out = np.zeros(8, np.int32)
    run_kernel(local_and_constant_kernel(), [out], 8, 4, lockstep=True)
    table = [1, 10, 100, 1000]
    want = [table[g % 4] * (g // 4 + 1) + table[(g + 1) % 4] * (g // 4 + 1) for g in range(8)]
    assert out.tolist() == want


def barrier_loop_cfg(divergent=False):
    """tile[lid] = gid; repeat 3 times: { barrier; v = tile[(lid+1) % L]; barrier; tile[lid] = v };
    out[gid] = tile[lid]: a rotation by 3 inside each group. `divergent`: items with lid 0 skip it all."""
    out = Arg(ptr(1), 0, "out")
    entry, loop, exit_ = Block("entry"), Block("loop"), Block("exit")
    b = B(entry)
    gid, lid, lsz = b.gid(), b.gid(0, "local_id"), b.gid(0, "local_size")
    tile = b("global_addr", [], ptr(3), symbol="tile")
    slot = b("ptradd", [tile, b("mul", [lid, i64(4)], I64)], ptr(3))
    b("store", [b("trunc", [gid], I32), slot])
    if divergent:
        b.cbr(b("icmp", [lid, i64(0)], I1, pred="eq"), exit_, loop)
    else:
        b.br(loop)
    b = B(loop)
    k = loop.append(Phi(I32, name="k"))
    b("barrier", [i32(1)])
    nb = b("urem", [b("add", [lid, i64(1)], I64), lsz], I64)
    v = b("load", [b("ptradd", [tile, b("mul", [nb, i64(4)], I64)], ptr(3))], I32)
    b("barrier", [i32(1)])
    b("store", [v, slot])
    k2 = b("add", [k, i32(1)], I32)
    b.cbr(b("icmp", [k2, i32(3)], I1, pred="slt"), loop, exit_)
    k.add_incoming(entry, i32(0))
    k.add_incoming(loop, k2)
    b = B(exit_)
    b("store", [b("load", [slot], I32), b.elem(out, gid)])
    b("ret", [])
    f = cfg_function("rotate", [out], [entry, loop, exit_])
    f.local_memory = [Sym("tile", 16)]
    return f


def test_lockstep_barriers_in_a_loop():
    out = np.zeros(8, np.int32)
    run_kernel(barrier_loop_cfg(), [out], 8, 4, lockstep=True)
    assert out.tolist() == [4 * (g // 4) + (g % 4 + 3) % 4 for g in range(8)]
    sequential = np.zeros(8, np.int32)
    run_kernel(barrier_loop_cfg(), [sequential], 8, 4)
    assert sequential.tolist() != out.tolist()      # the default schedule does not synchronise


def test_lockstep_detects_a_barrier_not_reached_by_all():
    with pytest.raises(InterpreterError, match=r"barrier not reached by every work-item.*work-item \(0\) returned"):
        run_kernel(barrier_loop_cfg(divergent=True), [np.zeros(4, np.int32)], 4, 4, lockstep=True)


def test_lockstep_gives_sequential_results_without_barriers():
    for make in (sum_loop_cfg, sum_loop_tree, nested_return_tree):
        a, b = np.zeros(12, np.int32), np.zeros(12, np.int32)
        run_kernel(make(), [a], 12, 4)
        run_kernel(make(), [b], 12, 4, lockstep=True)
        assert a.tolist() == b.tolist()


def test_misaligned_access_breaks_the_declared_alignment():
    out = Arg(ptr(1), 0, "out")
    entry = Block("entry")
    b = B(entry)
    p = b("ptradd", [out, i64(2)], ptr(1))
    b("load", [out], I32, align=4)               # fine
    b("load", [p], I32, align=4)
    b("ret", [])
    with pytest.raises(InterpreterError, match=r"instruction 2 \(load\).*not 4-byte aligned"):
        run_kernel(cfg_function("misaligned", [out], [entry]), [np.zeros(4, np.int32)], 1, 1)
    entry.instrs[2].attrs["align"] = 2           # what the instruction promises is what counts
    run_kernel(cfg_function("misaligned", [out], [entry]), [np.zeros(4, np.int32)], 1, 1)


def test_uninitialized_fill_exposes_reads_of_uninitialized_data():
    """private_array_kernel reads one stack slot before writing it: its result depends on the fill byte,
    while a kernel without such reads does not."""
    results = {}
    for fill in (0, 0x5A):
        out = np.zeros(3, np.int32)
        run_kernel(private_array_kernel(), [out], 3, 3, uninitialized=fill)
        results[fill] = out.tolist()
    assert results[0] == [3, 5, 7]
    assert results[0x5A] == [v + 0x5A5A5A5A for v in results[0]]
    clean = [np.zeros(5, np.int32) for _ in range(2)]
    run_kernel(sum_loop_tree(), [clean[0]], 5, 5)
    run_kernel(sum_loop_tree(), [clean[1]], 5, 5, uninitialized=0xFF)
    assert clean[0].tolist() == clean[1].tolist()


def test_undef_operands_follow_the_fill_byte():
    from reconverge.lowering.ir import Undef
    out = Arg(ptr(1), 0, "out")
    entry = Block("entry")
    b = B(entry)
    b("store", [Undef(I32), out])
    b("store", [Undef(F32), b("ptradd", [out, i64(4)], ptr(1))])
    b("ret", [])
    buf = np.zeros(2, np.uint32)
    run_kernel(cfg_function("undef", [out], [entry]), [buf], 1, 1, uninitialized=0xA5)
    assert buf.tolist() == [0xA5A5A5A5, 0xA5A5A5A5]


def test_phi_missing_an_edge_that_another_phi_has():
    """Two phis, only one of which lists the edge taken: the other one must be reported."""
    entry, other, merge = Block("entry"), Block("other"), Block("merge")
    B(entry).br(merge)
    B(other).br(merge)
    merge.append(Phi(I32, [(entry, i32(1)), (other, i32(2))], "p"))
    merge.append(Phi(I32, [(other, i32(3))], "q"))
    B(merge)("ret", [])
    f = cfg_function("bad_phi2", [], [entry, other, merge])
    with pytest.raises(InterpreterError, match=r"instruction 1 \(phi %q\).*no incoming value for b0 \(entry\)"):
        run_kernel(f, [], 1, 1)


def test_module_data_kinds_follow_their_address_space():
    """A writable program-scope global (addrspace 1) and private-space constant data survive across
    work-items and groups; read-only data rejects stores."""
    out = Arg(ptr(1), 0, "out")
    entry = Block("entry")
    b = B(entry)
    counter = b("global_addr", [], ptr(1), symbol="counter")
    table = b("global_addr", [], ptr(0), symbol="table0")
    n = b("load", [counter], I32)
    b("store", [b("add", [n, b("load", [table], I32)], I32), counter])
    b("store", [n, b.elem(out, b.gid())])
    b("ret", [])
    f = cfg_function("globals", [out], [entry])
    f.constant_data = [dict(symbol="counter", addrspace=1, size=4, align=4, init=None, writable=True),
                       dict(symbol="table0", addrspace=0, size=4, align=4, init=(5).to_bytes(4, "little"),
                            writable=False)]
    buf = np.zeros(6, np.int32)
    run_kernel(f, [buf], 6, 2)
    assert buf.tolist() == [0, 5, 10, 15, 20, 25]


def test_an_interpreter_can_launch_twice():
    from reconverge.lowering.interp import Interpreter
    it = Interpreter(sum_loop_cfg())
    a, b = np.zeros(4, np.int32), np.zeros(6, np.int32)
    it.run([a], 4, 2)
    it.run([b], 6, 3)
    assert a.tolist() == [0, 1, 3, 6] and b.tolist() == [0, 1, 3, 6, 10, 15]


def test_uninitialized_dependence_names_the_affected_buffers():
    from reconverge.lowering.interp import uninitialized_dependence
    assert uninitialized_dependence(private_array_kernel(), lambda: [np.zeros(3, np.int32)], 3, 3) == [0]
    assert uninitialized_dependence(sum_loop_tree(), lambda: [np.zeros(3, np.int32)], 3, 3) == []


def test_local_pointer_arguments_are_mapped_for_the_whole_launch():
    scratch, out = Arg(ptr(3), 0, "scratch"), Arg(ptr(1), 1, "out")
    entry = Block("entry")
    b = B(entry)
    gid, lid = b.gid(), b.gid(0, "local_id")
    slot = b("ptradd", [scratch, b("mul", [lid, i64(4)], I64)], ptr(3))
    b("store", [b("trunc", [gid], I32), slot])
    b("store", [b("load", [slot], I32), b.elem(out, gid)])
    b("ret", [])
    out_a = np.zeros(8, np.int32)
    run_kernel(cfg_function("local_arg", [scratch, out], [entry]), [np.zeros(4, np.int32), out_a], 8, 4)
    assert out_a.tolist() == list(range(8))


def test_random_cfgs_agree_with_an_independent_walker():
    """Random reducible CFGs (branches on arguments, switches with negative cases, phis, endless loops)
    from the structurizer's generator: the blocks the interpreter visits, and the last value stored, are
    those of the structurizer tests' own minimal executor (tests/lowering/passes/structurize/trace_walk.py)."""
    import random
    random_cfg = pytest.importorskip("tests.lowering.passes.structurize.random_cfg")
    trace_walk = pytest.importorskip("tests.lowering.passes.structurize.trace_walk")
    limit, ended, endless = 300, 0, 0
    for seed in range(120):
        rng = random.Random(seed)
        f = random_cfg.random_function(rng, rng.randrange(3, 30))
        conds = [rng.randrange(2) for _ in range(4)]
        sel = rng.randrange(-4, 7)
        theirs = trace_walk.TraceWalker(f, {**{f"c{i}": c for i, c in enumerate(conds)}, "sel": sel & 0xFFFFFFFF},
                                        limit=limit).run()
        their_blocks = [v for v in theirs if v < 1000]       # phis store 1000 + k, blocks their number
        visited: list[int] = []
        out = np.full(1, -1, np.int32)
        try:
            run_kernel(f, [out, *[np.uint8(c) for c in conds], np.int32(sel)], 1, 1, max_steps=8 * limit,
                       on_block=lambda b: visited.append(int(b.label[1:])))
        except InterpreterError as e:
            assert "step limit" in str(e) and len(theirs) >= limit, (seed, str(e))
            assert visited[:len(their_blocks)] == their_blocks, seed
            endless += 1
            continue
        assert len(theirs) < limit and visited == their_blocks and out[0] == theirs[-1], seed
        ended += 1
    assert ended > 30 and endless > 10      # both kinds of run were exercised


def test_first_uninitialized_use_names_the_store_or_the_branch():
    from reconverge.lowering.interp.trace import first_uninitialized_use
    from reconverge.lowering.ir import Undef
    make = lambda: [np.zeros(4, np.int32)]   # noqa: E731
    assert first_uninitialized_use(sum_loop_tree(), make, 4, 2) is None
    msg = first_uninitialized_use(private_array_kernel(), lambda: [np.zeros(3, np.int32)], 3, 3)
    assert msg == ("work-item (0): block b0 (entry), instruction 24 (store of the add result) writes a value "
                   "that depends on uninitialized data (3 vs 1515870813)")
    # an if on an undef condition, in the tree form: the branch is reported
    out = Arg(ptr(1), 0, "out")
    entry, then_b, else_b, merge = Block("entry"), Block("then"), Block("else"), Block("merge")
    b = B(entry)
    gid = b.gid()
    cond = b("icmp", [Undef(I32), i32(0)], I1, "c", pred="eq")
    B(then_b)("store", [i32(1), B(then_b).elem(out, gid)])
    b = B(merge)
    b("store", [i32(2), b.elem(out, b.gid())])
    f = tree_function("undef_if", [out], [entry, If(cond, [then_b], [else_b]), merge])
    msg = first_uninitialized_use(f, make, 4, 4)
    assert msg.startswith("work-item (0): after block b0 (entry) control goes to b1 (then) or b2 (else)"), msg


def test_deeply_nested_trees_need_no_recursion():
    """3000 nested ifs inside a loop, the innermost breaking out: deeper than Python's recursion limit."""
    import sys
    depth = max(3000, sys.getrecursionlimit() + 500)
    out = Arg(ptr(1), 0, "out")
    entry = Block("entry")
    one = B(entry)("icmp", [i32(1), i32(1)], I1, pred="eq")
    inner = [Block("innermost")]
    b = B(inner[0])
    b("store", [i32(depth), out])
    b("break", [])
    for _ in range(depth):
        inner = [Block(), If(one, inner, [Block()]), Block()]
    loop = Loop(inner)
    after = Block("after")
    b = B(after)
    b("store", [b("add", [b("load", [out], I32), i32(1)], I32), out])
    f = tree_function("deep", [out], [entry, loop, after])
    buf = np.zeros(1, np.int32)
    run_kernel(f, [buf], 1, 1)
    assert buf[0] == depth + 1


def test_break_outside_a_loop_is_reported():
    b0 = Block("entry")
    b1 = Block("stray")
    B(b1)("break", [])
    f = tree_function("stray_break", [], [b0, If(Const(I1, 1), [b1], [Block()]), Block()])
    with pytest.raises(InterpreterError, match=r"block b1 \(stray\), instruction 0 \(break\).*break outside any loop"):
        run_kernel(f, [], 1, 1)


def test_a_function_without_code_is_reported():
    with pytest.raises(InterpreterError, match="has no code"):
        run_kernel(Function("empty", []), [], 1, 1)
