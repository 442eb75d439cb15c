// From the first GPU replay (issue 21): genfuzz seed 41, -O2. NVIDIA 580 (H200) differed from the CPU
// reference after OpSRem was fixed: {"out": "[32] np.uint32(1586972586) != np.uint32(1145488797) (4 lanes)"}
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
  uint u0 = in[(gid * 1u + 0u) & 255u];
  uint u1 = in[(gid * 3u + 5u) & 255u];
  uint u2 = in[(gid * 5u + 10u) & 255u];
  uint u3 = in[(gid * 7u + 15u) & 255u];
  uint u4 = in[(gid * 9u + 20u) & 255u];
  uint u5 = in[(gid * 11u + 25u) & 255u];
  float f0 = (float)(int)(in[(gid + 1u) & 255u] & 0xFFFu) * 0.5f;
  float f1 = (float)(int)(in[(gid + 4u) & 255u] & 0xFFFu) * 0.25f;
  uint pa[8];
  for (uint t = 0u; t < 8u; t++) pa[t] = u0 + t * u1;
  float pf[4];
  for (uint t = 0u; t < 4u; t++) pf[t] = (float)(int)(t + (u0 & 15u));
  atomic_add(&cnt[0], ((uint)((int)u3 / (int)((4u & 7u) + 1u))) & 255u);
  {
    uint g1 = 0u;
    while (g1++ < 2u && (u0 > ((u1 + 15u) + in[(gid + 14u) & 255u]))) {
      if (((((u0 + 4u) + in[(gid + 2u) & 255u]) % 2u) == 0u)) break;
    }
  }
  f0 = fc(f0 - fc(fc(f1 / fnz((float)((in[(gid + 5u) & 255u]) & 0xFFFFu))) * f0));
  for (uint r2 = 0u; r2 < 2u; r2++) {
    barrier(CLK_GLOBAL_MEM_FENCE);
    uint fl3 = 0u;
    for (uint i4 = 0u; i4 < 3u; i4++) {
      for (uint j5 = 0u; j5 < 0u; j5++) {
        if ((((uint)(u4 > u1) & 8u) != 0u)) break;
        switch (((pa[((uint)(int)((float)((int)in[(gid + 1u) & 255u] >> 12) * 0.125f)) & 7u] % ((lid & 15u) + 1u))) % 7u) {
        case 2u:
        case 0u: {
          if (((gid & 4u) == 2u)) {
            u5 ^= (pa[((uint)(u3 > u3)) & 7u] + u3);
            if ((!(0xd1289b36u >= (uint)j5) && ((u4 += 7u) > 0x528c039bu))) continue;
          }
          break;
        }
        case 3u:
        case 6u:
        case 4u: {
          break;
        }
        default: {
        }
        }
        if ((in[(gid + 39u) & 255u] < ((uint)(((ulong)u2 + (ulong)501u * 3ul) >> 5) + 194u))) { fl3 = 1u; break; }
      }
      if (fl3 != 0u) break;
    }
    u3 += fl3;
  }
  {
    uint g6 = 0u;
    do {
      {
        uint g7 = 0u;
        while (g7++ < 2u && (!((uint)g6 >= u5) && (((int)in[(gid + 5u) & 255u] < -41) || ((u3 <= u0) || (u2 == in[(gid + 12u) & 255u]))))) {
          uint fl8 = 0u;
          for (uint i9 = 0u; i9 < 0u; i9++) {
            u2 |= (uint)(int)(float)((in[(u1) & 255u]) & 0xFFFFu);
            for (uint j10 = 0u; j10 < ((((((n & 16u) != 0u) || !((u5 & 16u) != 0u)) ? ((lid == 10u) ? (uint)(in[(gid + 1u) & 255u] == (uint)g6) : (uint)(char)(u2)) : u2)) & 3u); j10++) {
              if ((0.0f <= fc(fc(((float)((int)0xba80650du >> 12) * 0.125f) * 1.0f) * fc(100.0f * f0)))) { fl8 = 1u; break; }
            }
            if (fl8 != 0u) continue;
          }
          u3 += fl8;
        }
      }
    } while (g6++ < 2u && !((u4 >= u4) && !(2u > 9u)));
  }
  out[gid] = ((((((((((((((((((((u0) * 0x01000193u ^ u1)) * 0x01000193u ^ u2)) * 0x01000193u ^ u3)) * 0x01000193u ^ u4)) * 0x01000193u ^ u5)) * 0x01000193u ^ as_uint(f0))) * 0x01000193u ^ as_uint(f1))) * 0x01000193u ^ pa[0])) * 0x01000193u ^ pa[5])) * 0x01000193u ^ as_uint(pf[1]));
}
