"""Execution oracle: run a kernel's original LLVM IR on the host CPU with llvmlite's MCJIT.

The structurizer's output is checked against this.  The spir64 module is retargeted to the host by small,
anchored text rewrites (drop the target lines and the spir_kernel/spir_func calling conventions; address
spaces are kept, x86 treats 1..4 as the flat space).  The OpenCL builtins clang leaves as mangled calls are
defined by a library written in OpenCL C (generated below, compiled by the same clang-22 for spir64, so its
mangled names match the kernels' by construction) and linked into each kernel module.

Work-items and barriers.  Every work-item function reads the calling thread's own state array (global,
local and group ids, sizes), found with libc's `pthread_getspecific` under a key the host creates, so
the same machine code serves one thread or many.  A kernel that never calls a barrier runs its
work-items one after another on the calling thread, group by group (fast, and exact: nothing can
observe the order).  A kernel that may call one (`barrier`, `work_group_barrier`) runs each work-group's
items each on its own OS thread (ctypes releases the GIL during the call), groups one after another;
the barrier built-in calls back into a Python barrier shared by the group's threads.  A barrier that
only some items of a group reach (the others returned) or that items reach a different number of times
is an OracleError naming the group, never a deadlock.  Atomics are real atomic instructions (clang's
`__atomic`/`__opencl_atomic` builtins in the library), so contending threads are exact too.

Memory.  `__local T *` parameters (a LocalArg) get one zero-filled block per work-group.  Every buffer
argument is copied into its own mapping placed so that the buffer's end (rounded up to 16 bytes) touches
an unmapped 256 KiB guard region, with another one before the page holding its start; the results are
copied back after the run.  An access past the end (beyond the rounding, up to 256 KiB) faults instead of
reading or writing host memory, and so does one before the start by more than the rest of its page
(an index of -1 is caught only when the buffer's size is a multiple of the page size); `run --target
llvm` runs in a child process, so the fault is a one-line error.
"""
from __future__ import annotations

import collections
import ctypes
import hashlib
import mmap
import os
import re
import tempfile
import threading

import llvmlite.binding as llvm
import numpy as np

from lowering import child_process
from lowering.ndrange import ndrange

CLANG = os.environ.get("RECONVERGE_CLANG", "clang-22")


class OracleError(RuntimeError):
    """The oracle cannot run this kernel (unknown builtin, bad arguments, unsupported signature)."""


# ---------------------------------------------------------------------------------------------------------
# The builtin library, generated as OpenCL C source.

_INT_TYPES = {  # name: (bits, signed, unsigned twin)
    "char": (8, True, "uchar"), "uchar": (8, False, "uchar"), "short": (16, True, "ushort"),
    "ushort": (16, False, "ushort"), "int": (32, True, "uint"), "uint": (32, False, "uint"),
    "long": (64, True, "ulong"), "ulong": (64, False, "ulong"),
}
_FLOAT_TYPES = {"float": ("int", "f"), "double": ("long", "")}  # name: (same-size int, libm suffix)
_WIDTHS = (2, 3, 4, 8, 16)
_ALL_TYPES = list(_INT_TYPES) + list(_FLOAT_TYPES)

# Slot layout of the work-item state array shared between the library and the launch loop.
_GID, _LID, _GRP, _GSZ, _LSZ, _NGR, _OFF, _DIM, _NSLOTS = 0, 3, 6, 9, 12, 15, 18, 21, 24


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
    if t in ("int", "uint"):
        add(t, "mul24", T2, "return a0 * a1;")
        add(t, "mad24", T3, "return a0 * a1 + a2;")
    if bits < 64:
        up = {"char": "short", "uchar": "ushort", "short": "int", "ushort": "uint", "int": "long", "uint": "ulong"}[t]
        src.append(_scalar_and_vectors(up, "upsample", [(t, True), (u, True)],
                                       f"return ({up})((({up})a0 << {bits}) | ({up})a1);"))
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


