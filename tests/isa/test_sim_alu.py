"""ALU semantics of the simulator against numpy reference computations on random inputs (fixed seeds)."""
import math

import numpy as np
import pytest

from reconverge.isa.gen9 import messages as sm
from reconverge.isa.gen9.builder import Builder, acc, flag, grf, imm, null, pred, scalar
from reconverge.isa.gen9.model import DataType as T
from reconverge.isa.gen9.simulator import SimulationError, run_program

NP = {T.UD: np.uint32, T.D: np.int32, T.UW: np.uint16, T.W: np.int16, T.UB: np.uint8, T.B: np.int8,
      T.F: np.float32, T.HF: np.float16}
INTS = [T.UD, T.D, T.UW, T.W, T.UB, T.B]
SRC_REGS = (10, 20, 30)
DST = 40


def eot(b):
    b.emit("send", null(), grf(112, T.UD), n=8, sfid=sm.SFID_THREAD_SPAWNER, desc=sm.eot_desc(), eot=True,
           mask_ctrl_we_all=True)


def rand(t, n, rng, lo=None, hi=None):
    dt = np.dtype(NP[t])
    if dt.kind == "f":
        return (rng.standard_normal(n) * 10).astype(dt)
    info = np.iinfo(dt)
    return rng.integers(info.min if lo is None else lo, (info.max if hi is None else hi) + 1, n,
                        dtype=np.int64).astype(dt)


def run(opcode, dst_t, srcs, n=16, setup_flags=None, dst_op=None, **kw):
    """srcs: list of (type, values) for register sources or Operand for immediates."""
    b = Builder(n)
    ops = []
    for k, s in enumerate(srcs):
        ops.append(s if not isinstance(s, tuple) else grf(SRC_REGS[k], s[0]))
    b.emit(opcode, dst_op or grf(DST, dst_t), *ops, **kw)
    eot(b)

    def setup(th):
        for k, s in enumerate(srcs):
            if isinstance(s, tuple):
                th.set_reg(SRC_REGS[k], s[1], s[0])
        if setup_flags is not None:
            fl = np.zeros(2, np.uint32)
            fl[:len(setup_flags)] = setup_flags
            th.flags[:] = fl.view(np.uint8)

    th = run_program(b.program(), n, setup=setup)[0]
    return th.reg(DST, dst_t, n), th


BINARY = {
    "add": lambda a, b: a + b,
    "mul": lambda a, b: a * b,
    "and": lambda a, b: a & b,
    "or": lambda a, b: a | b,
    "xor": lambda a, b: a ^ b,
}


@pytest.mark.parametrize("t", INTS)
@pytest.mark.parametrize("op", sorted(BINARY))
def test_integer_binary_ops_wrap_like_numpy(op, t):
    rng = np.random.default_rng(hash((op, t.value)) & 0xFFFF)
    a, b = rand(t, 16, rng), rand(t, 16, rng)
    got, _ = run(op, t, [(t, a), (t, b)])
    with np.errstate(over="ignore"):
        want = BINARY[op](a, b).astype(NP[t])
    np.testing.assert_array_equal(got, want)


@pytest.mark.parametrize("t", [T.F, T.HF])
@pytest.mark.parametrize("op", ["add", "mul"])
def test_float_binary_ops_round_like_numpy(op, t):
    rng = np.random.default_rng(7)
    a, b = rand(t, 16, rng), rand(t, 16, rng)
    got, _ = run(op, t, [(t, a), (t, b)])
    np.testing.assert_array_equal(got, BINARY[op](a, b))


def test_mad_is_src0_plus_src1_times_src2():
    rng = np.random.default_rng(3)
    a, b, c = (rand(T.F, 8, rng) for _ in range(3))
    got, _ = run("mad", T.F, [(T.F, a), (T.F, b), (T.F, c)], n=8, align16=True)
    want = (a.astype(np.float64) + b.astype(np.float64) * c.astype(np.float64)).astype(np.float32)
    np.testing.assert_array_equal(got, want)


