// From the first GPU replay (issue 21): genfuzz seed 209, -O2. NVIDIA 580 (H200) differed from the CPU
// reference after OpSRem was fixed: {"out": "[71] np.uint32(3484288961) != np.uint32(3551399437) (2 lanes)"}
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
  __local uint lc;
  uint u0 = in[(gid * 1u + 0u) & 255u];
  uint u1 = in[(gid * 3u + 5u) & 255u];
  uint u2 = in[(gid * 5u + 10u) & 255u];
  float f0 = (float)(int)(in[(gid + 1u) & 255u] & 0xFFFu) * 0.5f;
  float pf[4];
  for (uint t = 0u; t < 4u; t++) pf[t] = (float)(int)(t + (u0 & 15u));
  switch (((uint)(uchar)((uint)((int)(3u + in[(gid + 8u) & 255u]) / (int)(((uint)(744u != u2) & 7u) + 1u)))) % 5u) {
  case 4u: {
    u0 *= (uint)(short)(gid);
    f0 = fc(fc(((65u == u0) ? ((float)((int)4u >> 12) * 0.125f) : 1.0f) / fnz(fc(f0 / fnz((float)(int)(1u & 0xFFFu))))) * 0.1f);
  }
  case 1u: {
    u2 -= u0;
    break;
  }
  case 3u: {
    break;
  }
  }
  atomic_inc(&cnt[3]);
  for (uint i1 = 0u; i1 < (((((u0 - u1) + 116u) >> (733u & 31u))) & 1u); i1++) {
    for (uint i2 = 0u; i2 < (((u2 + ((u1 + u0) + (uint)i1))) & 3u); i2++) {
      f0 = fc(f0 - fc(fc(fc(f0 + (float)(int)(in[(gid + 40u) & 255u] & 0xFFFu)) / fnz(((float)((int)u1 >> 12) * 0.125f))) / fnz(f0)));
    }
  }
  u0 ^= u1;
  if (((in[(u1) & 255u] | (u2 ^ u1)) == ((gid / (lid | 1u)) * u1))) {
    f0 = fc(f0 * f0);
  }
  u0 *= 2u;
  out[gid] = ((((((((u0) * 0x01000193u ^ u1)) * 0x01000193u ^ u2)) * 0x01000193u ^ as_uint(f0))) * 0x01000193u ^ as_uint(pf[1]));
}
