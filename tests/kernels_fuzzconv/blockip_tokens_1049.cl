#pragma OPENCL FP_CONTRACT OFF
static inline int safe_sdiv(int a, int b) { return (b == 0 || (a == (-2147483647 - 1) && b == -1)) ? a : a / b; }
static inline int safe_smod(int a, int b) { return (b == 0 || (a == (-2147483647 - 1) && b == -1)) ? 0 : a % b; }
static inline float fclampi(float x) { return x > 65536.0f ? 65536.0f : (x < -65536.0f ? -65536.0f : x); }
static inline uint hmix(uint h, uint x) { return (h ^ x) * 16777619u + 2654435769u; }
__kernel void k(__global uint *out, __global const uint *in, __global uint *cnt, __global float *fapprox, uint n)
{
    const uint gid = get_global_id(0);
    const uint lid = get_local_id(0);
    uint v0 = (uint)in[(gid + 5u) & 255u];
    uchar v1 = (uchar)in[(gid + 182u) & 255u];
    uint v2 = (uint)in[(gid + 155u) & 255u];
    ushort v3 = (ushort)in[(gid + 214u) & 255u];
    uint v4 = (uint)in[(gid + 95u) & 255u];
    uchar v5 = (uchar)in[(gid + 206u) & 255u];
    float f6 = (float)(as_int(in[(gid + 111u) & 255u]) % 4096);
    v4 += sub_group_shuffle_xor(rotate((in[(3u) & 255u] & in[(((uint)v5 | (uint)(int)f6)) & 255u]), (in[((v4 - in[(sub_sat(16u, 0x7fffffffu)) & 255u])) & 255u] % (255u | 1u))), 1u);
    if (((((uint)v3 * ((uint)(int)f6 + gid))) & 1u) == 0u) {
        f6 = fclampi(((-20.0f - (float)(as_int(((uint)v3 ^ 0x2u)) % 4096)) - f6));
    }
    if ((((((uint)v1) & 1u) == 1u) || (as_int(v0) < 13)) || ((v2 -= ((uint)(int)f6 / (16u | 1u))) & 8u)) {
        {
            uint wk1 = (((in[(((uint)v5 - v4)) & 255u] >> ((uint)v1 & 31u)) ^ gid)) & 7u;
            for (uint wg2 = 0u; wg2 < 32u; wg2++) {
                uint wf3 = sub_group_broadcast_first(wk1);
                if (wf3 == wk1) {
                    v0 = sub_group_scan_inclusive_add((sub_sat(gid, v4) + (in[(clz((uint)(int)f6)) & 255u] ^ (uint)v3)));
                    break;
                }
            }
        }
        f6 = fclampi(sub_group_non_uniform_scan_inclusive_min((float)(as_int((-v2)) % 4096)));
        {
            uint lim5 = (((~max(gid, v2))) % 5u + 1u);
            for (uint i4 = 0u; i4 < lim5; i4++) {
                if (((uint)v1 <= (((uint)v1 <= v2) ? 0x7fffffffu : v2)) && ((v2 ^= 3547463918u) & 1u)) {
                    {
                        uint wk7 = ((((uint)(int)f6 + (uint)v5) + (v4 & (uint)v5))) & 7u;
                        for (uint wg8 = 0u; wg8 < 32u; wg8++) {
                            uint wf9 = sub_group_broadcast_first(wk7);
                            if (wf9 == wk7) {
                                v2 = sub_group_scan_exclusive_min(((i4 * v2) | v0));
                                break;
                            }
                        }
                    }
                }
            }
        }
        {
            uint wk10 = (((uint)((((v4) & 1u) == 0u)) + ((uint)v3 << ((uint)v1 & 31u)))) & 7u;
            for (uint wg11 = 0u; wg11 < 32u; wg11++) {
                uint wf12 = sub_group_broadcast_first(wk10);
                if (wf12 == wk10) {
                    v0 ^= sub_group_scan_inclusive_add((uint)v1);
                    break;
                }
            }
        }
    } else {
        v2 += sub_group_broadcast_first(abs_diff((uint)(int)f6, ((((65535u) & 3u) == 0u) ? v0 : in[(clz(0x2u)) & 255u])));
        if (as_int((0x2u ^ (uint)(int)f6)) < -1) {
            uint h = 0u;
            h = hmix(h, (uint)v0);
            h = hmix(h, (uint)v1);
            h = hmix(h, (uint)v2);
            h = hmix(h, (uint)v3);
            h = hmix(h, (uint)v4);
            h = hmix(h, (uint)v5);
            h = hmix(h, as_uint(f6));
            out[gid] = h;
            return;
        }
        if (n >= 259u) {
            v2 += sub_group_shuffle((uint)((((mul_hi((uint)v3, 0xfffffffeu)) & 7u) == 1u)), sub_group_ballot_find_lsb(sub_group_ballot(1)));
            v3 = (ushort)((((!(as_int((uint)v5) <= 33)) ? gid : (v2 * v4)) >> (in[(((uint)(int)f6 - 0x2u)) & 255u] & 31u)));
            if (!(!((((uint)(int)f6) & 15u) == 2u))) {
                v4 ^= as_uint(sub_group_non_uniform_reduce_mul(as_int((mul_hi(in[((~7u)) & 255u], in[((uint)(int)f6) & 255u]) ^ lid))));
                if ((lid >= clz((uint)v3)) || ((v0 -= in[(((gid == (uint)v1) ? (uint)v3 : v2)) & 255u]) & 3u)) {
                    v5 = (uchar)(sub_sat((add_sat((uint)v5, (uint)v1) | as_uint(safe_sdiv(as_int((uint)(int)f6), as_int(v0)))), as_uint(as_int(gid) >> (3172191253u & 31u))));
                    v2 |= (clz(255u) >> ((400024040u ^ v0) & 31u));
                }
            }
        }
    }
    uint h = 0u;
    h = hmix(h, (uint)v0);
    h = hmix(h, (uint)v1);
    h = hmix(h, (uint)v2);
    h = hmix(h, (uint)v3);
    h = hmix(h, (uint)v4);
    h = hmix(h, (uint)v5);
    h = hmix(h, as_uint(f6));
    out[gid] = h;
}
