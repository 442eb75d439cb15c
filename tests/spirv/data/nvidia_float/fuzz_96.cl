// From the first GPU replay (issue 21): genfuzz seed 96, -O2. NVIDIA 580 (H200) differed from the CPU
// reference after OpSRem was fixed: {"out": "[3] np.uint32(1244030446) != np.uint32(1244030447) (6 lanes)"}
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
  uint u4 = in[(gid * 9u + 20u) & 255u];
  float f0 = (float)(int)(in[(gid + 1u) & 255u] & 0xFFFu) * 0.25f;
  float f1 = (float)(int)(in[(gid + 4u) & 255u] & 0xFFFu) * 1.0f;
  if (((int)(uint)(ushort)((uint)(int)0.333f) < 15)) {
    u0 -= (((u2 | 6u) >> ((u4 * in[(gid + 37u) & 255u]) & 31u)) % (((0xb366bd15u + 0xe98d1e1cu) & 15u) + 1u));
    u4 ^= 0u;
    if ((((781u - (u0 | u1)) & 2u) != 0u)) {
      u2 ^= ((uint)(char)((u4 - u2)) - ((u3 * u0) << (u0 & 31u)));
      u3 += (((uint)(u2 <= u2) - grp) & (0xfd649a00u >> (in[(u3) & 255u] & 31u)));
    } else if ((10u >= (uint)((int)453u < (int)(9u / (u4 | 1u))))) {
      {
        uint g1 = 0u;
        do {
          u1 |= in[(((u1 - u0) + in[(gid + 17u) & 255u])) & 255u];
          u0 |= (in[((u2 + u4)) & 255u] % (((u4 + u3) & 15u) + 1u));
        } while (g1++ < 1u && (((int)(0xbf7f1917u + u2) < 41) || ((u3 += 5u) > 223u)));
      }
    } else {
    }
  }
  if ((lid < 8u)) {
    atomic_sub(&cnt[6], (2u) & 15u);
    switch ((u3) % 5u) {
    case 0u: {
      {
        uint g2 = 0u;
        while (g2++ < 5u && (((uint)((u1 + 888u) >= in[(gid + 35u) & 255u]) % 2u) == 0u)) {
          if (((u1 & 32u) != 0u)) continue;
          u3 |= ((((uint)g2 | n) + u1) ^ (u4 / (u4 | 1u)));
        }
      }
      for (uint i3 = 0u; i3 < (n & 3u); i3++) {
        u3 += ((u2 + u0) + ((u1 > u2) ? ((uint)i3 ^ u2) : (u0 - u3)));
        u2 ^= grp;
      }
      break;
    }
    case 3u: {
      break;
    }
    case 1u: {
      break;
    }
    case 4u: {
    }
    default: {
    }
    }
  } else {
  }
  for (uint r4 = 0u; r4 < (n % 3u) + 1u; r4++) {
    barrier(CLK_LOCAL_MEM_FENCE);
    lm[lid] = 477u;
    barrier(CLK_LOCAL_MEM_FENCE);
    u4 ^= lm[(u1) % 8u];
    u0 += lm[(lid + 7u) % 8u];
    u4 *= (u1 ^ u3);
    f1 = fc(f0 / fnz(fc((float)((u2) & 0xFFFFu) - (float)((u3) & 0xFFFFu))));
    u0 ^= (u0 % ((n & 15u) + 1u));
  }
  out[gid] = ((((((((((((u0) * 0x01000193u ^ u1)) * 0x01000193u ^ u2)) * 0x01000193u ^ u3)) * 0x01000193u ^ u4)) * 0x01000193u ^ as_uint(f0))) * 0x01000193u ^ as_uint(f1));
}
