"""The OpenCL C library of builtins the execution oracle (jit_oracle.py) links into every kernel: generated
here as source, one function per builtin, overloaded per type and vector width, so that clang-22 gives its
definitions the mangled names the kernels call. Written in OpenCL C because the OpenCL specification
defines the builtins in its terms (integer edge cases, conversions, atomics as clang's `__opencl_atomic`
builtins); the oracle compiles it to spir64 LLVM IR once and caches it (builtin_library_ir)."""
from __future__ import annotations

_INT_TYPES = {  # name: (bits, signed, unsigned twin)
    "char": (8, True, "uchar"), "uchar": (8, False, "uchar"), "short": (16, True, "ushort"),
    "ushort": (16, False, "ushort"), "int": (32, True, "uint"), "uint": (32, False, "uint"),
    "long": (64, True, "ulong"), "ulong": (64, False, "ulong"),
}
_FLOAT_TYPES = {"float": ("int", "f"), "double": ("long", "")}  # name: (same-size int, libm suffix)
_WIDTHS = (2, 3, 4, 8, 16)
_ALL_TYPES = list(_INT_TYPES) + list(_FLOAT_TYPES)

# Slot layout of the work-item state array shared between the library and the launch loop: ids and sizes,
# the sub-group size S, and for the sub-group model (oracle_subgroups.py) the site of the sub-group call
# being made, the depth and entries of the stack of calls that lead to it and, from _LOOPS on, one
# iteration counter per instrumented loop.
_GID, _LID, _GRP, _GSZ, _LSZ, _NGR, _OFF, _DIM, _SGS, _SITE, _DEPTH, _NSLOTS = \
    0, 3, 6, 9, 12, 15, 18, 21, 22, 23, 24, 25


def _int_limits(t: str) -> tuple[str, str]:
    bits, signed, _ = _INT_TYPES[t]
    if signed:
        lo = f"(({t})(-{2 ** (bits - 1) - 1}L - 1L))" if bits == 64 else f"(({t})(-{2 ** (bits - 1)}))"
        return lo, f"(({t}){2 ** (bits - 1) - 1}{'L' if bits == 64 else ''})"
    return f"(({t})0)", f"(({t}){2 ** bits - 1}{'UL' if bits == 64 else 'U'})"


def _vectorize(ret: str, name: str, params: list[tuple[str, bool]], n: int) -> str:
    """Component-wise vector overload of an already defined scalar function.

    params: (element type, is_vector) per parameter; ret is the element type of the result."""
    decl = ", ".join(f"{t}{n if v else ''} a{i}" for i, (t, v) in enumerate(params))
    call = ", ".join(f"a{i}[i]" if v else f"a{i}" for i, (t, v) in enumerate(params))
    return (f"OV {ret}{n} {name}({decl}) {{ {ret}{n} r; "
            f"for (int i = 0; i < {n}; i++) r[i] = {name}({call}); return r; }}\n")


# Overloads that mix vector and scalar parameters (min(int4, int), mix(float4, float4, float), ...):
# which parameters stay scalar in the mixed form.
_MIXED_SCALAR = {"min": (1,), "max": (1,), "clamp": (1, 2), "fmin": (1,), "fmax": (1,), "mix": (2,),
                 "step": (0,), "smoothstep": (0, 1), "ldexp": (1,)}


def _scalar_and_vectors(ret: str, name: str, params: list[tuple[str, bool]], body: str) -> str:
    """A scalar definition plus its component-wise vector overloads (and the mixed ones, if any)."""
    decl = ", ".join(f"{t} a{i}" for i, (t, _) in enumerate(params))
    out = f"OV {ret} {name}({decl}) {{ {body} }}\n"
    scalar_params = _MIXED_SCALAR.get(name)
    for n in _WIDTHS:
        out += _vectorize(ret, name, params, n)
        if scalar_params:
            out += _vectorize(ret, name, [(t, i not in scalar_params) for i, (t, _) in enumerate(params)], n)
    return out


