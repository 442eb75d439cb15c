"""Random control-flow kernels, built with llvmlite.ir, for fuzzing and benchmarking the structurizer and
the Gen backend: reducible ones, and (on request) irreducible ones; and flat state machines
(random_state_machine, below: any block to any block, as gotos and switches write them).

The generator grows a program from a grammar of single-entry regions (sequences, if/else, switches with
fall-through, while and do-while loops) and sprinkles conditional exits into them: breaks out of any
enclosing loop, continues (straight back edges) into any enclosing loop, jumps to the join of an enclosing
if/switch (forward gotos) and early returns.  Every such exit is conditional, so every region keeps a
fall-through path and every block is reachable; every edge goes forward or back to the header of a loop
that contains it, so the CFG is reducible by construction (unless `irreducible` asks for two-entry
cycles).  Loops count their iterations in an i32 phi and every back edge increments it before the
header's bound check (or the latch's, for do-while), so each kernel terminates on any input.  The
arithmetic is wrap-around (no nsw/nuw, no division): no UB.

Values flow through one accumulator: each region carries it in, edges carry it to labels, and a label with
several incoming values gets a phi.  Work is proportional to the number of blocks (no dominator queries).
"""
from __future__ import annotations

import random

from llvmlite import ir

I1, I32, I64 = ir.IntType(1), ir.IntType(32), ir.IntType(64)
SPIR64_DATALAYOUT = "e-i64:64-v16:16-v24:32-v32:32-v48:64-v96:128-v192:256-v256:256-v512:512-v1024:1024-G1"


class _Label:
    """A block whose incoming (block, accumulator) edges are collected before it is filled."""
    __slots__ = ("block", "edges")

    def __init__(self, block: ir.Block):
        self.block = block
        self.edges: list[tuple[ir.Block, ir.Value]] = []


class _Loop:
    __slots__ = ("header", "acc_phi", "i_phi", "exit", "latch", "bound")

    def __init__(self, header, acc_phi, i_phi, exit_label, latch, bound):
        self.header, self.acc_phi, self.i_phi = header, acc_phi, i_phi
        self.exit, self.latch, self.bound = exit_label, latch, bound


