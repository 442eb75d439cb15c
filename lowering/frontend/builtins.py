"""OpenCL C builtins and LLVM intrinsics, lowered to our opcodes one lane at a time.

Over 600 lines: one demangled-name dispatch over every OpenCL builtin and LLVM intrinsic, with the
per-family lowerings it calls.

clang calls OpenCL builtins by their Itanium-mangled names (`_Z4sqrtf`, `_Z5clampDv4_iS_S_`); the mangled
parameter types carry the signedness LLVM types lack, so names are demangled (enough of the grammar for
OpenCL's builtin signatures). Vector overloads are scalarized: each function is written for one lane
and applied lane-wise, scalar arguments being broadcast where OpenCL allows mixing (clamp(v, lo, hi)).
"""
from __future__ import annotations

import re

from reconverge.lazy_regex import LazyModule
from reconverge.lowering.frontend import subgroups
from reconverge.lowering.frontend.llvm_types import LType
from reconverge.lowering.frontend.mem_loops import copies_backward
from reconverge.lowering.frontend.scalar import Unsupported, scalar_type
from reconverge.lowering.ir.core import Const, Value
from reconverge.lowering.ir.opcodes import MATH_FUNCTIONS
from reconverge.lowering.ir.types import F16, F32, I1, I32, I64, TOKEN, VOID, Type, float_type, int_type
from reconverge.records import record
from reconverge.typing_free import cast

TYPE_CHECKING = False                   # not typing's: a compile's start-up does not import typing
if TYPE_CHECKING:
    import math
    from typing import Any
else:
    math = LazyModule("math")               # a few float builtins' constants: an extension module


def _unsupported(msg: str = ""):
    return Unsupported(msg)


# ----------------------------------------------------------------------------------------------
# demangling


@record(frozen=True)
class Param:
    kind: str          # "s" signed int, "u" unsigned int, "f" float, "v" void, "o" opaque (images, events)
    bits: int = 0
    width: int = 1     # vector width
    pointer: bool = False
    addrspace: int = 0


_CODES = {"c": ("s", 8), "a": ("s", 8), "h": ("u", 8), "s": ("s", 16), "t": ("u", 16), "i": ("s", 32),
          "j": ("u", 32), "l": ("s", 64), "m": ("u", 64), "x": ("s", 64), "y": ("u", 64), "f": ("f", 32),
          "d": ("f", 64), "b": ("u", 1), "v": ("v", 0)}


def demangle(symbol: str) -> tuple[str, list[Param]] | None:
    """`_Z5clampDv4_fff` -> ("clamp", [float4, float, float]); None if not an Itanium function name."""
    m = re.match(r"_Z(\d+)", symbol)
    if m is None:
        return None
    n = int(m.group(1))
    name = symbol[m.end():m.end() + n]
    s = symbol[m.end() + n:]
    subs: list[Param] = []
    params: list[Param] = []
    i = 0
    try:
        while i < len(s):
            p, i = _param(s, i, subs)
            params.append(p)
    except (IndexError, ValueError, KeyError):
        return None
    if params == [Param("v")]:
        params = []
    return name, params


def _param(s: str, i: int, subs: list[Param]) -> tuple[Param, int]:
    c = s[i]
    if c == "S":
        j = s.index("_", i)
        seq = s[i + 1:j]
        return subs[int(seq, 36) + 1 if seq else 0], j + 1
    if s.startswith("Dh", i):
        return Param("f", 16), i + 2
    if s.startswith("Dv", i):
        j = s.index("_", i)
        width = int(s[i + 2:j])
        e, k = _param(s, j + 1, subs)
        p = Param(e.kind, e.bits, width)
        subs.append(p)
        return p, k
    if c == "P":
        e, k = _param(s, i + 1, subs)
        p = Param(e.kind, e.bits, e.width, True, e.addrspace)
        subs.append(p)
        return p, k
    if c in "KVr":
        e, k = _param(s, i + 1, subs)
        subs.append(e)
        return e, k
    if c == "U":
        m = re.match(r"U(\d+)", s[i:])
        if m is None:
            raise ValueError("a vendor qualifier without its length")
        n = int(m.group(1))
        qual = s[i + len(m.group()):i + len(m.group()) + n]
        e, k = _param(s, i + len(m.group()) + n, subs)
        if qual.startswith("AS"):
            e = Param(e.kind, e.bits, e.width, e.pointer, int(qual[2:]))
        subs.append(e)
        return e, k
    if c.isdigit():
        m = re.match(r"\d+", s[i:])
        assert m is not None      # c is a digit
        n = int(m.group())
        p = Param("o")
        subs.append(p)
        return p, i + len(m.group()) + n
    kind, bits = _CODES[c]
    return Param(kind, bits), i + 1


# ----------------------------------------------------------------------------------------------
# lane helpers


class Lanes:
    """Emission helpers bound to the reader; every method works on single scalar values."""

    def __init__(self, r):
        self.r = r

    def op(self, opcode: str, *xs: Value, t: Type | None = None, **attrs) -> Value:
        return self.r.emit(opcode, list(xs), t or xs[0].type, attrs or None)

    def c(self, t: Type, v) -> Const:
        return Const(t, v)

    def icmp(self, pred: str, a: Value, b: Value) -> Value:
        return self.r.emit("icmp", [a, b], I1, {"pred": pred})

    def fcmp(self, pred: str, a: Value, b: Value) -> Value:
        return self.r.emit("fcmp", [a, b], I1, {"pred": pred})

    def sel(self, c: Value, a: Value, b: Value) -> Value:
        return self.r.emit("select", [c, a, b], a.type)

    def math(self, fn: str, *xs: Value) -> Value:
        return self.r.emit("math", list(xs), xs[0].type, {"fn": fn})

    def approx_div(self, a: Value, b: Value) -> Value:
        """a / b where the builtin's precision allows OpenCL's 2.5 ULP (or is implementation-defined)."""
        return self.r.emit("fdiv", [a, b], a.type, {"approx": True})

    def fix_width(self, x: Value, t: Type, signed: bool) -> Value:
        if x.type == t:
            return x
        if x.type.bits > t.bits:
            return self.op("trunc", x, t=t)
        return self.op("sext" if signed else "zext", x, t=t)


def _bc(lanes: list[Value], n: int) -> list[Value]:
    return lanes * n if len(lanes) == 1 and n > 1 else lanes


def _map(fn, args: list[list[Value]], n: int) -> list[Value]:
    cols = [_bc(a, n) for a in args]
    return [fn(*[c[i] for c in cols]) for i in range(n)]