def _integer_builtins(t: str) -> str:
    bits, signed, u = _INT_TYPES[t]
    lo, hi = _int_limits(t)
    wide = "long" if signed else "ulong"
    T1, T2, T3 = [(t, True)], [(t, True)] * 2, [(t, True)] * 3
    src = []
    add = lambda ret, name, params, body: src.append(_scalar_and_vectors(ret, name, params, body))  # noqa: E731
    add(u, "abs", T1, f"return a0 < ({t})0 ? ({u})(({u})0 - ({u})a0) : ({u})a0;")
    add(u, "abs_diff", T2, f"return a0 > a1 ? ({u})(({u})a0 - ({u})a1) : ({u})(({u})a1 - ({u})a0);")
    if signed:
        add(t, "add_sat", T2, f"{t} r; if (__builtin_add_overflow(a0, a1, &r)) return a1 > 0 ? {hi} : {lo}; return r;")
        add(t, "sub_sat", T2, f"{t} r; if (__builtin_sub_overflow(a0, a1, &r)) return a1 < 0 ? {hi} : {lo}; return r;")
    else:
        add(t, "add_sat", T2, f"{t} r; if (__builtin_add_overflow(a0, a1, &r)) return {hi}; return r;")
        add(t, "sub_sat", T2, f"{t} r; if (__builtin_sub_overflow(a0, a1, &r)) return {lo}; return r;")
    add(t, "hadd", T2, f"return ({t})((a0 >> 1) + (a1 >> 1) + (a0 & a1 & ({t})1));")
    add(t, "rhadd", T2, f"return ({t})((a0 >> 1) + (a1 >> 1) + ((a0 | a1) & ({t})1));")
    add(t, "max", T2, "return a0 > a1 ? a0 : a1;")
    add(t, "min", T2, "return a0 < a1 ? a0 : a1;")
    add(t, "clamp", T3, "return a0 < a1 ? a1 : (a0 > a2 ? a2 : a0);")
    ubits = 64 if bits == 64 else 32
    ucast = "ulong" if bits == 64 else "uint"
    sfx = "l" if bits == 64 else ""      # OpenCL C's long is 64-bit; its long long is 128-bit (clzll counts from 128)
    add(t, "clz", T1, f"return a0 == 0 ? ({t}){bits} : ({t})(__builtin_clz{sfx}(({ucast})({u})a0) - {ubits - bits});")
    add(t, "ctz", T1, f"return a0 == 0 ? ({t}){bits} : ({t})__builtin_ctz{sfx}(({ucast})({u})a0);")
    add(t, "popcount", T1, f"return ({t})__builtin_popcount{sfx}(({ucast})({u})a0);")
    add(t, "rotate", T2, f"{u} x = ({u})a0; uint s = (uint)(({u})a1 % {bits}u); "
                         f"return s == 0 ? a0 : ({t})(({u})(x << s) | ({u})(x >> ({bits}u - s)));")
    if bits < 64:
        add(t, "mul_hi", T2, f"return ({t})((({wide})a0 * ({wide})a1) >> {bits});")
        add(t, "mad_hi", T3, f"return ({t})(((({wide})a0 * ({wide})a1) >> {bits}) + a2);")
        add(t, "mad_sat", T3, f"long r = (long)a0 * (long)a1 + (long)a2; "
                              f"return r > (long){hi} ? {hi} : (r < (long){lo} ? {lo} : ({t})r);"
            if bits < 32 or signed else
            f"ulong r = (ulong)a0 * (ulong)a1 + (ulong)a2; return r > (ulong){hi} ? {hi} : ({t})r;")
    else:
        # 64x64 -> high 64 bits from 32-bit halves; the signed result corrects the unsigned one.
        hi_u = ("ulong x = (ulong)a0, y = (ulong)a1; ulong xl = x & 0xffffffffUL, xh = x >> 32, "
                "yl = y & 0xffffffffUL, yh = y >> 32; ulong p0 = xl * yl, p1 = xl * yh, p2 = xh * yl, p3 = xh * yh; "
                "ulong mid = (p0 >> 32) + (p1 & 0xffffffffUL) + (p2 & 0xffffffffUL); "
                "ulong h = p3 + (p1 >> 32) + (p2 >> 32) + (mid >> 32); ")
        fix = "if (a0 < 0) h -= y; if (a1 < 0) h -= x; " if signed else ""
        add(t, "mul_hi", T2, hi_u + fix + f"return ({t})h;")
        add(t, "mad_hi", T3, f"return ({t})((ulong)mul_hi(a0, a1) + (ulong)a2);")
        if signed:      # exact without 128-bit types: an overflowing product is |a0| * |a1| below 2^64 or none
            add(t, "mad_sat", T3,
                f"long p, r; if (!__builtin_mul_overflow(a0, a1, &p)) {{ if (!__builtin_add_overflow(p, a2, &r)) "
                f"return r; return a2 > 0 ? {hi} : {lo}; }} int neg = (a0 < 0) != (a1 < 0); "
                f"ulong ua = a0 < 0 ? (ulong)0 - (ulong)a0 : (ulong)a0, ub = a1 < 0 ? (ulong)0 - (ulong)a1 : (ulong)a1, up; "
                f"if (__builtin_mul_overflow(ua, ub, &up)) return neg ? {lo} : {hi}; "
                f"if (!neg) {{ if (a2 >= 0) return {hi}; ulong d = up - ((ulong)0 - (ulong)a2); "
                f"return d > (ulong){hi} ? {hi} : (long)d; }} "
                f"if (a2 <= 0) return {lo}; ulong d = up - (ulong)a2; "
                f"return d > (ulong){hi} + 1UL ? {lo} : (long)((ulong)0 - d);")
        else:
            add(t, "mad_sat", T3, f"ulong p, r; if (__builtin_mul_overflow(a0, a1, &p) || "
                                  f"__builtin_add_overflow(p, a2, &r)) return {hi}; return r;")
    add(t, "bitselect", T3, "return (a0 & ~a2) | (a1 & a2);")
    if t in ("int", "uint"):
        add(t, "mul24", T2, f"return ({t})((uint)a0 * (uint)a1);")            # (the low 32 bits: wraps)
        add(t, "mad24", T3, f"return ({t})((uint)a0 * (uint)a1 + (uint)a2);")
    if bits < 64:
        up = {"char": "short", "uchar": "ushort", "short": "int", "ushort": "uint", "int": "long", "uint": "ulong"}[t]
        unsigned_up = up if up[0] == "u" else "u" + up
        src.append(_scalar_and_vectors(up, "upsample", [(t, True), (u, True)],     # (no shift of a negative value)
                                       f"return ({up})((({unsigned_up})({up})a0 << {bits}) | ({unsigned_up})a1);"))
    return "".join(src)


