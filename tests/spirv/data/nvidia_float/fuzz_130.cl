// From the first GPU replay (issue 21): genfuzz seed 130, -O2. NVIDIA 580 (H200) differed from the CPU
// reference after OpSRem was fixed: {"out": "[6] np.uint32(1303866976) != np.uint32(1303866977) (17 lanes)"}
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
  uint u0 = in[(gid * 1u + 0u) & 255u];
  uint u1 = in[(gid * 3u + 5u) & 255u];
  uint u2 = in[(gid * 5u + 10u) & 255u];
  uint u3 = in[(gid * 7u + 15u) & 255u];
  uint u4 = in[(gid * 9u + 20u) & 255u];
  uint u5 = in[(gid * 11u + 25u) & 255u];
  float f0 = (float)(int)(in[(gid + 1u) & 255u] & 0xFFFu) * 0.25f;
  float f1 = (float)(int)(in[(gid + 4u) & 255u] & 0xFFFu) * 0.5f;
  u3 += (uint)(((ulong)((136u + u5) - (uint)((int)u1 >> (in[(gid + 28u) & 255u] & 31u))) + (ulong)(uint)((int)(in[(gid + 23u) & 255u] + lid) < (int)u3) * 3ul) >> 26);
  f1 = fc(f1 / fnz(fc(fc((float)(int)(in[(gid + 37u) & 255u] & 0xFFFu) / fnz(((float)((int)u2 >> 12) * 0.125f))) * 0.1f)));
  atomic_inc(&cnt[3]);
  if (((int)1u < -4)) {
    f1 = fc(f1 * f0);
    if (((((u2 / (u1 | 1u)) ^ (u5 & u0)) & 8u) != 0u)) {
      {
        uint g1 = 0u;
        while (g1++ < 3u && (((u5 + u3) & 8u) != 0u)) {
          u1 = in[(((in[(gid + 14u) & 255u] & u2) % (((((u2 & 4u) != 0u) ? u3 : (uint)g1) & 15u) + 1u))) & 255u];
          u0 |= (((u0 * u1) + u4) / ((u4 % ((8u & 15u) + 1u)) | 1u));
        }
      }
      uint fl2 = 0u;
      for (uint i3 = 0u; i3 < (((((16u + u0) + u2) + u5)) & 3u); i3++) {
        for (uint j4 = 0u; j4 < ((u4) & 3u); j4++) {
          u2 = ((uint)(((ulong)(u1 >> (6u & 31u)) + (ulong)n * 3ul) >> 8) & (u2 & (u4 + u5)));
          if (!((uint)(int)f1 == u1)) { fl2 = 1u; break; }
          u1 |= (15u % (((u4 / ((u2 + u2) | 1u)) & 15u) + 1u));
          if ((((uint)((uint)i3 > 1u) >= (uint)(u4 > u5)) || ((u2 += 9u) > 3u))) continue;
        }
        if (fl2 != 0u) continue;
      }
      u4 += fl2;
      for (int i5 = (int)3u; i5 >= 0; i5--) {
        u0 += in[(((u2 * u4) + 15u)) & 255u];
      }
    }
  } else {
  }
  barrier(CLK_LOCAL_MEM_FENCE);
  lm[lid] = (((u3 + in[(gid + 38u) & 255u]) / ((in[(gid + 36u) & 255u] - in[(gid + 4u) & 255u]) | 1u)) & (uint)(int)fc(f0 - (float)(int)(0x16cd637cu & 0xFFFu)));
  barrier(CLK_LOCAL_MEM_FENCE);
  u3 ^= lm[((((uint)(u5 <= grp) * (lid / (5u | 1u))) + u5)) % 64u];
  u5 += lm[(lid + 45u) % 64u];
  out[gid] = ((((((((((((((u0) * 0x01000193u ^ u1)) * 0x01000193u ^ u2)) * 0x01000193u ^ u3)) * 0x01000193u ^ u4)) * 0x01000193u ^ u5)) * 0x01000193u ^ as_uint(f0))) * 0x01000193u ^ as_uint(f1));
}
