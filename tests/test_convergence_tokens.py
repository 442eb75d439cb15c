"""Convergence-control tokens decide which lanes meet, not the CFG's shape (lowering/passes/convergence.py).

tests/kernels_tokens/tokens.ll holds kernels in versions that share one CFG and differ only in the token
of the sub-group operation after a loop: a token from the loop (its heart, or an anchor in it) makes the
operation run in the iteration a lane leaves in, with the lanes that leave then; the entry token makes it
run after the loop with every lane. Expected buffers come from numpy over the lane partition (sub-group k
of a work-group = local ids [kS, (k+1)S), the last one partial), never from our own output. On the
interpreter, on Gen in every control-flow mode at SIMD8 and SIMD16, and on lavapipe (sub-group size 8).
"""
from __future__ import annotations

import os

import numpy as np
import pytest

from reconverge.lowering.errors import CompileError
from reconverge.tools.targets.harness import GenRunOptions, InterpreterOptions, load_program, run_target

HERE = os.path.dirname(os.path.abspath(__file__))
KERNELS = os.path.join(HERE, "kernels_tokens", "tokens.ll")
GLOBAL, LOCAL = 40, 20            # sub-groups of 8, 8, 4 (SIMD8) or 16, 4 (SIMD16) per work-group
SEED = 20261126

TARGETS = [("ir", 8, InterpreterOptions(subgroup_size=8)), ("ir", 16, InterpreterOptions(subgroup_size=16)),
           ("spirv", 8, None),
           *((f"gen-{cf}", simd, GenRunOptions(simd, cf)) for cf in ("structured", "blockip", "hybrid")
             for simd in (8, 16))]


def subgroups(size: int):
    """The global ids of each sub-group."""
    for start in range(0, GLOBAL, LOCAL):
        for first in range(start, start + LOCAL, size):
            yield np.arange(first, min(first + size, start + LOCAL))


def waterfall_expect(values: np.ndarray, size: int, per_iteration: bool) -> np.ndarray:
    """Each lane's reduction: over the lanes of its sub-group sharing its value (they leave the waterfall
    loop in one iteration), or over the whole sub-group."""
    out = np.zeros(GLOBAL, np.int32)
    for lanes in subgroups(size):
        for i in lanes:
            out[i] = values[lanes][values[lanes] == values[i]].sum() if per_iteration else values[lanes].sum()
    return out


def trips_expect(size: int, per_iteration: bool) -> np.ndarray:
    """Each lane's ballot word: the lanes of its sub-group leaving the loop at the same trip (id % 3), or
    all of them."""
    out = np.zeros(GLOBAL, np.uint32)
    for lanes in subgroups(size):
        for i in lanes:
            voters = lanes[lanes % 3 == i % 3] if per_iteration else lanes
            out[i] = sum(1 << int(j - lanes[0]) for j in voters)
    return out.view(np.int32)


CASES = [("waterfall_heart", True), ("waterfall_anchor", True), ("waterfall_entry", False),
         ("trips_heart", True), ("trips_entry", False)]


@pytest.fixture(scope="module")
def program():
    return load_program(KERNELS, "-O0")


# trips_entry on gen-blockip failed before blockIP laid each loop's blocks out together (cf_regions.layout):
# the exit block, a cbr's first target, came before the loop's latch block, so min-IP ran the ballot once
# per batch of lanes leaving instead of once after the loop.
RUNS = [pytest.param(kernel, per_iteration, target, id=f"{kernel}-{target[0]}-S{target[1]}")
        for kernel, per_iteration in CASES for target in TARGETS]


@pytest.mark.parametrize("kernel,per_iteration,target", RUNS)
def test_the_token_decides_which_lanes_meet(program, kernel, per_iteration, target):
    name, size, options = target
    if kernel.startswith("waterfall"):
        values = np.random.default_rng(SEED).integers(0, 3, GLOBAL, dtype=np.int32)
        args = [np.zeros(GLOBAL, np.int32), values]
        want = waterfall_expect(values, size, per_iteration)
    else:
        args = [np.zeros(GLOBAL, np.int32)]
        want = trips_expect(size, per_iteration)
    got = run_target(name.split("-")[0], program, kernel, args, (GLOBAL,), (LOCAL,), options)[0]
    assert got.tolist() == want.tolist()


