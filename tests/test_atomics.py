"""OpenCL atomics on every target: lanes of several work-groups contend on the same addresses, and the
results (checked against numpy) only hold if each operation is atomic. The interpreter is atomic by
construction (items interleave only at barriers), the JIT uses real atomic instructions on threads,
SPIR-V uses OpAtomic* on lavapipe, Gen untyped atomic messages in the simulator."""
import numpy as np
import pytest

from reconverge.lowering.errors import CompileError
from reconverge.tools.targets.harness import compare, load_program, run_target

KERNEL = """
kernel void contend(global uint *bins, global const uint *keys, global int *counter, global int *lo,
                    global int *hi, global atomic_int *fetched, global uint *bits, global float *last) {
    local uint mine[8];
    int lid = get_local_id(0), gid = get_global_id(0);
    if (lid < 8) mine[lid] = 0;
    barrier(CLK_LOCAL_MEM_FENCE);
    uint k = keys[gid];
    atomic_inc(&mine[k % 8]);
    atomic_add(counter, 2);
    atomic_sub(counter, 1);
    atomic_min(lo, (int)k - 500);
    atomic_max(hi, (int)k);
    atomic_fetch_add_explicit(fetched, 3, memory_order_relaxed, memory_scope_device);
    atomic_or(&bits[k % 2], 1u << (k % 32));
    atomic_cmpxchg(&bits[2], 0u, 0u);                   /* compares, never changes: 0 stays 0 */
    atomic_inc(&bits[2]);
    if (k == 7u) atomic_xchg(last, 1.5f);
    barrier(CLK_LOCAL_MEM_FENCE);
    if (lid < 8) atomic_add(&bins[lid], mine[lid]);
}
"""


def make_args(n):
    keys = np.random.default_rng(11).integers(0, 1000, n).astype(np.uint32)
    keys[5] = 7
    return [np.zeros(8, np.uint32), keys, np.zeros(1, np.int32), np.array([1 << 30], np.int32),
            np.array([-1], np.int32), np.zeros(1, np.int32), np.zeros(3, np.uint32), np.zeros(1, np.float32)]


def expected(args, n):
    keys = args[1]
    bits = np.zeros(3, np.uint32)
    for parity in (0, 1):
        for k in keys[keys % 2 == parity]:
            bits[parity] |= np.uint32(1) << np.uint32(k % 32)
    bits[2] = n
    return [np.bincount(keys % 8, minlength=8).astype(np.uint32), keys, np.array([n], np.int32),
            np.array([int(keys.min()) - 500], np.int32), np.array([int(keys.max())], np.int32),
            np.array([3 * n], np.int32), bits, np.array([1.5], np.float32)]


NAMES = ["bins", "keys", "counter", "lo", "hi", "fetched", "bits", "last"]


@pytest.mark.parametrize("level", ["-O0", "-O2"])
@pytest.mark.parametrize("target", ["llvm", "ir", "spirv", "gen"])
def test_contended_atomics_are_exact(tmp_path, target, level):
    path = tmp_path / "contend.cl"
    path.write_text(KERNEL)
    program = load_program(str(path), level)
    n = 256
    args = make_args(n)
    got = run_target(target, program, "contend", args, n, 64)
    assert compare(expected(args, n), got, NAMES, labels=("numpy", target)) == []


def test_the_spirv_module_uses_atomic_instructions(tmp_path):
    from reconverge.backend.spirv import compile_spirv
    from reconverge.backend.spirv.tools import disassemble, validate
    path = tmp_path / "contend.cl"
    path.write_text(KERNEL)
    binary = compile_spirv([load_program(str(path), "-O2").function("contend")])
    validate(binary, "vulkan1.3", "contend")
    text = disassemble(binary)
    for needle in ("OpAtomicIIncrement", "OpAtomicIAdd", "OpAtomicSMin", "OpAtomicSMax", "OpAtomicOr",
                   "OpAtomicCompareExchange", "OpAtomicExchange"):
        assert needle in text, needle


@pytest.mark.parametrize("target", ["llvm", "ir", "spirv", "gen"])
def test_64_bit_atomics_on_global_and_local_memory(tmp_path, target):
    """Gen9's untyped atomic messages are 32-bit (and SLM has no 64-bit atomics): a one-line refusal."""
    path = tmp_path / "wide.cl"
    path.write_text("""#pragma OPENCL EXTENSION cl_khr_int64_base_atomics : enable
kernel void k(global long *c, global long *m) {
    local long part[1];
    if (get_local_id(0) == 0) part[0] = 0;
    barrier(CLK_LOCAL_MEM_FENCE);
    atom_add(&part[0], (long)get_global_id(0) << 33);
    atom_max(m, (long)get_global_id(0) << 40);
    barrier(CLK_LOCAL_MEM_FENCE);
    if (get_local_id(0) == 0) atom_add(c, part[0]);
}
""")
    program = load_program(str(path), "-O2")
    if target == "gen":
        with pytest.raises(CompileError, match=r"@k: block b?\d+: atomic: an atomic add on i64"):
            run_target(target, program, "k", [np.zeros(1, np.int64), np.zeros(1, np.int64)], 64, 16)
        return
    got = run_target(target, program, "k", [np.zeros(1, np.int64), np.zeros(1, np.int64)], 64, 16)
    assert got[0].tolist() == [sum(range(64)) << 33] and got[1].tolist() == [63 << 40]


CAS_LOOP = """
kernel void cas(global uint *c) {
    uint seen = c[0], want;
    do { want = seen + 1u; } while ((seen = atomic_cmpxchg(c, seen, want)) != want - 1u);
}
"""
# lavapipe lost updates here (lanes of one SIMD group leave the loop at different iterations) while the
# atomics carried acquire-release semantics; relaxed ones in lavapipe launches fix it (backend.spirv.launch)


@pytest.mark.parametrize("target", ["llvm", "ir", "spirv"])
def test_a_compare_exchange_retry_loop(tmp_path, target):
    path = tmp_path / "cas.cl"
    path.write_text(CAS_LOOP)
    program = load_program(str(path), "-O2")
    assert run_target(target, program, "cas", [np.zeros(1, np.uint32)], 256, 64)[0].tolist() == [256]


LLVM_ATOMICS = """
define spir_kernel void @atom(ptr addrspace(1) %out) {
entry:
  %old = atomicrmw add ptr addrspace(1) %out, i32 1 seq_cst, align 4
  %hi = getelementptr i32, ptr addrspace(1) %out, i64 1
  %m = atomicrmw umax ptr addrspace(1) %hi, i32 %old seq_cst, align 4
  %pair = cmpxchg ptr addrspace(1) %out, i32 1000, i32 7 seq_cst seq_cst, align 4
  %ok = extractvalue { i32, i1 } %pair, 1
  %v = load atomic i32, ptr addrspace(1) %out seq_cst, align 4
  %slot = getelementptr i32, ptr addrspace(1) %out, i64 2
  %z = zext i1 %ok to i32
  %s = add i32 %z, %v
  store atomic i32 %s, ptr addrspace(1) %slot seq_cst, align 4
  ret void
}
"""


@pytest.mark.parametrize("target", ["llvm", "ir", "spirv", "gen"])
def test_llvm_atomic_instructions(target):
    """atomicrmw, cmpxchg (its {old, success} pair), load atomic and store atomic in .ll input."""
    from reconverge.tools.targets.harness import program_from_llvm
    program = program_from_llvm(LLVM_ATOMICS, "atomics.ll")
    out = run_target(target, program, "atom", [np.zeros(3, np.int32)], 64, 16)[0]
    assert out[0] == 64 and out[1] == 63 and out[2] >= 1
