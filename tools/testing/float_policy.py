"""How closely a target's floats must match the CPU reference: bit for bit, except in kernels that call
a math function the target computes approximately (Vulkan's GLSL.std.450 exp, log, sin, pow, sqrt ...;
Gen's math box, with natural exp and log through a base-2 scale): OpenCL allows several ULP there
(OpenCL C 3.0 section 7.4) where the CPU's libm is correctly rounded or nearly."""
from __future__ import annotations

FLOAT_ULPS_APPROXIMATE = 4      # measured worst case on the corpus: 2 ULP (float_math, after ~20 operations)
# exact on both targets (fmod of halves and floats in integers, lower_math_edges.exact_fmod: OpFRem, which
# it was on SPIR-V, is x - y * trunc(x / y) on lavapipe, far off where the quotient is large)
EXACT_MATH = {"fabs", "floor", "ceil", "trunc", "rint", "round", "copysign", "fmod", "ldexp"}


def uses_approximate_math(func) -> bool:
    return any(i.opcode == "math" and i.attrs["fn"] not in EXACT_MATH for i in func.instructions())


def uses_approximate_division(func) -> bool:
    """A float division the source lets be 2.5 ULP off (attrs['approx']: clang's !fpmath, absent under
    -cl-fp32-correctly-rounded-divide-sqrt). The SPIR-V backend emits OpFDiv for it, which Vulkan bounds
    to 2.5 ULP too: exact on lavapipe, up to 2 ULP off on NVIDIA 580."""
    return any(i.opcode == "fdiv" and i.attrs.get("approx") for i in func.instructions())


def float_ulps(func, exact_division: bool = True) -> int:
    """The float tolerance for `func` on a target; exact_division=False for a device whose OpFDiv is not
    IEEE-exact (any Vulkan driver but lavapipe): there the divisions the source lets be approximate may
    be, and float results may differ by a few ULP. Integers made from such floats can still differ by
    any amount: a program that converts divided floats to integers and must be exact is compiled with
    -cl-fp32-correctly-rounded-divide-sqrt (then every division is exact and the tolerance is 0)."""
    if uses_approximate_math(func) or (not exact_division and uses_approximate_division(func)):
        return FLOAT_ULPS_APPROXIMATE
    return 0
