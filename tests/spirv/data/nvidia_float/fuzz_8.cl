// From the first GPU replay (issue 21): genfuzz seed 8, -O2. NVIDIA 580 (H200) differed from the CPU
// reference after OpSRem was fixed: {"out": "[3] np.uint32(940366790) != np.uint32(990698841) (16 lanes)"}
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
  float pf[4];
  for (uint t = 0u; t < 4u; t++) pf[t] = (float)(int)(t + (u0 & 15u));
  if ((((uint)(((ulong)2u + (ulong)u3 * 3ul) >> 7) + 2u) != ((38u >> (lid & 31u)) + u3))) {
    f1 = fc(pf[((4u + u2)) & 3u] * fc(fc(f0 - f1) / fnz((float)((u3) & 0xFFFFu))));
    u1 += ((uint)(((ulong)u1 * (ulong)2u) >> 32) | gid);
    u2 += (((u1 * u0) >> ((uint)(int)f1 & 31u)) + u0);
    uint fl1 = 0u;
    for (uint i2 = 0u; i2 < ((clz(u1)) & 7u); i2++) {
      u1 += (((uint)(int)f0 + u3) + u1);
      for (uint j3 = 0u; j3 < 1u; j3++) {
        u2 -= (((uint)(short)(lid) % ((0xbe4840aau & 15u) + 1u)) + u3);
        pf[((uint)(int)pf[((uint)(int)(float)(int)(u0 & 0xFFFu)) & 3u]) & 3u] = f1;
        if ((-7.0f > pf[((uint)(int)0.5f) & 3u])) { fl1 = 1u; break; }
        switch (((uint)j3) % 3u) {
        case 2u: {
          u2 |= (uint)(int)f1;
          u2 -= ((min(in[(gid + 8u) & 255u], u1) / ((u3 ^ u0) | 1u)) - ((in[(gid + 5u) & 255u] - 2u) - (uint)(ushort)(u2)));
        }
        case 0u: {
        }
        default: {
        }
        }
      }
      if (fl1 != 0u) break;
    }
    u2 += fl1;
  }
  if ((u2 <= (u1 % (((7u + n) & 15u) + 1u)))) {
    for (uint i4 = 0u; i4 < 0u; i4++) {
      if (((u3 & 16u) != 0u)) {
        atomic_min(&cnt[5], (uint)(int)fc(fc(f1 + (float)(int)(u2 & 0xFFFu)) * 0.333f));
        u3 |= (uint)((int)in[(gid + 32u) & 255u] < (int)(uint)(int)fc(-1.0f * f0));
        f0 = pf[((uint)(int)f0) & 3u];
      } else if (((((uint)(int)((float)((int)n >> 12) * 0.125f) + u0) & 32u) != 0u)) {
        f0 = f1;
        if (((((uint)((int)(uint)i4 % (int)((u3 & 7u) + 1u)) & ((uint)i4 * u0)) & 4u) != 0u)) continue;
      } else {
        pf[(((((uint)i4 - u3) + u1) / ((lid * (lid | u2)) | 1u))) & 3u] = (float)(int)(u0 & 0xFFFu);
        u0 *= (min((u2 >> (6u & 31u)), (uint)((int)grp >> (12u & 31u))) + in[(gid + 19u) & 255u]);
        atomic_add(&cnt[0], (((in[(gid + 31u) & 255u] % ((in[(gid + 15u) & 255u] & 15u) + 1u)) % ((((in[(gid + 35u) & 255u] + 0xde89bfa4u) | (7u >> (7u & 31u))) & 15u) + 1u))) & 255u);
      }
    }
  }
  for (uint r5 = 0u; r5 < 2u; r5++) {
    barrier(CLK_GLOBAL_MEM_FENCE);
    uint fl6 = 0u;
    for (uint i7 = 0u; i7 < (n & 3u); i7++) {
      u1 += (((gid & 1u) == 3u) ? (uint)((u0 + (uint)i7) != (u1 / (u2 | 1u))) : (uint)(((ulong)(u2 / (u0 | 1u)) + (ulong)((704u != u1) ? (uint)r5 : 299u) * 3ul) >> 5));
      for (uint j8 = 0u; j8 < ((((uint)(((ulong)(uint)(((ulong)u0 * (ulong)u3) >> 32) + (ulong)((uint)r5 + grp) * 3ul) >> 24) >> (((u3 * u0) - u0) & 31u))) & 3u); j8++) {
        if (!((u3 / (u1 | 1u)) >= u3)) { fl6 = 1u; break; }
      }
      if (fl6 != 0u) continue;
      atomic_add(&cnt[0], (in[((((u3 != 4u) || (u3 == 0x6c95b025u)) ? (uint)(((ulong)4u * (ulong)lid) >> 32) : u1)) & 255u]) & 255u);
    }
    u1 += fl6;
    if (((uint)(char)(u2) > popcount(u0))) {
      uint fl9 = 0u;
      for (uint i10 = 0u; i10 < ((((in[(gid) & 255u] + u3) >> ((uint)((u0 + 665u) >= ((u1 > u3) ? u0 : (uint)r5)) & 31u))) & 1u); i10++) {
        u1 |= (u3 + u0);
        for (uint j11 = 0u; j11 < ((u2) & 1u); j11++) {
          if (!((((uint)r5 & 1u) != 0u) || (((u1 & 16u) != 0u) || ((0u & 32u) != 0u)))) { fl9 = 1u; break; }
        }
        if (fl9 != 0u) break;
      }
      u0 += fl9;
    }
  }
  out[gid] = ((((((((((((u0) * 0x01000193u ^ u1)) * 0x01000193u ^ u2)) * 0x01000193u ^ u3)) * 0x01000193u ^ as_uint(f0))) * 0x01000193u ^ as_uint(f1))) * 0x01000193u ^ as_uint(pf[1]));
}
