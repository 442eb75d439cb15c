// From the first GPU replay (issue 21): genfuzz seed 201, -O2. NVIDIA 580 (H200) differed from the CPU
// reference after OpSRem was fixed: {"out": "[3] np.uint32(1533564746) != np.uint32(3731395226) (16 lanes)", "cnt": "[2] np.uint32(4) != np.uint32(590408) (1 lanes)"}
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
  __local uint lm[24];
  uint u0 = in[(gid * 1u + 0u) & 255u];
  uint u1 = in[(gid * 3u + 5u) & 255u];
  uint u2 = in[(gid * 5u + 10u) & 255u];
  float f0 = (float)(int)(in[(gid + 1u) & 255u] & 0xFFFu) * -0.125f;
  float f1 = (float)(int)(in[(gid + 4u) & 255u] & 0xFFFu) * -0.125f;
  float f2 = (float)(int)(in[(gid + 7u) & 255u] & 0xFFFu) * 0.5f;
  uint pa[8];
  for (uint t = 0u; t < 8u; t++) pa[t] = u0 + t * u1;
  float pf[4];
  for (uint t = 0u; t < 4u; t++) pf[t] = (float)(int)(t + (u0 & 15u));
  for (uint r1 = 0u; r1 < (n & 3u); r1++) {
    barrier(CLK_LOCAL_MEM_FENCE);
    lm[lid] = u2;
    barrier(CLK_LOCAL_MEM_FENCE);
    u1 ^= lm[(pa[(((n | (uint)r1) & 914u)) & 7u]) % 24u];
    u2 += lm[(lid + 49u) % 24u];
    pa[((((u0 >= u2) ? 109u : (uint)(ushort)(u0)) + n)) & 7u] += lm[((uint)r1) % (uint)get_local_size(0)];
  }
  if (((uint)(int)fc(f2 - (float)(int)(354u & 0xFFFu)) != ((6u / (u1 | 1u)) / ((grp - u2) | 1u)))) {
    if ((((uint)(((ulong)u2 + (ulong)(uint)(u2 < 67u) * 3ul) >> 10) & 16u) != 0u)) {
      switch ((lm[(lm[(in[(gid + 34u) & 255u]) % 24u]) % 24u]) % 5u) {
      case 0u: {
        f1 = fc(f1 * (float)(int)(84u & 0xFFFu));
        u0 ^= 0xe6ee8af3u;
      }
      case 3u:
      case 4u: {
        u0 *= u2;
        f1 = fc(f1 * pf[((uint)(int)fc(f0 / fnz(f0))) & 3u]);
        break;
      }
      case 1u: {
        if ((lid == 4u)) break;
        atomic_or(&cnt[2], 1u << ((u0) & 31u));
        if (((gid & 4u) == 2u)) break;
      }
      default: {
        u1 |= (uint)(((ulong)626u * (ulong)(uint)(((ulong)u1 * (ulong)u2) >> 32)) >> 32);
      }
      }
    } else {
    }
  } else {
  }
  for (int i2 = (int)((755u) & 7u); i2 >= 0; i2--) {
    for (uint i3 = 0u; i3 < (((((in[(gid + 11u) & 255u] & u1) << (u2 & 31u)) >> (((uint)((int)u0 < (int)in[(gid + 13u) & 255u]) / ((uint)((int)gid % (int)((15u & 7u) + 1u)) | 1u)) & 31u))) & 3u); i3++) {
      for (uint i4 = 0u; i4 < (n & 1u); i4++) {
        if ((in[(gid + 21u) & 255u] == ((uint)(u1 < u0) + (lid - u0)))) break;
        atomic_sub(&cnt[6], (13u) & 15u);
        u0 ^= (u1 + u1);
        pf[(((pa[(u2) & 7u] >> (((0u <= in[(gid + 11u) & 255u]) ? u2 : in[(gid + 21u) & 255u]) & 31u)) + u0)) & 3u] = fc(f1 / fnz((float)((in[(grp) & 255u]) & 0xFFFFu)));
      }
    }
    if ((((uint)(u1 <= u1) - (u0 + grp)) < (uint)i2)) break;
  }
  {
    uint g5 = 0u;
    do {
      u2 += ((uint)g5 % ((pa[((u1 + u2)) & 7u] & 15u) + 1u));
      u1 = u2;
    } while (g5++ < 2u && !((pa[(615u) & 7u] % 5u) == 0u));
  }
  for (uint r6 = 0u; r6 < 2u; r6++) {
    barrier(CLK_LOCAL_MEM_FENCE);
    lm[lid] = in[(gid + 28u) & 255u];
    barrier(CLK_LOCAL_MEM_FENCE);
    u0 ^= lm[(pa[((uint)(int)0.333f) & 7u]) % 24u];
    u0 += lm[(lid + 59u) % 24u];
    uint fl7 = 0u;
    for (uint i8 = 0u; i8 < 7u; i8++) {
      for (uint j9 = 0u; j9 < 1u; j9++) {
        u2 += grp;
        if (((uint)(((ulong)(uint)(((ulong)in[(gid + 9u) & 255u] * (ulong)u0) >> 32) * (ulong)pa[(n) & 7u]) >> 32) != (uint)((n * u1) != (uint)(int)3.0f))) {
          switch (((u2 | pa[((uint)(u1 == u1)) & 7u])) % 5u) {
          case 3u: {
            u0 *= (lm[(u0) % (uint)get_local_size(0)] + 844u);
            if (((uint)(int)pf[(u2) & 3u] <= u0)) break;
            break;
          }
          case 1u: {
            break;
          }
          case 4u: {
          }
          }
        }
        if ((lid < 17u)) { fl7 = 1u; break; }
      }
      if (fl7 != 0u) break;
    }
    u2 += fl7;
  }
  out[gid] = ((((((((((((((((u0) * 0x01000193u ^ u1)) * 0x01000193u ^ u2)) * 0x01000193u ^ as_uint(f0))) * 0x01000193u ^ as_uint(f1))) * 0x01000193u ^ as_uint(f2))) * 0x01000193u ^ pa[0])) * 0x01000193u ^ pa[5])) * 0x01000193u ^ as_uint(pf[1]));
}
