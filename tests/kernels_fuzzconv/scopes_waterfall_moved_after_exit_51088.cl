// fuzz convergence-51088 reduced (the sizes in test_scopes_at_O2): -O2 moves the waterfall loop written in the for
// loop's body after that loop's exit, before the loop's sub_group_non_uniform_all; the convergence pass refused to pull
// the way into the loop because the waterfall's own anchor is a token from elsewhere
#pragma OPENCL FP_CONTRACT OFF
static inline int safe_sdiv(int a, int b) { return (b == 0 || (a == (-2147483647 - 1) && b == -1)) ? a : a / b; }
static inline int safe_smod(int a, int b) { return (b == 0 || (a == (-2147483647 - 1) && b == -1)) ? 0 : a % b; }
static inline float fclampi(float x) { return x > 65536.0f ? 65536.0f : (x < -65536.0f ? -65536.0f : x); }
static inline uint hmix(uint h, uint x) { return (h ^ x) * 16777619u + 2654435769u; }
__kernel void k(__global uint *out, __global const uint *in, __global uint *cnt, __global float *fapprox, uint n)
{
    const uint gid = get_global_id(0);
    const uint lid = get_local_id(0);
    ushort v0 = (ushort)in[(gid + 37u) & 255u];
    int v1 = as_int(in[(gid + 29u) & 255u]);
    int v2 = as_int(in[(gid + 12u) & 255u]);
    int v3 = as_int(in[(gid + 221u) & 255u]);
    uint v4 = gid;
    float f5 = (float)(as_int(in[(gid + 249u) & 255u]) % 4096);
    float f6 = (float)(as_int(in[(gid + 32u) & 255u]) % 4096);
    {
        uint fl10 = 0u;
        uint g9 = 0u;
        do {
            {
                uint lim12 = ((clz(as_uint(as_int((uint)(int)f5) >> (gid & 31u)))) % 4u + 1u);
                for (uint i11 = 0u; i11 < lim12; i11++) {
                    if (as_int(popcount(as_uint(v3))) >= -22) {
                        fl10 = 1u;
                        break;
                    }
                    if (as_int((uint)(int)f6) > -31) {
                        {
                            uint wk14 = (((((((uint)(int)f5) & 7u) == 3u) ? in[(v4) & 255u] : i11) / ((lid * in[((i11 % (i11 | 1u))) & 255u]) | 1u))) & 7u;
                            for (uint wg15 = 0u; wg15 < 32u; wg15++) {
                                uint wf16 = sub_group_broadcast_first(wk14);
                                if (wf16 == wk14) {
                                    v4 += sub_group_scan_inclusive_add(1817536848u);
                                    break;
                                }
                            }
                        }
                        v4 = (uint)sub_group_non_uniform_all((as_uint(safe_sdiv(as_int(in[(((uint)(int)f6 % (642195261u | 1u))) & 255u]), as_int(16u))) > as_uint(v3)));
                        {
                            uint lim18 = 1u;
                            for (uint i17 = 0u; i17 < lim18; i17++) {
                                if ((0x80000000u != 0u) || (f5 == (7.0f - f6))) { fl10 = 2u; break; }
                            }
                            if (fl10 != 0u) break;
                        }
                    }
                }
                if (fl10 == 1u) break;
            }
        } while (g9 < 3u && (as_int(v4) > -4));
    }
    uint h = 0u;
    h = hmix(h, (uint)v0);
    h = hmix(h, as_uint(v1));
    h = hmix(h, as_uint(v2));
    h = hmix(h, as_uint(v3));
    h = hmix(h, (uint)v4);
    h = hmix(h, as_uint(f5));
    h = hmix(h, as_uint(f6));
    out[gid] = h;
}

