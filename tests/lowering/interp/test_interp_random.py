"""Random straight-line OpenCL C expressions: the interpreter against the CPU JIT, bit for bit.

A seeded generator writes kernels of random, UB-free expressions over char/short/int/long (signed and
unsigned), float and double: wrapping arithmetic done in unsigned types, guarded division, masked shifts,
comparisons, selects, integer and float builtins, and conversions between all of them (float-to-int
guarded against NaN and clamped into range). Each result is stored as its bit pattern (NaNs as one
value: their sign and payload depend on the machine code's operand order); the interpreter
(on the front end's CFG form) and the JIT of clang's IR must agree exactly, at -O0 and -O2.
"""
from __future__ import annotations

import random

import numpy as np
import pytest

from reconverge.lowering.frontend import llvm_reader
from reconverge.lowering.frontend.clang import compile_opencl
from reconverge.lowering.interp import run_kernel
from reconverge.tools.targets import jit_oracle

INTS = {"char": 8, "uchar": 8, "short": 16, "ushort": 16, "int": 32, "uint": 32, "long": 64, "ulong": 64}
FLOATS = ("float", "double")
TYPES = list(INTS) + list(FLOATS)
N = 16                      # work-items
EXPRS = 24                  # expressions per kernel


def unsigned(t: str) -> str:
    """The unsigned type to do t's wrapping arithmetic in: at least uint, as narrower types promote to int
    (where 65535 * 65535 would overflow)."""
    if INTS[t] < 32:
        return "uint"
    return t if t.startswith("u") else "u" + t


class ExprGen:
    """Random expressions of a requested type; every one is free of undefined behaviour."""

    def __init__(self, rng: random.Random):
        self.rng = rng

    def leaf(self, t: str) -> str:
        r = self.rng.random()
        if r < 0.6:
            src = self.rng.choice(["xi", "yi", "xf", "yf"])
            return self.convert(src, "long" if src[1] == "i" else "double", t)
        if t in FLOATS:
            return f"({t}){self.rng.choice(['0.5', '-3.25', '1e-3', '7.0', '-0.0', '1e10'])}"
        bits = INTS[t]
        v = self.rng.choice([0, 1, 3, -1, 7, 100, (1 << (bits - 1)) - 1])
        return f"({t})({v}L)"

    def convert(self, e: str, src: str, dst: str) -> str:
        if src in FLOATS and dst in INTS:
            bits = INTS[dst]
            lo, hi = (0, (1 << bits) - 1) if dst.startswith("u") else (-(1 << (bits - 1)), (1 << (bits - 1)) - 1)
            # keep well inside the range so that rounding the bound to the float type stays in range
            lo_f, hi_f = (lo * 0.9, hi * 0.9) if bits > 16 else (lo, hi)
            return f"(isnan(({src})({e})) ? ({dst})0 : ({dst})clamp(({src})({e}), ({src}){lo_f!r}, ({src}){hi_f!r}))"
        return f"(({dst})({e}))"

    def expr(self, t: str, depth: int) -> str:
        if depth <= 0 or self.rng.random() < 0.15:
            return self.leaf(t)
        choice = self.rng.random()
        if choice < 0.12:                       # conversion from another type
            src = self.rng.choice(TYPES)
            return self.convert(self.expr(src, depth - 1), src, t)
        if choice < 0.2:                        # select on a comparison
            ct = self.rng.choice(TYPES)
            op = self.rng.choice(["<", "<=", "==", "!=", ">", ">="])
            return (f"(({self.expr(ct, depth - 2)} {op} {self.expr(ct, depth - 2)}) ? "
                    f"{self.expr(t, depth - 1)} : {self.expr(t, depth - 1)})")
        if t in FLOATS:
            return self.float_expr(t, depth)
        return self.int_expr(t, depth)

    def int_expr(self, t: str, depth: int) -> str:
        a, b = self.expr(t, depth - 1), self.expr(t, depth - 1)
        u, bits = unsigned(t), INTS[t]
        signed = not t.startswith("u")
        r = self.rng.randrange(14)
        if r < 4:
            op = self.rng.choice(["+", "-", "*", "&", "|", "^"])
            return f"(({t})(({u})({a}) {op} ({u})({b})))"
        if r == 4:
            amount = f"((uint)({b}) & {bits - 1}u)"
            return self.rng.choice([f"(({t})(({u})({a}) << {amount}))", f"(({t})({a}) >> {amount})"])
        if r == 5:
            op = self.rng.choice(["/", "%"])
            guard = f"(({t})({b}) == 0" + (f" || ({t})({b}) == ({t})-1)" if signed else ")")
            return f"({guard} ? ({t})({a}) : ({t})(({t})({a}) {op} ({t})({b})))"
        if r == 6:
            return f"(({t})({self.rng.choice(['min', 'max', 'mul_hi', 'add_sat', 'sub_sat', 'hadd', 'rhadd', 'rotate', 'abs_diff'])}(({t})({a}), ({t})({b}))))"
        if r == 7:
            fn = self.rng.choice(["popcount", "abs", "~", "-"] + (["clz"] if bits < 64 else []))
            return f"(({t})({fn}(({t})({a}))))" if fn not in "~-" else f"(({t})({fn}({u})({a})))"
        if r == 8:
            c = f"({t})(({t})({b}) + ({t})3)"          # clamp with lo > hi is undefined: order the bounds
            return f"(({t})clamp(({t})({a}), min(({t})({b}), {c}), max(({t})({b}), {c})))" if bits < 64 else a
        if r == 9:
            return f"(({t})(({a}) < ({b})) + ({t})(({u})({a}) >= ({u})({b})))"
        return f"(({t})(({u})({a}) + ({u})({b}) * ({u})3))"

    def float_expr(self, t: str, depth: int) -> str:
        a, b = self.expr(t, depth - 1), self.expr(t, depth - 1)
        r = self.rng.randrange(12)
        if r < 5:
            return f"(({a}) {self.rng.choice(['+', '-', '*', '/'])} ({b}))"
        if r == 5:
            return f"fma({a}, {b}, {self.expr(t, depth - 2)})"
        if r == 6:
            return f"(({a}) * ({b}) + {self.expr(t, depth - 2)})"    # contracted to fmuladd by clang
        if r == 7:
            return f"{self.rng.choice(['fmin', 'fmax', 'copysign', 'fmod'])}({a}, {b})"
        if r == 8:
            return f"{self.rng.choice(['floor', 'ceil', 'trunc', 'round', 'rint', 'fabs'])}({a})"
        if r == 9:
            return f"sqrt(fabs({a}))"
        if r == 10:
            return f"{self.rng.choice(['sin', 'exp', 'log', 'atan', 'cbrt', 'tanh'])}({a})"
        return f"(-({a}))"


