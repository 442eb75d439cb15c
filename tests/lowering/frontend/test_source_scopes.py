"""The scopes rule (lowering/frontend/source_scopes.py) on loop shapes whose CFG alone cannot say: each
convergent call marked `// IN` in tests/kernels_scopes/ (written in a loop, placed after it by a break, a return or
a goto) is homed in a loop, each marked `// AFTER` (written after a while, a do or a for(;;), in the block
the loop is written in) is not, at -O0 and -O2."""
from __future__ import annotations

import os
import re

import pytest

from reconverge.lowering.frontend.llvm_module import prepare_module
from reconverge.lowering.frontend.llvm_reader import FunctionReader, ModuleContext, kernel_body
from reconverge.lowering.frontend.source_scopes import loop_homes
from reconverge.lowering.pipeline import load_module

HERE = os.path.join(os.path.dirname(os.path.abspath(__file__)), os.pardir, os.pardir, "kernels_scopes")


@pytest.mark.parametrize("level", ["-O0", "-O2"])
@pytest.mark.parametrize("name", ["scopes_after_loops.cl", "scopes_inlined.cl"])
def test_calls_are_homed_in_the_loop_they_were_written_in(name, level):
    path = os.path.join(HERE, name)
    lines = open(path).read().splitlines()
    marks = {n + 1: m.group(1) for n, line in enumerate(lines) if (m := re.search(r"// (IN|AFTER) ", line))}
    mod = prepare_module(load_module(path, level, ("-g",)), path)
    ctx = ModuleContext(mod, path)
    seen = {}
    for kernel in mod.reconverge_kernels:
        reader = FunctionReader(ctx, kernel_body(mod, kernel), kernel)
        func = reader.read()
        notes = reader.scope_notes
        assert notes is not None and notes.complete
        homes = loop_homes(func, notes)
        for ins, loc in notes.calls.items():
            line = notes.scopes.location(loc).line
            if line in marks:
                seen.setdefault(line, set()).add("IN" if ins in homes else "AFTER")
    assert seen == {line: {mark} for line, mark in marks.items()}
