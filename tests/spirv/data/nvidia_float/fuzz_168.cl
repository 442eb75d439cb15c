// From the first GPU replay (issue 21): genfuzz seed 168, -O2. NVIDIA 580 (H200) differed from the CPU
// reference after OpSRem was fixed: {"out": "[15] np.uint32(848676117) != np.uint32(1050267863) (13 lanes)"}
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
  float f1 = (float)(int)(in[(gid + 4u) & 255u] & 0xFFFu) * 0.25f;
  float f2 = (float)(int)(in[(gid + 7u) & 255u] & 0xFFFu) * -0.125f;
  uint pa[8];
  for (uint t = 0u; t < 8u; t++) pa[t] = u0 + t * u1;
  float pf[4];
  for (uint t = 0u; t < 4u; t++) pf[t] = (float)(int)(t + (u0 & 15u));
  if ((((u2 <= u1) || ((u0 += 1u) > 0x5108f8c4u)) && (!((u1 & 1u) != 0u) && ((int)u0 < 35)))) {
    uint fl1 = 0u;
    for (uint i2 = 0u; i2 < (((u2 ^ (in[(gid + 35u) & 255u] + (in[(gid + 12u) & 255u] - in[(gid + 34u) & 255u])))) & 1u); i2++) {
      for (uint j3 = 0u; j3 < 0u; j3++) {
        if (((int)(385u + u1) < 39)) { fl1 = 1u; break; }
        if (((((uint)i2 & u2) * (in[(gid + 30u) & 255u] + 8u)) == (u1 * (uint)(u1 >= u0)))) {
          if ((((gid & 5u) == 0u) || ((u0 += 8u) > 16u))) continue;
          atomic_add(&cnt[0], ((u0 | ((u1 + u0) | in[(gid + 11u) & 255u]))) & 255u);
        } else {
          u2 *= lid;
        }
      }
      if (fl1 != 0u) break;
    }
    u2 += fl1;
  } else {
  }
  switch (((((u1 + 10u) % ((u0 & 15u) + 1u)) + u2)) % 5u) {
  case 0u:
  case 3u: {
    if (((int)(in[(183u) & 255u] >> (in[(gid + 35u) & 255u] & 31u)) < -43)) break;
    switch (((0xe24900a7u >> ((((u1 % 3u) == 0u) ? (u2 ^ in[(gid + 6u) & 255u]) : (3u % ((in[(gid + 7u) & 255u] & 15u) + 1u))) & 31u))) % 3u) {
    case 0u:
    case 2u: {
      if ((in[(gid + 21u) & 255u] <= (uint)(char)((u0 >> (991u & 31u))))) {
        u1 = 0x9b74110fu;
        u1 += 807u;
      } else {
      }
    }
    default: {
    }
    }
    break;
  }
  case 1u: {
    break;
  }
  default: {
  }
  }
  for (uint r4 = 0u; r4 < (n % 3u) + 1u; r4++) {
    barrier(CLK_LOCAL_MEM_FENCE);
    if (lid == 0u) lc = 0u;
    barrier(CLK_LOCAL_MEM_FENCE);
    if (((gid & 3u) == 1u)) atomic_add(&lc, (((uint)(int)fc(f0 * 0.1f) + pa[((0xecd713c3u & u0)) & 7u])) & 255u);
    barrier(CLK_LOCAL_MEM_FENCE);
    u0 ^= lc;
    f1 = fc(f1 + fc(fc((float)(int)(u1 & 0xFFFu) / fnz(fc(f2 * f1))) * 100.0f));
  }
  for (uint i5 = 2u; i5 <= (((((uint)((int)u2 / (int)((in[(gid + 31u) & 255u] & 7u) + 1u)) / ((grp / (u0 | 1u)) | 1u)) + 0xa66741d7u)) & 3u); i5 += 2u) {
    if (((gid & 6u) == 1u)) break;
  }
  switch (((uint)((int)((uint)((int)u2 < (int)u2) ^ (((290u & 16u) != 0u) ? u0 : in[(gid + 30u) & 255u])) < (int)((u0 * u1) * (grp + 5u)))) % 3u) {
  case 0u: {
    pf[(in[(u1) & 255u]) & 3u] = 100.0f;
  }
  case 1u: {
    {
      uint g6 = 0u;
      do {
        u0 += (((534u / (u1 | 1u)) + u2) + (uint)g6);
      } while (g6++ < 4u && ((int)((((u0 & 4u) != 0u) ? in[(gid + 38u) & 255u] : 0x9c2cc0e1u) - (u1 % ((u1 & 15u) + 1u))) < 1));
    }
    break;
  }
  }
  out[gid] = ((((((((((((((((u0) * 0x01000193u ^ u1)) * 0x01000193u ^ u2)) * 0x01000193u ^ as_uint(f0))) * 0x01000193u ^ as_uint(f1))) * 0x01000193u ^ as_uint(f2))) * 0x01000193u ^ pa[0])) * 0x01000193u ^ pa[5])) * 0x01000193u ^ as_uint(pf[1]));
}
