"""Structured control flow: simulator lanes and masks against a scalar per-lane reference interpreter.

The reference runs the *same* instruction list one lane at a time with plain scalar jumps (if: jump to
JIP when false; else: to JIP; while: back to JIP when true; break: after the while; cont: to the while;
halt: to UIP). For programs without cross-lane operations the SIMD result must equal it lane by lane,
and each lane must execute exactly the ALU instructions of its scalar path, in order.
"""
import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from reconverge.isa.gen9 import messages as sm
from reconverge.isa.gen9.builder import Builder, grf, imm, null, pred
from reconverge.isa.gen9.model import DataType as T
from reconverge.isa.gen9.model import RegFile
from reconverge.isa.gen9.simulator import SimulationError, Trace, instruction_size, layout, run_program

DATA, X, Y = 4, 8, 12
COUNTERS = [16, 20, 24, 28]
CF = {"if", "else", "endif", "while", "break", "cont", "halt", "jmpi", "goto", "join"}


def eot(b):
    b.label("end")
    b.mov(grf(112, T.UD), grf(0, T.UD), n=8, mask_ctrl_we_all=True)
    b.emit("send", null(), grf(112, T.UD), n=8, sfid=sm.SFID_THREAD_SPAWNER, desc=sm.eot_desc(), eot=True,
           mask_ctrl_we_all=True)


# ---------------------------------------------------------------- scalar per-lane reference interpreter
def _s32(v):
    v &= 0xFFFFFFFF
    return v - (1 << 32) if v & 0x80000000 else v


def _val(op, regs):
    if op.file == RegFile.IMM:
        return _s32(op.value) if op.type in (T.D, T.UD) else op.value
    return regs.get(op.reg, 0)


COND = {"lt": lambda a, b: a < b, "le": lambda a, b: a <= b, "gt": lambda a, b: a > b,
        "ge": lambda a, b: a >= b, "eq": lambda a, b: a == b, "ne": lambda a, b: a != b}
ALU = {"mov": lambda a: a, "add": lambda a, b: a + b, "mul": lambda a, b: a * b, "xor": lambda a, b: a ^ b,
       "and": lambda a, b: a & b, "shr": lambda a, b: (a & 0xFFFFFFFF) >> (b & 31)}


def reference_lane(program, init_regs, max_steps=100000):
    """Scalar interpretation of one lane: returns (registers, addresses of executed ALU instructions)."""
    addrs = layout(program)
    at = {a: i for i, a in enumerate(addrs)}
    regs, flag, path = dict(init_regs), False, []
    ip = 0
    for _ in range(max_steps):
        inst = program[at[ip]]
        op, nxt = inst.opcode, ip + instruction_size(inst)
        p = True if inst.predicate is None else (flag != inst.predicate.inverse)
        if op == "send":
            return regs, path
        if inst.mask_ctrl_we_all:
            ip = nxt
            continue
        if op == "cmp":
            flag = COND[inst.cond_mod](_val(inst.srcs[0], regs), _val(inst.srcs[1], regs))
            path.append(ip)
        elif op in ALU:
            if p:
                regs[inst.dst.reg] = _s32(ALU[op](*[_val(s, regs) for s in inst.srcs]))
                path.append(ip)
        elif op == "if":
            nxt = nxt if p else ip + inst.jip
        elif op == "else":
            nxt = ip + inst.jip
        elif op == "while":
            nxt = ip + inst.jip if p else nxt
        elif op == "break":
            nxt = ip + inst.uip + 16 if p else nxt
        elif op in ("cont", "halt"):
            nxt = ip + inst.uip if p else nxt
        elif op != "endif":
            raise AssertionError(op)
        ip = nxt
    raise AssertionError("reference did not terminate")


# ---------------------------------------------------------------- random structured programs
conds = st.sampled_from(sorted(COND))
operand_regs = st.sampled_from([DATA, X])


