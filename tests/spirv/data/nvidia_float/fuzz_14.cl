// From the first GPU replay (issue 21): genfuzz seed 14, -O2. NVIDIA 580 (H200) differed from the CPU
// reference after OpSRem was fixed: {"out": "[2] np.uint32(3604071765) != np.uint32(3520185282) (3 lanes)"}
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
  float f0 = (float)(int)(in[(gid + 1u) & 255u] & 0xFFFu) * -0.125f;
  float f1 = (float)(int)(in[(gid + 4u) & 255u] & 0xFFFu) * -0.125f;
  float f2 = (float)(int)(in[(gid + 7u) & 255u] & 0xFFFu) * 0.25f;
  if (((gid & 6u) == 1u)) {
    for (uint i1 = 0u; i1 < ((u2) & 7u); i1++) {
      f1 = fc(f1 - fc(fc(fc(f0 * 100.0f) - fc(f2 / fnz(f1))) * f0));
    }
    u0 += (((15u / (3u | 1u)) * (uint)(u2 != u0)) & in[(n) & 255u]);
  } else {
    if (((((u2 != in[(gid + 6u) & 255u]) && (u1 < u2)) || ((int)u1 < -18)) && (u0 < in[(gid + 16u) & 255u]))) {
      atomic_min(&cnt[5], (uint)((int)u2 % (int)((((u1 % ((u1 & 15u) + 1u)) / ((uint)(short)(u2) | 1u)) & 7u) + 1u)));
      f1 = fc(f1 + f0);
    } else {
      u1 += in[(gid + 3u) & 255u];
      switch ((clz(u0)) % 6u) {
      case 3u: {
        atomic_min(&cnt[5], (in[(0xdd2c5964u) & 255u] * 0x8add724au));
        u1 = (in[(gid + 19u) & 255u] / (u2 | 1u));
        break;
      }
      case 2u: {
      }
      case 0u: {
        break;
      }
      case 4u: {
        break;
      }
      default: {
      }
      }
    }
  }
  for (uint r2 = 0u; r2 < (n % 3u) + 1u; r2++) {
    barrier(CLK_GLOBAL_MEM_FENCE);
    {
      uint g3 = 0u;
      do {
        uint fl4 = 0u;
        for (uint i5 = 0u; i5 < (((uint)(int)fc(f2 * 0.333f)) & 1u); i5++) {
          for (uint j6 = 0u; j6 < 1u; j6++) {
            for (uint i7 = 0u; i7 <= 0u; i7 += 2u) {
              atomic_inc(&cnt[3]);
              f0 = fc(f0 - fc((float)(int)(u0 & 0xFFFu) * 0.5f));
              u0 = (u2 + 13u);
            }
            if ((((u2 % 3u) == 0u) || ((u0 += 8u) > 393u))) { fl4 = 1u; break; }
          }
          if (fl4 != 0u) continue;
        }
        u0 += fl4;
      } while (g3++ < 1u && ((gid & 3u) == 2u));
    }
  }
  if (((8u != (u0 + 497u)) && (((gid & 3u) == 2u) || ((gid & 6u) == 1u)))) {
    switch ((((uint)((uint)((int)0xcff0d752u < (int)u1) <= (16u + u1)) + u1)) % 2u) {
    case 1u: {
      f1 = fc(f1 + fc(fc(fc(f2 / fnz(f2)) * fc(f2 - (float)(int)(u2 & 0xFFFu))) + fc(((float)((int)u2 >> 12) * 0.125f) / fnz((float)((909u) & 0xFFFFu)))));
    }
    case 0u: {
      u2 ^= 1u;
      if ((f2 >= fc((float)((u0) & 0xFFFFu) - fc((float)(int)(0xb380f779u & 0xFFFu) * -0.25f)))) {
        f1 = fc(f1 - -7.0f);
        u0 += (u2 ^ (uint)((int)(u1 + u0) >> (u0 & 31u)));
      } else {
        u2 = (((-7.0f == ((float)((int)15u >> 12) * 0.125f)) ? (uint)(short)(u2) : (u2 + u1)) << (u1 & 31u));
        f0 = (float)(int)(u2 & 0xFFFu);
        u1 += clz((uint)(((ulong)((u0 <= grp) ? u2 : u2) + (ulong)(u0 + u2) * 3ul) >> 12));
        u0 ^= in[(gid + 20u) & 255u];
      }
      break;
    }
    default: {
    }
    }
  }
  out[gid] = ((((((((((u0) * 0x01000193u ^ u1)) * 0x01000193u ^ u2)) * 0x01000193u ^ as_uint(f0))) * 0x01000193u ^ as_uint(f1))) * 0x01000193u ^ as_uint(f2));
}