def random_kernel(seed: int) -> str:
    gen = ExprGen(random.Random(seed))
    lines = []
    for k in range(EXPRS):
        t = gen.rng.choice(TYPES)
        e = gen.expr(t, gen.rng.randrange(2, 6))
        if t in FLOATS:     # a NaN's sign and payload depend on operand order in machine code: hide them
            bits = "(ulong)as_uint(v)" if t == "float" else "as_ulong(v)"
            lines.append(f"    {{ {t} v = {e}; o[{k}] = isnan(v) ? 0x7ff8ul : {bits}; }}")
        else:
            lines.append(f"    o[{k}] = (ulong)({e});")
    body = "\n".join(lines)
    return (f"kernel void rnd(global ulong *out, global const long *x, global const long *y,\n"
            f"                global const double *fx, global const double *fy) {{\n"
            f"    size_t i = get_global_id(0);\n"
            f"    long xi = x[i], yi = y[i]; double xf = fx[i], yf = fy[i];\n"
            f"    global ulong *o = out + i * {EXPRS};\n{body}\n}}\n")


def make_args(seed: int) -> list:
    rng = np.random.default_rng(seed)
    special = np.array([0, -1, 1, -(2 ** 63), 2 ** 63 - 1, 255, -128, 65535], np.int64)
    x = rng.integers(-2 ** 63, 2 ** 63 - 1, N, endpoint=True, dtype=np.int64)
    y = rng.integers(-1000, 1000, N, dtype=np.int64)
    x[: len(special)] = special
    fx = rng.standard_normal(N) * 10.0 ** rng.integers(-3, 6, N)
    fy = rng.uniform(-4, 4, N)
    fx[:6] = [0.0, -0.0, np.inf, -np.inf, np.nan, 0.5]
    return [np.zeros(N * EXPRS, np.uint64), x, y, fx, fy]


@pytest.mark.filterwarnings("ignore::RuntimeWarning")
@pytest.mark.parametrize("level", ["-O0", "-O2"])
@pytest.mark.parametrize("seed", range(6))
def test_random_expressions_match_the_jit(tmp_path, seed, level):
    src = random_kernel(seed)
    path = tmp_path / f"rnd{seed}.cl"
    path.write_text(src)
    ir = compile_opencl(str(path), level)
    func = llvm_reader.read_llvm_text(ir, path.name, "rnd")["rnd"]
    want, got = make_args(seed), make_args(seed)
    jit_oracle.run_llvm_kernel(ir, "rnd", want, N, 4)
    run_kernel(func, got, N, 4)
    bad = np.flatnonzero(want[0] != got[0])
    if bad.size:
        k = int(bad[0] % EXPRS)
        line = src.splitlines()[5 + k]
        pytest.fail(f"seed {seed}{level}: {bad.size} results differ; first: item {bad[0] // EXPRS}, "
                    f"interpreter {got[0][bad[0]]:#x}, JIT {want[0][bad[0]]:#x}\n{line}")
