// From the first GPU replay (issue 21): genfuzz seed 215, -O2. NVIDIA 580 (H200) differed from the CPU
// reference after OpSRem was fixed: {"out": "[22] np.uint32(474466497) != np.uint32(474466496) (1 lanes)"}
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
  __local uint lm[12];
  __local uint lc;
  uint u0 = in[(gid * 1u + 0u) & 255u];
  uint u1 = in[(gid * 3u + 5u) & 255u];
  uint u2 = in[(gid * 5u + 10u) & 255u];
  float f0 = (float)(int)(in[(gid + 1u) & 255u] & 0xFFFu) * 0.5f;
  float f1 = (float)(int)(in[(gid + 4u) & 255u] & 0xFFFu) * 1.0f;
  float f2 = (float)(int)(in[(gid + 7u) & 255u] & 0xFFFu) * 0.25f;
  float pf[4];
  for (uint t = 0u; t < 4u; t++) pf[t] = (float)(int)(t + (u0 & 15u));
  barrier(CLK_LOCAL_MEM_FENCE);
  lm[lid] = max(((lid > 5u) ? 7u : (in[(gid + 26u) & 255u] - u1)), 11u);
  barrier(CLK_LOCAL_MEM_FENCE);
  u2 ^= lm[(lm[(((u0 & 0xfbbe1a3fu) >> (u0 & 31u))) % (uint)get_local_size(0)]) % 12u];
  u1 += lm[(lid + 47u) % 12u];
  for (uint r1 = 0u; r1 < (n % 3u) + 1u; r1++) {
    barrier(CLK_LOCAL_MEM_FENCE);
    lm[lid] = ((uint)(uchar)((u0 + u2)) + (grp + 4u));
    barrier(CLK_LOCAL_MEM_FENCE);
    u0 ^= lm[(u0) % 12u];
    u1 += lm[(lid + 60u) % 12u];
    pf[(lm[(u0) % 12u]) & 3u] = fc(fc((float)((11u) & 0xFFFFu) + fc(-1.0f - f2)) / fnz(pf[((((u2 & 8u) != 0u) ? u1 : u0)) & 3u]));
  }
  atomic_max(&cnt[1], u0);
  {
    uint g2 = 0u;
    while (g2++ < 2u && (((lid | (2u % ((2u & 15u) + 1u))) & 32u) != 0u)) {
      if ((((uint)(char)(in[(gid + 18u) & 255u]) << ((16u << (lid & 31u)) & 31u)) <= ((uint)(int)((float)((int)in[(gid + 36u) & 255u] >> 12) * 0.125f) | (uint)(((ulong)u0 + (ulong)in[(gid + 35u) & 255u] * 3ul) >> 1)))) {
        u2 *= (uint)(((ulong)in[((u0 >> (0xc21e1543u & 31u))) & 255u] + (ulong)lm[(674u) % (uint)get_local_size(0)] * 3ul) >> 7);
        if (((gid & 1u) == 2u)) break;
      }
    }
  }
  {
    uint g3 = 0u;
    do {
      {
        uint g4 = 0u;
        do {
          u2 *= (uint)(int)(float)(((uint)(u1 < u2)) & 0xFFFFu);
          if (((lid == 0u) && ((u1 % 5u) == 0u))) {
            u1 *= (((uint)((int)u2 / (int)((in[(gid + 33u) & 255u] & 7u) + 1u)) <= min(u1, 554u)) ? u1 : u1);
          } else {
          }
        } while (g4++ < 4u && (lid > 10u));
      }
    } while (g3++ < 1u && (((uint)(((ulong)lm[(u0) % (uint)get_local_size(0)] + (ulong)u1 * 3ul) >> 21) % 5u) == 0u));
  }
  out[gid] = ((((((((((((u0) * 0x01000193u ^ u1)) * 0x01000193u ^ u2)) * 0x01000193u ^ as_uint(f0))) * 0x01000193u ^ as_uint(f1))) * 0x01000193u ^ as_uint(f2))) * 0x01000193u ^ as_uint(pf[1]));
}
