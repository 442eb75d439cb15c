"""`reconverge run --arg NAME=VALUE`: kernel arguments from the command line, checked against the kernel.

    NAME=@file.npy              a buffer: the array in the file (any shape; its dtype is the element type)
    NAME=zeros:COUNT:DTYPE      a buffer: COUNT zeros of a numpy dtype (int8 .. uint64, float16 .. float64)
    NAME=local:COUNT:DTYPE      a `__local T *` parameter: COUNT elements of DTYPE per work-group
    NAME=@struct.npy            a struct passed by value: any array of exactly the struct's size in bytes
                                (a numpy structured array laid out as the kernel's struct, or uint8)
    NAME=NUMBER                 a scalar, range-checked against the parameter's IR type
    NAME=N,N,N,N                a by-value vector parameter, one number per lane

A buffer's dtype must be the parameter's element type when the kernel says what it is (OpenCL C input:
!kernel_arg_type, e.g. `float4*` takes float32, `uchar*` uint8); for `void*`, other pointees and
hand-written LLVM IR without that metadata any dtype is accepted. A buffer larger than MAX_BUFFER_BYTES
is refused before anything is allocated.

NAME is the parameter's source name (clang's -cl-kernel-arg-info) or its position, argN. Every parameter
must be given exactly once. Mistakes on the command line are ArgErrors (usage, exit 2); a .npy file that
cannot be read is a CompileError (bad input, exit 1). Both name the argument.
"""
from __future__ import annotations

import re
from typing import Any

import numpy as np

from reconverge.lowering.errors import CompileError
from reconverge.lowering.ir.types import Type
from reconverge.tools.targets.harness import LocalArg, Param

DTYPES = ("int8", "int16", "int32", "int64", "uint8", "uint16", "uint32", "uint64",
          "float16", "float32", "float64")
_FLOAT_DTYPES: dict[int, type[np.floating[Any]]] = {16: np.float16, 32: np.float32, 64: np.float64}


MAX_BUFFER_BYTES = 1 << 32       # 4 GiB: a buffer (or __local block) beyond it is refused up front

# OpenCL C scalar type names (as !kernel_arg_type writes them) -> the numpy dtype of their buffer elements
OPENCL_DTYPES = {"char": "int8", "uchar": "uint8", "unsigned char": "uint8", "short": "int16",
                 "ushort": "uint16", "unsigned short": "uint16", "int": "int32", "uint": "uint32",
                 "unsigned int": "uint32", "long": "int64", "ulong": "uint64", "unsigned long": "uint64",
                 "half": "float16", "float": "float32", "double": "float64", "bool": "uint8",
                 "size_t": "uint64", "ptrdiff_t": "int64", "intptr_t": "int64", "uintptr_t": "uint64"}


def element_dtype(cl_type: str) -> str | None:
    """The numpy dtype a buffer of OpenCL pointer type `cl_type` must have ("float4*" -> float32), or None
    when the type does not say (void*, structs, typedefs we do not know, no metadata)."""
    base = cl_type.strip()
    if not base.endswith("*"):
        return None
    base = re.sub(r"\b(const|volatile|restrict|__global|global|__constant|constant|__local|local)\b", "",
                  base[:-1]).strip()
    base = re.sub(r"(2|3|4|8|16)$", "", base) if re.sub(r"(2|3|4|8|16)$", "", base) in OPENCL_DTYPES else base
    return OPENCL_DTYPES.get(base)


class ArgError(Exception):
    """A bad --arg on the command line (a usage error)."""


def split_args(texts: list[str]) -> list[tuple[str, str]]:
    """'NAME=VALUE' strings -> (name, value) pairs."""
    pairs = []
    for text in texts:
        name, eq, value = text.partition("=")
        if not eq or not name or not value:
            raise ArgError(f"--arg {text!r}: expected NAME=VALUE")
        pairs.append((name.strip(), value.strip()))
    return pairs


