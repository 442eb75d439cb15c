// From the first GPU replay (issue 21): genfuzz seed 157, -O2. NVIDIA 580 (H200) differed from the CPU
// reference after OpSRem was fixed: {"out": "[2] np.uint32(1117105302) != np.uint32(565102315) (12 lanes)"}
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
  __local uint lm[16];
  uint u0 = in[(gid * 1u + 0u) & 255u];
  uint u1 = in[(gid * 3u + 5u) & 255u];
  uint u2 = in[(gid * 5u + 10u) & 255u];
  uint u3 = in[(gid * 7u + 15u) & 255u];
  uint u4 = in[(gid * 9u + 20u) & 255u];
  uint u5 = in[(gid * 11u + 25u) & 255u];
  float f0 = (float)(int)(in[(gid + 1u) & 255u] & 0xFFFu) * 0.25f;
  uint pa[8];
  for (uint t = 0u; t < 8u; t++) pa[t] = u0 + t * u1;
  float pf[4];
  for (uint t = 0u; t < 4u; t++) pf[t] = (float)(int)(t + (u0 & 15u));
  barrier(CLK_LOCAL_MEM_FENCE);
  lm[lid] = (0u + 338u);
  barrier(CLK_LOCAL_MEM_FENCE);
  u2 ^= lm[((uint)(int)fc(f0 / fnz(pf[(u0) & 3u]))) % 16u];
  u4 += lm[(lid + 9u) % 16u];
  for (uint r1 = 0u; r1 < (n % 3u) + 1u; r1++) {
    barrier(CLK_LOCAL_MEM_FENCE);
    lm[lid] = ((uint)(ushort)((uint)(int)-1.0f) >> ((grp / ((u5 & gid) | 1u)) & 31u));
    barrier(CLK_LOCAL_MEM_FENCE);
    u5 ^= lm[((uint)(short)(lm[((0x5e5a69adu >> (u1 & 31u))) % 16u])) % 16u];
    u4 += lm[(lid + 58u) % 16u];
    {
      uint g2 = 0u;
      do {
        switch ((lm[(((uint)g2 + (uint)(char)(15u))) % (uint)get_local_size(0)]) % 4u) {
        case 1u: {
          {
            uint g3 = 0u;
            do {
              u3 += n;
            } while (g3++ < 1u && (lid > 16u));
          }
          switch ((((in[(gid + 39u) & 255u] | (u0 | u5)) << (831u & 31u))) % 6u) {
          case 0u: {
            u4 = (uint)((int)((uint)(int)f0 ^ (n + (uint)r1)) / (int)((u0 & 7u) + 1u));
          }
          case 4u: {
            break;
          }
          case 5u: {
            break;
          }
          case 2u: {
            break;
          }
          default: {
          }
          }
        }
        case 3u: {
        }
        case 2u: {
          break;
        }
        case 0u: {
          break;
        }
        }
      } while (g2++ < 2u && ((max(u3, (u0 + 89u)) & 8u) != 0u));
    }
  }
  if (((gid & 7u) == 1u)) {
    atomic_max(&cnt[1], lm[(lm[(lm[(in[(gid + 5u) & 255u]) % (uint)get_local_size(0)]) % (uint)get_local_size(0)]) % (uint)get_local_size(0)]);
  }
  u1 ^= 9u;
  for (uint i4 = 0u; i4 < 3u; i4++) {
    f0 = fc(f0 / fnz(pf[(in[(gid + 13u) & 255u]) & 3u]));
    atomic_or(&cnt[2], 1u << ((u3) & 31u));
  }
  f0 = fc(f0 - fc((!((11u & 16u) != 0u) ? fc(f0 - f0) : ((float)((int)u1 >> 12) * 0.125f)) / fnz((float)(int)(in[(gid + 9u) & 255u] & 0xFFFu))));
  for (uint r5 = 0u; r5 < (n % 3u) + 1u; r5++) {
    barrier(CLK_LOCAL_MEM_FENCE);
    lm[lid] = (clz(u2) << ((uint)r5 & 31u));
    barrier(CLK_LOCAL_MEM_FENCE);
    u0 ^= lm[(u3) % 16u];
    u0 += lm[(lid + 7u) % 16u];
    {
      uint g6 = 0u;
      while (g6++ < 5u && (fc(((float)((int)0u >> 12) * 0.125f) / fnz(fc(-7.0f / fnz((float)(int)(u3 & 0xFFFu))))) == f0)) {
        uint fl7 = 0u;
        for (uint i8 = 0u; i8 < (n & 1u); i8++) {
          for (uint j9 = 0u; j9 < ((((in[(gid + 32u) & 255u] % (((487u / (4u | 1u)) & 15u) + 1u)) / (0xf7039e4du | 1u))) & 1u); j9++) {
            if ((lid >= (pa[((uint)i8) & 7u] >> ((uint)g6 & 31u)))) break;
            if (((pa[((u3 & 0x02d1adccu)) & 7u] & 2u) != 0u)) {
              pf[((uint)((int)(uint)g6 % (int)((in[((u2 / (u3 | 1u))) & 255u] & 7u) + 1u))) & 3u] = pf[((((u1 == n) ? in[(gid + 4u) & 255u] : u5) / (u0 | 1u))) & 3u];
              u0 -= min(((u4 * u0) * u5), (u0 & u4));
            } else if ((u3 == u2)) {
            } else {
            }
            if (((int)u0 < -27)) { fl7 = 1u; break; }
          }
          if (fl7 != 0u) continue;
        }
        u0 += fl7;
      }
    }
  }
  out[gid] = ((((((((((((((((((u0) * 0x01000193u ^ u1)) * 0x01000193u ^ u2)) * 0x01000193u ^ u3)) * 0x01000193u ^ u4)) * 0x01000193u ^ u5)) * 0x01000193u ^ as_uint(f0))) * 0x01000193u ^ pa[0])) * 0x01000193u ^ pa[5])) * 0x01000193u ^ as_uint(pf[1]));
}
