// From the first GPU replay (issue 21): genfuzz seed 155, -O2. NVIDIA 580 (H200) differed from the CPU
// reference after OpSRem was fixed: {"out": "[5] np.uint32(1015942885) != np.uint32(3801123150) (6 lanes)"}
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
  float f0 = (float)(int)(in[(gid + 1u) & 255u] & 0xFFFu) * 0.25f;
  float f1 = (float)(int)(in[(gid + 4u) & 255u] & 0xFFFu) * 0.5f;
  float f2 = (float)(int)(in[(gid + 7u) & 255u] & 0xFFFu) * 0.5f;
  for (uint r1 = 0u; r1 < (n & 3u); r1++) {
    barrier(CLK_GLOBAL_MEM_FENCE);
    for (uint i2 = 0u; i2 < ((((u2 % (((u3 + u0) & 15u) + 1u)) + ((u4 / ((uint)r1 | 1u)) + u2))) & 3u); i2++) {
      if (((f2 == 1.5f) && ((u4 += 9u) > 688u))) {
        uint fl3 = 0u;
        for (uint i4 = 0u; i4 < (((uint)(int)(float)((((uint)i2 + u1)) & 0xFFFFu)) & 1u); i4++) {
          if (((uint)(short)(u0) != ((((uint)i2 > u3) || (11u > gid)) ? (uint)((int)in[(gid + 13u) & 255u] / (int)((in[(gid + 23u) & 255u] & 7u) + 1u)) : (u2 << (0x4b2154b1u & 31u))))) continue;
          u2 += lid;
          for (uint j5 = 0u; j5 < ((((uint)r1 * in[((0xca0fd248u | n)) & 255u])) & 1u); j5++) {
            atomic_min(&cnt[5], (uint)(((ulong)(u0 + u0) * (ulong)(524u + u3)) >> 32));
            if ((((uint)((int)0xd1aa4973u % (int)((u3 & 7u) + 1u)) + u0) != ((uint)(int)0.5f / ((((2u & 16u) != 0u) ? u3 : u3) | 1u)))) { fl3 = 1u; break; }
          }
          if (fl3 != 0u) continue;
        }
        u2 += fl3;
      }
    }
  }
  f0 = fc(f0 - fc((((0u & 4u) != 0u) ? (float)((u4) & 0xFFFFu) : fc(100.0f / fnz(f2))) * -0.25f));
  {
    uint g6 = 0u;
    while (g6++ < 3u && ((gid & 7u) == 1u)) {
      for (uint i7 = 0u; i7 < 0u; i7++) {
        switch ((0xb0b488bdu) % 2u) {
        case 0u: {
          if (((int)u2 < -41)) continue;
          if (!(((12u & 4u) != 0u) || ((u1 += 9u) > 505u))) break;
          f1 = (float)(((((uint)i7 + in[(gid + 34u) & 255u]) | in[(u1) & 255u])) & 0xFFFFu);
        }
        case 1u: {
          u3 -= 6u;
          break;
        }
        }
      }
    }
  }
  out[gid] = ((((((((((((((u0) * 0x01000193u ^ u1)) * 0x01000193u ^ u2)) * 0x01000193u ^ u3)) * 0x01000193u ^ u4)) * 0x01000193u ^ as_uint(f0))) * 0x01000193u ^ as_uint(f1))) * 0x01000193u ^ as_uint(f2));
}