def _float_builtins(t: str) -> str:
    it, f = _FLOAT_TYPES[t]
    T1, T2, T3 = [(t, True)], [(t, True)] * 2, [(t, True)] * 3
    src = []
    add = lambda ret, name, params, body: src.append(_scalar_and_vectors(ret, name, params, body))  # noqa: E731
    unary = {
        "sqrt": f"__builtin_sqrt{f}(a0)", "rsqrt": f"({t})1 / __builtin_sqrt{f}(a0)",
        "fabs": f"__builtin_fabs{f}(a0)", "floor": f"__builtin_floor{f}(a0)", "ceil": f"__builtin_ceil{f}(a0)",
        "trunc": f"__builtin_trunc{f}(a0)", "round": f"__builtin_round{f}(a0)", "rint": f"__builtin_rint{f}(a0)",
        "exp": f"__builtin_exp{f}(a0)", "exp2": f"__builtin_exp2{f}(a0)", "exp10": f"__builtin_pow{f}(({t})10, a0)",
        "expm1": f"__builtin_expm1{f}(a0)", "log": f"__builtin_log{f}(a0)", "log2": f"__builtin_log2{f}(a0)",
        "log10": f"__builtin_log10{f}(a0)", "log1p": f"__builtin_log1p{f}(a0)", "sin": f"__builtin_sin{f}(a0)",
        "cos": f"__builtin_cos{f}(a0)", "tan": f"__builtin_tan{f}(a0)", "asin": f"__builtin_asin{f}(a0)",
        "acos": f"__builtin_acos{f}(a0)", "atan": f"__builtin_atan{f}(a0)", "sinh": f"__builtin_sinh{f}(a0)",
        "cosh": f"__builtin_cosh{f}(a0)", "tanh": f"__builtin_tanh{f}(a0)", "cbrt": f"__builtin_cbrt{f}(a0)",
        "native_sqrt": f"__builtin_sqrt{f}(a0)", "native_rsqrt": f"({t})1 / __builtin_sqrt{f}(a0)",
        "native_exp": f"__builtin_exp{f}(a0)", "native_log": f"__builtin_log{f}(a0)",
        "native_sin": f"__builtin_sin{f}(a0)", "native_cos": f"__builtin_cos{f}(a0)",
        "native_recip": f"({t})1 / a0", "half_sqrt": f"__builtin_sqrt{f}(a0)", "half_exp": f"__builtin_exp{f}(a0)",
        "sign": f"a0 > ({t})0 ? ({t})1 : (a0 < ({t})0 ? ({t})-1 : (a0 != a0 ? ({t})0 : a0))",
        "degrees": f"a0 * ({t})57.29577951308232", "radians": f"a0 * ({t})0.017453292519943295",
    }
    for name, expr in unary.items():
        add(t, name, T1, f"return {expr};")
    binary = {
        "pow": f"__builtin_pow{f}(a0, a1)", "powr": f"__builtin_pow{f}(a0, a1)", "fmod": f"__builtin_fmod{f}(a0, a1)",
        "atan2": f"__builtin_atan2{f}(a0, a1)", "hypot": f"__builtin_hypot{f}(a0, a1)",
        "copysign": f"__builtin_copysign{f}(a0, a1)", "fmin": f"__builtin_fmin{f}(a0, a1)",
        "fmax": f"__builtin_fmax{f}(a0, a1)", "min": f"__builtin_fmin{f}(a0, a1)", "max": f"__builtin_fmax{f}(a0, a1)",
        "fdim": f"a0 > a1 ? a0 - a1 : ({t})0", "step": f"a1 < a0 ? ({t})0 : ({t})1",
        "native_divide": "a0 / a1", "native_powr": f"__builtin_pow{f}(a0, a1)", "maxmag": f"__builtin_fabs{f}(a0) > __builtin_fabs{f}(a1) ? a0 : (__builtin_fabs{f}(a1) > __builtin_fabs{f}(a0) ? a1 : __builtin_fmax{f}(a0, a1))",
        "minmag": f"__builtin_fabs{f}(a0) < __builtin_fabs{f}(a1) ? a0 : (__builtin_fabs{f}(a1) < __builtin_fabs{f}(a0) ? a1 : __builtin_fmin{f}(a0, a1))",
    }
    for name, expr in binary.items():
        add(t, name, T2, f"return {expr};")
    add(t, "fma", T3, f"return __builtin_fma{f}(a0, a1, a2);")
    add(t, "logb", T1, f"return __builtin_logb{f}(a0);")
    add(t, "nextafter", T2, f"return __builtin_nextafter{f}(a0, a1);")
    # ilogb: OpenCL's FP_ILOGBNAN is INT_MAX (clang's header), glibc's INT_MIN
    src.append(f"OV int ilogb({t} a0) {{ return a0 != a0 ? 2147483647 : __builtin_ilogb{f}(a0); }}\n")
    for n in _WIDTHS:
        src.append(f"OV int{n} ilogb({t}{n} a0) {{ int{n} r; for (int i = 0; i < {n}; i++) r[i] = ilogb(a0[i]); "
                   f"return r; }}\n")
    # the built-ins that store a second result through a pointer, of every address space but __constant
    one = {"fract": ("{t}", f"{t} fl = __builtin_floor{f}(a0); *p = fl; if (a0 != a0) return a0; "
                            f"if (__builtin_isinf(a0)) return __builtin_copysign{f}(({t})0, a0); "
                            f"return __builtin_fmin{f}(a0 - fl, ({t})(1.0 - 0x1p-{24 if t == 'float' else 53}));"),
           "modf": ("{t}", f"return __builtin_modf{f}(a0, p);"),
           "sincos": ("{t}", f"*p = __builtin_cos{f}(a0); return __builtin_sin{f}(a0);"),
           "frexp": ("int", f"int e; {t} m = __builtin_frexp{f}(a0, &e); *p = (a0 != a0 || __builtin_isinf(a0)) ? 0 : e; "
                            f"return m;")}
    for name, (stored, body) in one.items():
        st = stored.format(t=t)
        src.append(f"OV {t} __oracle_{name}({t} a0, __private {st} *p) {{ {body} }}\n")    # (one private form:
        for asp in ("__generic", "__global", "__local", "__private"):                  # no ambiguous call)
            src.append(f"OV {t} {name}({t} a0, {asp} {st} *p) {{ {st} k; {t} r = __oracle_{name}(a0, &k); "
                       f"*p = k; return r; }}\n")
            for n in _WIDTHS:
                src.append(f"OV {t}{n} {name}({t}{n} a0, {asp} {st}{n} *p) {{ {t}{n} r; {st}{n} o; "
                           f"for (int i = 0; i < {n}; i++) {{ {st} k; r[i] = __oracle_{name}(a0[i], &k); o[i] = k; }} "
                           f"*p = o; return r; }}\n")
    add(t, "bitselect", T3, f"return __builtin_astype((__builtin_astype(a0, {it}) & ~__builtin_astype(a2, {it})) | "
                            f"(__builtin_astype(a1, {it}) & __builtin_astype(a2, {it})), {t});")
    add(t, "mad", T3, "return a0 * a1 + a2;")
    add(t, "mix", T3, "return a0 + (a1 - a0) * a2;")
    add(t, "clamp", T3, f"return __builtin_fmin{f}(__builtin_fmax{f}(a0, a1), a2);")
    add(t, "smoothstep", T3, f"{t} x = (a2 - a0) / (a1 - a0); x = x < ({t})0 ? ({t})0 : (x > ({t})1 ? ({t})1 : x); "
                             f"return x * x * (({t})3 - ({t})2 * x);")
    src.append(_scalar_and_vectors(t, "pown", [(t, True), ("int", True)], f"return __builtin_pow{f}(a0, ({t})a1);"))
    src.append(_scalar_and_vectors(t, "ldexp", [(t, True), ("int", True)], f"return __builtin_ldexp{f}(a0, a1);"))
    # Relational: scalar versions return 0/1, vector versions 0/-1.
    tests = {"isnan": "a0 != a0", "isinf": "__builtin_isinf(a0)", "isfinite": "__builtin_isfinite(a0)",
             "signbit": "__builtin_signbit(a0)", "isnormal": "__builtin_isnormal(a0)"}
    for name, expr in tests.items():
        src.append(f"OV int {name}({t} a0) {{ return ({expr}) ? 1 : 0; }}\n")
        for n in _WIDTHS:
            src.append(f"OV {it}{n} {name}({t}{n} a0) {{ {it}{n} r; for (int i = 0; i < {n}; i++) "
                       f"r[i] = {name}(a0[i]) ? ({it})-1 : ({it})0; return r; }}\n")
    comparisons = {"isequal": "a0 == a1", "isnotequal": "a0 != a1", "isgreater": "a0 > a1",
                   "isgreaterequal": "a0 >= a1", "isless": "a0 < a1", "islessequal": "a0 <= a1",
                   "islessgreater": "a0 < a1 || a0 > a1", "isordered": "a0 == a0 && a1 == a1",
                   "isunordered": "a0 != a0 || a1 != a1"}
    for name, expr in comparisons.items():
        src.append(f"OV int {name}({t} a0, {t} a1) {{ return ({expr}) ? 1 : 0; }}\n")
        for n in _WIDTHS:
            src.append(f"OV {it}{n} {name}({t}{n} a0, {t}{n} a1) {{ {it}{n} r; for (int i = 0; i < {n}; i++) "
                       f"r[i] = {name}(a0[i], a1[i]) ? ({it})-1 : ({it})0; return r; }}\n")
    # Geometric functions on float/double 2, 3, 4 and scalars.
    for n in (0, 2, 3, 4):                  # 0: the scalar
        v = f"{t}{n or ''}"
        dot = "a0 * a1" if n == 0 else " + ".join(f"a0[{i}] * a1[{i}]" for i in range(n))
        src.append(f"OV {t} dot({v} a0, {v} a1) {{ return {dot}; }}\n")
        src.append(f"OV {t} length({v} a0) {{ return __builtin_sqrt{f}(dot(a0, a0)); }}\n")
        src.append(f"OV {t} distance({v} a0, {v} a1) {{ return length(a0 - a1); }}\n")
        src.append(f"OV {v} normalize({v} a0) {{ return a0 / length(a0); }}\n")
    src.append(f"OV {t}3 cross({t}3 a, {t}3 b) {{ return ({t}3)(a.y * b.z - a.z * b.y, a.z * b.x - a.x * b.z, "
               f"a.x * b.y - a.y * b.x); }}\n")
    src.append(f"OV {t}4 cross({t}4 a, {t}4 b) {{ return ({t}4)(a.y * b.z - a.z * b.y, a.z * b.x - a.x * b.z, "
               f"a.x * b.y - a.y * b.x, ({t})0); }}\n")
    return "".join(src)


