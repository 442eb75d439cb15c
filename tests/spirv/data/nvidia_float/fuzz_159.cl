// From the first GPU replay (issue 21): genfuzz seed 159, -O2. NVIDIA 580 (H200) differed from the CPU
// reference after OpSRem was fixed: {"out": "[65] np.uint32(4228798884) != np.uint32(2165202525) (1 lanes)"}
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
  float f0 = (float)(int)(in[(gid + 1u) & 255u] & 0xFFFu) * -0.125f;
  float pf[4];
  for (uint t = 0u; t < 4u; t++) pf[t] = (float)(int)(t + (u0 & 15u));
  if ((lid < 12u)) { out[gid] = ((((((((((((((u0) * 0x01000193u ^ u1)) * 0x01000193u ^ u2)) * 0x01000193u ^ u3)) * 0x01000193u ^ u4)) * 0x01000193u ^ u5)) * 0x01000193u ^ as_uint(f0))) * 0x01000193u ^ as_uint(pf[1])); return; }
  if (((gid & 1u) == 0u)) {
    u1 *= 0x9818d3d4u;
    f0 = fc(f0 + fc(fc(fc(f0 * 0.0f) / fnz(fc(f0 * f0))) - f0));
  } else {
    atomic_min(&cnt[5], min(u4, u5));
    u3 += ((rotate(0x9287afccu, 0x08db35bcu) % ((u2 & 15u) + 1u)) % (((0xb1c06972u | u3) & 15u) + 1u));
    if (((14u <= (uint)(int)10.0f) || ((uint)(int)f0 < (in[(gid + 28u) & 255u] ^ 10u)))) {
      f0 = fc(f0 + fc(fc(fc(0.0f * 1.5f) + (float)((u0) & 0xFFFFu)) / fnz(fc(fc(f0 * -7.0f) * 10.0f))));
    }
  }
  if ((((min(u5, u1) & 8u) != 0u) && ((u2 += 4u) > 899u))) {
    {
      uint g1 = 0u;
      while (g1++ < 5u && ((f0 < f0) || (pf[(u2) & 3u] < fc(0.1f * -0.25f)))) {
        if ((((u1 * in[(gid + 10u) & 255u]) % (((u2 >> (u2 & 31u)) & 15u) + 1u)) >= (uint)((int)(uint)(((ulong)(uint)g1 * (ulong)u1) >> 32) < (int)(uint)(int)2.0f))) {
          f0 = ((float)((int)0x70df4cb1u >> 12) * 0.125f);
          if (((u1 & 16u) != 0u)) break;
          u5 *= ((popcount(u0) / (135u | 1u)) + 15u);
        } else {
          u2 *= (((6u << (u4 & 31u)) + in[(gid + 38u) & 255u]) + (uint)g1);
          u5 *= ((max(u0, in[(gid + 12u) & 255u]) * (((grp & 2u) != 0u) ? in[(gid + 28u) & 255u] : u5)) + ((u4 ^ u3) + in[(gid + 17u) & 255u]));
        }
      }
    }
  } else if ((lid < 17u)) {
  } else {
  }
  out[gid] = ((((((((((((((u0) * 0x01000193u ^ u1)) * 0x01000193u ^ u2)) * 0x01000193u ^ u3)) * 0x01000193u ^ u4)) * 0x01000193u ^ u5)) * 0x01000193u ^ as_uint(f0))) * 0x01000193u ^ as_uint(pf[1]));
}
