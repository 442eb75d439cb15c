"""Every opcode's semantics in the interpreter, checked against independent numpy/Python references.

Each check runs a one-instruction kernel over arrays (out[i] = op(in0[i], in1[i], ...)), so dispatch,
loads, stores and pointer arithmetic are exercised on the way; comparisons are bit for bit.
"""
from __future__ import annotations

import ctypes
import ctypes.util

import numpy as np
import pytest

from reconverge.lowering.interp import InterpreterError, run_kernel
from reconverge.lowering.ir import (
    F16,
    F32,
    F64,
    I1,
    I8,
    I16,
    I32,
    I64,
    Arg,
    Block,
    Const,
    Function,
    Instr,
    int_type,
    ptr,
)
from reconverge.lowering.ir.opcodes import FCMP_PREDICATES, ICMP_PREDICATES, OPCODES

UNSIGNED = {8: np.uint8, 16: np.uint16, 32: np.uint32, 64: np.uint64}
SIGNED = {8: np.int8, 16: np.int16, 32: np.int32, 64: np.int64}
FLOATS = {16: np.float16, 32: np.float32, 64: np.float64}
WIDTHS = (8, 16, 32, 64)
N = 96
pytestmark = pytest.mark.filterwarnings("ignore::RuntimeWarning")   # numpy references overflow on purpose


def storage_dtype(ty):
    if ty.is_float:
        return FLOATS[ty.bits]
    if ty.is_ptr:
        return np.uint64
    return np.uint8 if ty.bits == 1 else UNSIGNED[ty.bits]


def elementwise(opcode, result_type, operand_types, inputs, attrs=None, consts=None):
    """out[i] = opcode(inputs...[i]); `consts` maps operand positions to Const operands instead."""
    n = len(inputs[0]) if inputs else N
    args = [Arg(ptr(1), k, f"in{k}") for k in range(len(inputs))] + [Arg(ptr(1), len(inputs), "out")]
    f = Function(f"elementwise_{opcode}", args)
    b = Block("entry")
    gid = b.append(Instr("workitem", [Const(I32, 0)], I64, {"fn": "global_id"}, name="gid"))

    def element_ptr(arg, ty):
        off = b.append(Instr("mul", [gid, Const(I64, ty.size)], I64))
        return b.append(Instr("ptradd", [arg, off], ptr(1)))

    values, k = [], 0
    for pos, ty in enumerate(operand_types):
        if consts and pos in consts:
            values.append(consts[pos])
        else:
            values.append(b.append(Instr("load", [element_ptr(args[k], ty)], ty, name=f"x{k}")))
            k += 1
    r = b.append(Instr(opcode, values, result_type, attrs or {}, name="r"))
    b.append(Instr("store", [r, element_ptr(args[-1], result_type)]))
    b.append(Instr("ret", []))
    f.blocks = [b]
    f.update_cfg()
    ins = [np.ascontiguousarray(x, dtype=storage_dtype(t)) for x, t in
           zip(inputs, [t for p, t in enumerate(operand_types) if not (consts and p in consts)])]
    out = np.zeros(n, dtype=storage_dtype(result_type))
    run_kernel(f, ins + [out], n, 1)
    return out