def _select_builtins(t: str) -> str:
    """select(a, b, c): scalar picks b when c != 0, vectors when the most significant bit of c is set."""
    if t in _INT_TYPES:
        bits = _INT_TYPES[t][0]
        masks = [s for s, (b, _, _) in _INT_TYPES.items() if b == bits]
    else:
        masks = [_FLOAT_TYPES[t][0], _INT_TYPES[_FLOAT_TYPES[t][0]][2]]
    src = []
    for m in masks:
        src.append(f"OV {t} select({t} a, {t} b, {m} c) {{ return c ? b : a; }}\n")
        msb = "(c[i] < 0)" if _INT_TYPES[m][1] else f"(c[i] >> {_INT_TYPES[m][0] - 1})"
        for n in _WIDTHS:
            src.append(f"OV {t}{n} select({t}{n} a, {t}{n} b, {m}{n} c) {{ {t}{n} r; "
                       f"for (int i = 0; i < {n}; i++) r[i] = {msb} ? b[i] : a[i]; return r; }}\n")
    return "".join(src)


def _memory_builtins(t: str) -> str:
    src = []
    for n in _WIDTHS:
        for asp in ("__generic", "__global", "__local", "__constant", "__private"):
            src.append(f"OV {t}{n} vload{n}(size_t o, const {asp} {t} *p) {{ {t}{n} r; "
                       f"for (int i = 0; i < {n}; i++) r[i] = p[o * {n} + i]; return r; }}\n")
            if asp != "__constant":
                src.append(f"OV void vstore{n}({t}{n} v, size_t o, {asp} {t} *p) {{ "
                           f"for (int i = 0; i < {n}; i++) p[o * {n} + i] = v[i]; }}\n")
    return "".join(src)


