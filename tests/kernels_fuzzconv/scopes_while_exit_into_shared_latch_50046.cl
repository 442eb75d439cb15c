// fuzz convergence-50046 reduced (64 work-items in groups of 16, n = 6): a while loop in an if in a for(;;), whose
// exit and the if's else both reach the for's one latch at -O2; loop separation took the while's exit test (deep, in
// the if's braces) for a merged do's back edge, split the for, and the if's lanes went round without the others
#pragma OPENCL FP_CONTRACT OFF
static inline int safe_sdiv(int a, int b) { return (b == 0 || (a == (-2147483647 - 1) && b == -1)) ? a : a / b; }
static inline int safe_smod(int a, int b) { return (b == 0 || (a == (-2147483647 - 1) && b == -1)) ? 0 : a % b; }
static inline float fclampi(float x) { return x > 65536.0f ? 65536.0f : (x < -65536.0f ? -65536.0f : x); }
static inline uint hmix(uint h, uint x) { return (h ^ x) * 16777619u + 2654435769u; }
__kernel void k(__global uint *out, __global const uint *in, __global uint *cnt, __global float *fapprox, uint n)
{
    const uint gid = get_global_id(0);
    const uint lid = get_local_id(0);
    uint v0 = (uint)in[(gid + 53u) & 255u];
    uint v1 = (uint)in[(gid + 192u) & 255u];
    ulong v2 = ((ulong)in[(gid + 214u) & 255u] << 32) | in[(gid * 3u + 214u) & 255u];
    uchar v3 = (uchar)in[(gid + 52u) & 255u];
    uchar v4 = (uchar)in[(gid + 241u) & 255u];
    float f5 = (float)(as_int(in[(gid + 155u) & 255u]) % 4096);
    uint pa6[16];
    for (uint c = 0u; c < 16u; c++) pa6[c] = in[(gid * 16u + c) & 255u];
    {
        uint g6 = 0u;
        for (;;) {
            if (!(g6 < 6u && (as_uint(safe_sdiv(as_int(255u), as_int((uint)v4))) <= ((uint)v4 * (uint)v3)))) break; g6++;
            if ((((((uint)(int)f5) & 1u) == 1u) && (1777283023u >= v0)) || ((v0 ^= (uint)((as_int((uint)(v2 >> 0)) < 29))) & 1u)) {
                {
                    uint cj1 = 0u;
                    uint cl1 = (((max((uint)(v2 >> 13), (uint)(v2 >> 13)) >> ((lid << (v0 & 31u)) & 31u))) % 2u + 1u);
                    while (cj1 < cl1) {
                        cj1++;
                        v1 = sub_group_non_uniform_reduce_add(mul_hi(pa6[(v0) & 15u], v1));
                    }
                }
            }
        }
    }
    uint h = 0u;
    h = hmix(h, (uint)v0);
    h = hmix(h, (uint)v1);
    h = hmix(hmix(h, (uint)v2), (uint)(v2 >> 32));
    h = hmix(h, (uint)v3);
    h = hmix(h, (uint)v4);
    h = hmix(h, as_uint(f5));
    for (uint c = 0u; c < 16u; c++) h = hmix(h, pa6[c]);
    out[gid] = h;
}

