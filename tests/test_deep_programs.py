"""Deep and wide programs: 5,000 nested ifs, 5,000 nested loops and a 5,000-case switch go through every
pass, the printer, the dot writer, the SPIR-V emitter and the interpreter (no recursion limit), a
switch stays flat (constant depth), and SPIR-V's nesting limit is a one-line error, not an invalid module.
"""
import subprocess

import numpy as np
import pytest

from reconverge.backend.spirv import compile_spirv
from reconverge.lowering.errors import CompileError
from reconverge.lowering.ir.core import nesting_depth
from reconverge.lowering.ir.dot import cfg_dot, tree_dot
from reconverge.lowering.ir.printer import print_function
from reconverge.lowering.ir.validate import validate
from reconverge.tools.targets.harness import compare, load_program, run_target
from tests.test_cli import run

N = 5000


def nested_ifs(n: int) -> str:
    """if (x > 0) { if (x > 1) { ... } acc = acc * 3 + 1 } ..., as LLVM IR: out[gid] = f(in[gid])."""
    lines = ["define spir_kernel void @k(ptr addrspace(1) %out, ptr addrspace(1) %in) {", "entry:",
             "  %g = call i64 @_Z13get_global_idj(i32 0)", "  %pi = getelementptr i32, ptr addrspace(1) %in, i64 %g",
             "  %x = load i32, ptr addrspace(1) %pi", "  br label %c0"]
    for i in range(n):
        lines += [f"c{i}:", f"  %t{i} = icmp sgt i32 %x, {i}", f"  br i1 %t{i}, label %c{i + 1}, label %j{i}"]
    lines += [f"c{n}:", f"  br label %j{n - 1}"]
    for i in range(n - 1, -1, -1):
        inner = f"[ %w{i + 1}, %j{i + 1} ]" if i < n - 1 else f"[ 7, %c{n} ]"
        lines += [f"j{i}:", f"  %v{i} = phi i32 [ {i}, %c{i} ], {inner}", f"  %w{i} = xor i32 %v{i}, {i * 3}",
                  f"  br label %{'j' + str(i - 1) if i else 'done'}"]
    lines += ["done:", "  %po = getelementptr i32, ptr addrspace(1) %out, i64 %g", "  store i32 %w0, ptr addrspace(1) %po",
              "  ret void", "}", "declare i64 @_Z13get_global_idj(i32)"]
    return "\n".join(lines) + "\n"


def nested_loops(n: int) -> str:
    """n loops, each running (x >> level) & 1 times around the next one, counting iterations."""
    lines = ["define spir_kernel void @k(ptr addrspace(1) %out, i32 %x) {", "entry:", "  br label %h0"]
    for i in range(n):
        prev = "entry" if i == 0 else f"h{i - 1}"
        lines += [f"h{i}:", f"  %k{i} = phi i32 [ 0, %{prev} ], [ 1, %l{i} ]",
                  f"  %s{i} = phi i32 [ {'0' if i == 0 else f'%s{i - 1}'}, %{prev} ], [ %r{i}, %l{i} ]",
                  f"  %m{i} = lshr i32 %x, {i % 31}", f"  %b{i} = and i32 %m{i}, 1",
                  f"  %go{i} = icmp ult i32 %k{i}, %b{i}", f"  br i1 %go{i}, label %{'h' + str(i + 1) if i < n - 1 else 'inner'}, label %e{i}"]
    lines += ["inner:", f"  %r{n - 1} = add i32 %s{n - 1}, 1", f"  br label %l{n - 1}"]
    for i in range(n - 1, -1, -1):
        lines += [f"l{i}:", f"  br label %h{i}"]
        if i:
            lines += [f"e{i}:", f"  %r{i - 1} = add i32 %s{i}, 1", f"  br label %l{i - 1}"]
    lines += ["e0:", "  store i32 %s0, ptr addrspace(1) %out", "  ret void", "}"]
    return "\n".join(lines) + "\n"


