// Reduced (by hand and cvise) from random program 19 of issue 21: still wrong on Mesa 22.3's lavapipe at -O2 with
// local size 8 or 32 (right with local size 1; the IR interpreter and the JIT agree). Cause not found yet.
__kernel void k(__global const uint *in, __global uint *out, __global uint *cnt, uint n) {
  uint gid = get_global_id(0);
  uint lid = get_local_id(0);
  uint u0 = in[gid & 255u];
  uint u1 = in[(gid * 3u + 5u) & 255u];
  uint u2 = in[(gid * 5u + 10u) & 255u];
  uint pa[8];
  for (uint t = 0u; t < 8u; t++) pa[t] = u0 + t * u1;
  uint g5 = 0u;
  do {
    for (uint i6 = 0u; i6 < ((pa[(in[(u2) & 255u]) & 7u]) & 3u); i6++) {
      for (int i7 = 1; i7 >= 0; i7--) {
        if (lid > 5u) continue;
        u2 |= (((uint)i7 | in[(u0) & 255u]) - u0);
      }
      pa[(u0 & u1) & 7u] ^= u2;
      u0 |= (uint)((2u / ((u0 % 6u) | 1u)) != u2);
    }
  } while (g5++ < 1u && ((int)((198u << (in[(gid + 2u) & 255u] & 31u)) % (((uint)((int)713u < (int)in[(gid + 4u) & 255u]) & 15u) + 1u)) < 38));
  out[gid] = ((u0 * 0x01000193u ^ u1) * 0x01000193u ^ u2) * 0x01000193u ^ pa[0] ^ pa[5];
}
