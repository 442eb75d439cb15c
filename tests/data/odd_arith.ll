target datalayout = "e-m:e-p270:32:32-p271:32:32-p272:64:64-i64:64-i128:128-f80:128-n8:16:32:64-S128"
target triple = "x86_64-unknown-linux-gnu"
declare i64 @_Z13get_global_idj(i32)
declare i24 @llvm.smin.i24(i24, i24)
declare i24 @llvm.umax.i24(i24, i24)
declare i24 @llvm.abs.i24(i24, i1)
declare i48 @llvm.ctpop.i48(i48)
declare i48 @llvm.ctlz.i48(i48, i1)
declare i12 @llvm.cttz.i12(i12, i1)

; Odd widths in arithmetic, division, shifts, compares, min/max, bit counts, casts, phis and selects,
; 16 i64 results per lane (the JIT takes no odd-width argument: tests/spirv/test_spirv_edges.py has one).
define spir_kernel void @odd(ptr addrspace(1) %in, ptr addrspace(1) %out, i32 %kk) {
entry:
  %gid = call i64 @_Z13get_global_idj(i32 0)
  %k = trunc i32 %kk to i24
  %pi = getelementptr i64, ptr addrspace(1) %in, i64 %gid
  %x = load i64, ptr addrspace(1) %pi
  %y64 = lshr i64 %x, 17
  %a = trunc i64 %x to i24
  %b = trunc i64 %y64 to i24
  %add = add i24 %a, %b
  %mul = mul i24 %a, %k
  %shl = shl i24 %a, 5
  %ashr = ashr i24 %a, 3
  %bnz = or i24 %b, 1
  %sdiv = sdiv i24 %a, %bnz
  %srem = srem i24 %a, %bnz
  %udiv = udiv i24 %a, %bnz
  %slt = icmp slt i24 %a, %b
  %ugt = icmp ugt i24 %a, %k
  %sel = select i1 %slt, i24 %add, i24 %mul
  %smin = call i24 @llvm.smin.i24(i24 %a, i24 %k)
  %umax = call i24 @llvm.umax.i24(i24 %a, i24 %b)
  %abs = call i24 @llvm.abs.i24(i24 %a, i1 false)
  %w = trunc i64 %x to i48
  %pc = call i48 @llvm.ctpop.i48(i48 %w)
  %lz = call i48 @llvm.ctlz.i48(i48 %w, i1 false)
  %n12 = trunc i64 %y64 to i12
  %tz = call i12 @llvm.cttz.i12(i12 %n12, i1 false)
  %f = sitofp i24 %a to double
  %fi = fptosi double %f to i24
  %neg = sub i24 0, %a
  br i1 %ugt, label %then, label %join
then:
  %t2 = xor i24 %neg, 77
  br label %join
join:
  %phi = phi i24 [ %t2, %then ], [ %sdiv, %entry ]
  %e0 = sext i24 %add to i64
  %e1 = sext i24 %mul to i64
  %e2 = zext i24 %shl to i64
  %e3 = sext i24 %ashr to i64
  %e4 = sext i24 %sdiv to i64
  %e5 = sext i24 %srem to i64
  %e6 = zext i24 %udiv to i64
  %e7 = sext i24 %sel to i64
  %e8 = sext i24 %smin to i64
  %e9 = zext i24 %umax to i64
  %e10 = zext i24 %abs to i64
  %e11 = zext i48 %pc to i64
  %e12 = zext i48 %lz to i64
  %e13 = zext i12 %tz to i64
  %e14 = sext i24 %fi to i64
  %e15 = sext i24 %phi to i64
  %base = mul i64 %gid, 16
  %o0 = getelementptr i64, ptr addrspace(1) %out, i64 %base
  store i64 %e0, ptr addrspace(1) %o0
  %o1 = getelementptr i64, ptr addrspace(1) %o0, i64 1
  store i64 %e1, ptr addrspace(1) %o1
  %o2 = getelementptr i64, ptr addrspace(1) %o0, i64 2
  store i64 %e2, ptr addrspace(1) %o2
  %o3 = getelementptr i64, ptr addrspace(1) %o0, i64 3
  store i64 %e3, ptr addrspace(1) %o3
  %o4 = getelementptr i64, ptr addrspace(1) %o0, i64 4
  store i64 %e4, ptr addrspace(1) %o4
  %o5 = getelementptr i64, ptr addrspace(1) %o0, i64 5
  store i64 %e5, ptr addrspace(1) %o5
  %o6 = getelementptr i64, ptr addrspace(1) %o0, i64 6
  store i64 %e6, ptr addrspace(1) %o6
  %o7 = getelementptr i64, ptr addrspace(1) %o0, i64 7
  store i64 %e7, ptr addrspace(1) %o7
  %o8 = getelementptr i64, ptr addrspace(1) %o0, i64 8
  store i64 %e8, ptr addrspace(1) %o8
  %o9 = getelementptr i64, ptr addrspace(1) %o0, i64 9
  store i64 %e9, ptr addrspace(1) %o9
  %o10 = getelementptr i64, ptr addrspace(1) %o0, i64 10
  store i64 %e10, ptr addrspace(1) %o10
  %o11 = getelementptr i64, ptr addrspace(1) %o0, i64 11
  store i64 %e11, ptr addrspace(1) %o11
  %o12 = getelementptr i64, ptr addrspace(1) %o0, i64 12
  store i64 %e12, ptr addrspace(1) %o12
  %o13 = getelementptr i64, ptr addrspace(1) %o0, i64 13
  store i64 %e13, ptr addrspace(1) %o13
  %o14 = getelementptr i64, ptr addrspace(1) %o0, i64 14
  store i64 %e14, ptr addrspace(1) %o14
  %o15 = getelementptr i64, ptr addrspace(1) %o0, i64 15
  store i64 %e15, ptr addrspace(1) %o15
  ret void
}