def _leaf_type(lt: LType) -> Type:
    return scalar_type(lt.elem if lt.kind == "vec" else lt)


# ----------------------------------------------------------------------------------------------
# OpenCL builtins

WORKITEM = {"get_global_id": "global_id", "get_local_id": "local_id", "get_group_id": "group_id",
            "get_global_size": "global_size", "get_local_size": "local_size", "get_num_groups": "num_groups",
            "get_global_offset": "global_offset", "get_work_dim": "work_dim",
            "get_enqueued_local_size": "local_size"}
_FENCES = ("mem_fence", "read_mem_fence", "write_mem_fence", "atomic_work_item_fence")
_RENAMED_MATH = {"powr": "pow"}
_RELATIONAL = {"isequal": "oeq", "isnotequal": "une", "isgreater": "ogt", "isgreaterequal": "oge",
               "isless": "olt", "islessequal": "ole", "islessgreater": "one", "isordered": "ord",
               "isunordered": "uno"}
_TYPE_NAMES = {"char": ("s", 8), "uchar": ("u", 8), "short": ("s", 16), "ushort": ("u", 16), "int": ("s", 32),
               "uint": ("u", 32), "long": ("s", 64), "ulong": ("u", 64), "float": ("f", 32),
               "double": ("f", 64), "half": ("f", 16)}


def opencl(r, symbol: str, args: list[list[Value]], arg_types: list[LType], ret: LType) -> list[Value] | None:
    dm = demangle(symbol)
    if dm is None:
        raise _unsupported(f"call to unknown function @{symbol}")
    name, params = dm
    L = Lanes(r)
    n = ret.count if ret.kind == "vec" else 1
    rt = None if ret.kind == "void" else _leaf_type(ret)
    p0 = params[0] if params else Param("v")
    signed = p0.kind == "s"

    if name in WORKITEM or name in ("get_global_linear_id", "get_local_linear_id"):
        assert rt is not None         # every work-item function returns a value
        return [_workitem(L, name, args, rt)]
    if subgroups.is_subgroup_builtin(name):
        return subgroups.lower(L, name, [p.kind for p in params], args, rt)
    if name in ("barrier", "work_group_barrier"):
        flags = args[0][0]
        r.emit("barrier", [L.fix_width(flags, I32, False)], VOID)
        return None
    if name in _FENCES or name == "atomic_work_item_fence":
        return None        # no fence opcode: our memory model is sequentially consistent per work-group
    if name.startswith(("atomic_", "atom_")):
        return _atomic(L, name, params, args, rt)

    base = name
    for prefix in ("native_", "half_"):
        if base.startswith(prefix) and base[len(prefix):] not in ("", ):
            base = base[len(prefix):]
            break
    base = _RENAMED_MATH.get(base, base)

    if p0.kind == "f" or (base in ("vload_half", "vstore_half") or base.startswith(("vload", "vstore"))
                          or base.startswith("convert_") or base in ("select", "bitselect", "shuffle", "shuffle2")):
        out = _float_or_memory(L, base, name, params, args, ret, rt, n)
        if out is not NotImplemented:
            return out
    if p0.kind in "su":
        out = _integer(L, base, signed, params, args, rt, n)
        if out is not NotImplemented:
            return out
    raise _unsupported(f"OpenCL builtin {name}")


_ATOMIC_10 = {"add": "add", "sub": "sub", "xchg": "xchg", "inc": "inc", "dec": "dec", "cmpxchg": "cmpxchg",
              "min": "min", "max": "max", "and": "and", "or": "or", "xor": "xor"}
_ATOMIC_20 = {"fetch_add": "add", "fetch_sub": "sub", "fetch_or": "or", "fetch_xor": "xor", "fetch_and": "and",
              "fetch_min": "min", "fetch_max": "max", "exchange": "xchg", "load": "load", "store": "store",
              "init": "store", "flag_test_and_set": "flag_set", "flag_clear": "flag_clear",
              "compare_exchange_strong": "cas", "compare_exchange_weak": "cas"}


