// From the first GPU replay (issue 21): genfuzz seed 144, -O2. NVIDIA 580 (H200) differed from the CPU
// reference after OpSRem was fixed: {"out": "[31] np.uint32(1716890974) != np.uint32(1145819427) (1 lanes)"}
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
  uint u4 = in[(gid * 9u + 20u) & 255u];
  uint u5 = in[(gid * 11u + 25u) & 255u];
  float f0 = (float)(int)(in[(gid + 1u) & 255u] & 0xFFFu) * -0.125f;
  uint pa[8];
  for (uint t = 0u; t < 8u; t++) pa[t] = u0 + t * u1;
  u3 |= u4;
  f0 = fc((float)(((u5 >> (u0 & 31u))) & 0xFFFFu) / fnz((((int)u5 < -23) ? fc(f0 * -1.0f) : -0.25f)));
  switch (((u4 | (pa[(1u) & 7u] + u3))) % 3u) {
  case 2u: {
    u0 ^= (u2 | (pa[(4u) & 7u] / (in[(gid + 10u) & 255u] | 1u)));
    break;
  }
  case 1u: {
    break;
  }
  case 0u: {
    break;
  }
  default: {
  }
  }
  switch (((uint)(int)f0) % 5u) {
  case 1u:
  case 0u:
  case 3u: {
    if ((((uint)(int)2.0f | in[(u3) & 255u]) > in[(gid + 40u) & 255u])) {
      u3 += (u0 + u3);
    }
    u5 ^= ((u5 + u5) + u5);
  }
  case 4u:
  case 2u: {
    break;
  }
  default: {
  }
  }
  for (uint i1 = 0u; i1 < 1u; i1++) {
    switch ((in[(gid + 7u) & 255u]) % 4u) {
    case 2u:
    case 0u: {
      {
        uint g2 = 0u;
        while (g2++ < 3u && ((gid & 1u) == 3u)) {
          f0 = f0;
        }
      }
    }
    case 1u: {
      break;
    }
    case 3u: {
      break;
    }
    default: {
    }
    }
  }
  atomic_inc(&cnt[3]);
  for (uint i3 = 0u; i3 < (((in[(in[(u4) & 255u]) & 255u] % ((((uint)(int)(float)(int)(u1 & 0xFFFu) * max(u0, u5)) & 15u) + 1u))) & 7u); i3++) {
    u0 ^= (in[((uint)(((ulong)0x9718bfd8u + (ulong)u2 * 3ul) >> 27)) & 255u] % (((((int)u0 < -29) ? (uint)i3 : clz(u1)) & 15u) + 1u));
    f0 = fc(f0 * ((float)((int)u4 >> 12) * 0.125f));
  }
  out[gid] = ((((((((((((((((u0) * 0x01000193u ^ u1)) * 0x01000193u ^ u2)) * 0x01000193u ^ u3)) * 0x01000193u ^ u4)) * 0x01000193u ^ u5)) * 0x01000193u ^ as_uint(f0))) * 0x01000193u ^ pa[0])) * 0x01000193u ^ pa[5]);
}
