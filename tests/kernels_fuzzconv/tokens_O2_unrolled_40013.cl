// fuzz convergence-40013 (64 work-items in groups of 32, n = 6), run as token IR: LLVM 22's loop unrolling left its tokens invalid at -O2
#pragma OPENCL FP_CONTRACT OFF
static inline int safe_sdiv(int a, int b) { return (b == 0 || (a == (-2147483647 - 1) && b == -1)) ? a : a / b; }
static inline int safe_smod(int a, int b) { return (b == 0 || (a == (-2147483647 - 1) && b == -1)) ? 0 : a % b; }
static inline float fclampi(float x) { return x > 65536.0f ? 65536.0f : (x < -65536.0f ? -65536.0f : x); }
static inline uint hmix(uint h, uint x) { return (h ^ x) * 16777619u + 2654435769u; }
__kernel void k(__global uint *out, __global const uint *in, __global uint *cnt, __global float *fapprox, uint n)
{
    const uint gid = get_global_id(0);
    const uint lid = get_local_id(0);
    uchar v0 = (uchar)in[(gid + 232u) & 255u];
    uint v1 = (uint)in[(gid + 175u) & 255u];
    int v2 = as_int(in[(gid + 6u) & 255u]);
    uint v3 = (uint)in[(gid + 99u) & 255u];
    uchar v4 = (uchar)in[(gid + 3u) & 255u];
    float f5 = (float)(as_int(in[(gid + 76u) & 255u]) % 4096);
    float f6 = (float)(as_int(in[(gid + 88u) & 255u]) % 4096);
    v3 += (uint)sub_group_any(((as_uint(v2) | (uint)v0) < (uint)((3u > (uint)v0))));
    if (((((!((uint)(int)f5 > 3u)) ? (4155843152u + (uint)(int)f5) : (gid << (gid & 31u)))) & 3u) == 3u) {
        v3 += as_uint(sub_group_non_uniform_scan_inclusive_min(as_int(((f5 > -5.0f) ? lid : ((uint)v0 & (uint)(int)f5)))));
        if (((as_uint(as_int(as_uint(v2)) >> (as_uint(v2) & 31u))) & 1u) == 0u) {
            uint h = 0u;
            h = hmix(h, (uint)v0);
            h = hmix(h, (uint)v1);
            h = hmix(h, as_uint(v2));
            h = hmix(h, (uint)v3);
            h = hmix(h, (uint)v4);
            h = hmix(h, as_uint(f5));
            h = hmix(h, as_uint(f6));
            out[gid] = h;
            return;
        }
    }
    v1 = (uint)sub_group_non_uniform_reduce_min((ulong)((as_uint(as_int((uint)v0) >> (v3 & 31u)) >> ((v1 | 7u) & 31u))));
    f5 = fclampi(f6);
    v0 = (uchar)(max(hadd((uint)(int)f6, min(as_uint(v2), (uint)v0)), ((uint)((v1 != 0u)) + ((uint)v0 >> ((uint)(int)f5 & 31u)))));
    if (n >= 890u) {
        if (as_int(as_uint(v2)) <= -19) {
            uint h = 0u;
            h = hmix(h, (uint)v0);
            h = hmix(h, (uint)v1);
            h = hmix(h, as_uint(v2));
            h = hmix(h, (uint)v3);
            h = hmix(h, (uint)v4);
            h = hmix(h, as_uint(f5));
            h = hmix(h, as_uint(f6));
            out[gid] = h;
            return;
        }
    }
    {
        uint lim2 = 4u;
        for (uint i1 = 0u; i1 < lim2; i1++) {
            v3 = as_uint(sub_group_non_uniform_reduce_mul(as_int(((as_int(as_uint(v2)) < -15) ? as_uint(v2) : clz((uint)v0)))));
            if ((((uint)((f5 > (-14.0f - -13.0f)))) & 3u) == 0u) {
                v1 = 31u;
                v3 = sub_group_clustered_reduce_xor(in[(in[(3678834863u) & 255u]) & 255u], 8u);
                {
                    uint g4 = 0u;
                    do {
                        g4++;
                        if (0xffffffffu >= (uint)((as_int(i1) >= -14))) {
                            v1 ^= (uint)sub_group_non_uniform_reduce_min((ulong)(((uint)((in[((uint)v0) & 255u] != 0u)) >> ((uint)((((v3) & 1u) == 1u)) & 31u))));
                            if (as_uint(safe_sdiv(as_int(in[(((uint)v4 | (uint)v0)) & 255u]), as_int(31u))) >= gid) {
                                if ((((as_uint(v2) | v1)) & 7u) == 2u) {
                                    v3 += get_num_sub_groups();
                                }
                                continue;
                            }
                        } else {
                        }
                    } while (g4 < 4u && ((uint)(int)f6 == clz(v1)));
                }
            } else {
            }
        }
    }
    uint h = 0u;
    h = hmix(h, (uint)v0);
    h = hmix(h, (uint)v1);
    h = hmix(h, as_uint(v2));
    h = hmix(h, (uint)v3);
    h = hmix(h, (uint)v4);
    h = hmix(h, as_uint(f5));
    h = hmix(h, as_uint(f6));
    out[gid] = h;
}
