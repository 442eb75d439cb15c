// fuzz convergence-1010 (unreduced, the widened generator): at -O0 for Gen blockIP/hybrid (read after mem2reg) the
// header of the i7 loop holds a phi of v3 located at v3's declaration (function scope), so the scopes rule took
// every scope the loop touched as its own and anchored case 5's ballots, written after the loop, in it (refused).
#pragma OPENCL FP_CONTRACT OFF
static inline int safe_sdiv(int a, int b) { return (b == 0 || (a == (-2147483647 - 1) && b == -1)) ? a : a / b; }
static inline int safe_smod(int a, int b) { return (b == 0 || (a == (-2147483647 - 1) && b == -1)) ? 0 : a % b; }
static inline float fclampi(float x) { return x > 65536.0f ? 65536.0f : (x < -65536.0f ? -65536.0f : x); }
static inline uint hmix(uint h, uint x) { return (h ^ x) * 16777619u + 2654435769u; }
__kernel void k(__global uint *out, __global const uint *in, __global uint *cnt, __global float *fapprox, uint n)
{
    const uint gid = get_global_id(0);
    const uint lid = get_local_id(0);
    uint v0 = (uint)in[(gid + 26u) & 255u];
    ushort v1 = (ushort)in[(gid + 130u) & 255u];
    uint v2 = (uint)in[(gid + 96u) & 255u];
    ushort v3 = (ushort)in[(gid + 136u) & 255u];
    ulong v4 = ((ulong)in[(gid + 220u) & 255u] << 32) | in[(gid * 3u + 220u) & 255u];
    ushort v5 = (ushort)in[(gid + 9u) & 255u];
    float f6 = (float)(as_int(in[(gid + 95u) & 255u]) % 4096);
    float f7 = (float)(as_int(in[(gid + 18u) & 255u]) % 4096);
    float f8 = (float)(as_int(in[(gid + 43u) & 255u]) % 4096);
    v0 += sub_group_clustered_reduce_xor((uint)(((((3020619985u ^ 815227151u)) & 15u) == 1u)), 8u);
    {
        uint wk1 = ((uint)v1) & 7u;
        for (uint wg2 = 0u; wg2 < 32u; wg2++) {
            uint wf3 = sub_group_broadcast_first(wk1);
            if (wf3 == wk1) {
                if (!(757309092u == (uint)v1)) v0 ^= sub_group_scan_inclusive_add(as_uint(safe_sdiv(as_int(((gid != 0u) ? (uint)v3 : v2)), as_int(((uint)v3 - (uint)v1)))));
                break;
            }
        }
    }
    v0 = sub_group_clustered_reduce_add(3u, 4u);
    {
        uint lim5 = ((min(((uint)(int)f7 % (0x7fffffffu | 1u)), (uint)(int)f8)) % 2u + 0u);
        for (uint i4 = 0u; i4 < lim5; i4++) {
            {
                uint lim8 = 3u;
                for (uint i7 = 0u; i7 < lim8; i7++) {
                    {
                        uint g10 = 0u;
                        while (g10 < 2u && ((uint)v3 != ((v2 != 0u) ? (uint)(int)f7 : i7))) {
                            g10++;
                            v3 = (ushort)((as_uint(as_int((0x7fffffffu / (i4 | 1u))) >> ((1u >> ((uint)(v4 >> 32) & 31u)) & 31u)) & (hadd(2712915407u, v2) * (in[(min(v2, 0x80000000u)) & 255u] - v0))));
                        }
                    }
                }
            }
            switch ((i4 + v0) & 7u) {
            default: {
                v3 = (ushort)(3737998538u);
                }
            case 2u: {
                switch ((((uint)(((uint)v3 == (uint)v5)) + add_sat(v2, 255u)) + v0) & 7u) {
                case 3u: {
                    f7 = fclampi((f7 - 10.0f));
                    {
                        uint wk12 = ((((uint)(int)f8 & i4) / ((uint)v1 | 1u))) & 7u;
                        for (uint wg13 = 0u; wg13 < 32u; wg13++) {
                            uint wf14 = sub_group_broadcast_first(wk12);
                            if (wf14 == wk12) {
                                v0 = sub_group_reduce_add(((i4 + in[((-(uint)(v4 >> 0))) & 255u]) + clz(3664909606u)));
                                break;
                            }
                        }
                    }
                    }
                case 5u: {
                    v2 -= (((uint)(int)f8 >> (v0 & 31u)) | (i4 ^ (uint)v5));
                    v2 ^= sub_group_shuffle((uint)v3, sub_group_ballot_find_lsb(sub_group_ballot(1)));
                    if (as_uint(safe_smod(as_int(0xffffffffu), as_int(v0))) >= (v2 & 65535u)) continue;
                    }
                case 7u: {
                    }
                default: {
                    }
                    break;
                case 1u: {
                    }
                    break;
                }
                }
            case 6u: {
                }
                break;
            case 1u: {
                }
                break;
            }
        }
    }
    uint h = 0u;
    h = hmix(h, (uint)v0);
    h = hmix(h, (uint)v1);
    h = hmix(h, (uint)v2);
    h = hmix(h, (uint)v3);
    h = hmix(hmix(h, (uint)v4), (uint)(v4 >> 32));
    h = hmix(h, (uint)v5);
    h = hmix(h, as_uint(f6));
    h = hmix(h, as_uint(f7));
    h = hmix(h, as_uint(f8));
    out[gid] = h;
}
