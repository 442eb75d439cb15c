// Random program 118 of issue 21 (a generator of OpenCL C programs; Mesa 22.3's lavapipe got it wrong at -O2:
// atomics in loops that lanes leave at different iterations). tests/spirv/test_vulkan_devices.py runs it.
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
  float f0 = (float)(int)(in[(gid + 1u) & 255u] & 0xFFFu) * 0.5f;
  float f1 = (float)(int)(in[(gid + 4u) & 255u] & 0xFFFu) * 0.25f;
  uint pa[8];
  for (uint t = 0u; t < 8u; t++) pa[t] = u0 + t * u1;
  atomic_sub(&cnt[6], (((uint)(int)fc(f1 * 0.5f) + u0)) & 15u);
  if ((((u1 == u1) && ((u0 += 3u) > 0x464cbcc2u)) || ((u0 += 3u) > 8u))) {
    {
      uint g1 = 0u;
      do {
        if ((lid == 6u)) {
          u3 |= ((in[(gid + 3u) & 255u] << ((u3 / (u3 | 1u)) & 31u)) + 11u);
          u0 += u3;
          pa[(u1) & 7u] ^= ((uint)(int)fc(((float)((int)u2 >> 12) * 0.125f) * 1.5f) + u0);
        }
      } while (g1++ < 1u && (((u3 < in[(gid + 1u) & 255u]) || ((398u & 16u) != 0u)) || ((gid & 7u) == 0u)));
    }
    uint fl2 = 0u;
    for (uint i3 = 0u; i3 < (((uint)(grp <= (u3 - (u3 | u3)))) & 3u); i3++) {
      u0 |= grp;
      for (uint j4 = 0u; j4 < (n & 7u); j4++) {
        if ((((15u + 6u) & 32u) != 0u)) { fl2 = 1u; break; }
      }
      if (fl2 != 0u) break;
    }
    u0 += fl2;
  }
  u1 -= (in[(gid + 31u) & 255u] / (u0 | 1u));
  if (((uint)((int)u3 % (int)(((uint)(int)f1 & 7u) + 1u)) != ((u1 * u2) + u2))) {
    if ((((gid & 5u) == 2u) || (((in[(gid + 3u) & 255u] % 2u) == 0u) && ((float)(int)(u3 & 0xFFFu) < f1)))) {
      u1 -= ((11u & u0) ^ ((lid < 20u) ? (uint)(short)(in[(gid + 28u) & 255u]) : (uint)(((ulong)gid + (ulong)in[(gid + 7u) & 255u] * 3ul) >> 18)));
      {
        uint g5 = 0u;
        do {
          atomic_xor(&cnt[4], (uint)(ushort)(pa[(in[(u2) & 255u]) & 7u]));
          f0 = f1;
          if (!((gid & 3u) == 0u)) break;
        } while (g5++ < 2u && (!(lid < 22u) || !((5u % 3u) == 0u)));
      }
      f1 = (float)(((u1 - (u2 % ((304u & 15u) + 1u)))) & 0xFFFFu);
    } else if ((f1 == fc(((u2 < in[(gid + 3u) & 255u]) ? -7.0f : f0) + ((u3 == 1u) ? f1 : f1)))) {
    } else {
    }
  }
  out[gid] = ((((((((((((((u0) * 0x01000193u ^ u1)) * 0x01000193u ^ u2)) * 0x01000193u ^ u3)) * 0x01000193u ^ as_uint(f0))) * 0x01000193u ^ as_uint(f1))) * 0x01000193u ^ pa[0])) * 0x01000193u ^ pa[5]);
}