def _half_memory_builtins() -> str:
    """vload_half, vloada_half, vstore_half and vstorea_half of every width (OpenCL C 3.0, 6.15.12): halves in
    memory read as floats, floats and doubles stored as halves (rounded to nearest even, what the plain and
    _rte forms do); the aligned forms of three elements step by four."""
    src = []
    for n in ("", 2, 3, 4, 8, 16):
        count = n or 1
        for aligned in ("", "a"):
            step = 4 if aligned and n == 3 else count
            for asp in ("__generic", "__global", "__local", "__constant", "__private"):
                if count == 1:
                    src.append(f"OV float vload{aligned}_half(size_t o, const {asp} half *p) {{ return (float)p[o]; }}\n")
                else:
                    src.append(f"OV float{n} vload{aligned}_half{n}(size_t o, const {asp} half *p) {{ float{n} r; "
                               f"for (int i = 0; i < {n}; i++) r[i] = (float)p[o * {step} + i]; return r; }}\n")
                if asp == "__constant":
                    continue
                for t in ("float", "double"):
                    for mode in ("", "_rte"):
                        if count == 1:
                            src.append(f"OV void vstore{aligned}_half{mode}({t} v, size_t o, {asp} half *p) "
                                       f"{{ p[o] = (half)v; }}\n")
                        else:
                            src.append(f"OV void vstore{aligned}_half{n}{mode}({t}{n} v, size_t o, {asp} half *p) "
                                       f"{{ for (int i = 0; i < {n}; i++) p[o * {step} + i] = (half)v[i]; }}\n")
    return "".join(src)


