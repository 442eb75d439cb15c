// From the first GPU replay (issue 21): genfuzz seed 163, -O2. NVIDIA 580 (H200) differed from the CPU
// reference after OpSRem was fixed: {"out": "[5] np.uint32(3377517515) != np.uint32(4018367677) (2 lanes)"}
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
  uint u4 = in[(gid * 9u + 20u) & 255u];
  uint u5 = in[(gid * 11u + 25u) & 255u];
  float f0 = (float)(int)(in[(gid + 1u) & 255u] & 0xFFFu) * 0.25f;
  float f1 = (float)(int)(in[(gid + 4u) & 255u] & 0xFFFu) * 1.0f;
  float f2 = (float)(int)(in[(gid + 7u) & 255u] & 0xFFFu) * 0.5f;
  uint pa[8];
  for (uint t = 0u; t < 8u; t++) pa[t] = u0 + t * u1;
  for (uint r1 = 0u; r1 < (n % 3u) + 1u; r1++) {
    barrier(CLK_LOCAL_MEM_FENCE);
    if (lid == 0u) lc = 0u;
    barrier(CLK_LOCAL_MEM_FENCE);
    if (((int)(uint)r1 < -30)) atomic_add(&lc, (((uint)(char)((uint)(ushort)(u4)) << ((uint)(int)fc(f0 + f2) & 31u))) & 255u);
    barrier(CLK_LOCAL_MEM_FENCE);
    u0 ^= lc;
    if (((u1 % 4u) == 0u)) {
      f1 = fc(f1 * (((in[(gid + 2u) & 255u] % 5u) == 0u) ? fc(fc(f1 / fnz(f0)) / fnz(fc(f0 * 0.1f))) : fc(fc(f1 * f2) / fnz(f1))));
      uint fl2 = 0u;
      for (uint i3 = 0u; i3 < (n & 3u); i3++) {
        uint fl5 = 0u;
        for (uint i6 = 0u; i6 < ((in[((uint)(int)((float)((int)u2 >> 12) * 0.125f)) & 255u]) & 1u); i6++) {
          if (((gid & 1u) == 2u)) continue;
          f1 = fc(f1 + fc(0.1f - (((u1 != n) && (u3 == u1)) ? fc(f2 + (float)(int)(in[(gid + 26u) & 255u] & 0xFFFu)) : fc(((float)((int)(uint)i3 >> 12) * 0.125f) * 1.5f))));
          for (uint j7 = 0u; j7 < (((!(lid < 7u) ? n : u1)) & 1u); j7++) {
            if ((f1 == f1)) { fl5 = 1u; break; }
          }
          if (fl5 != 0u) continue;
        }
        u1 += fl5;
        for (uint j4 = 0u; j4 < ((((((uint)r1 % (((uint)r1 & 15u) + 1u)) ^ (0x4644c0f7u << ((uint)r1 & 31u))) / ((u4 - (uint)(int)((float)((int)13u >> 12) * 0.125f)) | 1u))) & 1u); j4++) {
          if ((((uint)(int)(float)(int)(u0 & 0xFFFu) >> (clz(u0) & 31u)) < u0)) { fl2 = 1u; break; }
        }
        if (fl2 != 0u) break;
      }
      u1 += fl2;
    } else {
    }
  }
  barrier(CLK_LOCAL_MEM_FENCE);
  if (lid == 0u) lc = 0u;
  barrier(CLK_LOCAL_MEM_FENCE);
  if (!!(((9u & 2u) != 0u) && ((u0 += 3u) > 0u))) atomic_add(&lc, (in[((uint)((int)(uint)((int)u4 < (int)4u) >> (u2 & 31u))) & 255u]) & 255u);
  barrier(CLK_LOCAL_MEM_FENCE);
  u3 ^= lc;
  out[gid] = ((((((((((((((((((((u0) * 0x01000193u ^ u1)) * 0x01000193u ^ u2)) * 0x01000193u ^ u3)) * 0x01000193u ^ u4)) * 0x01000193u ^ u5)) * 0x01000193u ^ as_uint(f0))) * 0x01000193u ^ as_uint(f1))) * 0x01000193u ^ as_uint(f2))) * 0x01000193u ^ pa[0])) * 0x01000193u ^ pa[5]);
}