def rand_ints(bits, rng, n=N):
    """Random bit patterns with the interesting values (0, 1, -1, MIN, MAX) always present."""
    u = UNSIGNED[bits]
    special = np.array([0, 1, (1 << bits) - 1, 1 << (bits - 1), (1 << (bits - 1)) - 1, 2, 3], dtype=u)
    x = rng.integers(0, 1 << bits, size=n, dtype=np.uint64).astype(u) if bits < 64 else \
        rng.integers(0, 1 << 63, size=n, dtype=np.uint64) * np.uint64(2) + rng.integers(0, 2, size=n, dtype=np.uint64)
    small = rng.integers(-20, 20, size=n // 3).astype(SIGNED[bits]).view(u)
    x[: len(small)] = small
    x[: len(special)] = special
    return x


def rand_floats(bits, rng, n=N, nan=True):
    dt = FLOATS[bits]
    x = (rng.standard_normal(n) * np.exp2(rng.integers(-12, 12, size=n))).astype(dt)
    special = [0.0, -0.0, 1.0, -1.0, np.inf, -np.inf, 0.5, 2.5, -3.5] + ([np.nan] if nan else [])
    x[: len(special)] = np.array(special, dtype=dt)
    return x


def bits_of(a):
    a = np.asarray(a)
    return a.view({2: np.uint16, 4: np.uint32, 8: np.uint64}[a.dtype.itemsize])


def assert_same_floats(got, want):
    """Bit-identical, except that any NaN matches any NaN."""
    got, want = np.asarray(got), np.asarray(want, dtype=got.dtype)
    both_nan = np.isnan(got) & np.isnan(want)
    bad = ~both_nan & (bits_of(got) != bits_of(want))
    assert not bad.any(), f"mismatch at {np.flatnonzero(bad)[:5]}: got {got[bad][:5]}, want {want[bad][:5]}"


@pytest.fixture
def rng():
    return np.random.default_rng(1234)


# ----- integer arithmetic -----

@pytest.mark.parametrize("bits", WIDTHS)
@pytest.mark.parametrize("op,ref", [("add", np.add), ("sub", np.subtract), ("mul", np.multiply),
                                    ("and", np.bitwise_and), ("or", np.bitwise_or), ("xor", np.bitwise_xor)])
def test_wrapping_arithmetic(op, ref, bits, rng):
    a, b = rand_ints(bits, rng), rand_ints(bits, rng)[::-1].copy()
    ty = int_type(bits)
    np.testing.assert_array_equal(elementwise(op, ty, [ty, ty], [a, b]), ref(a, b))


@pytest.mark.parametrize("bits", WIDTHS)
def test_unsigned_division(bits, rng):
    a, b = rand_ints(bits, rng), rand_ints(bits, rng)[::-1].copy()
    b[b == 0] = 7
    ty = int_type(bits)
    np.testing.assert_array_equal(elementwise("udiv", ty, [ty, ty], [a, b]), a // b)
    np.testing.assert_array_equal(elementwise("urem", ty, [ty, ty], [a, b]), a % b)


@pytest.mark.parametrize("bits", WIDTHS)
def test_signed_division_truncates_toward_zero(bits, rng):
    s = SIGNED[bits]
    a, b = rand_ints(bits, rng).view(s), rand_ints(bits, rng)[::-1].copy().view(s)
    b[b == 0] = -3
    b[(a == np.iinfo(s).min) & (b == -1)] = 5
    ty = int_type(bits)
    rem = np.fmod(a, b)                      # C remainder: the sign of the dividend
    quo = (a - rem) // b                     # exact division
    np.testing.assert_array_equal(elementwise("srem", ty, [ty, ty], [a, b]).view(s), rem)
    np.testing.assert_array_equal(elementwise("sdiv", ty, [ty, ty], [a, b]).view(s), quo)


def test_division_fixed_values():
    a = np.array([7, -7, 7, -7, -128, 0], dtype=np.int8)
    b = np.array([2, 2, -2, -2, 1, -5], dtype=np.int8)
    assert elementwise("sdiv", I8, [I8, I8], [a, b]).view(np.int8).tolist() == [3, -3, -3, 3, -128, 0]
    assert elementwise("srem", I8, [I8, I8], [a, b]).view(np.int8).tolist() == [1, -1, 1, -1, 0, 0]


@pytest.mark.parametrize("op", ["udiv", "sdiv", "urem", "srem"])
def test_division_by_zero_is_an_error(op):
    with pytest.raises(InterpreterError, match=rf"instruction .*\({op} %r\).*by zero"):
        elementwise(op, I32, [I32, I32], [np.array([5], np.uint32), np.array([0], np.uint32)])


def test_signed_division_overflow_is_an_error():
    with pytest.raises(InterpreterError, match="overflow"):
        elementwise("sdiv", I32, [I32, I32], [np.array([-2**31], np.int32), np.array([-1], np.int32)])


@pytest.mark.parametrize("bits", WIDTHS)
def test_shifts(bits, rng):
    u, s = UNSIGNED[bits], SIGNED[bits]
    a = rand_ints(bits, rng)
    sh = rng.integers(0, bits, size=N).astype(u)
    ty = int_type(bits)
    np.testing.assert_array_equal(elementwise("shl", ty, [ty, ty], [a, sh]), a << sh)
    np.testing.assert_array_equal(elementwise("lshr", ty, [ty, ty], [a, sh]), a >> sh)
    np.testing.assert_array_equal(elementwise("ashr", ty, [ty, ty], [a, sh]).view(s), a.view(s) >> sh.astype(s))


def test_oversized_shift_gives_a_value_not_an_error():
    # poison in LLVM, and optimized code may compute it speculatively: any value, but no exception
    out = elementwise("shl", I32, [I32, I32], [np.array([1], np.uint32), np.array([40], np.uint32)])
    assert out.shape == (1,)


@pytest.mark.parametrize("bits", WIDTHS)
def test_min_max(bits, rng):
    s = SIGNED[bits]
    a, b = rand_ints(bits, rng), rand_ints(bits, rng)[::-1].copy()
    ty = int_type(bits)
    np.testing.assert_array_equal(elementwise("umin", ty, [ty, ty], [a, b]), np.minimum(a, b))
    np.testing.assert_array_equal(elementwise("umax", ty, [ty, ty], [a, b]), np.maximum(a, b))
    np.testing.assert_array_equal(elementwise("smin", ty, [ty, ty], [a, b]).view(s), np.minimum(a.view(s), b.view(s)))
    np.testing.assert_array_equal(elementwise("smax", ty, [ty, ty], [a, b]).view(s), np.maximum(a.view(s), b.view(s)))


@pytest.mark.parametrize("bits", WIDTHS)
def test_mulhi(bits, rng):
    s = SIGNED[bits]
    a, b = rand_ints(bits, rng), rand_ints(bits, rng)[::-1].copy()
    ty = int_type(bits)
    want_u = [(int(x) * int(y)) >> bits for x, y in zip(a, b)]
    want_s = [(int(x) * int(y)) >> bits for x, y in zip(a.view(s), b.view(s))]   # floor shift = high half
    assert [int(v) for v in elementwise("mulhi_u", ty, [ty, ty], [a, b])] == want_u
    assert [int(v) for v in elementwise("mulhi_s", ty, [ty, ty], [a, b]).view(s)] == want_s


@pytest.mark.parametrize("bits", WIDTHS)
def test_bit_counting_and_abs(bits, rng):
    s = SIGNED[bits]
    a = rand_ints(bits, rng)
    ty = int_type(bits)
    text = [format(int(x), f"0{bits}b") for x in a]
    assert elementwise("popcount", ty, [ty], [a]).tolist() == [t.count("1") for t in text]
    assert elementwise("clz", ty, [ty], [a]).tolist() == [len(t) - len(t.lstrip("0")) for t in text]
    assert elementwise("ctz", ty, [ty], [a]).tolist() == [len(t) - len(t.rstrip("0")) for t in text]
    assert elementwise("bitreverse", ty, [ty], [a]).tolist() == [int(t[::-1], 2) for t in text]
    np.testing.assert_array_equal(elementwise("abs", ty, [ty], [a]).view(s), np.abs(a.view(s)))  # MIN wraps


# ----- comparisons and select -----

@pytest.mark.parametrize("bits", WIDTHS)
def test_icmp_every_predicate(bits, rng):
    s = SIGNED[bits]
    a = rand_ints(bits, rng)
    b = np.where(rng.integers(0, 3, N) == 0, a, rand_ints(bits, rng)[::-1])   # a third equal pairs
    ty = int_type(bits)
    refs = {"eq": a == b, "ne": a != b, "ugt": a > b, "uge": a >= b, "ult": a < b, "ule": a <= b,
            "sgt": a.view(s) > b.view(s), "sge": a.view(s) >= b.view(s), "slt": a.view(s) < b.view(s),
            "sle": a.view(s) <= b.view(s)}
    assert set(refs) == set(ICMP_PREDICATES)
    for pred, want in refs.items():
        got = elementwise("icmp", I1, [ty, ty], [a, b], {"pred": pred})
        np.testing.assert_array_equal(got, want.astype(np.uint8), err_msg=pred)


@pytest.mark.parametrize("bits", (32, 64))
def test_fcmp_every_predicate_with_nans(bits, rng):
    a = rand_floats(bits, rng)
    b = np.where(rng.integers(0, 3, N) == 0, a, rand_floats(bits, rng)[::-1])
    b[-4:] = np.nan
    ty = F32 if bits == 32 else F64
    unordered = np.isnan(a) | np.isnan(b)
    with np.errstate(invalid="ignore"):
        rel = {"eq": a == b, "gt": a > b, "ge": a >= b, "lt": a < b, "le": a <= b, "ne": (a < b) | (a > b)}
    refs = {"false": np.zeros(N, bool), "true": np.ones(N, bool), "ord": ~unordered, "uno": unordered}
    for r, v in rel.items():
        refs["o" + r] = ~unordered & v
        refs["u" + r] = unordered | v
    assert set(refs) == set(FCMP_PREDICATES)
    assert unordered.sum() >= 5
    for pred, want in refs.items():
        got = elementwise("fcmp", I1, [ty, ty], [a, b], {"pred": pred})
        np.testing.assert_array_equal(got, want.astype(np.uint8), err_msg=pred)


def test_select(rng):
    c = rng.integers(0, 2, N).astype(np.uint8)
    a, b = rand_floats(32, rng), rand_floats(32, rng)
    assert_same_floats(elementwise("select", F32, [I1, F32, F32], [c, a, b]), np.where(c == 1, a, b))
    x, y = rand_ints(16, rng), rand_ints(16, rng)
    np.testing.assert_array_equal(elementwise("select", I16, [I1, I16, I16], [c, x, y]), np.where(c == 1, x, y))


# ----- floating point -----

@pytest.mark.parametrize("bits", (16, 32, 64))
@pytest.mark.parametrize("op,ref", [("fadd", np.add), ("fsub", np.subtract), ("fmul", np.multiply),
                                    ("fdiv", np.divide), ("frem", np.fmod), ("fmin", np.fmin), ("fmax", np.fmax)])
def test_float_arithmetic_rounds_like_numpy(op, ref, bits, rng):
    a, b = rand_floats(bits, rng), rand_floats(bits, rng)[::-1].copy()
    ty = {16: F16, 32: F32, 64: F64}[bits]
    with np.errstate(all="ignore"):
        want = ref(a, b)
    assert want.dtype == FLOATS[bits]
    assert_same_floats(elementwise(op, ty, [ty, ty], [a, b]), want)


def test_float32_rounding_is_single_precision():
    # 1 + 2^-24 is a tie in float32 (even: 1.0); in double it would be exact
    a = np.array([1.0, 16777216.0], np.float32)
    b = np.array([2.0 ** -24, 1.0], np.float32)
    assert elementwise("fadd", F32, [F32, F32], [a, b]).tolist() == [1.0, 16777216.0]
    third = elementwise("fdiv", F32, [F32, F32], [np.array([1.0], np.float32), np.array([3.0], np.float32)])
    assert bits_of(third)[0] == 0x3EAAAAAB


def test_fmin_fmax_signed_zero_ties_return_the_first_operand():
    # LLVM leaves the sign open; the x86 JIT of llvm.minnum/maxnum returns the first operand on a tie
    a = np.array([-0.0, 0.0], np.float32)
    b = np.array([0.0, -0.0], np.float32)
    for op in ("fmin", "fmax"):
        got = elementwise(op, F32, [F32, F32], [a, b])
        np.testing.assert_array_equal(np.signbit(got), [True, False])


def test_fmin_fmax_return_the_non_nan_operand():
    a = np.array([np.nan, 1.0, np.nan], np.float32)
    b = np.array([2.0, np.nan, np.nan], np.float32)
    got_min = elementwise("fmin", F32, [F32, F32], [a, b])
    assert got_min[0] == 2.0 and got_min[1] == 1.0 and np.isnan(got_min[2])
    got_max = elementwise("fmax", F32, [F32, F32], [a, b])
    assert got_max[0] == 2.0 and got_max[1] == 1.0 and np.isnan(got_max[2])


@pytest.mark.parametrize("bits", (16, 32, 64))
def test_fneg_flips_the_sign_bit(bits, rng):
    a = rand_floats(bits, rng)
    ty = {16: F16, 32: F32, 64: F64}[bits]
    sign = np.array(1 << (bits - 1), dtype=bits_of(a).dtype)
    np.testing.assert_array_equal(bits_of(elementwise("fneg", ty, [ty], [a])), bits_of(a) ^ sign)


def _libm():
    return ctypes.CDLL(ctypes.util.find_library("m") or "libm.so.6")


def test_fma_rounds_once_fmuladd_twice():
    a = np.array([1 + 2 ** -13], np.float32)
    c = np.array([-(1 + 2 ** -12)], np.float32)     # a*a = 1 + 2^-12 + 2^-26: the last term needs fma
    assert elementwise("fma", F32, [F32] * 3, [a, a, c]).tolist() == [2 ** -26]
    assert elementwise("fmuladd", F32, [F32] * 3, [a, a, c]).tolist() == [0.0]
    d = np.array([1 + 2 ** -30], np.float64)
    e = np.array([-(1 + 2 ** -29)], np.float64)
    assert elementwise("fma", F64, [F64] * 3, [d, d, e]).tolist() == [2 ** -60]
    assert elementwise("fmuladd", F64, [F64] * 3, [d, d, e]).tolist() == [0.0]


@pytest.mark.parametrize("bits", (32, 64))
def test_fma_matches_the_c_library(bits, rng):
    """Correct rounding, including the cancellation cases where double-then-single rounding goes wrong."""
    dt = FLOATS[bits]
    n = 400
    a, b = rand_floats(bits, rng, n, nan=False), rand_floats(bits, rng, n, nan=False)
    c = rand_floats(bits, rng, n, nan=False)
    with np.errstate(all="ignore"):
        prod = (a * b).astype(dt)
        c[n // 2:] = -prod[n // 2:] * (1 + dt(2) ** -rng.integers(10, 30, n - n // 2).astype(dt))
    ulp = np.spacing(np.abs(prod[: n // 4]))
    c[: n // 4] = ulp * dt(0.5) * rng.choice([-1, 1], n // 4)          # near-tie additions
    fn = getattr(_libm(), "fmaf" if bits == 32 else "fma")
    ct = ctypes.c_float if bits == 32 else ctypes.c_double
    fn.argtypes, fn.restype = [ct] * 3, ct
    want = np.array([fn(float(x), float(y), float(z)) for x, y, z in zip(a, b, c)], dtype=dt)
    assert_same_floats(elementwise("fma", F32 if bits == 32 else F64, [F32 if bits == 32 else F64] * 3, [a, b, c]),
                       want)
    with np.errstate(all="ignore"):
        assert_same_floats(elementwise("fmuladd", F32 if bits == 32 else F64, [F32 if bits == 32 else F64] * 3,
                                       [a, b, c]), (a * b).astype(dt) + c)


def test_fma_f32_double_rounding_case():
    # a*b = 1 + 2^-11 + 2^-24 is a float32 tie; + 2^-80 puts the exact sum just above it (round up), but
    # rounding the sum to double first loses the 2^-80 and the tie then rounds to even (down)
    a = np.array([1 + 2 ** -12], np.float32)
    c = np.array([2.0 ** -80], np.float32)
    got = elementwise("fma", F32, [F32] * 3, [a, a, c])
    assert got.tolist() == [1 + 2 ** -11 + 2 ** -23]
    fmaf = _libm().fmaf
    fmaf.argtypes, fmaf.restype = [ctypes.c_float] * 3, ctypes.c_float
    assert fmaf(float(a[0]), float(a[0]), float(c[0])) == got[0]


EXACT_MATH = {"sqrt": np.sqrt, "fabs": np.fabs, "floor": np.floor, "ceil": np.ceil, "trunc": np.trunc,
              "rint": np.rint}
APPROX_MATH = {"exp": np.exp, "exp2": np.exp2, "log": np.log, "log2": np.log2, "log10": np.log10,
               "sin": np.sin, "cos": np.cos, "tan": np.tan, "asin": np.arcsin, "acos": np.arccos,
               "atan": np.arctan, "sinh": np.sinh, "cosh": np.cosh, "tanh": np.tanh, "cbrt": np.cbrt,
               "rsqrt": lambda x: 1 / np.sqrt(x), "exp10": lambda x: np.power(10.0, x)}
APPROX_MATH2 = {"atan2": np.arctan2, "pow": np.power, "hypot": np.hypot}


@pytest.mark.parametrize("bits", (32, 64))
def test_math_functions(bits, rng):
    dt = FLOATS[bits]
    ty = F32 if bits == 32 else F64
    x = np.abs(rand_floats(bits, rng, nan=False))
    x = np.where(np.isfinite(x), x, dt(1.25)) % dt(4)
    x[:3] = [0.25, 0.5, 0.75]
    for fn, ref in EXACT_MATH.items():
        assert_same_floats(elementwise("math", ty, [ty], [x - dt(2)], {"fn": fn}), ref(x - dt(2)))
    y = np.abs(x) + dt(0.5)
    with np.errstate(all="ignore"):
        for fn, ref in APPROX_MATH.items():
            arg = y / dt(8) if fn in ("asin", "acos") else y
            got = elementwise("math", ty, [ty], [arg], {"fn": fn}, ).astype(np.float64)
            want = ref(arg.astype(np.float64)).astype(dt).astype(np.float64)
            np.testing.assert_array_less(np.abs(got - want), 4 * np.spacing(np.abs(want).astype(dt)).astype(np.float64)
                                         + 1e-300, err_msg=fn)
        for fn, ref in APPROX_MATH2.items():
            got = elementwise("math", ty, [ty, ty], [y, x], {"fn": fn}).astype(np.float64)
            want = ref(y.astype(np.float64), x.astype(np.float64)).astype(dt).astype(np.float64)
            np.testing.assert_array_less(np.abs(got - want), 4 * np.spacing(np.abs(want).astype(dt)).astype(np.float64)
                                         + 1e-300, err_msg=fn)
    assert_same_floats(elementwise("math", ty, [ty, ty], [x, -y], {"fn": "copysign"}), np.copysign(x, -y))
    assert_same_floats(elementwise("math", ty, [ty, ty], [y * dt(3), x + dt(1)], {"fn": "fmod"}),
                       np.fmod(y * dt(3), x + dt(1)))
    n = rng.integers(-10, 10, N).astype(np.int32)
    assert_same_floats(elementwise("math", ty, [ty, I32], [x, n.view(np.uint32)], {"fn": "ldexp"}), np.ldexp(x, n))


def test_round_is_half_away_from_zero():
    x = np.array([0.5, 1.5, 2.5, -0.5, -2.5, 0.49999997, -0.49999997, 8388609.0, -0.0, 3.7], np.float32)
    got = elementwise("math", F32, [F32], [x], {"fn": "round"})
    assert got.tolist() == [1.0, 2.0, 3.0, -1.0, -3.0, 0.0, -0.0, 8388609.0, -0.0, 4.0]
    assert np.signbit(got[6]) and np.signbit(got[8])


# ----- casts -----

@pytest.mark.parametrize("src", WIDTHS)
@pytest.mark.parametrize("dst", WIDTHS)
def test_integer_casts(src, dst, rng):
    a = rand_ints(src, rng)
    s_ty, d_ty = int_type(src), int_type(dst)
    if dst < src:
        np.testing.assert_array_equal(elementwise("trunc", d_ty, [s_ty], [a]), a.astype(UNSIGNED[dst]))
    elif dst > src:
        np.testing.assert_array_equal(elementwise("zext", d_ty, [s_ty], [a]), a.astype(UNSIGNED[dst]))
        np.testing.assert_array_equal(elementwise("sext", d_ty, [s_ty], [a]).view(SIGNED[dst]),
                                      a.view(SIGNED[src]).astype(SIGNED[dst]))


def test_i1_casts():
    a = np.array([0, 1], np.uint8)
    assert elementwise("zext", I32, [I1], [a]).tolist() == [0, 1]
    assert elementwise("sext", I32, [I1], [a]).view(np.int32).tolist() == [0, -1]
    assert elementwise("trunc", I1, [I32], [np.array([2, 3], np.uint32)]).tolist() == [0, 1]
    assert elementwise("sitofp", F32, [I1], [a]).tolist() == [0.0, -1.0]
    assert elementwise("uitofp", F32, [I1], [a]).tolist() == [0.0, 1.0]


@pytest.mark.parametrize("fbits", (32, 64))
@pytest.mark.parametrize("ibits", WIDTHS)
def test_int_to_float_rounds_correctly(ibits, fbits, rng):
    a = rand_ints(ibits, rng)
    if ibits == 64:   # a 53-bit truncation would double-round these: 2^62 + 2^38 + 1 is just above a tie
        a[-4:] = [2 ** 62 + 2 ** 38 + 1, 2 ** 63 + 2 ** 39 + 1, (1 << 64) - 2 ** 39 - 1, 2 ** 62 + 2 ** 9 + 1]
    if ibits == 32 and fbits == 32:
        a[-2:] = [2 ** 31 + 2 ** 7 + 1, 2 ** 24 + 1]
    ity, fty = int_type(ibits), (F32 if fbits == 32 else F64)
    dt = FLOATS[fbits]
    assert_same_floats(elementwise("uitofp", fty, [ity], [a]), a.astype(dt))
    assert_same_floats(elementwise("sitofp", fty, [ity], [a]), a.view(SIGNED[ibits]).astype(dt))


def test_int_to_float_ties_and_sticky_bits():
    a = np.array([2 ** 62 + 2 ** 38 + 1, 2 ** 62 + 2 ** 38, 2 ** 62 + 3 * 2 ** 38], np.uint64)
    got = elementwise("uitofp", F32, [I64], [a])
    assert [int(v) for v in got] == [2 ** 62 + 2 ** 39, 2 ** 62, 2 ** 62 + 2 ** 40]


@pytest.mark.parametrize("fbits", (16, 32, 64))
@pytest.mark.parametrize("ibits", WIDTHS)
def test_float_to_int_in_range(ibits, fbits, rng):
    dt = FLOATS[fbits]
    lo, hi = (-(2.0 ** (ibits - 1)), 2.0 ** (ibits - 1))
    if fbits == 16:
        lo, hi = max(lo, -60000.0), min(hi, 60000.0)
    x = rng.uniform(lo, hi, N).astype(dt)
    x = x[(x > lo) & (x < hi)]
    x[:4] = [dt(2.75), dt(-2.75), dt(-0.0), dt(0.9)]
    fty, ity = {16: F16, 32: F32, 64: F64}[fbits], int_type(ibits)
    np.testing.assert_array_equal(elementwise("fptosi", ity, [fty], [x]).view(SIGNED[ibits]),
                                  x.astype(SIGNED[ibits]))
    ux = np.abs(x) * dt(1.5) if fbits != 16 or ibits > 16 else np.abs(x)
    ux = ux[ux < 2.0 ** ibits]
    np.testing.assert_array_equal(elementwise("fptoui", ity, [fty], [ux]), ux.astype(UNSIGNED[ibits]))


def test_float_conversions(rng):
    d = rand_floats(64, rng) * 1e3
    d[-3:] = [1e300, -1e-300, 2.0 ** -140]
    assert_same_floats(elementwise("fptrunc", F32, [F64], [d]), d.astype(np.float32))
    assert_same_floats(elementwise("fptrunc", F16, [F64], [d]), d.astype(np.float16))
    f = rand_floats(32, rng)
    assert_same_floats(elementwise("fpext", F64, [F32], [f]), f.astype(np.float64))
    h = rand_floats(16, rng)
    assert_same_floats(elementwise("fpext", F32, [F16], [h]), h.astype(np.float32))


def test_bitcasts_and_pointer_casts(rng):
    f = rand_floats(32, rng)
    np.testing.assert_array_equal(elementwise("bitcast", I32, [F32], [f]), f.view(np.uint32))
    i = rand_ints(64, rng)
    np.testing.assert_array_equal(bits_of(elementwise("bitcast", F64, [I64], [i])), i)
    np.testing.assert_array_equal(elementwise("inttoptr", ptr(1), [I64], [i]), i)
    np.testing.assert_array_equal(elementwise("ptrtoint", I64, [ptr(1)], [i]), i)
    np.testing.assert_array_equal(elementwise("ptrtoint", I32, [ptr(1)], [i]), i.astype(np.uint32))
    np.testing.assert_array_equal(elementwise("addrspacecast", ptr(4), [ptr(1)], [i]), i)
    np.testing.assert_array_equal(elementwise("freeze", I64, [I64], [i]), i)


# ----- memory -----

@pytest.mark.parametrize("ty", [I8, I16, I32, I64, F16, F32, F64, ptr(1)], ids=str)
def test_load_store_round_trip_is_bit_exact(ty, rng):
    """Copy random bit patterns (NaN payloads, denormals included) through a load and a store."""
    raw = rand_ints(8 * ty.size, rng)
    if ty.is_float:
        raw = raw.view(FLOATS[ty.bits])
    out = elementwise("freeze", ty, [ty], [raw])
    np.testing.assert_array_equal(bits_of(out) if ty.is_float else out, bits_of(raw) if ty.is_float else raw)


def test_i1_memory_is_a_byte():
    out = elementwise("icmp", I1, [I32, I32], [np.array([1, 2], np.uint32), np.array([1, 1], np.uint32)],
                      {"pred": "eq"})
    assert out.dtype == np.uint8 and out.tolist() == [1, 0]


def test_constant_operands_and_undef():
    from reconverge.lowering.ir import Undef
    out = elementwise("add", I32, [I32, I32], [np.array([1, 2], np.uint32)], consts={1: Const(I32, -1)})
    assert out.view(np.int32).tolist() == [0, 1]
    out = elementwise("fmul", F32, [F32, F32], [np.array([1.5, 3.0], np.float32)], consts={1: Const(F32, 0.1)})
    assert_same_floats(out, np.array([1.5, 3.0], np.float32) * np.float32(0.1))
    out = elementwise("or", I16, [I16, I16], [np.array([5, 6], np.uint16)], consts={1: Undef(I16)})
    assert out.shape == (2,)


def test_every_value_opcode_is_covered():
    """Every opcode outside control flow and SSA plumbing is named by some test in this file (a static
    check of the source, so that it holds however pytest distributes the tests over processes)."""
    import ast
    with open(__file__, encoding="utf-8") as f:
        named = {n.value for n in ast.walk(ast.parse(f.read())) if isinstance(n, ast.Constant)
                 and isinstance(n.value, str)}
    skip = {"alloca", "load", "store", "ptradd", "global_addr", "workitem", "barrier", "phi", "var_load",
            "var_store", "atomic",      # memory and work-group operations: tests/test_atomics.py and others
            "subgroup", "subgroup_info", "subgroup_barrier",   # lock-step only: test_vector_subgroups.py
            "convergence"}   # tokens: CFG form only, dropped by the convergence pass (test_convergence_tokens.py)
    wanted = {name for name, op in OPCODES.items() if op.kind != "control"} - skip
    missing = wanted - named
    assert not missing, f"opcodes without a semantic test: {sorted(missing)}"
