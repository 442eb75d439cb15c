"""What the Gen code-quality passes promise (tools/bench_gen_quality.py measures how much they gain): 64-bit
ids and buffer indices computed in 32 bits (isel_narrow), stores as split sends, no else for an empty else
arm, a select's compare writing its flag directly, && and || of compares chained through the flag
(isel_flags), copies coalesced into the instruction that computes them (mir_coalesce), keeping what it
converts; each kernel also
agrees with the CPU reference."""
from __future__ import annotations

import numpy as np
import pytest

from reconverge.backend.gen import GenOptions, select
from reconverge.isa.gen9.model import DataType
from reconverge.tools.targets.harness import GenRunOptions, load_program, run_target

SOURCE = """
kernel void index(global int *out, global const int *in) {
    size_t i = get_global_id(0);
    out[i] = in[i] + 1;
}
kernel void remainder(global int *out, int n) {
    out[get_global_id(0)] = (int)get_local_id(0) % n + (int)get_local_id(0) / n;
}
kernel void exits(global int *out, global const int *in) {
    int gid = get_global_id(0), i = 0;
    while (i < 40) {
        if (in[(gid + i) & 63] == 5) break;
        i++;
    }
    out[gid] = in[gid] > 3 ? i : 7;
}
kernel void chains(global int *out, global const int *in, global const float *f) {
    int gid = get_global_id(0), i = 0, acc = 0;
    while (i < 30 && in[(gid + i) & 63] != 5) {                     /* && of two compares, negated */
        if (in[(gid + 2 * i) & 63] > 6 || in[(gid + i) & 63] == 1)  /* || */
            acc += i;
        float x = f[(gid + i) & 63];
        if (!(x < 0.5f && x > -0.25f))                               /* a negated float and: dwords */
            acc ^= 3;
        i++;
    }
    out[gid] = acc * 64 + i;
}
kernel void zeros(global uint *out, global const uint *in) {     /* fuzz convergence-40760, reduced */
    uint gid = get_global_id(0), a = in[gid], b = in[(gid + 1) & 63];
    float s = ((a & 7u) == 2u) ? -0.0f : 1.0f;
    s = fmin(s * ((as_int(b) >> (a & 31u)) > 3 ? -0.0f : 1.0f), 65536.0f);
    out[gid] = as_uint(s * (as_int(b) <= 9 ? 0.0f : -1.0f));
}
kernel void converted_bits(global uint *out, global const int *in) {
    uint gid = get_global_id(0);
    float f = 7.0f;
    if ((in[gid] & 7) == 3)
        f = (float)in[(gid + 5) & 63];
    out[gid] = as_uint(f);
}
"""


@pytest.fixture(scope="module")
def program(tmp_path_factory):
    path = tmp_path_factory.mktemp("quality") / "k.cl"
    path.write_text(SOURCE)
    return load_program(str(path), "-O2")


def _code(program, kernel, simd=16, cf="structured"):
    """The kernel's machine IR instructions (before register allocation), in layout order."""
    mfunc, _ = select(program, kernel, GenOptions(simd, cf))
    return [i for b in mfunc.blocks for i in b.instrs]


@pytest.mark.parametrize("simd", [8, 16])
def test_a_buffer_index_is_computed_in_dwords_and_stored_by_a_split_send(program, simd):
    code = _code(program, "index", simd)
    wide = [i for i in code if any(op.type in (DataType.Q, DataType.UQ) for op in (i.dst, *i.srcs) if op is not None)]
    assert not wide, wide
    assert [i.opcode for i in code].count("sends") == 1
    assert len(code) <= 9, code             # IGC: 12 (its cr0 write and r0 copy among them)


