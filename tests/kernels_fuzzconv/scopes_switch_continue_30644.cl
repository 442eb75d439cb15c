// fuzz convergence-30644 at -O2 -g: a `switch` whose one case is `continue`, in a loop holding a sub-group
// operation, taken by loop_separation for a nested do/while (as 28376 and 29708)
#pragma OPENCL FP_CONTRACT OFF
static inline int safe_sdiv(int a, int b) { return (b == 0 || (a == (-2147483647 - 1) && b == -1)) ? a : a / b; }
static inline int safe_smod(int a, int b) { return (b == 0 || (a == (-2147483647 - 1) && b == -1)) ? 0 : a % b; }
static inline float fclampi(float x) { return x > 65536.0f ? 65536.0f : (x < -65536.0f ? -65536.0f : x); }
static inline uint hmix(uint h, uint x) { return (h ^ x) * 16777619u + 2654435769u; }
__kernel void k(__global uint *out, __global const uint *in, __global uint *cnt, __global float *fapprox, uint n)
{
    const uint gid = get_global_id(0);
    const uint lid = get_local_id(0);
    uchar v0 = (uchar)in[(gid + 125u) & 255u];
    uint v1 = (uint)in[(gid + 195u) & 255u];
    uint v2 = (uint)in[(gid + 144u) & 255u];
    int v3 = as_int(in[(gid + 202u) & 255u]);
    float f4 = (float)(as_int(in[(gid + 34u) & 255u]) % 4096);
    float f5 = (float)(as_int(in[(gid + 142u) & 255u]) % 4096);
    float f6 = (float)(as_int(in[(gid + 75u) & 255u]) % 4096);
    uint pa7[8];
    for (uint c = 0u; c < 8u; c++) pa7[c] = in[(gid * 8u + c) & 255u];
    v2 += (uint)sub_group_elect();
    v1 ^= sub_group_broadcast_first(add_sat(((gid != as_uint(v3)) ? lid : lid), (uint)v0));
    {
        uint wk1 = ((add_sat(v2, lid) / (v1 | 1u))) & 7u;
        for (uint wg2 = 0u; wg2 < 32u; wg2++) {
            uint wf3 = sub_group_broadcast_first(wk1);
            if (wf3 == wk1) {
                v2 ^= sub_group_scan_inclusive_add(as_uint(as_int(v1) >> ((as_uint(v3) & lid) & 31u)));
                break;
            }
        }
    }
    v1 += sub_group_clustered_reduce_and((uint)((as_int(abs_diff(lid, pa7[(((v1 < 16u) ? v2 : v2)) & 7u])) > -1)), 8u);
    v2 = 0x80000000u;
    {
        uint cj1 = 0u;
        uint cl1 = 5u;
        while (cj1 < cl1) {
            cj1++;
            v1 ^= (uint)sub_group_elect();
            switch ((31u + v1) & 3u) {
            case 3u:
                v0 = (uchar)((uint)v0);
                continue;
            default:
                break;
            }
            v1 += (uint)sub_group_non_uniform_scan_exclusive_or((ulong)((uint)(int)f5));
        }
    }
    v3 = as_int(0x7fffffffu);
    v2 = sub_group_shuffle((popcount(pa7[(popcount(7u)) & 7u]) * (pa7[((uint)v0) & 7u] + as_uint(v3))), get_sub_group_local_id() ^ 1u);
    if (as_int(pa7[(lid) & 7u]) > 49) {
        v1 = (uint)sub_group_non_uniform_scan_exclusive_xor((((pa7[(((uint)v0 % (1951735835u | 1u))) & 7u] & v1) + abs_diff(gid, pa7[(v1) & 7u]))));
        v3 = as_int(65535u);
        v1 += get_sub_group_size();
        {
            uint lim5 = 3u;
            for (uint i4 = 0u; i4 < lim5; i4++) {
                pa7[((((uint)v0 & v1) << (abs_diff(v2, in[((v1 + i4)) & 255u]) & 31u))) & 7u] = (uint)v0;
                v2 ^= get_max_sub_group_size();
                v3 = as_int((rotate((uint)((((pa7[(as_uint(v3)) & 7u]) & 15u) == 0u)), ((v1 != 3943631380u) ? lid : 1173807649u)) - v1));
            }
        }
    }
    uint h = 0u;
    h = hmix(h, (uint)v0);
    h = hmix(h, (uint)v1);
    h = hmix(h, (uint)v2);
    h = hmix(h, as_uint(v3));
    h = hmix(h, as_uint(f4));
    h = hmix(h, as_uint(f5));
    h = hmix(h, as_uint(f6));
    for (uint c = 0u; c < 8u; c++) h = hmix(h, pa7[c]);
    out[gid] = h;
}
