// fuzz convergence-40015 (64 work-items in one group, n = 0), run as token IR: LLVM 22's -O2 leaves its tokens invalid even without unrolling
#pragma OPENCL FP_CONTRACT OFF
static inline int safe_sdiv(int a, int b) { return (b == 0 || (a == (-2147483647 - 1) && b == -1)) ? a : a / b; }
static inline int safe_smod(int a, int b) { return (b == 0 || (a == (-2147483647 - 1) && b == -1)) ? 0 : a % b; }
static inline float fclampi(float x) { return x > 65536.0f ? 65536.0f : (x < -65536.0f ? -65536.0f : x); }
static inline uint hmix(uint h, uint x) { return (h ^ x) * 16777619u + 2654435769u; }
__kernel void k(__global uint *out, __global const uint *in, __global uint *cnt, __global float *fapprox, uint n)
{
    const uint gid = get_global_id(0);
    const uint lid = get_local_id(0);
    ushort v0 = (ushort)in[(gid + 131u) & 255u];
    uint v1 = (uint)in[(gid + 249u) & 255u];
    uint v2 = (uint)in[(gid + 121u) & 255u];
    int v3 = as_int(in[(gid + 9u) & 255u]);
    uchar v4 = (uchar)in[(gid + 161u) & 255u];
    float f5 = (float)(as_int(in[(gid + 93u) & 255u]) % 4096);
    float f6 = (float)(as_int(in[(gid + 190u) & 255u]) % 4096);
    float f7 = (float)(as_int(in[(gid + 209u) & 255u]) % 4096);
    sub_group_barrier(CLK_LOCAL_MEM_FENCE);
    v2 ^= sub_group_shuffle_xor((uint)(int)f5, 2u);
    f7 = fclampi(f5 * (0.0f * -8.0f));
    if ((clz(in[((as_uint(v3) & (uint)(int)f6)) & 255u]) | (0xfffffffeu & in[(min(726706822u, 401488038u)) & 255u])) == (uint)v4) {
        v1 += get_sub_group_local_id();
        {
            uint g1 = 0u;
            do {
                g1++;
                uint4 sgb1 = sub_group_ballot((as_int(3u) > 44));
                v1 += sub_group_ballot_exclusive_scan(sgb1) + sub_group_ballot_find_lsb(sub_group_ballot(1)) * 7u;
                {
                    uint wk3 = ((((~in[((uint)v4) & 255u]) == gid) ? in[(as_uint(as_int(as_uint(v3)) >> (0xfffffffeu & 31u))) & 255u] : (v2 >> ((uint)v4 & 31u)))) & 7u;
                    for (uint wg4 = 0u; wg4 < 32u; wg4++) {
                        uint wf5 = sub_group_broadcast_first(wk3);
                        if (wf5 == wk3) {
                            v1 ^= sub_group_scan_inclusive_add(in[((as_uint(v3) - v1)) & 255u]);
                            break;
                        }
                    }
                }
                v2 ^= (uint)sub_group_non_uniform_any(((uint)((in[(v2) & 255u] == (uint)v4)) >= as_uint(v3)));
                if (as_int(((uint)(int)f5 * lid)) >= 22) {
                    f6 = fclampi(sub_group_non_uniform_scan_inclusive_min(f6 + 0.0f));
                    break;
                }
                {
                    uint lim7 = 5u;
                    for (uint i6 = 0u; i6 < lim7; i6++) {
                        f6 = fclampi(((f6 - -7.0f) - (f6 + f5)));
                        {
                            uint nj1 = 0u;
                            uint nl1 = 3u;
                            while (nj1 < nl1) {
                                do {
                                    nj1++;
                                    out[gid] = sub_group_broadcast_first(((uint)(int)f7 << (hadd(3572521669u, gid) & 31u)) + nj1 * 8u);
                                } while (gid < 5u && nj1 < nl1);
                                if (gid < 5u) break;
                                out[gid] = sub_group_ballot(gid < 5u || ((((3477876876u >> (0x80000000u & 31u))) & 1u) == 1u)).x + nj1;
                            }
                            v1 ^= out[gid];
                        }
                        f7 = fclampi(((f5 * f5) * (3.0f + (float)(as_int((~i6)) % 4096))));
                        f7 = fclampi(f7 * (0.0f * -5.0f));
                        if (as_int((as_uint(v3) + i6)) >= -22) {
                            uint h = 0u;
                            h = hmix(h, (uint)v0);
                            h = hmix(h, (uint)v1);
                            h = hmix(h, (uint)v2);
                            h = hmix(h, as_uint(v3));
                            h = hmix(h, (uint)v4);
                            h = hmix(h, as_uint(f5));
                            h = hmix(h, as_uint(f6));
                            h = hmix(h, as_uint(f7));
                            out[gid] = h;
                            return;
                        }
                    }
                }
                {
                    uint wk9 = (((0x80000000u & in[((uint)(int)f5) & 255u]) * (lid ^ 0x80000000u))) & 7u;
                    for (uint wg10 = 0u; wg10 < 32u; wg10++) {
                        uint wf11 = sub_group_broadcast_first(wk9);
                        if (wf11 == wk9) {
                            v2 += sub_group_scan_inclusive_add(((((uint)(int)f7 << (v1 & 31u)) != (uint)((gid <= v1))) ? as_uint(as_int(in[((v2 << ((uint)(int)f5 & 31u))) & 255u]) >> ((uint)(int)f7 & 31u)) : as_uint(as_int(16u) >> (255u & 31u))));
                            break;
                        }
                    }
                }
            } while (g1 < 1u && (!((uint)v4 == in[((as_uint(v3) * v2)) & 255u])));
        }
    } else {
        v3 = as_int((uint)(int)f7);
    }
    uint h = 0u;
    h = hmix(h, (uint)v0);
    h = hmix(h, (uint)v1);
    h = hmix(h, (uint)v2);
    h = hmix(h, as_uint(v3));
    h = hmix(h, (uint)v4);
    h = hmix(h, as_uint(f5));
    h = hmix(h, as_uint(f6));
    h = hmix(h, as_uint(f7));
    out[gid] = h;
}
