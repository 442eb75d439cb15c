#pragma OPENCL FP_CONTRACT OFF
static inline int safe_sdiv(int a, int b) { return (b == 0 || (a == (-2147483647 - 1) && b == -1)) ? a : a / b; }
static inline int safe_smod(int a, int b) { return (b == 0 || (a == (-2147483647 - 1) && b == -1)) ? 0 : a % b; }
static inline float fclampi(float x) { return x > 65536.0f ? 65536.0f : (x < -65536.0f ? -65536.0f : x); }
static inline uint hmix(uint h, uint x) { return (h ^ x) * 16777619u + 2654435769u; }
__kernel void k(__global uint *out, __global const uint *in, __global uint *cnt, __global float *fapprox, uint n)
{
    const uint gid = get_global_id(0);
    const uint lid = get_local_id(0);
    const uint lsize = get_local_size(0);
    __local uint lm[64];
    __local uint lcnt[4];
    uchar v0 = (uchar)in[(gid + 156u) & 255u];
    uchar v1 = (uchar)in[(gid + 210u) & 255u];
    ulong v2 = ((ulong)in[(gid + 239u) & 255u] << 32) | in[(gid * 3u + 239u) & 255u];
    uchar v3 = (uchar)in[(gid + 56u) & 255u];
    uint v4 = gid;
    float f5 = (float)(as_int(in[(gid + 43u) & 255u]) % 4096);
    float f6 = (float)(as_int(in[(gid + 11u) & 255u]) % 4096);
    float f7 = (float)(as_int(in[(gid + 138u) & 255u]) % 4096);
    uint4 w8 = vload4((gid + 52u) & 63u, in);
    uint pa9[4];
    for (uint c = 0u; c < 4u; c++) pa9[c] = in[(gid * 4u + c) & 255u];
    if (lid < 4u) lcnt[lid] = lid * 7u;
    barrier(CLK_LOCAL_MEM_FENCE);
    {
        uint g1 = 0u;
        while (g1 < 6u && (!(((gid) & 1u) == 1u))) {
            g1++;
            atomic_or(&lcnt[1], ((in[(((uint)v3 % (gid | 1u))) & 255u] % ((uint)v3 | 1u)) - ((in[((-3700816791u)) & 255u] != (uint)v3) ? (uint)v3 : in[(((uint)v3 % ((uint)v3 | 1u))) & 255u])));
            if (v4 >= ((gid & gid) << ((in[(clz((uint)v3)) & 255u] | (uint)v1) & 31u))) {
                v4 += as_uint(sub_group_non_uniform_reduce_and(as_int((uint)v0)));
                {
                    uint st4 = 0u;
                    uint st4_lim = 5u + 2u;
                    if (!((uint)v3 >= (uint)v0)) goto L3_1;
                L3_0:
                    {
                        v2 = (v2 * (ulong)(lid | 1u)) + (((ulong)((((((uint)(v2 >> 13) | v4)) & 1u) == 0u) ? lid : rotate(3u, as_uint(as_int(pa9[(rotate((uint)v3, (uint)(int)f7)) & 3u]) >> (lid & 31u))))) << 0);
                    }
                    if (++st4 >= st4_lim) goto L3_end;
                    if ((((v4 << (w8.z & 31u))) & 1u) == 1u) goto L3_2;
                    goto L3_0;
                L3_1:
                    {
                    }
                    if (++st4 >= st4_lim) goto L3_end;
                    if ((uint)((pa9[((lid >> ((uint)(v2 >> 13) & 31u))) & 3u] != 0u)) <= ((uint)v1 >> ((uint)v1 & 31u))) goto L3_0;
                L3_2:
                    {
                    }
                    if (++st4 >= st4_lim) goto L3_end;
                    if (in[(min((uint)(int)f6, lid)) & 255u] == (gid | 31u)) goto L3_1;
                    goto L3_2;
                L3_end: ;
                }
            } else {
            }
        }
    }
    lm[lid] = (uint)v1;
    barrier(CLK_LOCAL_MEM_FENCE);
    v4 ^= lm[lid ^ (11u & (lsize - 1u))];
    barrier(CLK_LOCAL_MEM_FENCE);
    barrier(CLK_LOCAL_MEM_FENCE);
    v4 ^= lcnt[v4 & 3u];
    barrier(CLK_LOCAL_MEM_FENCE);
    if (lid < 4u) atomic_add(&cnt[0], lcnt[lid]);
    uint h = 0u;
    h = hmix(h, (uint)v0);
    h = hmix(h, (uint)v1);
    h = hmix(hmix(h, (uint)v2), (uint)(v2 >> 32));
    h = hmix(h, (uint)v3);
    h = hmix(h, (uint)v4);
    h = hmix(h, as_uint(f5));
    h = hmix(h, as_uint(f6));
    h = hmix(h, as_uint(f7));
    h = hmix(h, w8.x);
    h = hmix(h, w8.y);
    h = hmix(h, w8.z);
    h = hmix(h, w8.w);
    for (uint c = 0u; c < 4u; c++) h = hmix(h, pa9[c]);
    out[gid] = h;
}
