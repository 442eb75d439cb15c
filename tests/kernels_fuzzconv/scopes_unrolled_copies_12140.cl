#pragma OPENCL FP_CONTRACT OFF
static inline int safe_sdiv(int a, int b) { return (b == 0 || (a == (-2147483647 - 1) && b == -1)) ? a : a / b; }
static inline int safe_smod(int a, int b) { return (b == 0 || (a == (-2147483647 - 1) && b == -1)) ? 0 : a % b; }
static inline float fclampi(float x) { return x > 65536.0f ? 65536.0f : (x < -65536.0f ? -65536.0f : x); }
static inline uint hmix(uint h, uint x) { return (h ^ x) * 16777619u + 2654435769u; }
__kernel void k(__global uint *out, __global const uint *in, __global uint *cnt, __global float *fapprox, uint n)
{
    const uint gid = get_global_id(0);
    const uint lid = get_local_id(0);
    int v0 = as_int(in[(gid + 222u) & 255u]);
    ushort v1 = (ushort)in[(gid + 63u) & 255u];
    ushort v2 = (ushort)in[(gid + 227u) & 255u];
    int v3 = as_int(in[(gid + 50u) & 255u]);
    ushort v4 = (ushort)in[(gid + 84u) & 255u];
    ushort v5 = (ushort)in[(gid + 75u) & 255u];
    uint v6 = gid;
    float f7 = (float)(as_int(in[(gid + 223u) & 255u]) % 4096);
    float f8 = (float)(as_int(in[(gid + 65u) & 255u]) % 4096);
    v6 ^= sub_group_shuffle_xor((((uint)v2 ^ gid) << (popcount((uint)v2) & 31u)), 1u);
    v0 = as_int(lid);
    {
        uint wk1 = ((2786246286u - (uint)v2)) & 7u;
        for (uint wg2 = 0u; wg2 < 32u; wg2++) {
            uint wf3 = sub_group_broadcast_first(wk1);
            if (wf3 == wk1) {
                v6 += sub_group_scan_exclusive_min(max((0x7fffffffu & (uint)v2), (uint)v2));
                break;
            }
        }
    }
    {
        uint lim5 = 5u;
        for (uint i4 = 0u; i4 < lim5; i4++) {
            {
                uint wk7 = (v6) & 7u;
                for (uint wg8 = 0u; wg8 < 32u; wg8++) {
                    uint wf9 = sub_group_broadcast_first(wk7);
                    if (wf9 == wk7) {
                        if (!(((in[(clz(as_uint(v3))) & 255u]) & 7u) == 3u)) v6 ^= sub_group_reduce_add((uint)(int)f7);
                        break;
                    }
                }
            }
            v1 = (ushort)(255u);
        }
    }
    uint h = 0u;
    h = hmix(h, as_uint(v0));
    h = hmix(h, (uint)v1);
    h = hmix(h, (uint)v2);
    h = hmix(h, as_uint(v3));
    h = hmix(h, (uint)v4);
    h = hmix(h, (uint)v5);
    h = hmix(h, (uint)v6);
    h = hmix(h, as_uint(f7));
    h = hmix(h, as_uint(f8));
    out[gid] = h;
}
