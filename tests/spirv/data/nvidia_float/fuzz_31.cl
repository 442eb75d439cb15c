// From the first GPU replay (issue 21): genfuzz seed 31, -O2. NVIDIA 580 (H200) differed from the CPU
// reference after OpSRem was fixed: {"out": "[21] np.uint32(3515658346) != np.uint32(242442317) (2 lanes)"}
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
  float f0 = (float)(int)(in[(gid + 1u) & 255u] & 0xFFFu) * 0.25f;
  float f1 = (float)(int)(in[(gid + 4u) & 255u] & 0xFFFu) * 0.5f;
  uint pa[8];
  for (uint t = 0u; t < 8u; t++) pa[t] = u0 + t * u1;
  u0 -= ((uint)(int)fc(f0 / fnz(f0)) % ((((u1 % ((u2 & 15u) + 1u)) / (in[(13u) & 255u] | 1u)) & 15u) + 1u));
  {
    uint g1 = 0u;
    do {
      for (uint i2 = 0u; i2 < ((u2) & 1u); i2++) {
        u0 *= ((uint)((int)u2 >> ((9u ^ in[(gid + 12u) & 255u]) & 31u)) + u0);
      }
    } while (g1++ < 1u && (((3u >= u0) && ((u1 += 6u) > 4u)) || (((in[(gid + 39u) & 255u] != 3u) || ((u2 += 3u) > 620u)) || ((u0 += 1u) > 15u))));
  }
  atomic_or(&cnt[2], 1u << (((945u | ((uint)((int)525u / (int)((0x66c210bau & 7u) + 1u)) % ((u2 & 15u) + 1u)))) & 31u));
  if ((((uint)(ushort)((in[(gid + 12u) & 255u] + u2)) % 5u) == 0u)) {
    f0 = (((((u1 & 32u) != 0u) ? ((float)((int)u1 >> 12) * 0.125f) : 2.0f) == (float)((in[(gid + 23u) & 255u]) & 0xFFFFu)) ? f1 : fc(f1 / fnz(fc(f0 * 1.0f))));
    pa[(in[((((gid & 2u) == 3u) ? 15u : (u1 * u0))) & 255u]) & 7u] ^= (uint)(u2 > ((u2 % ((15u & 15u) + 1u)) | ((u0 > in[(gid + 26u) & 255u]) ? u2 : u2)));
  } else {
  }
  out[gid] = ((((((((((((u0) * 0x01000193u ^ u1)) * 0x01000193u ^ u2)) * 0x01000193u ^ as_uint(f0))) * 0x01000193u ^ as_uint(f1))) * 0x01000193u ^ pa[0])) * 0x01000193u ^ pa[5]);
}
