// Every id HLSL gives a compute shader, groupshared memory across a barrier, and the wave queries that read
// other lanes in uniform control flow. Buffers in two descriptor sets, one without a register (its binding
// is the backend's: the smallest free one of its set).
StructuredBuffer<float> Scale : register(t0, space1);
RWStructuredBuffer<uint> Ids;
RWStructuredBuffer<float> Result : register(u2);
groupshared uint Shared[32];

[numthreads(4, 4, 2)]
void main(uint3 dtid : SV_DispatchThreadID, uint3 gid : SV_GroupID, uint3 gtid : SV_GroupThreadID,
          uint gi : SV_GroupIndex) {
  uint row = gid.x * 32 + gi;
  Shared[gi] = dtid.x * 100 + dtid.y * 10 + dtid.z;
  GroupMemoryBarrierWithGroupSync();
  uint4 ballot = WaveActiveBallot((gi & 1) == 0);
  Ids[row * 4 + 0] = Shared[31 - gi];
  Ids[row * 4 + 1] = WaveReadLaneAt(gi, 1) + (WaveIsFirstLane() ? 1000 : 0) + (WaveActiveAllTrue(gi < 40) ? 2000 : 0);
  Ids[row * 4 + 2] = ballot.x + WaveGetLaneIndex() * 65536;
  Ids[row * 4 + 3] = WaveGetLaneCount() * 10000 + gtid.x + gtid.y * 4 + gtid.z * 16;
  float s = Scale[row];
  uint3 spread = WaveActiveSum(uint3(gi, gtid.y, 1));      // a vector reduction: one per component
  Result[row] = WaveActiveSum(s) + WaveActiveMax(s) * 1000 + (float)(spread.x + spread.y * 256 + spread.z * 65536);
}
