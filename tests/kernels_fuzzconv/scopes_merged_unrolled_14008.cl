#pragma OPENCL FP_CONTRACT OFF
static inline int safe_sdiv(int a, int b) { return (b == 0 || (a == (-2147483647 - 1) && b == -1)) ? a : a / b; }
static inline int safe_smod(int a, int b) { return (b == 0 || (a == (-2147483647 - 1) && b == -1)) ? 0 : a % b; }
static inline float fclampi(float x) { return x > 65536.0f ? 65536.0f : (x < -65536.0f ? -65536.0f : x); }
static inline uint hmix(uint h, uint x) { return (h ^ x) * 16777619u + 2654435769u; }
__kernel void k(__global uint *out, __global const uint *in, __global uint *cnt, __global float *fapprox, uint n)
{
    const uint gid = get_global_id(0);
    const uint lid = get_local_id(0);
    uint v0 = (uint)in[(gid + 99u) & 255u];
    ushort v1 = (ushort)in[(gid + 145u) & 255u];
    ushort v2 = (ushort)in[(gid + 240u) & 255u];
    ulong v3 = ((ulong)in[(gid + 101u) & 255u] << 32) | in[(gid * 3u + 101u) & 255u];
    int v4 = as_int(in[(gid + 43u) & 255u]);
    float f5 = (float)(as_int(in[(gid + 212u) & 255u]) % 4096);
    v0 ^= (uint)sub_group_scan_exclusive_add(((abs_diff(3408088920u, 4240522594u) & popcount((uint)(int)f5))));
    v0 ^= get_sub_group_size();
    v0 = (uint)v1;
    f5 = fclampi(sub_group_non_uniform_reduce_min((float)(as_int(clz((uint)(int)f5)) % 4096)));
    {
        uint nj1 = 0u;
        uint nl1 = 4u;
        while (nj1 < nl1) {
            do {
                nj1++;
                out[gid] = sub_group_scan_inclusive_add(nj1 + nj1 * 57u);
            } while ((lid % 3u) != 1u && nj1 < nl1);
            if ((lid % 3u) != 1u) break;
            out[gid] = sub_group_ballot((lid % 3u) != 1u || (!(((v0) & 1u) == 1u))).x + nj1;
        }
        v0 ^= out[gid];
    }
    v0 *= rotate(in[((lid >> (2883089533u & 31u))) & 255u], ((lid >= v0) ? (uint)(int)f5 : (uint)(v3 >> 32)));
    if (as_int((((uint)v2 << (lid & 31u)) << (0xffffffffu & 31u))) > 41) {
        v2 = (ushort)(popcount(((in[(as_uint(as_int(2728438473u) >> (0x2u & 31u))) & 255u] + 255u) & (lid * 7u))));
    } else {
        v4 = as_int(add_sat((-((uint)(v3 >> 32) + 4023000101u)), (mul_hi(lid, lid) * (0xffffffffu << (v0 & 31u)))));
    }
    uint4 sgb1 = sub_group_ballot((f5 > (f5 - f5)));
    v0 ^= sgb1.x + sub_group_ballot_find_lsb(sub_group_ballot(1)) * 7u;
    {
        uint g1 = 0u;
        for (;;) {
            if (!(g1 < 1u && (as_int((255u % ((uint)v2 | 1u))) < 1))) break; g1++;
            v3 = (v3 * (ulong)((0x2u >> (v0 & 31u)) | 1u)) + (((ulong)((uint)v2 * lid)) << 7);
        }
    }
    v3 = (v3 * (ulong)((~v0) | 1u)) + (((ulong)(uint)((as_int((uint)((((gid) & 7u) == 2u))) > 19))) << 7);
    v0 += (uint)sub_group_reduce_add((((uint)v2 / ((lid - gid) | 1u))));
    v3 = (v3 * (ulong)(popcount((uint)v1) | 1u)) + (((ulong)(((as_uint(v4) | (uint)v1) << (((uint)v2 + 1124016108u) & 31u)) & ((v0 & v0) + abs_diff((uint)v1, gid)))) << 0);
    v1 = (ushort)(as_uint(as_int((((((uint)(((((uint)(v3 >> 32)) & 7u) == 3u))) & 15u) == 3u) ? 0x2u : add_sat(as_uint(v4), (uint)v2))) >> (as_uint(v4) & 31u)));
    v4 = as_int(min((uint)(v3 >> 13), ((uint)v1 % ((v0 << (lid & 31u)) | 1u))));
    v0 ^= sub_group_shuffle_xor(as_uint(as_int((uint)(v3 >> 13)) >> ((((uint)v1 != 0u) ? 0x80000000u : (uint)v2) & 31u)), 4u);
    if (((max(((uint)(int)f5 - (uint)v2), in[((lid ^ 2388415994u)) & 255u])) & 7u) == 2u) {
        {
            uint wk3 = ((221850480u - min(lid, 16u))) & 7u;
            for (uint wg4 = 0u; wg4 < 32u; wg4++) {
                uint wf5 = sub_group_broadcast_first(wk3);
                if (wf5 == wk3) {
                    v0 ^= sub_group_scan_exclusive_min(min((1698684826u / (gid | 1u)), hadd((uint)(v3 >> 0), gid)));
                    break;
                }
            }
        }
    }
    v3 = (v3 * (ulong)((uint)((((0xffffffffu) & 15u) == 2u)) | 1u)) + (((ulong)((((uint)v1 + (uint)(int)f5) & ((uint)(int)f5 | 0xfffffffeu)) >> (((f5 <= 0.0f) ? (uint)v1 : max((uint)v2, (uint)v2)) & 31u))) << 0);
    uint h = 0u;
    h = hmix(h, (uint)v0);
    h = hmix(h, (uint)v1);
    h = hmix(h, (uint)v2);
    h = hmix(hmix(h, (uint)v3), (uint)(v3 >> 32));
    h = hmix(h, as_uint(v4));
    h = hmix(h, as_uint(f5));
    out[gid] = h;
}