def test_mad_rep_ctrl_replicates_a_scalar():
    a = np.arange(8, dtype=np.float32)
    b = np.full(8, 2, np.float32)
    b[0] = 3.0
    srcs = [(T.F, a), grf(SRC_REGS[1], T.F), (T.F, np.ones(8, np.float32) * 4)]
    srcs[1].rep_ctrl = True
    b_ = Builder(8)
    ops = [grf(SRC_REGS[0], T.F), srcs[1], grf(SRC_REGS[2], T.F)]
    b_.emit("mad", grf(DST, T.F), *ops, align16=True)
    eot(b_)

    def setup(th):
        th.set_reg(SRC_REGS[0], a, T.F)
        th.set_reg(SRC_REGS[1], b, T.F)
        th.set_reg(SRC_REGS[2], np.full(8, 4, np.float32), T.F)

    th = run_program(b_.program(), 8, setup=setup)[0]
    np.testing.assert_array_equal(th.reg(DST, T.F, 8), a + 3.0 * 4)


@pytest.mark.parametrize("t", [T.UD, T.D, T.UW, T.W])
@pytest.mark.parametrize("op", ["shl", "shr", "asr"])
def test_shifts(op, t):
    rng = np.random.default_rng(11)
    bits = 8 * np.dtype(NP[t]).itemsize
    a = rand(t, 16, rng)
    s = rng.integers(0, bits, 16).astype(NP[t])
    got, _ = run(op, t, [(t, a), (t, s)])
    u = a.view(NP[{T.D: T.UD, T.W: T.UW}.get(t, t)])
    sgn = a.view(NP[{T.UD: T.D, T.UW: T.W}.get(t, t)])
    want = {"shl": lambda: (u << s.astype(u.dtype)).view(NP[t]),
            "shr": lambda: (u >> s.astype(u.dtype)).view(NP[t]),
            "asr": lambda: (sgn >> s.astype(sgn.dtype)).view(NP[t])}[op]()
    np.testing.assert_array_equal(got, want.view(NP[t]))


@pytest.mark.parametrize("t", INTS + [T.F])
def test_mov_with_neg_abs_and_conversions(t):
    rng = np.random.default_rng(5)
    a = rand(t, 16, rng)
    src = grf(SRC_REGS[0], t, neg=True)
    b = Builder(16)
    b.mov(grf(DST, T.F), src)
    b.mov(grf(DST + 4, T.D), grf(SRC_REGS[0], t, abs=True))
    eot(b)
    th = run_program(b.program(), 16, setup=lambda th: th.set_reg(SRC_REGS[0], a, t))[0]
    np.testing.assert_array_equal(th.reg(DST, T.F, 16), (-(a.astype(np.float64))).astype(np.float32))
    want_abs = np.abs(a.astype(np.float64))
    if t == T.F:
        want_abs = np.trunc(want_abs)
    np.testing.assert_array_equal(th.reg(DST + 4, T.D, 16), want_abs.astype(np.int64).astype(np.int32))


def test_float_to_int_truncates_and_clamps_nan_to_zero():
    a = np.array([1.7, -1.7, 3e10, -3e10, np.nan, 0.5, -0.5, 65535.9], np.float32)
    got, _ = run("mov", T.D, [(T.F, a)], n=8)
    np.testing.assert_array_equal(got, [1, -1, 2**31 - 1, -2**31, 0, 0, 0, 65535])
    got, _ = run("mov", T.UW, [(T.F, a)], n=8)
    np.testing.assert_array_equal(got, [1, 0, 65535, 0, 0, 0, 0, 65535])


@pytest.mark.parametrize("t", [T.D, T.UW, T.F])
def test_saturate(t):
    rng = np.random.default_rng(2)
    a, b = rand(t, 16, rng), rand(t, 16, rng)
    got, _ = run("add", t, [(t, a), (t, b)], saturate=True)
    exact = a.astype(np.float64) + b.astype(np.float64)
    if t == T.F:
        want = np.clip(exact.astype(np.float32), 0, 1)
    else:
        info = np.iinfo(NP[t])
        want = np.clip(exact, info.min, info.max).astype(NP[t])
    np.testing.assert_array_equal(got, want)


