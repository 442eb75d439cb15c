"""The `// RUN:` header of a corpus kernel: how to launch it and with which arguments.

Every tests/kernels/*.cl file starts with one such line per kernel, so that the execution oracle and the
pipeline's interpreter can be run on exactly the same, reproducible inputs:

    // RUN: [kernel=NAME] global=G[,G,G] local=L[,L,L] [offset=O[,O,O]] ARG ARG ...

Arguments are listed in the kernel's parameter order:

    name:TYPE[COUNT]=INIT     a buffer (global pointer): COUNT elements of TYPE, INIT is one of
                              zero | iota | rand(LO,HI) | a number (every element equals it)
    name:TYPE=VALUE           a scalar: a number or rand(LO,HI)

TYPE is char uchar short ushort int uint long ulong float double, or a vector of them (int4, float2, ...);
a buffer of vectors is an array of shape (COUNT, width).  rand(LO,HI) is inclusive for integers and
uniform in [LO, HI) for floats.  `kernel=` may be left out when the file has a single kernel.
"""
from __future__ import annotations

import dataclasses
import re

import numpy as np

SCALAR_DTYPES = {
    "char": np.int8, "uchar": np.uint8, "short": np.int16, "ushort": np.uint16,
    "int": np.int32, "uint": np.uint32, "long": np.int64, "ulong": np.uint64,
    "float": np.float32, "double": np.float64,
}
VECTOR_WIDTHS = (2, 3, 4, 8, 16)

_HEADER = re.compile(r"^\s*//\s*RUN:(.*)$")
_KERNEL_DEF = re.compile(r"\b(?:__kernel|kernel)\s+(?:__attribute__\s*\(\(.*?\)\)\s*)?void\s+([A-Za-z_]\w*)\s*\(")
_NUMBER = r"[-+]?(?:\d+\.?\d*(?:[eE][-+]?\d+)?|\.\d+(?:[eE][-+]?\d+)?|0[xX][0-9a-fA-F]+)"
_ARG = re.compile(r"^([A-Za-z_]\w*):([a-z]+\d*)(?:\[(\d+)\])?=(.+)$")
_RAND = re.compile(rf"^rand\(\s*({_NUMBER})\s*,\s*({_NUMBER})\s*\)$")


class SpecError(ValueError):
    """A malformed or inconsistent RUN header; the message names the file and the offending token."""


@dataclasses.dataclass(frozen=True)
class ArgSpec:
    name: str
    type_name: str          # as written, e.g. "int", "float4"
    dtype: type             # numpy scalar type of one element (of one lane for vectors)
    width: int              # 1 for scalars, else the vector width
    count: int | None       # None for scalar arguments, element count for buffers
    init: str               # "zero", "iota", "rand", "fill" (buffers) / "value", "rand" (scalars)
    lo: float | int | None = None
    hi: float | int | None = None
    value: float | int | None = None

    @property
    def is_buffer(self) -> bool:
        return self.count is not None


@dataclasses.dataclass(frozen=True)
class KernelSpec:
    path: str
    kernel: str
    global_size: tuple[int, ...]
    local_size: tuple[int, ...]
    global_offset: tuple[int, ...]
    args: tuple[ArgSpec, ...]

    def make_args(self, seed: int) -> list:
        """Fresh arguments (new numpy arrays every call) drawn deterministically from `seed`."""
        rng = np.random.default_rng(seed)
        return [_make_arg(a, rng) for a in self.args]

    def buffer_indices(self) -> list[int]:
        return [i for i, a in enumerate(self.args) if a.is_buffer]


def _is_float(dtype) -> bool:
    return np.issubdtype(dtype, np.floating)


def _make_arg(a: ArgSpec, rng: np.random.Generator):
    if not a.is_buffer:
        if a.init == "rand":
            return a.dtype(_draw(a, rng, None))
        return a.dtype(a.value)
    shape = (a.count,) if a.width == 1 else (a.count, a.width)
    if a.init == "zero":
        return np.zeros(shape, dtype=a.dtype)
    if a.init == "fill":
        return np.full(shape, a.value, dtype=a.dtype)
    if a.init == "iota":
        assert a.count is not None      # a buffer
        return np.arange(a.count * a.width, dtype=a.dtype).reshape(shape)
    return np.asarray(_draw(a, rng, shape), dtype=a.dtype)


def _draw(a: ArgSpec, rng: np.random.Generator, shape):
    assert a.lo is not None and a.hi is not None    # a random init has its range
    if _is_float(a.dtype):
        return rng.uniform(a.lo, a.hi, size=shape)
    dtype = np.int64 if a.lo < 0 or a.hi < 2**63 else np.uint64
    return rng.integers(int(a.lo), int(a.hi), size=shape, endpoint=True, dtype=dtype)


def _parse_number(text: str, dtype, where: str):
    try:
        if _is_float(dtype):
            return float(text)
        if re.fullmatch(r"[-+]?0[xX][0-9a-fA-F]+", text):
            v = int(text, 16)
        else:
            v = int(text, 10)
    except ValueError:
        raise SpecError(f"{where}: {text!r} is not a valid {np.dtype(dtype).name} value") from None
    info = np.iinfo(dtype)
    if not info.min <= v <= info.max:
        raise SpecError(f"{where}: {v} does not fit in {np.dtype(dtype).name}")
    return v


def _parse_type(text: str, where: str) -> tuple[type, int]:
    m = re.fullmatch(r"([a-z]+?)(\d*)", text)
    base, width = (m.group(1), m.group(2)) if m else (text, "")
    if base not in SCALAR_DTYPES or (width and int(width) not in VECTOR_WIDTHS):
        raise SpecError(f"{where}: unknown type {text!r}")
    return SCALAR_DTYPES[base], int(width) if width else 1


