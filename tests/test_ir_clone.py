"""Function.clone(): the copy prints as the original does, passes the validator, and shares nothing a pass
could change (the driver lowers one structured kernel for several targets from clones)."""
from __future__ import annotations

import os

import pytest

from reconverge.lowering import pipeline
from reconverge.lowering.ir.core import Block, Const, If, Instr, Loop
from reconverge.lowering.ir.printer import print_function
from reconverge.lowering.ir.validate import check
from reconverge.lowering.program import compile_path

KERNELS = os.path.join(os.path.dirname(__file__), "kernels")
CASES = [("nested_switch_loop.cl", "generic"), ("nested_switch_loop.cl", "gen-blockip"),
         ("deep_nest.cl", "generic"), ("switch_fallthrough.cl", "gen"), ("char_short.cl", "read")]


def _functions(name: str, form: str):
    options = pipeline.Options(pipeline="generic" if form == "read" else form,
                               stop_after="read" if form == "read" else None)
    return compile_path(os.path.join(KERNELS, name), "-O0", options).values()


@pytest.mark.parametrize("name,form", CASES)
def test_clone_prints_as_the_original(name, form):
    for func in _functions(name, form):
        copy = func.clone()
        assert print_function(copy) == print_function(func)
        assert check(copy) == []


@pytest.mark.parametrize("name,form", CASES)
def test_changing_the_clone_leaves_the_original(name, form):
    for func in _functions(name, form):
        before = print_function(func)
        copy = func.clone()
        for block in copy.all_blocks():
            for ins in block.instrs:
                ins.name = f"{ins.name}_copy" if ins.name else ""
                ins.operands = [Const(o.type, 0) if isinstance(o, Const) else o for o in ins.operands]
                if "cases" in ins.attrs:
                    ins.attrs["cases"].append(99)
            block.instrs.insert(0, Instr("barrier", []))
            block.label = "moved"
        for arg in copy.args:
            arg.name = "renamed"
        for node in [n for n in copy.body if not isinstance(n, Block)]:
            if isinstance(node, If):
                node.then_list.clear()
            elif isinstance(node, Loop):
                node.body.clear()
        assert print_function(func) == before
        assert check(func) == []


def test_the_clone_is_wired_to_itself():
    func = next(iter(_functions("nested_switch_loop.cl", "generic")))
    copy = func.clone()
    mine = {id(b) for b in func.all_blocks()} | {id(func.end_block)}
    mine_values = {id(i) for i in func.instructions()} | {id(a) for a in func.args}
    for block in copy.all_blocks():
        assert id(block) not in mine
        assert block.parent is copy or id(block.parent) not in mine
        for ins in block.instrs:
            assert ins.block is block
            assert not any(id(o) in mine_values for o in ins.operands)
            assert not any(id(b) in mine for b in [*ins.targets, *block.succs, *block.preds])
