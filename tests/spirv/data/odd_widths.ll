target datalayout = "e-m:e-p270:32:32-p271:32:32-p272:64:64-i64:64-i128:128-f80:128-n8:16:32:64-S128"
target triple = "x86_64-unknown-linux-gnu"
declare i48 @llvm.ctlz.i48(i48, i1)
declare i48 @llvm.cttz.i48(i48, i1)
declare i48 @llvm.bitreverse.i48(i48)
declare i64 @_Z13get_global_idj(i32)
define spir_kernel void @odd(ptr addrspace(1) %in, ptr addrspace(1) %out) {
entry:
  %gid = call i64 @_Z13get_global_idj(i32 0)
  %pi = getelementptr i64, ptr addrspace(1) %in, i64 %gid
  %x = load i64, ptr addrspace(1) %pi
  %t = trunc i64 %x to i48
  %c = call i48 @llvm.ctlz.i48(i48 %t, i1 false)
  %z = call i48 @llvm.cttz.i48(i48 %t, i1 false)
  %r = call i48 @llvm.bitreverse.i48(i48 %t)
  %t24 = trunc i64 %x to i24
  %a24 = ashr i24 %t24, 3
  %s24 = sext i24 %a24 to i64
  %c64 = zext i48 %c to i64
  %z64 = zext i48 %z to i64
  %r64 = zext i48 %r to i64
  %o = getelementptr i64, ptr addrspace(1) %out, i64 %gid
  %o0 = mul i64 %gid, 4
  %p0 = getelementptr i64, ptr addrspace(1) %out, i64 %o0
  store i64 %c64, ptr addrspace(1) %p0
  %p1 = getelementptr i64, ptr addrspace(1) %p0, i64 1
  store i64 %z64, ptr addrspace(1) %p1
  %p2 = getelementptr i64, ptr addrspace(1) %p0, i64 2
  store i64 %r64, ptr addrspace(1) %p2
  %p3 = getelementptr i64, ptr addrspace(1) %p0, i64 3
  store i64 %s24, ptr addrspace(1) %p3
  ret void
}