CONDS = {"eq": np.equal, "ne": np.not_equal, "gt": np.greater, "ge": np.greater_equal, "lt": np.less,
         "le": np.less_equal}


@pytest.mark.parametrize("t", [T.D, T.UD, T.W, T.F])
@pytest.mark.parametrize("cond", sorted(CONDS))
def test_cmp_writes_flags_and_dst(cond, t):
    rng = np.random.default_rng(len(cond))
    a = rand(t, 16, rng, 0, 4) if t != T.F else np.round(rand(t, 16, rng) / 10).astype(np.float32)
    b = rand(t, 16, rng, 0, 4) if t != T.F else np.round(rand(t, 16, rng) / 10).astype(np.float32)
    got, th = run("cmp", T.D, [(t, a), (t, b)], cond_mod=cond, flag_reg=1, flag_subreg=1)
    want = CONDS[cond](a, b)
    np.testing.assert_array_equal(got, np.where(want, -1, 0))
    f11 = int(th.flags[6]) | int(th.flags[7]) << 8
    assert [(f11 >> i) & 1 for i in range(16)] == list(want.astype(int))
    assert th.flags[:6].sum() == 0


def test_cmp_flag_only_for_enabled_channels_and_nan_unordered():
    a = np.array([np.nan, 1, 2, 3, np.nan, 5, 6, 7], np.float32)
    b = np.zeros(8, np.float32)
    _, th = run("cmp", T.D, [(T.F, a), (T.F, b)], n=8, cond_mod="gt",
                predicate=pred(0, 1), setup_flags=[0x00AA << 16])
    # predicate f0.1 enables odd lanes only; f0.0 gets the compare result there
    assert th.flags[0] == 0b10101010
    _, th = run("cmp", T.D, [(T.F, a), (T.F, b)], n=8, cond_mod="un")
    assert th.flags[0] == 0b00010001


def test_conditional_modifier_on_add_result():
    a = np.array([-3, -2, -1, 0, 1, 2, 3, 4], np.int32)
    _, th = run("add", T.D, [(T.D, a), imm(-1)], n=8, cond_mod="le")
    assert th.flags[0] == 0b00011111


@pytest.mark.parametrize("t", [T.D, T.UD, T.F])
def test_sel_min_max_and_predicated_select(t):
    rng = np.random.default_rng(9)
    a, b = rand(t, 16, rng), rand(t, 16, rng)
    got, _ = run("sel", t, [(t, a), (t, b)], cond_mod="lt")
    np.testing.assert_array_equal(got, np.minimum(a, b))
    got, _ = run("sel", t, [(t, a), (t, b)], cond_mod="ge")
    np.testing.assert_array_equal(got, np.maximum(a, b))
    # predicated sel chooses per lane and writes every lane
    got, _ = run("sel", t, [(t, a), (t, b)], predicate=pred(0, 0), setup_flags=[0x0F0F])
    np.testing.assert_array_equal(got, np.where((0x0F0F >> np.arange(16)) & 1, a, b))


def test_sel_min_prefers_the_number_over_nan():
    a = np.array([np.nan, 1, np.nan, 3, 0, 0, 0, 0], np.float32)
    b = np.array([2, np.nan, np.nan, 1, 0, 0, 0, 0], np.float32)
    got, _ = run("sel", T.F, [(T.F, a), (T.F, b)], n=8, cond_mod="lt")
    np.testing.assert_array_equal(got[:2], [2, 1])
    assert np.isnan(got[2]) and got[3] == 1


@pytest.mark.parametrize("t", [T.UD, T.D, T.UW, T.W])
def test_not(t):
    a = rand(t, 16, np.random.default_rng(1))
    got, _ = run("not", t, [(t, a)])
    np.testing.assert_array_equal(got, ~a)


