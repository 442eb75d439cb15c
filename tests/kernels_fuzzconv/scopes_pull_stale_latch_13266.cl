#pragma OPENCL FP_CONTRACT OFF
static inline int safe_sdiv(int a, int b) { return (b == 0 || (a == (-2147483647 - 1) && b == -1)) ? a : a / b; }
static inline int safe_smod(int a, int b) { return (b == 0 || (a == (-2147483647 - 1) && b == -1)) ? 0 : a % b; }
static inline float fclampi(float x) { return x > 65536.0f ? 65536.0f : (x < -65536.0f ? -65536.0f : x); }
static inline uint hmix(uint h, uint x) { return (h ^ x) * 16777619u + 2654435769u; }
__kernel void k(__global uint *out, __global const uint *in, __global uint *cnt, __global float *fapprox, uint n)
{
    const uint gid = get_global_id(0);
    const uint lid = get_local_id(0);
    uint v0 = (uint)in[(gid + 187u) & 255u];
    int v1 = as_int(in[(gid + 87u) & 255u]);
    uint v2 = (uint)in[(gid + 245u) & 255u];
    float f3 = (float)(as_int(in[(gid + 24u) & 255u]) % 4096);
    float f4 = (float)(as_int(in[(gid + 101u) & 255u]) % 4096);
    float f5 = (float)(as_int(in[(gid + 111u) & 255u]) % 4096);
    uint pa6[16];
    for (uint c = 0u; c < 16u; c++) pa6[c] = in[(gid * 16u + c) & 255u];
    v0 ^= (uint)sub_group_scan_inclusive_max((ulong)((2384336679u & in[(clz(v2)) & 255u])));
    {
        uint fl2 = 0u;
        uint g1 = 0u;
        for (;;) {
            if (!(g1 < 1u && ((lid != 0u) && (((0xffffffffu) & 1u) == 1u)))) break; g1++;
            {
                uint fl5 = 0u;
                uint lim4 = ((rotate((-(uint)(int)f3), min(pa6[(clz(v0)) & 15u], v2))) % 3u + 1u);
                for (uint i3 = 0u; i3 < lim4; i3++) {
                    v1 = as_int(((uint)((as_int(v2) < -42)) | popcount(in[((i3 * as_uint(v1))) & 255u])));
                    {
                        uint g6 = 0u;
                        do {
                            g6++;
                            v2 ^= (uint)sub_group_non_uniform_reduce_and((ulong)(1u));
                            if ((v0 | v2) <= (1u / (as_uint(v1) | 1u))) {
                                if (((v0) & 3u) == 0u) {
                                    v2 = get_sub_group_size();
                                }
                                fl5 = 1u;
                                break;
                            }
                        } while (g6 < 5u && (v2 < 3140208580u));
                        if (fl5 == 1u) break;
                        if (fl5 == 2u) { fl5 = 0u; continue; }
                    }
                    if ((in[((0xffffffffu | as_uint(v1))) & 255u] << (in[((3058704751u ^ 972542574u)) & 255u] & 31u)) >= as_uint(safe_sdiv(as_int(pa6[((uint)((f4 < f3))) & 15u]), as_int((uint)(int)f3)))) {
                        v0 += (uint)sub_group_non_uniform_all((as_uint(safe_smod(as_int(i3), as_int(v2))) < v0));
                        fl2 = 2u;
                        break;
                    }
                }
                if (fl2 == 1u) break;
                if (fl2 == 2u) { fl2 = 0u; continue; }
            }
            if (as_int((in[(pa6[(clz(0xffffffffu)) & 15u]) & 255u] - gid)) <= -36) break;
        }
    }
    {
        uint lim9 = (((uint)(int)f3) % 3u + 1u);
        for (uint i8 = 0u; i8 < lim9; i8++) {
            v2 ^= (uint)sub_group_elect();
            if ((i8 - in[(min(v2, 255u)) & 255u]) <= v0) continue;
            v0 ^= (uint)sub_group_non_uniform_scan_exclusive_xor((ushort)((((v0 != 0u) ? as_uint(v1) : v2) & (i8 ^ (uint)(int)f3))));
            v0 = v0;
            v2 = sub_group_non_uniform_reduce_add((as_uint(v1) - as_uint(v1)));
            if (!(as_uint(v1) != 0u)) continue;
        }
    }
    uint h = 0u;
    h = hmix(h, (uint)v0);
    h = hmix(h, as_uint(v1));
    h = hmix(h, (uint)v2);
    h = hmix(h, as_uint(f3));
    h = hmix(h, as_uint(f4));
    h = hmix(h, as_uint(f5));
    for (uint c = 0u; c < 16u; c++) h = hmix(h, pa6[c]);
    out[gid] = h;
}
