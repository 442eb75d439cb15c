// fuzz convergence-36562 reduced (32 work-items in groups of 16, n = 5): a goto loop whose operation follows it in its
// braces, after code that runs before the loop; -O2 hoists that code without a location, and the lexical rule took the
// operation for the goto loop's (met per pass) where -O0 meets every lane: ir, spirv, gen -O2 agreed, not with -O0
#pragma OPENCL FP_CONTRACT OFF
static inline int safe_sdiv(int a, int b) { return (b == 0 || (a == (-2147483647 - 1) && b == -1)) ? a : a / b; }
static inline int safe_smod(int a, int b) { return (b == 0 || (a == (-2147483647 - 1) && b == -1)) ? 0 : a % b; }
static inline float fclampi(float x) { return x > 65536.0f ? 65536.0f : (x < -65536.0f ? -65536.0f : x); }
static inline uint hmix(uint h, uint x) { return (h ^ x) * 16777619u + 2654435769u; }
__kernel void k(__global uint *out, __global const uint *in, __global uint *cnt, __global float *fapprox, uint n)
{
    const uint gid = get_global_id(0);
    const uint lid = get_local_id(0);
    int v0 = as_int(in[(gid + 155u) & 255u]);
    uint v1 = (uint)in[(gid + 90u) & 255u];
    uchar v2 = (uchar)in[(gid + 95u) & 255u];
    ulong v3 = ((ulong)in[(gid + 4u) & 255u] << 32) | in[(gid * 3u + 4u) & 255u];
    float f4 = (float)(as_int(in[(gid + 192u) & 255u]) % 4096);
    if (as_int(as_uint(v0)) > 7) {
        {
            uint lim5 = 4u;
            for (uint i4 = 0u; i4 < lim5; i4++) {
                {
                    uint lim8 = 1u;
                    for (uint i7 = 0u; i7 < lim8; i7++) {
                        {
                            uint yk1 = (((i7 + i7) ^ (uint)v2)) & 3u;
                            uint ys1 = 0u, yj1 = 0u;
                        yl1:
                            if (yj1 == yk1) {
                                goto yo1;
                            }
                            ys1 += yj1 * 4u + 2u;
                            yj1++;
                            if (yj1 < 5u) goto yl1;
                        yo1:
                            v1 += sub_group_reduce_max(popcount(lid));
                            v1 ^= ys1;
                        }
                    }
                }
            }
        }
    }
    uint h = 0u;
    h = hmix(h, as_uint(v0));
    h = hmix(h, (uint)v1);
    h = hmix(h, (uint)v2);
    h = hmix(hmix(h, (uint)v3), (uint)(v3 >> 32));
    h = hmix(h, as_uint(f4));
    out[gid] = h;
}