def _conversion(dst: str, s: str, suffix: str, body: str) -> str:
    """convert_<dst><suffix>(s) from its body on `a0`, and its vector forms (the width is in their names:
    convert_<dst><n><suffix>)."""
    out = f"OV {dst} convert_{dst}{suffix}({s} a0) {{ {body} }}\n"
    for n in _WIDTHS:
        out += (f"OV {dst}{n} convert_{dst}{n}{suffix}({s}{n} a0) {{ {dst}{n} r; "
                f"for (int i = 0; i < {n}; i++) r[i] = convert_{dst}{suffix}(a0[i]); return r; }}\n")
    return out


def _conversion_builtins() -> str:
    src = []
    for dst in _ALL_TYPES:
        for s in _ALL_TYPES:
            src.append(f"OV {dst} convert_{dst}({s} x) {{ return ({dst})x; }}\n")
            for n in _WIDTHS:
                src.append(f"OV {dst}{n} convert_{dst}{n}({s}{n} x) {{ {dst}{n} r; "
                           f"for (int i = 0; i < {n}; i++) r[i] = ({dst})x[i]; return r; }}\n")
    # Saturating and rounding float -> integer conversions (NaN saturates to 0; a rounding mode rounds
    # first: rte rint, rtz trunc, rtp ceil, rtn floor), and saturating integer -> integer ones, with their
    # vector forms (OpenCL C 3.0, 6.4.3.3 and 6.4.3.4).
    rounding = {"": "a0", "_rte": "__builtin_rint{f}(a0)", "_rtz": "__builtin_trunc{f}(a0)",
                "_rtp": "__builtin_ceil{f}(a0)", "_rtn": "__builtin_floor{f}(a0)"}
    for dst in _INT_TYPES:
        lo, hi = _int_limits(dst)
        for s, (_, f) in _FLOAT_TYPES.items():
            for mode, rounded in rounding.items():
                r = rounded.format(f=f)
                bodies = {"": f"return ({dst}){r};",
                          "_sat": f"return a0 != a0 ? ({dst})0 : ({r} <= ({s}){lo} ? {lo} : ({r} >= ({s}){hi} ? {hi} : ({dst}){r}));"}
                for sat, body in bodies.items():
                    if sat or mode:
                        src.append(_conversion(dst, s, sat + mode, body))
        d_bits, d_signed, _ = _INT_TYPES[dst]
        d_lo, d_hi = (-(1 << (d_bits - 1)), (1 << (d_bits - 1)) - 1) if d_signed else (0, (1 << d_bits) - 1)
        for s, (bits, signed, _) in _INT_TYPES.items():
            s_lo, s_hi = (-(1 << (bits - 1)), (1 << (bits - 1)) - 1) if signed else (0, (1 << bits) - 1)
            tests = ([f"a0 < ({s}){lo} ? {lo}"] if s_lo < d_lo else []) + ([f"a0 > ({s}){hi} ? {hi}"] if s_hi > d_hi else [])
            body = "return " + "".join(t + " : " for t in tests) + f"({dst})a0;"
            src.append(_conversion(dst, s, "_sat", body))
    for dst in _FLOAT_TYPES:                # to a float, rte is what a plain conversion does
        for s in _ALL_TYPES:
            src.append(_conversion(dst, s, "_rte", f"return ({dst})a0;"))
    return "".join(src)


def _shuffles(t: str) -> str:
    """shuffle(x, mask) and shuffle2(x, y, mask) (OpenCL C 3.0, 6.15.13): element i of the result is element
    mask[i] of x (of x then y), only the mask's low log2(2n) bits (n the width of x) counted."""
    bits = _INT_TYPES[t][0] if t in _INT_TYPES else {"float": 32, "double": 64}[t]
    mask = {8: "uchar", 16: "ushort", 32: "uint", 64: "ulong"}[bits]
    src = []
    for n in (2, 4, 8, 16):
        for m in (2, 4, 8, 16):
            src.append(f"OV {t}{m} shuffle({t}{n} x, {mask}{m} k) {{ {t}{m} r; "
                       f"for (int i = 0; i < {m}; i++) r[i] = x[k[i] % {n}]; return r; }}\n")
            src.append(f"OV {t}{m} shuffle2({t}{n} x, {t}{n} y, {mask}{m} k) {{ {t}{m} r; for (int i = 0; i < {m}; i++) "
                       f"{{ uint j = (uint)(k[i] % {2 * n}); r[i] = j < {n} ? x[j] : y[j - {n}]; }} return r; }}\n")
    return "".join(src)


def _any_all() -> str:
    src = []
    for t in ("char", "short", "int", "long"):
        src.append(f"OV int any({t} x) {{ return x < 0; }}\nOV int all({t} x) {{ return x < 0; }}\n")
        for n in _WIDTHS:
            src.append(f"OV int any({t}{n} x) {{ for (int i = 0; i < {n}; i++) if (x[i] < 0) return 1; return 0; }}\n"
                       f"OV int all({t}{n} x) {{ for (int i = 0; i < {n}; i++) if (x[i] >= 0) return 0; return 1; }}\n")
    return "".join(src)


