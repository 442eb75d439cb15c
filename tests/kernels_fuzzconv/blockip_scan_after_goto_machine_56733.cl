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
    ushort v0 = (ushort)in[(gid + 246u) & 255u];
    uchar v1 = (uchar)in[(gid + 215u) & 255u];
    ulong v2 = ((ulong)in[(gid + 168u) & 255u] << 32) | in[(gid * 3u + 168u) & 255u];
    uint v3 = gid;
    float f4 = (float)(as_int(in[(gid + 127u) & 255u]) % 4096);
    float f5 = (float)(as_int(in[(gid + 0u) & 255u]) % 4096);
    uint4 w6 = vload4((gid + 39u) & 63u, in);
    int4 w7 = as_int4(vload4((gid + 31u) & 63u, in));
    uint4 w8 = vload4((gid + 6u) & 63u, in);
    if (lid < 4u) lcnt[lid] = lid * 7u;
    barrier(CLK_LOCAL_MEM_FENCE);
    w7 = as_int4((uint4)(add_sat((uint)(int)f4, 3270209603u)));
    {
        uint st2 = 0u;
        uint st2_lim = ((as_uint(safe_sdiv(as_int(clz((uint)v0)), as_int((uint)(v2 >> 0))))) % 6u + 1u) + 2u;
        if ((((v3 - (uint)v0)) & 7u) == 3u) goto L1_1;
    L1_0:
        {
            w6 = (((uint4)(in[((lid + 0x80000000u)) & 255u]) + w6) * (w6.zwxy / ((uint4)((uint)(v2 >> 13)) | 1u)));
        }
        if (++st2 >= st2_lim) goto L1_end;
        if (((uint)(v2 >> 0) == in[(((uint)(v2 >> 32) - as_uint(w7.s2))) & 255u]) && (0u < v3)) goto L1_0;
    L1_1:
        {
            v0 = (ushort)(as_uint(safe_sdiv(as_int(popcount(((((in[((uint)((as_int(w6.z) >= -25))) & 255u]) & 3u) == 2u) ? (uint)(int)f4 : (uint)v0))), as_int(((v3 << (2735578251u & 31u)) + w8.s2)))));
        }
        if (++st2 >= st2_lim) goto L1_end;
        if (((((uint)(int)f4 ^ w8.s2)) & 7u) == 0u) goto L1_0;
        goto L1_1;
    L1_end: ;
    }
    {
        uint g3 = 0u;
        do {
            g3++;
            v3 ^= get_sub_group_size();
            v1 = (uchar)((lid * (uint)((clz(as_uint(w7.x)) != (405481635u + (uint)(int)f5)))));
        } while (g3 < 4u && (as_int((uint)((0xffffffffu == w6.z))) <= 19));
    }
    w7 = as_int4((w8.zwxy >> (vload4((as_uint(safe_sdiv(as_int((uint)(v2 >> 32)), as_int((uint)(v2 >> 0))))) & 63u, in) & 31u)));
    v3 ^= (uint)sub_group_scan_exclusive_min((sub_sat((16u | (uint)v0), as_uint(w7.s3))));
    w7.zw = as_int2((uint2)(((f4 > ((float)(as_int((1u * gid)) % 4096) * 14.0f)) ? gid : (uint)v1)));
    barrier(CLK_LOCAL_MEM_FENCE);
    v3 ^= lcnt[v3 & 3u];
    barrier(CLK_LOCAL_MEM_FENCE);
    if (lid < 4u) atomic_add(&cnt[0], lcnt[lid]);
    uint h = 0u;
    h = hmix(h, (uint)v0);
    h = hmix(h, (uint)v1);
    h = hmix(hmix(h, (uint)v2), (uint)(v2 >> 32));
    h = hmix(h, (uint)v3);
    h = hmix(h, as_uint(f4));
    h = hmix(h, as_uint(f5));
    h = hmix(h, w6.x);
    h = hmix(h, w6.y);
    h = hmix(h, w6.z);
    h = hmix(h, w6.w);
    h = hmix(h, as_uint(w7.x));
    h = hmix(h, as_uint(w7.y));
    h = hmix(h, as_uint(w7.z));
    h = hmix(h, as_uint(w7.w));
    h = hmix(h, w8.x);
    h = hmix(h, w8.y);
    h = hmix(h, w8.z);
    h = hmix(h, w8.w);
    out[gid] = h;
}
