#pragma OPENCL FP_CONTRACT OFF
static inline int safe_sdiv(int a, int b) { return (b == 0 || (a == (-2147483647 - 1) && b == -1)) ? a : a / b; }
static inline int safe_smod(int a, int b) { return (b == 0 || (a == (-2147483647 - 1) && b == -1)) ? 0 : a % b; }
static inline float fclampi(float x) { return x > 65536.0f ? 65536.0f : (x < -65536.0f ? -65536.0f : x); }
static inline uint hmix(uint h, uint x) { return (h ^ x) * 16777619u + 2654435769u; }
__kernel void k(__global uint *out, __global const uint *in, __global uint *cnt, __global float *fapprox, uint n)
{
    const uint gid = get_global_id(0);
    const uint lid = get_local_id(0);
    const uint lsize = get_local_size(0);
    __local uint lm[64];
    __local uint lcnt[4];
    ushort v0 = (ushort)in[(gid + 151u) & 255u];
    int v1 = as_int(in[(gid + 55u) & 255u]);
    int v2 = as_int(in[(gid + 114u) & 255u]);
    uint v3 = gid;
    float f4 = (float)(as_int(in[(gid + 86u) & 255u]) % 4096);
    float f5 = (float)(as_int(in[(gid + 0u) & 255u]) % 4096);
    float f6 = (float)(as_int(in[(gid + 181u) & 255u]) % 4096);
    uint4 w7 = vload4((gid + 0u) & 63u, in);
    int4 w8 = as_int4(vload4((gid + 16u) & 63u, in));
    uint pa9[8];
    for (uint c = 0u; c < 8u; c++) pa9[c] = in[(gid * 8u + c) & 255u];
    if (lid < 4u) lcnt[lid] = lid * 7u;
    barrier(CLK_LOCAL_MEM_FENCE);
    v0 = (ushort)((uint)((!(!((((uint)v0) & 7u) == 0u)))));
    v2 = as_int(((!(as_int((0x7fffffffu + 255u)) > -40)) ? max(((uint)v0 << (as_uint(v2) & 31u)), (0u & pa9[(((((pa9[(0x80000000u) & 7u]) & 7u) == 0u) ? lid : pa9[((uint)((as_int(0xffffffffu) < -12))) & 7u])) & 7u])) : (as_uint(v1) ^ (gid / ((uint)v0 | 1u)))));
    v0 = (ushort)(((uint)(((in[((as_uint(w8.x) | (uint)(int)f4)) & 255u] >> (lid & 31u)) >= (v3 & lid))) ^ popcount(as_uint(v1))));
    {
        uint g1 = 0u;
        do {
            g1++;
            v3 += (pa9[((w7.s2 - 1u)) & 7u] - v3);
            if (n >= 444u) {
                atomic_or(&lcnt[1], as_uint(as_int(as_uint(v1)) >> ((pa9[(v3) & 7u] & v3) & 31u)));
                w7 = as_uint4((as_uint4(w8.yxwz) + (uint4)(704292974u, 1023699794u, as_uint(w8.y), as_uint(v1))) > as_uint4(w7.zwxy != w7));
            }
        } while (g1 < 5u && (f6 > (f5 - f5)));
    }
    lm[lid] = as_uint(v2);
    barrier(CLK_LOCAL_MEM_FENCE);
    v3 = lm[lsize - 1u - lid];
    barrier(CLK_LOCAL_MEM_FENCE);
    v2 = as_int((-(uint)(((lid | as_uint(v2)) >= ((uint)v0 ^ v3)))));
    {
        uint lim4 = 1u;
        for (uint i3 = 0u; i3 < lim4; i3++) {
            if (clz(pa9[(i3) & 7u]) != ((7u != pa9[(as_uint(v1)) & 7u]) ? pa9[((uint)v0) & 7u] : 2448996578u)) break;
            {
                uint lim7 = 5u;
                for (uint i6 = 0u; i6 < lim7; i6++) {
                    v1 = as_int((uint)((!(as_uint(as_int(in[(as_uint(v1)) & 255u]) >> ((uint)v0 & 31u)) >= gid))));
                }
            }
        }
    }
    lm[lid] = (uint)v3;
    barrier(CLK_LOCAL_MEM_FENCE);
    v3 ^= lm[lsize - 1u - lid];
    barrier(CLK_LOCAL_MEM_FENCE);
    barrier(CLK_LOCAL_MEM_FENCE);
    v3 ^= lcnt[v3 & 3u];
    barrier(CLK_LOCAL_MEM_FENCE);
    if (lid < 4u) atomic_add(&cnt[0], lcnt[lid]);
    uint h = 0u;
    h = hmix(h, (uint)v0);
    h = hmix(h, as_uint(v1));
    h = hmix(h, as_uint(v2));
    h = hmix(h, (uint)v3);
    h = hmix(h, as_uint(f4));
    h = hmix(h, as_uint(f5));
    h = hmix(h, as_uint(f6));
    h = hmix(h, w7.x);
    h = hmix(h, w7.y);
    h = hmix(h, w7.z);
    h = hmix(h, w7.w);
    h = hmix(h, as_uint(w8.x));
    h = hmix(h, as_uint(w8.y));
    h = hmix(h, as_uint(w8.z));
    h = hmix(h, as_uint(w8.w));
    for (uint c = 0u; c < 8u; c++) h = hmix(h, pa9[c]);
    out[gid] = h;
}