def _work_item_builtins() -> str:
    def getter(name: str, base: int, default: int) -> str:
        return (f"OV size_t {name}(uint d) {{ return d < 3u ? (size_t)__oracle_state()[{base} + d] : "
                f"(size_t){default}; }}\n")
    return (
        # the calling thread's work-item state (see the module docstring); the host sets the key
        "__global ulong *pthread_getspecific(uint key);\n"
        "void __oracle_barrier(void);\n"
        "global volatile uint __oracle_key;\n"
        "static __global ulong *__oracle_state(void) { return pthread_getspecific(__oracle_key); }\n"
        + getter("get_global_id", _GID, 0) + getter("get_local_id", _LID, 0) + getter("get_group_id", _GRP, 0)
        + getter("get_global_size", _GSZ, 1) + getter("get_local_size", _LSZ, 1)
        + getter("get_enqueued_local_size", _LSZ, 1) + getter("get_num_groups", _NGR, 1)
        + getter("get_global_offset", _OFF, 0)
        + f"OV uint get_work_dim(void) {{ return (uint)__oracle_state()[{_DIM}]; }}\n"
        + "OV size_t get_global_linear_id(void) { return ((get_global_id(2) - get_global_offset(2)) * "
          "get_global_size(1) + (get_global_id(1) - get_global_offset(1))) * get_global_size(0) + "
          "(get_global_id(0) - get_global_offset(0)); }\n"
        + "OV size_t get_local_linear_id(void) { return (get_local_id(2) * get_local_size(1) + get_local_id(1)) * "
          "get_local_size(0) + get_local_id(0); }\n"
        # barriers wait for the group's other threads; fences order nothing more than x86 already does
        + "OV void barrier(uint f) { __oracle_barrier(); }\nOV void work_group_barrier(uint f) { __oracle_barrier(); }\n"
        + "OV void work_group_barrier(uint f, memory_scope s) { __oracle_barrier(); }\n"
        + "OV void mem_fence(uint f) { __atomic_thread_fence(__ATOMIC_SEQ_CST); }\n"
        + "OV void read_mem_fence(uint f) { __atomic_thread_fence(__ATOMIC_SEQ_CST); }\n"
        + "OV void write_mem_fence(uint f) { __atomic_thread_fence(__ATOMIC_SEQ_CST); }\n"
    )