def test_same_cfg_different_tokens_different_answers():
    """The expectations themselves differ (the test would catch a target that ignored the tokens)."""
    values = np.random.default_rng(SEED).integers(0, 3, GLOBAL, dtype=np.int32)
    for size in (8, 16):
        assert waterfall_expect(values, size, True).tolist() != waterfall_expect(values, size, False).tolist()
        assert trips_expect(size, True).tolist() != trips_expect(size, False).tolist()


def test_the_llvm_reference_refuses_an_anchor_in_one_line(program):
    """The reference follows entry and loop tokens (tests/test_oracle_tokens.py); an anchor's lanes are the
    implementation's choice, which it cannot know."""
    with pytest.raises(CompileError) as caught:
        run_target("llvm", program, "waterfall_anchor", [np.zeros(GLOBAL, np.int32), np.zeros(GLOBAL, np.int32)],
                   (GLOBAL,), (LOCAL,))
    assert "convergence.anchor" in str(caught.value) and "\n" not in str(caught.value)


DEEP_EXIT = """\
kernel @k(ptr1 %out, i32 %v, i1 %d) {
  block b0 "entry":
    %e = convergence.entry token
    br b1
  block b1 "loop":
    %l = convergence.loop token %e
    %first = subgroup.broadcast_first i32 %v, %l
    %same = icmp.eq i32 %v, %first
    cbr i1 %same, b4, b2
  block b2 "body":
    cbr i1 %d, b3, b1
  block b3 "other_exit":
    OTHER
    br b4
  block b4 "exit":
    %sum = subgroup.reduce i32 %v, %l, arith "add"
    store i32 %sum, %out
    ret
}
"""


def _valid_kernel(text: str):
    """Kernel k of an IR text, checked by the validator."""
    from reconverge.lowering.ir.parser import parse_module
    from reconverge.lowering.ir.validate import validate
    func = parse_module(text).functions["k"]
    assert validate(func) == []
    return func


def _deep_exit(other: str):
    return _valid_kernel(DEEP_EXIT.replace("OTHER", other))


def test_an_operation_reached_through_two_exits_joins_the_loop():
    """The exit block holding the loop token's reduction is reached from the loop directly and through another
    exit block (a region, not one block): both are pulled into the loop (refused before)."""
    from reconverge.lowering.graph import loop_forest
    from reconverge.lowering.ir.validate import validate
    from reconverge.lowering.passes import PASSES
    func = _deep_exit("%w = add i32 %v, %v")
    PASSES["convergence"].run(func, None)
    assert validate(func) == []
    blocks = func.update_cfg()
    forest = loop_forest([[s.index for s in b.succs] for b in blocks], 0)
    reduce_block = next(b for b in blocks if any(i.opcode == "subgroup" for i in b.instrs[:1]) and b.label == "exit")
    assert forest.contains(blocks.index(next(b for b in blocks if b.label == "loop")), reduce_block.index)


def test_a_region_running_an_operation_of_another_token_is_refused_in_one_line():
    """On the way from the loop to the loop token's reduction, another exit block runs a reduction of the
    entry token (after the loop, with every lane): pulling the way into the loop would change that one's
    meeting, and a copy is not supported (never a silently different meeting)."""
    from reconverge.lowering.errors import NotSupported
    from reconverge.lowering.passes import PASSES
    func = _deep_exit("%w = subgroup.reduce i32 %v, %e, arith \"add\"\n    store i32 %w, %out")
    with pytest.raises(NotSupported) as caught:
        PASSES["convergence"].run(func, None)
    message = str(caught.value)
    assert "block other_exit also runs operations of the loop at block loop with a token from elsewhere" in message
    assert "\n" not in message


LOOP_AFTER_EXIT = """\
kernel @k(ptr1 %out, i32 %v, i1 %d) {
  block b0 "entry":
    %e = convergence.entry token
    br b1
  block b1 "loop":
    %l = convergence.loop token %e
    %first = subgroup.broadcast_first i32 %v, %l
    %same = icmp.eq i32 %v, %first
    cbr i1 %same, b2, b1
  block b2 "moved":
    %m = TOKEN
    %x = subgroup.reduce i32 %v, %m, arith "umax"
    cbr i1 %d, b3, b2
  block b3 "exit":
    %sum = subgroup.reduce i32 %x, %l, arith "add"
    store i32 %sum, %out
    ret
}
"""


