// From the first GPU replay (issue 21): genfuzz seed 39, -O2. NVIDIA 580 (H200) differed from the CPU
// reference after OpSRem was fixed: {"out": "[17] np.uint32(206091024) != np.uint32(3550895523) (4 lanes)"}
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
  __local uint lm[32];
  uint u0 = in[(gid * 1u + 0u) & 255u];
  uint u1 = in[(gid * 3u + 5u) & 255u];
  uint u2 = in[(gid * 5u + 10u) & 255u];
  uint u3 = in[(gid * 7u + 15u) & 255u];
  float f0 = (float)(int)(in[(gid + 1u) & 255u] & 0xFFFu) * 1.0f;
  float f1 = (float)(int)(in[(gid + 4u) & 255u] & 0xFFFu) * 0.25f;
  uint pa[8];
  for (uint t = 0u; t < 8u; t++) pa[t] = u0 + t * u1;
  float pf[4];
  for (uint t = 0u; t < 4u; t++) pf[t] = (float)(int)(t + (u0 & 15u));
  uint fl1 = 0u;
  for (uint i2 = 0u; i2 < ((u3) & 7u); i2++) {
    for (uint j3 = 0u; j3 < (((pa[((uint)(((ulong)u2 + (ulong)u2 * 3ul) >> 31)) & 7u] - (u2 - (u3 | u0)))) & 3u); j3++) {
      {
        uint g4 = 0u;
        do {
          f0 = fc(f0 * fc(f0 / fnz(fc(fc(f0 / fnz(10.0f)) / fnz(((in[(gid + 12u) & 255u] > u1) ? f1 : f0))))));
          if ((f0 < fc(((u1 == (uint)i2) ? f1 : f0) * 0.333f))) break;
        } while (g4++ < 1u && (fc((float)(int)(6u & 0xFFFu) * 3.0f) == fc(fc((float)(int)((uint)j3 & 0xFFFu) - f1) * 0.1f)));
      }
      if ((lid < 17u)) { fl1 = 1u; break; }
    }
    if (fl1 != 0u) break;
  }
  u2 += fl1;
  if ((fc(fc(((float)((int)995u >> 12) * 0.125f) * (float)(int)(in[(gid + 36u) & 255u] & 0xFFFu)) + fc(((float)((int)10u >> 12) * 0.125f) + f0)) == fc(f0 * 3.0f))) {
    for (uint i5 = 0u; i5 < (((!(0x98930667u == 211u) ? ((u1 >> (u0 & 31u)) / (pa[(0u) & 7u] | 1u)) : ((u3 + u3) + 16u))) & 7u); i5++) {
      if ((((lid < 29u) ? (uint)(int)f0 : grp) <= in[((u3 + u3)) & 255u])) {
        pa[((((in[(gid + 15u) & 255u] & u2) + 6u) * u1)) & 7u] ^= in[(gid + 2u) & 255u];
      }
    }
  }
  u1 = u3;
  {
    uint g6 = 0u;
    do {
      if (!((uint)(((ulong)u0 * (ulong)u0) >> 32) == (u2 & (uint)g6))) {
        u3 *= ((u2 >= (uint)((int)13u % (int)((in[(gid + 18u) & 255u] & 7u) + 1u))) ? ((8u >> (u1 & 31u)) + u0) : ((uint)(0xbc383e4du == in[(gid + 6u) & 255u]) + 659u));
      } else if ((((float)((int)u0 >> 12) * 0.125f) >= fc((float)((u2) & 0xFFFFu) * 0.5f))) {
      } else {
      }
    } while (g6++ < 1u && ((((u2 + 1u) & 32u) != 0u) && !!((0x0f7a8b84u & 4u) != 0u)));
  }
  out[gid] = ((((((((((((((((u0) * 0x01000193u ^ u1)) * 0x01000193u ^ u2)) * 0x01000193u ^ u3)) * 0x01000193u ^ as_uint(f0))) * 0x01000193u ^ as_uint(f1))) * 0x01000193u ^ pa[0])) * 0x01000193u ^ pa[5])) * 0x01000193u ^ as_uint(pf[1]));
}
