// fuzz convergence-31080: at -O2 the loop at line 30 stays, but its header's phis carry their variables'
// declarations (lines 14 and 18) as locations; removed_loops read them as code outside the loop's range and
// took the loop for removed: the kernel was refused
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
    uchar v1 = (uchar)in[(gid + 87u) & 255u];
    uchar v2 = (uchar)in[(gid + 82u) & 255u];
    uint v3 = (uint)in[(gid + 245u) & 255u];
    uint v4 = (uint)in[(gid + 199u) & 255u];
    float f5 = (float)(as_int(in[(gid + 168u) & 255u]) % 4096);
    v0 += (uint)sub_group_non_uniform_all((((0x80000000u) & 15u) == 0u));
    uint4 sgb1 = sub_group_ballot((((uint)v2 < v3) || ((uint)(int)f5 >= v3)));
    v4 ^= (uint)sub_group_inverse_ballot(sgb1) + sub_group_ballot_find_lsb(sub_group_ballot(1)) * 7u;
    {
        uint fl2 = 0u;
        uint g1 = 0u;
        for (;;) {
            if (!(g1 < 6u && ((((3u) & 7u) == 2u) || ((uint)v1 > v0)))) break; g1++;
            v4 = (((uint)(int)f5 << (((in[((v3 & 0x80000000u)) & 255u] <= v4) ? v0 : 0xfffffffeu) & 31u)) >> ((v0 / (as_uint(as_int((uint)v2) >> (gid & 31u)) | 1u)) & 31u));
            {
                uint g3 = 0u;
                for (;;) {
                    if (!(g3 < 2u && ((((uint)v2 != 0u) ? (uint)(int)f5 : gid) != (in[((-lid)) & 255u] * in[((v0 | 255u)) & 255u])))) break; g3++;
                    v3 ^= sub_group_shuffle((v0 - (7u | (uint)(int)f5)), sub_group_ballot_find_lsb(sub_group_ballot(1)));
                    if (((((uint)v2 ^ v4)) & 1u) == 0u) {
                        if (!((uint)v1 == (uint)(int)f5)) {
                            v4 = sub_group_non_uniform_reduce_add((uint)(((uint)v2 >= gid)));
                        }
                        fl2 = 1u;
                        break;
                    }
                    v0 ^= sub_group_non_uniform_reduce_add((gid ^ in[((uint)(int)f5) & 255u]));
                    {
                        uint nj1 = 0u;
                        uint nl1 = (((uint)(((uint)v1 == (~v3)))) % 3u + 1u);
                        while (nj1 < nl1) {
                            do {
                                nj1++;
                                out[gid] = sub_group_scan_inclusive_add((((uint)(int)f5 * in[(((as_int(v4) > -14) ? 16u : v4)) & 255u]) << (((((lid) & 3u) == 1u) ? v3 : v3) & 31u)) + nj1 * 65u);
                            } while ((lid & 1u) == 0u && nj1 < nl1);
                            if ((lid & 1u) == 0u) break;
                            out[gid] = sub_group_ballot((lid & 1u) == 0u || (((uint)v2 != 0u) || ((uint)v2 < v3))).x + nj1;
                        }
                        v3 ^= out[gid];
                    }
                    {
                        uint wk5 = ((uint)((!(((v4) & 7u) == 1u)))) & 7u;
                        for (uint wg6 = 0u; wg6 < 32u; wg6++) {
                            uint wf7 = sub_group_broadcast_first(wk5);
                            if (wf7 == wk5) {
                                v4 = sub_group_scan_inclusive_add(popcount((v3 + (uint)(int)f5)));
                                break;
                            }
                        }
                    }
                    v4 = (uint)sub_group_non_uniform_any((as_int(((as_int(gid) < -15) ? lid : v3)) >= -43));
                    {
                        uint lim9 = 3u;
                        for (uint i8 = 0u; i8 < lim9; i8++) {
                            v0 += sub_group_clustered_reduce_and(((uint)(int)f5 ^ popcount(0u)), 2u);
                            f5 = (((v0 % (1792766408u | 1u)) <= (v0 ^ (uint)v2)) ? -0.0f : 1.0f);
                            v1 = (uchar)((((popcount((uint)v2) >= (uint)(int)f5) ? (-(uint)(int)f5) : (v0 ^ (uint)(int)f5)) & (uint)((f5 == (f5 * (float)(as_int(add_sat(v3, in[(65535u) & 255u])) % 4096))))));
                        }
                        if (fl2 != 0u) break;
                    }
                }
                if (fl2 == 1u) break;
                if (fl2 == 2u) { fl2 = 0u; continue; }
            }
        }
    }
    uint h = 0u;
    h = hmix(h, (uint)v0);
    h = hmix(h, (uint)v1);
    h = hmix(h, (uint)v2);
    h = hmix(h, (uint)v3);
    h = hmix(h, (uint)v4);
    h = hmix(h, as_uint(f5));
    out[gid] = h;
}
