// From the first GPU replay (issue 21): genfuzz seed 59, -O2. NVIDIA 580 (H200) differed from the CPU
// reference after OpSRem was fixed: {"out": "[6] np.uint32(3613741785) != np.uint32(3613741766) (2 lanes)"}
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
  __local uint lm[8];
  uint u0 = in[(gid * 1u + 0u) & 255u];
  uint u1 = in[(gid * 3u + 5u) & 255u];
  uint u2 = in[(gid * 5u + 10u) & 255u];
  uint u3 = in[(gid * 7u + 15u) & 255u];
  float f0 = (float)(int)(in[(gid + 1u) & 255u] & 0xFFFu) * 1.0f;
  barrier(CLK_LOCAL_MEM_FENCE);
  lm[lid] = (((in[(gid + 19u) & 255u] + u0) | (u0 ^ 0xa5f3eee8u)) + 0x92f293c4u);
  barrier(CLK_LOCAL_MEM_FENCE);
  u1 ^= lm[((in[(12u) & 255u] ^ ((u3 | u2) >> ((u1 + u3) & 31u)))) % 8u];
  u1 += lm[(lid + 68u) % 8u];
  if (((gid & 6u) == 2u)) {
    if (((uint)(int)fc(f0 + f0) < (grp + u0))) {
      u3 += (uint)(0xd12e9be4u >= (uint)(int)f0);
      u2 |= u0;
      {
        uint g1 = 0u;
        do {
          if ((((in[(gid + 14u) & 255u] & 2u) != 0u) && ((980u / (7u | 1u)) <= (15u ^ u3)))) break;
          if (!(((u3 / (u1 | 1u)) & 32u) != 0u)) break;
        } while (g1++ < 4u && ((int)((0xdb0e1151u + grp) + u2) < 23));
      }
    } else {
      if (((((u1 + u3) - u2) & 2u) != 0u)) {
        u0 |= ((uint)(int)-7.0f % ((lm[((u1 ^ in[(gid + 31u) & 255u])) % 8u] & 15u) + 1u));
      }
      if (((uint)(lm[(u3) % (uint)get_local_size(0)] != u3) == ((15u + u2) + gid))) {
        u0 += u1;
      } else if (((((0u + 4u) & 4u) != 0u) || (!(68u < 603u) && !(u0 <= 0x2c7516c1u)))) {
        u0 += (uint)(((in[(gid + 38u) & 255u] >> (572u & 31u)) % (((u1 + 0xaf6d89c8u) & 15u) + 1u)) >= u2);
        u0 += (((u0 % ((in[(gid + 14u) & 255u] & 15u) + 1u)) + u2) % ((u2 & 15u) + 1u));
        u3 += 5u;
      } else {
        u3 -= ((u2 - (uint)(int)f0) - (u0 - (u1 & u1)));
      }
    }
  } else {
    if ((lid < 8u)) {
      switch (((in[(gid + 4u) & 255u] + 95u)) % 4u) {
      case 2u: {
        f0 = (((int)(u3 + u3) < 1) ? fc(fc(f0 / fnz(f0)) * 1.0f) : fc(fc(f0 + 0.5f) - fc((float)(int)(u0 & 0xFFFu) / fnz(f0))));
      }
      case 0u: {
        u3 += in[(((in[(gid + 33u) & 255u] + u2) + 13u)) & 255u];
        u3 += u3;
        u2 = (935u + u0);
        break;
      }
      case 1u: {
        u1 *= (((int)lm[(in[(gid + 29u) & 255u]) % 8u] < -14) ? (uint)(int)fc(f0 * f0) : in[(gid + 26u) & 255u]);
        u2 = (uint)(char)((uint)((u0 | u3) >= (uint)(13u > 412u)));
      }
      case 3u: {
      }
      default: {
      }
      }
    }
  }
  out[gid] = ((((((((u0) * 0x01000193u ^ u1)) * 0x01000193u ^ u2)) * 0x01000193u ^ u3)) * 0x01000193u ^ as_uint(f0));
}