def wide_switch(n: int) -> str:
    """switch (in[gid]) with n cases, every third falling through into the next."""
    body = "".join(f"    case {i}: acc += {i % 9};{' break;' if i % 3 else ''}\n" for i in range(n))
    return ("kernel void k(global int *out, global const int *in) {\n  int acc = 0;\n  switch (in[get_global_id(0)]) {\n"
            f"{body}    default: acc -= 1;\n  }}\n  out[get_global_id(0)] = acc;\n}}\n")


# -O0 only: LLVM's own -O2 pipeline takes minutes on 5,000 nested ifs (the switch below covers -O2)
CASES = {"ifs": (nested_ifs, ("-O0",)), "loops": (nested_loops, ("-O0",))}


@pytest.fixture(scope="module")
def programs(tmp_path_factory):
    """Each deep shape compiled once per level, with the validator after every pass."""
    d = tmp_path_factory.mktemp("deep")
    out = {}
    for shape, (make, levels) in CASES.items():
        path = d / f"{shape}.ll"
        path.write_text(make(N))
        for level in levels:
            out[shape, level] = (str(path), load_program(str(path), level))
    return out


@pytest.mark.parametrize("shape,level", [(s, lv) for s, (_, levels) in CASES.items() for lv in levels])
def test_deep_nesting_through_every_printer_and_the_spirv_limit(programs, shape, level):
    _, program = programs[shape, level]
    func = program.function("k")
    assert nesting_depth(func) >= N
    assert validate(func) == []
    assert len(print_function(func)) > N * 10 and len(cfg_dot(func)) > N * 10 and len(tree_dot(func)) > N * 10
    with pytest.raises(CompileError, match=r"nests \d+ levels deep; SPIR-V allows at most 1023"):
        compile_spirv([func])


def test_the_command_line_prints_a_deep_tree(programs, tmp_path):
    path, _ = programs["ifs", "-O0"]
    result = run("compile", path, "--emit", "dot-tree", "-o", str(tmp_path / "t.dot"))
    assert result.returncode == 0, result.stderr
    assert (tmp_path / "t.dot").read_text().count("->") >= N


def test_deep_ifs_run_on_the_interpreter_like_the_jit(programs):
    _, program = programs["ifs", "-O0"]
    data = np.array([-1, 0, 3, 100, 2500, 4999, 5000, 123456], np.int32)
    args = [np.zeros(8, np.int32), data]
    assert compare(run_target("llvm", program, "k", args, 8, 8), run_target("ir", program, "k", args, 8, 8),
                   ["out", "in"]) == []


def test_deep_loops_run_on_the_interpreter_like_the_jit(programs):
    _, program = programs["loops", "-O0"]
    for x in (0, 1, 5, 0x7FFFFFFF):
        args = [np.zeros(1, np.int32), np.int32(x)]
        assert compare(run_target("llvm", program, "k", args, 1, 1), run_target("ir", program, "k", args, 1, 1),
                       ["out", "x"]) == []


@pytest.mark.parametrize("opt", ["0", "2"])
def test_a_wide_switch_stays_flat_and_valid(tmp_path, opt):
    path = tmp_path / "switch.cl"
    path.write_text(wide_switch(N))
    spv = tmp_path / "k.spv"
    result = run("compile", str(path), f"-O{opt}", "--emit", "spirv", "-o", str(spv))
    assert result.returncode == 0, result.stderr
    subprocess.run(["spirv-val", "--target-env", "vulkan1.3", str(spv)], check=True)
    program = load_program(str(path), f"-O{opt}")
    assert nesting_depth(program.function("k")) <= 4
    data = np.array([0, 1, 2, 3, 4, 4998, 4999, 5000, -7, 2501], np.int32)
    args = [np.zeros(10, np.int32), data]
    assert compare(run_target("llvm", program, "k", args, 10, 10), run_target("ir", program, "k", args, 10, 10),
                   ["out", "in"]) == []
