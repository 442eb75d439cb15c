// From the first GPU replay (issue 21): genfuzz seed 131, -O2. NVIDIA 580 (H200) differed from the CPU
// reference after OpSRem was fixed: {"out": "[1] np.uint32(2367418687) != np.uint32(2367418684) (11 lanes)"}
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
  uint u4 = in[(gid * 9u + 20u) & 255u];
  float f0 = (float)(int)(in[(gid + 1u) & 255u] & 0xFFFu) * 0.5f;
  float f1 = (float)(int)(in[(gid + 4u) & 255u] & 0xFFFu) * 0.5f;
  float pf[4];
  for (uint t = 0u; t < 4u; t++) pf[t] = (float)(int)(t + (u0 & 15u));
  barrier(CLK_LOCAL_MEM_FENCE);
  lm[lid] = (uint)(((0xbcbc4456u % ((u3 & 15u) + 1u)) / (0xc6be41a6u | 1u)) < u4);
  barrier(CLK_LOCAL_MEM_FENCE);
  u2 ^= lm[(0x60feeb89u) % 64u];
  u1 += lm[(lid + 21u) % 64u];
  barrier(CLK_LOCAL_MEM_FENCE);
  lm[lid] = (((0u / (u2 | 1u)) + (in[(gid + 40u) & 255u] % ((u4 & 15u) + 1u))) + in[(gid + 4u) & 255u]);
  barrier(CLK_LOCAL_MEM_FENCE);
  u1 ^= lm[(lm[((u2 << (in[(gid + 3u) & 255u] & 31u))) % 64u]) % 64u];
  u2 += lm[(lid + 5u) % 64u];
  for (uint r1 = 0u; r1 < (n & 3u); r1++) {
    barrier(CLK_LOCAL_MEM_FENCE);
    lm[lid] = (uint)r1;
    barrier(CLK_LOCAL_MEM_FENCE);
    u3 ^= lm[(u4) % 64u];
    u1 += lm[(lid + 65u) % 64u];
    pf[(in[(u3) & 255u]) & 3u] = fc(f0 / fnz(fc(fc((float)(int)(u3 & 0xFFFu) - f0) * 0.333f)));
    {
      uint g2 = 0u;
      do {
        {
          uint g3 = 0u;
          while (g3++ < 2u && ((858u & 16u) != 0u)) {
            {
              uint g4 = 0u;
              do {
                if ((lid == 37u)) break;
                f0 = fc(f0 + 1.5f);
              } while (g4++ < 1u && ((11u & 32u) != 0u));
            }
          }
        }
      } while (g2++ < 4u && (687u <= (u3 + u2)));
    }
  }
  for (uint r5 = 0u; r5 < 2u; r5++) {
    barrier(CLK_LOCAL_MEM_FENCE);
    lm[lid] = lid;
    barrier(CLK_LOCAL_MEM_FENCE);
    u0 ^= lm[(u2) % 64u];
    u2 += lm[(lid + 38u) % 64u];
    f1 = fc(f1 + fc(fc(fc(0.0f * f0) + f0) + fc(((u3 <= u1) ? f0 : ((float)((int)u0 >> 12) * 0.125f)) * f0)));
  }
  out[gid] = ((((((((((((((u0) * 0x01000193u ^ u1)) * 0x01000193u ^ u2)) * 0x01000193u ^ u3)) * 0x01000193u ^ u4)) * 0x01000193u ^ as_uint(f0))) * 0x01000193u ^ as_uint(f1))) * 0x01000193u ^ as_uint(pf[1]));
}
