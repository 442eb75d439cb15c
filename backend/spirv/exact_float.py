"""Correctly rounded single-precision division and square root from Vulkan's approximate ones.

Vulkan only bounds OpFDiv to 2.5 ULP (for divisors in [2^-126, 2^126]) and sqrt to what 1/inversesqrt
gives (Vulkan spec, "Precision and Operation of SPIR-V Instructions"); NVIDIA's driver is 2 ULP off on a
quarter of random pairs. LLVM's fdiv and OpenCL's sqrt under -cl-fp32-correctly-rounded-divide-sqrt must
be exact. Fma cannot give the exact remainder that the usual refinement (q + (a - q*b)/b) needs: its
Vulkan precision is that of an OpFMul followed by an OpFAdd, two roundings. Integers are exact on every
driver, so the refinement is done in 32-bit integers:

- both operands are unpacked from their bits (zero, infinity, NaN and subnormal inputs handled there) to
  24-bit significands A, B and exponents;
- the driver's OpFDiv of the significands scaled to [1, 2) gives an estimate Q0 of floor(A * 2^25 / B)
  within 2.5 ULP, 10 units; the remainder D = A * 2^25 - Q0 * B is then small, so its value mod 2^32
  is exact, and one unsigned division of D + 64B by B corrects Q0 to the exact floor and gives the
  sticky bit (any estimate within 15 ULP is corrected);
- sqrt likewise: an estimate S0 of isqrt(N), N = the significand * 2^25 (made even-exponent), one
  integer Newton step S0 + floor((N - S0^2) / 2S0), which lands on isqrt(N) or one above, and a last
  exact check of N - S^2 (the estimate may be 7 ULP off);
- the result is rounded to nearest even from those exact bits and packed by integer arithmetic, with
  subnormal results, overflow to infinity, and the IEEE special cases chosen by selects.
Nothing depends on the driver's denormal mode: the only float operations act on numbers in [1, 4).
Proven exact against numpy's IEEE division and sqrt on lavapipe (tests/spirv/test_spirv_exact_float.py).
"""
from __future__ import annotations

from reconverge.lowering.ir.types import Type

F32, U32 = Type("float", 32), Type("int", 32)
SIGN, EXPONENT, FRACTION, HIDDEN = 0x80000000, 0x7F800000, 0x007FFFFF, 0x00800000
QUIET, DEFAULT_NAN = 0x00400000, 0x7FC00000


