#pragma OPENCL FP_CONTRACT OFF
static inline int safe_sdiv(int a, int b) { return (b == 0 || (a == (-2147483647 - 1) && b == -1)) ? a : a / b; }
static inline int safe_smod(int a, int b) { return (b == 0 || (a == (-2147483647 - 1) && b == -1)) ? 0 : a % b; }
static inline float fclampi(float x) { return x > 65536.0f ? 65536.0f : (x < -65536.0f ? -65536.0f : x); }
static inline uint hmix(uint h, uint x) { return (h ^ x) * 16777619u + 2654435769u; }
__kernel void k(__global uint *out, __global const uint *in, __global uint *cnt, __global float *fapprox, uint n)
{
    const uint gid = get_global_id(0);
    const uint lid = get_local_id(0);
    ushort v0 = (ushort)in[(gid + 145u) & 255u];
    uchar v1 = (uchar)in[(gid + 29u) & 255u];
    uchar v2 = (uchar)in[(gid + 26u) & 255u];
    uint v3 = (uint)in[(gid + 29u) & 255u];
    ushort v4 = (ushort)in[(gid + 143u) & 255u];
    float f5 = (float)(as_int(in[(gid + 103u) & 255u]) % 4096);
    float f6 = (float)(as_int(in[(gid + 224u) & 255u]) % 4096);
    float f7 = (float)(as_int(in[(gid + 199u) & 255u]) % 4096);
    uint pa8[8];
    for (uint c = 0u; c < 8u; c++) pa8[c] = in[(gid * 8u + c) & 255u];
    v3 ^= sub_group_clustered_reduce_and(v3, 1u);
    switch ((as_uint(as_int(0xffffffffu) >> (popcount(255u) & 31u)) + v3) & 7u) {
    case 3u: {
        f5 = fclampi(sub_group_non_uniform_reduce_add(f5 + 0.0f));
        {
            uint lim2 = ((((((uint)v0 <= (uint)v4) ? 1u : in[((in[(hadd(786034012u, 2747915873u)) & 255u] + (uint)(int)f7)) & 255u]) >> (2637618634u & 31u))) % 3u + 1u);
            for (uint i1 = 0u; i1 < lim2; i1++) {
                if ((((in[(as_uint(as_int(i1) >> ((uint)v1 & 31u))) & 255u]) & 15u) == 3u) || ((((uint)v2) & 1u) == 0u)) continue;
                {
                    uint wk4 = ((uint)v0) & 7u;
                    for (uint wg5 = 0u; wg5 < 32u; wg5++) {
                        uint wf6 = sub_group_broadcast_first(wk4);
                        if (wf6 == wk4) {
                            v3 = sub_group_scan_exclusive_min(0x2u);
                            break;
                        }
                    }
                }
                {
                    uint wk7 = (min(mul_hi(v3, pa8[(((uint)v1 * 1970484723u)) & 7u]), ((as_int((uint)v4) > 2) ? lid : (uint)v0))) & 7u;
                    for (uint wg8 = 0u; wg8 < 32u; wg8++) {
                        uint wf9 = sub_group_broadcast_first(wk7);
                        if (wf9 == wk7) {
                            v3 ^= sub_group_scan_exclusive_min(v3);
                            break;
                        }
                    }
                }
                v2 = (uchar)(gid);
            }
        }
        if ((((uint)(int)f7 / (in[((uint)v4) & 255u] | 1u)) << (((0xfffffffeu > 768191842u) ? gid : 16u) & 31u)) < (~(uint)(((uint)v4 >= (uint)v0)))) {
            v1 = (uchar)(max((~popcount((uint)(int)f5)), sub_sat(pa8[(3115768470u) & 7u], (uint)((in[((uint)v2) & 255u] <= lid)))));
        } else {
            if (n >= 920u) {
                f6 = fclampi(sub_group_non_uniform_scan_inclusive_max(f6 + 0.0f));
                {
                    uint wk10 = ((((uint)v2 << ((uint)v4 & 31u)) >> ((uint)v4 & 31u))) & 7u;
                    for (uint wg11 = 0u; wg11 < 32u; wg11++) {
                        uint wf12 = sub_group_broadcast_first(wk10);
                        if (wf12 == wk10) {
                            if (as_int(popcount((uint)v4)) >= 7) v3 ^= sub_group_reduce_max(0x80000000u);
                            break;
                        }
                    }
                }
                v2 = (uchar)(in[(((uint)v0 << ((uint)v4 & 31u))) & 255u]);
                uint4 sgb1 = sub_group_ballot(((uint)(int)f6 < (pa8[(popcount((uint)v0)) & 7u] >> ((uint)v0 & 31u))));
                v3 ^= sgb1.x + sub_group_ballot_find_lsb(sub_group_ballot(1)) * 7u;
                {
                    uint lim14 = ((lid) % 5u + 0u);
                    for (uint i13 = 0u; i13 < lim14; i13++) {
                        f5 = fclampi(sub_group_non_uniform_scan_exclusive_add(f5 + 0.0f));
                        v1 = (uchar)(as_uint(as_int((uint)(int)f6) >> (mul_hi(0xffffffffu, as_uint(safe_smod(as_int((uint)v2), as_int(gid)))) & 31u)));
                        f5 = fclampi(sub_group_non_uniform_scan_inclusive_min(f5 + 0.0f));
                        if (as_uint(safe_smod(as_int((uint)v4), as_int((uint)v4))) == (((uint)v1 != 0u) ? (uint)v2 : (uint)v1)) {
                            uint h = 0u;
                            h = hmix(h, (uint)v0);
                            h = hmix(h, (uint)v1);
                            h = hmix(h, (uint)v2);
                            h = hmix(h, (uint)v3);
                            h = hmix(h, (uint)v4);
                            h = hmix(h, as_uint(f5));
                            h = hmix(h, as_uint(f6));
                            h = hmix(h, as_uint(f7));
                            for (uint c = 0u; c < 8u; c++) h = hmix(h, pa8[c]);
                            out[gid] = h;
                            return;
                        }
                    }
                }
            }
            {
                uint yk1 = (((hadd(gid, 2317035889u) >= (1803047003u ^ 0xfffffffeu)) ? as_uint(as_int((uint)(int)f6) >> (pa8[(((uint)v2 ^ 16u)) & 7u] & 31u)) : ((((958605405u) & 3u) == 2u) ? v3 : lid))) & 7u;
                uint ys1 = 0u, yj1 = 0u;
            yl1:
                if (yj1 == yk1) {
                    goto yo1;
                }
                ys1 += yj1 * 9u + 0u;
                yj1++;
                if (yj1 < 4u) goto yl1;
            yo1:
                v3 ^= sub_group_non_uniform_reduce_add((uint)v0);
                v3 ^= ys1;
            }
            {
                uint lim17 = (((uint)((as_int((1826786001u ^ (uint)v2)) <= 35))) % 4u + 0u);
                for (uint i16 = 0u; i16 < lim17; i16++) {
                    if (((((uint)v2) & 7u) == 3u) || ((uint)v4 != 0u)) break;
                    {
                        uint nj1 = 0u;
                        uint nl1 = (((uint)v4) % 2u + 1u);
                        while (nj1 < nl1) {
                            do {
                                nj1++;
                                out[gid] = sub_group_broadcast_first(as_uint(as_int(clz(65535u)) >> ((uint)((v3 >= nj1)) & 31u)) + nj1 * 2u);
                            } while ((lid % 3u) != 1u && nj1 < nl1);
                            if ((lid % 3u) != 1u) break;
                            out[gid] = sub_group_ballot((lid % 3u) != 1u || (pa8[(0xffffffffu) & 7u] <= (~(uint)v4))).x + nj1;
                        }
                        v3 ^= out[gid];
                    }
                    {
                        uint g19 = 0u;
                        do {
                            g19++;
                            if (((0xfffffffeu) & 15u) == 1u) {
                                v3 += (uint)sub_group_non_uniform_scan_inclusive_add((((!((uint)v0 >= (uint)v1)) ? (~0u) : (uint)v2)));
                                continue;
                            }
                        } while (g19 < 1u && (((uint)v4 != in[(add_sat(in[(2290912556u) & 255u], i16)) & 255u]) && (((i16) & 7u) == 3u)));
                    }
                }
            }
        }
        }
        break;
    case 2u: {
        }
        break;
    case 6u: {
        }
        break;
    default: {
        }
    }
    uint h = 0u;
    h = hmix(h, (uint)v0);
    h = hmix(h, (uint)v1);
    h = hmix(h, (uint)v2);
    h = hmix(h, (uint)v3);
    h = hmix(h, (uint)v4);
    h = hmix(h, as_uint(f5));
    h = hmix(h, as_uint(f6));
    h = hmix(h, as_uint(f7));
    for (uint c = 0u; c < 8u; c++) h = hmix(h, pa8[c]);
    out[gid] = h;
}