def test_logic_negate_is_bitwise_not():
    a = np.arange(8, dtype=np.uint32) * 0x01010101
    b = np.full(8, 0xFF00FF00, np.uint32)
    b_ = Builder(8)
    b_.emit("and", grf(DST, T.UD), grf(SRC_REGS[0], T.UD), grf(SRC_REGS[1], T.UD, neg=True))
    eot(b_)

    def setup(th):
        th.set_reg(SRC_REGS[0], a, T.UD)
        th.set_reg(SRC_REGS[1], b, T.UD)

    th = run_program(b_.program(), 8, setup=setup)[0]
    np.testing.assert_array_equal(th.reg(DST, T.UD, 8), a & ~b)


def test_mach_gives_high_half_of_product():
    rng = np.random.default_rng(4)
    for t in (T.D, T.UD):
        a, b = rand(t, 8, rng), rand(t, 8, rng)
        got, _ = run("mach", t, [(t, a), (t, b)], n=8)
        want = [(int(x) * int(y)) >> 32 for x, y in zip(a, b)]
        np.testing.assert_array_equal(got, np.array(want, np.int64).astype(NP[t]))


def test_mul_to_acc_then_mac_accumulates():
    a = np.arange(8, dtype=np.int32)
    b = np.full(8, 3, np.int32)
    b_ = Builder(8)
    b_.mul(acc(T.D), grf(SRC_REGS[0], T.D), grf(SRC_REGS[1], T.D))
    b_.mac(grf(DST, T.D), grf(SRC_REGS[0], T.D), grf(SRC_REGS[0], T.D))
    b_.mov(grf(DST + 1, T.D), acc(T.D))
    eot(b_)

    def setup(th):
        th.set_reg(SRC_REGS[0], a, T.D)
        th.set_reg(SRC_REGS[1], b, T.D)

    th = run_program(b_.program(), 8, setup=setup)[0]
    np.testing.assert_array_equal(th.reg(DST, T.D, 8), a * 3 + a * a)
    np.testing.assert_array_equal(th.reg(DST + 1, T.D, 8), a * 3)


ROUND = {"frc": lambda x: x - np.floor(x), "rndd": np.floor, "rnde": np.rint, "rndz": np.trunc}


@pytest.mark.parametrize("op", sorted(ROUND))
def test_rounding(op):
    a = np.array([-2.5, -1.5, -0.5, 0.5, 1.5, 2.5, 1.25, -7.75] * 2, np.float32)
    got, _ = run(op, T.F, [(T.F, a)])
    np.testing.assert_array_equal(got, ROUND[op](a).astype(np.float32))


def _lzd(x):
    return 32 - int(x).bit_length()


BITS = {
    "lzd": lambda x: _lzd(x),
    "cbit": lambda x: bin(int(x)).count("1"),
    "bfrev": lambda x: int(f"{int(x):032b}"[::-1], 2),
    "fbl": lambda x: (int(x) & -int(x)).bit_length() - 1 if x else 0xFFFFFFFF,
    "fbh": lambda x: _lzd(x) if x else 0xFFFFFFFF,
}


@pytest.mark.parametrize("op", sorted(BITS))
def test_bit_ops_unsigned(op):
    rng = np.random.default_rng(13)
    a = (rng.integers(0, 2**32, 16, dtype=np.uint64) >> rng.integers(0, 32, 16).astype(np.uint64)).astype(np.uint32)
    a[0] = 0
    got, _ = run(op, T.UD, [(T.UD, a)])
    np.testing.assert_array_equal(got, np.array([BITS[op](x) for x in a], np.uint64).astype(np.uint32))


def test_fbh_signed_counts_from_msb_to_first_bit_unlike_sign():
    a = np.array([-1, 0, 1, -2, 0x40000000, -0x40000001, 5, -6], np.int32)
    got, _ = run("fbh", T.D, [(T.D, a)], n=8)
    want = []
    for x in a:
        s = ~int(x) & 0xFFFFFFFF if x < 0 else int(x)
        want.append(-1 if s == 0 else 32 - s.bit_length())
    np.testing.assert_array_equal(got, want)


MATH = {"inv": lambda a, b: 1 / a, "sqrt": lambda a, b: np.sqrt(a), "rsq": lambda a, b: 1 / np.sqrt(a),
        "exp": lambda a, b: np.exp2(a), "log": lambda a, b: np.log2(a), "sin": lambda a, b: np.sin(a),
        "cos": lambda a, b: np.cos(a), "pow": lambda a, b: a ** b, "fdiv": lambda a, b: a / b}