def _loop_after_exit(token: str):
    return _valid_kernel(LOOP_AFTER_EXIT.replace("TOKEN", token))


def test_a_loop_of_its_own_anchor_on_the_way_to_the_exit_operation_joins_the_loop():
    """-O2 can move a loop written in another loop's body after that loop's exit, before an operation of
    the outer loop's token (fuzz convergence-51088: a waterfall loop, anchored by the scopes mode, refused
    before). Its anchor means the same inside the loop, so the moved loop is pulled in with the way to the
    operation and nests in it; a loop heart whose parent is the entry token would not, and is refused."""
    from reconverge.lowering.errors import NotSupported
    from reconverge.lowering.graph import loop_forest
    from reconverge.lowering.ir.validate import validate
    from reconverge.lowering.passes import PASSES
    func = _loop_after_exit("convergence.anchor token")
    PASSES["convergence"].run(func, None)
    assert validate(func) == []
    blocks = func.update_cfg()
    forest = loop_forest([[s.index for s in b.succs] for b in blocks], 0)
    index = {b.label: b.index for b in blocks}
    assert forest.contains(index["loop"], index["moved"]) and forest.header_of[index["moved"]] == index["moved"]
    with pytest.raises(NotSupported, match="with a token from elsewhere"):
        PASSES["convergence"].run(_loop_after_exit("convergence.loop token %e"), None)
    heart_of_the_loop = _loop_after_exit("convergence.loop token %l")
    PASSES["convergence"].run(heart_of_the_loop, None)
    assert validate(heart_of_the_loop) == []


def test_llvm_optimising_a_dead_loop_whose_token_is_used_after_it_is_a_one_line_error():
    """LLVM 22 (llvmlite's build, assertions on) aborts in loop deletion on trips_*'s dead loop at -O2;
    the pipeline runs in a child for modules with tokens, so this is an error, not a dead process."""
    with pytest.raises(CompileError) as caught:
        load_program(KERNELS, "-O2")
    assert "-O2 pipeline crashed" in str(caught.value) and "\n" not in str(caught.value)


BUNDLED = """\
target datalayout = "e-i64:64-v16:16-v24:32-v32:32-v48:64-v96:128-v192:256-v256:256-v512:512-v1024:1024-G1"
target triple = "spir64"

define spir_kernel void @k(ptr addrspace(1) %out) #0 {{
entry:
  %e = call token @llvm.experimental.convergence.entry()
  %i = call spir_func i64 @_Z13get_global_idj(i32 0) [ "convergencectrl"(token %e) ]
  %v = trunc i64 %i to i32
  %r = call spir_func i32 @_Z20sub_group_reduce_addj(i32 %v) {bundles}
  store i32 %r, ptr addrspace(1) %out, align 4
  ret void
}}

declare token @llvm.experimental.convergence.entry() #1
declare spir_func i64 @_Z13get_global_idj(i32) #1
declare spir_func i32 @_Z20sub_group_reduce_addj(i32) #1

attributes #0 = {{ convergent nounwind }}
attributes #1 = {{ convergent nounwind }}
"""


@pytest.mark.parametrize("bundles", ['[ "foo"(i32 7), "convergencectrl"(token %e) ]',
                                     '[ "convergencectrl"(token %e), "foo"(i32 7) ]'])
def test_an_operand_bundle_other_than_convergencectrl_is_a_one_line_error(bundles, tmp_path):
    """The reader took only a leading "convergencectrl" bundle: after another bundle, the token and the other
    bundle's operands were read as the call's arguments (compiled without a word)."""
    path = tmp_path / "b.ll"
    path.write_text(BUNDLED.format(bundles=bundles))
    with pytest.raises(CompileError) as caught:
        load_program(str(path), "-O0").functions_for("generic")
    assert 'operand bundle "foo"' in str(caught.value) and "\n" not in str(caught.value)
