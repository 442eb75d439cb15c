"""Issue 20, item 4: what the Gen backend refused while the other targets ran it: `freeze` on i1 (a copy of
the 0 / -1 lanes), `trunc` to i1 (bit 0 as 0 / -1; `reconverge fuzz --seed 3097 --mode atomic`), and loads and stores aligned to less than their size (1 or 2 bytes for a 2-, 4- or
8-byte value: one byte scattered message per aligned piece, PRM vol. 7), private and global, against
the CPU JIT in SIMD8 and SIMD16 and in each control-flow mode."""
from __future__ import annotations

import numpy as np
import pytest

from reconverge.tools.targets.harness import GenRunOptions, compare, load_program, program_from_llvm, run_target

KERNELS = """declare spir_func i64 @_Z13get_global_idj(i32)

define spir_kernel void @unaligned(ptr addrspace(1) %in, ptr addrspace(1) %out) {
entry:
  %g64 = call spir_func i64 @_Z13get_global_idj(i32 0)
  %ip = getelementptr inbounds i32, ptr addrspace(1) %in, i64 %g64
  %x = load i32, ptr addrspace(1) %ip, align 4
  %ib = getelementptr inbounds i8, ptr addrspace(1) %ip, i64 1
  %xu = load i32, ptr addrspace(1) %ib, align 1
  %buf = alloca [32 x i8], align 4
  store i64 0, ptr %buf, align 4
  %z8 = getelementptr inbounds i8, ptr %buf, i64 8
  store i64 0, ptr %z8, align 4
  %z16 = getelementptr inbounds i8, ptr %buf, i64 16
  store i64 0, ptr %z16, align 4
  %z24 = getelementptr inbounds i8, ptr %buf, i64 24
  store i64 0, ptr %z24, align 4
  %p1 = getelementptr inbounds i8, ptr %buf, i64 1
  store i32 %x, ptr %p1, align 1
  %x64 = sext i32 %xu to i64
  %y64 = mul i64 %x64, 2654435761
  %p7 = getelementptr inbounds i8, ptr %buf, i64 7
  store i64 %y64, ptr %p7, align 1
  %xf = sitofp i32 %x to float
  %p14 = getelementptr inbounds i8, ptr %buf, i64 14
  store float %xf, ptr %p14, align 2
  %x16 = trunc i32 %xu to i16
  %p19 = getelementptr inbounds i8, ptr %buf, i64 19
  store i16 %x16, ptr %p19, align 1
  %xs = and i32 %x, 1023
  %xsf = sitofp i32 %xs to float
  %xh = fptrunc float %xsf to half
  %p30 = getelementptr inbounds i8, ptr %buf, i64 29
  store half %xh, ptr %p30, align 1
  %p22 = getelementptr inbounds i8, ptr %buf, i64 22
  store i64 %y64, ptr %p22, align 2
  %p3 = getelementptr inbounds i8, ptr %buf, i64 3
  %a = load i32, ptr %p3, align 1
  %p5 = getelementptr inbounds i8, ptr %buf, i64 5
  %b = load i64, ptr %p5, align 1
  %f = load float, ptr %p14, align 2
  %h = load i16, ptr %p19, align 1
  %g7 = and i64 %g64, 7
  %pv = getelementptr inbounds i8, ptr %buf, i64 %g7
  %v = load i32, ptr %pv, align 1
  %q = load i64, ptr %p22, align 2
  %hl = load half, ptr %p30, align 1
  %hi = fptosi half %hl to i32
  %neg = icmp slt i32 %x, 0
  %sel = select i1 %neg, i32 %a, i32 %v
  %fb = fptosi float %f to i32
  %hz = zext i16 %h to i32
  %bl = trunc i64 %b to i32
  %bs = lshr i64 %b, 32
  %bh = trunc i64 %bs to i32
  %ql = trunc i64 %q to i32
  %r1 = xor i32 %sel, %fb
  %r2 = xor i32 %r1, %hz
  %r3 = add i32 %r2, %bl
  %r4 = xor i32 %r3, %bh
  %r4b = add i32 %r4, %ql
  %r5 = xor i32 %r4b, %hi
  %op = getelementptr inbounds i32, ptr addrspace(1) %out, i64 %g64
  store i32 %r5, ptr addrspace(1) %op, align 4
  ret void
}

define spir_kernel void @freeze_i1(ptr addrspace(1) %in, ptr addrspace(1) %out) {
entry:
  %g64 = call spir_func i64 @_Z13get_global_idj(i32 0)
  %ip = getelementptr inbounds i32, ptr addrspace(1) %in, i64 %g64
  %x = load i32, ptr addrspace(1) %ip, align 4
  %neg = icmp slt i32 %x, 0
  %fr = freeze i1 %neg
  %o1 = and i32 %x, 1
  %odd = icmp ne i32 %o1, 0
  %fo = freeze i1 %odd
  %both = and i1 %fr, %fo
  %sel = select i1 %fr, i32 %x, i32 7
  br i1 %both, label %more, label %done
more:
  %m = mul i32 %sel, 3
  br label %done
done:
  %r = phi i32 [ %sel, %entry ], [ %m, %more ]
  %z = zext i1 %fo to i32
  %s = sext i1 %fr to i32
  %rz = add i32 %r, %z
  %rs = xor i32 %rz, %s
  %op = getelementptr inbounds i32, ptr addrspace(1) %out, i64 %g64
  store i32 %rs, ptr addrspace(1) %op, align 4
  ret void
}

define spir_kernel void @trunc_i1(ptr addrspace(1) %in, ptr addrspace(1) %out) {
entry:
  %g64 = call spir_func i64 @_Z13get_global_idj(i32 0)
  %ip = getelementptr inbounds i32, ptr addrspace(1) %in, i64 %g64
  %x = load i32, ptr addrspace(1) %ip, align 4
  %t32 = trunc i32 %x to i1
  %x64 = sext i32 %x to i64
  %s64 = lshr i64 %x64, 33
  %t64 = trunc i64 %s64 to i1
  %x8 = trunc i32 %x to i8
  %s8 = lshr i8 %x8, 2
  %t8 = trunc i8 %s8 to i1
  %a = select i1 %t32, i32 %x, i32 11
  %b = select i1 %t64, i32 %a, i32 -5
  %both = and i1 %t8, %t32
  br i1 %both, label %more, label %done
more:
  %m = mul i32 %b, 3
  br label %done
done:
  %r = phi i32 [ %b, %entry ], [ %m, %more ]
  %z = zext i1 %t8 to i32
  %s = sext i1 %t64 to i32
  %rz = add i32 %r, %z
  %rs = xor i32 %rz, %s
  %op = getelementptr inbounds i32, ptr addrspace(1) %out, i64 %g64
  store i32 %rs, ptr addrspace(1) %op, align 4
  ret void
}
"""