def _atomic(L: Lanes, name: str, params: list[Param], args, rt: Type | None) -> list[Value] | None:
    """OpenCL 1.x atomic_*/atom_* and 2.0 atomic_* built-ins as `atomic` instructions. The scope is the
    pointer's: work-group for __local, device otherwise (2.0 forms with a memory_scope keep device: the
    widest is always correct); the order is recorded as seq_cst (the strongest)."""
    rest = name.split("_", 1)[1]
    explicit = rest.endswith("_explicit")
    if explicit:
        rest = rest[:-len("_explicit")]
    op = (_ATOMIC_20 if name.startswith("atomic_") and rest in _ATOMIC_20 and rest not in _ATOMIC_10
          else _ATOMIC_10).get(rest)
    if op is None:
        raise _unsupported(f"OpenCL builtin {name}")
    ptr_arg = args[0][0]
    elem = params[0]
    scope = "workgroup" if elem.addrspace == 3 else "device"
    vt = float_type(elem.bits) if elem.kind == "f" else int_type(elem.bits)
    if op in ("min", "max"):
        op = ("s" if elem.kind == "s" else "u") + op
    attrs = {"scope": scope, "order": "seq_cst"}

    def atomic(kind: str, *values: Value, t: Type = vt) -> Value:
        return L.r.emit("atomic", [ptr_arg, *values], t, {"op": kind, **attrs})
    if op in ("inc", "dec", "load"):
        return [atomic(op)]
    if op == "store":
        L.r.emit("atomic", [ptr_arg, args[1][0]], VOID, {"op": "store", **attrs})
        return None
    if op == "cmpxchg":
        return [atomic("cmpxchg", args[2][0], args[1][0])]       # (new value, compared value)
    if op == "flag_set":
        old = atomic("xchg", L.c(I32, 1), t=I32)
        return [L.op("zext", L.icmp("ne", old, L.c(I32, 0)), t=rt)]
    if op == "flag_clear":
        L.r.emit("atomic", [ptr_arg, L.c(I32, 0)], VOID, {"op": "store", **attrs})
        return None
    if op == "cas":
        expected_ptr, desired = args[1][0], args[2][0]
        expected = L.r.emit("load", [expected_ptr], vt, {"align": vt.bits // 8})
        old = atomic("cmpxchg", desired, expected)
        ok = L.icmp("eq", old, expected)
        L.r.emit("store", [L.sel(ok, expected, old), expected_ptr], VOID, {"align": vt.bits // 8})
        return [L.op("zext", ok, t=rt)]
    return [atomic(op, args[1][0])]


def _workitem(L: Lanes, name: str, args, rt: Type) -> Value:
    def wi(fn: str, dim: int | Value) -> Value:
        d = dim if isinstance(dim, Value) else Const(I32, dim)
        return L.r.emit("workitem", [L.fix_width(d, I32, False)], I64, {"fn": fn})
    if name == "get_work_dim":
        v = L.r.emit("workitem", [Const(I32, 0)], I32, {"fn": "work_dim"})
    elif name == "get_local_linear_id":
        v = L.op("add", L.op("mul", L.op("add", L.op("mul", wi("local_id", 2), wi("local_size", 1)),
                                          wi("local_id", 1)), wi("local_size", 0)), wi("local_id", 0))
    elif name == "get_global_linear_id":
        g = [L.op("sub", wi("global_id", d), wi("global_offset", d)) for d in range(3)]
        v = L.op("add", L.op("mul", L.op("add", L.op("mul", g[2], wi("global_size", 1)), g[1]),
                             wi("global_size", 0)), g[0])
    else:
        v = wi(WORKITEM[name], args[0][0])
    return L.fix_width(v, rt, False)


def _float_or_memory(L: Lanes, base: str, name: str, params: list[Param], args, ret: LType, rt, n: int):
    if base.startswith("convert_"):
        return _convert(L, base, params, args, rt, n)
    if base in ("shuffle", "shuffle2"):
        return _shuffle(L, base, args, n)
    if base in MATH_FUNCTIONS:
        return _map(lambda *xs: L.math(base, *xs), args, n)
    if base == "pown":
        return _map(lambda x, k: L.math("pow", x, L.op("sitofp", k, t=x.type)), args, n)
    if base == "recip":
        return _map(lambda x: L.approx_div(L.c(x.type, 1.0), x), args, n)
    if base == "divide":        # native_divide, half_divide: implementation-defined precision
        return _map(lambda a, b: L.approx_div(a, b), args, n)
    if base in ("fmin", "min"):
        return _map(lambda a, b: L.op("fmin", a, b), args, n)
    if base in ("fmax", "max"):
        return _map(lambda a, b: L.op("fmax", a, b), args, n)
    if base == "mad":
        return _map(lambda a, b, c: L.op("fmuladd", a, b, c), args, n)
    if base == "fma":
        return _map(lambda a, b, c: L.op("fma", a, b, c), args, n)
    if base == "clamp":
        return _map(lambda x, lo, hi: L.op("fmin", L.op("fmax", x, lo), hi), args, n)
    if base == "mix":
        return _map(lambda x, y, a: L.op("fadd", x, L.op("fmul", L.op("fsub", y, x), a)), args, n)
    if base == "step":
        return _map(lambda e, x: L.sel(L.fcmp("olt", x, e), L.c(x.type, 0.0), L.c(x.type, 1.0)), args, n)
    if base == "smoothstep":
        def smooth(e0, e1, x):
            t = L.approx_div(L.op("fsub", x, e0), L.op("fsub", e1, e0))
            t = L.op("fmin", L.op("fmax", t, L.c(x.type, 0.0)), L.c(x.type, 1.0))
            return L.op("fmul", L.op("fmul", t, t), L.op("fsub", L.c(x.type, 3.0), L.op("fmul", L.c(x.type, 2.0), t)))
        return _map(smooth, args, n)
    if base in ("degrees", "radians"):
        k = 180.0 / math.pi if base == "degrees" else math.pi / 180.0
        return _map(lambda x: L.op("fmul", x, L.c(x.type, k)), args, n)
    if base == "sign":
        def sign(x):
            pos = L.sel(L.fcmp("ogt", x, L.c(x.type, 0.0)), L.c(x.type, 1.0), x)
            neg = L.sel(L.fcmp("olt", x, L.c(x.type, 0.0)), L.c(x.type, -1.0), pos)
            return L.sel(L.fcmp("uno", x, x), L.c(x.type, 0.0), neg)
        return _map(sign, args, n)
    if base in ("dot", "length", "distance", "normalize", "fast_length", "fast_distance", "fast_normalize"):
        return _geometric(L, base.replace("fast_", ""), args)
    if base == "cross":
        a, b = args
        x = [L.op("fsub", L.op("fmul", a[(i + 1) % 3], b[(i + 2) % 3]), L.op("fmul", a[(i + 2) % 3], b[(i + 1) % 3]))
             for i in range(3)]
        return x + [L.c(a[0].type, 0.0)] * (len(a) - 3)
    if base in ("isnan", "isinf", "isfinite", "signbit", "isnormal") or base in _RELATIONAL:
        return _relational(L, base, args, ret, rt, n)
    if base in ("select", "bitselect"):
        return _select(L, base, params, args, n)
    if base.startswith(("vload", "vstore")):
        return _vload_vstore(L, base, params, args, ret, n)
    if base in ("fract", "modf", "sincos", "frexp"):
        return _with_out_pointer(L, base, args, n)
    if base in ("ilogb", "logb", "nextafter"):
        return _map(lambda *xs: _exponent_step(L, base, *xs), args, n)
    if base in ("fdim", "maxmag", "minmag"):
        return _map(lambda a, b: _float_pair(L, base, a, b), args, n)
    return NotImplemented


def _float_pair(L: Lanes, base: str, a: Value, b: Value) -> Value:
    t = a.type
    if base == "fdim":          # a - b if a > b, +0 otherwise, NaN if either is NaN
        d = L.sel(L.fcmp("ogt", a, b), L.op("fsub", a, b), L.c(t, 0.0))
        return L.sel(L.fcmp("uno", a, b), L.op("fadd", a, b), d)
    fa, fb = L.math("fabs", a), L.math("fabs", b)
    big, small = ("ogt", "olt") if base == "maxmag" else ("olt", "ogt")
    tie = L.op("fmax" if base == "maxmag" else "fmin", a, b)
    return L.sel(L.fcmp(big, fa, fb), a, L.sel(L.fcmp(small, fa, fb), b, tie))


def _with_out_pointer(L: Lanes, base: str, args, n: int) -> list[Value]:
    """fract/modf/sincos: one result returned, one stored through the last (pointer) argument."""
    r = L.r
    p = args[-1][0]
    out, stored = [], []
    for x in _bc(args[0], n):
        t = x.type
        if base == "fract":
            fl = L.math("floor", x)
            below_one = {16: 0.99951171875, 32: 0.99999994039535522, 64: 0.99999999999999989}[t.bits]
            frac = L.op("fmin", L.op("fsub", x, fl), L.c(t, below_one))
            frac = L.sel(L.fcmp("oeq", L.math("fabs", x), L.c(t, math.inf)), L.math("copysign", L.c(t, 0.0), x), frac)
            out.append(L.sel(L.fcmp("uno", x, x), x, frac))
            stored.append(fl)
        elif base == "modf":
            whole = L.math("trunc", x)
            frac = L.math("copysign", L.op("fsub", x, whole), x)
            frac = L.sel(L.fcmp("oeq", L.math("fabs", x), L.c(t, math.inf)), L.math("copysign", L.c(t, 0.0), x), frac)
            out.append(frac)
            stored.append(whole)
        elif base == "frexp":
            mantissa, exponent = _frexp(L, x)
            out.append(mantissa)
            stored.append(exponent)
        else:
            out.append(L.math("sin", x))
            stored.append(L.math("cos", x))
    size = stored[0].type.size
    for i, v in enumerate(stored):
        r.store(v, p, i * size, size)
    return out


class _FloatBits:
    """A float's fields as integers of its width (IEEE 754 binary16/32/64): exact, so no target's handling of
    subnormals (a multiply that flushes them) can change the answer."""

    def __init__(self, L: Lanes, x: Value):
        t = x.type
        self.L = L
        self.mantissa_bits = {16: 10, 32: 23, 64: 52}[t.bits]
        self.bias = (1 << (t.bits - self.mantissa_bits - 2)) - 1
        self.max_exponent = 2 * self.bias + 1
        self.it = int_type(t.bits)
        self.bits = L.op("bitcast", x, t=self.it)
        self.exponent = L.op("and", L.op("lshr", self.bits, self.c(self.mantissa_bits)), self.c(self.max_exponent))
        self.fraction = L.op("and", self.bits, self.c((1 << self.mantissa_bits) - 1))

    def c(self, v: int) -> Const:
        return Const(self.it, v)

    def top_bit(self, v: Value) -> Value:
        """The index of v's highest set bit (v > 0)."""
        return self.L.op("sub", self.c(self.it.bits - 1), self.L.op("clz", v))

    def unbiased(self) -> Value:
        """floor(log2 |x|) of a finite non-zero x, subnormals included, in its integer type."""
        L = self.L
        normal = L.op("sub", self.exponent, self.c(self.bias))
        subnormal = L.op("add", self.top_bit(self.fraction), self.c(1 - self.bias - self.mantissa_bits))
        return L.sel(L.icmp("eq", self.exponent, self.c(0)), subnormal, normal)

    def is_zero(self) -> Value:
        return self.L.icmp("eq", self.L.op("and", self.bits, self.c((1 << (self.it.bits - 1)) - 1)), self.c(0))

    def is_finite(self) -> Value:
        return self.L.icmp("ne", self.exponent, self.c(self.max_exponent))


def _exponent_step(L: Lanes, base: str, x: Value, y: Value | None = None) -> Value:
    """ilogb, logb and nextafter (OpenCL C 3.0, 6.15.2) from the bits: ilogb of 0 is FP_ILOGB0 (INT_MIN in
    clang's header), of an infinity or NaN FP_ILOGBNAN and INT_MAX (both INT_MAX); logb of 0 is -inf, of an
    infinity +inf; nextafter steps the bit pattern one unit toward y (from a zero to the smallest subnormal
    of y's sign)."""
    t = x.type
    f = _FloatBits(L, x)
    if base == "nextafter":
        assert y is not None
        toward_larger = L.fcmp("olt", x, y)
        away_from_zero = L.icmp("eq", toward_larger, L.fcmp("ogt", x, L.c(t, 0.0)))
        step = L.op("add", f.bits, L.sel(away_from_zero, f.c(1), f.c(-1)))
        sign_of_y = L.op("and", L.op("bitcast", y, t=f.it), f.c(1 << (t.bits - 1)))
        step = L.sel(f.is_zero(), L.op("or", sign_of_y, f.c(1)), step)
        r = L.op("bitcast", step, t=t)
        r = L.sel(L.fcmp("oeq", x, y), y, r)
        return L.sel(L.fcmp("uno", x, y), L.op("fadd", x, y), r)
    e = f.unbiased()
    if base == "ilogb":
        e32 = L.fix_width(e, I32, True)
        e32 = L.sel(f.is_finite(), e32, L.c(I32, 0x7FFFFFFF))
        return L.sel(f.is_zero(), L.c(I32, -(1 << 31)), e32)
    r = L.op("sitofp", e, t=t)
    magnitude = L.op("bitcast", L.op("and", f.bits, f.c((1 << (t.bits - 1)) - 1)), t=t)
    r = L.sel(f.is_finite(), r, magnitude)                            # +inf, or the NaN
    return L.sel(f.is_zero(), L.c(t, -math.inf), r)


def _frexp(L: Lanes, x: Value) -> tuple[Value, Value]:
    """frexp: x as m * 2^e with |m| in [0.5, 1) (OpenCL C 3.0, 6.15.2), from the bits; a zero, infinity or
    NaN is returned as it is with e = 0 (as glibc does)."""
    f = _FloatBits(L, x)
    e = L.op("add", f.unbiased(), f.c(1))
    # the fraction bits below the leading one, at the top of the field: a subnormal's shifted up
    shift = L.op("sub", f.c(f.mantissa_bits), f.top_bit(L.op("or", f.fraction, f.c(1))))
    fraction = L.sel(L.icmp("eq", f.exponent, f.c(0)),
                     L.op("and", L.op("shl", f.fraction, shift), f.c((1 << f.mantissa_bits) - 1)), f.fraction)
    sign = L.op("and", f.bits, f.c(1 << (f.it.bits - 1)))
    m = L.op("bitcast", L.op("or", L.op("or", sign, fraction), f.c((f.bias - 1) << f.mantissa_bits)), t=x.type)
    special = L.op("or", f.is_zero(), L.op("xor", f.is_finite(), L.c(I1, True)))
    return L.sel(special, x, m), L.sel(special, L.c(I32, 0), L.fix_width(e, I32, True))


def _shuffle(L: Lanes, base: str, args, n: int) -> list[Value]:
    """shuffle(x, mask) / shuffle2(x, y, mask): lane i = source[mask[i] % (size of the source)]."""
    src = args[0] + (args[1] if base == "shuffle2" else [])
    width = len(args[0])
    out = []
    for m in args[-1]:
        sel = L.op("and", m, L.c(m.type, (2 * width if base == "shuffle2" else width) - 1))
        acc = src[0]
        for j in range(1, len(src)):
            acc = L.sel(L.icmp("eq", sel, L.c(m.type, j)), src[j], acc)
        out.append(acc)
    return out


def _geometric(L: Lanes, base: str, args) -> list[Value]:
    def dot(a, b):
        acc = L.op("fmul", a[0], b[0])
        for x, y in zip(a[1:], b[1:]):
            acc = L.op("fadd", acc, L.op("fmul", x, y))
        return acc
    if base == "dot":
        return [dot(args[0], args[1])]
    if base == "length":
        return [L.math("sqrt", dot(args[0], args[0]))]
    if base == "distance":
        d = [L.op("fsub", x, y) for x, y in zip(args[0], args[1])]
        return [L.math("sqrt", dot(d, d))]
    inv = L.math("rsqrt", dot(args[0], args[0]))
    return [L.op("fmul", x, inv) for x in args[0]]


def _relational(L: Lanes, base: str, args, ret: LType, rt: Type, n: int) -> list[Value]:
    def test(*xs):
        x = xs[0]
        if base in _RELATIONAL:
            return L.fcmp(_RELATIONAL[base], xs[0], xs[1])
        if base == "isnan":
            return L.fcmp("uno", x, x)
        inf = L.c(x.type, math.inf)
        if base == "isinf":
            return L.fcmp("oeq", L.math("fabs", x), inf)
        if base == "isfinite":
            return L.fcmp("one", L.math("fabs", x), inf)
        if base == "isnormal":
            tiny = {16: 2.0 ** -14, 32: 2.0 ** -126, 64: 2.0 ** -1022}[x.type.bits]
            a = L.math("fabs", x)
            return L.op("and", L.fcmp("one", a, inf), L.fcmp("oge", a, L.c(x.type, tiny)))
        return L.icmp("slt", L.op("bitcast", x, t=int_type(x.type.bits)), L.c(int_type(x.type.bits), 0))
    # scalar versions return int 1/0, vector versions -1/0 in the lane's width
    ext = "sext" if ret.kind == "vec" else "zext"
    return _map(lambda *xs: L.op(ext, test(*xs), t=rt), args, n)


def _select(L: Lanes, base: str, params: list[Param], args, n: int) -> list[Value]:
    vector = params[2].width > 1 if len(params) > 2 else False
    if base == "select":
        def sel(a, b, c):
            cond = L.icmp("slt", c, L.c(c.type, 0)) if vector else L.icmp("ne", c, L.c(c.type, 0))
            return L.sel(cond, b, a)
        return _map(sel, args, n)

    def bitsel(a, b, c):
        t = a.type
        it = int_type(t.bits)
        ai, bi, ci = (x if x.type.is_int else L.op("bitcast", x, t=it) for x in (a, b, c))
        v = L.op("xor", ai, L.op("and", L.op("xor", ai, bi), ci))
        return v if t.is_int else L.op("bitcast", v, t=t)
    return _map(bitsel, args, n)


def _vload_vstore(L: Lanes, base: str, params: list[Param], args, ret: LType, n: int):
    m = re.fullmatch(r"(vloada?|vstorea?)(_half)?(\d*)(_rte)?", base)
    if m is None:
        return NotImplemented
    is_load = m.group(1).startswith("vload")
    half = m.group(2) is not None
    width = int(m.group(3) or 1)
    r = L.r
    ptr_param = params[-1]
    p = args[-1][0]
    offset = L.fix_width(args[-2][0], I64, False)
    if half:
        esize, et = 2, F16
    else:
        esize = max(1, ptr_param.bits // 8)
        et = float_type(ptr_param.bits) if ptr_param.kind == "f" else int_type(ptr_param.bits)
    step = 4 if (m.group(1).endswith("a") and width == 3) else width
    base_off = L.op("mul", offset, Const(I64, step * esize))
    start = r.emit("ptradd", [p, base_off], p.type)
    if is_load:
        vals = [r.load(start, i * esize, et, esize) for i in range(width)]
        if half:
            vals = [L.op("fpext", v, t=F32) for v in vals]
        return vals
    data = args[0]
    for i, v in enumerate(data[:width]):
        if half and v.type != F16:
            v = L.op("fptrunc", v, t=F16)
        r.store(v, start, i * esize, esize)
    return None


def _convert(L: Lanes, base: str, params: list[Param], args, rt: Type, n: int) -> list[Value]:
    m = re.fullmatch(r"convert_([a-z]+?)(\d*)(_sat)?(_rte|_rtz|_rtp|_rtn)?", base)
    if m is None or m.group(1) not in _TYPE_NAMES:
        return NotImplemented
    dkind, _bits = _TYPE_NAMES[m.group(1)]
    sat, mode = m.group(3) is not None, m.group(4)
    src = params[0]

    def conv(x):
        t = rt
        if src.kind == "f" and dkind == "f":
            if mode not in (None, "_rte"):
                raise _unsupported(f"rounding mode {mode}")
            return x if x.type == t else L.op("fpext" if t.bits > x.type.bits else "fptrunc", x, t=t)
        if src.kind == "f":
            rounded = {None: x, "_rtz": x, "_rte": None, "_rtp": None, "_rtn": None}[mode]
            if rounded is None:
                rounded = L.math({"_rte": "rint", "_rtp": "ceil", "_rtn": "floor"}[mode], x)
            if sat:
                return fp_to_int_sat(L, rounded, t, dkind == "s")
            return L.op("fptosi" if dkind == "s" else "fptoui", rounded, t=t)
        if dkind == "f":
            if mode not in (None, "_rte"):
                raise _unsupported(f"rounding mode {mode}")
            return L.op("sitofp" if src.kind == "s" else "uitofp", x, t=t)
        if sat:
            return _saturate(L, x, src.kind == "s", t, dkind == "s")
        return L.fix_width(x, t, src.kind == "s")
    return _map(conv, args[:1], n)


def fp_to_int_sat(L: Lanes, x: Value, t: Type, signed: bool) -> Value:
    """llvm.fpto[su]i.sat: NaN -> 0, out-of-range -> the nearest limit, else truncation toward zero."""
    import numpy as np
    by_bits: dict[int, type[np.floating[Any]]] = {16: np.float16, 32: np.float32, 64: np.float64}
    dt = by_bits[x.type.bits]
    lo = -(2 ** (t.bits - 1)) if signed else 0
    top = 2 ** (t.bits - 1) if signed else 2 ** t.bits          # first value out of range
    with np.errstate(over="ignore"):
        top_f = dt(top)
    inside = float(np.nextafter(top_f, dt(0))) if np.isfinite(top_f) else float(np.finfo(dt).max)
    clamped = L.op("fmin", L.op("fmax", x, L.c(x.type, float(lo))), L.c(x.type, inside))
    r = L.op("fptosi" if signed else "fptoui", clamped, t=t)
    r = L.sel(L.fcmp("oge", x, L.c(x.type, float(top_f))), L.c(t, top - 1), r)
    return L.sel(L.fcmp("uno", x, x), L.c(t, 0), r)


def _saturate(L: Lanes, x: Value, ssigned: bool, t: Type, dsigned: bool) -> Value:
    """Integer conversion clamped to the destination's range."""
    sb, db = x.type.bits, t.bits
    lo = -(1 << (db - 1)) if dsigned else 0
    hi = (1 << (db - 1)) - 1 if dsigned else (1 << db) - 1
    src_lo = -(1 << (sb - 1)) if ssigned else 0
    src_hi = (1 << (sb - 1)) - 1 if ssigned else (1 << sb) - 1
    v = x
    if hi < src_hi:
        v = L.sel(L.icmp("sgt" if ssigned else "ugt", v, Const(x.type, hi)), Const(x.type, hi), v)
    if lo > src_lo:
        v = L.sel(L.icmp("slt" if ssigned else "ult", v, Const(x.type, lo)), Const(x.type, lo), v)
    return L.fix_width(v, t, ssigned)


def _integer(L: Lanes, base: str, signed: bool, params: list[Param], args, rt: Type | None, n: int):
    s = "s" if signed else "u"
    if base in ("min", "max"):
        return _map(lambda a, b: L.op(s + base, a, b), args, n)
    if base == "clamp":
        return _map(lambda x, lo, hi: L.op(s + "min", L.op(s + "max", x, lo), hi), args, n)
    if base == "abs":
        return _map(lambda x: L.op("abs", x) if signed else x, args, n)
    if base == "abs_diff":
        return _map(lambda a, b: L.sel(L.icmp(s + "gt", a, b), L.op("sub", a, b), L.op("sub", b, a)), args, n)
    if base in ("popcount", "clz", "ctz"):
        return _map(lambda x: L.op(base, x), args, n)
    if base == "mul_hi":
        return _map(lambda a, b: _mul_hi(L, signed, a, b), args, n)
    if base == "mad_hi":
        return _map(lambda a, b, c: L.op("add", _mul_hi(L, signed, a, b), c), args, n)
    if base == "mul24":
        return _map(lambda a, b: L.op("mul", a, b), args, n)
    if base == "mad24":
        return _map(lambda a, b, c: L.op("add", L.op("mul", a, b), c), args, n)
    if base == "rotate":
        return _map(lambda x, k: _funnel(L, "fshl", x, x, k), args, n)
    if base in ("add_sat", "sub_sat"):
        return _map(lambda a, b: _sat_arith(L, base[:3], signed, a, b), args, n)
    if base == "mad_sat":
        return _map(lambda a, b, c: _mad_sat(L, signed, a, b, c), args, n)
    if base == "hadd":
        return _map(lambda a, b: L.op("add", L.op("ashr" if signed else "lshr", L.op("xor", a, b), L.c(a.type, 1)),
                                      L.op("and", a, b)), args, n)
    if base == "rhadd":
        return _map(lambda a, b: L.op("sub", L.op("or", a, b),
                                      L.op("ashr" if signed else "lshr", L.op("xor", a, b), L.c(a.type, 1))), args, n)
    if base == "upsample":
        def ups(hi, lo):
            w = int_type(hi.type.bits * 2)
            return L.op("or", L.op("shl", L.op("zext", hi, t=w), L.c(w, hi.type.bits)), L.op("zext", lo, t=w))
        return _map(ups, args, n)
    if base in ("any", "all"):
        bits = [L.icmp("slt", x, L.c(x.type, 0)) for x in args[0]]
        acc = bits[0]
        for b in bits[1:]:
            acc = L.op("or" if base == "any" else "and", acc, b)
        return [L.op("zext", acc, t=rt)]
    if base in ("select", "bitselect"):
        return _select(L, base, params, args, n)
    return NotImplemented


def _sat_arith(L: Lanes, op: str, signed: bool, a: Value, b: Value) -> Value:
    t = a.type
    res = L.op(op, a, b)
    if not signed:
        if op == "add":
            return L.sel(L.icmp("ult", res, a), L.c(t, -1), res)
        return L.sel(L.icmp("ult", a, b), L.c(t, 0), res)
    zero = L.c(t, 0)
    if op == "add":
        ovf = L.icmp("slt", L.op("and", L.op("xor", a, res), L.op("xor", b, res)), zero)
    else:
        ovf = L.icmp("slt", L.op("and", L.op("xor", a, b), L.op("xor", a, res)), zero)
    limit = L.sel(L.icmp("slt", a, zero), L.c(t, 1 << (t.bits - 1)), L.c(t, (1 << (t.bits - 1)) - 1))
    return L.sel(ovf, limit, res)


def _mul_hi(L: Lanes, signed: bool, a: Value, b: Value) -> Value:
    """The high half of a * b: chars and shorts through their exact product in 32 bits (mulhi is an
    operation of 32- and 64-bit integers only)."""
    t = a.type
    if t.bits >= 32:
        return L.op("mulhi_s" if signed else "mulhi_u", a, b)
    product = L.op("mul", L.fix_width(a, I32, signed), L.fix_width(b, I32, signed))
    return L.op("trunc", L.op("ashr" if signed else "lshr", product, L.c(I32, t.bits)), t=t)


def _mad_sat(L: Lanes, signed: bool, a: Value, b: Value, c: Value) -> Value:
    """a * b + c clamped to the type's range (OpenCL C 3.0, 6.15.3). Below 64 bits the exact result fits
    in 64 (a 32-bit product and addend: at most 2^64 - 2^32 unsigned, 2^62 + 2^31 signed) and is clamped
    there; at 64 bits it is the 128-bit value (mul_hi, the low product) plus c, clamped where its high
    half is not the low half's sign (unsigned: not zero)."""
    t = a.type
    if t.bits < 64:
        exact = L.op("add", L.op("mul", L.fix_width(a, I64, signed), L.fix_width(b, I64, signed)),
                     L.fix_width(c, I64, signed))
        if signed:
            lo, hi = -(1 << (t.bits - 1)), (1 << (t.bits - 1)) - 1
            exact = L.sel(L.icmp("slt", exact, L.c(I64, lo)), L.c(I64, lo), exact)
            exact = L.sel(L.icmp("sgt", exact, L.c(I64, hi)), L.c(I64, hi), exact)
        else:
            exact = L.sel(L.icmp("ugt", exact, L.c(I64, (1 << t.bits) - 1)), L.c(I64, (1 << t.bits) - 1), exact)
        return L.op("trunc", exact, t=t)
    high = L.op("mulhi_s" if signed else "mulhi_u", a, b)
    low = L.op("add", L.op("mul", a, b), c)
    carry = L.op("zext", L.icmp("ult", low, c), t=t)          # the low halves' sum wrapped
    top = L.c(t, 63)
    high = L.op("add", high, carry)
    if signed:
        high = L.op("add", high, L.op("ashr", c, top))                # c's sign, extended to 128 bits
        fits = L.icmp("eq", high, L.op("ashr", low, top))
        limit = L.sel(L.icmp("slt", high, L.c(t, 0)), L.c(t, -(1 << 63)), L.c(t, (1 << 63) - 1))
    else:
        fits = L.icmp("eq", high, L.c(t, 0))
        limit = L.c(t, -1)
    return L.sel(fits, low, limit)


def _funnel(L: Lanes, which: str, a: Value, b: Value, s: Value) -> Value:
    """llvm.fshl/fshr without shifting by the full width."""
    t = a.type
    w = t.bits
    sh = L.op("and", s, L.c(t, w - 1))
    inv = L.op("sub", L.c(t, w - 1), sh)
    one = L.c(t, 1)
    if which == "fshl":
        return L.op("or", L.op("shl", a, sh), L.op("lshr", L.op("lshr", b, one), inv))
    return L.op("or", L.op("shl", L.op("shl", a, one), inv), L.op("lshr", b, sh))


# ----------------------------------------------------------------------------------------------
# LLVM intrinsics

DROPPED = ("lifetime.start", "lifetime.end", "assume", "experimental.noalias.scope.decl", "dbg.declare",
            "dbg.value", "dbg.label", "donothing", "invariant.start", "invariant.end", "sideeffect")
_INTRINSIC_MATH = {"sqrt": "sqrt", "exp": "exp", "exp2": "exp2", "exp10": "exp10", "log": "log", "log2": "log2",
                   "log10": "log10", "sin": "sin", "cos": "cos", "tan": "tan", "asin": "asin", "acos": "acos",
                   "atan": "atan", "atan2": "atan2", "sinh": "sinh", "cosh": "cosh", "tanh": "tanh",
                   "pow": "pow", "fabs": "fabs", "floor": "floor", "ceil": "ceil", "trunc": "trunc",
                   "rint": "rint", "nearbyint": "rint", "roundeven": "rint", "round": "round",
                   "copysign": "copysign", "ldexp": "ldexp"}
_INTRINSIC_OPS = {"fmuladd": "fmuladd", "fma": "fma", "smin": "smin", "smax": "smax", "umin": "umin",
                  "umax": "umax", "minnum": "fmin", "maxnum": "fmax", "minimum": "fmin", "maximum": "fmax",
                  "minimumnum": "fmin", "maximumnum": "fmax", "ctpop": "popcount", "bitreverse": "bitreverse"}
_REDUCE = {"add": "add", "mul": "mul", "and": "and", "or": "or", "xor": "xor", "smin": "smin", "smax": "smax",
           "umin": "umin", "umax": "umax", "fmin": "fmin", "fmax": "fmax", "fminimum": "fmin",
           "fmaximum": "fmax", "fadd": "fadd", "fmul": "fmul"}
_KNOWN = sorted(set(DROPPED) | set(_INTRINSIC_MATH) | set(_INTRINSIC_OPS) |
                {"abs", "ctlz", "cttz", "bswap", "fshl", "fshr", "memcpy", "memmove", "memset", "memcpy.inline",
                 "memset.inline", "sadd.with.overflow", "uadd.with.overflow", "ssub.with.overflow",
                 "usub.with.overflow", "smul.with.overflow", "umul.with.overflow", "uadd.sat", "usub.sat",
                 "sadd.sat", "ssub.sat", "vector.reduce", "scmp", "ucmp", "fptosi.sat", "fptoui.sat",
                 "experimental.cttz.elts", "vector.reverse", "experimental.vector.reverse", "is.fpclass",
                 "experimental.convergence.entry", "experimental.convergence.anchor",
                 "experimental.convergence.loop"},
                key=len, reverse=True)
MAX_MEM_BYTES = 16384    # larger constant-length copies become too many explicit accesses


def intrinsic_base(name: str) -> str | None:
    rest = name[len("llvm."):]
    for k in _KNOWN:
        if rest == k or rest.startswith(k + "."):
            return k
    return None


def intrinsic(r, name: str, args: list[list[Value]], arg_types: list[LType], ret: LType):
    base = intrinsic_base(name)
    L = Lanes(r)
    n = ret.count if ret.kind == "vec" else 1
    if base is None:
        raise _unsupported(f"intrinsic {name}")
    if base in DROPPED:
        return None
    if base.startswith("experimental.convergence."):    # the token: the reader adds a loop's parent token
        return [r.emit("convergence", [], TOKEN, {"kind": base.rsplit(".", 1)[1]})]
    if base in _INTRINSIC_MATH:
        return _map(lambda *xs: L.math(_INTRINSIC_MATH[base], *xs), args, n)
    if base in _INTRINSIC_OPS:
        return _map(lambda *xs: L.op(_INTRINSIC_OPS[base], *xs), args, n)
    if base == "abs":
        return _map(lambda x: L.op("abs", x), args[:1], n)
    if base in ("ctlz", "cttz"):
        return _map(lambda x: L.op("clz" if base == "ctlz" else "ctz", x), args[:1], n)
    if base == "bswap":
        return _map(lambda x: _bswap(L, x), args, n)
    if base in ("fshl", "fshr"):
        return _map(lambda a, b, s: _funnel(L, base, a, b, s), args, n)
    if base.endswith(".with.overflow"):
        return _overflow(L, base, args, n)
    if base.endswith(".sat"):
        return _map(lambda a, b: _sat_arith(L, base[1:4], base[0] == "s", a, b), args, n)
    if base in ("scmp", "ucmp"):
        rt = _leaf_type(ret)
        p = base[0]
        return _map(lambda a, b: L.sel(L.icmp(p + "lt", a, b), L.c(rt, -1),
                                       L.op("zext", L.icmp(p + "gt", a, b), t=rt)), args, n)
    if base in ("fptosi.sat", "fptoui.sat"):
        rt = _leaf_type(ret)
        return _map(lambda x: fp_to_int_sat(L, x, rt, base[4] == "s"), args, n)
    if base == "vector.reduce":
        return _reduce(L, name, args)
    if base == "experimental.cttz.elts":
        # the index of the first set lane of a vector of i1 (the lane count when none is: the result for
        # an all-false vector is poison only when operand 1 says so, and then any value will do)
        rt = _leaf_type(ret)
        lanes = args[0]
        result: Value = L.c(rt, len(lanes))
        for i in range(len(lanes) - 1, -1, -1):
            result = L.sel(lanes[i], L.c(rt, i), result)
        return [result]
    if base in ("vector.reverse", "experimental.vector.reverse"):
        return list(reversed(args[0]))
    if base == "is.fpclass":
        return [_is_fpclass(L, x, int(cast(Const, args[1][0]).value)) for x in args[0]]
    if base.startswith(("memcpy", "memmove", "memset")):
        _mem(L, base, args)
        return None
    raise _unsupported(f"intrinsic {name}")


def _is_fpclass(L: Lanes, x: Value, test: int) -> Value:
    """llvm.is.fpclass: bit k of `test` asks for class k (LangRef): 0 signaling NaN, 1 quiet NaN, 2 -inf,
    3 -normal, 4 -subnormal, 5 -0, 6 +0, 7 +subnormal, 8 +normal, 9 +inf. Both NaNs are one class here
    (OpenCL cannot tell them apart portably)."""
    t = x.type
    bits = t.bits
    it = int_type(bits)
    raw = L.op("bitcast", x, t=it)
    magnitude = L.op("and", raw, L.c(it, (1 << (bits - 1)) - 1))
    negative = L.icmp("slt", raw, L.c(it, 0))
    exp_bits = {16: 5, 32: 8, 64: 11}[bits]
    inf = ((1 << exp_bits) - 1) << (bits - 1 - exp_bits)
    smallest_normal = 1 << (bits - 1 - exp_bits)
    is_nan = L.icmp("ugt", magnitude, L.c(it, inf))
    is_inf = L.icmp("eq", magnitude, L.c(it, inf))
    is_zero = L.icmp("eq", magnitude, L.c(it, 0))
    is_sub = L.op("and", L.icmp("ult", magnitude, L.c(it, smallest_normal)), L.op("xor", is_zero, L.c(I1, 1)))
    is_norm = L.op("and", L.icmp("uge", magnitude, L.c(it, smallest_normal)), L.icmp("ult", magnitude, L.c(it, inf)))
    positive = L.op("xor", negative, L.c(I1, 1))
    classes = [(0b11, is_nan, None), (1 << 2, is_inf, negative), (1 << 3, is_norm, negative),
               (1 << 4, is_sub, negative), (1 << 5, is_zero, negative), (1 << 6, is_zero, positive),
               (1 << 7, is_sub, positive), (1 << 8, is_norm, positive), (1 << 9, is_inf, positive)]
    result: Value = L.c(I1, 0)
    for mask, kind, sign in classes:
        if test & mask:
            term = kind if sign is None else L.op("and", kind, sign)
            result = L.op("or", result, term)
    return result


def _bswap(L: Lanes, x: Value) -> Value:
    t = x.type
    nbytes = t.bits // 8
    acc: Value | None = None
    for i in range(nbytes):
        byte = L.op("and", L.op("lshr", x, L.c(t, 8 * i)), L.c(t, 0xFF)) if i else L.op("and", x, L.c(t, 0xFF))
        moved = L.op("shl", byte, L.c(t, 8 * (nbytes - 1 - i))) if nbytes - 1 - i else byte
        acc = moved if acc is None else L.op("or", acc, moved)
    assert acc is not None      # a whole number of bytes, at least one
    return acc


def _overflow(L: Lanes, base: str, args, n: int) -> list[Value]:
    kind = base.split(".")[0]           # sadd uadd ssub usub smul umul
    op = kind[1:]
    res, flags = [], []
    for a, b in zip(_bc(args[0], n), _bc(args[1], n)):
        t = a.type
        zero = L.c(t, 0)
        v = L.op(op, a, b)
        if kind == "uadd":
            o = L.icmp("ult", v, a)
        elif kind == "usub":
            o = L.icmp("ult", a, b)
        elif kind == "sadd":
            o = L.icmp("slt", L.op("and", L.op("xor", a, v), L.op("xor", b, v)), zero)
        elif kind == "ssub":
            o = L.icmp("slt", L.op("and", L.op("xor", a, b), L.op("xor", a, v)), zero)
        elif kind == "umul":
            o = L.icmp("ne", L.op("mulhi_u", a, b), zero)
        else:
            o = L.icmp("ne", L.op("mulhi_s", a, b), L.op("ashr", v, L.c(t, t.bits - 1)))
        res.append(v)
        flags.append(o)
    return res + flags


def _reduce(L: Lanes, name: str, args) -> list[Value]:
    kind = name.split(".")[3]
    op = _REDUCE.get(kind)
    if op is None:
        raise _unsupported(f"intrinsic {name}")
    if kind in ("fadd", "fmul"):            # ordered: start value first
        acc, vals = args[0][0], args[1]
    else:
        acc, vals = args[0][0], args[0][1:]
    for v in vals:
        acc = L.op(op, acc, v)
    return [acc]


def _mem(L: Lanes, base: str, args) -> None:
    r = L.r
    dst = args[0][0]
    length = args[2][0]
    # a run-time length, or a constant one too long to expand (LLVM's -O2 made a memmove of 2^34 - 4 bytes of
    # a shift loop it could bound only by its counter's wrap-around, on a path never taken: fuzz
    # barrier-99065): a loop, made after the read
    if not isinstance(length, Const) or length.value > MAX_MEM_BYTES:
        backward: bool | None = False
        if base.startswith("memmove"):
            backward = copies_backward(dst, args[1][0])
            if backward is None:
                raise _unsupported("memmove of a run-time length between pointers of no known order")
        r.mem_loop(dst, args[1][0], length, base.startswith("memset"), backward)
        return
    size = length.value
    align = r.param_align(0)
    if not base.startswith("memset"):
        align = min(align, r.param_align(1))
    chunks = []
    off = 0
    while off < size:
        c = 8
        while c > 1 and (c > size - off or align % c or off % c):
            c //= 2
        chunks.append((off, c))
        off += c
    if base.startswith("memset"):
        byte = args[1][0]
        for off, c in chunks:
            t = int_type(8 * c)
            v: Value
            if isinstance(byte, Const):
                pattern = int.from_bytes(bytes([int(byte.value) & 0xFF]) * c, "little")
                v = Const(t, pattern)
            elif c == 1:
                v = byte
            else:
                v = L.op("mul", L.op("zext", byte, t=t), Const(t, int.from_bytes(b"\1" * c, "little")))
            r.store(v, dst, off, align)
        return
    src = args[1][0]
    vals = [r.load(src, off, int_type(8 * c), align) for off, c in chunks]     # all loads first: memmove-safe
    for (off, _), v in zip(chunks, vals):
        r.store(v, dst, off, align)
