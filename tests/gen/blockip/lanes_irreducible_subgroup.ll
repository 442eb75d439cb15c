; Two entries into the B <-> C cycle (A -> B or C, by the parity of the lane's data d): an irreducible
; CFG. x = 1, cnt = 0, lim = (d >> 1) & 7; B: x = 3x + 1, cnt++, cnt >= lim ? D : C; C: x += 5, cnt++,
; cnt < lim ? B : D; D: y = x + cnt. Here C also adds a sub-group reduction of cnt, whose lanes the cycle's
; two entries leave undefined: SPIR-V refuses it (an IrreducibleCFG), Gen's blockIP runs it.
declare spir_func i64 @_Z13get_global_idj(i32)
declare spir_func i32 @_Z20sub_group_reduce_addj(i32) convergent

define spir_kernel void @irreducible(ptr addrspace(1) %data, ptr addrspace(1) %xs, ptr addrspace(1) %ys) {
A:
  %g = call spir_func i64 @_Z13get_global_idj(i32 0)
  %dp = getelementptr inbounds i32, ptr addrspace(1) %data, i64 %g
  %d = load i32, ptr addrspace(1) %dp, align 4
  %h = lshr i32 %d, 1
  %lim = and i32 %h, 7
  %odd = and i32 %d, 1
  %toc = icmp ne i32 %odd, 0
  br i1 %toc, label %C, label %B

B:
  %xb = phi i32 [ 1, %A ], [ %xc2, %C ]
  %cb = phi i32 [ 0, %A ], [ %cc2, %C ]
  %xb1 = mul i32 %xb, 3
  %xb2 = add i32 %xb1, 1
  %cb2 = add i32 %cb, 1
  %doneb = icmp sge i32 %cb2, %lim
  br i1 %doneb, label %D, label %C

C:
  %xc = phi i32 [ 1, %A ], [ %xb2, %B ]
  %cc = phi i32 [ 0, %A ], [ %cb2, %B ]
  %sum = call spir_func i32 @_Z20sub_group_reduce_addj(i32 %cc) convergent
  %xc1 = add i32 %xc, %sum
  %xc2 = add i32 %xc1, 5
  %cc2 = add i32 %cc, 1
  %again = icmp slt i32 %cc2, %lim
  br i1 %again, label %B, label %D

D:
  %x = phi i32 [ %xb2, %B ], [ %xc2, %C ]
  %c = phi i32 [ %cb2, %B ], [ %cc2, %C ]
  %y = add i32 %x, %c
  %xp = getelementptr inbounds i32, ptr addrspace(1) %xs, i64 %g
  store i32 %x, ptr addrspace(1) %xp, align 4
  %yp = getelementptr inbounds i32, ptr addrspace(1) %ys, i64 %g
  store i32 %y, ptr addrspace(1) %yp, align 4
  ret void
}