MEMCPY = """
kernel void unaligned_private(global const int *in, global int *out) {
  int gid = get_global_id(0);
  char buf[16];
  for (int i = 0; i < 16; i++) buf[i] = (char)(in[gid] + i * 7);
  int v, w;
  __builtin_memcpy(&v, buf + (gid & 3) + 1, 4);      /* clang: a 4-byte load aligned to 1 */
  __builtin_memcpy(buf + 5 + (gid & 7), &v, 4);
  __builtin_memcpy(&w, buf + 3, 4);
  out[gid] = v ^ w;
}
"""


def _agrees(program, kernel: str, cf: str) -> None:
    inp = np.random.default_rng(20).integers(-100000, 100000, 33).astype(np.int32)
    reference = run_target("llvm", program, kernel, [inp.copy(), np.zeros(32, np.int32)], (32,), (16,))
    for simd in (8, 16):
        got = run_target("gen", program, kernel, [inp.copy(), np.zeros(32, np.int32)], (32,), (16,), GenRunOptions(simd, cf))
        assert compare(reference, got, ["in", "out"], labels=("llvm", "gen")) == [], f"{kernel} SIMD{simd} {cf}"


@pytest.mark.parametrize("cf", ["structured", "blockip"])
@pytest.mark.parametrize("kernel", ["freeze_i1", "trunc_i1", "unaligned"])
def test_freeze_of_bools_and_unaligned_accesses_agree_with_the_jit(kernel, cf):
    _agrees(program_from_llvm(KERNELS, "item4.ll"), kernel, cf)


@pytest.mark.parametrize("level", ["-O0", "-O2"])
def test_clangs_unaligned_memcpy_on_a_private_array_agrees_with_the_jit(tmp_path, level):
    path = tmp_path / "memcpy.cl"
    path.write_text(MEMCPY)
    _agrees(load_program(str(path), level), "unaligned_private", "auto")
