// From the first GPU replay (issue 21): genfuzz seed 9, -O2. NVIDIA 580 (H200) differed from the CPU
// reference after OpSRem was fixed: {"out": "[26] np.uint32(390034722) != np.uint32(2189995763) (2 lanes)"}
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
  float f0 = (float)(int)(in[(gid + 1u) & 255u] & 0xFFFu) * -0.125f;
  float f1 = (float)(int)(in[(gid + 4u) & 255u] & 0xFFFu) * 0.5f;
  float f2 = (float)(int)(in[(gid + 7u) & 255u] & 0xFFFu) * -0.125f;
  uint pa[8];
  for (uint t = 0u; t < 8u; t++) pa[t] = u0 + t * u1;
  float pf[4];
  for (uint t = 0u; t < 4u; t++) pf[t] = (float)(int)(t + (u0 & 15u));
  u2 += (((f1 < f0) ? (in[(gid + 31u) & 255u] - u3) : (u0 + lid)) + in[(gid + 12u) & 255u]);
  u4 = pa[(((uint)(((ulong)lid * (ulong)u4) >> 32) % (((u4 ^ 8u) & 15u) + 1u))) & 7u];
  {
    uint g1 = 0u;
    do {
      u1 *= (uint)(int)fc(fc(((float)((int)12u >> 12) * 0.125f) + ((float)((int)10u >> 12) * 0.125f)) + fc(f1 / fnz(f0)));
    } while (g1++ < 4u && (((gid & 3u) == 0u) && ((int)(u4 & 254u) < 22)));
  }
  if (((float)(int)(0x8f7a8c30u & 0xFFFu) == f2)) {
    u2 += (u1 >> (u2 & 31u));
    u1 = (uint)((int)782u >> (((((1u & 4u) != 0u) ? 2u : u1) / ((u3 % ((85u & 15u) + 1u)) | 1u)) & 31u));
    u4 = (((815u + u5) + 0x10773c7eu) ^ u0);
  }
  u5 *= u3;
  atomic_xor(&cnt[4], (uint)(694u != (u1 + u3)));
  if (((((uint)(uchar)(in[(gid + 0u) & 255u]) % 5u) == 0u) || ((u0 += 3u) > 0xfc7f20bdu))) {
    f2 = fc(fc(f2 + fc(f2 + f2)) / fnz(f2));
  }
  if ((lid < 3u)) {
    f2 = fc(f2 * f1);
    f1 = fc(f1 - fc(f1 * pf[((uint)(((ulong)u2 * (ulong)582u) >> 32)) & 3u]));
    f1 = f0;
  } else {
  }
  out[gid] = ((((((((((((((((((((((u0) * 0x01000193u ^ u1)) * 0x01000193u ^ u2)) * 0x01000193u ^ u3)) * 0x01000193u ^ u4)) * 0x01000193u ^ u5)) * 0x01000193u ^ as_uint(f0))) * 0x01000193u ^ as_uint(f1))) * 0x01000193u ^ as_uint(f2))) * 0x01000193u ^ pa[0])) * 0x01000193u ^ pa[5])) * 0x01000193u ^ as_uint(pf[1]));
}
