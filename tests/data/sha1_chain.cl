// Key derivation in the style of PBKDF2-HMAC-SHA1 (WPA runs 4,096 iterations): each work-item chains
// `rounds` SHA-1 compressions, each digest the next message, and writes the last digest. The step
// limits' defaults must let 4,096 rounds run (tests/test_step_limits.py, tools/step_budget.py).
uint rotl(uint x, uint n) { return (x << n) | (x >> (32u - n)); }

void sha1_block(uint *h, const uint *m) {
  uint w[16];
  for (int i = 0; i < 16; i++) w[i] = m[i];
  uint a = h[0], b = h[1], c = h[2], d = h[3], e = h[4];
  for (int t = 0; t < 80; t++) {
    if (t >= 16) {
      uint x = w[(t + 13) & 15] ^ w[(t + 8) & 15] ^ w[(t + 2) & 15] ^ w[t & 15];
      w[t & 15] = rotl(x, 1u);
    }
    uint f, k;
    if (t < 20) { f = (b & c) | (~b & d); k = 0x5A827999u; }
    else if (t < 40) { f = b ^ c ^ d; k = 0x6ED9EBA1u; }
    else if (t < 60) { f = (b & c) | (b & d) | (c & d); k = 0x8F1BBCDCu; }
    else { f = b ^ c ^ d; k = 0xCA62C1D6u; }
    uint tmp = rotl(a, 5u) + f + e + k + w[t & 15];
    e = d; d = c; c = rotl(b, 30u); b = a; a = tmp;
  }
  h[0] += a; h[1] += b; h[2] += c; h[3] += d; h[4] += e;
}

__kernel void sha1_chain(__global uint *out, __global const uint *seed, int rounds) {
  int g = get_global_id(0);
  uint h[5] = {0x67452301u, 0xEFCDAB89u, 0x98BADCFEu, 0x10325476u, 0xC3D2E1F0u};
  uint m[16];
  for (int i = 0; i < 16; i++) m[i] = seed[g] * 2654435761u + (uint)i;
  for (int round = 0; round < rounds; round++) {
    sha1_block(h, m);
    for (int i = 0; i < 5; i++) m[i] = h[i];
  }
  for (int i = 0; i < 5; i++) out[g * 5 + i] = h[i];
}
