; A memmove of a run-time length (0 to 21 bytes: not whole words) one word up within a private array: the
; destination above the source, so mem_loops.py copies from the last byte down (test_reader_ll.py).
target datalayout = "e-i64:64-v16:16-v24:32-v32:32-v48:64-v96:128-v192:256-v256:256-v512:512-v1024:1024-n8:16:32:64-G1"
target triple = "spir64"
declare i64 @_Z13get_global_idj(i32)
declare void @llvm.memmove.p0.p0.i64(ptr, ptr, i64, i1)
define spir_kernel void @k(ptr addrspace(1) %out, ptr addrspace(1) %in, i32 %n) {
entry:
  %a = alloca [8 x i32], align 4
  %gid = call i64 @_Z13get_global_idj(i32 0)
  br label %fill
fill:
  %i = phi i64 [ 0, %entry ], [ %i1, %fill ]
  %base = mul i64 %gid, 8
  %src.i = add i64 %base, %i
  %sp = getelementptr inbounds i32, ptr addrspace(1) %in, i64 %src.i
  %v = load i32, ptr addrspace(1) %sp, align 4
  %dp = getelementptr inbounds i32, ptr %a, i64 %i
  store i32 %v, ptr %dp, align 4
  %i1 = add i64 %i, 1
  %more = icmp ult i64 %i1, 8
  br i1 %more, label %fill, label %move
move:
  %g32 = trunc i64 %gid to i32
  %k = add i32 %g32, %n
  %k7 = and i32 %k, 7
  %bytes = mul i32 %k7, 3
  %len = zext i32 %bytes to i64
  %a4 = getelementptr inbounds i8, ptr %a, i64 4
  call void @llvm.memmove.p0.p0.i64(ptr align 4 %a4, ptr align 4 %a, i64 %len, i1 false)
  br label %outl
outl:
  %j = phi i64 [ 0, %move ], [ %j1, %outl ]
  %rp = getelementptr inbounds i32, ptr %a, i64 %j
  %r = load i32, ptr %rp, align 4
  %oi = add i64 %base, %j
  %op = getelementptr inbounds i32, ptr addrspace(1) %out, i64 %oi
  store i32 %r, ptr addrspace(1) %op, align 4
  %j1 = add i64 %j, 1
  %more2 = icmp ult i64 %j1, 8
  br i1 %more2, label %outl, label %done
done:
  ret void
}
