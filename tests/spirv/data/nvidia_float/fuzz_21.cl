// From the first GPU replay (issue 21): genfuzz seed 21, -O2. NVIDIA 580 (H200) differed from the CPU
// reference after OpSRem was fixed: {"out": "[2] np.uint32(1271023529) != np.uint32(3490047912) (1 lanes)"}
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
  __local uint lm[16];
  __local uint lc;
  uint u0 = in[(gid * 1u + 0u) & 255u];
  uint u1 = in[(gid * 3u + 5u) & 255u];
  uint u2 = in[(gid * 5u + 10u) & 255u];
  uint u3 = in[(gid * 7u + 15u) & 255u];
  float f0 = (float)(int)(in[(gid + 1u) & 255u] & 0xFFFu) * 0.25f;
  float f1 = (float)(int)(in[(gid + 4u) & 255u] & 0xFFFu) * 0.25f;
  for (uint r1 = 0u; r1 < (n & 3u); r1++) {
    barrier(CLK_LOCAL_MEM_FENCE);
    lm[lid] = (((u3 ^ u2) + u0) + ((n + (uint)r1) ^ in[(gid + 15u) & 255u]));
    barrier(CLK_LOCAL_MEM_FENCE);
    u0 ^= lm[((((uint)r1 - (in[(gid + 26u) & 255u] >> (u3 & 31u))) % (((uint)(short)((in[(gid + 10u) & 255u] ^ n)) & 15u) + 1u))) % 16u];
    u0 += lm[(lid + 63u) % 16u];
    barrier(CLK_LOCAL_MEM_FENCE);
    if (lid == 0u) lc = 0u;
    barrier(CLK_LOCAL_MEM_FENCE);
    if ((lid == 16u)) atomic_add(&lc, (637u) & 255u);
    barrier(CLK_LOCAL_MEM_FENCE);
    u0 ^= lc;
    {
      uint g2 = 0u;
      while (g2++ < 5u && ((((u1 < u1) || (u0 >= (uint)r1)) || !((0x7dac664cu & 16u) != 0u)) || !((gid & 2u) == 1u))) {
        for (uint i3 = 0u; i3 < (((u2 + 7u)) & 1u); i3++) {
          uint fl4 = 0u;
          for (uint i5 = 0u; i5 < (n & 1u); i5++) {
            u0 += (uint)(int)fc((float)(((uint)i5) & 0xFFFFu) * 2.0f);
            for (uint j6 = 0u; j6 < ((gid) & 1u); j6++) {
              if (((int)((u1 ^ u2) << ((u3 + lid) & 31u)) < -33)) { fl4 = 1u; break; }
            }
            if (fl4 != 0u) break;
            if ((((uint)((int)u2 / (int)((u1 & 7u) + 1u)) > u3) && ((u1 += 9u) > 618u))) break;
          }
          u0 += fl4;
        }
        f0 = fc(f0 + 3.0f);
      }
    }
  }
  u3 *= 752u;
  u1 = (uint)(ushort)((uint)(short)(u0));
  if ((in[(lm[(u1) % 16u]) & 255u] < u1)) {
    {
      uint g7 = 0u;
      while (g7++ < 3u && (((uint)((uint)(short)(u0) < (u1 + grp)) % 3u) == 0u)) {
        uint fl8 = 0u;
        for (uint i9 = 0u; i9 < ((lm[((u3 ^ 9u)) % (uint)get_local_size(0)]) & 3u); i9++) {
          f0 = fc(f0 - fc(((float)((int)u2 >> 12) * 0.125f) / fnz(fc(fc(f1 / fnz((float)(int)(u3 & 0xFFFu))) - fc(2.0f * -7.0f)))));
          for (uint j10 = 0u; j10 < (n & 3u); j10++) {
            if (((gid & 4u) == 2u)) { fl8 = 1u; break; }
          }
          if (fl8 != 0u) break;
        }
        u0 += fl8;
        if (((gid & 7u) == 2u)) {
          u3 += u1;
        } else {
          if (((in[(gid + 27u) & 255u] & 16u) != 0u)) { out[gid] = ((((((((((u0) * 0x01000193u ^ u1)) * 0x01000193u ^ u2)) * 0x01000193u ^ u3)) * 0x01000193u ^ as_uint(f0))) * 0x01000193u ^ as_uint(f1)); return; }
        }
      }
    }
  }
  out[gid] = ((((((((((u0) * 0x01000193u ^ u1)) * 0x01000193u ^ u2)) * 0x01000193u ^ u3)) * 0x01000193u ^ as_uint(f0))) * 0x01000193u ^ as_uint(f1));
}