def input_files(texts: list[str]) -> list[str]:
    """The .npy files named by @FILE arguments (so that no result is written over one of them)."""
    files = []
    for text in texts:
        _, eq, value = text.partition("=")
        if eq and value.strip().startswith("@"):
            files.append(value.strip()[1:])
    return files


def bind_args(params: list[Param], texts: list[str], kernel: str) -> list:
    """The kernel's arguments, one per parameter in order, from the --arg strings."""
    by_name = {p.name: p for p in params}
    by_position = {f"arg{p.index}": p for p in params}
    given: dict[int, tuple[str, str]] = {}
    for name, value in split_args(texts):
        param = by_name.get(name) or by_position.get(name)
        if param is None:
            raise ArgError(f"--arg {name}: kernel @{kernel} has no parameter '{name}' "
                           f"(parameters: {', '.join(p.name for p in params) or 'none'})")
        if param.index in given:
            raise ArgError(f"--arg {name}: parameter '{param.name}' of kernel @{kernel} is given twice")
        given[param.index] = (name, value)
    missing = [p.name for p in params if p.index not in given]
    if missing:
        raise ArgError(f"missing --arg for parameter '{missing[0]}' of kernel @{kernel}"
                       + (f" (and {', '.join(missing[1:])})" if len(missing) > 1 else ""))
    return [make_value(p, given[p.index][1], kernel) for p in params]


def make_value(param: Param, text: str, kernel: str):
    where = f"--arg {param.name}"
    is_buffer_text = text.startswith(("@", "zeros:", "local:"))
    if param.is_local:
        if not text.startswith("local:"):
            raise ArgError(f"{where}: parameter '{param.name}' of kernel @{kernel} is a __local pointer: "
                           f"expected local:COUNT:DTYPE (its size per work-group), got {text!r}")
        count, dtype = _count_and_dtype(text, "local", where)
        return LocalArg(count, np.dtype(dtype))
    if param.is_byval:
        if not text.startswith("@"):
            raise ArgError(f"{where}: parameter '{param.name}' of kernel @{kernel} is a struct passed by value: "
                           f"expected @FILE.npy holding its {param.byval_size} bytes, got {text!r}")
        array = load_npy(text[1:], param.name, any_dtype=True)
        if array.nbytes != param.byval_size:
            raise CompileError(f"{text[1:]}: argument '{param.name}' of kernel @{kernel} has {array.nbytes} bytes; "
                               f"the struct ({param.cl_type or 'by value'}) has {param.byval_size}")
        return np.frombuffer(array.tobytes(), np.uint8).copy()
    if param.is_buffer:
        if text.startswith("@"):
            array = load_npy(text[1:], param.name)
        elif text.startswith("zeros:"):
            array = zeros(text, where)
        elif text.startswith("local:"):
            raise ArgError(f"{where}: parameter '{param.name}' of kernel @{kernel} is a __global/__constant "
                           f"buffer, not __local: expected @FILE.npy or zeros:COUNT:DTYPE")
        else:
            raise ArgError(f"{where}: parameter '{param.name}' of kernel @{kernel} is a buffer: "
                           f"expected @FILE.npy or zeros:COUNT:DTYPE, got {text!r}")
        want = element_dtype(param.cl_type)
        if want is not None and array.dtype != np.dtype(want):
            source = f"{text[1:]}: " if text.startswith("@") else ""
            raise CompileError(f"{source}argument '{param.name}' of kernel @{kernel} is {array.dtype}, but the "
                               f"parameter is {param.cl_type} (expected {want})")
        return array
    kind = f"{len(param.types)}-lane vector" if param.is_vector else f"scalar ({param.types[0]})"
    if is_buffer_text:
        raise ArgError(f"{where}: parameter '{param.name}' of kernel @{kernel} is a {kind}, not a buffer")
    parts = text.split(",")
    if len(parts) != len(param.types):
        raise ArgError(f"{where}: parameter '{param.name}' of kernel @{kernel} is a {kind}: "
                       f"expected {len(param.types)} comma-separated numbers, got {text!r}")
    values = [number(t, part.strip(), where) for t, part in zip(param.types, parts)]
    if param.is_vector:
        return np.array(values, dtype=np.result_type(*values))
    return values[0]


