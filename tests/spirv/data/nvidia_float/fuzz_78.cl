// From the first GPU replay (issue 21): genfuzz seed 78, -O2. NVIDIA 580 (H200) differed from the CPU
// reference after OpSRem was fixed: {"out": "[18] np.uint32(1754167359) != np.uint32(3633143466) (12 lanes)"}
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
  float f0 = (float)(int)(in[(gid + 1u) & 255u] & 0xFFFu) * -0.125f;
  uint pa[8];
  for (uint t = 0u; t < 8u; t++) pa[t] = u0 + t * u1;
  f0 = fc(f0 / fnz(fc((float)((u0) & 0xFFFFu) * fc(f0 + f0))));
  if ((fc((float)(int)(u2 & 0xFFFu) + fc(f0 + f0)) != fc(f0 * (float)((u1) & 0xFFFFu)))) {
    switch (((7u - (uint)((int)pa[(u0) & 7u] / (int)(((12u - u3) & 7u) + 1u)))) % 5u) {
    case 2u: {
      if (((((11u != 4u) || ((u2 & 16u) != 0u)) || ((u1 >= u2) || ((u2 += 7u) > 15u))) || ((int)(0x6dc17e89u + 422u) < 21))) {
        f0 = fc(f0 - (float)((in[(in[(u1) & 255u]) & 255u]) & 0xFFFFu));
      } else {
      }
      break;
    }
    case 1u: {
    }
    case 4u: {
      break;
    }
    case 3u: {
      break;
    }
    case 0u: {
      break;
    }
    }
  } else if ((lid < 11u)) {
  } else {
  }
  if (((int)14u < -6)) {
    f0 = fc(fc(fc(0.1f * ((float)((int)u2 >> 12) * 0.125f)) * 0.0f) * 100.0f);
  } else if (((int)pa[((0x4cfc8c13u + 490u)) & 7u] < 1)) {
    for (uint i1 = 2u; i1 <= (((((in[(gid + 15u) & 255u] ^ u3) * (u0 % ((381u & 15u) + 1u))) >> (in[((u0 ^ u3)) & 255u] & 31u))) & 7u); i1 += 2u) {
      u2 |= (((uint)(ushort)((uint)i1) + 772u) + u3);
    }
    u1 += (((uint)(u2 > 3u) + u0) + 69u);
  } else {
  }
  if (((int)((uint)(int)((float)((int)u1 >> 12) * 0.125f) << (0x6ab5b158u & 31u)) < 38)) {
    {
      uint g2 = 0u;
      do {
        u0 ^= (in[((u1 + 10u)) & 255u] + in[(gid + 4u) & 255u]);
        pa[((((uint)(short)(in[(gid + 12u) & 255u]) + gid) ^ in[((2u / (u0 | 1u))) & 255u])) & 7u] ^= ((uint)(((ulong)pa[((uint)g2) & 7u] + (ulong)(u0 + in[(gid + 37u) & 255u]) * 3ul) >> 2) + (uint)g2);
        u1 *= u2;
      } while (g2++ < 2u && ((in[(u0) & 255u] % 4u) == 0u));
    }
  } else if (((u2 & in[(u1) & 255u]) < u1)) {
  } else {
  }
  {
    uint g3 = 0u;
    while (g3++ < 2u && ((int)u1 < -20)) {
      if ((((gid & 1u) == 3u) || ((u0 += 9u) > 14u))) {
        if (((f0 == fc(f0 + ((float)((int)(uint)g3 >> 12) * 0.125f))) && ((((u0 & 4u) != 0u) ? -7.0f : 1.0f) != fc(((float)((int)u3 >> 12) * 0.125f) * 0.5f)))) {
          u1 += (uint)((int)(uint)(int)fc(f0 * 1.0f) < (int)u0);
          u3 |= gid;
        }
      } else if (((u2 & 32u) != 0u)) {
      } else {
      }
    }
  }
  out[gid] = ((((((((((((u0) * 0x01000193u ^ u1)) * 0x01000193u ^ u2)) * 0x01000193u ^ u3)) * 0x01000193u ^ as_uint(f0))) * 0x01000193u ^ pa[0])) * 0x01000193u ^ pa[5]);
}