class ExactFloat:
    """Emits the integer sequences through an InstructionSelector `sel` (its op, glsl and constants)."""

    def __init__(self, sel):
        self.sel = sel
        self.u = sel.types.u32
        self.f = sel.types.float(32)
        self.b = sel.types.bool

    # ----- small pieces -----
    def k(self, value: int) -> int:
        return self.sel.u32(value & 0xFFFFFFFF)

    def i(self, name: str, *xs: int) -> int:
        """A u32 instruction; plain ints among xs that are not ids are made constants by the caller."""
        return self.sel.op(name, self.u, *xs)

    def cmp(self, name: str, a: int, b: int) -> int:
        return self.sel.op(name, self.b, a, b)

    def pick(self, cond: int, a: int, b: int) -> int:
        return self.sel.op("OpSelect", self.u, cond, a, b)

    def either(self, *conds: int) -> int:
        out = conds[0]
        for c in conds[1:]:
            out = self.sel.op("OpLogicalOr", self.b, out, c)
        return out

    def both(self, a: int, b: int) -> int:
        return self.sel.op("OpLogicalAnd", self.b, a, b)

    def msb(self, x: int) -> int:
        return self.sel.glsl(U32, "FindUMsb", x)

    def unpack(self, bits: int) -> tuple[int, int]:
        """A finite nonzero float's bits -> (significand in [2^23, 2^24), biased exponent + 32 >= 10);
        a subnormal is normalized by its leading-one position."""
        biased = self.i("OpShiftRightLogical", self.i("OpBitwiseAnd", bits, self.k(~SIGN)), self.k(23))
        fraction = self.i("OpBitwiseAnd", bits, self.k(FRACTION))
        subnormal = self.cmp("OpIEqual", biased, self.k(0))
        raw = self.pick(subnormal, fraction, self.i("OpBitwiseOr", fraction, self.k(HIDDEN)))
        shift = self.i("OpISub", self.k(23), self.msb(raw))         # 0 for a normal number; 24 for zero
        significand = self.i("OpShiftLeftLogical", raw, shift)
        exponent = self.i("OpISub", self.i("OpIAdd", self.pick(subnormal, self.k(1), biased), self.k(32)), shift)
        return significand, exponent

    def in_one_two(self, significand: int) -> int:
        """significand * 2^-23, in [1, 2), as a float."""
        word = self.i("OpBitwiseOr", self.k(0x3F800000), self.i("OpBitwiseAnd", significand, self.k(FRACTION)))
        return self.sel.op("OpBitcast", self.f, word)

    def to_uint(self, x: int, scale: float) -> int:
        """x * scale (a power of two, exact) converted to an integer (x * scale is one: no rounding)."""
        scaled = self.sel.precise("OpFMul", F32, x, self.sel.const(F32, scale))
        return self.sel.op("OpConvertFToU", self.u, scaled)

    def floor_div_small(self, d: int, divisor: int, bias: int) -> tuple[int, int]:
        """floor(d / divisor) and the remainder, for a d (mod 2^32) with |d| < bias * divisor < 2^31."""
        t = self.i("OpIAdd", d, self.i("OpIMul", divisor, self.k(bias)))
        q = self.i("OpUDiv", t, divisor)
        return self.i("OpISub", q, self.k(bias)), self.i("OpISub", t, self.i("OpIMul", q, divisor))

    def round_pack(self, sign: int, q: int, sticky: int, shift: int, biased_minus_one: int, normal: int) -> int:
        """sign | the float of q >> shift rounded to nearest even (dropped bits q's low `shift`, plus
        `sticky` below them), with exponent field biased_minus_one + 1 when `normal`, else subnormal."""
        kept = self.i("OpShiftRightLogical", q, shift)
        low = self.i("OpBitwiseAnd", q, self.i("OpISub", self.i("OpShiftLeftLogical", self.k(1), shift), self.k(1)))
        half = self.i("OpShiftLeftLogical", self.k(1), self.i("OpISub", shift, self.k(1)))
        odd = self.cmp("OpINotEqual", self.i("OpBitwiseAnd", kept, self.k(1)), self.k(0))
        above = self.cmp("OpUGreaterThan", low, half)
        at_half = self.both(self.cmp("OpIEqual", low, half), self.either(sticky, odd))
        up = self.pick(self.either(above, at_half), self.k(1), self.k(0))
        m = self.i("OpIAdd", kept, up)                  # may carry into the exponent: that is right
        exponent = self.pick(normal, self.i("OpShiftLeftLogical", biased_minus_one, self.k(23)), self.k(0))
        magnitude = self.i("OpIAdd", exponent, m)
        overflow = self.cmp("OpUGreaterThanEqual", magnitude, self.k(EXPONENT))
        magnitude = self.pick(overflow, self.k(EXPONENT), magnitude)
        return self.i("OpBitwiseOr", sign, magnitude)

    # ----- the driver's estimates (a test replaces them with worse ones) -----
    def estimate_quotient(self, a: int, b: int) -> int:
        """a / b for a, b in [1, 2): OpFDiv, within 2.5 ULP on any Vulkan driver."""
        return self.sel.precise("OpFDiv", F32, a, b)

    def estimate_root(self, y: int) -> int:
        """sqrt(y) for y in [1, 4): GLSL.std.450 Sqrt (1 / inversesqrt's precision: a few ULP)."""
        return self.sel.glsl(F32, "Sqrt", y)

    # ----- the operations -----
    def divide(self, a: int, b: int) -> int:
        """a / b correctly rounded (f32 ids in, an f32 id out)."""
        ua, ub = (self.sel.op("OpBitcast", self.u, x) for x in (a, b))
        sign = self.i("OpBitwiseAnd", self.i("OpBitwiseXor", ua, ub), self.k(SIGN))
        mag_a, mag_b = (self.i("OpBitwiseAnd", x, self.k(~SIGN)) for x in (ua, ub))
        a_zero, b_zero = (self.cmp("OpIEqual", x, self.k(0)) for x in (mag_a, mag_b))
        a_inf, b_inf = (self.cmp("OpIEqual", x, self.k(EXPONENT)) for x in (mag_a, mag_b))
        a_nan, b_nan = (self.cmp("OpUGreaterThan", x, self.k(EXPONENT)) for x in (mag_a, mag_b))
        special = self.either(a_zero, b_zero, self.cmp("OpUGreaterThanEqual", mag_a, self.k(EXPONENT)),
                              self.cmp("OpUGreaterThanEqual", mag_b, self.k(EXPONENT)))
        sig_a, exp_a = self.unpack(ua)
        sig_b, exp_b = self.unpack(ub)
        sig_b = self.pick(special, self.k(HIDDEN), sig_b)        # no division by zero below
        # the estimate: the driver's division of the significands in [1, 2), within 2.5 ULP
        q0 = self.to_uint(self.estimate_quotient(self.in_one_two(sig_a), self.in_one_two(sig_b)), 2.0 ** 25)
        # exact: floor(A * 2^25 / B) and whether it is exact, from the small remainder (mod 2^32)
        d = self.i("OpISub", self.i("OpShiftLeftLogical", sig_a, self.k(25)), self.i("OpIMul", q0, sig_b))
        correction, rem = self.floor_div_small(d, sig_b, 64)
        q = self.i("OpIAdd", q0, correction)                      # in [2^24, 2^26)
        sticky = self.cmp("OpINotEqual", rem, self.k(0))
        # the quotient's leading bit is bit n (24 or 25) of q: biased exponent BE = exp_a - exp_b + 102 + n,
        # kept as BE + 200 (never negative); 24 bits are kept, fewer when BE < 1 (a subnormal result)
        n = self.msb(q)
        be200 = self.i("OpIAdd", self.i("OpISub", exp_a, exp_b), self.i("OpIAdd", n, self.k(302)))
        normal = self.cmp("OpUGreaterThanEqual", be200, self.k(201))
        under = self.pick(normal, self.k(0), self.i("OpISub", self.k(201), be200))
        shift = self.i("OpIAdd", self.i("OpISub", n, self.k(23)), under)
        shift = self.sel.glsl(U32, "UMin", shift, self.k(27))     # beyond 27 bits everything rounds to 0
        r = self.round_pack(sign, q, sticky, shift, self.i("OpISub", be200, self.k(201)), normal)
        # IEEE's special cases, the later selects winning
        r = self.pick(self.either(a_zero, b_inf), sign, r)
        r = self.pick(self.either(a_inf, b_zero), self.i("OpBitwiseOr", sign, self.k(EXPONENT)), r)
        invalid = self.either(self.both(a_zero, b_zero), self.both(a_inf, b_inf))
        r = self.pick(invalid, self.k(DEFAULT_NAN), r)
        r = self.pick(b_nan, self.i("OpBitwiseOr", ub, self.k(QUIET)), r)
        r = self.pick(a_nan, self.i("OpBitwiseOr", ua, self.k(QUIET)), r)
        return self.sel.op("OpBitcast", self.f, r)

    def sqrt(self, x: int) -> int:
        """sqrt(x) correctly rounded (an f32 id in, an f32 id out)."""
        ux = self.sel.op("OpBitcast", self.u, x)
        mag = self.i("OpBitwiseAnd", ux, self.k(~SIGN))
        sig, exp32 = self.unpack(ux)
        # x = sig * 2^(e - 23) with e = exp32 - 159; make e even: odd e takes a doubled significand
        odd = self.i("OpBitwiseAnd", self.i("OpIAdd", exp32, self.k(1)), self.k(1))
        is_odd = self.cmp("OpINotEqual", odd, self.k(0))
        word = self.i("OpBitwiseOr", self.pick(is_odd, self.k(0x40000000), self.k(0x3F800000)),
                      self.i("OpBitwiseAnd", sig, self.k(FRACTION)))
        y1 = self.sel.op("OpBitcast", self.f, word)        # sig (or 2 sig) * 2^-23, in [1, 4)
        n = self.i("OpShiftLeftLogical", self.i("OpShiftLeftLogical", sig, odd), self.k(25))   # N mod 2^32
        s0 = self.to_uint(self.estimate_root(y1), 2.0 ** 24)
        # one Newton step in integers: s0 + floor((N - s0^2) / 2 s0) is isqrt(N) or isqrt(N) + 1
        d = self.i("OpISub", n, self.i("OpIMul", s0, s0))
        step, _ = self.floor_div_small(d, self.i("OpShiftLeftLogical", s0, self.k(1)), 16)
        s = self.i("OpIAdd", s0, step)
        d = self.i("OpISub", n, self.i("OpIMul", s, s))           # small: exact as a signed number
        below = self.cmp("OpSLessThan", d, self.k(0))             # N < s^2: one too many
        s = self.pick(below, self.i("OpISub", s, self.k(1)), s)
        d = self.i("OpISub", n, self.i("OpIMul", s, s))
        above = self.cmp("OpSGreaterThan", d, self.i("OpShiftLeftLogical", s, self.k(1)))   # N >= (s+1)^2
        s = self.pick(above, self.i("OpIAdd", s, self.k(1)), s)
        # s = floor(sqrt(y) * 2^24) in [2^24, 2^25): 24 bits and a round bit; never a tie (N is even, an
        # odd square is not), so a set round bit always rounds up (sticky = true)
        be_minus_one = self.i("OpShiftRightLogical", self.i("OpISub", self.i("OpIAdd", exp32, self.k(93)), odd),
                              self.k(1))
        r = self.round_pack(self.k(0), s, self.sel.const(Type("int", 1), 1), self.k(1), be_minus_one,
                            self.sel.const(Type("int", 1), 1))
        r = self.pick(self.cmp("OpIEqual", ux, self.k(EXPONENT)), ux, r)          # +inf
        r = self.pick(self.cmp("OpUGreaterThan", ux, self.k(SIGN)), self.k(DEFAULT_NAN), r)   # x < 0
        r = self.pick(self.cmp("OpUGreaterThan", mag, self.k(EXPONENT)), self.i("OpBitwiseOr", ux, self.k(QUIET)), r)
        r = self.pick(self.cmp("OpIEqual", mag, self.k(0)), ux, r)                 # +-0
        return self.sel.op("OpBitcast", self.f, r)