def number(ty: Type, text: str, where: str):
    """`text` as a numpy scalar of IR type `ty`; integers may be written signed or unsigned."""
    if ty.is_float:
        dtype = _FLOAT_DTYPES.get(ty.bits)
        try:
            value = float(text)
        except ValueError:
            raise ArgError(f"{where}: {text!r} is not a number") from None
        if dtype is None:
            raise ArgError(f"{where}: parameters of type {ty} are not supported")
        if np.isfinite(value) and abs(value) > float(np.finfo(dtype).max):
            raise ArgError(f"{where}: {text} is out of range for {ty}")
        return dtype(value)
    if not ty.is_int:
        raise ArgError(f"{where}: parameters of type {ty} are not supported")
    if not re.fullmatch(r"[-+]?(0[xX][0-9a-fA-F]+|0[bB][01]+|\d+)", text):
        raise ArgError(f"{where}: {text!r} is not an integer")
    value = int(text, 0) if not re.fullmatch(r"[-+]?0\d+", text) else int(text, 10)
    bits = ty.bits
    if not -(1 << (bits - 1)) <= value < (1 << bits):
        raise ArgError(f"{where}: {value} is out of range for {ty} "
                       f"({-(1 << (bits - 1))} to {(1 << bits) - 1})")
    if bits not in (8, 16, 32, 64):
        raise ArgError(f"{where}: parameters of type {ty} are not supported")
    signed = value < (1 << (bits - 1))
    return np.dtype(f"{'' if signed else 'u'}int{bits}").type(value)


def _count_and_dtype(text: str, kind: str, where: str) -> tuple[int, str]:
    parts = text.split(":")
    if len(parts) != 3:
        raise ArgError(f"{where}: expected {kind}:COUNT:DTYPE, got {text!r}")
    _, count_text, dtype_text = parts
    if not count_text.isdigit() or int(count_text) <= 0:
        raise ArgError(f"{where}: bad element count {count_text!r} in {text!r} (a positive integer)")
    if dtype_text not in DTYPES:
        raise ArgError(f"{where}: unknown DTYPE {dtype_text!r} (one of {', '.join(DTYPES)})")
    count = int(count_text)
    nbytes = count * np.dtype(dtype_text).itemsize
    if nbytes > MAX_BUFFER_BYTES:
        raise ArgError(f"{where}: {count} x {dtype_text} is {nbytes} bytes, more than the "
                       f"{MAX_BUFFER_BYTES} a buffer may have")
    return count, dtype_text


def zeros(text: str, where: str) -> np.ndarray:
    count, dtype = _count_and_dtype(text, "zeros", where)
    try:
        return np.zeros(count, dtype=dtype)
    except MemoryError:
        raise CompileError(f"{where}: not enough memory for {count} x {dtype}") from None


def load_npy(path: str, name: str, any_dtype: bool = False) -> np.ndarray:
    """A buffer from a .npy file: numeric, at least one dimension, made C-contiguous and writable."""
    where = f"{path}: argument '{name}'"
    try:
        array = np.load(path, allow_pickle=False)
    except FileNotFoundError:
        raise CompileError(f"{where}: no such file") from None
    except (OSError, ValueError, EOFError) as e:
        reason = " ".join(str(e).split()).split(". ")[0].rstrip(".") or type(e).__name__
        raise CompileError(f"{where}: not a readable .npy file ({reason})") from None
    if not isinstance(array, np.ndarray):
        array.close()
        raise CompileError(f"{where}: not a single array (.npz archives are not accepted)")
    if any_dtype:
        return np.ascontiguousarray(array)
    if array.dtype.name not in DTYPES:
        raise CompileError(f"{where}: unsupported dtype {array.dtype} (one of {', '.join(DTYPES)})")
    if array.ndim == 0:
        raise CompileError(f"{where}: a 0-dimensional array is not a buffer")
    return array.astype(array.dtype.newbyteorder("="), order="C", copy=True)   # the host's byte order