def _parse_sizes(text: str, key: str, where: str) -> tuple[int, ...]:
    parts = text.split(",")
    if not 1 <= len(parts) <= 3 or not all(re.fullmatch(r"\d+", p) for p in parts):
        raise SpecError(f"{where}: {key}={text!r} must be 1 to 3 comma-separated non-negative integers")
    sizes = tuple(int(p) for p in parts)
    if key != "offset" and min(sizes) == 0:
        raise SpecError(f"{where}: {key}={text!r} has a zero size")
    return sizes


def _parse_arg(token: str, where: str) -> ArgSpec:
    m = _ARG.match(token)
    if not m:
        raise SpecError(f"{where}: cannot parse argument {token!r} (expected name:type[count]=init or name:type=value)")
    name, type_text, count_text, init_text = m.groups()
    dtype, width = _parse_type(type_text, where)
    where = f"{where}: argument {name!r}"
    rand = _RAND.match(init_text)
    lo = hi = None
    if rand:
        lo, hi = (_parse_number(t, dtype, where) for t in rand.groups())
        if lo > hi:
            raise SpecError(f"{where}: empty range {init_text}")
    if count_text is None:
        if width != 1:
            raise SpecError(f"{where}: vector scalar arguments are not supported")
        if rand:
            return ArgSpec(name, type_text, dtype, 1, None, "rand", lo, hi)
        return ArgSpec(name, type_text, dtype, 1, None, "value", value=_parse_number(init_text, dtype, where))
    count = int(count_text)
    if count == 0:
        raise SpecError(f"{where}: a buffer needs at least one element")
    if rand:
        return ArgSpec(name, type_text, dtype, width, count, "rand", lo, hi)
    if init_text in ("zero", "iota"):
        if init_text == "iota" and not _is_float(dtype) and count * width - 1 > np.iinfo(dtype).max:
            raise SpecError(f"{where}: iota over {count * width} elements overflows {type_text}")
        return ArgSpec(name, type_text, dtype, width, count, init_text)
    return ArgSpec(name, type_text, dtype, width, count, "fill", value=_parse_number(init_text, dtype, where))


def parse_header_line(text: str, path: str = "<header>", lineno: int = 1,
                      default_kernel: str | None = None) -> KernelSpec:
    """Parse the part after `// RUN:` (or the whole comment line) into a KernelSpec."""
    m = _HEADER.match(text)
    body = m.group(1) if m else text
    where = f"{path}:{lineno}"
    fields: dict[str, str] = {}
    args: list[ArgSpec] = []
    for token in body.split():
        key, eq, value = token.partition("=")
        if key in ("kernel", "global", "local", "offset"):
            if key in fields:
                raise SpecError(f"{where}: {key}= given twice")
            if not eq or not value:
                raise SpecError(f"{where}: {key}= needs a value")
            fields[key] = value
        elif ":" in key:
            args.append(_parse_arg(token, where))
        else:
            raise SpecError(f"{where}: unknown token {token!r}")
    if "global" not in fields or "local" not in fields:
        raise SpecError(f"{where}: global= and local= are required")
    gsize = _parse_sizes(fields["global"], "global", where)
    lsize = _parse_sizes(fields["local"], "local", where)
    offset = _parse_sizes(fields.get("offset", "0"), "offset", where)
    if len(lsize) != len(gsize):
        raise SpecError(f"{where}: global= and local= have different dimensions")
    if len(offset) == 1 and len(gsize) > 1:
        offset = offset * len(gsize)
    if len(offset) != len(gsize):
        raise SpecError(f"{where}: offset= and global= have different dimensions")
    for g, l in zip(gsize, lsize):
        if g % l:
            raise SpecError(f"{where}: local size {l} does not divide global size {g}")
    names = [a.name for a in args]
    if len(set(names)) != len(names):
        raise SpecError(f"{where}: duplicate argument names")
    kernel = fields.get("kernel", default_kernel)
    if kernel is None:
        raise SpecError(f"{where}: kernel= is required when the file does not have exactly one kernel")
    if not re.fullmatch(r"[A-Za-z_]\w*", kernel):
        raise SpecError(f"{where}: bad kernel name {kernel!r}")
    return KernelSpec(path, kernel, gsize, lsize, offset, tuple(args))


def parse_specs(cl_path: str) -> list[KernelSpec]:
    """All RUN headers of a file: the leading run of `// RUN:` lines (at least one)."""
    with open(cl_path, encoding="utf-8") as f:
        lines = f.read().splitlines()
    kernels = _KERNEL_DEF.findall("\n".join(lines))
    default = kernels[0] if len(kernels) == 1 else None
    specs = []
    for i, line in enumerate(lines):
        if not _HEADER.match(line):
            break
        spec = parse_header_line(line, cl_path, i + 1, default)
        if kernels and spec.kernel not in kernels:
            raise SpecError(f"{cl_path}:{i + 1}: no kernel named {spec.kernel!r} in the file")
        specs.append(spec)
    if not specs:
        raise SpecError(f"{cl_path}:1: the file does not start with a '// RUN:' header")
    if len({s.kernel for s in specs}) != len(specs):
        raise SpecError(f"{cl_path}: two RUN headers for the same kernel")
    return specs


def parse_spec(cl_path: str, kernel: str | None = None) -> KernelSpec:
    """The RUN header of `kernel` (or of the file's only header when kernel is None)."""
    specs = parse_specs(cl_path)
    if kernel is None:
        if len(specs) != 1:
            raise SpecError(f"{cl_path}: {len(specs)} RUN headers; name the kernel")
        return specs[0]
    for s in specs:
        if s.kernel == kernel:
            return s
    raise SpecError(f"{cl_path}: no RUN header for kernel {kernel!r}")
