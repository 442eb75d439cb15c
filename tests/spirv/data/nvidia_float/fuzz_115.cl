// From the first GPU replay (issue 21): genfuzz seed 115, -O2. NVIDIA 580 (H200) differed from the CPU
// reference after OpSRem was fixed: {"out": "[52] np.uint32(3853224515) != np.uint32(3853224512) (1 lanes)"}
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
  __local uint lm[32];
  uint u0 = in[(gid * 1u + 0u) & 255u];
  uint u1 = in[(gid * 3u + 5u) & 255u];
  uint u2 = in[(gid * 5u + 10u) & 255u];
  uint u3 = in[(gid * 7u + 15u) & 255u];
  uint u4 = in[(gid * 9u + 20u) & 255u];
  float f0 = (float)(int)(in[(gid + 1u) & 255u] & 0xFFFu) * 0.25f;
  if ((((uint)(in[(gid + 33u) & 255u] <= (in[(gid + 40u) & 255u] >> (u1 & 31u))) % 4u) == 0u)) {
    if (((gid & 6u) == 2u)) {
      f0 = fc(f0 + fc((float)(int)(u4 & 0xFFFu) * -0.25f));
      switch ((10u) % 6u) {
      case 3u: {
        if (((u3 + u2) == ((u4 + u2) / ((in[(gid + 35u) & 255u] ^ u4) | 1u)))) break;
        atomic_xor(&cnt[4], (((u1 + 4u) + u0) / ((u4 + u1) | 1u)));
        break;
      }
      case 5u: {
        u0 -= 0x94eeb4ceu;
        break;
      }
      case 0u: {
        break;
      }
      case 1u:
      case 2u: {
      }
      }
    }
  } else {
  }
  if (((uint)((uint)(in[(gid + 21u) & 255u] <= u1) >= (uint)(char)(u2)) != u3)) {
    switch (((((11u + in[(gid + 18u) & 255u]) % ((in[(in[(gid + 24u) & 255u]) & 255u] & 15u) + 1u)) + u4)) % 7u) {
    case 2u: {
      if (((((2u != u0) || ((u3 += 2u) > 0x3d53948au)) || ((u1 += 1u) > 602u)) && (((int)u2 < 21) && (0u != u2)))) {
        f0 = fc(f0 + fc((((int)16u < -7) ? fc(0.5f * 0.0f) : (float)((lid) & 0xFFFFu)) / fnz((((int)u4 < -32) ? fc(((float)((int)u4 >> 12) * 0.125f) - f0) : fc(f0 + f0)))));
      } else {
        u4 -= in[(gid + 25u) & 255u];
        u3 |= 2u;
      }
    }
    case 0u: {
      if (((lid < 2u) || ((in[(gid + 1u) & 255u] & 2u) != 0u))) break;
    }
    case 4u: {
      break;
    }
    case 1u:
    case 5u: {
      break;
    }
    }
  }
  atomic_max(&cnt[1], (984u & u3));
  u3 ^= (((u0 ^ u3) <= in[(gid + 40u) & 255u]) ? (uint)((int)(uint)(uchar)(878u) < (int)u4) : (uint)(short)((uint)(short)(in[(gid + 32u) & 255u])));
  u1 += 0u;
  f0 = fc(f0 - 3.0f);
  {
    uint g1 = 0u;
    while (g1++ < 3u && (((uint)((uint)(uchar)(u3) >= (u1 + u2)) % 2u) == 0u)) {
      {
        uint g2 = 0u;
        while (g2++ < 2u && (lid == 12u)) {
          u1 += (((u1 / ((uint)g2 | 1u)) + u0) + u4);
        }
      }
    }
  }
  for (uint r3 = 0u; r3 < (n & 3u); r3++) {
    barrier(CLK_LOCAL_MEM_FENCE);
    lm[lid] = ((gid + gid) - ((u4 % ((u0 & 15u) + 1u)) ^ (u1 + 6u)));
    barrier(CLK_LOCAL_MEM_FENCE);
    u0 ^= lm[((11u | ((u2 / (u1 | 1u)) & 340u))) % 32u];
    u1 += lm[(lid + 63u) % 32u];
    u0 += (uint)((int)u2 < (int)(n >> (u3 & 31u)));
    if (((((u3 % 5u) == 0u) || ((uint)r3 == lid)) && ((u1 += 3u) > 14u))) {
      {
        uint g4 = 0u;
        do {
          if (((lid == 11u) || (lid == 4u))) {
            u3 = u3;
            u0 += ((uint)(int)fc(((float)((int)(uint)g4 >> 12) * 0.125f) / fnz(f0)) + 3u);
          } else {
          }
        } while (g4++ < 1u && (((lm[(u1) % (uint)get_local_size(0)] & 1u) != 0u) || ((gid & 7u) == 0u)));
      }
    } else {
    }
  }
  out[gid] = ((((((((((u0) * 0x01000193u ^ u1)) * 0x01000193u ^ u2)) * 0x01000193u ^ u3)) * 0x01000193u ^ u4)) * 0x01000193u ^ as_uint(f0));
}