@st.composite
def statements(draw, depth=0, loop=None):
    """A list of statements; `loop` is None outside loops, else "a" (break/cont ok) or "b" (break only)."""
    out = []
    for _ in range(draw(st.integers(1, 3))):
        kinds = ["assign", "assign", "if"]
        if depth < 3:
            kinds += ["loop"]
        if loop is not None:
            kinds += ["break"] + (["cont"] if loop == "a" else [])
        if depth > 0:
            kinds += ["halt"]
        kind = draw(st.sampled_from(kinds)) if depth < 3 else draw(st.sampled_from(
            [k for k in kinds if k not in ("if", "loop")]))
        cond = (draw(conds), draw(operand_regs), draw(st.integers(0, 60)), draw(st.booleans()))
        if kind == "assign":
            out.append(("assign", draw(st.sampled_from(["add", "mul", "xor"])), draw(st.integers(1, 9))))
        elif kind == "if":
            then = draw(statements(depth + 1, loop))
            els = draw(st.one_of(st.none(), statements(depth + 1, loop)))
            out.append(("if", cond, then, els))
        elif kind == "loop":
            style = draw(st.sampled_from(["a", "b"]))
            out.append(("loop", style, draw(st.integers(0, 6)), draw(statements(depth + 1, style))))
        else:
            out.append((kind, cond))
    return out


def emit(b, stmts, depth=0):
    for s in stmts:
        kind = s[0]
        if kind in ("if", "break", "cont", "halt"):
            c, reg, k, inv = s[1]
            b.cmp(null(), grf(reg), imm(k), cond_mod=c)
            p = pred(inv=inv)
        if kind == "assign":
            _, op, k = s
            b.emit(op, grf(X), grf(X), imm(k) if op != "xor" else grf(DATA))
            b.add(grf(Y), grf(Y), grf(X))
        elif kind == "if":
            b.if_(p)
            emit(b, s[2], depth + 1)
            if s[3] is not None:
                b.else_()
                emit(b, s[3], depth + 1)
            b.endif()
        elif kind == "loop":
            _, style, shift, body = s
            c = COUNTERS[depth]
            b.shr(grf(c), grf(DATA), imm(shift))
            b.emit("and", grf(c), grf(c), imm(3))
            b.do()
            if style == "a":                 # while(true) { if (c <= 0) break; c--; body }
                b.cmp(null(), grf(c), imm(0), cond_mod="le")
                b.break_(pred())
                b.add(grf(c), grf(c), imm(-1))
                emit(b, body, depth + 1)
                b.while_()
            else:                            # do { body; c--; } while (c >= 0)
                emit(b, body, depth + 1)
                b.add(grf(c), grf(c), imm(-1))
                b.cmp(null(), grf(c), imm(0), cond_mod="ge")
                b.while_(pred())
        elif kind == "break":
            b.break_(p)
        elif kind == "cont":
            b.cont(p)
        elif kind == "halt":
            b.halt("end", p)


def has(stmts, kind):
    return any(s[0] == kind or (s[0] == "if" and (has(s[2], kind) or (s[3] and has(s[3], kind))))
               or (s[0] == "loop" and has(s[3], kind)) for s in stmts)


def check_against_reference(program, simd, data, dispatch, check_no_empty=True):
    trace = Trace()

    def setup(th):
        th.set_reg(DATA, data[:simd], T.D)

    th = run_program(program, simd, setup=setup, dispatch_masks=[dispatch], trace=trace, max_steps=20000)[0]
    addrs = layout(program)
    by_addr = dict(zip(addrs, program))
    for lane in range(simd):
        if not (dispatch >> lane) & 1:
            continue
        regs, path = reference_lane(program, {DATA: int(data[lane])})
        for r in (X, Y):
            assert th.reg(r, T.D, simd)[lane] == regs.get(r, 0), (lane, r)
        sim_path = [e.address for e in trace.events
                    if e.mask[lane] and e.opcode not in CF and not by_addr[e.address].mask_ctrl_we_all
                    and e.opcode != "send"]
        assert sim_path == path, f"lane {lane} executed a different instruction sequence"
    if check_no_empty:
        for e in trace.events:
            if e.opcode not in CF and not by_addr[e.address].mask_ctrl_we_all:
                assert e.mask.any(), f"{e.opcode} at {e.address:#x} ran with no channel enabled"
    return th, trace


@settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(stmts=statements(), simd=st.sampled_from([8, 16, 32]), seed=st.integers(0, 2**32 - 1),
       partial=st.booleans())
def test_random_structured_programs_match_scalar_reference(stmts, simd, seed, partial):
    rng = np.random.default_rng(seed)
    data = rng.integers(0, 64, 32).astype(np.int32)
    dispatch = (1 << simd) - 1
    if partial:
        dispatch &= int(rng.integers(1, 1 << simd))
    b = Builder(simd)
    b.mov(grf(X), imm(1))
    b.mov(grf(Y), imm(0))
    emit(b, stmts)
    eot(b)
    check_against_reference(b.program(), simd, data, dispatch, check_no_empty=not has(stmts, "halt"))


def _if_else_program(simd=16):
    b = Builder(simd)
    b.mov(grf(X), imm(0))
    b.cmp(null(), grf(DATA), imm(8), cond_mod="lt")
    b.if_(pred())
    b.cmp(null(), grf(DATA), imm(4), cond_mod="lt")
    b.if_(pred())
    b.mov(grf(X), imm(1))
    b.else_()
    b.mov(grf(X), imm(2))
    b.endif()
    b.else_()
    b.mov(grf(X), imm(3))
    b.endif()
    eot(b)
    return b.program()


def test_nested_if_else_lanes_and_offsets():
    prog = _if_else_program()
    # hand-checked JIP/UIP (bytes): outer if -> after outer else / outer endif; inner endif -> outer else
    ops = [(i.opcode, i.jip, i.uip) for i in prog if i.opcode in CF]
    assert ops == [("if", 128, 144), ("if", 48, 64), ("else", 32, 32), ("endif", 16, None),
                   ("else", 32, 32), ("endif", 16, None)]
    data = np.arange(16, dtype=np.int32)
    th, trace = check_against_reference(prog, 16, data, 0xFFFF)
    np.testing.assert_array_equal(th.reg(X, T.D, 16), [1] * 4 + [2] * 4 + [3] * 8)
    masks = {e.address: e.mask for e in trace.events}
    assert masks[0x50].sum() == 4 and masks[0x70].sum() == 4 and masks[0xA0].sum() == 8


def test_all_lanes_false_jumps_over_the_then_block():
    prog = _if_else_program()
    trace = Trace()
    run_program(prog, 16, setup=lambda th: th.set_reg(DATA, np.full(16, 50), T.D), trace=trace)
    executed = [e.address for e in trace.events]
    assert 0x30 not in executed and 0x50 not in executed       # the inner if block never starts


def test_loop_with_break_and_cont_per_lane_trip_counts():
    b = Builder(16)
    b.mov(grf(X), imm(0))
    b.mov(grf(COUNTERS[0]), imm(0))
    b.do()
    b.add(grf(COUNTERS[0]), grf(COUNTERS[0]), imm(1))
    b.cmp(null(), grf(COUNTERS[0]), grf(DATA), cond_mod="gt")
    b.break_(pred())
    b.emit("and", grf(Y), grf(COUNTERS[0]), imm(1))
    b.cmp(null(), grf(Y), imm(1), cond_mod="eq")
    b.cont(pred())
    b.add(grf(X), grf(X), grf(COUNTERS[0]))
    b.while_()
    eot(b)
    data = np.arange(16, dtype=np.int32)
    th, _ = check_against_reference(b.program(), 16, data, 0xFFFF)
    want = [sum(i for i in range(1, d + 1) if i % 2 == 0) for d in data]
    np.testing.assert_array_equal(th.reg(X, T.D, 16), want)


def test_halt_parks_lanes_until_the_end():
    b = Builder(8)
    b.mov(grf(X), imm(5))
    b.cmp(null(), grf(DATA), imm(3), cond_mod="lt")
    b.if_(pred())
    b.halt("end", pred())
    b.endif()
    b.mov(grf(X), imm(7))
    eot(b)
    prog = b.program()
    halt = next(i for i in prog if i.opcode == "halt")
    assert halt.jip == 16 and halt.uip == 48
    th, _ = check_against_reference(prog, 8, np.arange(8, dtype=np.int32), 0xFF, check_no_empty=False)
    np.testing.assert_array_equal(th.reg(X, T.D, 8), [5, 5, 5, 7, 7, 7, 7, 7])


