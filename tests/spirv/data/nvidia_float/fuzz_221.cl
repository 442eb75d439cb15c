// From the first GPU replay (issue 21): genfuzz seed 221, -O2. NVIDIA 580 (H200) differed from the CPU
// reference after OpSRem was fixed: {"out": "[2] np.uint32(1937197781) != np.uint32(1189879830) (2 lanes)"}
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
  uint u3 = in[(gid * 7u + 15u) & 255u];
  float f0 = (float)(int)(in[(gid + 1u) & 255u] & 0xFFFu) * 0.25f;
  float f1 = (float)(int)(in[(gid + 4u) & 255u] & 0xFFFu) * 1.0f;
  uint pa[8];
  for (uint t = 0u; t < 8u; t++) pa[t] = u0 + t * u1;
  float pf[4];
  for (uint t = 0u; t < 4u; t++) pf[t] = (float)(int)(t + (u0 & 15u));
  if (((lid ^ (u3 + in[(gid + 16u) & 255u])) > (uint)((int)u1 >> (0xeb7dd753u & 31u)))) {
    if (((((n ^ in[(gid + 14u) & 255u]) - (uint)(int)f0) & 32u) != 0u)) {
      f1 = fc(((float)((int)u0 >> 12) * 0.125f) * fc(f1 / fnz(0.1f)));
      pa[(u3) & 7u] ^= (uint)(int)((float)((int)u0 >> 12) * 0.125f);
    } else if ((fc(pf[(u2) & 3u] - fc((float)(int)(u3 & 0xFFFu) * f1)) > fc(f1 * 3.0f))) {
      atomic_max(&cnt[1], in[(gid + 29u) & 255u]);
    } else {
    }
  }
  barrier(CLK_LOCAL_MEM_FENCE);
  if (lid == 0u) lc = 0u;
  barrier(CLK_LOCAL_MEM_FENCE);
  if (((uint)(((ulong)(uint)(((ulong)9u * (ulong)gid) >> 32) + (ulong)403u * 3ul) >> 31) >= 16u)) atomic_add(&lc, (15u) & 255u);
  barrier(CLK_LOCAL_MEM_FENCE);
  u2 ^= lc;
  {
    uint g1 = 0u;
    do {
      u3 *= u3;
      for (uint i2 = 0u; i2 < (n & 3u); i2++) {
        if (!(((823u % ((u3 & 15u) + 1u)) & 32u) != 0u)) break;
      }
      atomic_or(&cnt[2], 1u << ((pa[(u2) & 7u]) & 31u));
    } while (g1++ < 4u && ((gid & 2u) == 2u));
  }
  barrier(CLK_LOCAL_MEM_FENCE);
  if (lid == 0u) lc = 0u;
  barrier(CLK_LOCAL_MEM_FENCE);
  if (((gid & 3u) == 0u)) atomic_add(&lc, ((uint)(((ulong)u0 + (ulong)(in[(u1) & 255u] - 667u) * 3ul) >> 8)) & 255u);
  barrier(CLK_LOCAL_MEM_FENCE);
  u2 ^= lc;
  out[gid] = ((((((((((((((((u0) * 0x01000193u ^ u1)) * 0x01000193u ^ u2)) * 0x01000193u ^ u3)) * 0x01000193u ^ as_uint(f0))) * 0x01000193u ^ as_uint(f1))) * 0x01000193u ^ pa[0])) * 0x01000193u ^ pa[5])) * 0x01000193u ^ as_uint(pf[1]));
}
