"""Tree shapes the structurizer rarely or never makes, built by hand, through the SPIR-V emitter: merge
blocks control cannot reach (an if whose arms both return, an endless loop left only by return) and a
continue target merging values from several continues. Each is checked by the IR validator, by
spirv-val, and run on lavapipe against the IR interpreter."""
from __future__ import annotations

import numpy as np
import pytest

from reconverge.backend.spirv import compile_spirv
from reconverge.backend.spirv.launch import run_spirv_kernel
from reconverge.backend.spirv.tools import disassemble
from reconverge.backend.spirv.tools import validate as spirv_val
from reconverge.lowering.interp import run_kernel
from reconverge.lowering.ir.core import Arg, Block, Const, Function, If, Instr, Loop, Phi
from reconverge.lowering.ir.types import I1, I32, I64, ptr
from reconverge.lowering.ir.validate import verify

N = 64


def _kernel(name: str):
    """A structured kernel with one buffer `out`; returns (function, entry block, gid, &out[gid])."""
    func = Function(name, [Arg(ptr(1), 0, "out")])
    func.is_structured = True
    b0 = Block()
    func.add(b0)
    gid = b0.append(Instr("workitem", [Const(I32, 0)], I64, {"fn": "global_id"}))
    offset = b0.append(Instr("mul", [gid, Const(I64, 4)], I64))
    slot = b0.append(Instr("ptradd", [func.args[0], offset], ptr(1)))
    return func, b0, gid, slot


def _store(block: Block, value, slot) -> None:
    block.append(Instr("store", [value, slot]))


def _if(parent_add, cond) -> If:
    node = If(cond)
    parent_add(node)
    return node


def both_arms_return():
    func, b0, gid, slot = _kernel("both_arms_return")
    odd = b0.append(Instr("trunc", [gid], I1))
    node = _if(func.add, odd)
    _store(node.then_list[0], Const(I32, 1), slot)
    node.then_list[0].append(Instr("return", []))
    _store(node.else_list[0], Const(I32, 2), slot)
    node.else_list[0].append(Instr("return", []))
    func.add(Block())                                   # unreachable: both arms returned
    return func


def endless_loop():
    func, b0, gid, slot = _kernel("endless_loop")
    loop = Loop()
    func.add(loop)
    head = loop.body[0]
    x = Phi(I64)
    head.append(x)
    x1 = head.append(Instr("add", [x, Const(I64, 1)], I64))
    done = head.append(Instr("icmp", [x1, gid], I1, {"pred": "ugt"}))
    node = _if(loop.add, done)
    then = node.then_list[0]
    _store(then, then.append(Instr("trunc", [x1], I32)), slot)
    then.append(Instr("return", []))
    tail = loop.add(Block())
    x.add_incoming(b0, Const(I64, 0))
    x.add_incoming(tail, x1)
    func.add(Block())                                   # unreachable: the loop never breaks
    return func


def many_continues():
    """loop { x = phi; if (x odd) { x+3; continue }; x+1; if (> 40) break; }: C merges two values."""
    func, b0, gid, slot = _kernel("many_continues")
    start = b0.append(Instr("trunc", [gid], I32))
    loop = Loop()
    func.add(loop)
    head = loop.body[0]
    x = Phi(I32)
    head.append(x)
    odd = head.append(Instr("trunc", [x], I1))
    first = _if(loop.add, odd)
    jump = first.then_list[0]
    plus3 = jump.append(Instr("add", [x, Const(I32, 3)], I32))
    jump.append(Instr("continue", []))
    middle = loop.add(Block())
    plus1 = middle.append(Instr("add", [x, Const(I32, 1)], I32))
    big = middle.append(Instr("icmp", [plus1, Const(I32, 40)], I1, {"pred": "sgt"}))
    second = _if(loop.add, big)
    second.then_list[0].append(Instr("break", []))
    tail = loop.add(Block())
    x.add_incoming(b0, start)
    x.add_incoming(jump, plus3)
    x.add_incoming(tail, plus1)
    after = func.add(Block())
    _store(after, plus1, slot)
    return func


@pytest.mark.parametrize("build", [both_arms_return, endless_loop, many_continues], ids=lambda b: b.__name__)
def test_shape_validates_and_runs_like_the_interpreter(build):
    func = build()
    func.update_cfg()
    verify(func, "hand-built")
    binary = compile_spirv([func])
    spirv_val(binary, "vulkan1.3", func.name)
    text = disassemble(binary)
    if build is many_continues:     # the continue target merges the two continues' values in a phi
        cont = text.split("OpLoopMerge")[1].split()[1]
        assert f"{cont} = OpLabel\n" in text and "OpPhi" in text.split(f"{cont} = OpLabel")[1].split("OpBranch")[0]
    else:
        assert "OpUnreachable" in text
    expected, got = [np.zeros(N, np.int32)], [np.zeros(N, np.int32)]
    run_kernel(func, expected, (N,), (16,))
    run_spirv_kernel(func, got, (N,), (16,))
    assert np.array_equal(expected[0], got[0]) and expected[0].any()
