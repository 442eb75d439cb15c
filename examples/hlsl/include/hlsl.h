// The HLSL names reconverge's example shaders use, for clang-22's HLSL front end.
//
// Debian's clang-22 has the HLSL front end but not its header (hlsl.h, which -finclude-default-header
// includes), so this small one stands in for it: it declares the scalar and vector type names and the
// wave and barrier functions as aliases of clang's __builtin_hlsl_* built-ins. Resource types
// (RWStructuredBuffer, StructuredBuffer) and their operator[] are built into clang's HLSL support.
// Compile with (examples/hlsl/README in the top-level README, "HLSL/Vulkan LLVM IR input"):
//   clang-22 -cc1 -triple spirv-unknown-vulkan1.3-compute -x hlsl -finclude-default-header
//            -I examples/hlsl/include -hlsl-entry main -emit-llvm -O2 -o shader.ll shader.hlsl
#pragma once

typedef unsigned int uint;
typedef vector<uint, 2> uint2;
typedef vector<uint, 3> uint3;
typedef vector<uint, 4> uint4;
typedef vector<int, 2> int2;
typedef vector<int, 3> int3;
typedef vector<int, 4> int4;
typedef vector<float, 2> float2;
typedef vector<float, 3> float3;
typedef vector<float, 4> float4;

#define RECONVERGE_WAVE_ALIAS(builtin) [[clang::builtin_alias(builtin)]]

// Shader Model 6.0 wave intrinsics, one overload per element type the examples use
RECONVERGE_WAVE_ALIAS(__builtin_hlsl_wave_get_lane_index) uint WaveGetLaneIndex();
RECONVERGE_WAVE_ALIAS(__builtin_hlsl_wave_get_lane_count) uint WaveGetLaneCount();
RECONVERGE_WAVE_ALIAS(__builtin_hlsl_wave_is_first_lane) bool WaveIsFirstLane();
RECONVERGE_WAVE_ALIAS(__builtin_hlsl_wave_active_any_true) bool WaveActiveAnyTrue(bool);
RECONVERGE_WAVE_ALIAS(__builtin_hlsl_wave_active_all_true) bool WaveActiveAllTrue(bool);
RECONVERGE_WAVE_ALIAS(__builtin_hlsl_wave_active_count_bits) uint WaveActiveCountBits(bool);
RECONVERGE_WAVE_ALIAS(__builtin_hlsl_wave_active_ballot) uint4 WaveActiveBallot(bool);

RECONVERGE_WAVE_ALIAS(__builtin_hlsl_wave_active_sum) uint WaveActiveSum(uint);
RECONVERGE_WAVE_ALIAS(__builtin_hlsl_wave_active_sum) int WaveActiveSum(int);
RECONVERGE_WAVE_ALIAS(__builtin_hlsl_wave_active_sum) float WaveActiveSum(float);
RECONVERGE_WAVE_ALIAS(__builtin_hlsl_wave_active_max) uint WaveActiveMax(uint);
RECONVERGE_WAVE_ALIAS(__builtin_hlsl_wave_active_max) int WaveActiveMax(int);
RECONVERGE_WAVE_ALIAS(__builtin_hlsl_wave_active_max) float WaveActiveMax(float);
RECONVERGE_WAVE_ALIAS(__builtin_hlsl_wave_active_min) uint WaveActiveMin(uint);
RECONVERGE_WAVE_ALIAS(__builtin_hlsl_wave_active_min) int WaveActiveMin(int);
RECONVERGE_WAVE_ALIAS(__builtin_hlsl_wave_active_min) float WaveActiveMin(float);
RECONVERGE_WAVE_ALIAS(__builtin_hlsl_wave_read_lane_at) uint WaveReadLaneAt(uint, uint);
RECONVERGE_WAVE_ALIAS(__builtin_hlsl_wave_read_lane_at) int WaveReadLaneAt(int, uint);
RECONVERGE_WAVE_ALIAS(__builtin_hlsl_wave_read_lane_at) float WaveReadLaneAt(float, uint);
RECONVERGE_WAVE_ALIAS(__builtin_hlsl_wave_active_sum) uint3 WaveActiveSum(uint3);

// groupshared memory barrier and work-group execution barrier
RECONVERGE_WAVE_ALIAS(__builtin_hlsl_group_memory_barrier_with_group_sync) void GroupMemoryBarrierWithGroupSync();
