#pragma OPENCL FP_CONTRACT OFF
static inline int safe_sdiv(int a, int b) { return (b == 0 || (a == (-2147483647 - 1) && b == -1)) ? a : a / b; }
static inline int safe_smod(int a, int b) { return (b == 0 || (a == (-2147483647 - 1) && b == -1)) ? 0 : a % b; }
static inline float fclampi(float x) { return x > 65536.0f ? 65536.0f : (x < -65536.0f ? -65536.0f : x); }
static inline uint hmix(uint h, uint x) { return (h ^ x) * 16777619u + 2654435769u; }
__kernel void k(__global uint *out, __global const uint *in, __global uint *cnt, __global float *fapprox, uint n)
{
    const uint gid = get_global_id(0);
    const uint lid = get_local_id(0);
    ulong v0 = ((ulong)in[(gid + 65u) & 255u] << 32) | in[(gid * 3u + 65u) & 255u];
    uchar v1 = (uchar)in[(gid + 225u) & 255u];
    ushort v2 = (ushort)in[(gid + 77u) & 255u];
    uchar v3 = (uchar)in[(gid + 75u) & 255u];
    uint v4 = gid;
    float f5 = (float)(as_int(in[(gid + 48u) & 255u]) % 4096);
    float f6 = (float)(as_int(in[(gid + 140u) & 255u]) % 4096);
    uint4 sgb1 = sub_group_ballot((((255u) & 15u) == 2u));
    v4 += sub_group_ballot_inclusive_scan(sgb1) + sub_group_ballot_find_lsb(sub_group_ballot(1)) * 7u;
    {
        uint lim2 = ((v4) % 4u + 1u);
        for (uint i1 = 0u; i1 < lim2; i1++) {
            v3 = (uchar)(min(as_uint(safe_smod(as_int((948108307u % ((uint)(int)f5 | 1u))), as_int(as_uint(as_int(0xffffffffu) >> (lid & 31u))))), (((((gid) & 7u) == 3u) ? (uint)(v0 >> 0) : in[(0u) & 255u]) << (popcount(i1) & 31u))));
            v4 ^= sub_group_non_uniform_reduce_add((in[((in[(0u) & 255u] << ((uint)v3 & 31u))) & 255u] - (uint)(v0 >> 13)));
            {
                uint nj1 = 0u;
                uint nl1 = 2u;
                while (nj1 < nl1) {
                    do {
                        nj1++;
                        out[gid] = sub_group_scan_inclusive_add(lid + nj1 * 88u);
                    } while ((lid % 3u) != 1u && nj1 < nl1);
                    if ((lid % 3u) != 1u) break;
                    out[gid] = sub_group_ballot((lid % 3u) != 1u || ((lid != (uint)v3) && (as_int((uint)(v0 >> 32)) <= 48))).x + nj1;
                }
                v4 ^= out[gid];
            }
            v2 = (ushort)((as_uint(as_int(((lid == i1) ? (uint)v3 : (uint)v3)) >> (rotate((uint)v2, (uint)v2) & 31u)) ^ (uint)(int)f5));
            f5 = fclampi(sub_group_non_uniform_reduce_add(f5));
            {
                uint nj2 = 0u;
                uint nl2 = ((((uint)(v0 >> 32) * (in[(popcount((uint)v1)) & 255u] + (uint)(v0 >> 13)))) % 3u + 0u);
                while (nj2 < nl2) {
                    do {
                        nj2++;
                        out[gid] = sub_group_broadcast_first((~(uint)(int)f5) + nj2 * 97u);
                    } while ((lid % 3u) != 1u && nj2 < nl2);
                    if ((lid % 3u) != 1u) break;
                    out[gid] = sub_group_ballot((lid % 3u) != 1u || (as_int((in[((uint)(((uint)(v0 >> 13) != 0u))) & 255u] + nj2)) < 13)).x + nj2;
                }
                v4 ^= out[gid];
            }
            if (as_int((hadd((uint)v1, (uint)v3) * (0x80000000u * i1))) >= -19) {
                if ((((-gid)) & 15u) == 3u) continue;
                {
                    uint g4 = 0u;
                    do {
                        g4++;
                        {
                            uint nj3 = 0u;
                            uint nl3 = (((uint)((((((uint)(v0 >> 32) << (in[((uint)(((((uint)v3) & 3u) == 0u))) & 255u] & 31u))) & 7u) == 1u))) % 6u + 1u);
                            while (nj3 < nl3) {
                                do {
                                    nj3++;
                                    out[gid] = sub_group_scan_inclusive_add((uint)((f5 <= (8.0f - (float)(as_int(((uint)(v0 >> 32) + nj3)) % 4096)))) + nj3 * 89u);
                                } while ((lid % 3u) != 1u && nj3 < nl3);
                                if ((lid % 3u) != 1u) break;
                                out[gid] = sub_group_ballot((lid % 3u) != 1u || (((lid) & 15u) == 2u)).x + nj3;
                            }
                            v4 ^= out[gid];
                        }
                        f5 = fclampi(((f6 + (float)(as_int(in[(as_uint(safe_smod(as_int(v4), as_int((uint)v3)))) & 255u]) % 4096)) * f5));
                        v4 ^= get_num_sub_groups();
                        {
                            uint g6 = 0u;
                            for (;;) {
                                if (!(g6 < 4u && (!(((gid) & 7u) == 1u)))) break; g6++;
                                f6 = fclampi((float)(as_int(((uint)v1 - in[(((v4 != (uint)(int)f6) ? (uint)(int)f6 : (uint)v3)) & 255u])) % 4096));
                                v4 = sub_group_shuffle((-(v4 - (uint)v2)), sub_group_ballot_find_lsb(sub_group_ballot(1)));
                                f5 = fclampi((f6 * ((float)(as_int(((uint)v3 * 3377716360u)) % 4096) + f5)));
                            }
                        }
                    } while (g4 < 1u && (((max((uint)v2, (uint)v3)) & 7u) == 1u));
                }
            }
        }
    }
    uint h = 0u;
    h = hmix(hmix(h, (uint)v0), (uint)(v0 >> 32));
    h = hmix(h, (uint)v1);
    h = hmix(h, (uint)v2);
    h = hmix(h, (uint)v3);
    h = hmix(h, (uint)v4);
    h = hmix(h, as_uint(f5));
    h = hmix(h, as_uint(f6));
    out[gid] = h;
}
