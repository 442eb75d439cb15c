// From the first GPU replay (issue 21): genfuzz seed 117, -O2. NVIDIA 580 (H200) differed from the CPU
// reference after OpSRem was fixed: {"out": "[0] np.uint32(1319016022) != np.uint32(1083967855) (26 lanes)"}
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
  float f0 = (float)(int)(in[(gid + 1u) & 255u] & 0xFFFu) * 0.5f;
  uint pa[8];
  for (uint t = 0u; t < 8u; t++) pa[t] = u0 + t * u1;
  if (((((963u >> (in[(gid + 11u) & 255u] & 31u)) / ((6u * u2) | 1u)) & 4u) != 0u)) {
    if (((fc(f0 * 0.1f) < fc(f0 * 0.0f)) || ((gid & 7u) == 3u))) {
      {
        uint g1 = 0u;
        do {
          u3 = u3;
        } while (g1++ < 2u && ((((14u <= in[(gid + 29u) & 255u]) ? u2 : u0) == (uint)(ushort)(0x3e0a27edu)) && ((u0 % 2u) == 0u)));
      }
    } else {
    }
  }
  for (int i2 = (int)(((uint)(int)fc(f0 - fc((float)(int)(u1 & 0xFFFu) - f0))) & 1u); i2 >= 0; i2--) {
    u2 *= u1;
  }
  if (((fc(f0 * 100.0f) >= fc(f0 + f0)) && !((u3 > u0) && ((u2 & 1u) != 0u)))) {
    f0 = fc(f0 + fc(fc(fc(0.333f - (float)(int)(u0 & 0xFFFu)) - fc(f0 + f0)) / fnz(fc(((683u >= n) ? 2.0f : ((float)((int)u2 >> 12) * 0.125f)) / fnz(-7.0f)))));
  }
  u1 -= (uint)(ushort)(u1);
  {
    uint g3 = 0u;
    do {
      if (!((((uint)g3 & 16u) != 0u) && ((in[(gid + 28u) & 255u] >= u2) || ((uint)g3 <= gid)))) {
        pa[(u1) & 7u] += u1;
      }
    } while (g3++ < 2u && ((float)((u0) & 0xFFFFu) < fc(fc(100.0f - f0) * fc(0.1f + 3.0f))));
  }
  out[gid] = ((((((((((((u0) * 0x01000193u ^ u1)) * 0x01000193u ^ u2)) * 0x01000193u ^ u3)) * 0x01000193u ^ as_uint(f0))) * 0x01000193u ^ pa[0])) * 0x01000193u ^ pa[5]);
}