class _Gen:
    def __init__(self, rng: random.Random, n_blocks: int, max_loop_depth: int, max_trip: int, max_nesting: int,
                 irreducible: float = 0.0):
        self.rng = rng
        self.irreducible = irreducible
        self.target = max(n_blocks, 4)
        self.max_loop_depth = max_loop_depth
        self.max_trip = max_trip
        self.max_nesting = max_nesting
        self.module = ir.Module(name="cfggen")
        self.module.triple = "spir64"
        self.module.data_layout = SPIR64_DATALAYOUT
        gptr = ir.PointerType(addrspace=1)
        fn = ir.Function(self.module, ir.FunctionType(ir.VoidType(), [gptr, gptr]), name="k")
        fn.calling_convention = "spir_kernel"
        fn.args[0].name, fn.args[1].name = "out", "in"
        self.gid_fn = ir.Function(self.module, ir.FunctionType(I64, [I32]), name="_Z13get_global_idj")
        self.gid_fn.calling_convention = "spir_func"
        self.fn = fn
        self.n = 0
        self.b = ir.IRBuilder()
        self.loops: list[_Loop] = []
        self.joins: list[_Label] = []   # joins of enclosing if/switch regions: forward goto targets

    # -- blocks and edges ---------------------------------------------------------------------------------

    def label(self) -> _Label:
        self.n += 1
        return _Label(self.fn.append_basic_block(name=f"b{self.n}"))

    def jump(self, target: _Label, acc) -> None:
        target.edges.append((self.b.block, acc))
        self.b.branch(target.block)

    def cjump(self, cond, yes: _Label, no: _Label, acc) -> None:
        yes.edges.append((self.b.block, acc))
        no.edges.append((self.b.block, acc))
        self.b.cbranch(cond, yes.block, no.block)

    def enter(self, lab: _Label):
        """Start filling `lab`; returns the accumulator (a phi when the incoming values differ)."""
        self.b.position_at_end(lab.block)
        first = lab.edges[0][1]
        if all(v is first for _, v in lab.edges):
            return first
        phi = self.b.phi(I32)
        for blk, v in lab.edges:
            phi.add_incoming(v, blk)
        return phi

    # -- straight-line code ---------------------------------------------------------------------------------

    def operand(self):
        r = self.rng.random()
        if r < 0.3:
            return self.x
        if r < 0.45 and self.loops:
            return self.rng.choice(self.loops).i_phi
        if r < 0.5:
            return self.gid
        return ir.Constant(I32, self.rng.randint(-9, 9))

    def arith(self, acc, count: int):
        b, rng = self.b, self.rng
        for _ in range(count):
            op = rng.randrange(8)
            if op == 0:
                acc = b.add(acc, self.operand())
            elif op == 1:
                acc = b.sub(acc, self.operand())
            elif op == 2:
                acc = b.mul(acc, ir.Constant(I32, rng.choice((3, 5, -1, 7))))
            elif op == 3:
                acc = b.xor(acc, self.operand())
            elif op == 4:
                acc = b.and_(acc, ir.Constant(I32, rng.choice((0xff, 0xffff, 0x7fffffff, -4))))
            elif op == 5:
                acc = b.or_(acc, ir.Constant(I32, rng.randint(1, 64)))
            elif op == 6:
                acc = b.shl(acc, ir.Constant(I32, rng.randint(1, 3)))
            else:
                acc = b.ashr(acc, ir.Constant(I32, rng.randint(1, 4))) if rng.random() < 0.5 \
                    else b.lshr(acc, ir.Constant(I32, rng.randint(1, 4)))
        return acc

    def condition(self, acc):
        b, rng = self.b, self.rng
        r = rng.random()
        if r < 0.4:
            masked = b.and_(acc, ir.Constant(I32, rng.choice((1, 3, 7, 15))))
            return b.icmp_unsigned(rng.choice(("==", "!=")), masked, ir.Constant(I32, rng.randint(0, 3)))
        if r < 0.7:
            return b.icmp_signed(rng.choice(("<", ">", "<=", ">=")), acc, ir.Constant(I32, rng.randint(-20, 20)))
        if r < 0.85:
            return b.icmp_signed(rng.choice(("<", ">")), acc, self.x)
        return b.icmp_unsigned(rng.choice(("<", ">")), b.add(acc, self.x), ir.Constant(I32, rng.randint(0, 1 << 20)))

    # -- regions --------------------------------------------------------------------------------------------

    def seq(self, acc, budget: int, depth: int):
        """Fill regions into the open block until `budget` more blocks exist (or the global target is met)."""
        stop = min(self.n + budget, self.target)
        while self.n < stop:
            left = stop - self.n
            acc = self.region(acc, left, depth)
        return acc

    def region(self, acc, left: int, depth: int):
        rng = self.rng
        r = rng.random()
        nested_ok = depth < self.max_nesting and left >= 3
        if r < 0.18 or not nested_ok:
            if self.irreducible and rng.random() < self.irreducible:     # no draw otherwise: same seeds,
                return self.cycle(acc)                                     # same reducible kernels
            if rng.random() < 0.5 and (self.loops or self.joins or depth > 0):
                return self.exit_edge(acc)
            return self.straight(acc)
        sub = max(1, int(left * rng.uniform(0.2, 0.7)))
        if r < 0.45:
            return self.if_else(acc, sub, depth)
        if r < 0.6:
            return self.switch(acc, sub, depth)
        if len(self.loops) < self.max_loop_depth:
            return self.loop(acc, sub, depth)
        return self.if_else(acc, sub, depth)

    def cycle(self, acc):
        """An irreducible loop: two blocks that branch to each other, both entered from before it (so
        neither dominates the other). Each step counts in an i32 phi and leaves once it reaches a bound
        in [1, max_trip], so it ends on any input."""
        b, rng = self.b, self.rng
        bound = ir.Constant(I32, rng.randint(1, self.max_trip))
        pre = b.block
        one, two, exit_l = self.label(), self.label(), self.label()
        b.cbranch(self.condition(acc), one.block, two.block)
        steps = []
        for here in (one, two):
            b.position_at_end(here.block)
            steps.append((b.phi(I32), b.phi(I32)))
        for (i_phi, acc_phi), (other_i, other_acc), here, there in zip(steps, steps[::-1], (one, two), (two, one)):
            b.position_at_end(here.block)
            a = self.arith(acc_phi, rng.randint(1, 2))
            inext = b.add(i_phi, ir.Constant(I32, 1))
            exit_l.edges.append((b.block, a))
            b.cbranch(b.icmp_signed("<", inext, bound), there.block, exit_l.block)
            other_i.add_incoming(inext, b.block)
            other_acc.add_incoming(a, b.block)
        for i_phi, acc_phi in steps:
            i_phi.add_incoming(ir.Constant(I32, 0), pre)
            acc_phi.add_incoming(acc, pre)
        return self.enter(exit_l)

    def straight(self, acc):
        nxt = self.label()
        acc = self.arith(acc, self.rng.randint(0, 1))
        self.jump(nxt, acc)
        acc = self.enter(nxt)
        return self.arith(acc, self.rng.randint(1, 3))

    def exit_edge(self, acc):
        """A conditional break / continue / goto-join / return; the other side falls through."""
        rng, b = self.rng, self.b
        kinds = ["ret"]
        if self.loops:
            kinds += ["break", "break", "continue", "continue"]
        if self.joins:
            kinds += ["goto", "goto"]
        kind = rng.choice(kinds)
        acc = self.arith(acc, rng.randint(0, 2))
        cond = self.condition(acc)
        cont = self.label()
        if kind == "continue":
            loop = self.loops[-1] if rng.random() < 0.6 else rng.choice(self.loops)
            if loop.latch is not None:        # do-while: continue goes to the latch (forward)
                self.cjump(cond, loop.latch, cont, acc)
            else:                             # while: a back edge straight into the header
                inext = b.add(loop.i_phi, ir.Constant(I32, 1))
                loop.acc_phi.add_incoming(acc, b.block)
                loop.i_phi.add_incoming(inext, b.block)
                b.cbranch(cond, loop.header.block, cont.block)
                cont.edges.append((b.block, acc))
        else:
            if kind == "break":
                target = self.loops[-1].exit if rng.random() < 0.6 else rng.choice(self.loops).exit
            elif kind == "goto":
                target = rng.choice(self.joins)
            elif rng.random() < 0.5:
                target = self.ret
            else:                             # a return of its own: a second exit block
                stub = self.label()
                self.cjump(cond, stub, cont, acc)
                b.position_at_end(stub.block)
                b.store(acc, b.gep(self.fn.args[0], [self.gid64], source_etype=I32))
                b.ret_void()
                return self.enter(cont)
            self.cjump(cond, target, cont, acc)
        return self.enter(cont)

    def if_else(self, acc, budget: int, depth: int):
        rng = self.rng
        cond = self.condition(acc)
        then_l, join = self.label(), self.label()
        has_else = rng.random() < 0.6
        else_l = self.label() if has_else else join
        self.cjump(cond, then_l, else_l, acc)
        self.joins.append(join)
        share = budget // 2 if has_else else budget
        a = self.seq(self.enter(then_l), max(0, share - 1), depth + 1)
        self.jump(join, a)
        if has_else:
            a = self.seq(self.enter(else_l), max(0, budget - share - 1), depth + 1)
            self.jump(join, a)
        self.joins.pop()
        return self.enter(join)

    def switch(self, acc, budget: int, depth: int):
        """Arms in a random order (default among them); each arm ends in the join or falls into the next."""
        rng, b = self.rng, self.b
        n_cases = rng.randint(1, 4)
        values = rng.sample(range(8), n_cases)
        arms = [self.label() for _ in range(n_cases + 1)]   # arms[0] is the default
        join = self.label()
        sel = b.and_(b.add(acc, self.x), ir.Constant(I32, 7))
        sw = b.switch(sel, arms[0].block)
        arms[0].edges.append((b.block, acc))
        for v, arm in zip(values, arms[1:]):
            sw.add_case(ir.Constant(I32, v), arm.block)
            arm.edges.append((b.block, acc))
        order = arms[:]
        rng.shuffle(order)
        self.joins.append(join)
        each = max(0, budget // len(order) - 1)
        for k, arm in enumerate(order):
            a = self.seq(self.enter(arm), each, depth + 1)
            if k + 1 < len(order) and rng.random() < 0.35:
                self.jump(order[k + 1], a)    # fall through into the next arm
            else:
                self.jump(join, a)
        self.joins.pop()
        return self.enter(join)

    def loop(self, acc, budget: int, depth: int):
        rng, b = self.rng, self.b
        if rng.random() < 0.5:
            bound = ir.Constant(I32, rng.randint(1, self.max_trip))
        else:   # data-dependent trip count in [1, max_trip]
            bound = b.add(b.urem(b.and_(self.x, ir.Constant(I32, 0xff)), ir.Constant(I32, self.max_trip)),
                          ir.Constant(I32, 1))
        pre = b.block
        header, exit_l = self.label(), self.label()
        b.branch(header.block)
        b.position_at_end(header.block)
        i_phi = b.phi(I32)
        acc_phi = b.phi(I32)
        i_phi.add_incoming(ir.Constant(I32, 0), pre)
        acc_phi.add_incoming(acc, pre)
        do_while = rng.random() < 0.4
        # Enclosing joins stay valid goto targets inside the loop: such a goto is a multi-level break.
        if do_while:
            latch = self.label()
            loop = _Loop(header, acc_phi, i_phi, exit_l, latch, bound)
            self.loops.append(loop)
            a = self.seq(self.arith(acc_phi, 1), max(0, budget - 3), depth + 1)
            self.jump(latch, a)
            self.loops.pop()
            a = self.enter(latch)
            inext = b.add(i_phi, ir.Constant(I32, 1))
            cond = b.icmp_signed("<", inext, bound)
            acc_phi.add_incoming(a, b.block)
            i_phi.add_incoming(inext, b.block)
            exit_l.edges.append((b.block, a))
            b.cbranch(cond, header.block, exit_l.block)
        else:
            body = self.label()
            cond = b.icmp_signed("<", i_phi, bound)
            self.cjump(cond, body, exit_l, acc_phi)
            loop = _Loop(header, acc_phi, i_phi, exit_l, None, bound)
            self.loops.append(loop)
            a = self.seq(self.arith(self.enter(body), 1), max(0, budget - 3), depth + 1)
            self.loops.pop()
            inext = b.add(i_phi, ir.Constant(I32, 1))
            acc_phi.add_incoming(a, b.block)
            i_phi.add_incoming(inext, b.block)
            b.branch(header.block)
        return self.enter(exit_l)

    # -- the kernel -----------------------------------------------------------------------------------------

    def build(self) -> ir.Module:
        b = self.b
        entry = self.label()
        b.position_at_end(entry.block)
        self.gid64 = gid64 = b.call(self.gid_fn, [ir.Constant(I32, 0)], cconv="spir_func", name="gid64")
        self.gid = b.trunc(gid64, I32, name="gid")
        self.x = b.load(b.gep(self.fn.args[1], [gid64], source_etype=I32), typ=I32, name="x")
        self.ret = self.label()
        acc = self.seq(self.x, self.target - 2, 0)
        self.jump(self.ret, acc)
        acc = self.enter(self.ret)
        b.store(acc, b.gep(self.fn.args[0], [gid64], source_etype=I32))
        b.ret_void()
        return self.module


def random_kernel(rng: random.Random, n_blocks: int, *, max_loop_depth: int = 3, max_trip: int = 4,
                  max_nesting: int = 24, irreducible: float = 0.0) -> ir.Module:
    """A module with one kernel `void @k(ptr addrspace(1) %out, ptr addrspace(1) %in)` of about `n_blocks`
    basic blocks; out[gid] receives a value computed from in[gid]. Reducible unless `irreducible` > 0:
    then each leaf region is, with that probability, a two-entry cycle (_Gen.cycle)."""
    return _Gen(rng, n_blocks, max_loop_depth, max_trip, max_nesting, irreducible).build()


class _StateMachine:
    """The flat CFGs of random_state_machine: blocks as states, each updating two values and a step
    counter, leaving to the exit once the counter passes a limit, else dispatching to any state."""

    def __init__(self, rng: random.Random, n_states: int, switch: float, memory: bool, two_entries: bool,
                 scan: bool = False):
        self.rng, self.n, self.switch, self.memory, self.two_entries = rng, n_states, switch, memory, two_entries
        self.scan = scan
        self.module = ir.Module(name="cfggen_states")
        self.module.triple = "spir64"
        self.module.data_layout = SPIR64_DATALAYOUT
        gptr = ir.PointerType(addrspace=1)
        self.fn = fn = ir.Function(self.module, ir.FunctionType(ir.VoidType(), [gptr, gptr]), name="k")
        fn.calling_convention = "spir_kernel"
        fn.args[0].name, fn.args[1].name = "out", "in"
        self.gid_fn = ir.Function(self.module, ir.FunctionType(I64, [I32]), name="_Z13get_global_idj")
        self.gid_fn.calling_convention = "spir_func"

    def mix(self, b: ir.IRBuilder, v):
        """v * odd + c, then xor-shift: wrap-around, no UB, every bit reaching the low ones."""
        rng = self.rng
        v = b.add(b.mul(v, ir.Constant(I32, rng.choice((3, 5, 9, 17, 31)))), ir.Constant(I32, rng.randint(1, 999)))
        return b.xor(v, b.lshr(v, ir.Constant(I32, rng.randint(1, 12))))

    def build(self) -> ir.Module:
        rng, n, fn = self.rng, self.n, self.fn
        b = ir.IRBuilder(fn.append_basic_block("entry"))
        gid64 = b.call(self.gid_fn, [ir.Constant(I32, 0)], cconv="spir_func", name="gid64")
        x = b.load(b.gep(fn.args[1], [gid64], source_etype=I32), typ=I32, name="x")
        limit = ir.Constant(I32, rng.randint(3, 12)) if rng.random() < 0.5 else \
            b.add(b.and_(x, ir.Constant(I32, rng.choice((7, 15)))), ir.Constant(I32, 1), name="limit")
        y0 = b.xor(b.trunc(gid64, I32), ir.Constant(I32, rng.randint(0, 99)), name="y0")
        states = [fn.append_basic_block(f"s{i}") for i in range(n)]
        fin = fn.append_basic_block("fin")
        slots = None
        if self.memory:                                 # clang -O0's form: every value in an alloca
            slots = [b.alloca(I32, name=name) for name in ("s", "y", "c")]
            for slot, v in zip(slots, (x, y0, ir.Constant(I32, 0))):
                b.store(v, slot)
        plan = []                                       # each state's way on: (kind, target states)
        for _ in range(n):
            r = rng.random()
            kind = "switch" if r < self.switch else "cbr" if r < 0.85 else "br"
            plan.append((kind, [rng.randrange(n) for _ in range({"switch": 4, "cbr": 2, "br": 1}[kind])]))
        entered = [any(i in targets for _, targets in plan) for i in range(n)]
        edges: list[list[tuple[ir.Block, tuple]]] = [[] for _ in range(n)]   # state -> (pred, values)
        start = (x, y0, ir.Constant(I32, 0))
        if self.two_entries and n > 1:                 # two ways into the machine: a goto state machine
            second = rng.randrange(1, n)
            b.cbranch(b.icmp_unsigned("!=", b.and_(x, ir.Constant(I32, 1 << rng.randrange(3))), ir.Constant(I32, 0)),
                      states[0], states[second])
            edges[0].append((b.block, start))
            edges[second].append((b.block, start))
        else:
            b.branch(states[0])
            edges[0].append((b.block, start))
        phis, exits = [], []
        for i in range(n):
            b.position_at_end(states[i])
            if slots is None and (entered[i] or edges[i]):
                vals = [b.phi(I32, name=f"{name}{i}") for name in ("s", "y", "c")]
                phis.append(vals)
            elif slots is None:                         # no way in at all: no phis (nothing to merge)
                vals = [ir.Constant(I32, 0)] * 3
                phis.append([])
            else:
                vals = [b.load(slot, typ=I32) for slot in slots]
            s, y, c = vals
            s2 = self.mix(b, b.add(s, y) if rng.random() < 0.5 else s)
            y2 = b.add(b.mul(y, ir.Constant(I32, 31)), ir.Constant(I32, rng.randint(1, 9)))
            c2 = b.add(c, ir.Constant(I32, 1))
            new = (s2, y2, c2)
            if slots is not None:
                for slot, v in zip(slots, new):
                    b.store(v, slot)
            exits.append((b.block, new))
            kind, targets = plan[i]
            if kind == "br":                            # straight on from the exit test (a self-loop to itself)
                b.cbranch(b.icmp_signed(">", c2, limit), fin, states[targets[0]])
                edges[targets[0]].append((b.block, new))
                continue
            dispatch = fn.append_basic_block(f"s{i}x")
            b.cbranch(b.icmp_signed(">", c2, limit), fin, dispatch)
            b.position_at_end(dispatch)
            if kind == "switch":                        # a 4-way switch; cases may share a target
                sel = b.and_(b.lshr(s2, ir.Constant(I32, rng.randint(0, 12))), ir.Constant(I32, 3))
                sw = b.switch(sel, states[targets[0]])
                for value, t in enumerate(targets[1:]):
                    sw.add_case(ir.Constant(I32, value), states[t])
            elif kind == "cbr":
                bit = b.and_(b.lshr(s2, ir.Constant(I32, rng.randint(0, 12))), ir.Constant(I32, 1))
                b.cbranch(b.icmp_unsigned("!=", bit, ir.Constant(I32, 0)), states[targets[0]], states[targets[1]])
            for t in targets:                           # one phi entry per edge, as LLVM wants
                edges[t].append((dispatch, new))
        if slots is None:
            for i in range(n):
                for pred, values in edges[i]:
                    for phi, v in zip(phis[i], values):
                        phi.add_incoming(v, pred)
        b.position_at_end(fin)
        if slots is None:
            s, y, c = (b.phi(I32, name=name) for name in ("sf", "yf", "cf"))
            for pred, values in exits:
                for phi, v in zip((s, y, c), values):
                    phi.add_incoming(v, pred)
        else:
            s, y, c = (b.load(slot, typ=I32) for slot in slots)
        res = b.xor(b.add(s, b.mul(y, ir.Constant(I32, 7))), b.mul(c, ir.Constant(I32, 65536)))
        if self.scan:                   # every lane that left the machine, together: which ones ran it shows
            scan = ir.Function(self.module, ir.FunctionType(I32, [I32]), name="_Z28sub_group_scan_exclusive_minj")
            scan.calling_convention = "spir_func"
            scan.attributes.add("convergent")
            res = b.xor(res, b.call(scan, [b.lshr(res, ir.Constant(I32, 8))], cconv="spir_func"))
        b.store(res, b.gep(fn.args[0], [gid64], source_etype=I32))
        b.ret_void()
        return self.module


def random_state_machine(rng: random.Random, n_states: int, *, switch: float = 0.4, memory: bool = False,
                         two_entries: bool = False, scan: bool = False) -> ir.Module:
    """A kernel `void @k(ptr addrspace(1) %out, ptr addrspace(1) %in)` of `n_states` states (a block
    with the update and the exit test, then one dispatching, unless the test goes straight on), each
    going, by a branch, a conditional branch or (with probability `switch`) a 4-way switch, to any
    state: back edges anywhere, self-loops,
    switch cases sharing a target, branches back to several blocks at once, states no entered state
    reaches yet branching into reachable ones, reducible or irreducible as the draw falls. A state
    updates two values and a step counter and leaves for the exit once the counter passes a limit
    (a constant, or from the input: lanes leave at different steps), so it ends on any input.
    `memory`: the values live in allocas, as clang -O0 leaves them; `two_entries`: the entry branches
    to two states, the goto state machine's two ways into one cycle; `scan`: the result goes through a
    sub-group exclusive min scan after the machine, which only lanes that meet there together agree on
    (a target that runs it once per batch of lanes leaving gives other answers)."""
    return _StateMachine(rng, n_states, switch, memory, two_entries, scan).build()


def main(argv=None) -> int:
    """`python -m reconverge.tools.testing.cfggen --blocks N --seed S [--states] [-o out.ll]`: print one generated
    module (`--states`: random_state_machine of N states, its shape drawn from the seed)."""
    import argparse
    import sys
    ap = argparse.ArgumentParser(description=main.__doc__)
    ap.add_argument("--blocks", type=int, default=100)
    ap.add_argument("--seed", type=int, default=0)
    ap.add_argument("--max-loop-depth", type=int, default=3)
    ap.add_argument("--max-trip", type=int, default=4)
    ap.add_argument("--states", action="store_true", help="a flat state machine (random_state_machine)")
    ap.add_argument("-o", "--output")
    opts = ap.parse_args(argv)
    rng = random.Random(opts.seed)
    if opts.states:
        text = str(random_state_machine(rng, opts.blocks, memory=rng.random() < 0.25,
                                        two_entries=rng.random() < 0.4))
    else:
        text = str(random_kernel(rng, opts.blocks, max_loop_depth=opts.max_loop_depth, max_trip=opts.max_trip))
    if opts.output:
        with open(opts.output, "w", encoding="utf-8") as f:
            f.write(text)
    else:
        sys.stdout.write(text)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
