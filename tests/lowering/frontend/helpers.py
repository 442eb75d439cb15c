"""Shared helpers for the front-end tests: compile OpenCL C snippets (cached), read IR text, find instrs."""
from __future__ import annotations

import functools
import hashlib
import os
import tempfile

from reconverge.lowering.frontend.clang import compile_opencl
from reconverge.lowering.frontend.llvm_reader import read_llvm_text
from reconverge.lowering.ir.core import Const, Function, Instr
from reconverge.lowering.ir.validate import validate

DL = "e-i64:64-v16:16-v24:32-v32:32-v48:64-v96:128-v192:256-v256:256-v512:512-v1024:1024-G1"
HEADER = f'target datalayout = "{DL}"\ntarget triple = "spir64"\n'


@functools.lru_cache(maxsize=None)
def cl_ir(source: str, level: str = "-O0") -> str:
    """LLVM IR text of an OpenCL C snippet."""
    digest = hashlib.sha1(source.encode()).hexdigest()[:12]
    path = os.path.join(tempfile.gettempdir(), f"reconverge_fe_{os.getpid()}_{digest}.cl")
    with open(path, "w") as f:
        f.write(source)
    try:
        return compile_opencl(path, level)
    finally:
        os.unlink(path)


def read_ll(body: str, kernel: str | None = None, name: str = "t.ll") -> dict[str, Function]:
    return read_llvm_text(HEADER + body, name, kernel)


def read_one(body: str, name: str = "t.ll") -> Function:
    funcs = read_ll(body, name=name)
    assert len(funcs) == 1, list(funcs)
    f = next(iter(funcs.values()))
    assert validate(f) == []
    return f


def read_cl(source: str, level: str = "-O0", kernel: str | None = None) -> dict[str, Function]:
    funcs = read_llvm_text(cl_ir(source, level), "snippet.cl", kernel)
    for f in funcs.values():
        problems = validate(f)
        assert problems == [], problems
    return funcs


def instrs(f: Function, opcode: str | None = None) -> list[Instr]:
    return [i for b in f.blocks for i in b.instrs if opcode is None or i.opcode == opcode]


def by_name(f: Function, name: str) -> Instr:
    hits = [i for i in instrs(f) if i.name == name]
    assert len(hits) == 1, (name, hits)
    return hits[0]


def const_offset(p) -> int:
    """The constant byte offset of a ptradd chain from its root (fails if an offset is not constant)."""
    total = 0
    while isinstance(p, Instr) and p.opcode == "ptradd":
        off = p.operands[1]
        assert isinstance(off, Const), f"variable offset in {p}"
        total += off.signed()
        p = p.operands[0]
    return total
