// From the first GPU replay (issue 21): genfuzz seed 19, -O2. NVIDIA 580 (H200) differed from the CPU
// reference after OpSRem was fixed: {"out": "[15] np.uint32(2106196539) != np.uint32(2094816914) (1 lanes)"}
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
  float f0 = (float)(int)(in[(gid + 1u) & 255u] & 0xFFFu) * 1.0f;
  float f1 = (float)(int)(in[(gid + 4u) & 255u] & 0xFFFu) * 1.0f;
  float f2 = (float)(int)(in[(gid + 7u) & 255u] & 0xFFFu) * 0.25f;
  uint pa[8];
  for (uint t = 0u; t < 8u; t++) pa[t] = u0 + t * u1;
  float pf[4];
  for (uint t = 0u; t < 4u; t++) pf[t] = (float)(int)(t + (u0 & 15u));
  for (uint r1 = 0u; r1 < (n & 3u); r1++) {
    barrier(CLK_LOCAL_MEM_FENCE);
    lm[lid] = ((uint)(((ulong)u0 + (ulong)n * 3ul) >> 29) ^ ((u2 + 6u) + u0));
    barrier(CLK_LOCAL_MEM_FENCE);
    u0 ^= lm[((in[((uint)r1) & 255u] | (uint)r1)) % 32u];
    u1 += lm[(lid + 55u) % 32u];
    uint fl2 = 0u;
    for (uint i3 = 0u; i3 < ((u0) & 1u); i3++) {
      if ((((u1 % 2u) == 0u) && (103u != (uint)r1))) {
        if (((u1 != (0xaf191372u % ((in[(gid + 27u) & 255u] & 15u) + 1u))) && ((gid & 6u) == 1u))) {
          u2 = (uint)(int)fc(f0 / fnz(fc(f1 / fnz(0.333f))));
        } else if ((((int)(in[(gid + 19u) & 255u] + 292u) < 32) || ((int)pa[(u0) & 7u] < -31))) {
          pf[(((uint)i3 ^ (uint)(int)((float)((int)u2 >> 12) * 0.125f))) & 3u] = 0.1f;
        } else {
          if ((((uint)(int)f2 == u0) || (fc(f2 * 100.0f) > fc(0.0f * 1.5f)))) continue;
        }
      } else {
      }
      for (uint j4 = 0u; j4 < 3u; j4++) {
        if ((f2 != 2.0f)) { fl2 = 1u; break; }
      }
      if (fl2 != 0u) continue;
    }
    u0 += fl2;
  }
  {
    uint g5 = 0u;
    do {
      pf[(u1) & 3u] = (float)(int)(u0 & 0xFFFu);
      for (uint i6 = 0u; i6 < ((pa[(in[(u2) & 255u]) & 7u]) & 3u); i6++) {
        for (int i7 = (int)1u; i7 >= 0; i7--) {
          if ((lid > 5u)) continue;
          u2 |= (((uint)i7 | in[(u0) & 255u]) - u0);
        }
        pa[((uint)(ushort)(((uint)((int)u0 >> (0x88bd8102u & 31u)) & u1))) & 7u] ^= (uint)(int)(((u2 & 1u) != 0u) ? ((float)((int)u1 >> 12) * 0.125f) : ((((uint)g5 & 1u) != 0u) ? 2.0f : (float)(int)(u0 & 0xFFFu)));
        u0 |= (uint)((2u / ((u0 % ((517u & 15u) + 1u)) | 1u)) != u2);
      }
    } while (g5++ < 1u && ((int)((198u << (in[(gid + 2u) & 255u] & 31u)) % (((uint)((int)713u < (int)in[(gid + 4u) & 255u]) & 15u) + 1u)) < 38));
  }
  for (uint i8 = 0u; i8 < 7u; i8++) {
    uint fl9 = 0u;
    for (uint i10 = 0u; i10 < 3u; i10++) {
      for (uint j11 = 0u; j11 < 1u; j11++) {
        pf[((lid << (((uint)(int)10.0f & ((uint)i10 + u2)) & 31u))) & 3u] = fc(f1 * -1.0f);
        if (((((uint)(char)((uint)i10) & 4u) != 0u) && (lid > 24u))) { fl9 = 1u; break; }
        if (((u0 % 2u) == 0u)) break;
        {
          uint g12 = 0u;
          while (g12++ < 2u && (((uint)(short)(416u) & (u2 * in[(gid + 9u) & 255u])) <= u1)) {
            if (((lid == 2u) || !(((u2 & 1u) != 0u) || ((u1 += 2u) > 1u)))) break;
            f0 = fc(f0 - (((gid & 3u) == 1u) ? fc(fc(f2 - 3.0f) / fnz(((u1 > u0) ? ((float)((int)u2 >> 12) * 0.125f) : f1))) : ((((u1 & 4u) != 0u) || (16u == in[(gid + 26u) & 255u])) ? (((uint)i10 == (uint)i8) ? 0.5f : f1) : fc(10.0f - ((float)((int)0x434fbc4eu >> 12) * 0.125f)))));
            f1 = fc(f1 * fc(fc(fc((float)(int)(lid & 0xFFFu) / fnz((float)(int)(396u & 0xFFFu))) * pf[(lid) & 3u]) - fc(fc(-7.0f + (float)(int)(u1 & 0xFFFu)) * fc(((float)((int)u0 >> 12) * 0.125f) - 3.0f))));
            f0 = fc(f0 + f2);
          }
        }
      }
      if (fl9 != 0u) continue;
    }
    u2 += fl9;
    if ((in[((uint)(n < 16u)) & 255u] <= (uint)(int)fc(f0 - 3.0f))) {
      {
        uint g13 = 0u;
        do {
          u1 -= lm[((uint)(ushort)((11u + u0))) % (uint)get_local_size(0)];
          f1 = 0.0f;
        } while (g13++ < 1u && (((gid & 7u) == 1u) || (lid > 25u)));
      }
    } else {
    }
  }
  barrier(CLK_LOCAL_MEM_FENCE);
  lm[lid] = u2;
  barrier(CLK_LOCAL_MEM_FENCE);
  u0 ^= lm[(in[(u1) & 255u]) % 32u];
  u2 += lm[(lid + 39u) % 32u];
  out[gid] = ((((((((((((((((u0) * 0x01000193u ^ u1)) * 0x01000193u ^ u2)) * 0x01000193u ^ as_uint(f0))) * 0x01000193u ^ as_uint(f1))) * 0x01000193u ^ as_uint(f2))) * 0x01000193u ^ pa[0])) * 0x01000193u ^ pa[5])) * 0x01000193u ^ as_uint(pf[1]));
}