@pytest.mark.parametrize("simd", [8, 16])
def test_a_local_id_read_by_integer_division_is_a_dword_register(program, simd):
    """The payload's local ids are words: read in place by an add, but copied before the math box,
    which takes only dwords (the validator refused the code otherwise)."""
    n = 5
    got = run_target("gen", program, "remainder", [np.zeros(64, np.int32), n], (64,), (32,), GenRunOptions(simd))
    lid = np.arange(64) % 32
    assert np.array_equal(got[0], lid % n + lid // n)


@pytest.mark.parametrize("cf", ["structured", "auto"])
def test_break_only_arms_have_no_else_and_a_select_compares_into_its_flag(program, cf):
    code = _code(program, "exits", 16, cf)
    if cf == "structured":       # each exit a predicated break (and its copy): no if, else or endif
        assert not {"if", "else", "endif"} & {i.opcode for i in code}, code
        assert [i.predicate is not None for i in code if i.opcode == "break"] == [True, True]
    sel = next(k for k, i in enumerate(code) if i.opcode == "sel")
    assert code[sel - 1].opcode == "cmp" and code[sel - 1].dst is None, code[sel - 1]
    data = np.random.default_rng(3).integers(0, 9, 64).astype(np.int32)
    got = run_target("gen", program, "exits", [np.zeros(64, np.int32), data.copy()], (64,), (16,),
                     GenRunOptions(16, cf))
    want = run_target("llvm", program, "exits", [np.zeros(64, np.int32), data.copy()], (64,), (16,))
    assert np.array_equal(got[0], want[0])


def test_cse_shares_values_and_flags_only_where_nothing_was_written_between():
    from reconverge.backend.gen.mir import Imm, MFunction, MInstr, Operand
    from reconverge.backend.gen.mir_cse import eliminate_common_subexpressions
    f = MFunction("k", 16)
    b = f.block("entry")
    x, y, z, w, phi = (f.vreg(DataType.D) for _ in range(5))
    four = Operand(Imm(4, DataType.D))
    b.append(MInstr("mov", 16, Operand(x), [Operand(Imm(3, DataType.D))]))
    b.append(MInstr("mul", 16, Operand(y), [Operand(x), four]))
    b.append(MInstr("mul", 16, Operand(z), [Operand(x), four]))           # = y
    b.append(MInstr("cmp", 16, None, [Operand(z), four], cond_mod="lt", flag=(0, 0)))
    b.append(MInstr("sel", 16, Operand(w), [Operand(y), Operand(z)], predicate=(0, 0, False)))
    b.append(MInstr("cmp", 16, None, [Operand(y), four], cond_mod="lt", flag=(0, 0)))   # f0.0 holds it
    b.append(MInstr("cmp", 16, None, [Operand(w), four], cond_mod="gt", flag=(0, 0)))
    b.append(MInstr("cmp", 16, None, [Operand(y), four], cond_mod="lt", flag=(0, 0)))   # rewritten between
    b.append(MInstr("mov", 16, Operand(phi), [Operand(y)]))
    b.append(MInstr("mov", 16, Operand(phi), [Operand(y)], predicate=(0, 0, False)))    # written twice: kept
    assert eliminate_common_subexpressions(f) == 2
    assert [i.opcode for i in b.instrs] == ["mov", "mul", "cmp", "sel", "cmp", "cmp", "mov", "mov"]
    assert all(s.value.id != z.id for i in b.instrs for s in i.srcs if hasattr(s.value, "id"))


def test_cse_tells_the_zeros_apart():
    from reconverge.backend.gen.mir import Imm, MFunction, MInstr, Operand
    from reconverge.backend.gen.mir_cse import eliminate_common_subexpressions
    f = MFunction("k", 16)
    b = f.block("entry")
    x, y, z = (f.vreg(DataType.F) for _ in range(3))
    for dst, value in ((x, -0.0), (y, 0.0), (z, -0.0)):
        b.append(MInstr("mov", 16, Operand(dst), [Operand(Imm(value, DataType.F))]))
    assert eliminate_common_subexpressions(f) == 1                 # z is x; y stays +0.0
    assert [i.srcs[0].value.value for i in b.instrs] == [-0.0, 0.0] and str(b.instrs[1].srcs[0].value)[0] != "-"


@pytest.mark.parametrize("simd", [8, 16])
def test_selects_of_both_zeros_in_one_block_agree_with_the_reference(program, simd):
    data = np.random.default_rng(40760).integers(0, 2**32, 64, dtype=np.uint64).astype(np.uint32)
    data[::5] = 2                                                  # some lanes select -0.0 first
    args = lambda: [np.zeros(64, np.uint32), data.copy()]                         # noqa: E731
    want = run_target("llvm", program, "zeros", args(), (64,), (16,))
    assert {0, 0x80000000} <= set(want[0].tolist())
    got = run_target("gen", program, "zeros", args(), (64,), (16,), GenRunOptions(simd, "structured"))
    assert np.array_equal(got[0], want[0])


CF_MODES = ["structured", "blockip", "hybrid", "auto"]


@pytest.mark.parametrize("simd", [8, 16])
@pytest.mark.parametrize("cf", CF_MODES)
def test_logical_and_or_of_compares_chain_through_the_flag(program, cf, simd):
    """`a && b` (and `||`, and their negations) into a branch: `cmp f0.0 a` then `(f0.0) cmp f0.0 b`
    (IGC's form), not two 0/-1 dwords combined by sel or and and tested by a cmp.ne; where a negated
    float compare is no one cmp its dword is tested instead. Every mode agrees with the CPU reference."""
    code = _code(program, "chains", simd, cf)
    chained = [i for i in code if i.opcode == "cmp" and i.predicate is not None and i.predicate[:2] == i.flag]
    assert len(chained) >= 2, code
    rng = np.random.default_rng(5)
    data = rng.integers(0, 9, 64).astype(np.int32)
    floats = rng.uniform(-1, 1, 64).astype(np.float32)
    args = lambda: [np.zeros(64, np.int32), data.copy(), floats.copy()]            # noqa: E731
    got = run_target("gen", program, "chains", args(), (64,), (16,), GenRunOptions(simd, cf))
    want = run_target("llvm", program, "chains", args(), (64,), (16,))
    assert np.array_equal(got[0], want[0])


def test_a_copy_is_coalesced_into_its_source_only_where_nothing_reads_or_writes_it_between():
    from reconverge.backend.gen.mir import Imm, MFunction, MInstr, Operand
    from reconverge.backend.gen.mir_coalesce import coalesce_copies
    from reconverge.isa.gen9.model import Region
    f = MFunction("k", 16)
    b = f.block("entry")
    a, t1, t2, t3, t4, t5, t6, x, y, z, i = (f.vreg(DataType.D) for _ in range(11))
    one = Operand(Imm(1, DataType.D))
    b.append(MInstr("mov", 16, Operand(a), [Operand(Imm(3, DataType.D))]))
    b.append(MInstr("add", 16, Operand(t1), [Operand(a), one]))
    b.append(MInstr("mov", 16, Operand(x), [Operand(t1)]))                          # coalesced
    b.append(MInstr("add", 16, Operand(t2), [Operand(a), one]))
    b.append(MInstr("add", 16, Operand(a), [Operand(y), one]))                       # y read between
    b.append(MInstr("mov", 16, Operand(y), [Operand(t2)]))                          # kept
    b.append(MInstr("add", 16, Operand(t3), [Operand(z, region=Region(0, 1, 0)), one]))   # z broadcast
    b.append(MInstr("mov", 16, Operand(z), [Operand(t3)]))                          # kept
    b.append(MInstr("add", 16, Operand(t4), [Operand(a), one]))
    b.append(MInstr("mov", 16, Operand(x), [Operand(t4)], predicate=(0, 0, False)))  # predicated: kept
    b.append(MInstr("add", 16, Operand(t5), [Operand(a), one], predicate=(0, 0, False)))
    b.append(MInstr("mov", 16, Operand(y), [Operand(t5)]))                          # writer predicated: kept
    b.append(MInstr("add", 16, Operand(t6), [Operand(i), one]))                     # i = i + 1 ...
    b.append(MInstr("cmp", 16, None, [Operand(t6), one], cond_mod="lt", flag=(0, 0)))   # ... read as i
    b.append(MInstr("mov", 16, Operand(i), [Operand(t6)]))                          # coalesced
    assert coalesce_copies(f) == 2
    assert [i.opcode for i in b.instrs] == ["mov", "add", "add", "add", "mov", "add", "mov", "add", "mov",
                                            "add", "mov", "add", "cmp"]
    assert b.instrs[1].dst.value == x
    assert b.instrs[-2].dst.value == i and b.instrs[-1].srcs[0].value.id == i.id


def test_a_copy_of_a_conversions_bits_keeps_the_conversion_when_coalesced():
    """`mov t:f = i:d` (sitofp) then `mov x:d = t:d` (the phi's copy of the bitcast): the writer takes x
    as it wrote t, x:f, still converting (fuzz seed 19651, goto mode: every Gen mode at -O2 stored the
    integer's bits, the writer retyped to x:d). An integer writer of the other signedness takes x's type
    (the same bits), as before."""
    from reconverge.backend.gen.mir import Imm, MFunction, MInstr, Operand, VReg
    from reconverge.backend.gen.mir_coalesce import coalesce_copies
    f = MFunction("k", 16)
    b = f.block("entry")
    i, x, t, y, u = f.vreg(DataType.D), f.vreg(DataType.D), f.vreg(DataType.F), f.vreg(DataType.D), f.vreg(DataType.UD)
    b.append(MInstr("mov", 16, Operand(t), [Operand(i)]))
    b.append(MInstr("mov", 16, Operand(x), [Operand(VReg(t.id, DataType.D))]))
    b.append(MInstr("shr", 16, Operand(u), [Operand(VReg(i.id, DataType.UD)), Operand(Imm(1, DataType.UD))]))
    b.append(MInstr("mov", 16, Operand(y), [Operand(VReg(u.id, DataType.D))]))
    assert coalesce_copies(f) == 2
    [conversion, shift] = b.instrs
    assert conversion.dst.value == VReg(x.id, DataType.F) and conversion.srcs[0].value == i
    assert shift.dst.value == y


@pytest.mark.parametrize("simd, cf", [(8, "structured"), (16, "blockip")])
def test_an_int_to_float_conversion_read_as_bits_in_a_phi_agrees_with_the_reference(program, simd, cf):
    code = _code(program, "converted_bits", simd, cf)
    assert any(i.opcode == "mov" and i.dst.type == DataType.F and i.srcs[0].type == DataType.D for i in code), code
    data = np.random.default_rng(11).integers(-50, 50, 64).astype(np.int32)
    args = lambda: [np.zeros(64, np.uint32), data.copy()]                         # noqa: E731
    got = run_target("gen", program, "converted_bits", args(), (64,), (16,), GenRunOptions(simd, cf))
    want = run_target("llvm", program, "converted_bits", args(), (64,), (16,))
    assert np.array_equal(got[0], want[0])


def test_an_if_chains_phis_share_a_register_so_else_arms_copy_nothing():
    """The structurized switch of control_flow.cl's switch_machine: each case's if merges values that only
    the next merge reads; the merge's phi takes the else value's register, so the else arm copies nothing
    and has no else (7 else arms and 112 instructions before; IGC 66). It agrees with the CPU reference."""
    import os
    path = os.path.join(os.path.dirname(__file__), "..", "..", "examples", "bench", "control_flow.cl")
    program = load_program(path, "-O2")
    code = _code(program, "switch_machine", 16, "structured")
    assert [i.opcode for i in code].count("else") <= 3, code
    assert len(code) <= 96
    data = np.random.default_rng(7).integers(0, 8, 96).astype(np.int32)
    args = lambda: [np.zeros(64, np.int32), data.copy()]                     # noqa: E731
    got = run_target("gen", program, "switch_machine", args(), (64,), (16,), GenRunOptions(16, "structured"))
    want = run_target("llvm", program, "switch_machine", args(), (64,), (16,))
    assert np.array_equal(got[0], want[0])
