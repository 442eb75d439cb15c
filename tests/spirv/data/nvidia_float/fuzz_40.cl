// From the first GPU replay (issue 21): genfuzz seed 40, -O2. NVIDIA 580 (H200) differed from the CPU
// reference after OpSRem was fixed: {"out": "[1] np.uint32(1581269815) != np.uint32(1471654349) (1 lanes)"}
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
  float f1 = (float)(int)(in[(gid + 4u) & 255u] & 0xFFFu) * 0.5f;
  float f2 = (float)(int)(in[(gid + 7u) & 255u] & 0xFFFu) * 0.25f;
  float pf[4];
  for (uint t = 0u; t < 4u; t++) pf[t] = (float)(int)(t + (u0 & 15u));
  u2 += (((in[(gid + 20u) & 255u] ^ lid) ^ u2) + 5u);
  uint fl1 = 0u;
  for (uint i2 = 0u; i2 < ((((7u & (u2 + 7u)) / (u1 | 1u))) & 1u); i2++) {
    u1 -= (u2 % ((((gid / (u0 | 1u)) / ((uint)(u5 != u2) | 1u)) & 15u) + 1u));
    if (((gid & 7u) == 3u)) break;
    for (uint j3 = 0u; j3 < ((in[(lid) & 255u]) & 7u); j3++) {
      if (((gid & 7u) == 1u)) { fl1 = 1u; break; }
      {
        uint g4 = 0u;
        do {
          f1 = fc(f1 + ((lid > 8u) ? fc(fc(0.0f / fnz(2.0f)) * fc(0.1f * ((float)((int)u2 >> 12) * 0.125f))) : fc(fc(f2 - (float)(int)(u4 & 0xFFFu)) - fc(f1 + f1))));
        } while (g4++ < 1u && (((in[(14u) & 255u] % 5u) == 0u) && ((u2 += 4u) > 11u)));
      }
    }
    if (fl1 != 0u) break;
    if (((int)(u5 | (u2 & 6u)) < 26)) {
      {
        uint g5 = 0u;
        do {
          u5 = (uint)i2;
          u1 -= (((14u | u3) | (u3 | (uint)g5)) << (((uint)(int)f0 + 0u) & 31u));
        } while (g5++ < 1u && (309u >= u5));
      }
    } else if ((((13u >= in[(gid + 23u) & 255u]) && (((u2 & 4u) != 0u) || ((u3 += 3u) > 13u))) && ((u3 += 5u) > 11u))) {
      f1 = fc(pf[((uint)(int)((float)((int)u3 >> 12) * 0.125f)) & 3u] * 0.5f);
    } else {
    }
  }
  u5 += fl1;
  barrier(CLK_LOCAL_MEM_FENCE);
  lm[lid] = in[(gid + 29u) & 255u];
  barrier(CLK_LOCAL_MEM_FENCE);
  u1 ^= lm[(in[(gid + 28u) & 255u]) % 16u];
  u4 += lm[(lid + 23u) % 16u];
  for (uint r6 = 0u; r6 < (n % 3u) + 1u; r6++) {
    barrier(CLK_LOCAL_MEM_FENCE);
    lm[lid] = (((uint)((int)u1 < (int)6u) + in[(gid + 3u) & 255u]) << (8u & 31u));
    barrier(CLK_LOCAL_MEM_FENCE);
    u0 ^= lm[((u4 * in[(in[(gid + 36u) & 255u]) & 255u])) % 16u];
    u0 += lm[(lid + 13u) % 16u];
    u3 *= (in[(gid + 15u) & 255u] & ((u3 & (uint)r6) + lid));
    if ((((((uint)r6 + u4) & 16u) != 0u) && ((int)(uint)(u0 <= u2) < 46))) {
      switch ((u0) % 2u) {
      case 1u: {
        u4 += ((u2 % ((lm[((uint)r6) % (uint)get_local_size(0)] & 15u) + 1u)) + 3u);
        f0 = fc(fc(0.0f * (float)((0x6e194fe8u) & 0xFFFFu)) * fc(((float)((int)(uint)r6 >> 12) * 0.125f) + fc(10.0f * ((float)((int)in[(gid + 8u) & 255u] >> 12) * 0.125f))));
        break;
      }
      case 0u: {
        u3 += (u4 % ((lm[(lm[(u3) % (uint)get_local_size(0)]) % 16u] & 15u) + 1u));
      }
      default: {
      }
      }
    }
  }
  uint fl7 = 0u;
  for (uint i8 = 0u; i8 < (((uint)(ushort)(((4u + u5) >> ((in[(gid + 23u) & 255u] % ((u3 & 15u) + 1u)) & 31u)))) & 7u); i8++) {
    for (uint j9 = 0u; j9 < (((((uint)(int)f2 ^ (uint)(((ulong)u5 + (ulong)408u * 3ul) >> 22)) & ((u0 + u4) + (u5 + u0)))) & 3u); j9++) {
      switch ((in[((uint)(char)((u3 | 996u))) & 255u]) % 3u) {
      case 0u:
      case 1u: {
        f0 = fc(f0 * fc(fc(fc(f1 / fnz(f1)) - ((u0 != u4) ? -0.25f : 1.5f)) + fc(fc(f1 * 0.0f) * -7.0f)));
      }
      default: {
        pf[(u2) & 3u] = ((lid == 3u) ? fc(fc(0.0f / fnz((float)(int)(87u & 0xFFFu))) + f2) : fc(-0.25f - fc((float)(int)(u5 & 0xFFFu) - (float)(int)(597u & 0xFFFu))));
      }
      }
      if (((float)(((699u + n)) & 0xFFFFu) < fc((float)((4u) & 0xFFFFu) + fc(-0.25f * 100.0f)))) {
        switch (((uint)(((ulong)((u3 << (54u & 31u)) * (in[(gid + 31u) & 255u] | u3)) + (ulong)((u2 & u1) * (u1 * gid)) * 3ul) >> 18)) % 7u) {
        case 6u: {
          if (((gid & 2u) == 3u)) break;
        }
        case 4u: {
          u5 ^= lm[(grp) % (uint)get_local_size(0)];
          atomic_xor(&cnt[4], n);
          f0 = fc(pf[(lm[(u5) % (uint)get_local_size(0)]) & 3u] + f0);
          break;
        }
        case 5u: {
          if (((((grp * in[(gid + 14u) & 255u]) | u2) & 32u) != 0u)) break;
        }
        case 0u: {
        }
        case 3u: {
          break;
        }
        default: {
        }
        }
      } else if (((fc(f0 * 0.333f) >= f1) || ((int)(((in[(gid + 27u) & 255u] & 2u) != 0u) ? 13u : u0) < 37))) {
      } else {
      }
      if ((lid < 10u)) { fl7 = 1u; break; }
    }
    if (fl7 != 0u) continue;
  }
  u2 += fl7;
  out[gid] = ((((((((((((((((((u0) * 0x01000193u ^ u1)) * 0x01000193u ^ u2)) * 0x01000193u ^ u3)) * 0x01000193u ^ u4)) * 0x01000193u ^ u5)) * 0x01000193u ^ as_uint(f0))) * 0x01000193u ^ as_uint(f1))) * 0x01000193u ^ as_uint(f2))) * 0x01000193u ^ as_uint(pf[1]));
}
