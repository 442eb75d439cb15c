// Random program 5 of issue 21 (a generator of OpenCL C programs; Mesa 22.3's lavapipe got it wrong at -O2:
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
  uint u4 = in[(gid * 9u + 20u) & 255u];
  float f0 = (float)(int)(in[(gid + 1u) & 255u] & 0xFFFu) * 0.25f;
  float f1 = (float)(int)(in[(gid + 4u) & 255u] & 0xFFFu) * 1.0f;
  float f2 = (float)(int)(in[(gid + 7u) & 255u] & 0xFFFu) * -0.125f;
  uint pa[8];
  for (uint t = 0u; t < 8u; t++) pa[t] = u0 + t * u1;
  u1 -= in[(gid + 8u) & 255u];
  for (int i1 = (int)((in[(gid + 13u) & 255u]) & 3u); i1 >= 0; i1--) {
    uint fl2 = 0u;
    for (uint i3 = 0u; i3 < ((in[(gid + 40u) & 255u]) & 3u); i3++) {
      atomic_sub(&cnt[6], (u1) & 15u);
      for (uint j4 = 0u; j4 < ((((uint)(((ulong)(u2 / (u2 | 1u)) * (ulong)(67u * u2)) >> 32) % (((uint)(ushort)((u0 / (u2 | 1u))) & 15u) + 1u))) & 1u); j4++) {
        if ((f1 == ((((grp & 4u) != 0u) && (u0 <= u4)) ? fc(f2 * f2) : fc((float)(int)(316u & 0xFFFu) - f0)))) {
          u4 ^= in[((u0 >> ((u4 % ((u3 & 15u) + 1u)) & 31u))) & 255u];
        } else {
        }
        if ((((u1 & 8u) != 0u) || (lid < 16u))) { fl2 = 1u; break; }
      }
      if (fl2 != 0u) continue;
    }
    u2 += fl2;
  }
  u0 -= (pa[((u2 / (514u | 1u))) & 7u] + u2);
  {
    uint g5 = 0u;
    while (g5++ < 5u && ((uint)(int)((grp == 11u) ? f1 : f1) != 365u)) {
      f1 = fc(f1 + fc(fc(fc(f1 - f0) * 100.0f) * -7.0f));
      {
        uint g6 = 0u;
        do {
          for (uint i7 = 0u; i7 < 1u; i7++) {
            if ((((42u / ((uint)(u1 < u1) | 1u)) & 8u) != 0u)) break;
          }
        } while (g6++ < 1u && ((int)(uint)g5 < 34));
      }
    }
  }
  out[gid] = ((((((((((((((((((u0) * 0x01000193u ^ u1)) * 0x01000193u ^ u2)) * 0x01000193u ^ u3)) * 0x01000193u ^ u4)) * 0x01000193u ^ as_uint(f0))) * 0x01000193u ^ as_uint(f1))) * 0x01000193u ^ as_uint(f2))) * 0x01000193u ^ pa[0])) * 0x01000193u ^ pa[5]);
}
