// fuzz convergence-158 (seed 158, 16 work-items in groups of 8, n = 4): a #line before a goto loop's operation; -O2 deletes the loop
#pragma OPENCL FP_CONTRACT OFF
static inline int safe_sdiv(int a, int b) { return (b == 0 || (a == (-2147483647 - 1) && b == -1)) ? a : a / b; }
static inline int safe_smod(int a, int b) { return (b == 0 || (a == (-2147483647 - 1) && b == -1)) ? 0 : a % b; }
static inline float fclampi(float x) { return x > 65536.0f ? 65536.0f : (x < -65536.0f ? -65536.0f : x); }
static inline uint hmix(uint h, uint x) { return (h ^ x) * 16777619u + 2654435769u; }
__kernel void k(__global uint *out, __global const uint *in, __global uint *cnt, __global float *fapprox, uint n)
{
    const uint gid = get_global_id(0);
    const uint lid = get_local_id(0);
    ushort v0 = (ushort)in[(gid + 35u) & 255u];
    uint v1 = (uint)in[(gid + 40u) & 255u];
    uint v2 = (uint)in[(gid + 20u) & 255u];
    float f3 = (float)(as_int(in[(gid + 97u) & 255u]) % 4096);
    uint pa4[8];
    for (uint c = 0u; c < 8u; c++) pa4[c] = in[(gid * 8u + c) & 255u];
    v2 ^= sub_group_clustered_reduce_add(v1, 1u);
    v0 = (ushort)(as_uint(safe_smod(as_int(hadd(popcount((uint)v0), v1)), as_int(((((uint)v0 < v2) ? (uint)(int)f3 : (uint)(int)f3) / (popcount(pa4[((v2 ^ v1)) & 7u]) | 1u))))));
    v2 ^= get_sub_group_local_id();
    if (!(max(pa4[((-v1)) & 7u], gid) > ((uint)v0 ^ 65535u))) {
        v1 += sub_group_non_uniform_reduce_add(2344500348u);
        f3 = fclampi(((f3 * (float)(as_int(popcount(v2)) % 4096)) * (-13.0f * f3)));
        {
            uint yk1 = ((popcount(v1) / (v1 | 1u))) & 3u;
            uint ys1 = 0u, yj1 = 0u;
        yl1:
            if (yj1 == yk1) {
#line 707 "part_b.cl"
                v1 += sub_group_ballot_bit_count(sub_group_ballot((f3 <= (f3 * -3.0f))));
                goto yo1;
            }
            ys1 += yj1 * 3u + 1u;
            yj1++;
            if (yj1 < 4u) goto yl1;
        yo1:
            v1 ^= ys1;
        }
        f3 = fclampi(((float)(as_int(as_uint(as_int(v2) >> (v2 & 31u))) % 4096) + (f3 * f3)));
        v2 ^= (uint)sub_group_non_uniform_all_equal(as_uint(safe_sdiv(as_int(31u), as_int((uint)(int)f3))));
        {
            uint wk1 = (clz(gid)) & 7u;
            for (uint wg2 = 0u; wg2 < 32u; wg2++) {
                uint wf3 = sub_group_broadcast_first(wk1);
                if (wf3 == wk1) {
                    v2 ^= sub_group_reduce_max((((v1 > (uint)v0) && (pa4[((v1 & gid)) & 7u] < (uint)v0)) ? v1 : as_uint(safe_smod(as_int(v2), as_int(0x7fffffffu)))));
                    break;
                }
            }
        }
    }
    v1 ^= (uint)sub_group_non_uniform_all_equal((in[((v2 & lid)) & 255u] << (3u & 31u)));
    {
        uint cj1 = 0u;
        uint cl1 = (((255u * (lid >> (gid & 31u)))) % 4u + 1u);
        while (cj1 < cl1) {
            cj1++;
            v1 += sub_group_clustered_reduce_or(16u, 4u);
            if (max(v2, 3u) <= ((as_int((uint)(int)f3) <= 11) ? 3u : 252585035u)) {
                v1 ^= (uint)((as_int(as_uint(as_int(v1) >> (v1 & 31u))) >= -47));
                continue;
            }
            v1 = (hadd((65535u & (uint)v0), add_sat(v2, cj1)) / (v2 | 1u));
        }
    }
    f3 = fclampi(f3 * ((as_int((v2 + v2)) > 44) ? 0.0f : -1.0f));
    pa4[(popcount(lid)) & 7u] = (uint)v0;
    v1 = sub_group_clustered_reduce_and((popcount(v2) & (uint)(((uint)v0 != 0u))), 1u);
    {
        uint lim5 = 1u;
        for (uint i4 = 0u; i4 < lim5; i4++) {
            {
                uint wk7 = ((clz(v2) + (v1 % (in[(add_sat((uint)v0, i4)) & 255u] | 1u)))) & 7u;
                for (uint wg8 = 0u; wg8 < 32u; wg8++) {
                    uint wf9 = sub_group_broadcast_first(wk7);
                    if (wf9 == wk7) {
                        v1 ^= sub_group_reduce_max((((uint)(int)f3 * v1) | as_uint(as_int(v2) >> (0xffffffffu & 31u))));
                        break;
                    }
                }
            }
            v1 ^= pa4[((0xffffffffu << (2569069068u & 31u))) & 7u];
        }
    }
    uint h = 0u;
    h = hmix(h, (uint)v0);
    h = hmix(h, (uint)v1);
    h = hmix(h, (uint)v2);
    h = hmix(h, as_uint(f3));
    for (uint c = 0u; c < 8u; c++) h = hmix(h, pa4[c]);
    out[gid] = h;
}
