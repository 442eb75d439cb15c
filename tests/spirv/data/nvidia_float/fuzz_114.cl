// From the first GPU replay (issue 21): genfuzz seed 114, -O2. NVIDIA 580 (H200) differed from the CPU
// reference after OpSRem was fixed: {"out": "[3] np.uint32(4057461858) != np.uint32(4210998185) (36 lanes)"}
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
  float f2 = (float)(int)(in[(gid + 7u) & 255u] & 0xFFFu) * 0.25f;
  uint pa[8];
  for (uint t = 0u; t < 8u; t++) pa[t] = u0 + t * u1;
  f2 = fc(f2 * (float)(((uint)((uint)(in[(gid + 21u) & 255u] > u0) < ((lid != u1) ? u2 : u3))) & 0xFFFFu));
  f0 = f2;
  if (!(((u0 <= u0) || (u2 == u0)) || ((8u == u1) || ((u1 += 7u) > 0xd78a43c0u)))) {
    if ((((int)in[(in[(gid + 32u) & 255u]) & 255u] < 43) && ((u3 += 3u) > 0x94a9a7ceu))) {
      u2 -= in[(min((uint)(int)f0, u3)) & 255u];
      if ((fc(f2 * fc(10.0f * 3.0f)) == f0)) {
        pa[((uint)((int)in[(rotate(u1, in[(gid + 27u) & 255u])) & 255u] % (int)(((u0 % (((u2 / (874u | 1u)) & 15u) + 1u)) & 7u) + 1u))) & 7u] ^= (((gid & 1u) == 3u) ? (in[(gid + 29u) & 255u] ^ (in[(gid + 28u) & 255u] * u3)) : (uint)((int)(u3 & u1) >> ((3u + u2) & 31u)));
        atomic_min(&cnt[5], u3);
        u0 -= (uint)(((ulong)(uint)((int)u1 / (int)(((grp >> (u3 & 31u)) & 7u) + 1u)) + (ulong)(u0 ^ u0) * 3ul) >> 23);
      }
    }
  } else if (((int)(uint)((int)(uint)(uchar)(u3) < (int)(uint)((int)511u / (int)((u3 & 7u) + 1u))) < -19)) {
  } else {
  }
  if (((gid & 4u) == 0u)) {
    u3 ^= ((u2 ^ (uint)(((ulong)14u + (ulong)n * 3ul) >> 21)) / ((uint)(uchar)((u0 * in[(gid + 10u) & 255u])) | 1u));
    {
      uint g1 = 0u;
      while (g1++ < 2u && ((gid & 6u) == 2u)) {
        {
          uint g2 = 0u;
          do {
            u3 *= (uint)g1;
          } while (g2++ < 4u && (((uint)((int)(2u / (in[(gid + 34u) & 255u] | 1u)) < (int)(u3 | 632u)) % 4u) == 0u));
        }
      }
    }
    {
      uint g3 = 0u;
      do {
        if ((!(f1 > (float)(int)(u2 & 0xFFFu)) || ((u2 += 9u) > 9u))) {
          if ((((u0 / (grp | 1u)) + u1) > (u0 * (uint)(int)f0))) continue;
          u0 *= (((((uint)g3 < u1) && (u0 < in[(gid + 7u) & 255u])) && !((lid & 1u) != 0u)) ? (uint)((int)u3 >> ((u0 - u1) & 31u)) : u3);
        }
      } while (g3++ < 1u && ((int)u2 < -4));
    }
  } else {
  }
  for (uint r4 = 0u; r4 < (n & 3u); r4++) {
    barrier(CLK_LOCAL_MEM_FENCE);
    lm[lid] = (u2 + u1);
    barrier(CLK_LOCAL_MEM_FENCE);
    u1 ^= lm[(pa[(lm[((u2 / ((uint)r4 | 1u))) % 32u]) & 7u]) % 32u];
    u1 += lm[(lid + 60u) % 32u];
    u2 ^= (uint)((int)3u >> ((uint)((int)clz(grp) % (int)((in[(gid + 1u) & 255u] & 7u) + 1u)) & 31u));
    {
      uint g5 = 0u;
      do {
        u2 += (in[(gid + 11u) & 255u] ^ ((((in[(gid + 1u) & 255u] & 8u) != 0u) ? (uint)g5 : in[(gid + 32u) & 255u]) << (13u & 31u)));
        f1 = fc(fc(fc(f1 - (float)(int)(u1 & 0xFFFu)) * 1.5f) / fnz(((float)((int)u2 >> 12) * 0.125f)));
        if ((((5u % 2u) == 0u) && ((u2 += 7u) > 100u))) {
          if (((float)(int)(grp & 0xFFFu) == 1.0f)) continue;
        } else {
        }
      } while (g5++ < 2u && ((gid & 1u) == 3u));
    }
  }
  out[gid] = ((((((((((((((((u0) * 0x01000193u ^ u1)) * 0x01000193u ^ u2)) * 0x01000193u ^ u3)) * 0x01000193u ^ as_uint(f0))) * 0x01000193u ^ as_uint(f1))) * 0x01000193u ^ as_uint(f2))) * 0x01000193u ^ pa[0])) * 0x01000193u ^ pa[5]);
}
