; Convergence tokens decide which lanes meet (tests/test_convergence_tokens.py). Each kernel comes in
; versions with one CFG and different tokens on its sub-group operation after the loop:
; - the waterfall loop of seed 001 as clang -O2 leaves it (the reduction moved to the loop's exit block):
;   with a token from the loop (its heart, or an anchor in it) the reduction runs in the iteration in which
;   a lane leaves, over the lanes that share its value; with the kernel's entry token it runs after the
;   loop, over every lane of the sub-group;
; - a counted loop that each lane leaves at trip (id % 3): a ballot in the exit block gives the lanes that
;   leave in the same iteration (loop heart) or every lane (entry).
target datalayout = "e-i64:64-v16:16-v24:32-v32:32-v48:64-v96:128-v192:256-v256:256-v512:512-v1024:1024-G1"
target triple = "spir64"

define spir_kernel void @waterfall_heart(ptr addrspace(1) %out, ptr addrspace(1) %in) #0 {
entry:
  %e = call token @llvm.experimental.convergence.entry()
  %i = call spir_func i64 @_Z13get_global_idj(i32 0)
  %src = getelementptr inbounds i32, ptr addrspace(1) %in, i64 %i
  %v = load i32, ptr addrspace(1) %src, align 4
  br label %loop

loop:
  %l = call token @llvm.experimental.convergence.loop() [ "convergencectrl"(token %e) ]
  %first = call spir_func i32 @_Z25sub_group_broadcast_firsti(i32 %v) [ "convergencectrl"(token %l) ]
  %same = icmp eq i32 %v, %first
  br i1 %same, label %exit, label %loop

exit:
  %sum = call spir_func i32 @_Z20sub_group_reduce_addi(i32 %v) [ "convergencectrl"(token %l) ]
  %dst = getelementptr inbounds i32, ptr addrspace(1) %out, i64 %i
  store i32 %sum, ptr addrspace(1) %dst, align 4
  ret void
}

define spir_kernel void @waterfall_anchor(ptr addrspace(1) %out, ptr addrspace(1) %in) #0 {
entry:
  %e = call token @llvm.experimental.convergence.entry()
  %i = call spir_func i64 @_Z13get_global_idj(i32 0)
  %src = getelementptr inbounds i32, ptr addrspace(1) %in, i64 %i
  %v = load i32, ptr addrspace(1) %src, align 4
  br label %loop

loop:
  %l = call token @llvm.experimental.convergence.anchor()
  %first = call spir_func i32 @_Z25sub_group_broadcast_firsti(i32 %v) [ "convergencectrl"(token %l) ]
  %same = icmp eq i32 %v, %first
  br i1 %same, label %exit, label %loop

exit:
  %sum = call spir_func i32 @_Z20sub_group_reduce_addi(i32 %v) [ "convergencectrl"(token %l) ]
  %dst = getelementptr inbounds i32, ptr addrspace(1) %out, i64 %i
  store i32 %sum, ptr addrspace(1) %dst, align 4
  ret void
}

define spir_kernel void @waterfall_entry(ptr addrspace(1) %out, ptr addrspace(1) %in) #0 {
entry:
  %e = call token @llvm.experimental.convergence.entry()
  %i = call spir_func i64 @_Z13get_global_idj(i32 0)
  %src = getelementptr inbounds i32, ptr addrspace(1) %in, i64 %i
  %v = load i32, ptr addrspace(1) %src, align 4
  br label %loop

loop:
  %l = call token @llvm.experimental.convergence.loop() [ "convergencectrl"(token %e) ]
  %first = call spir_func i32 @_Z25sub_group_broadcast_firsti(i32 %v) [ "convergencectrl"(token %l) ]
  %same = icmp eq i32 %v, %first
  br i1 %same, label %exit, label %loop

exit:
  %sum = call spir_func i32 @_Z20sub_group_reduce_addi(i32 %v) [ "convergencectrl"(token %e) ]
  %dst = getelementptr inbounds i32, ptr addrspace(1) %out, i64 %i
  store i32 %sum, ptr addrspace(1) %dst, align 4
  ret void
}

define spir_kernel void @trips_heart(ptr addrspace(1) %out) #0 {
entry:
  %e = call token @llvm.experimental.convergence.entry()
  %i = call spir_func i64 @_Z13get_global_idj(i32 0)
  %i32 = trunc i64 %i to i32
  %r = urem i32 %i32, 3
  br label %loop

loop:
  %k = phi i32 [ 0, %entry ], [ %k1, %next ]
  %l = call token @llvm.experimental.convergence.loop() [ "convergencectrl"(token %e) ]
  %hit = icmp eq i32 %k, %r
  br i1 %hit, label %exit, label %next

next:
  %k1 = add i32 %k, 1
  br label %loop

exit:
  %m = call spir_func <4 x i32> @_Z16sub_group_balloti(i32 1) [ "convergencectrl"(token %l) ]
  %m0 = extractelement <4 x i32> %m, i32 0
  %dst = getelementptr inbounds i32, ptr addrspace(1) %out, i64 %i
  store i32 %m0, ptr addrspace(1) %dst, align 4
  ret void
}

define spir_kernel void @trips_entry(ptr addrspace(1) %out) #0 {
entry:
  %e = call token @llvm.experimental.convergence.entry()
  %i = call spir_func i64 @_Z13get_global_idj(i32 0)
  %i32 = trunc i64 %i to i32
  %r = urem i32 %i32, 3
  br label %loop

loop:
  %k = phi i32 [ 0, %entry ], [ %k1, %next ]
  %l = call token @llvm.experimental.convergence.loop() [ "convergencectrl"(token %e) ]
  %hit = icmp eq i32 %k, %r
  br i1 %hit, label %exit, label %next

next:
  %k1 = add i32 %k, 1
  br label %loop

exit:
  %m = call spir_func <4 x i32> @_Z16sub_group_balloti(i32 1) [ "convergencectrl"(token %e) ]
  %m0 = extractelement <4 x i32> %m, i32 0
  %dst = getelementptr inbounds i32, ptr addrspace(1) %out, i64 %i
  store i32 %m0, ptr addrspace(1) %dst, align 4
  ret void
}

declare token @llvm.experimental.convergence.entry() #1
declare token @llvm.experimental.convergence.anchor() #1
declare token @llvm.experimental.convergence.loop() #1
declare spir_func i64 @_Z13get_global_idj(i32) #2
declare spir_func i32 @_Z25sub_group_broadcast_firsti(i32) #0
declare spir_func i32 @_Z20sub_group_reduce_addi(i32) #0
declare spir_func <4 x i32> @_Z16sub_group_balloti(i32) #0

attributes #0 = { convergent nounwind }
attributes #1 = { convergent nocallback nofree nosync nounwind willreturn memory(none) }
attributes #2 = { nounwind willreturn memory(none) }
