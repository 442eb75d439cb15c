#pragma OPENCL FP_CONTRACT OFF
static inline int safe_sdiv(int a, int b) { return (b == 0 || (a == (-2147483647 - 1) && b == -1)) ? a : a / b; }
static inline int safe_smod(int a, int b) { return (b == 0 || (a == (-2147483647 - 1) && b == -1)) ? 0 : a % b; }
static inline float fclampi(float x) { return x > 65536.0f ? 65536.0f : (x < -65536.0f ? -65536.0f : x); }
static inline uint hmix(uint h, uint x) { return (h ^ x) * 16777619u + 2654435769u; }
__kernel void k(__global uint *out, __global const uint *in, __global uint *cnt, __global float *fapprox, uint n)
{
    const uint gid = get_global_id(0);
    const uint lid = get_local_id(0);
    ulong v0 = ((ulong)in[(gid + 97u) & 255u] << 32) | in[(gid * 3u + 97u) & 255u];
    uint v1 = (uint)in[(gid + 44u) & 255u];
    uchar v2 = (uchar)in[(gid + 188u) & 255u];
    ushort v3 = (ushort)in[(gid + 128u) & 255u];
    float f4 = (float)(as_int(in[(gid + 126u) & 255u]) % 4096);
    float f5 = (float)(as_int(in[(gid + 105u) & 255u]) % 4096);
    uint pa6[16];
    for (uint c = 0u; c < 16u; c++) pa6[c] = in[(gid * 16u + c) & 255u];
    v1 = (uint)sub_group_scan_exclusive_add((ulong)((((uint)v2 | pa6[(add_sat(lid, 16u)) & 15u]) ^ (1891654724u % ((uint)v3 | 1u)))));
    pa6[((as_uint(as_int(v1) >> ((uint)v3 & 31u)) * (uint)(v0 >> 0))) & 15u] = (((as_int(v1) <= -37) || (gid > (uint)(int)f5)) ? (uint)(v0 >> 13) : as_uint(safe_sdiv(as_int((uint)v2), as_int(in[((2489213745u << (lid & 31u))) & 255u]))));
    pa6[(clz((uint)((f5 == f4)))) & 15u] = clz(clz(lid));
    {
        uint fl2 = 0u;
        uint g1 = 0u;
        while (g1 < 3u && ((uint)v2 < (v1 - 3759329378u))) {
            g1++;
            v1 ^= as_uint(sub_group_non_uniform_reduce_max(as_int((((uint)v2 ^ (uint)(v0 >> 13)) - ((uint)v2 + v1)))));
            {
                uint lim4 = ((mul_hi((((uint)(v0 >> 32) != 0u) ? in[((0u / (2389941591u | 1u))) & 255u] : 2120625185u), 0xffffffffu)) % 5u + 1u);
                for (uint i3 = 0u; i3 < lim4; i3++) {
                    if (((uint)v3 >= 0x2u) || ((v1 -= ((uint)(v0 >> 13) / ((uint)(v0 >> 0) | 1u))) & 3u)) {
                        {
                            uint g6 = 0u;
                            do {
                                g6++;
                                v3 = (ushort)((uint)(((-(v1 | 16u)) >= (~as_uint(safe_smod(as_int((uint)v3), as_int(16u)))))));
                                f4 = fclampi(((f4 - (float)(as_int((i3 + 0x7fffffffu)) % 4096)) + (f4 - f4)));
                                f4 = fclampi((7.0f * f5));
                                v1 = (uint)sub_group_non_uniform_reduce_xor((((~in[((in[(4007711145u) & 255u] >> ((uint)v2 & 31u))) & 255u]) | add_sat((uint)(int)f5, gid))));
                                if (n >= 950u) {
                                    f5 = fclampi((f4 * (f5 * f5)));
                                    v2 = (uchar)(((-i3) >> (abs_diff(((uint)v2 & (uint)(v0 >> 32)), as_uint(as_int(v1) >> ((uint)(int)f4 & 31u))) & 31u)));
                                }
                            } while (g6 < 4u && ((((((uint)v3 == lid) ? (uint)v2 : (uint)(int)f4)) & 3u) == 0u));
                        }
                        v2 = (uchar)(hadd(((16u / (v1 | 1u)) * (lid << ((uint)(v0 >> 13) & 31u))), (((v1 != 0u) ? (uint)(v0 >> 32) : pa6[((i3 - 1363983461u)) & 15u]) * ((uint)(v0 >> 0) + (uint)v2))));
                    } else {
                        v1 = (-((~(uint)v3) >> ((uint)((in[((uint)((((0x2u) & 7u) == 3u))) & 255u] != 0u)) & 31u)));
                        v1 = as_uint(sub_group_non_uniform_scan_inclusive_or(as_int(((~(uint)v2) ^ (0x80000000u >> (0xfffffffeu & 31u))))));
                        if ((uint)(int)f4 == i3) { fl2 = 2u; break; }
                    }
                }
                if (fl2 == 1u) break;
                if (fl2 == 2u) { fl2 = 0u; continue; }
            }
            if (((in[(v1) & 255u]) & 3u) == 0u) continue;
        }
    }
    uint h = 0u;
    h = hmix(hmix(h, (uint)v0), (uint)(v0 >> 32));
    h = hmix(h, (uint)v1);
    h = hmix(h, (uint)v2);
    h = hmix(h, (uint)v3);
    h = hmix(h, as_uint(f4));
    h = hmix(h, as_uint(f5));
    for (uint c = 0u; c < 16u; c++) h = hmix(h, pa6[c]);
    out[gid] = h;
}
