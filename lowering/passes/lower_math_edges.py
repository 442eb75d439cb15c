"""OpenCL's math edge cases around a target's relaxed math functions.

GLSL.std.450 (and Gen's math box) leave some inputs undefined where OpenCL C 3.0 (section 7.5, "Edge
case behavior") fixes the result: pow of a negative base or of zero, atan2(0, 0) and of two infinities,
round's halfway cases, NaN operands, fmod's (and frem's) zero sign and infinite divisor. Each such function becomes
a relaxed primitive (math with `relaxed true`: the operands avoid its undefined inputs, or the result
there is replaced) plus compares and selects that give OpenCL's values; copysign, exp10, log10, cbrt and
hypot become the primitives the target has. Values at the edges are checked on the interpreter and on
the Vulkan driver against the CPU reference (tests/spirv/test_spirv_edges.py).

exp and exp10 of f32 are range-reduced (Cody and Waite, "Software Manual for the Elementary Functions",
1980, chapter 6) instead of left to the target as exp2(x * log2(e)), which loses the rounding error of
the product, about |x * log2(e)| ULP (GLSL.std.450 Exp is bounded only to 3 + 2|x| ULP by Vulkan's "Precision
and Operation of SPIR-V Instructions", and Mesa and Gen's math box compute it so), 100 ULP near x = 88
where OpenCL C 3.0 section 7.4 allows 3. tools/exp_accuracy.py measures it.
"""
from __future__ import annotations

from reconverge.lazy_regex import LazyModule
from reconverge.lowering.ir.builder import InsertBefore, replace_uses
from reconverge.lowering.ir.core import Const, Function, Instr, Value
from reconverge.lowering.ir.types import F32, I1, I32, int_type
from reconverge.lowering.target import TargetCaps

TYPE_CHECKING = False                   # math and struct (extension modules) load when a kernel has math to lower
if TYPE_CHECKING:
    import math
    import struct
else:
    math = LazyModule("math")
    struct = LazyModule("struct")

NAME, FORM = "lower_math_edges", "any"
LOWERED = ("copysign", "fmod", "round", "pow", "atan2", "exp", "exp10", "log10", "cbrt", "hypot", "ldexp")


def run(func: Function, caps: TargetCaps) -> bool:
    if caps.math_edges:
        return False
    todo = [ins for ins in func.instructions() if not ins.attrs.get("relaxed") and
            (ins.opcode == "math" and ins.attrs.get("fn") in LOWERED or ins.opcode == "frem")]
    replacement: dict[Value, Value] = {}
    for ins in todo:
        fn = "fmod" if ins.opcode == "frem" else ins.attrs["fn"]      # frem is C's fmod
        replacement[ins] = getattr(_Edges(ins), fn)(*ins.operands)
    replace_uses(func, replacement)
    return bool(todo)


def _split(c: float) -> tuple[float, float]:
    """c as head + tail in f32: the head with 16 significant bits (so head * n is exact for |n| < 256), the
    tail the f32 nearest c - head."""
    exponent = math.frexp(c)[1]
    head = math.ldexp(round(math.ldexp(c, 16 - exponent)), exponent - 16)
    return head, struct.unpack("<f", struct.pack("<f", c - head))[0]    # to f32, nearest (no numpy here)