@pytest.mark.parametrize("fc", sorted(MATH))
def test_math_float(fc):
    rng = np.random.default_rng(17)
    a = rng.uniform(0.1, 4, 16).astype(np.float32)
    b = rng.uniform(-2, 2, 16).astype(np.float32)
    got, _ = run("math", T.F, [(T.F, a), (T.F, b)], math_fc=fc)
    np.testing.assert_allclose(got, MATH[fc](a.astype(np.float64), b.astype(np.float64)), rtol=1e-6)


@pytest.mark.parametrize("t", [T.D, T.UD])
def test_math_integer_division(t):
    rng = np.random.default_rng(19)
    a = rand(t, 16, rng)
    b = rand(t, 16, rng, 1 if t == T.UD else -1000, 1000)
    b[b == 0] = 7
    q, _ = run("math", t, [(t, a), (t, b)], math_fc="iqot")
    r, _ = run("math", t, [(t, a), (t, b)], math_fc="irem")
    wq = [int(math.copysign(abs(int(x)) // abs(int(y)), int(x) * int(y))) for x, y in zip(a, b)]
    np.testing.assert_array_equal(q, np.array(wq, np.int64).astype(NP[t]))
    np.testing.assert_array_equal(r, np.array([int(x) - w * int(y) for x, y, w in zip(a, b, wq)],
                                              np.int64).astype(NP[t]))


def test_regions_scalar_strided_and_vstride():
    a = np.arange(32, dtype=np.int32)
    b = Builder(8)
    b.mov(grf(DST, T.D), grf(SRC_REGS[0], T.D, subreg=3, region=(0, 1, 0)))          # broadcast
    b.mov(grf(DST + 1, T.D), grf(SRC_REGS[0], T.D, region=(8, 4, 2)))                 # <8;4,2>
    b.mov(grf(DST + 2, T.D), grf(SRC_REGS[0], T.D, subreg=1, region=(4, 2, 1)))       # <4;2,1>
    b.mov(grf(DST + 3, T.W, hstride=2), grf(SRC_REGS[0], T.W, region=(16, 8, 2)))     # word dst stride 2
    eot(b)
    th = run_program(b.program(), 8, setup=lambda th: th.write_regs(SRC_REGS[0], a))[0]
    np.testing.assert_array_equal(th.reg(DST, T.D, 8), [3] * 8)
    np.testing.assert_array_equal(th.reg(DST + 1, T.D, 8), [0, 2, 4, 6, 8, 10, 12, 14])
    np.testing.assert_array_equal(th.reg(DST + 2, T.D, 8), [1, 2, 5, 6, 9, 10, 13, 14])
    np.testing.assert_array_equal(th.reg(DST + 3, T.W, 16)[::2], a.view(np.int16)[:16:2][:8])
    assert (th.reg(DST + 3, T.W, 16)[1::2] == 0).all()


def test_packed_vector_immediates():
    from reconverge.isa.gen9.model import Operand, RegFile
    b = Builder(8)
    b.mov(grf(DST, T.W), Operand(RegFile.IMM, T.V, value=0x76543210))
    b.mov(grf(DST + 1, T.W), Operand(RegFile.IMM, T.V, value=0xF8E00001))
    b.mov(grf(DST + 2, T.F), Operand(RegFile.IMM, T.VF, value=0xB0403800))   # 0, 1.5, 2.0, -1.0 (8-bit floats)
    eot(b)
    th = run_program(b.program(), 8)[0]
    np.testing.assert_array_equal(th.reg(DST, T.W, 8), range(8))
    np.testing.assert_array_equal(th.reg(DST + 1, T.W, 8), [1, 0, 0, 0, 0, -2, -8, -1])
    np.testing.assert_array_equal(th.reg(DST + 2, T.F, 8), [0, 1.5, 2.0, -1.0] * 2)


def test_channel_offset_and_we_all_and_exec_size_1():
    a = np.arange(16, dtype=np.int32) + 100
    b = Builder(16)
    b.mov(grf(DST, T.D, subreg=0), grf(SRC_REGS[0], T.D, subreg=8, region=(8, 8, 1)), n=8, chan_offset=8)
    b.mov(grf(DST + 2, T.D), scalar(SRC_REGS[0], T.D, 5), n=1, mask_ctrl_we_all=True)
    eot(b)
    # lanes 8..15 dispatched only: the M8 half runs; the WE_all scalar ignores the dispatch mask
    th = run_program(b.program(), 16, setup=lambda th: th.set_reg(SRC_REGS[0], a, T.D),
                     dispatch_masks=[0xFF00])[0]
    np.testing.assert_array_equal(th.reg(DST, T.D, 8), a[8:])
    assert th.reg(DST + 2, T.D, 1)[0] == 105
    th = run_program(b.program(), 16, setup=lambda th: th.set_reg(SRC_REGS[0], a, T.D),
                     dispatch_masks=[0x00FF])[0]
    assert (th.reg(DST, T.D, 8) == 0).all()


@pytest.mark.parametrize("control,expect", [("", 0b0110), ("any2h", 0b1111), ("all2h", 0b0000),
                                            ("any4h", 0b1111), ("all4h", 0)])
def test_predicate_controls_and_inversion(control, expect):
    a = np.arange(4, dtype=np.int32) + 1
    for inv in (False, True):
        got, _ = run("mov", T.D, [(T.D, a)], n=4, predicate=pred(1, 0, inv, control), setup_flags=[0, 0b0110])
        mask = expect ^ (0b1111 if inv else 0)
        np.testing.assert_array_equal(got, np.where((mask >> np.arange(4)) & 1, a, 0))


def test_flag_register_as_operand():
    b = Builder(16)
    b.emit("and", flag(0, 1), flag(0, 0), imm(0x0FF0, T.UW), n=1, mask_ctrl_we_all=True)
    b.mov(grf(DST, T.UW), flag(0, 1), n=1, mask_ctrl_we_all=True)
    eot(b)
    th = run_program(b.program(), 16, setup=lambda th: th.flags.__setitem__(slice(0, 2), [0x3C, 0x3C]))[0]
    assert th.reg(DST, T.UW, 1)[0] == 0x3C3C & 0x0FF0


def test_unmodelled_opcode_raises():
    b = Builder(8)
    b.emit("dp4", grf(DST, T.F), grf(1, T.F), grf(2, T.F))
    with pytest.raises(SimulationError, match="dp4"):
        run_program(b.program(), 8)


def test_indirect_register_addressing_1x1_and_vxh():
    from reconverge.isa.gen9.model import Operand, RegFile, Region
    from reconverge.isa.gen9.registers import ARF_ADDRESS
    data = np.arange(64, dtype=np.int32)
    a0 = Operand(RegFile.ARF, T.UW, ARF_ADDRESS, 0, Region(1, 1, 0))
    b = Builder(8)
    b.mov(a0, imm(SRC_REGS[0] * 32 + 8, T.UW), n=1, mask_ctrl_we_all=True)            # a0.0 = &r10.2
    b.mov(Operand(RegFile.ARF, T.UW, ARF_ADDRESS, 1), imm(SRC_REGS[0] * 32 + 64, T.UW), n=1,
          mask_ctrl_we_all=True)                                                       # a0.1 = &r12.0
    ind = Operand(RegFile.GRF, T.D, region=Region(8, 8, 1), indirect=True, addr_subreg=0, addr_imm=4)
    b.mov(grf(DST, T.D), ind)                                                          # r[a0.0, 4] = r10.3..
    vxh = Operand(RegFile.GRF, T.D, region=Region(-1, 4, 1), indirect=True, addr_subreg=0, addr_imm=0)
    b.mov(grf(DST + 1, T.D), vxh)                                                      # rows from a0.0, a0.1
    b.mov(Operand(RegFile.GRF, T.D, indirect=True, addr_subreg=1, addr_imm=32), imm(-7))  # write r13
    eot(b)
    th = run_program(b.program(), 8, setup=lambda th: th.write_regs(SRC_REGS[0], data))[0]
    np.testing.assert_array_equal(th.reg(DST, T.D, 8), data[3:11])
    np.testing.assert_array_equal(th.reg(DST + 1, T.D, 8), list(data[2:6]) + list(data[16:20]))
    np.testing.assert_array_equal(th.reg(SRC_REGS[0] + 3, T.D, 8), [-7] * 8)


def test_jmpi_with_register_offset():
    b = Builder(8)
    b.mov(grf(DST, T.D), imm(1))
    b.emit("jmpi", None, scalar(SRC_REGS[0], T.D), n=1, mask_ctrl_we_all=True)
    b.mov(grf(DST, T.D), imm(2))
    b.mov(grf(DST + 1, T.D), imm(3))
    eot(b)
    th = run_program(b.program(), 8, setup=lambda th: th.set_reg(SRC_REGS[0], [16] * 8, T.D))[0]
    assert th.reg(DST, T.D, 1)[0] == 1 and th.reg(DST + 1, T.D, 1)[0] == 3     # skipped "mov 2" only


@pytest.mark.parametrize("dst_t", [T.F, T.UW, T.B])
def test_cmp_true_is_all_ones_in_the_destination_type(dst_t):
    a = np.arange(8, dtype=np.int32)
    _, th = run("cmp", dst_t, [(T.D, a), imm(4)], n=8, cond_mod="ge")
    raw = th.grf[DST * 32:DST * 32 + 8 * dst_t.size].reshape(8, dst_t.size)
    np.testing.assert_array_equal(raw.min(axis=1), [0] * 4 + [255] * 4)
    np.testing.assert_array_equal(raw.max(axis=1), [0] * 4 + [255] * 4)


@pytest.mark.parametrize("n,offset", [(1, 3), (2, 4), (4, 4), (4, 12), (8, 24), (16, 16), (32, 0)])
def test_small_and_wide_exec_sizes_with_channel_offsets(n, offset):
    """An (n|M offset) add touches exactly channels offset..offset+n-1 of a SIMD32 thread."""
    a = np.arange(32, dtype=np.int32) * 3
    b = Builder(32)
    b.add(grf(DST, T.D, subreg=offset), grf(SRC_REGS[0], T.D, subreg=offset,
                                            region=(0, 1, 0) if n == 1 else (min(n, 8), min(n, 8), 1)),
          imm(1), n=n, chan_offset=offset)
    eot(b)
    mask = 0xAAAAAAAA | (1 << offset)           # odd lanes + the first channel of the group
    th = run_program(b.program(), 32, setup=lambda th: th.set_reg(SRC_REGS[0], a, T.D), dispatch_masks=[mask])[0]
    got = th.reg(DST, T.D, 32)
    lanes = np.arange(32)
    on = (lanes >= offset) & (lanes < offset + n) & (((mask >> lanes) & 1) == 1)
    np.testing.assert_array_equal(got, np.where(on, a + 1, 0))


def test_mul_mach_pair_gives_a_64_bit_product():
    """Mesa's 32x32->64 pattern: mul acc0 a b.uw ; mach (AccWrEn) hi a b ; mov lo acc0."""
    rng = np.random.default_rng(21)
    for t in (T.D, T.UD):
        a, c = rand(t, 8, rng), rand(t, 8, rng)
        b_ = Builder(8)
        b_.mul(acc(t), grf(SRC_REGS[0], t), grf(SRC_REGS[1], T.UW, region=(16, 8, 2)))
        b_.mach(grf(DST, t), grf(SRC_REGS[0], t), grf(SRC_REGS[1], t), acc_wr_en=True)
        b_.mov(grf(DST + 1, T.UD), acc(T.UD))
        eot(b_)

        def setup(th):
            th.set_reg(SRC_REGS[0], a, t)
            th.set_reg(SRC_REGS[1], c, t)

        th = run_program(b_.program(), 8, setup=setup)[0]
        full = [int(x) * int(y) for x, y in zip(a, c)]
        np.testing.assert_array_equal(th.reg(DST, t, 8), np.array([p >> 32 for p in full]).astype(NP[t]))
        np.testing.assert_array_equal(th.reg(DST + 1, T.UD, 8), [p & 0xFFFFFFFF for p in full])


@pytest.mark.parametrize("t", [T.D, T.UD, T.HF])
def test_mad_integer_and_half(t):
    rng = np.random.default_rng(23)
    if t == T.HF:
        a, b, c = (rand(t, 8, rng) for _ in range(3))
        want = (a.astype(np.float64) + b.astype(np.float64) * c.astype(np.float64)).astype(np.float16)
    else:
        a, b, c = (rand(t, 8, rng, 0, 1000) for _ in range(3))
        with np.errstate(over="ignore"):
            want = a + b * c
    got, _ = run("mad", t, [(t, a), (t, b), (t, c)], n=8, align16=True)
    np.testing.assert_array_equal(got, want)


@pytest.mark.parametrize("t", [T.UB, T.B, T.UW, T.W, T.D, T.UD])
def test_avg_rounds_up(t):
    rng = np.random.default_rng(29)
    a, b = rand(t, 16, rng), rand(t, 16, rng)
    got, _ = run("avg", t, [(t, a), (t, b)])
    np.testing.assert_array_equal(got, ((a.astype(np.int64) + b.astype(np.int64) + 1) >> 1).astype(NP[t]))


def test_qword_logical_shift_and_unsigned_compare_above_2_pow_63():
    """:uq values with the top bit set: shr is logical and cmp unsigned (the simulator widens integers to
    int64, which read such values as negative; 64-bit division's shift-subtract loop found this)."""
    a = np.array([1 << 63, (1 << 64) - 1, 5, 1 << 62], np.uint64)
    b = np.array([1, 1 << 63, 1 << 63, 3], np.uint64)
    prog = Builder(4)
    prog.emit("shr", grf(DST, T.UQ), grf(SRC_REGS[0], T.UQ, region=(4, 4, 1)), imm(63, T.UD), n=4)
    prog.emit("cmp", grf(DST + 2, T.D), grf(SRC_REGS[0], T.UQ, region=(4, 4, 1)),
              grf(SRC_REGS[1], T.UQ, region=(4, 4, 1)), n=4, cond_mod="ge")
    eot(prog)

    def setup(th):
        th.set_reg(SRC_REGS[0], a, T.UQ)
        th.set_reg(SRC_REGS[1], b, T.UQ)

    th = run_program(prog.program(), 4, setup=setup)[0]
    np.testing.assert_array_equal(th.reg(DST, T.UQ, 4), a >> np.uint64(63))
    np.testing.assert_array_equal(th.reg(DST + 2, T.D, 4), np.where(a >= b, -1, 0))


@pytest.mark.parametrize("dst_t", [T.F, T.DF])
def test_a_64_bit_integer_moved_to_a_float_is_rounded_once_and_uq_is_unsigned(dst_t):
    """mov :f/:df from :uq and :q, as uitofp and sitofp of 64-bit values select: a :uq above 2^63 is unsigned
    (the simulator once read it as int64, so (float)ulong of such values was negative), and a value past 2^53
    is rounded once to the float (through float64 first, 2^53 + 2^29 + 1 became 2^53, not 2^53 + 2^30)."""
    values = [2**63 + 5, 2**64 - 1, 2**63, 2**53 + 2**29 + 1, 12345678901234567890, 1, 2**62 + 2**38 + 1, 0]
    want_t = np.float32 if dst_t == T.F else np.float64
    uq = np.array(values, dtype=np.uint64)
    got, _ = run("mov", dst_t, [(T.UQ, uq)], n=8)
    want = np.array([want_t(float(v)) if dst_t == T.DF else np.uint64(v).astype(np.float32) for v in values])
    assert got.tolist() == want.astype(want_t).tolist()
    q = uq.view(np.int64)
    got, _ = run("mov", dst_t, [(T.Q, q)], n=8)
    assert got.tolist() == q.astype(want_t).tolist()
