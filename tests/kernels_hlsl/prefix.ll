; Written by hand in the shape clang-22's HLSL front end gives a compute shader (-triple
; spirv-unknown-vulkan1.3-compute -O2), for the wave intrinsics clang-22 itself does not emit yet
; (WavePrefixSum, WavePrefixProduct, WavePrefixCountBits, and the lane index as an intrinsic):
;   Out[4i]   = WavePrefixSum(In[i])        Out[4i+1] = WavePrefixProduct(In[i] & 3 | 1)
;   Out[4i+2] = WavePrefixCountBits(In[i] > 4)
;   Out[4i+3] = WaveGetLaneIndex() + (WaveIsFirstLane() ? 100 : 0) + 1000 * WaveActiveBallot(In[i] & 1).x
target datalayout = "e-i64:64-v16:16-v24:32-v32:32-v48:64-v96:128-v192:256-v256:256-v512:512-v1024:1024-n8:16:32:64-G10"
target triple = "spirv-unknown-vulkan1.3-compute"

@.str = private unnamed_addr constant [3 x i8] c"In\00", align 1
@.str.1 = private unnamed_addr constant [4 x i8] c"Out\00", align 1

define void @main() #0 {
entry:
  %t = call token @llvm.experimental.convergence.entry()
  %in = call target("spirv.VulkanBuffer", [0 x i32], 12, 0) @llvm.spv.resource.handlefrombinding.tspirv.VulkanBuffer_a0i32_12_0t(i32 0, i32 0, i32 1, i32 0, ptr @.str)
  %out = call target("spirv.VulkanBuffer", [0 x i32], 12, 1) @llvm.spv.resource.handlefrombinding.tspirv.VulkanBuffer_a0i32_12_1t(i32 0, i32 1, i32 1, i32 0, ptr @.str.1)
  %i = call i32 @llvm.spv.thread.id.i32(i32 0)
  %pin = call ptr addrspace(11) @llvm.spv.resource.getpointer.p11.tspirv.VulkanBuffer_a0i32_12_0t(target("spirv.VulkanBuffer", [0 x i32], 12, 0) %in, i32 %i)
  %x = load i32, ptr addrspace(11) %pin, align 4
  %sum = call i32 @llvm.spv.wave.prefix.sum.i32(i32 %x) [ "convergencectrl"(token %t) ]
  %low = and i32 %x, 3
  %odd = or i32 %low, 1
  %product = call i32 @llvm.spv.wave.prefix.product.i32(i32 %odd) [ "convergencectrl"(token %t) ]
  %big = icmp ugt i32 %x, 4
  %count = call i32 @llvm.spv.subgroup.prefix.bit.count(i1 %big) [ "convergencectrl"(token %t) ]
  %lane = call i32 @llvm.spv.wave.get.lane.index() [ "convergencectrl"(token %t) ]
  %first = call i1 @llvm.spv.wave.is.first.lane() [ "convergencectrl"(token %t) ]
  %bonus = select i1 %first, i32 100, i32 0
  %bit = trunc i32 %x to i1
  %ballot = call <4 x i32> @llvm.spv.wave.ballot(i1 %bit) [ "convergencectrl"(token %t) ]
  %word = extractelement <4 x i32> %ballot, i64 0
  %w1000 = mul i32 %word, 1000
  %l1 = add i32 %lane, %bonus
  %l2 = add i32 %l1, %w1000
  %base = shl i32 %i, 2
  %o0 = call ptr addrspace(11) @llvm.spv.resource.getpointer.p11.tspirv.VulkanBuffer_a0i32_12_1t(target("spirv.VulkanBuffer", [0 x i32], 12, 1) %out, i32 %base)
  store i32 %sum, ptr addrspace(11) %o0, align 4
  %b1 = or i32 %base, 1
  %o1 = call ptr addrspace(11) @llvm.spv.resource.getpointer.p11.tspirv.VulkanBuffer_a0i32_12_1t(target("spirv.VulkanBuffer", [0 x i32], 12, 1) %out, i32 %b1)
  store i32 %product, ptr addrspace(11) %o1, align 4
  %b2 = or i32 %base, 2
  %o2 = call ptr addrspace(11) @llvm.spv.resource.getpointer.p11.tspirv.VulkanBuffer_a0i32_12_1t(target("spirv.VulkanBuffer", [0 x i32], 12, 1) %out, i32 %b2)
  store i32 %count, ptr addrspace(11) %o2, align 4
  %b3 = or i32 %base, 3
  %o3 = call ptr addrspace(11) @llvm.spv.resource.getpointer.p11.tspirv.VulkanBuffer_a0i32_12_1t(target("spirv.VulkanBuffer", [0 x i32], 12, 1) %out, i32 %b3)
  store i32 %l2, ptr addrspace(11) %o3, align 4
  ret void
}

declare token @llvm.experimental.convergence.entry() #1
declare i32 @llvm.spv.thread.id.i32(i32) #2
declare target("spirv.VulkanBuffer", [0 x i32], 12, 0) @llvm.spv.resource.handlefrombinding.tspirv.VulkanBuffer_a0i32_12_0t(i32, i32, i32, i32, ptr) #2
declare target("spirv.VulkanBuffer", [0 x i32], 12, 1) @llvm.spv.resource.handlefrombinding.tspirv.VulkanBuffer_a0i32_12_1t(i32, i32, i32, i32, ptr) #2
declare ptr addrspace(11) @llvm.spv.resource.getpointer.p11.tspirv.VulkanBuffer_a0i32_12_0t(target("spirv.VulkanBuffer", [0 x i32], 12, 0), i32) #2
declare ptr addrspace(11) @llvm.spv.resource.getpointer.p11.tspirv.VulkanBuffer_a0i32_12_1t(target("spirv.VulkanBuffer", [0 x i32], 12, 1), i32) #2
declare i32 @llvm.spv.wave.prefix.sum.i32(i32) #1
declare i32 @llvm.spv.wave.prefix.product.i32(i32) #1
declare i32 @llvm.spv.subgroup.prefix.bit.count(i1) #1
declare i32 @llvm.spv.wave.get.lane.index() #1
declare i1 @llvm.spv.wave.is.first.lane() #1
declare <4 x i32> @llvm.spv.wave.ballot(i1) #1

attributes #0 = { convergent norecurse nounwind "hlsl.numthreads"="16,1,1" "hlsl.shader"="compute" }
attributes #1 = { convergent nounwind }
attributes #2 = { nounwind willreturn memory(none) }
