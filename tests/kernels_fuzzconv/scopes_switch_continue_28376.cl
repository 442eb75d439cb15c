// fuzz convergence-28376 at -O2 -g: a `switch` whose one case is `continue`, in a `while` holding a sub-group
// operation; SimplifyCFG made the switch a conditional branch back to the loop's shared latch, deeper in the
// scopes than the loop's own back edge, and loop_separation split it as if it were a nested do/while
#pragma OPENCL FP_CONTRACT OFF
static inline int safe_sdiv(int a, int b) { return (b == 0 || (a == (-2147483647 - 1) && b == -1)) ? a : a / b; }
static inline int safe_smod(int a, int b) { return (b == 0 || (a == (-2147483647 - 1) && b == -1)) ? 0 : a % b; }
static inline float fclampi(float x) { return x > 65536.0f ? 65536.0f : (x < -65536.0f ? -65536.0f : x); }
static inline uint hmix(uint h, uint x) { return (h ^ x) * 16777619u + 2654435769u; }
__kernel void k(__global uint *out, __global const uint *in, __global uint *cnt, __global float *fapprox, uint n)
{
    const uint gid = get_global_id(0);
    const uint lid = get_local_id(0);
    uchar v0 = (uchar)in[(gid + 194u) & 255u];
    uint v1 = (uint)in[(gid + 110u) & 255u];
    ulong v2 = ((ulong)in[(gid + 114u) & 255u] << 32) | in[(gid * 3u + 114u) & 255u];
    uchar v3 = (uchar)in[(gid + 203u) & 255u];
    ushort v4 = (ushort)in[(gid + 248u) & 255u];
    uint v5 = (uint)in[(gid + 48u) & 255u];
    float f6 = (float)(as_int(in[(gid + 86u) & 255u]) % 4096);
    float f7 = (float)(as_int(in[(gid + 232u) & 255u]) % 4096);
    uint pa8[8];
    for (uint c = 0u; c < 8u; c++) pa8[c] = in[(gid * 8u + c) & 255u];
    v5 += (uint)sub_group_scan_inclusive_min((ulong)((lid ^ (uint)v0)));
    {
        uint wk1 = ((((0u > gid) ? (uint)(v2 >> 13) : (uint)(v2 >> 32)) - ((gid >= pa8[((lid ^ v5)) & 7u]) ? (uint)v0 : (uint)(v2 >> 0)))) & 7u;
        for (uint wg2 = 0u; wg2 < 32u; wg2++) {
            uint wf3 = sub_group_broadcast_first(wk1);
            if (wf3 == wk1) {
                v5 = sub_group_scan_inclusive_add(in[((uint)v0) & 255u]);
                break;
            }
        }
    }
    {
        uint cj1 = 0u;
        uint cl1 = 3u;
        while (cj1 < cl1) {
            cj1++;
            v1 = as_uint(sub_group_non_uniform_reduce_add(as_int((uint)((as_int((879225288u >> ((uint)v0 & 31u))) < 16)))));
            switch ((lid + v5) & 3u) {
            case 1u:
                v3 = (uchar)(2698306882u);
                continue;
            default:
                break;
            }
            v1 ^= (uint)sub_group_non_uniform_scan_inclusive_or((ushort)((cj1 ^ clz((uint)v3))));
        }
    }
    {
        uint fl6 = 0u;
        uint lim5 = (((((((in[((uint)((((in[(popcount(942274705u)) & 255u]) & 1u) == 0u))) & 255u] >> ((uint)(v2 >> 32) & 31u))) & 7u) == 2u) ? ((uint)v4 + (uint)v3) : (v5 % ((uint)(int)f7 | 1u)))) % 3u + 0u);
        for (uint i4 = 0u; i4 < lim5; i4++) {
            v0 = (uchar)((((f6 > ((float)(as_int((v5 >> (i4 & 31u))) % 4096) - (float)(as_int((i4 / (3u | 1u))) % 4096))) ? (i4 * i4) : (uint)v0) >> ((uint)v3 & 31u)));
            {
                uint lim8 = ((((v5 - 31u) << ((uint)((as_int(v1) >= 47)) & 31u))) % 2u + 0u);
                for (uint i7 = 0u; i7 < lim8; i7++) {
                    if (f6 <= (f6 + f6)) { fl6 = 2u; break; }
                    v5 += sub_group_clustered_reduce_add((uint)v3, 8u);
                    {
                        uint lim11 = 3u;
                        for (uint i10 = 0u; i10 < lim11; i10++) {
                            v2 = (v2 * (ulong)(((uint)v0 ^ 876661783u) | 1u)) + (((ulong)min((uint)(int)f6, as_uint(as_int(255u) >> (pa8[(((uint)(v2 >> 0) + i7)) & 7u] & 31u)))) << 7);
                            if ((uint)(v2 >> 32) > 3u) {
                                v4 = (ushort)(31u);
                            } else {
                            }
                        }
                        if (fl6 != 0u) break;
                    }
                }
                if (fl6 == 1u) break;
                if (fl6 == 2u) { fl6 = 0u; continue; }
            }
        }
    }
    uint h = 0u;
    h = hmix(h, (uint)v0);
    h = hmix(h, (uint)v1);
    h = hmix(hmix(h, (uint)v2), (uint)(v2 >> 32));
    h = hmix(h, (uint)v3);
    h = hmix(h, (uint)v4);
    h = hmix(h, (uint)v5);
    h = hmix(h, as_uint(f6));
    h = hmix(h, as_uint(f7));
    for (uint c = 0u; c < 8u; c++) h = hmix(h, pa8[c]);
    out[gid] = h;
}
