// From the first GPU replay (issue 21): genfuzz seed 199, -O2. NVIDIA 580 (H200) differed from the CPU
// reference after OpSRem was fixed: {"out": "[5] np.uint32(3472835090) != np.uint32(3433823499) (19 lanes)"}
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
  uint u4 = in[(gid * 9u + 20u) & 255u];
  float f0 = (float)(int)(in[(gid + 1u) & 255u] & 0xFFFu) * -0.125f;
  float f1 = (float)(int)(in[(gid + 4u) & 255u] & 0xFFFu) * 0.25f;
  float f2 = (float)(int)(in[(gid + 7u) & 255u] & 0xFFFu) * -0.125f;
  uint pa[8];
  for (uint t = 0u; t < 8u; t++) pa[t] = u0 + t * u1;
  float pf[4];
  for (uint t = 0u; t < 4u; t++) pf[t] = (float)(int)(t + (u0 & 15u));
  f2 = fc(fc(((in[(gid + 1u) & 255u] >= lid) ? ((float)((int)u4 >> 12) * 0.125f) : ((float)((int)u3 >> 12) * 0.125f)) / fnz(fc((float)(int)(u2 & 0xFFFu) + f2))) * (float)((u4) & 0xFFFFu));
  for (uint i1 = 0u; i1 < ((u3) & 7u); i1++) {
    if ((lid == 34u)) continue;
    if ((fc(pf[(430u) & 3u] + ((float)((int)u0 >> 12) * 0.125f)) != f1)) {
      if ((((gid & 4u) == 0u) || (((u2 + u1) % 4u) == 0u))) break;
      for (uint i2 = 0u; i2 < (n & 1u); i2++) {
        u1 *= (((u1 + u1) | (u2 + u3)) + u0);
        if ((((uint)(((ulong)u3 * (ulong)u0) >> 32) & 8u) != 0u)) break;
        f1 = fc(f1 - fc(fc(fc(f0 / fnz(-0.25f)) / fnz(fc(((float)((int)u4 >> 12) * 0.125f) * 0.1f))) - fc(fc(-0.25f + f1) / fnz(fc(f0 * 1.0f)))));
      }
    } else {
    }
  }
  for (uint r3 = 0u; r3 < (n % 3u) + 1u; r3++) {
    barrier(CLK_LOCAL_MEM_FENCE);
    if (lid == 0u) lc = 0u;
    barrier(CLK_LOCAL_MEM_FENCE);
    if (((uint)((in[(gid + 12u) & 255u] * 11u) > (in[(gid + 5u) & 255u] << (0xdec5748eu & 31u))) == ((uint)r3 + in[(gid + 22u) & 255u]))) atomic_add(&lc, (((((u3 & 2u) != 0u) && ((u4 == u3) || (u2 > 748u))) ? (u2 >> (u0 & 31u)) : u0)) & 255u);
    barrier(CLK_LOCAL_MEM_FENCE);
    u3 ^= lc;
    pa[(lid) & 7u] += (uint)(ushort)(in[(560u) & 255u]);
  }
  if ((lid < 18u)) {
    switch (((((((132u & 1u) != 0u) && ((0x96d3be9fu & 1u) != 0u)) ? u1 : u0) & ((u0 + 6u) + 915u))) % 6u) {
    case 4u: {
      switch ((in[(gid + 31u) & 255u]) % 6u) {
      case 2u: {
        pa[(u1) & 7u] ^= (((u4 + u3) | u4) + u4);
        f2 = fc(f2 * f0);
        u0 |= (!(lid > 59u) ? ((in[(gid + 31u) & 255u] - 0xa57fc03fu) & (uint)(int)f2) : in[((in[(gid + 4u) & 255u] + u0)) & 255u]);
        break;
      }
      case 0u:
      case 4u: {
        pf[((!((gid & 3u) == 0u) ? ((0x463bbcd5u + u4) / (in[(n) & 255u] | 1u)) : (gid + u2))) & 3u] = (float)((n) & 0xFFFFu);
        pf[(in[(gid + 17u) & 255u]) & 3u] = f0;
        break;
      }
      case 1u: {
        pa[(0x1b0686cfu) & 7u] ^= u2;
      }
      case 5u: {
      }
      default: {
      }
      }
    }
    case 0u:
    case 5u: {
      break;
    }
    case 3u: {
      break;
    }
    default: {
    }
    }
  } else {
  }
  out[gid] = ((((((((((((((((((((u0) * 0x01000193u ^ u1)) * 0x01000193u ^ u2)) * 0x01000193u ^ u3)) * 0x01000193u ^ u4)) * 0x01000193u ^ as_uint(f0))) * 0x01000193u ^ as_uint(f1))) * 0x01000193u ^ as_uint(f2))) * 0x01000193u ^ pa[0])) * 0x01000193u ^ pa[5])) * 0x01000193u ^ as_uint(pf[1]));
}
