"""The seed examples of examples/reconvergence/, lane-exact: the waterfall loop, the ballot in a `continue`
loop against seed 004's nested do/while, and a ballot after a divergent if/else, at -O0 and -O2 with -g,
on the lock-step interpreter, on Gen in every --cf mode at SIMD8 and SIMD16, and on lavapipe.

The expected buffers come from numpy over the lane partition the source implies (which lanes of a sub-group
share a key, which are even), never from a target: the llvm reference follows LLVM's maximal convergence,
which puts the waterfall's reduction after the loop with every lane (the CFG-only meaning)."""
from __future__ import annotations

import functools
import os

import numpy as np
import pytest

from reconverge.tools.targets.harness import GenRunOptions, InterpreterOptions, load_program, run_target

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
HERE = os.path.join(ROOT, "examples", "reconvergence")
SEED = 20261126
LOCAL = 20          # a partial last sub-group at SIMD8 and SIMD16
GLOBAL = 40
UNSET = 0xDEADBEEF


def sub_groups(size: int):
    """The lanes of each sub-group: linear ids [k*S, (k+1)*S) of each work-group, the last one partial."""
    for start in range(0, GLOBAL, LOCAL):
        for first in range(start, start + LOCAL, size):
            yield list(range(first, min(first + size, start + LOCAL)))


def mask(lanes, group) -> int:
    return sum(1 << (lane - group[0]) for lane in lanes)


# ----- the expected buffers

def waterfall_expect(key, x, size):
    total = np.zeros(GLOBAL, np.uint32)
    for group in sub_groups(size):
        for i in group:
            total[i] = sum(int(x[j]) for j in group if key[j] == key[i]) & 0xFFFFFFFF
    return {0: total}


def after_loop_expect(key, x, size):
    total = np.zeros(GLOBAL, np.uint32)
    for group in sub_groups(size):
        total[group] = sum(int(x[j]) for j in group) & 0xFFFFFFFF
    return {0: total}


def continue_expect(n, size):
    first, second = np.full(GLOBAL * n, UNSET, np.uint32), np.full(GLOBAL * n, UNSET, np.uint32)
    for group in sub_groups(size):
        odd = [i for i in group if (i - group[0]) % 2]
        for i in group:
            for j in range(n):
                first[i * n + j] = mask(group, group)            # ballot 1: every lane, every iteration
                if i in odd:
                    second[i * n + j] = mask(odd, group)         # ballot 2: the odd lanes
    return {0: first, 1: second}


def nested_expect(n, size):
    first, second = np.full(GLOBAL * n, UNSET, np.uint32), np.full(GLOBAL * n, UNSET, np.uint32)
    for group in sub_groups(size):
        odd = [i for i in group if (i - group[0]) % 2]
        even = [i for i in group if i not in odd]
        for i in group:
            same = odd if i in odd else even
            first[i * n] = mask(group, group)                    # the first pass of the inner loop: all
            for j in range(1, n):
                first[i * n + j] = mask(same, group)             # even lanes stay inside; odd ones come back
            if i in odd:
                for j in range(n):
                    second[i * n + j] = mask(odd, group)
    return {0: first, 1: second}