def test_goto_join_skips_lanes():
    b = Builder(8)
    b.mov(grf(X), imm(1))
    b.cmp(null(), grf(DATA), imm(4), cond_mod="ge")
    b.goto("j", "j", pred())
    b.mov(grf(X), imm(2))
    b.label("j")
    b.join("after")
    b.label("after")
    b.add(grf(X), grf(X), imm(10))
    eot(b)
    th = run_program(b.program(), 8, setup=lambda th: th.set_reg(DATA, np.arange(8), T.D))[0]
    np.testing.assert_array_equal(th.reg(X, T.D, 8), [12] * 4 + [11] * 4)


def test_infinite_loop_is_reported():
    b = Builder(8)
    b.do()
    b.add(grf(X), grf(X), imm(1))
    b.while_()
    eot(b)
    with pytest.raises(SimulationError, match="no end"):
        run_program(b.program(), 8, max_steps=500)


def test_eot_ends_the_thread():
    b = Builder(8)
    b.mov(grf(X), imm(1))
    b.emit("send", null(), grf(112, T.UD), n=8, sfid=sm.SFID_THREAD_SPAWNER, desc=sm.eot_desc(), eot=True,
           mask_ctrl_we_all=True)
    b.mov(grf(X), imm(2))
    trace = Trace()
    th = run_program(b.program(), 8, trace=trace)[0]
    assert th.done and not th.fell_off_end
    assert (th.reg(X, T.D, 8) == 1).all()
    assert [e.opcode for e in trace.events] == ["mov", "send"]


def test_bad_jump_target_is_reported():
    b = Builder(8)
    b.if_(None)
    b.endif()
    prog = b.program()
    prog[0].jip = 8          # middle of an instruction
    prog[0].predicate = pred()     # flags are 0: every lane leaves, so the if jumps
    with pytest.raises(SimulationError, match="not an instruction address"):
        run_program(prog, 8)


def _same_run(prog_a, prog_b, simd, data, dispatch):
    runs = []
    for prog in (prog_a, prog_b):
        trace = Trace()
        th = run_program(prog, simd, setup=lambda th: th.set_reg(DATA, data[:simd], T.D),
                         dispatch_masks=[dispatch], trace=trace, max_steps=20000)[0]
        runs.append((th.reg(X, T.D, simd).tolist(), th.reg(Y, T.D, simd).tolist(),
                     [(e.address, e.mask.tolist()) for e in trace.events]))
    assert runs[0] == runs[1]


@settings(max_examples=25, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(stmts=statements(), simd=st.sampled_from([8, 16]), seed=st.integers(0, 2**32 - 1))
def test_random_programs_run_the_same_after_binary_encode_decode(stmts, simd, seed):
    codec = pytest.importorskip("reconverge.isa.gen9.encoding")
    b = Builder(simd)
    b.mov(grf(X), imm(1))
    b.mov(grf(Y), imm(0))
    emit(b, stmts)
    eot(b)
    prog = b.program()
    decoded = codec.decode_program(codec.encode_program(prog))
    assert [(i.opcode, i.jip, i.uip) for i in decoded] == [(i.opcode, i.jip, i.uip) for i in prog]
    data = np.random.default_rng(seed).integers(0, 64, 32).astype(np.int32)
    _same_run(prog, decoded, simd, data, (1 << simd) - 1)


@pytest.mark.parametrize("build,message", [
    (lambda b: b.jmpi("nowhere"), "unknown label nowhere"),
    (lambda b: b.if_(), "has no endif"),
    (lambda b: b.break_(), "outside a loop"),
    (lambda b: b.while_(), "while without a matching do"),
])
def test_builder_reports_malformed_programs_as_isa_errors(build, message):
    from reconverge.isa.gen9.errors import IsaError
    b = Builder(8)
    with pytest.raises(IsaError, match=message):
        build(b)
        b.program()