class _Edges:
    """The expansions, built just before the instruction they replace."""

    def __init__(self, ins: Instr):
        self.b, self.t = InsertBefore(ins), ins.type
        self.bits_type = int_type(self.t.bits)

    def c(self, value: float) -> Const:
        return Const(self.t, value)

    # predicates and small pieces
    def isnan(self, x: Value) -> Value:
        return self.b.fcmp("uno", x, x)

    def isinf(self, x: Value) -> Value:
        return self.b.fcmp("oeq", self.b.math("fabs", x), self.c(math.inf))

    def signbit(self, x: Value) -> Value:
        return self.b.icmp("slt", self.b.cast("bitcast", x, self.bits_type), Const(self.bits_type, 0))

    def both(self, p: Value, q: Value) -> Value:
        return self.b.binary("and", p, q)

    def either(self, p: Value, q: Value) -> Value:
        return self.b.binary("or", p, q)

    def negate(self, p: Value) -> Value:
        return self.b.binary("xor", p, Const(I1, 1))

    def pick(self, cond: Value, a: Value, b: Value) -> Value:
        return self.b.select(cond, a, b)

    def equals(self, x: Value, value: float) -> Value:
        return self.b.fcmp("oeq", x, self.c(value))

    def nan_if_any(self, r: Value, *xs: Value) -> Value:
        """NaN in, NaN out."""
        nan = self.isnan(xs[0])
        for x in xs[1:]:
            nan = self.either(nan, self.isnan(x))
        return self.pick(nan, self.c(math.nan), r)

    # the functions
    def copysign(self, a: Value, sign_of: Value) -> Value:
        it, b = self.bits_type, self.b
        sign = Const(it, 1 << (self.t.bits - 1))
        magnitude = b.binary("and", b.cast("bitcast", a, it), Const(it, ~(1 << (self.t.bits - 1))))
        sign_bit = b.binary("and", b.cast("bitcast", sign_of, it), sign)
        return b.cast("bitcast", b.binary("or", magnitude, sign_bit), self.t)

    def fmod(self, x: Value, y: Value) -> Value:
        """fmod is exact (OpenCL C 3.0, 7.4: 0 ULP): halves and floats from the integers (exact_fmod); a
        double through frem, which the SPIR-V emitter refuses (OpFRem is x - y * trunc(x / y): lavapipe's
        fmod(3e9 * x, y) was wildly off) and Gen does not select. frem has fmod's sign rule, but a zero
        result keeps x's sign (fmod(-8, 2) = -0) and fmod(finite x, +-inf) is x."""
        if self.t.bits in (16, 32):
            return self.exact_fmod(x, y)
        r = self.copysign(self.b.op("frem", [x, y], self.t, relaxed=True), x)
        keep = self.both(self.isinf(y), self.negate(self.isinf(x)))
        return self.nan_if_any(self.pick(keep, x, r), x, y)

    def exact_fmod(self, x: Value, y: Value) -> Value:
        """fmod of halves and floats in integers. With x = mx * 2^ex and y = my * 2^ey (integer significands,
        ex >= ey where |x| >= |y|), fmod(|x|, |y|) = ((mx * 2^(ex - ey)) mod my) * 2^ey: the power of two
        mod my by square and multiply over the 8 bits of ex - ey (products below 2^48, in 64 bits), the
        remainder packed back (a subnormal result too) with x's sign. A half goes through f32, where its
        fmod is the same exact value. Where |x| < |y| the answer is x; a NaN, an infinite x or a zero y
        give NaN, and an infinite y gives x."""
        b = self.b
        narrow = self.t
        if narrow.bits == 16:
            x, y = b.cast("fpext", x, F32), b.cast("fpext", y, F32)
        u32, u64 = I32, int_type(64)

        def k32(v: int) -> Const:
            return Const(u32, v)

        def k64(v: int) -> Const:
            return Const(u64, v)
        xb, yb = b.cast("bitcast", x, u32), b.cast("bitcast", y, u32)
        ax, ay = b.binary("and", xb, k32(0x7FFFFFFF)), b.binary("and", yb, k32(0x7FFFFFFF))

        def significand_and_exponent(a: Value) -> tuple[Value, Value]:
            e = b.binary("lshr", a, k32(23))
            fraction = b.binary("and", a, k32(0x7FFFFF))
            normal = b.icmp("ne", e, k32(0))
            return (b.select(normal, b.binary("or", fraction, k32(0x800000)), fraction),
                    b.select(normal, e, k32(1)))
        mx, ex = significand_and_exponent(ax)
        my, ey = significand_and_exponent(ay)
        m = b.cast("zext", b.select(b.icmp("eq", my, k32(0)), k32(1), my), u64)    # (y = 0: NaN below, no urem by 0)
        d = b.binary("sub", ex, ey)                          # 0..253 where |x| >= |y|
        p = b.select(b.icmp("eq", m, k64(1)), k64(0), k64(1))   # 2^d mod my, square and multiply from the top bit
        for bit in range(7, -1, -1):
            p = b.binary("urem", b.binary("mul", p, p), m)
            twice = b.binary("shl", p, k64(1))              # 2p mod my: below 2 my, one subtraction at most
            doubled = b.select(b.icmp("uge", twice, m), b.binary("sub", twice, m), twice)
            set_bit = b.icmp("ne", b.binary("and", b.binary("lshr", d, k32(bit)), k32(1)), k32(0))
            p = b.select(set_bit, doubled, p)
        r64 = b.binary("urem", b.binary("mul", b.cast("zext", mx, u64), p), m)
        r = b.cast("trunc", r64, u32)                        # < my < 2^24
        # r * 2^(ey - 150) packed: its top bit t, the exponent field ey + t - 23 (a subnormal where below 1)
        top = b.binary("sub", k32(31), b.op("clz", [b.binary("or", r, k32(1))], u32))
        field = b.binary("sub", b.binary("add", ey, top), k32(23))
        normal = b.icmp("sgt", field, k32(0))
        normal_bits = b.binary("or", b.binary("shl", field, k32(23)),
                               b.binary("and", b.binary("shl", r, b.binary("sub", k32(23), top)), k32(0x7FFFFF)))
        subnormal_bits = b.binary("shl", r, b.binary("sub", ey, k32(1)))
        magnitude = b.select(b.icmp("eq", r, k32(0)), k32(0), b.select(normal, normal_bits, subnormal_bits))
        result = b.select(b.icmp("ult", ax, ay), ax, magnitude)        # |x| < |y| (an infinite y too): x
        result = b.binary("or", result, b.binary("and", xb, k32(0x80000000)))
        special = self.either(b.icmp("ugt", ax, k32(0x7F7FFFFF)),                 # x infinite or NaN
                              self.either(b.icmp("ugt", ay, k32(0x7F800000)),     # y NaN
                                          b.icmp("eq", ay, k32(0))))              # y zero
        value = b.select(special, k32(0x7FC00000), result)
        out = b.cast("bitcast", value, F32)
        return b.cast("fptrunc", out, narrow) if narrow.bits == 16 else out

    def ldexp(self, x: Value, k: Value) -> Value:
        """x * 2^k exactly, in the bits (GLSL.std.450 Ldexp is undefined past an exponent of 128 or an
        overflow: lavapipe's ldexp(a subnormal, 280) was 1e34, not inf; Gen has none): the exponent moved,
        an overflow made infinite, a result below the normals shifted into a subnormal and rounded to
        nearest even (the one rounding), a subnormal x normalized first; zeros, infinities and NaN as x. A
        half goes through f32, where its every result but those rounding to zero is exact."""
        b = self.b
        narrow = self.t
        t = F32 if narrow.bits == 16 else narrow
        if narrow.bits == 16:
            x = b.cast("fpext", x, F32)
        it = int_type(t.bits)
        fraction_bits = {32: 23, 64: 52}[t.bits]
        emax = (1 << (t.bits - fraction_bits - 1)) - 1

        def c(v: int) -> Const:
            return Const(it, v)
        bits = b.cast("bitcast", x, it)
        sign = b.binary("and", bits, c(1 << (t.bits - 1)))
        field = b.binary("and", b.binary("lshr", bits, c(fraction_bits)), c(emax))
        fraction = b.binary("and", bits, c((1 << fraction_bits) - 1))
        # a subnormal x normalized: its top bit moved to the hidden bit's place, the exponent below 1
        top = b.binary("sub", c(t.bits - 1), b.op("clz", [b.binary("or", fraction, c(1))], it))
        lift = b.binary("sub", c(fraction_bits), top)
        subnormal = b.icmp("eq", field, c(0))
        m = b.select(subnormal, b.binary("shl", fraction, lift), b.binary("or", fraction, c(1 << fraction_bits)))
        e = b.select(subnormal, b.binary("sub", c(1), lift), field)
        limit = 4 * emax                                       # (beyond it every result is 0 or infinite)
        k = b.cast("sext", k, it) if it.bits > k.type.bits else k
        k = b.select(b.icmp("sgt", k, c(limit)), c(limit), b.select(b.icmp("slt", k, c(-limit)), c(-limit), k))
        e2 = b.binary("add", e, k)
        normal_bits = b.binary("or", b.binary("shl", e2, c(fraction_bits)),
                               b.binary("and", m, c((1 << fraction_bits) - 1)))
        # below the normals: m >> (1 - e2), rounded to nearest even (a carry into the exponent field is right)
        shift = b.binary("sub", c(1), e2)                 # (kept in 1..q + 2: no shift past the width)
        shift = b.select(b.icmp("sgt", shift, c(fraction_bits + 2)), c(fraction_bits + 2),
                         b.select(b.icmp("slt", shift, c(1)), c(1), shift))
        q = b.binary("lshr", m, shift)
        rest = b.binary("and", m, b.binary("sub", b.binary("shl", c(1), shift), c(1)))
        half = b.binary("shl", c(1), b.binary("sub", shift, c(1)))
        up = self.either(b.icmp("ugt", rest, half),
                         self.both(b.icmp("eq", rest, half), b.icmp("ne", b.binary("and", q, c(1)), c(0))))
        tiny_bits = b.binary("add", q, b.cast("zext", up, it))
        magnitude = b.select(b.icmp("sge", e2, c(emax)), c(emax << fraction_bits),
                             b.select(b.icmp("sgt", e2, c(0)), normal_bits, tiny_bits))
        as_is = self.either(b.icmp("eq", field, c(emax)), b.icmp("eq", b.binary("or", field, fraction), c(0)))
        r = b.cast("bitcast", b.select(as_is, bits, b.binary("or", sign, magnitude)), t)
        return b.cast("fptrunc", r, narrow) if narrow.bits == 16 else r

    def round(self, x: Value) -> Value:
        """Halfway cases away from zero; the sign of a zero result kept."""
        whole = self.b.math("trunc", x)
        half = self.b.fcmp("oge", self.b.math("fabs", self.b.binary("fsub", x, whole)), self.c(0.5))
        step = self.pick(half, self.copysign(self.c(1.0), x), self.c(0.0))
        return self.copysign(self.b.binary("fadd", whole, step), x)

    def pow(self, x: Value, y: Value) -> Value:
        """|x|^y from the relaxed pow, then the sign and the edges fixed."""
        b = self.b
        ax = b.math("fabs", x)
        r: Value = b.math("pow", ax, y, relaxed=True)
        whole = b.math("trunc", y)
        is_int = b.fcmp("oeq", whole, y)
        half = b.binary("fmul", y, self.c(0.5))
        is_odd = self.both(is_int, b.fcmp("one", b.math("trunc", half), half))
        at_zero = self.pick(b.fcmp("olt", y, self.c(0.0)), self.c(math.inf), self.c(0.0))      # pow(+-0, y)
        r = self.pick(self.equals(ax, 0.0), at_zero, r)
        r = self.nan_if_any(r, x, y)
        r = self.pick(self.equals(ax, 1.0), self.c(1.0), r)                                   # |x| = 1, y inf
        negative = b.fcmp("olt", x, self.c(0.0))
        r = self.pick(self.both(negative, self.negate(is_int)), self.c(math.nan), r)
        r = self.pick(self.both(is_odd, self.signbit(x)), b.op("fneg", [r], self.t), r)
        r = self.pick(self.equals(x, 1.0), self.c(1.0), r)                                    # pow(1, NaN) = 1
        return self.pick(self.equals(y, 0.0), self.c(1.0), r)                                 # pow(NaN, 0) = 1

    def atan2(self, y: Value, x: Value) -> Value:
        """OpenCL's values at x = y = 0 and for two infinities."""
        r: Value = self.b.math("atan2", y, x, relaxed=True)
        x_back = self.signbit(x)
        zeros = self.both(self.equals(x, 0.0), self.equals(y, 0.0))
        infs = self.both(self.isinf(x), self.isinf(y))
        at_zero = self.pick(x_back, self.c(math.pi), self.c(0.0))
        at_inf = self.pick(x_back, self.c(3 * math.pi / 4), self.c(math.pi / 4))
        r = self.pick(zeros, at_zero, self.pick(infs, at_inf, r))
        return self.nan_if_any(self.copysign(r, y), x, y)

    # approximations through the primitives (within the tolerance the tests state)
    def exp(self, x: Value) -> Value:
        if self.t != F32:
            return self.b.math("exp", x, relaxed=True)
        return self.exp_reduced(x, math.log2(math.e), -104.0, 89.0)

    def exp10(self, x: Value) -> Value:
        if self.t != F32:
            return self.b.math("exp2", self.b.binary("fmul", x, self.c(math.log2(10))))
        return self.exp_reduced(x, math.log2(10), -46.0, 39.0)

    def exp_reduced(self, x: Value, log2_base: float, lo: float, hi: float) -> Value:
        """base^x for f32 as 2^n * e^y, with n = rint(x * log2_base), r = x - n / log2_base (Cody-Waite:
        1 / log2_base split into a short head, so that n * head is exact, and a tail) and y = r * ln(base),
        |y| <= ln(2) / 2. e^y is its Taylor polynomial of degree 7 (remainder below 0.15 ULP there) in
        plain multiplies and adds, so every target computes the same bits, instead of the target's exp2,
        which is a few ULP off on lavapipe even for small arguments. x is clamped to [lo, hi], just beyond
        where the result rounds to 0 and to inf, so that |n| <= 153; 2^n is two factors built in the
        exponent field, each normal, and the second multiply rounds a subnormal result once. NaN stays NaN
        (the clamp would lose it)."""
        b = self.b
        head, tail = _split(1.0 / log2_base)
        clamped = b.binary("fmin", b.binary("fmax", x, self.c(lo)), self.c(hi))
        n = b.math("rint", b.binary("fmul", clamped, self.c(log2_base)))
        y: Value = b.binary("fsub", b.binary("fsub", clamped, b.binary("fmul", n, self.c(head))),
                            b.binary("fmul", n, self.c(tail)))
        ln_base = log2_base * math.log(2.0)
        if abs(ln_base - 1.0) > 1e-12:
            y = b.binary("fmul", y, self.c(ln_base))
        poly: Value = self.c(1.0 / math.factorial(7))
        for degree in range(6, -1, -1):                      # Horner: 1 + y(1 + y(1/2 + y(1/6 + ...)))
            poly = b.binary("fadd", b.binary("fmul", poly, y), self.c(1.0 / math.factorial(degree)))
        exponent = b.cast("fptosi", n, I32)
        k1 = b.binary("ashr", exponent, Const(I32, 1))
        k2 = b.binary("sub", exponent, k1)
        scaled = b.binary("fmul", b.binary("fmul", poly, self.power_of_two(k1)), self.power_of_two(k2))
        return self.nan_if_any(scaled, x)

    def power_of_two(self, k: Value) -> Value:
        """2^k for an i32 k in the normal exponents (IEEE 754 binary32: 8 exponent bits above 23 fraction
        bits, bias 127)."""
        biased = self.b.binary("add", k, Const(I32, 127))
        return self.b.cast("bitcast", self.b.binary("shl", biased, Const(I32, 23)), F32)

    def log10(self, x: Value) -> Value:
        return self.b.binary("fmul", self.b.math("log2", x), self.c(math.log10(2)))

    def cbrt(self, x: Value) -> Value:
        root = self.b.math("pow", self.b.math("fabs", x), self.c(1 / 3), relaxed=True)
        return self.nan_if_any(self.copysign(root, x), x)

    def hypot(self, a: Value, c: Value) -> Value:
        b = self.b
        x, y = b.math("fabs", a), b.math("fabs", c)
        big, small = b.binary("fmax", x, y), b.binary("fmin", x, y)
        ratio = b.op("fdiv", [small, big], self.t, approx=True)      # hypot: 4 ULP in OpenCL
        root = b.op("math", [b.binary("fadd", self.c(1.0), b.binary("fmul", ratio, ratio))], self.t, fn="sqrt",
                    approx=True)
        r: Value = b.binary("fmul", big, root)
        r = self.pick(self.equals(big, 0.0), self.c(0.0), r)
        r = self.nan_if_any(r, x, y)
        return self.pick(self.either(self.isinf(x), self.isinf(y)), self.c(math.inf), r)   # hypot(inf, NaN) = inf


