// From the first GPU replay (issue 21): genfuzz seed 153, -O2. NVIDIA 580 (H200) differed from the CPU
// reference after OpSRem was fixed: {"out": "[3] np.uint32(3347217653) != np.uint32(2005321756) (9 lanes)"}
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
  uint u5 = in[(gid * 11u + 25u) & 255u];
  float f0 = (float)(int)(in[(gid + 1u) & 255u] & 0xFFFu) * 1.0f;
  uint pa[8];
  for (uint t = 0u; t < 8u; t++) pa[t] = u0 + t * u1;
  if (((gid & 5u) == 0u)) {
    switch (((uint)((int)(pa[(5u) & 7u] + 458u) >> ((in[(gid + 11u) & 255u] * (uint)(int)1.5f) & 31u))) % 6u) {
    case 5u: {
      if ((lid < 30u)) {
        f0 = fc(fc(fc(f0 * f0) - fc(f0 / fnz(((float)((int)u1 >> 12) * 0.125f)))) * fc(f0 + fc(((float)((int)u2 >> 12) * 0.125f) * ((float)((int)u5 >> 12) * 0.125f))));
        atomic_add(&cnt[0], ((uint)(int)fc(f0 / fnz(1.0f))) & 255u);
        pa[(u5) & 7u] = (uint)(((ulong)(uint)(((ulong)(lid >> (u3 & 31u)) + (ulong)in[(3u) & 255u] * 3ul) >> 33) * (ulong)(uint)((uint)(((ulong)u1 + (ulong)u5 * 3ul) >> 1) != pa[(u1) & 7u])) >> 32);
        u5 = ((679u * (uint)(ushort)(u1)) + 7u);
      } else {
        if (!(((in[(gid + 37u) & 255u] << (gid & 31u)) & 1u) != 0u)) break;
      }
      break;
    }
    case 4u: {
      break;
    }
    case 3u: {
      break;
    }
    case 1u: {
    }
    default: {
    }
    }
  } else {
  }
  for (uint i1 = 0u; i1 < (((((gid & 3u) == 1u) ? ((in[(gid + 21u) & 255u] / (u3 | 1u)) % ((u5 & 15u) + 1u)) : (u1 ^ u5))) & 7u); i1++) {
    if ((((100.0f <= -1.0f) && ((int)14u < 33)) || ((u1 += 6u) > 0x7bf47bc3u))) {
      f0 = fc(f0 * fc(fc(fc(f0 * -7.0f) * 1.0f) / fnz(fc(3.0f - (((u1 & 16u) != 0u) ? f0 : f0)))));
      switch ((((in[(u3) & 255u] % ((pa[(0x5c42bbacu) & 7u] & 15u) + 1u)) - (n & in[(gid + 30u) & 255u]))) % 4u) {
      case 2u: {
        u1 -= (uint)i1;
        u2 += u5;
        if ((((uint)i1 % 2u) == 0u)) break;
        break;
      }
      case 3u: {
        if ((lid < 10u)) break;
      }
      case 1u: {
      }
      default: {
      }
      }
    }
  }
  uint fl2 = 0u;
  for (uint i3 = 0u; i3 < 0u; i3++) {
    for (uint i5 = 0u; i5 < (n & 7u); i5++) {
      if (((gid & 4u) == 3u)) {
        u0 = (((int)0x96bb03d5u < -44) ? (480u + u4) : ((u3 + 0xb57d7dc8u) + u1));
        if (((int)(!(0x210fdea6u >= u1) ? u0 : ((uint)i3 & u4)) < 31)) continue;
        if ((pa[((u2 + gid)) & 7u] == u5)) continue;
      }
      u1 *= u0;
      if ((fc(fc((float)(int)(u5 & 0xFFFu) - ((float)((int)in[(gid + 11u) & 255u] >> 12) * 0.125f)) * fc(f0 * 100.0f)) <= fc(fc(f0 * f0) * (float)(((uint)i5) & 0xFFFFu)))) break;
    }
    for (uint j4 = 0u; j4 < (((uint)((int)u4 / (int)((((uint)(((ulong)u4 * (ulong)1u) >> 32) << (0xa75a5dedu & 31u)) & 7u) + 1u))) & 7u); j4++) {
      if (((int)u1 < -1)) { fl2 = 1u; break; }
    }
    if (fl2 != 0u) continue;
  }
  u4 += fl2;
  for (uint r6 = 0u; r6 < (n & 3u); r6++) {
    barrier(CLK_LOCAL_MEM_FENCE);
    lm[lid] = u4;
    barrier(CLK_LOCAL_MEM_FENCE);
    u4 ^= lm[(lm[(lm[((uint)(char)((uint)r6)) % (uint)get_local_size(0)]) % (uint)get_local_size(0)]) % 64u];
    u0 += lm[(lid + 12u) % 64u];
    f0 = ((gid <= (u1 | lid)) ? f0 : f0);
  }
  out[gid] = ((((((((((((((((u0) * 0x01000193u ^ u1)) * 0x01000193u ^ u2)) * 0x01000193u ^ u3)) * 0x01000193u ^ u4)) * 0x01000193u ^ u5)) * 0x01000193u ^ as_uint(f0))) * 0x01000193u ^ pa[0])) * 0x01000193u ^ pa[5]);
}
