; The CFG of Beignet's unstructured_branches document: one -> four and two -> five jump over blocks
; that other lanes still need (three, four), and four -> two goes back. Per lane d (its data value):
; x = 0, cnt = 0, lim = d & 3; one: d >= 20 ? four : two; two: x += 10, cnt++, d >= 40 ? five : three;
; three: x += 100; four: x += 1000, cnt < lim ? two : five; five: y = x + cnt.
declare spir_func i64 @_Z13get_global_idj(i32)

define spir_kernel void @beignet_doc(ptr addrspace(1) %data, ptr addrspace(1) %xs, ptr addrspace(1) %ys) {
one:
  %g = call spir_func i64 @_Z13get_global_idj(i32 0)
  %dp = getelementptr inbounds i32, ptr addrspace(1) %data, i64 %g
  %d = load i32, ptr addrspace(1) %dp, align 4
  %lim = and i32 %d, 3
  %far = icmp sge i32 %d, 20
  br i1 %far, label %four, label %two

two:
  %x2 = phi i32 [ 0, %one ], [ %x4b, %four ]
  %c2 = phi i32 [ 0, %one ], [ %c4, %four ]
  %x2b = add i32 %x2, 10
  %c2b = add i32 %c2, 1
  %farther = icmp sge i32 %d, 40
  br i1 %farther, label %five, label %three

three:
  %x3b = add i32 %x2b, 100
  br label %four

four:
  %x4 = phi i32 [ 0, %one ], [ %x3b, %three ]
  %c4 = phi i32 [ 0, %one ], [ %c2b, %three ]
  %x4b = add i32 %x4, 1000
  %back = icmp slt i32 %c4, %lim
  br i1 %back, label %two, label %five

five:
  %x = phi i32 [ %x2b, %two ], [ %x4b, %four ]
  %c = phi i32 [ %c2b, %two ], [ %c4, %four ]
  %y = add i32 %x, %c
  %xp = getelementptr inbounds i32, ptr addrspace(1) %xs, i64 %g
  store i32 %x, ptr addrspace(1) %xp, align 4
  %yp = getelementptr inbounds i32, ptr addrspace(1) %ys, i64 %g
  store i32 %y, ptr addrspace(1) %yp, align 4
  ret void
}
