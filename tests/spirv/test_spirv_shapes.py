"""Tree shapes the structurizer rarely or never makes, built by hand, through the SPIR-V emitter: merge
blocks control cannot reach (an if whose arms both return, an endless loop left only by return), a
continue target merging values from several continues, and the loop exits branch_plan.py shortens (bare
break and continue arms, phis naming them, negated conditions, one-block loops). Each is checked by the IR validator, by
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


def bare_exits():
    """loop { x = phi; x1 = x + 1; if !(x1 <= gid) break; if (x1 > 50) break }; after: phi of the two
    breaks (bare arms: their edges leave from the blocks before the ifs)."""
    func, b0, gid, slot = _kernel("bare_exits")
    limit = b0.append(Instr("trunc", [gid], I32))
    loop = Loop()
    func.add(loop)
    head = loop.body[0]
    x = Phi(I32)
    head.append(x)
    x1 = head.append(Instr("add", [x, Const(I32, 1)], I32))
    inside = head.append(Instr("icmp", [x1, limit], I1, {"pred": "ule"}))
    outside = head.append(Instr("xor", [inside, Const(I1, 1)], I1))
    first = _if(loop.add, outside)
    first.then_list[0].append(Instr("break", []))
    middle = loop.add(Block())
    big = middle.append(Instr("icmp", [x1, Const(I32, 50)], I1, {"pred": "sgt"}))
    second = _if(loop.add, big)
    second.then_list[0].append(Instr("break", []))
    tail = loop.add(Block())
    x.add_incoming(b0, Const(I32, 3))
    x.add_incoming(tail, x1)
    after = func.add(Block())
    y = Phi(I32, [(first.then_list[0], x1), (second.then_list[0], Const(I32, -7))])
    after.append(y)
    _store(after, y, slot)
    return func


def one_block_loop():
    """loop { x = phi; x1 = x * 3 + 1; if (x1 < gid * 9) continue; else break }: both arms bare, the block
    after the if unreachable, so the loop is one block that is its own continue target."""
    func, b0, gid, slot = _kernel("one_block_loop")
    limit = b0.append(Instr("mul", [b0.append(Instr("trunc", [gid], I32)), Const(I32, 9)], I32))
    loop = Loop()
    func.add(loop)
    head = loop.body[0]
    x = Phi(I32)
    head.append(x)
    x1 = head.append(Instr("add", [head.append(Instr("mul", [x, Const(I32, 3)], I32)), Const(I32, 1)], I32))
    more = head.append(Instr("icmp", [x1, limit], I1, {"pred": "ult"}))
    node = _if(loop.add, more)
    node.then_list[0].append(Instr("continue", []))
    node.else_list[0].append(Instr("break", []))
    tail = loop.add(Block())                            # unreachable: both arms jump
    x.add_incoming(b0, Const(I32, 0))
    x.add_incoming(node.then_list[0], x1)
    x.add_incoming(tail, Const(I32, 0))
    after = func.add(Block())
    _store(after, x1, slot)
    return func


@pytest.mark.parametrize("build", [bare_exits, one_block_loop], ids=lambda b: b.__name__)
def test_loop_exits_branch_straight_to_the_merge(build):
    """No selection construct, no negation and no block of its own for a bare break or continue; a loop
    left as one block is its own continue target; spirv-val accepts it and lavapipe agrees."""
    func = build()
    func.update_cfg()
    verify(func, "hand-built")
    binary = compile_spirv([func])
    spirv_val(binary, "vulkan1.3", func.name)
    text = disassemble(binary)
    assert "OpSelectionMerge" not in text and "OpLogicalNot" not in text
    header = text.split("OpLoopMerge")[0].rsplit("OpLabel", 1)[0].split()[-2]
    if build is one_block_loop:
        assert text.count("OpLabel") == 3                    # entry, the loop, the merge block
        assert text.split("OpLoopMerge")[1].split()[1] == header
    expected, got = [np.zeros(N, np.int32)], [np.zeros(N, np.int32)]
    run_kernel(func, expected, (N,), (16,))
    run_spirv_kernel(func, got, (N,), (16,))
    assert np.array_equal(expected[0], got[0]) and len(set(expected[0].tolist())) > 2


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
