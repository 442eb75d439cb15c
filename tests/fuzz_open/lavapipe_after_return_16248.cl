#pragma OPENCL FP_CONTRACT OFF
static inline int safe_sdiv(int a, int b) { return (b == 0 || (a == (-2147483647 - 1) && b == -1)) ? a : a / b; }
static inline int safe_smod(int a, int b) { return (b == 0 || (a == (-2147483647 - 1) && b == -1)) ? 0 : a % b; }
static inline float fclampi(float x) { return x > 65536.0f ? 65536.0f : (x < -65536.0f ? -65536.0f : x); }
static inline uint hmix(uint h, uint x) { return (h ^ x) * 16777619u + 2654435769u; }
__kernel void k(__global uint *out, __global const uint *in, __global uint *cnt, __global float *fapprox, uint n)
{
    const uint gid = get_global_id(0);
    const uint lid = get_local_id(0);
    uint v0 = (uint)in[(gid + 250u) & 255u];
    ushort v1 = (ushort)in[(gid + 145u) & 255u];
    uint v2 = (uint)in[(gid + 229u) & 255u];
    ulong v3 = ((ulong)in[(gid + 42u) & 255u] << 32) | in[(gid * 3u + 42u) & 255u];
    ulong v4 = ((ulong)in[(gid + 28u) & 255u] << 32) | in[(gid * 3u + 28u) & 255u];
    int v5 = as_int(in[(gid + 78u) & 255u]);
    float f6 = (float)(as_int(in[(gid + 194u) & 255u]) % 4096);
    float f7 = (float)(as_int(in[(gid + 178u) & 255u]) % 4096);
    float f8 = (float)(as_int(in[(gid + 165u) & 255u]) % 4096);
    uint pa9[8];
    for (uint c = 0u; c < 8u; c++) pa9[c] = in[(gid * 8u + c) & 255u];
    v2 = sub_group_broadcast_first((sub_sat(in[(lid) & 255u], v0) * (uint)((f7 > (f6 * f6)))));
    switch ((((in[(((uint)v1 ^ lid)) & 255u] ^ as_uint(v5)) - as_uint(v5)) + v2) & 7u) {
    case 4u: {
        v0 += sub_group_clustered_reduce_and(pa9[(in[(popcount(0x80000000u)) & 255u]) & 7u], 8u);
        v4 = (v4 * (ulong)(in[(as_uint(as_int(v2) >> (as_uint(v5) & 31u))) & 255u] | 1u)) + (((ulong)(0xfffffffeu >> (v0 & 31u))) << 7);
        }
        break;
    default: {
        v0 += sub_group_shuffle(lid, sub_group_ballot_find_lsb(sub_group_ballot(1)));
        f6 = fclampi((f7 * (0.0f * -5.0f)));
        }
        break;
    }
    v1 = (ushort)((popcount((~(uint)(v4 >> 32))) - as_uint(v5)));
    if ((hadd(as_uint(v5), 739535077u) != ((uint)(v4 >> 0) & 2980414211u)) && (f8 <= (float)(as_int(sub_sat(v0, (uint)(v3 >> 32))) % 4096))) {
        if (f7 <= f8) {
            v0 = as_uint(sub_group_non_uniform_scan_inclusive_or(as_int((popcount(in[((2849741337u * gid)) & 255u]) << ((v0 / (7u | 1u)) & 31u)))));
            if (((uint)(int)f6 != 0u) || (((lid) & 3u) == 1u)) {
                uint h = 0u;
                h = hmix(h, (uint)v0);
                h = hmix(h, (uint)v1);
                h = hmix(h, (uint)v2);
                h = hmix(hmix(h, (uint)v3), (uint)(v3 >> 32));
                h = hmix(hmix(h, (uint)v4), (uint)(v4 >> 32));
                h = hmix(h, as_uint(v5));
                h = hmix(h, as_uint(f6));
                h = hmix(h, as_uint(f7));
                h = hmix(h, as_uint(f8));
                for (uint c = 0u; c < 8u; c++) h = hmix(h, pa9[c]);
                out[gid] = h;
                return;
            }
            pa9[(as_uint(safe_smod(as_int(359775242u), as_int((lid - gid))))) & 7u] = as_uint(as_int(max(3619421431u, 3198573933u)) >> (max((uint)(v3 >> 32), in[((lid & lid)) & 255u]) & 31u));
        } else {
            v0 += sub_group_non_uniform_reduce_add(((pa9[((2448262874u ^ gid)) & 7u] <= 31u) ? (uint)(v4 >> 32) : (uint)(v3 >> 32)));
            {
                uint wk1 = (((uint)(v4 >> 13) + (-(uint)v1))) & 7u;
                for (uint wg2 = 0u; wg2 < 32u; wg2++) {
                    uint wf3 = sub_group_broadcast_first(wk1);
                    if (wf3 == wk1) {
                        if ((pa9[((~gid)) & 7u] & lid) >= as_uint(safe_smod(as_int(gid), as_int((uint)(v3 >> 0))))) v2 = sub_group_scan_inclusive_add(lid);
                        break;
                    }
                }
            }
        }
    } else {
        f8 = fclampi(f7);
        pa9[(as_uint(safe_sdiv(as_int(mul_hi(in[(0x80000000u) & 255u], pa9[(v0) & 7u])), as_int((lid % (v2 | 1u)))))) & 7u] = ((pa9[(rotate(lid, 16u)) & 7u] + (uint)(v4 >> 13)) % ((uint)((((7u) & 3u) == 0u)) | 1u));
    }
    v0 = ((lid + (lid & (uint)v1)) / (((255u - gid) ^ (gid ^ (uint)(int)f8)) | 1u));
    if (as_int(((gid & v0) ^ v0)) >= 31) {
        {
            uint lim5 = (((min(v0, in[(pa9[((uint)((as_int(255u) < -18))) & 7u]) & 255u]) + (uint)((v0 > lid)))) % 3u + 1u);
            for (uint i4 = 0u; i4 < lim5; i4++) {
                v5 = as_int(((((1219697457u < (uint)(v4 >> 13)) ? 16u : pa9[(((uint)(v3 >> 0) - i4)) & 7u]) - (as_uint(v5) + in[(((as_uint(v5) != 3467355298u) ? 783421585u : v0)) & 255u])) | (as_uint(v5) - rotate(16u, pa9[(((1u != as_uint(v5)) ? i4 : as_uint(v5))) & 7u]))));
            }
        }
        f8 = fclampi(sub_group_non_uniform_scan_exclusive_max((float)(as_int(2546602773u) % 4096)));
        if (as_int(sub_sat(3919745114u, v0)) >= -42) {
            uint h = 0u;
            h = hmix(h, (uint)v0);
            h = hmix(h, (uint)v1);
            h = hmix(h, (uint)v2);
            h = hmix(hmix(h, (uint)v3), (uint)(v3 >> 32));
            h = hmix(hmix(h, (uint)v4), (uint)(v4 >> 32));
            h = hmix(h, as_uint(v5));
            h = hmix(h, as_uint(f6));
            h = hmix(h, as_uint(f7));
            h = hmix(h, as_uint(f8));
            for (uint c = 0u; c < 8u; c++) h = hmix(h, pa9[c]);
            out[gid] = h;
            return;
        }
    } else {
    }
    uint h = 0u;
    h = hmix(h, (uint)v0);
    h = hmix(h, (uint)v1);
    h = hmix(h, (uint)v2);
    h = hmix(hmix(h, (uint)v3), (uint)(v3 >> 32));
    h = hmix(hmix(h, (uint)v4), (uint)(v4 >> 32));
    h = hmix(h, as_uint(v5));
    h = hmix(h, as_uint(f6));
    h = hmix(h, as_uint(f7));
    h = hmix(h, as_uint(f8));
    for (uint c = 0u; c < 8u; c++) h = hmix(h, pa9[c]);
    out[gid] = h;
}
