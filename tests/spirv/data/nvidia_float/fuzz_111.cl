// From the first GPU replay (issue 21): genfuzz seed 111, -O2. NVIDIA 580 (H200) differed from the CPU
// reference after OpSRem was fixed: {"out": "[2] np.uint32(1218394871) != np.uint32(2555818833) (15 lanes)"}
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
  float f0 = (float)(int)(in[(gid + 1u) & 255u] & 0xFFFu) * -0.125f;
  float f1 = (float)(int)(in[(gid + 4u) & 255u] & 0xFFFu) * -0.125f;
  uint pa[8];
  for (uint t = 0u; t < 8u; t++) pa[t] = u0 + t * u1;
  barrier(CLK_GLOBAL_MEM_FENCE);
  if (((uint)(in[(u3) & 255u] > u3) <= ((n ^ 973u) + 494u))) {
    if (((int)159u < 48)) {
      pa[((((u1 >> (1u & 31u)) % (((u1 % ((377u & 15u) + 1u)) & 15u) + 1u)) + (uint)(int)fc(((float)((int)u3 >> 12) * 0.125f) - f0))) & 7u] ^= pa[(3u) & 7u];
    } else {
      if (((u3 & 8u) != 0u)) {
        u1 -= (6u ^ (u2 + u1));
        atomic_min(&cnt[5], min((u2 + u0), ((0x570b7253u * 239u) + in[(gid + 21u) & 255u])));
        u2 += ((lid == 11u) ? 14u : ((((u0 & 4u) != 0u) || ((u3 & 16u) != 0u)) ? lid : u1));
      }
    }
    uint fl1 = 0u;
    for (uint i2 = 0u; i2 < ((13u) & 1u); i2++) {
      f1 = fc(((float)((int)u2 >> 12) * 0.125f) / fnz(fc((((u3 & 32u) != 0u) ? f1 : (float)(int)(5u & 0xFFFu)) / fnz(f1))));
      for (uint j3 = 0u; j3 < (((uint)(short)(434u)) & 7u); j3++) {
        if (((gid & 7u) == 2u)) { fl1 = 1u; break; }
        for (uint i4 = 0u; i4 <= ((u0) & 1u); i4 += 2u) {
          if (((((15u % 5u) == 0u) || ((u0 += 7u) > 5u)) || ((u0 += 4u) > 390u))) break;
        }
        if ((f1 < fc(fc(f1 + f0) / fnz(fc(((float)((int)467u >> 12) * 0.125f) - f1))))) {
          atomic_or(&cnt[2], 1u << (((((10.0f > (float)(int)(u1 & 0xFFFu)) ? (u2 ^ 0x64dbf764u) : 600u) + u3)) & 31u));
        }
      }
      if (fl1 != 0u) continue;
    }
    u0 += fl1;
  } else {
  }
  for (uint r5 = 0u; r5 < (n % 3u) + 1u; r5++) {
    barrier(CLK_LOCAL_MEM_FENCE);
    if (lid == 0u) lc = 0u;
    barrier(CLK_LOCAL_MEM_FENCE);
    if (((u0 % ((in[(gid + 13u) & 255u] & 15u) + 1u)) == (in[(gid + 38u) & 255u] | u0))) atomic_add(&lc, ((uint)((int)((u3 ^ u2) % (((292u | u3) & 15u) + 1u)) < (int)((uint)((int)u2 < (int)u0) ^ 0xa5f2f553u))) & 255u);
    barrier(CLK_LOCAL_MEM_FENCE);
    u1 ^= lc;
    {
      uint g6 = 0u;
      do {
        if (((gid & 6u) == 0u)) {
          u1 *= in[(gid + 5u) & 255u];
        } else {
          if (!!(lid > 6u)) {
            pa[(u2) & 7u] = (pa[(rotate(u0, in[(gid + 9u) & 255u])) & 7u] % ((u2 & 15u) + 1u));
            if ((((in[(gid + 37u) & 255u] | u0) < u3) || ((u1 += 2u) > 676u))) break;
          }
        }
      } while (g6++ < 4u && (fc(fc((float)(int)(u2 & 0xFFFu) * -1.0f) + fc(((float)((int)u0 >> 12) * 0.125f) + f0)) <= fc(fc((float)(int)(0x77baa5d3u & 0xFFFu) * -7.0f) + fc(((float)((int)u3 >> 12) * 0.125f) * 0.333f))));
    }
  }
  out[gid] = ((((((((((((((u0) * 0x01000193u ^ u1)) * 0x01000193u ^ u2)) * 0x01000193u ^ u3)) * 0x01000193u ^ as_uint(f0))) * 0x01000193u ^ as_uint(f1))) * 0x01000193u ^ pa[0])) * 0x01000193u ^ pa[5]);
}
