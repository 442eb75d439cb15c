// fuzz convergence-36742 (64 work-items in one group, n = 1): the class of 36562, a mismatch on ir, spirv and gen -O2
#pragma OPENCL FP_CONTRACT OFF
static inline int safe_sdiv(int a, int b) { return (b == 0 || (a == (-2147483647 - 1) && b == -1)) ? a : a / b; }
static inline int safe_smod(int a, int b) { return (b == 0 || (a == (-2147483647 - 1) && b == -1)) ? 0 : a % b; }
static inline float fclampi(float x) { return x > 65536.0f ? 65536.0f : (x < -65536.0f ? -65536.0f : x); }
static inline uint hmix(uint h, uint x) { return (h ^ x) * 16777619u + 2654435769u; }
__kernel void k(__global uint *out, __global const uint *in, __global uint *cnt, __global float *fapprox, uint n)
{
    const uint gid = get_global_id(0);
    const uint lid = get_local_id(0);
    int v0 = as_int(in[(gid + 202u) & 255u]);
    uint v1 = (uint)in[(gid + 116u) & 255u];
    uint v2 = (uint)in[(gid + 134u) & 255u];
    uchar v3 = (uchar)in[(gid + 220u) & 255u];
    ushort v4 = (ushort)in[(gid + 18u) & 255u];
    uint v5 = (uint)in[(gid + 161u) & 255u];
    float f6 = (float)(as_int(in[(gid + 60u) & 255u]) % 4096);
    float f7 = (float)(as_int(in[(gid + 248u) & 255u]) % 4096);
    v1 ^= as_uint(sub_group_reduce_min(as_int(((2886626871u >> (v1 & 31u)) * v2))));
    v5 = (((as_int((uint)v3) > -15) && (0x80000000u >= v5)) || ((v2 ^= (in[(16u) & 255u] ^ gid)) & 3u)) ? (as_uint(as_int(16u) >> (v1 & 31u)) | (uint)v4) : (~((uint)(int)f7 * v1));
    if (as_uint(v0) < v2) {
        {
            uint nj1 = 0u;
            uint nl1 = 1u;
            while (nj1 < nl1) {
                do {
                    nj1++;
                    out[gid] = sub_group_non_uniform_reduce_add(3710086917u + nj1 * 72u);
                } while ((f6 < (-15.0f - (float)(as_int(as_uint(as_int(gid) >> (v5 & 31u))) % 4096))) && nj1 < nl1);
                if ((f6 < (-15.0f - (float)(as_int(as_uint(as_int(gid) >> (v5 & 31u))) % 4096)))) break;
                out[gid] = sub_group_ballot((f6 < (-15.0f - (float)(as_int(as_uint(as_int(gid) >> (v5 & 31u))) % 4096))) || ((v2 | nj1) == in[(popcount(in[((3u - 16u)) & 255u])) & 255u])).x + nj1;
            }
            v1 ^= out[gid];
        }
        {
            uint lim2 = ((max((v2 >> (as_uint(v0) & 31u)), max((uint)(int)f7, v5))) % 2u + 0u);
            for (uint i1 = 0u; i1 < lim2; i1++) {
                {
                    uint yk1 = ((uint)v3) & 7u;
                    uint ys1 = 0u, yj1 = 0u;
                yl1:
                    if (yj1 == yk1) {
                        goto yo1;
                    }
                    ys1 += yj1 * 1u + 3u;
                    yj1++;
                    if (yj1 < 5u) goto yl1;
                yo1:
                    v1 += sub_group_reduce_max(((f6 == 0.0f) ? in[(clz(1386666284u)) & 255u] : (uint)(int)f7));
                    v1 ^= ys1;
                }
                if (rotate(v2, (uint)v3) == (v1 & 0x2u)) continue;
                f7 = fclampi((float)(as_int((0x80000000u + i1)) % 4096));
                if (as_int((as_uint(v0) >> (0xffffffffu & 31u))) >= -47) {
                    uint h = 0u;
                    h = hmix(h, as_uint(v0));
                    h = hmix(h, (uint)v1);
                    h = hmix(h, (uint)v2);
                    h = hmix(h, (uint)v3);
                    h = hmix(h, (uint)v4);
                    h = hmix(h, (uint)v5);
                    h = hmix(h, as_uint(f6));
                    h = hmix(h, as_uint(f7));
                    out[gid] = h;
                    return;
                }
            }
        }
    } else {
        {
            uint wk4 = ((sub_sat(v2, lid) + (uint)v4)) & 7u;
            for (uint wg5 = 0u; wg5 < 32u; wg5++) {
                uint wf6 = sub_group_broadcast_first(wk4);
                if (wf6 == wk4) {
                    v1 ^= sub_group_reduce_add((uint)v4);
                    break;
                }
            }
        }
        if (as_int((uint)(((0u + in[(v1) & 255u]) <= hadd(gid, (uint)(int)f7)))) >= -26) {
            {
                uint nj2 = 0u;
                uint nl2 = ((((sub_sat(v1, (uint)v3) != (uint)((f7 > (f6 * f7)))) ? as_uint(safe_smod(as_int((uint)(int)f6), as_int(7u))) : min(gid, 255u))) % 2u + 0u);
                while (nj2 < nl2) {
                    do {
                        nj2++;
                        out[gid] = sub_group_broadcast_first((((~gid) == lid) ? (-(uint)v3) : 0xfffffffeu) + nj2 * 18u);
                    } while ((lid & 1u) == 0u && nj2 < nl2);
                    if ((lid & 1u) == 0u) break;
                    out[gid] = sub_group_ballot((lid & 1u) == 0u || ((1344026078u | as_uint(v0)) == (nj2 << (1877654460u & 31u)))).x + nj2;
                }
                v2 ^= out[gid];
            }
            if (n >= 273u) {
                v0 = as_int(((f7 == (f7 * f6)) ? as_uint(as_int(((uint)v3 & 2645877130u)) >> (((as_int(gid) < -39) ? (uint)v4 : v2) & 31u)) : mul_hi(((as_int((uint)(int)f6) <= -49) ? lid : lid), (~(uint)v3))));
                if (n >= 787u) {
                    {
                        uint g7 = 0u;
                        do {
                            g7++;
                            v1 = (((as_uint(v0) - v5) | as_uint(as_int(lid) >> ((uint)(int)f7 & 31u))) & popcount((in[((v5 & in[(0x80000000u) & 255u])) & 255u] - as_uint(v0))));
                        } while (g7 < 3u && (f7 <= ((float)(as_int(((as_int((uint)v4) < 18) ? 65535u : 1u)) % 4096) + (float)(as_int(in[(in[((0u * 0x80000000u)) & 255u]) & 255u]) % 4096))));
                    }
                }
            }
        }
    }
    uint h = 0u;
    h = hmix(h, as_uint(v0));
    h = hmix(h, (uint)v1);
    h = hmix(h, (uint)v2);
    h = hmix(h, (uint)v3);
    h = hmix(h, (uint)v4);
    h = hmix(h, (uint)v5);
    h = hmix(h, as_uint(f6));
    h = hmix(h, as_uint(f7));
    out[gid] = h;
}