def _conversion_builtins() -> str:
    src = []
    for dst in _ALL_TYPES:
        for s in _ALL_TYPES:
            src.append(f"OV {dst} convert_{dst}({s} x) {{ return ({dst})x; }}\n")
            for n in _WIDTHS:
                src.append(f"OV {dst}{n} convert_{dst}{n}({s}{n} x) {{ {dst}{n} r; "
                           f"for (int i = 0; i < {n}; i++) r[i] = ({dst})x[i]; return r; }}\n")
    # Saturating float -> integer conversions (the only _sat flavour worth having: clamps NaN to 0).
    for dst in _INT_TYPES:
        lo, hi = _int_limits(dst)
        for s in _FLOAT_TYPES:
            src.append(f"OV {dst} convert_{dst}_sat({s} x) {{ return x != x ? ({dst})0 : (x <= ({s}){lo} ? {lo} : "
                       f"(x >= ({s}){hi} ? {hi} : ({dst})x)); }}\n")
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


def builtin_library_source() -> str:
    """OpenCL C text defining every builtin the oracle supports (no default header: no `const` attributes)."""
    head = ["#define OV __attribute__((overloadable))\n",
            "#pragma OPENCL EXTENSION cl_khr_fp64 : enable\n",
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
    body = [_work_item_builtins(), _conversion_builtins(), _any_all(), _atomic_builtins()]
    for t in _INT_TYPES:
        body.append(_integer_builtins(t))
    for t in _FLOAT_TYPES:
        body.append(_float_builtins(t))
    for t in _ALL_TYPES:
        body.append(_select_builtins(t))
        body.append(_memory_builtins(t))
    return "".join(head + body)


_lib_lock = threading.Lock()
_lib_ir: str | None = None


def builtin_library_ir() -> str:
    """The library compiled by clang-22 to spir64 LLVM IR; cached on disk by source hash (it takes ~1 s)."""
    global _lib_ir
    with _lib_lock:
        if _lib_ir is not None:
            return _lib_ir
        src = builtin_library_source()
        key = hashlib.sha256((src + CLANG).encode()).hexdigest()[:16]
        cache = os.path.join(tempfile.gettempdir(), f"reconverge-oracle-lib-{os.getuid()}-{key}.ll")
        if os.path.exists(cache):
            with open(cache, encoding="utf-8") as f:
                _lib_ir = f.read()
            return _lib_ir
        # the source on stdin, the IR on stdout: no temporary file to leave behind if we are killed
        proc = child_process.run([CLANG, "-x", "cl", "-cl-std=CL3.0", "-fno-builtin", "-target", "spir64",
                                  "-emit-llvm", "-S", "-O2", "-o", "-", "-"], input=src, capture_output=True,
                                 text=True)
        if proc.returncode != 0:
            raise OracleError("compiling the builtin library failed: " + proc.stderr[:2000])
        _lib_ir = proc.stdout
        _save_cache(cache, _lib_ir)
        return _lib_ir


def _save_cache(path: str, text: str) -> None:
    """Write the cache file whole or not at all, even if we are killed meanwhile: the data goes into an
    unnamed file (O_TMPFILE, gone with us) that is given its name only once complete."""
    try:
        fd = os.open(os.path.dirname(path), os.O_TMPFILE | os.O_WRONLY, 0o644)
    except (OSError, AttributeError):
        return                                  # no such files here: no cache
    try:
        data = text.encode()
        while data:
            data = data[os.write(fd, data):]
        os.link(f"/proc/self/fd/{fd}", path)
    except OSError:                             # another process saved it first, or no room: no cache
        pass
    finally:
        os.close(fd)


# ---------------------------------------------------------------------------------------------------------
# Retargeting and compiling.

_TARGET_LINE = re.compile(r"^target (?:datalayout|triple) = \"[^\"]*\"[ \t]*$", re.M)
_SPIR_CC = re.compile(r"(?<![\w.$\"@%!])spir_(?:kernel|func)(?=\s)")

_initialised = False
_target_machine = None


def _new_target_machine():
    """A generic CPU with no FMA: llvm.fmuladd then never fuses, so results do not depend on the host.

    Each execution engine needs its own: MCJIT takes ownership of the target machine it is given and
    frees it with the engine (llvmlite's create_mcjit_compiler sets `_owned`), so a shared one would
    dangle once an engine is evicted from the cache.  Codegen at opt=0 (fast instruction selection and
    register allocation): a 100000-block generated function compiles in ~15 s instead of ~7 minutes."""
    target = llvm.Target.from_triple(llvm.get_process_triple())
    return target.create_target_machine(cpu="x86-64" if "x86_64" in llvm.get_process_triple() else "",
                                        features="", opt=0, reloc="default", codemodel="jitdefault")


def _init_llvm():
    global _initialised, _target_machine
    if not _initialised:
        llvm.initialize_native_target()
        llvm.initialize_native_asmprinter()
        _target_machine = _new_target_machine()    # for data layouts only; never given to an engine
        _initialised = True
    return _target_machine


def retarget_to_host(ir_text: str) -> str:
    """spir64 module text -> host module text (target lines and SPIR calling conventions removed)."""
    return _SPIR_CC.sub("", _TARGET_LINE.sub("", ir_text))


def _set_host(mod, tm) -> None:
    mod.triple = llvm.get_process_triple()
    mod.data_layout = str(tm.target_data)


class _Library:
    """The builtin library split into one text chunk per function, so a kernel links only what it calls.

    Parsing all ~3000 definitions for every kernel costs 0.3 s; a closure of a few chunks costs almost nothing."""

    _DEFINE = re.compile(r"^define [^@]*@([\w.$]+)\(")
    _REF = re.compile(r"@([\w.$]+)")

    def __init__(self, text: str):
        self.chunks: dict[str, str] = {}
        rest: list[str] = []
        lines = text.splitlines()
        i = 0
        while i < len(lines):
            m = self._DEFINE.match(lines[i])
            if m:
                j = lines.index("}", i)
                self.chunks[m.group(1)] = "\n".join(lines[i:j + 1])
                i = j + 1
                continue
            if not lines[i].startswith(("source_filename", "; ")):
                rest.append(lines[i])
            i += 1
        self.rest = "\n".join(rest)
        self.calls = {name: {r for r in self._REF.findall(body) if r in self.chunks and r != name}
                      for name, body in self.chunks.items()}

    def module_text_for(self, names: set[str]) -> str:
        todo, seen = [n for n in names if n in self.chunks], set()
        while todo:
            n = todo.pop()
            if n not in seen:
                seen.add(n)
                todo.extend(self.calls[n] - seen)
        return self.rest + "\n" + "\n\n".join(self.chunks[n] for n in sorted(seen)) + "\n"


_library: _Library | None = None


def _get_library() -> _Library:
    global _library
    with _lib_lock:
        lib = _library
    if lib is None:
        lib = _Library(retarget_to_host(builtin_library_ir()))
        with _lib_lock:
            _library = lib
    return lib


# On a CPU without F16C, LLVM converts half floats through compiler-rt's helpers, which MCJIT does not
# link by itself (a call to one jumped to address 0): libgcc_s (GCC 12+) has them with the same ABI.
_HALF_RUNTIME = ("__extendhfsf2", "__extendhfdf2", "__truncsfhf2", "__truncdfhf2")
_half_runtime_added = False


def _add_half_runtime() -> None:
    global _half_runtime_added
    with _lib_lock:
        if _half_runtime_added:
            return
        try:
            libgcc = ctypes.CDLL("libgcc_s.so.1")
        except OSError:
            libgcc = None
        for name in _HALF_RUNTIME:
            address = ctypes.cast(getattr(libgcc, name), ctypes.c_void_p).value if libgcc is not None and \
                hasattr(libgcc, name) else None
            if address:
                llvm.add_symbol(name, address)
        _half_runtime_added = True


_libc = ctypes.CDLL(None, use_errno=True)
_libc.pthread_setspecific.argtypes = [ctypes.c_uint, ctypes.c_void_p]
_state_key: int | None = None
_BARRIER_CALLBACK = ctypes.CFUNCTYPE(None)
_barrier_local = threading.local()       # .group: the GroupBarrier of the work-item on this thread


def _key() -> int:
    """The process's pthread key under which each thread keeps its work-item state array."""
    global _state_key
    with _lib_lock:
        if _state_key is None:
            key = ctypes.c_uint()
            if _libc.pthread_key_create(ctypes.byref(key), None) != 0:
                raise OracleError("cannot create a thread-specific key for the work-item state")
            _state_key = key.value
        return _state_key


def _barrier_entry() -> None:
    group = getattr(_barrier_local, "group", None)
    if group is not None:
        group.wait()


_barrier_callback = _BARRIER_CALLBACK(_barrier_entry)     # kept alive for the process's lifetime
_BARRIER_FUNCTIONS = ("_Z7barrierj", "_Z18work_group_barrierj", "_Z18work_group_barrierj12memory_scope")


def _calls(mod) -> dict[str, set[str]]:
    """Direct callees of every function defined in the module."""
    graph: dict[str, set[str]] = {}
    for fn in mod.functions:
        if fn.is_declaration:
            continue
        callees = graph.setdefault(fn.name, set())
        for block in fn.blocks:
            for ins in block.instructions:
                if ins.opcode in ("call", "invoke"):
                    operands = list(ins.operands)
                    if operands and operands[-1].name:
                        callees.add(operands[-1].name)
    return graph


def _reachable(graph: dict[str, set[str]], root: str) -> set[str]:
    seen, todo = set(), [root]
    while todo:
        name = todo.pop()
        if name not in seen:
            seen.add(name)
            todo.extend(graph.get(name, ()))
    return seen


def _trap_stub(fn) -> str:
    """A definition of an unresolved declaration that no kernel run here reaches: it traps if called."""
    head = next(line for line in str(fn).splitlines() if line.startswith("declare "))
    head = re.sub(r"\s#\d+\s*$", "", head).replace("declare ", "define ", 1)
    return head + " {\n  call void @llvm.trap()\n  unreachable\n}\n"


class _Compiled:
    """One JIT-compiled kernel module."""

    def __init__(self, ir_text: str, kernel: str | None = None):
        tm = _init_llvm()
        try:
            text = retarget_to_host(ir_text)
            mod = llvm.parse_assembly(text)
            if kernel is not None:
                mod = _without_unreachable_targets(mod, text, kernel)
            mod.verify()
        except RuntimeError as e:
            raise OracleError(f"the kernel module does not parse or verify: {str(e).strip()}") from None
        _set_host(mod, tm)
        library = _get_library()
        self.calls = _calls(mod)
        declared = {f.name for f in mod.functions if f.is_declaration and not f.name.startswith("llvm.")}
        self.unresolved = {n for n in declared if n not in library.chunks and not llvm.address_of_symbol(n)}
        self.uses_barrier = bool(declared & set(_BARRIER_FUNCTIONS))
        lib = llvm.parse_assembly(library.module_text_for(declared | {"_Z13get_global_idj"}))
        _set_host(lib, tm)
        mod.link_in(lib)
        if self.unresolved:           # only a kernel that reaches one is refused (see function())
            stubs = "declare void @llvm.trap()\n" + "".join(
                _trap_stub(mod.get_function(n)) for n in sorted(self.unresolved))
            stub_mod = llvm.parse_assembly(stubs)
            _set_host(stub_mod, tm)
            mod.link_in(stub_mod)
        llvm.add_symbol("__oracle_barrier", ctypes.cast(_barrier_callback, ctypes.c_void_p).value)
        _add_half_runtime()
        self.engine = llvm.create_mcjit_compiler(mod, _new_target_machine())
        self.engine.finalize_object()
        self.mod = mod
        key_addr = self.engine.get_global_value_address("__oracle_key")
        ctypes.c_uint.from_address(key_addr).value = _key()
        self._funcs: dict[str, tuple] = {}
        self.lock = threading.Lock()

    def function(self, name: str):
        if name not in self._funcs:
            try:
                fn = self.mod.get_function(name)
            except NameError:
                raise OracleError(f"no function @{name} in the module") from None
            if fn.is_declaration:
                raise OracleError(f"@{name} is only declared in the module")
            missing = sorted(self.unresolved & _reachable(self.calls, name))
            if missing:
                raise OracleError(f"no definition for external function(s): {', '.join(missing)}")
            params = [_param_of(str(a.type), name) for a in fn.arguments]
            proto = ctypes.CFUNCTYPE(None, *[c for c, _ in params])
            self._funcs[name] = (proto(self.engine.get_function_address(name)), params)
        return self._funcs[name]


_SCALAR_CTYPES = {"i8": ctypes.c_int8, "i16": ctypes.c_int16, "i32": ctypes.c_int32, "i64": ctypes.c_int64,
                  "float": ctypes.c_float, "double": ctypes.c_double}


def _param_of(llvm_type: str, kernel: str) -> tuple:
    """(ctypes type, address space or None) of a kernel parameter."""
    if llvm_type == "ptr":
        return ctypes.c_void_p, 0
    if llvm_type.startswith("ptr addrspace("):
        return ctypes.c_void_p, int(llvm_type[len("ptr addrspace("):-1])
    if llvm_type in _SCALAR_CTYPES:
        return _SCALAR_CTYPES[llvm_type], None
    raise OracleError(f"@{kernel}: parameter type {llvm_type} is not supported by the oracle")


_cache: "collections.OrderedDict[str, _Compiled]" = collections.OrderedDict()
_cache_lock = threading.Lock()
CACHE_SIZE = 128   # engines kept alive; fuzzing thousands of generated kernels must not keep them all


def _without_unreachable_targets(mod, text: str, kernel: str):
    """The module without the functions `kernel` cannot reach that use target types (images, samplers,
    `target("spirv.Image")` and the like): the host's code generator cannot lower them at all, and they
    must not stop a kernel that never calls them. They are made internal and LLVM's global dead-code
    elimination removes them (nothing reachable calls them)."""
    try:
        reachable = _reachable(_calls(mod), kernel)
    except NameError:
        return mod
    unreachable = [f for f in mod.functions if not f.is_declaration and f.name not in reachable]
    if not any("target(" in str(f) for f in unreachable):
        return mod
    for f in unreachable:
        f.linkage = "internal"
    tm = _init_llvm()
    builder = llvm.create_pass_builder(tm, llvm.create_pipeline_tuning_options(speed_level=0))
    passes = llvm.create_new_module_pass_manager()
    passes.add_global_dead_code_eliminate_pass()
    passes.add_strip_dead_prototype_pass()
    passes.run(mod, builder)
    return mod


def compile_module(llvm_ir: str, kernel: str | None = None) -> _Compiled:
    """JIT-compile (once per distinct IR text and kernel, least recently used first out) and return the
    engine wrapper. With `kernel`, functions it cannot reach that the host cannot compile are left out."""
    key = hashlib.sha256(llvm_ir.encode() + b"\0" + (kernel or "").encode()).hexdigest()
    with _cache_lock:
        if key in _cache:
            _cache.move_to_end(key)
            return _cache[key]
        compiled = _Compiled(llvm_ir, kernel)
        _cache[key] = compiled
        while len(_cache) > CACHE_SIZE:
            _cache.popitem(last=False)
        return compiled


# ---------------------------------------------------------------------------------------------------------
# Arguments: guarded buffers, __local blocks, scalars.

PAGE = mmap.PAGESIZE
END_ALIGN = 16      # a buffer's end is rounded up to this before its guard page (vector accesses stay aligned)
GUARD = 64 * PAGE   # unmapped bytes on each side: an index off by up to 64K dwords lands in them


class _GuardedBuffer:
    """A copy of a numpy buffer between two unmapped guard regions, its end (rounded up to END_ALIGN)
    touching the second one; copied back into the original after the run."""

    def __init__(self, array: np.ndarray):
        self.array = array
        nbytes = array.nbytes
        span = -(-max(nbytes, 1) // END_ALIGN) * END_ALIGN
        data = -(-span // PAGE) * PAGE
        self.size = data + 2 * GUARD
        self.map = mmap.mmap(-1, self.size, flags=mmap.MAP_PRIVATE | mmap.MAP_ANONYMOUS)
        self.base = ctypes.addressof(ctypes.c_char.from_buffer(self.map))
        for start in (self.base, self.base + GUARD + data):
            if _libc.mprotect(ctypes.c_void_p(start), ctypes.c_size_t(GUARD), 0) != 0:
                raise OracleError("cannot protect a guard region (mprotect failed)")
        self.address = self.base + GUARD + data - span
        ctypes.memmove(self.address, array.ctypes.data, nbytes)

    def copy_back(self) -> None:
        ctypes.memmove(self.array.ctypes.data, self.address, self.array.nbytes)

    def close(self) -> None:
        _libc.mprotect(ctypes.c_void_p(self.base), ctypes.c_size_t(self.size), 3)   # PROT_READ | PROT_WRITE
        self.map.close()


def _is_local_arg(arg) -> bool:
    return hasattr(arg, "nbytes") and hasattr(arg, "count") and not isinstance(arg, np.ndarray)


def _c_value(arg, param, kernel: str, index: int, guards: list):
    ctype, space = param
    if space == 3 and _is_local_arg(arg):
        return None                     # a __local block, filled in per work-group
    if ctype is ctypes.c_void_p:
        if _is_local_arg(arg):
            raise OracleError(f"@{kernel}: argument {index} is a __global/__constant pointer; a __local size "
                              f"was given")
        if not isinstance(arg, np.ndarray):
            raise OracleError(f"@{kernel}: argument {index} is a pointer; pass a numpy array, not {type(arg).__name__}")
        if not arg.flags.c_contiguous or not arg.flags.writeable:
            raise OracleError(f"@{kernel}: argument {index} must be a writable C-contiguous array")
        guard = _GuardedBuffer(arg)
        guards.append(guard)
        return ctypes.c_void_p(guard.address)
    if isinstance(arg, np.ndarray) and arg.ndim > 0:
        raise OracleError(f"@{kernel}: argument {index} is a scalar, got an array")
    if isinstance(arg, np.generic) and (arg.dtype.itemsize != ctypes.sizeof(ctype)
                                        or (arg.dtype.kind == "f") != (ctype in (ctypes.c_float, ctypes.c_double))):
        raise OracleError(f"@{kernel}: argument {index} is a {ctype.__name__[2:]}, got a numpy {arg.dtype}")
    value = arg.item() if isinstance(arg, (np.generic, np.ndarray)) else arg
    if ctype in (ctypes.c_float, ctypes.c_double):
        return ctype(float(value))
    bits = ctypes.sizeof(ctype) * 8
    value = int(value) & ((1 << bits) - 1)  # unsigned values keep their bit pattern
    if value >= 1 << (bits - 1):
        value -= 1 << bits
    return ctype(value)


def run_llvm_kernel(llvm_ir: str, kernel: str, args: list, global_size, local_size, global_offset=0) -> None:
    """Run `kernel` of the (spir64, clang-made) module over the whole NDRange; buffers are updated in place.

    Without barriers, work-items run one after another: work-group by work-group (dimension 0 fastest),
    and inside each group local id by local id. With barriers, each group's items run on threads."""
    compiled = compile_module(llvm_ir, kernel)
    fn, params = compiled.function(kernel)
    if len(args) != len(params):
        raise OracleError(f"@{kernel} takes {len(params)} arguments, {len(args)} given")
    try:
        rng = ndrange(global_size, local_size, global_offset)
    except ValueError as exc:
        raise OracleError(str(exc)) from None
    guards: list[_GuardedBuffer] = []
    try:
        c_args = [_c_value(a, p, kernel, i, guards) for i, (a, p) in enumerate(zip(args, params))]
        local_blocks = [(i, int(a.nbytes)) for i, a in enumerate(args) if c_args[i] is None]
        with compiled.lock:
            launch = _launch_threaded if compiled.uses_barrier else _launch_sequential
            launch(fn, c_args, local_blocks, rng, kernel)
        for guard in guards:
            guard.copy_back()
    finally:
        for guard in guards:
            guard.close()


def _group_state(rng, group: tuple[int, int, int]) -> np.ndarray:
    state = np.zeros(_NSLOTS, np.uint64)
    state[_GSZ:_GSZ + 3] = rng.global_size
    state[_LSZ:_LSZ + 3] = rng.local_size
    state[_NGR:_NGR + 3] = rng.groups
    state[_OFF:_OFF + 3] = rng.offset
    state[_DIM] = rng.work_dim
    state[_GRP:_GRP + 3] = group
    return state


def _set_item(state: np.ndarray, rng, group, local) -> None:
    state[_LID:_LID + 3] = local
    state[_GID:_GID + 3] = [group[d] * rng.local_size[d] + local[d] + rng.offset[d] for d in range(3)]


def _groups(rng):
    g = rng.groups
    for gz in range(g[2]):
        for gy in range(g[1]):
            for gx in range(g[0]):
                yield gx, gy, gz


def _locals(rng):
    l3 = rng.local_size
    for lz in range(l3[2]):
        for ly in range(l3[1]):
            for lx in range(l3[0]):
                yield lx, ly, lz


def _with_local_blocks(c_args: list, local_blocks: list) -> tuple[list, list]:
    """The call arguments with a fresh zero-filled, 16-byte aligned block for every __local parameter."""
    keep, out = [], list(c_args)
    for index, nbytes in local_blocks:
        block = np.zeros(max(nbytes, 1) + 16, np.uint8)
        offset = (-block.ctypes.data) % 16
        keep.append(block)
        out[index] = ctypes.c_void_p(block.ctypes.data + offset)
    return out, keep


def _launch_sequential(fn, c_args, local_blocks, rng, kernel) -> None:
    key = _key()
    for group in _groups(rng):
        state = _group_state(rng, group)
        _libc.pthread_setspecific(key, ctypes.c_void_p(state.ctypes.data))
        args, keep = _with_local_blocks(c_args, local_blocks)
        for local in _locals(rng):
            _set_item(state, rng, group, local)
            fn(*args)
        del keep
    _libc.pthread_setspecific(key, None)


class GroupBarrier:
    """The barrier of one work-group's threads. Every item must reach every barrier: an item that returns
    while others wait (or wait later) makes the group divergent, which is reported, never waited on."""

    def __init__(self, size: int, group):
        self.size, self.group = size, group
        self.cond = threading.Condition()
        self.arrived = 0
        self.generation = 0
        self.finished = 0
        self.error: str | None = None

    def _fail(self, message: str) -> None:
        if self.error is None:
            self.error = message
        self.cond.notify_all()

    def wait(self) -> None:
        with self.cond:
            if self.error is None and self.finished:
                self._fail(f"work-group {self.group}: a barrier was reached after {self.finished} of its "
                           f"{self.size} work-items had returned (a barrier in divergent control flow)")
            if self.error is None:
                self.arrived += 1
                generation = self.generation
                if self.arrived == self.size:
                    self.arrived = 0
                    self.generation += 1
                    self.cond.notify_all()
                    return
                while generation == self.generation and self.error is None:
                    self.cond.wait()
                if self.error is None:
                    return
        threading.Event().wait()      # the group is broken: park this thread forever; the host reports

    def finish(self) -> None:
        with self.cond:
            self.finished += 1
            if self.arrived:
                self._fail(f"work-group {self.group}: {self.arrived} work-item(s) wait at a barrier that "
                           f"{self.finished} other(s) returned without reaching (a barrier in divergent "
                           f"control flow)")
            self.cond.notify_all()


THREAD_STACK = 512 * 1024     # per work-item thread: kernels keep their private arrays on the stack


def _launch_threaded(fn, c_args, local_blocks, rng, kernel) -> None:
    key = _key()
    size = int(np.prod(rng.local_size))
    old_stack = threading.stack_size(THREAD_STACK)
    try:
        for group in _groups(rng):
            barrier = GroupBarrier(size, group)
            args, keep = _with_local_blocks(c_args, local_blocks)
            states = []

            def item(state):
                _libc.pthread_setspecific(key, ctypes.c_void_p(state.ctypes.data))
                _barrier_local.group = barrier
                try:
                    fn(*args)
                finally:
                    barrier.finish()

            threads = []
            for local in _locals(rng):
                state = _group_state(rng, group)
                _set_item(state, rng, group, local)
                states.append(state)
                thread = threading.Thread(target=item, args=(state,), daemon=True)
                threads.append(thread)
                thread.start()
            with barrier.cond:
                while barrier.finished < size and barrier.error is None:
                    barrier.cond.wait()
            if barrier.error is not None:
                raise OracleError(f"@{kernel}: {barrier.error}")
            for thread in threads:
                thread.join()
            del keep, states
    finally:
        threading.stack_size(old_stack)
