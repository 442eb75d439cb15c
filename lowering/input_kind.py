"""What kind of input a file (or standard input) is: OpenCL C, LLVM IR text, LLVM bitcode or our IR text.

The kind comes from `-x KIND` when given, else from the file's extension (.cl, .ll, .bc, .nir), else from
its content where that is unambiguous: LLVM bitcode's magic ('BC' 0xC0DE, or the wrapper 0x0B17C0DE,
LLVM docs "LLVM Bitcode File Format"), our IR text's `kernel @`, LLVM IR text's `define`/`target triple`
lines. Anything else (OpenCL C read from standard input, say) needs -x.
"""
from __future__ import annotations

import os
import re

from reconverge.lazy_regex import lazy_compile
from reconverge.lowering.errors import CompileError

KINDS = ("cl", "ll", "bc", "nir")
STDIN_NAME = "<stdin>"
_BITCODE_MAGIC = (b"BC\xc0\xde", b"\xde\xc0\x17\x0b")
_NIR = lazy_compile(rb"^\s*kernel\s+@", re.M)
_LLVM_TEXT = lazy_compile(rb"^\s*(define\s|declare\s|target\s+(triple|datalayout)\s*=|source_filename\s*=)", re.M)
_OPENCL_C = lazy_compile(rb"\b(__)?kernel\s+void\b")


def kind_from_name(path: str) -> str | None:
    ext = os.path.splitext(path)[1].lower()[1:]
    return ext if ext in KINDS else None


def kind_from_content(data: bytes) -> str | None:
    """The kind `data` unambiguously is, or None."""
    if data.startswith(_BITCODE_MAGIC):
        return "bc"
    nir, llvm = bool(_NIR.search(data)), bool(_LLVM_TEXT.search(data))
    if nir != llvm:
        return "nir" if nir else "ll"
    if not nir and _OPENCL_C.search(data):
        return "cl"
    return None


def input_kind(name: str, data: bytes | None, given: str | None = None) -> str:
    """The kind of the input `name` (`data`: its bytes, when read), by -x, extension or content."""
    if given is not None:
        if given not in KINDS:
            raise CompileError(f"-x {given}: unknown input kind (expected {', '.join(KINDS)})")
        return given
    kind = None if name == STDIN_NAME else kind_from_name(name)
    if kind is None and data is not None:
        kind = kind_from_content(data)
    if kind is None:
        ext = os.path.splitext(name)[1]
        what = f"unknown input kind '{ext}'" if ext and name != STDIN_NAME else "cannot tell the kind of input"
        raise CompileError(f"{name}: {what}: name it with -x {'|'.join(KINDS)} (or use .cl, .ll, .bc, .nir)")
    return kind
