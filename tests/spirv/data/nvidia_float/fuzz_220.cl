// From the first GPU replay (issue 21): genfuzz seed 220, -O2. NVIDIA 580 (H200) differed from the CPU
// reference after OpSRem was fixed: {"out": "[32] np.uint32(1726659231) != np.uint32(2635220996) (3 lanes)"}
#pragma OPENCL FP_CONTRACT OFF
float fc(float v) {
  if (v != v) return 1.0f;
  if (v > 1.0e6f) return 1.0e6f;
  if (v < -1.0e6f) return -1.0e6f;
  if (v > -1.0e-6f && v < 1.0e-6f) return 0.0f;
  return v;
}
float fnz(float v) { return v >= 0.0f ? v + 1.0f : v - 1.0f; }

__kernel void k(__global const uint *in, __global uint *out, __global uint *cnt, uint n) {
  uint gid = (uint)get_global_id(0);
  uint lid = (uint)get_local_id(0);
  uint grp = (uint)get_group_id(0);
  __local uint lm[32];
  uint u0 = in[(gid * 1u + 0u) & 255u];
  uint u1 = in[(gid * 3u + 5u) & 255u];
  uint u2 = in[(gid * 5u + 10u) & 255u];
  uint u3 = in[(gid * 7u + 15u) & 255u];
  float f0 = (float)(int)(in[(gid + 1u) & 255u] & 0xFFFu) * 1.0f;
  float f1 = (float)(int)(in[(gid + 4u) & 255u] & 0xFFFu) * -0.125f;
  float f2 = (float)(int)(in[(gid + 7u) & 255u] & 0xFFFu) * 0.5f;
  uint pa[8];
  for (uint t = 0u; t < 8u; t++) pa[t] = u0 + t * u1;
  float pf[4];
  for (uint t = 0u; t < 4u; t++) pf[t] = (float)(int)(t + (u0 & 15u));
  pf[((((u1 / (grp | 1u)) + (3u + in[(gid + 4u) & 255u])) | (uint)(int)fc(f1 * -7.0f))) & 3u] = 0.333f;
  for (uint i1 = 0u; i1 < ((((uint)(((ulong)in[(u0) & 255u] * (ulong)(uint)(u2 <= lid)) >> 32) + u1)) & 3u); i1++) {
    f1 = fc(f1 * ((f1 != fc(((float)((int)gid >> 12) * 0.125f) / fnz(f0))) ? fc((float)(int)(u1 & 0xFFFu) * 1.0f) : f0));
    pf[(pa[(pa[(u0) & 7u]) & 7u]) & 3u] = (float)((u0) & 0xFFFFu);
  }
  f2 = fc(fc(fc(f1 * (float)(int)(8u & 0xFFFu)) - fc(((float)((int)u1 >> 12) * 0.125f) / fnz(f1))) * 1.0f);
  barrier(CLK_LOCAL_MEM_FENCE);
  lm[lid] = u3;
  barrier(CLK_LOCAL_MEM_FENCE);
  u2 ^= lm[((uint)(int)fc(f0 * pf[(u2) & 3u])) % 32u];
  u0 += lm[(lid + 12u) % 32u];
  out[gid] = ((((((((((((((((((u0) * 0x01000193u ^ u1)) * 0x01000193u ^ u2)) * 0x01000193u ^ u3)) * 0x01000193u ^ as_uint(f0))) * 0x01000193u ^ as_uint(f1))) * 0x01000193u ^ as_uint(f2))) * 0x01000193u ^ pa[0])) * 0x01000193u ^ pa[5])) * 0x01000193u ^ as_uint(pf[1]));
}