def ballot_expect(data, size):
    votes, arm = np.zeros(GLOBAL, np.uint32), np.zeros(GLOBAL, np.uint32)
    for group in sub_groups(size):
        odd = [i for i in group if data[i] & 1]
        even = [i for i in group if i not in odd]
        y = {i: 3 * int(data[i]) + 1 if i in odd else int(data[i]) // 2 for i in group}
        for i in group:
            votes[i] = mask([j for j in group if y[j] > 50], group)
            arm[i] = len(odd) if i in odd else len(even) + 1000
    return {0: votes, 1: arm}


def waterfall_case(rng):
    key = rng.integers(0, 4, GLOBAL, dtype=np.uint32)
    x = rng.integers(0, 1000, GLOBAL, dtype=np.uint32)
    return [np.zeros(GLOBAL, np.uint32), key, x], lambda size: waterfall_expect(key, x, size)


def after_loop_case(rng):
    key = rng.integers(0, 4, GLOBAL, dtype=np.uint32)
    x = rng.integers(0, 1000, GLOBAL, dtype=np.uint32)
    return [np.zeros(GLOBAL, np.uint32), key, x], lambda size: after_loop_expect(key, x, size)


def continue_case(rng, n: int = 2):
    return ([np.full(GLOBAL * n, UNSET, np.uint32), np.full(GLOBAL * n, UNSET, np.uint32), np.int32(n)],
            lambda size: continue_expect(n, size))


def nested_case(rng, n: int = 2):
    return ([np.full(GLOBAL * n, UNSET, np.uint32), np.full(GLOBAL * n, UNSET, np.uint32), np.int32(n)],
            lambda size: nested_expect(n, size))


def ballot_case(rng):
    data = rng.integers(0, 100, GLOBAL, dtype=np.int32)
    return [np.zeros(GLOBAL, np.uint32), np.zeros(GLOBAL, np.uint32), data], lambda size: ballot_expect(data, size)


# kernel -> (file, case)
KERNELS = {"waterfall": ("waterfall.cl", waterfall_case), "waterfall_store": ("waterfall.cl", waterfall_case),
           "after_loop": ("waterfall.cl", after_loop_case),
           "continue_loop": ("continue_vs_nested.cl", continue_case),
           "nested_loops": ("continue_vs_nested.cl", nested_case),
           "ballot_after_if": ("ballot_after_if.cl", ballot_case)}


@functools.lru_cache(maxsize=None)
def program(file: str, level: str, convergence: str = "auto"):
    return load_program(os.path.join(HERE, file), level, build_options=("-g",), convergence=convergence)


def check(kernel: str, level: str, kind: str, size: int, options, convergence: str = "auto") -> None:
    file, case = KERNELS[kernel]
    args, expect = case(np.random.default_rng(SEED))
    got = run_target(kind, program(file, level, convergence), kernel, args, (GLOBAL,), (LOCAL,), options)
    for index, want in expect(size).items():
        assert got[index].tolist() == want.tolist(), f"{kernel} {level} on {kind} (sub-group size {size}): " \
                                                      f"argument {index}"


# LLVM's -O2 merges nested_loops' do/while into its while loop (one header, one shared latch): with -g the
# scopes rule separates them again (lowering.frontend.loop_separation), so the seed's trace holds there too


def cases(kernels=KERNELS, levels=("-O0", "-O2")):
    return [pytest.param(k, level) for k in kernels for level in levels]


@pytest.mark.parametrize("size", [8, 16])
@pytest.mark.parametrize("kernel, level", cases())
def test_interpreter(kernel, level, size):
    check(kernel, level, "ir", size, InterpreterOptions(subgroup_size=size))


# Gen, in every --cf mode: every kernel from -O2 at SIMD16; from -O0 at SIMD8 the kernels whose -O0 CFG
# differs from their -O2 one in what matters (the waterfall pair, the nested loops LLVM merges at -O2)
GEN = [(kernel, "-O2", 16) for kernel in KERNELS] + \
      [(kernel, "-O0", 8) for kernel in ("waterfall", "after_loop", "nested_loops")]


def gen_cases():
    out = []
    for kernel, level, simd in GEN:
        for cf in ("structured", "blockip", "hybrid"):
            out.append(pytest.param(kernel, level, simd, cf))
    return out


@pytest.mark.parametrize("kernel, level, simd, cf", gen_cases())
def test_gen(kernel, level, simd, cf):
    check(kernel, level, "gen", simd, GenRunOptions(simd, cf))


# lavapipe (Mesa 22.3) does not offer VK_KHR_shader_maximal_reconvergence, so its modules carry no
# MaximallyReconvergesKHR (a device offering it gets the mode: tests/spirv/test_spirv_maximal_reconvergence.py)
# and are right by construction (each operation inside the construct it was written in); lavapipe runs them
# right, the waterfall's sum carried out of the loop included
@pytest.mark.parametrize("kernel, level", cases())
def test_lavapipe(kernel, level):
    check(kernel, level, "spirv", 8, None)


def test_lavapipe_offers_no_maximal_reconvergence():
    """Which case test_lavapipe is: the device (Mesa 22.3's lavapipe, CI's) does not offer the extension, so
    the results above are our modules' own structure, not a MaximallyReconvergesKHR promise; a launch there
    declares no mode (one on a device offering it does: test_spirv_maximal_reconvergence.py)."""
    from reconverge.backend.spirv.vulkan_run import default_device
    device = default_device()
    assert device.is_lavapipe
    assert not device.maximal_reconvergence, "the driver offers it now: test_lavapipe runs under the promise"


@pytest.mark.parametrize("level", ["-O0", "-O2"])
def test_without_scopes_the_cfg_decides(level):
    """--convergence=cfg (and no -g): the reduction in the block after the loop runs after it, with every lane
    (the CFG-only meaning), so the waterfall gives what after_loop gives."""
    file, case = KERNELS["waterfall"]
    args, _ = case(np.random.default_rng(SEED))
    want = after_loop_expect(args[1], args[2], 8)[0]
    for convergence, options in (("cfg", ("-g",)), ("auto", ())):
        loaded = load_program(os.path.join(HERE, file), level, build_options=options, convergence=convergence)
        got = run_target("ir", loaded, "waterfall", [a.copy() for a in args], (GLOBAL,), (LOCAL,),
                         InterpreterOptions(subgroup_size=8))
        assert got[0].tolist() == want.tolist(), convergence


def test_the_scopes_tell_the_same_cfg_apart():
    """At -O2 waterfall and after_loop have the same CFG; -g's scopes anchor only the waterfall's reduction."""
    from reconverge.lowering.frontend.llvm_module import prepare_module
    from reconverge.lowering.frontend.llvm_reader import FunctionReader, ModuleContext, kernel_body
    from reconverge.lowering.frontend.source_scopes import loop_homes
    from reconverge.lowering.pipeline import load_module
    path = os.path.join(HERE, "waterfall.cl")
    mod = prepare_module(load_module(path, "-O2", ("-g",)), path)
    homed = {}
    for name in ("waterfall", "after_loop"):
        reader = FunctionReader(ModuleContext(mod, path), kernel_body(mod, name), name)
        func = reader.read()
        assert reader.scope_notes is not None
        homes = loop_homes(func, reader.scope_notes)
        homed[name] = sorted((ins.attrs["op"], header.label) for ins, header in homes.items())
        shape = [(b.label, [s.label for s in b.succs]) for b in func.blocks]
        assert shape == [("3", ["7"]), ("7", ["10", "7"]), ("10", [])], name
    assert homed == {"waterfall": [("reduce", "7")], "after_loop": []}


def test_convergence_sources_asked_for_and_absent(capsys):
    """A source asked for and missing is a one-line error naming the kernel."""
    from reconverge.tools.cli import main
    path = os.path.join(HERE, "waterfall.cl")
    assert main(["compile", path, "-O2", "--convergence=scopes", "--emit", "nir", "-o", "-"]) == 1
    err = capsys.readouterr().err
    assert err.strip().splitlines() == [f"reconverge: error: {path}: kernel @waterfall: --convergence=scopes: a "
                                        "sub-group operation or barrier has no debug location (compile with -g)"]
    assert main(["compile", path, "-O2", "-g", "--convergence=tokens", "--emit", "nir", "-o", "-"]) == 1
    assert "has no convergence tokens" in capsys.readouterr().err
    # -gline-tables-only locates every call but writes no lexical block: scopes are absent, not empty
    assert main(["compile", path, "-O2", "--clang-arg=-gline-tables-only", "--convergence=scopes", "--emit", "nir",
                 "-o", "-"]) == 1
    assert "line tables only, no lexical scopes (compile with -g)" in capsys.readouterr().err
    assert main(["compile", path, "-O2", "-g", "--convergence=scopes", "--kernel", "waterfall", "--emit", "nir",
                 "--stop-after", "read", "-o", "-"]) == 0
    assert "convergence.anchor" in capsys.readouterr().out
    # nothing convergent, nothing to decide: no -g needed
    assert main(["compile", os.path.join(ROOT, "examples", "seed.cl"), "--convergence=scopes", "--emit", "nir",
                 "-o", "-"]) == 0


def test_the_llvm_reference_refuses_what_scopes_move():
    """The llvm target follows LLVM's maximal convergence (the CFG): where -g's scopes move an operation into
    a loop it refuses in one line instead of giving the CFG's answer; after_loop and --convergence=cfg run."""
    from reconverge.lowering.errors import CompileError
    from reconverge.tools.targets.harness import OracleOptions
    key = np.arange(GLOBAL, dtype=np.uint32) % 3
    x = np.ones(GLOBAL, np.uint32)
    with pytest.raises(CompileError, match="kernel @waterfall: the llvm target cannot run it as -g's scopes say"):
        run_target("llvm", program("waterfall.cl", "-O2"), "waterfall", [np.zeros(GLOBAL, np.uint32), key, x],
                   (GLOBAL,), (LOCAL,), OracleOptions(8))
    want = after_loop_expect(key, x, 8)[0].tolist()
    for kernel, convergence in (("after_loop", "auto"), ("waterfall", "cfg")):
        got = run_target("llvm", program("waterfall.cl", "-O2", convergence), kernel,
                         [np.zeros(GLOBAL, np.uint32), key, x], (GLOBAL,), (LOCAL,), OracleOptions(8))
        assert got[0].tolist() == want, kernel


GLSL_WATERFALL = """#version 450
#extension GL_KHR_shader_subgroup_ballot : enable
#extension GL_KHR_shader_subgroup_arithmetic : enable
layout(local_size_x = 16) in;
layout(std430, binding = 0) buffer S { uint sum[]; };
layout(std430, binding = 1) readonly buffer K { uint key[]; };
layout(std430, binding = 2) readonly buffer X { uint x[]; };
void main() {
    uint i = gl_GlobalInvocationID.x;
    uint k = key[i];
    uint total = 0;
#ifdef STORE_INSIDE
    for (;;) { if (subgroupBroadcastFirst(k) == k) { sum[i] = subgroupAdd(x[i]); break; } }
#else
    for (;;) { if (subgroupBroadcastFirst(k) == k) { total = subgroupAdd(x[i]); break; } }
    sum[i] = total;
#endif
}
"""


@pytest.mark.parametrize("store_inside", [False, True])
def test_what_lavapipe_makes_of_glslangs_waterfall(tmp_path, store_inside):
    """The issue's report, checked: lavapipe (Mesa 22.3) runs glslang's waterfall wrong when the sum is carried
    out of the loop (every lane gets the last pass's sum) and right when it is stored inside. Our `waterfall`
    carries it out and is right there (test_lavapipe), so it needs no workaround and no xfail."""
    import subprocess

    from reconverge.backend.spirv.vulkan_run import dispatch
    source = tmp_path / "waterfall.comp"
    source.write_text(GLSL_WATERFALL)
    binary = tmp_path / "waterfall.spv"
    subprocess.run(["glslangValidator", "-V", "--target-env", "vulkan1.1", *(["-DSTORE_INSIDE"] * store_inside),
                    "-o", str(binary), str(source)], check=True, capture_output=True)
    key = (np.arange(32) % 3).astype(np.uint32)
    x = np.arange(32, dtype=np.uint32)
    got = dispatch(binary.read_bytes(), "main", {0: np.zeros(32, np.uint32), 1: key, 2: x}, b"", (2, 1, 1))[0]
    want = np.array([sum(int(x[j]) for j in range(i - i % 8, i - i % 8 + 8) if key[j] == key[i]) for i in range(32)])
    assert (got.tolist() == want.tolist()) == store_inside
