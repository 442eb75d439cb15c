// fuzz convergence-1004 (unreduced): at -O2 -g the scopes rule gives a sub-group operation in one loop an anchor
// in another loop's header, which breaks the cycle rule (the validator rejects the read kernel: a crash).
#pragma OPENCL FP_CONTRACT OFF
static inline int safe_sdiv(int a, int b) { return (b == 0 || (a == (-2147483647 - 1) && b == -1)) ? a : a / b; }
static inline int safe_smod(int a, int b) { return (b == 0 || (a == (-2147483647 - 1) && b == -1)) ? 0 : a % b; }
static inline float fclampi(float x) { return x > 65536.0f ? 65536.0f : (x < -65536.0f ? -65536.0f : x); }
static inline uint hmix(uint h, uint x) { return (h ^ x) * 16777619u + 2654435769u; }
__kernel void k(__global uint *out, __global const uint *in, __global uint *cnt, __global float *fapprox, uint n)
{
    const uint gid = get_global_id(0);
    const uint lid = get_local_id(0);
    ulong v0 = ((ulong)in[(gid + 189u) & 255u] << 32) | in[(gid * 3u + 189u) & 255u];
    ulong v1 = ((ulong)in[(gid + 72u) & 255u] << 32) | in[(gid * 3u + 72u) & 255u];
    uchar v2 = (uchar)in[(gid + 217u) & 255u];
    uint v3 = gid;
    float f4 = (float)(as_int(in[(gid + 50u) & 255u]) % 4096);
    float f5 = (float)(as_int(in[(gid + 136u) & 255u]) % 4096);
    float f6 = (float)(as_int(in[(gid + 124u) & 255u]) % 4096);
    uint pa7[4];
    for (uint c = 0u; c < 4u; c++) pa7[c] = in[(gid * 4u + c) & 255u];
    v3 ^= as_uint(sub_group_scan_inclusive_min(as_int((lid - pa7[(((((gid) & 1u) == 0u) ? 3u : (uint)(int)f4)) & 3u]))));
    if (n >= 313u) {
        f4 = fclampi((((float)(as_int((uint)v2) % 4096) + f4) + f5));
        pa7[((uint)(v1 >> 0)) & 3u] = add_sat((1u & (uint)(v1 >> 32)), 16u);
        v3 ^= sub_group_non_uniform_reduce_add((gid & (uint)(v1 >> 13)));
        v0 = (v0 * (ulong)((uint)(v0 >> 32) | 1u)) + (((ulong)(((v3 << ((uint)v2 & 31u)) & (lid << ((uint)v2 & 31u))) % (v3 | 1u))) << 7);
    }
    {
        uint lim2 = 2u;
        for (uint i1 = 0u; i1 < lim2; i1++) {
            {
                uint lim5 = (((((uint)v2 << ((uint)v2 & 31u)) & (1u * 2313486739u))) % 5u + 1u);
                for (uint i4 = 0u; i4 < lim5; i4++) {
                    v3 ^= as_uint(sub_group_non_uniform_reduce_or(as_int((~(0x7fffffffu + (uint)v2)))));
                    pa7[(mul_hi((uint)((as_int(i1) < 5)), (uint)v2)) & 3u] = ((v3 - i4) >> ((uint)((i4 > (uint)(v0 >> 0))) & 31u));
                }
            }
        }
    }
    uint h = 0u;
    h = hmix(hmix(h, (uint)v0), (uint)(v0 >> 32));
    h = hmix(hmix(h, (uint)v1), (uint)(v1 >> 32));
    h = hmix(h, (uint)v2);
    h = hmix(h, (uint)v3);
    h = hmix(h, as_uint(f4));
    h = hmix(h, as_uint(f5));
    h = hmix(h, as_uint(f6));
    for (uint c = 0u; c < 4u; c++) h = hmix(h, pa7[c]);
    out[gid] = h;
}
