"""How closely a target's floats must match the CPU reference: bit for bit, except in kernels that call
a math function the target computes approximately (Vulkan's GLSL.std.450 exp, log, sin, pow, sqrt ...;
Gen's math box, with natural exp and log through a base-2 scale): OpenCL allows several ULP there
(OpenCL C 3.0 section 7.4) where the CPU's libm is correctly rounded or nearly."""
from __future__ import annotations

FLOAT_ULPS_APPROXIMATE = 4      # measured worst case on the corpus: 2 ULP (float_math, after ~20 operations)
# exact on both targets (fmod is OpFRem on lavapipe, which llvmpipe computes exactly)
EXACT_MATH = {"fabs", "floor", "ceil", "trunc", "rint", "round", "copysign", "fmod", "ldexp"}


def uses_approximate_math(func) -> bool:
    return any(i.opcode == "math" and i.attrs["fn"] not in EXACT_MATH for i in func.instructions())


def float_ulps(func) -> int:
    return FLOAT_ULPS_APPROXIMATE if uses_approximate_math(func) else 0
