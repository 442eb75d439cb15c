"""The llvm reference's sub-group model (tools/targets/oracle_subgroups.py): every sub-group built-in of
clang's OpenCL C header is defined, the cross-lane ones compute over the lanes that meet (against numpy,
partial sub-groups included), and a sub-group operation the model cannot key is a one-line refusal, never
a wrong answer or a hang."""
from __future__ import annotations

import re
import subprocess

import numpy as np
import pytest

from reconverge.lowering.frontend.clang import CLANG, compile_opencl
from reconverge.tools.targets.jit_oracle import OracleError, _get_library, run_llvm_kernel

HEADER_EXTENSIONS = ("cl_khr_subgroups", "cl_khr_subgroup_ballot", "cl_khr_subgroup_clustered_reduce",
                     "cl_khr_subgroup_extended_types", "cl_khr_subgroup_non_uniform_arithmetic",
                     "cl_khr_subgroup_non_uniform_vote", "cl_khr_subgroup_shuffle",
                     "cl_khr_subgroup_shuffle_relative", "cl_khr_fp16", "cl_khr_fp64")


def _header_calls(tmp_path) -> set[str]:
    """The mangled name of every sub-group declaration in clang's opencl-c.h, from a kernel calling each."""
    include = tmp_path / "h.cl"
    include.write_text("#include <opencl-c.h>\n")
    ext = ",".join("+" + e for e in HEADER_EXTENSIONS)
    text = subprocess.run([CLANG, "-x", "cl", "-cl-std=CL3.0", "-target", "spir64", "-Xclang", f"-cl-ext={ext}",
                           "-E", str(include)], capture_output=True, text=True, check=True).stdout
    text = re.sub(r"__attribute__\(\(\w+\)\)", " ", " ".join(text.split()))
    decls = re.findall(r"(?:^|;)\s*(?:const\s+)?(\w+)\s+((?:get_\w*)?sub_group_\w+)\s*\(([^)]*)\)", text)
    calls = []
    for _ret, name, params in decls:
        if "avc" in name or "rotate" in name or name.startswith(("intel", "clock")):
            continue
        types = [p.strip().split()[0] for p in params.split(",") if p.strip() and p.strip() != "void"]
        args = ", ".join(f"({t})0" if t not in ("memory_scope",) else "memory_scope_sub_group" for t in types)
        calls.append(f"{name}({args});")
    assert len(calls) > 500, len(calls)
    src = tmp_path / "calls.cl"
    src.write_text("#pragma OPENCL EXTENSION cl_khr_fp16 : enable\nkernel void k(void) {\n"
                   + "\n".join(calls) + "\n}\n")
    ir = compile_opencl(str(src), "-O0")
    return set(re.findall(r"call [^@]*@(_Z\d+(?:get_)?\w*sub_group\w+)\(", ir))


def test_every_sub_group_builtin_of_the_header_is_defined(tmp_path):
    missing = sorted(_header_calls(tmp_path) - set(_get_library().chunks))
    assert not missing, missing


def _run(tmp_path, body: str, n: int, local: int, size: int, types=("int",), level="-O2", data=None):
    params = ", ".join(f"global {t} *a{i}" for i, t in enumerate(types))
    src = tmp_path / "k.cl"
    src.write_text("#pragma OPENCL EXTENSION cl_khr_fp16 : enable\n"
                   f"kernel void k({params}) {{ size_t i = get_global_id(0); uint lid = get_sub_group_local_id();\n"
                   f"{body}\n}}\n")
    ir = compile_opencl(str(src), level)
    arrays = data if data is not None else [np.zeros(n, np.int32) for _ in types]
    run_llvm_kernel(ir, "k", arrays, n, local, subgroup_size=size)
    return arrays


