// From the first GPU replay (issue 21): genfuzz seed 32, -O2. NVIDIA 580 (H200) differed from the CPU
// reference after OpSRem was fixed: {"out": "[62] np.uint32(2188483074) != np.uint32(3798442974) (5 lanes)"}
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
  __local uint lm[64];
  __local uint lc;
  uint u0 = in[(gid * 1u + 0u) & 255u];
  uint u1 = in[(gid * 3u + 5u) & 255u];
  uint u2 = in[(gid * 5u + 10u) & 255u];
  float f0 = (float)(int)(in[(gid + 1u) & 255u] & 0xFFFu) * -0.125f;
  uint pa[8];
  for (uint t = 0u; t < 8u; t++) pa[t] = u0 + t * u1;
  barrier(CLK_LOCAL_MEM_FENCE);
  lm[lid] = pa[(((u1 % ((u2 & 15u) + 1u)) % ((u0 & 15u) + 1u))) & 7u];
  barrier(CLK_LOCAL_MEM_FENCE);
  u1 ^= lm[(u1) % 64u];
  u0 += lm[(lid + 21u) % 64u];
  barrier(CLK_LOCAL_MEM_FENCE);
  if (lid == 0u) lc = 0u;
  barrier(CLK_LOCAL_MEM_FENCE);
  if (((((uint)((int)grp >> (u1 & 31u)) / (0x4a11096fu | 1u)) % 5u) == 0u)) atomic_add(&lc, (pa[(u0) & 7u]) & 255u);
  barrier(CLK_LOCAL_MEM_FENCE);
  u2 ^= lc;
  uint fl1 = 0u;
  for (uint i2 = 0u; i2 < (n & 1u); i2++) {
    for (uint j3 = 0u; j3 < ((u2) & 1u); j3++) {
      f0 = fc(fc(f0 / fnz((float)(int)((uint)j3 & 0xFFFu))) / fnz(fc(fc(f0 + -1.0f) - (float)((u1) & 0xFFFFu))));
      if (!(max(u1, u2) > (u2 % ((11u & 15u) + 1u)))) { fl1 = 1u; break; }
      atomic_sub(&cnt[6], (u2) & 15u);
    }
    if (fl1 != 0u) break;
    if ((!(f0 <= ((float)((int)u0 >> 12) * 0.125f)) || (lid > 7u))) {
      {
        uint g4 = 0u;
        while (g4++ < 2u && ((((uint)i2 == u0) ? (uint)(uchar)(u0) : lm[(u0) % (uint)get_local_size(0)]) < u2)) {
          atomic_min(&cnt[5], (((u2 / (lid | 1u)) & (131u & u0)) - (uint)(((ulong)(u2 * 0x36cd144bu) + (ulong)(u0 + (uint)g4) * 3ul) >> 9)));
          u2 |= 1u;
          u2 = (u1 | (uint)(int)fc(0.333f - ((float)((int)u2 >> 12) * 0.125f)));
        }
      }
      f0 = fc(f0 - fc(fc(fc(1.5f * f0) - 10.0f) / fnz(-7.0f)));
    } else {
    }
  }
  u1 += fl1;
  barrier(CLK_LOCAL_MEM_FENCE);
  lm[lid] = ((max(2u, in[(gid + 34u) & 255u]) ^ in[(gid + 5u) & 255u]) ^ u2);
  barrier(CLK_LOCAL_MEM_FENCE);
  u2 ^= lm[(u1) % 64u];
  u2 += lm[(lid + 70u) % 64u];
  barrier(CLK_LOCAL_MEM_FENCE);
  if (lid == 0u) lc = 0u;
  barrier(CLK_LOCAL_MEM_FENCE);
  if (((0u & 1u) != 0u)) atomic_add(&lc, ((((((lid & 4u) != 0u) || (u1 >= u1)) ? (uint)(u0 >= gid) : (uint)((int)in[(gid + 21u) & 255u] < (int)u2)) / (u1 | 1u))) & 255u);
  barrier(CLK_LOCAL_MEM_FENCE);
  u0 ^= lc;
  out[gid] = ((((((((((u0) * 0x01000193u ^ u1)) * 0x01000193u ^ u2)) * 0x01000193u ^ as_uint(f0))) * 0x01000193u ^ pa[0])) * 0x01000193u ^ pa[5]);
}