def _atomic_builtins() -> str:
    """OpenCL 1.x atomic_*/atom_* on __global/__local/generic int, uint, long, ulong (and atomic_xchg on
    float), and the OpenCL 2.0 atomic_* on atomic types with their _explicit forms: real atomic
    instructions (clang's __atomic/__opencl_atomic builtins), so work-items on threads contend for real."""
    seq = "__ATOMIC_SEQ_CST"
    src = []
    for t in ("int", "uint", "long", "ulong"):
        for asp in ("__global", "__local", "__generic"):
            p = f"volatile {asp} {t} *p"
            ops = {"add": f"__atomic_fetch_add(p, v, {seq})", "sub": f"__atomic_fetch_sub(p, v, {seq})",
                   "xchg": f"__atomic_exchange_n(p, v, {seq})", "min": f"__atomic_fetch_min(p, v, {seq})",
                   "max": f"__atomic_fetch_max(p, v, {seq})", "and": f"__atomic_fetch_and(p, v, {seq})",
                   "or": f"__atomic_fetch_or(p, v, {seq})", "xor": f"__atomic_fetch_xor(p, v, {seq})"}
            for prefix in ("atomic_", "atom_"):
                for op, expr in ops.items():
                    src.append(f"OV {t} {prefix}{op}({p}, {t} v) {{ return {expr}; }}\n")
                src.append(f"OV {t} {prefix}inc({p}) {{ return __atomic_fetch_add(p, ({t})1, {seq}); }}\n")
                src.append(f"OV {t} {prefix}dec({p}) {{ return __atomic_fetch_sub(p, ({t})1, {seq}); }}\n")
                src.append(f"OV {t} {prefix}cmpxchg({p}, {t} c, {t} v) {{ "
                           f"__atomic_compare_exchange_n(p, &c, v, 0, {seq}, {seq}); return c; }}\n")
    for asp in ("__global", "__local", "__generic"):
        src.append(f"OV float atomic_xchg(volatile {asp} float *p, float v) {{ return __builtin_astype("
                   f"__atomic_exchange_n((volatile {asp} int *)p, __builtin_astype(v, int), {seq}), float); }}\n")
    dev = "__OPENCL_MEMORY_SCOPE_DEVICE"
    for t in ("int", "uint", "long", "ulong", "float"):
        a = f"volatile __generic atomic_{t} *p"
        src.append(f"OV void atomic_init({a}, {t} v) {{ __opencl_atomic_init(p, v); }}\n")
        forms = [("", "", f"{seq}", dev), ("_explicit", ", memory_order o", "o", dev),
                 ("_explicit", ", memory_order o, memory_scope s", "o", "s")]
        for sfx, extra, o, s in forms:
            src.append(f"OV void atomic_store{sfx}({a}, {t} v{extra}) {{ __opencl_atomic_store(p, v, {o}, {s}); }}\n")
            src.append(f"OV {t} atomic_load{sfx}({a}{extra}) {{ return __opencl_atomic_load(p, {o}, {s}); }}\n")
            src.append(f"OV {t} atomic_exchange{sfx}({a}, {t} v{extra}) {{ "
                       f"return __opencl_atomic_exchange(p, v, {o}, {s}); }}\n")
            if t == "float":
                continue
            for op in ("add", "sub", "or", "xor", "and", "min", "max"):
                src.append(f"OV {t} atomic_fetch_{op}{sfx}({a}, {t} v{extra}) {{ "
                           f"return __opencl_atomic_fetch_{op}(p, v, {o}, {s}); }}\n")
        for strength in ("strong", "weak"):
            e = f"__generic {t} *e, {t} d"
            src.append(f"OV bool atomic_compare_exchange_{strength}({a}, {e}) {{ return "
                       f"__opencl_atomic_compare_exchange_{strength}(p, e, d, {seq}, {seq}, {dev}); }}\n")
            src.append(f"OV bool atomic_compare_exchange_{strength}_explicit({a}, {e}, memory_order o, "
                       f"memory_order f) {{ return __opencl_atomic_compare_exchange_{strength}(p, e, d, o, f, "
                       f"{dev}); }}\n")
            src.append(f"OV bool atomic_compare_exchange_{strength}_explicit({a}, {e}, memory_order o, "
                       f"memory_order f, memory_scope s) {{ return __opencl_atomic_compare_exchange_{strength}("
                       f"p, e, d, o, f, s); }}\n")
    flag = "volatile __generic atomic_flag *p"
    for sfx, extra, o, s in (("", "", seq, dev), ("_explicit", ", memory_order o", "o", dev),
                             ("_explicit", ", memory_order o, memory_scope s", "o", "s")):
        src.append(f"OV bool atomic_flag_test_and_set{sfx}({flag}{extra}) {{ "
                   f"return __opencl_atomic_exchange(p, 1, {o}, {s}) != 0; }}\n")
        src.append(f"OV void atomic_flag_clear{sfx}({flag}{extra}) {{ __opencl_atomic_store(p, 0, {o}, {s}); }}\n")
    src.append("OV void atomic_work_item_fence(uint f, memory_order o, memory_scope s) { "
               "__atomic_thread_fence(__ATOMIC_SEQ_CST); }\n")
    return "".join(src)


def portable_builtin_lines() -> list[str]:
    """The integer, shuffle and conversion built-ins of every integer type, one definition a line, in the
    OpenCL C that clang also compiles as C (overloadable functions on its vector types, no address space):
    what tools/fuzz/ubcheck.py runs natively under the sanitizers."""
    lines = [line for t in _INT_TYPES for line in (_integer_builtins(t) + _shuffles(t)).splitlines()]
    return lines + [line for line in _conversion_builtins().splitlines() if "half" not in line]


def builtin_library_source() -> str:
    """OpenCL C text defining the builtins (no default header: no `const` attributes); jit_oracle appends the
    sub-group ones (oracle_subgroups.sub_group_library_source), which use its types and state layout."""
    head = ["#define OV __attribute__((overloadable))\n",
            "#pragma OPENCL EXTENSION cl_khr_fp64 : enable\n",
            "#pragma OPENCL EXTENSION cl_khr_fp16 : enable\n",
            "#pragma OPENCL EXTENSION cl_khr_int64_base_atomics : enable\n",
            "#pragma OPENCL EXTENSION cl_khr_int64_extended_atomics : enable\n",
            "#pragma OPENCL FP_CONTRACT OFF\n",
            "typedef unsigned char uchar; typedef unsigned short ushort; typedef unsigned int uint;\n",
            "typedef unsigned long ulong; typedef ulong size_t;\n"]
    for t in _ALL_TYPES:
        base = {"uchar": "unsigned char", "ushort": "unsigned short", "uint": "unsigned int",
                "ulong": "unsigned long"}.get(t, t)
        for n in _WIDTHS:
            head.append(f"typedef {base} {t}{n} __attribute__((ext_vector_type({n})));\n")
    head += [f"typedef half half{n} __attribute__((ext_vector_type({n})));\n" for n in _WIDTHS]
    body = [_work_item_builtins(), _conversion_builtins(), _any_all(), _atomic_builtins(), _half_memory_builtins()]
    for t in _INT_TYPES:
        body.append(_integer_builtins(t))
    for t in _FLOAT_TYPES:
        body.append(_float_builtins(t))
    for t in _ALL_TYPES:
        body.append(_select_builtins(t))
        body.append(_shuffles(t))
        body.append(_memory_builtins(t))
    return "".join(head + body)