def _subgroups(n: int, local: int, size: int):
    """Per item: (sub-group number in the NDRange, local id in it), partial last sub-groups included."""
    lin = np.arange(n) % local
    group = np.arange(n) // local
    per_group = -(-local // size)
    return group * per_group + lin // size, lin % size


@pytest.mark.parametrize("level", ["-O0", "-O2"])
def test_ids_sizes_and_reductions_with_a_partial_sub_group(tmp_path, level):
    n, local, size = 40, 20, 8                  # sub-groups of 8, 8, 4 lanes per work-group
    x = np.arange(n, dtype=np.int32) * 3 - 50
    f = (np.arange(n) % 7 - 3).astype(np.float32) * 0.5
    out = _run(tmp_path, "a0[i] = get_sub_group_size() * 1000 + get_num_sub_groups() * 100 + get_sub_group_id() * 10"
               " + (get_max_sub_group_size() == 8);"
               "a1[i] = sub_group_reduce_add(a1[i]) + sub_group_scan_exclusive_max(a1[i]);"
               "a2[i] = sub_group_scan_inclusive_add(a2[i]) + sub_group_clustered_reduce_mul(a2[i], 2u);"
               "a3[i] = sub_group_non_uniform_reduce_xor(a3[i]) ^ sub_group_scan_inclusive_min(a3[i]);",
               n, local, size, ("uint", "int", "float", "int"), level,
               [np.zeros(n, np.uint32), x.copy(), f.copy(), x.copy()])
    sg, lane = _subgroups(n, local, size)
    members = [np.flatnonzero(sg == k) for k in range(sg.max() + 1)]
    sizes = np.array([len(members[k]) for k in sg])
    assert (out[0] == sizes * 1000 + 300 + (sg % 3) * 10 + 1).all()
    red = np.array([x[members[k]].sum() for k in sg])
    exmax = np.array([np.max(x[members[k]][:lane[i]], initial=np.iinfo(np.int32).min) for i, k in enumerate(sg)])
    assert (out[1] == (red + exmax).astype(np.int32)).all()
    scan = np.array([np.cumsum(f[members[k]])[lane[i]] for i, k in enumerate(sg)], np.float32)
    pair = np.array([f[i] * f[i ^ 1] for i in range(n)], np.float32)
    assert (out[2] == scan + pair).all()
    xor = np.array([np.bitwise_xor.reduce(x[members[k]]) for k in sg])
    scanmin = np.array([x[members[k]][:lane[i] + 1].min() for i, k in enumerate(sg)])
    assert (out[3] == xor ^ scanmin).all()


def test_votes_ballots_shuffles_and_broadcasts_of_every_width(tmp_path):
    n, local, size = 32, 32, 16
    x = (np.arange(n) * 7 % 11).astype(np.int64)
    v = np.arange(n * 4, dtype=np.int16).reshape(n, 4)
    out = _run(tmp_path, "uint4 b = sub_group_ballot(a0[i] > 5); a1[i] = b.x + sub_group_ballot_bit_count(b) * 100000;"
               "a0[i] = sub_group_shuffle_xor(a0[i], 3u) * 100 + sub_group_shuffle_down(a0[i], lid < 8 ? 8u : 0u)"
               " + sub_group_broadcast_first(a0[i]) * 10000 + sub_group_any(a0[i] == 10) * 1000000 +"
               " sub_group_all(a0[i] < 11) * 10000000 + sub_group_elect() * 100000000;"
               "vstore4(sub_group_broadcast(vload4(i, a2), 5u), i, a2);",
               n, local, size, ("long", "uint", "short"), "-O2",
               [x.copy(), np.zeros(n, np.uint32), v.reshape(-1).copy()])
    sg, lane = _subgroups(n, local, size)
    base = sg * size
    ballot = np.array([sum(1 << j for j in range(size) if x[b + j] > 5) for b in base])
    assert (out[1] == ballot + np.array([bin(b).count("1") for b in ballot]) * 100000).all()
    down = np.where(lane < 8, np.roll(x, -8), x)
    any10 = np.array([(x[b:b + size] == 10).any() for b in base])
    all11 = np.array([(x[b:b + size] < 11).all() for b in base])
    want = x[np.arange(n) ^ 3] * 100 + down + x[base] * 10000 + any10 * 1000000 + all11 * 10000000 + \
        (lane == 0) * 100000000
    assert (out[0] == want).all()
    assert (out[2].reshape(n, 4) == v[base + 5]).all()


def test_half_double_char_and_vector_operands(tmp_path):
    """Every width of operand goes through the host by its bytes: half sums rounded in half lane by lane,
    a double product scan, a char clustered reduction that wraps, a half4 broadcast from lane 3 under an if."""
    n, size = 16, 8
    h = (np.arange(n) % 5 * 0.25 + 1).astype(np.float16)
    d = (np.arange(n) % 3 + 1).astype(np.float64)
    c = (np.arange(n) * 37 % 128).astype(np.int8)
    v = np.arange(n * 4, dtype=np.float16)
    out = _run(tmp_path, "a0[i] = sub_group_reduce_add(a0[i]); a1[i] = sub_group_non_uniform_scan_exclusive_mul(a1[i]);"
               "a2[i] = sub_group_clustered_reduce_add(a2[i], 4u);"
               "if (lid > 2) a3[i] = sub_group_non_uniform_broadcast(a3[i], 3u);",
               n, n, size, ("half", "double", "char", "half4"), "-O2", [h.copy(), d.copy(), c.copy(), v.copy()])
    for start in range(0, n, size):
        total = np.float16(0)
        for x in h[start:start + size]:
            total = np.float16(total + x)
        assert (out[0][start:start + size] == total).all()
        assert out[1][start:start + size].tolist() == np.cumprod(np.r_[1, d[start:start + size - 1]]).tolist()
    clusters = c.astype(np.int64).reshape(-1, 4).sum(axis=1)
    assert out[2].tolist() == np.repeat(((clusters + 128) % 256 - 128).astype(np.int8), 4).tolist()
    want = v.reshape(n, 4).copy()
    for start in range(0, n, size):
        want[start + 3:start + size] = want[start + 3]
    assert (out[3].reshape(n, 4) == want).all()


def test_an_if_around_a_reduction_and_a_loop_lanes_leave_at_different_iterations(tmp_path):
    n, size = 16, 8
    out = _run(tmp_path, "int r = -1; if (lid < 5) r = sub_group_reduce_add((int)i); a0[i] = r;", n, n, size)
    lane = np.arange(n) % size
    base = np.arange(n) // size * size
    assert (out[0] == np.where(lane < 5, 5 * base + 10, -1)).all()
    out = _run(tmp_path, "int s = 0; for (uint j = 0; j <= lid % 3; j++) s += sub_group_non_uniform_reduce_add("
               "(int)j + 1); a1[i] = s;", n, n, size, ("int", "int"))
    # iteration j runs with the lanes whose lid % 3 >= j: 8, 5 and 2 of them
    per_iter = [(j + 1) * sum(1 for m in range(size) if m % 3 >= j) for j in range(3)]
    assert (out[1] == np.array([sum(per_iter[:m % 3 + 1]) for m in lane])).all()


@pytest.mark.parametrize("level", ["-O0", "-O2"])
def test_lanes_at_different_operations_run_them_in_program_order(tmp_path, level):
    """Lanes that wait at different operations: those no other waiting lane can still come to run first
    (an if around a reduction before another one; a loop some lanes left, before the code after it or a
    barrier after it); the same call in different loop iterations is two operations."""
    n, size = 16, 8
    lane = np.arange(n) % size
    x = np.arange(n, dtype=np.int32)
    groups = [np.flatnonzero(np.arange(n) // size == k) for k in range(n // size)]

    def over(mask, values):
        return np.array([values[groups[k]][mask[groups[k]]].sum() for k in np.arange(n) // size])
    out = _run(tmp_path, "int r = 0; if (lid < 3) r = sub_group_reduce_add(a0[i]); r += sub_group_reduce_max(a0[i]);"
               "a0[i] = r;", n, n, size, level=level, data=[x.copy()])
    first = over(lane < 3, x)
    top = np.array([x[groups[k]].max() for k in np.arange(n) // size])
    assert (out[0] == np.where(lane < 3, first, 0) + top).all()
    # the same call, the same count of operations, different loop iterations: odd lanes in the first,
    # even lanes in the second
    out = _run(tmp_path, "int r = 0; for (int j = 0; j < 2; j++) if ((lid + j) & 1) r = sub_group_reduce_add(a0[i]);"
               "a0[i] = r;", n, n, size, level=level, data=[x.copy()])
    assert (out[0] == np.where(lane & 1, over(lane & 1 == 1, x), over(lane & 1 == 0, x))).all()
    # in that loop the one-in-two lanes reduce in each iteration: 8 lanes would give the sub-group's sum
    assert not (out[0] == over(lane >= 0, x)).any()
    out = _run(tmp_path, "int r = 0; for (uint j = 0; j < lid % 3; j++) r += sub_group_reduce_add((int)j + 1);"
               "barrier(CLK_LOCAL_MEM_FENCE); a0[i] = sub_group_reduce_max(r) * 100 + r;", n, n, size, level=level)
    counts = [(j + 1) * sum(1 for m in range(size) if m % 3 > j) for j in range(2)]
    r = np.array([sum(counts[:m % 3]) for m in lane])
    assert (out[0] == r.max() * 100 + r).all()


def test_a_helper_called_from_two_places_keeps_its_calls_apart(tmp_path):
    """At -O0 the helper stays a function: lanes in its two callers' branches wait at the same call
    instruction, but through different calls; each branch's lanes reduce on their own."""
    src = tmp_path / "k.cl"
    src.write_text("int h(int x) { return sub_group_reduce_add(x); }\n"
                   "kernel void k(global int *a) { uint lid = get_sub_group_local_id(); int r;"
                   " if (lid < 3) r = h(1); else r = h(2); a[get_global_id(0)] = r; }\n")
    out = np.zeros(8, np.int32)
    run_llvm_kernel(compile_opencl(str(src), "-O0"), "k", [out], 8, 8, subgroup_size=8)
    assert out.tolist() == [3] * 3 + [10] * 5
    src.write_text("int h(int x) { return sub_group_reduce_add(x); }\n"
                   "kernel void k(global int *a) { a[get_global_id(0)] = h(1) + 10 * h(2); }\n")
    out = np.zeros(12, np.int32)
    run_llvm_kernel(compile_opencl(str(src), "-O0"), "k", [out], 12, 12, subgroup_size=8)
    assert (out == np.array([8 + 160] * 8 + [4 + 80] * 4)).all()


@pytest.mark.parametrize("body, message", [
    ("r = sub_group_shuffle(r, lid + 1);", "outside the sub-group"),
    ("if (lid & 1) r = sub_group_broadcast(r, 0u);", "not taking part"),
    ("r = sub_group_broadcast(r, lid & 1);", "lane index differs"),
    # a cycle with two entries: no loop iteration names the reduction's instances
    ("int j = 0; if (lid & 1) goto mid; top: r += sub_group_reduce_add(1); mid: j++; if (j < 3) goto top;",
     "irreducible control flow"),
])
@pytest.mark.parametrize("level", ["-O0", "-O2"])
def test_what_the_model_cannot_run_faithfully_is_refused_not_guessed(tmp_path, body, message, level):
    with pytest.raises(OracleError, match=message):
        _run(tmp_path, f"int r = 0; {body} a0[i] = r;", 16, 16, 8, level=level)


def test_the_library_cache_is_saved_where_proc_links_fail(tmp_path, monkeypatch):
    """linkat through /proc/self/fd fails with EXDEV in some sandboxes: the compiled library (seconds of
    clang, more with the sub-group built-ins) must still be cached, whole, under its name."""
    import errno
    import os

    from reconverge.tools.targets import jit_oracle

    def no_link(*_args, **_kwargs):
        raise OSError(errno.EXDEV, "Invalid cross-device link")
    monkeypatch.setattr(os, "link", no_link)
    path = str(tmp_path / "lib.ll")
    jit_oracle._save_cache(path, "text " * 1000)
    assert open(path, encoding="utf-8").read() == "text " * 1000
    assert os.listdir(tmp_path) == ["lib.ll"]


def test_run_takes_the_sub_group_size_for_llvm(tmp_path, capsys):
    from reconverge.tools.cli import main
    src = tmp_path / "k.cl"
    src.write_text("kernel void k(global int *a) { size_t i = get_global_id(0);"
                   " a[i] = sub_group_scan_inclusive_add(a[i]) + 100 * (int)get_sub_group_id(); }\n")
    np.save(tmp_path / "a.npy", np.ones(12, np.int32))
    common = ["run", str(src), "--global", "12", "--local", "12", "--arg", f"a=@{tmp_path / 'a.npy'}"]
    assert main(common + ["--target", "llvm", "--subgroup-size", "4", "--out", str(tmp_path / "out")]) == 0
    assert np.load(tmp_path / "out" / "a.npy").tolist() == [1, 2, 3, 4, 101, 102, 103, 104, 201, 202, 203, 204]
    assert main(common + ["--target", "llvm", "--subgroup-size", "3", "--print"]) == 2
    assert "3: expected a power of two from 1 to 128" in capsys.readouterr().err
    assert main(common + ["--target", "spirv", "--subgroup-size", "8", "--print"]) == 2
    assert "--subgroup-size only applies to --target llvm and ir" in capsys.readouterr().err


def test_ballot_queries_and_lane_masks_count_lanes_up_to_the_max_size(tmp_path):
    """As the front end lowers them (lowering/frontend/subgroups.py, after SPIR-V's BallotBitCount and
    Vulkan's SubgroupGeMask): bits 0 .. get_max_sub_group_size() - 1, also in a partial sub-group."""
    out = _run(tmp_path, "uint4 all = (uint4)(0xffffffffu); a0[i] = get_sub_group_ge_mask().x;"
               "a1[i] = sub_group_ballot_bit_count(all) * 100 + sub_group_ballot_find_msb(all);",
               12, 12, 8, ("uint", "uint"), data=[np.zeros(12, np.uint32), np.zeros(12, np.uint32)])
    lane = np.arange(12) % 8
    assert out[0].tolist() == (0xFF & ~((1 << lane) - 1)).tolist()
    assert out[1].tolist() == [807] * 12


BRANCH_CLANG_FOLDS_ONLY_WHEN_INLINING = """
kernel void k(global uint *out, global const uint *in) {
  uint lid = get_local_id(0), x = in[lid], g = 0;
  do {
    g++;
    if (x < g * 3u) {
      uint r = sub_group_reduce_add(1u);
      if (as_int(1u) >= -48) { out[lid] = r * 100u + g; return; }
    }
  } while (g < 10u);
  out[lid] = 7u;
}
"""


def test_the_reference_keys_operations_by_the_cfg_the_compiler_reads(tmp_path):
    """clang 22 writes kernel @k twice: `@__clang_ocl_kern_imp_k` in its own CFG, which the compiler reads,
    and `@k`, that code inlined, where the inliner folded `if (as_int(1u) >= -48)` and with it the edge that
    kept the reduction in the loop. Run from @k, the reference summed the lanes of every iteration; ir
    summed per iteration (fuzz subgroup-70655, at -O0). Both now run the twin's CFG and agree; LLVM's -O2
    folds that branch, so there the reduction runs after the loop (the CFG decides without -g)."""
    from reconverge.tools.targets.harness import InterpreterOptions, OracleOptions, load_program, run_target
    path = tmp_path / "k.cl"
    path.write_text(BRANCH_CLANG_FOLDS_ONLY_WHEN_INLINING)
    answers = {}
    for level in ("-O0", "-O2"):
        program = load_program(str(path), level)
        for target, options in (("llvm", OracleOptions(16)), ("ir", InterpreterOptions(subgroup_size=16))):
            args = [np.zeros(16, np.uint32), np.arange(16, dtype=np.uint32) * 2]
            answers[target, level] = run_target(target, program, "k", args, (16,), (16,), options)[0].tolist()
        assert answers["llvm", level] == answers["ir", level], level
    assert answers["llvm", "-O0"] != answers["llvm", "-O2"]
