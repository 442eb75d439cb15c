// fuzz convergence-29708 at -O2 -g: a `switch` whose one case is `continue`, in a `while` holding a sub-group
// scan; SimplifyCFG made the switch a conditional branch back to the loop's shared latch, and loop_separation
// split the loop as if it were a nested do/while: lanes that continued ran the next pass's scan without the others
#pragma OPENCL FP_CONTRACT OFF
static inline int safe_sdiv(int a, int b) { return (b == 0 || (a == (-2147483647 - 1) && b == -1)) ? a : a / b; }
static inline int safe_smod(int a, int b) { return (b == 0 || (a == (-2147483647 - 1) && b == -1)) ? 0 : a % b; }
static inline float fclampi(float x) { return x > 65536.0f ? 65536.0f : (x < -65536.0f ? -65536.0f : x); }
static inline uint hmix(uint h, uint x) { return (h ^ x) * 16777619u + 2654435769u; }
__kernel void k(__global uint *out, __global const uint *in, __global uint *cnt, __global float *fapprox, uint n)
{
    const uint gid = get_global_id(0);
    const uint lid = get_local_id(0);
    ushort v0 = (ushort)in[(gid + 58u) & 255u];
    ulong v1 = ((ulong)in[(gid + 23u) & 255u] << 32) | in[(gid * 3u + 23u) & 255u];
    uint v2 = (uint)in[(gid + 89u) & 255u];
    ulong v3 = ((ulong)in[(gid + 21u) & 255u] << 32) | in[(gid * 3u + 21u) & 255u];
    float f4 = (float)(as_int(in[(gid + 184u) & 255u]) % 4096);
    float f5 = (float)(as_int(in[(gid + 185u) & 255u]) % 4096);
    float f6 = (float)(as_int(in[(gid + 180u) & 255u]) % 4096);
    v2 += sub_group_shuffle(v2, sub_group_ballot_find_lsb(sub_group_ballot(1)));
    uint4 sgb1 = sub_group_ballot((as_int(((as_int((uint)(v1 >> 13)) >= 44) ? in[(add_sat((uint)(v1 >> 13), v2)) & 255u] : (uint)(int)f6)) > -16));
    v2 ^= (uint)sub_group_inverse_ballot(sgb1) + sub_group_ballot_find_lsb(sub_group_ballot(1)) * 7u;
    {
        uint g1 = 0u;
        do {
            g1++;
            v2 ^= as_uint(sub_group_non_uniform_scan_inclusive_min(as_int((((uint)(int)f5 << (3564052916u & 31u)) >> (((uint)(v3 >> 32) | (uint)v0) & 31u)))));
            v3 = (v3 * (ulong)((uint)(((uint)v0 <= (uint)(int)f5)) | 1u)) + (((ulong)(add_sat(hadd(3282438828u, (uint)v0), ((uint)(v1 >> 13) | (uint)(v3 >> 0))) / (((uint)(int)f6 << (7u & 31u)) | 1u))) << 0);
            {
                uint wk3 = (abs_diff((65535u / (v2 | 1u)), (3u + v2))) & 7u;
                for (uint wg4 = 0u; wg4 < 32u; wg4++) {
                    uint wf5 = sub_group_broadcast_first(wk3);
                    if (wf5 == wk3) {
                        v2 += sub_group_scan_exclusive_min(((uint)(((((uint)(v3 >> 0)) & 7u) == 0u)) << ((~(uint)(int)f4) & 31u)));
                        break;
                    }
                }
            }
            uint4 sgb2 = sub_group_ballot((max((uint)(v1 >> 13), lid) < (~(uint)v0)));
            v2 ^= sgb2.x + sub_group_ballot_find_lsb(sub_group_ballot(1)) * 7u;
            v2 = (as_uint(safe_sdiv(as_int((uint)(((uint)(v3 >> 32) <= v2))), as_int(popcount(gid)))) % ((uint)v0 | 1u));
        } while (g1 < 5u && (!(gid != 0u)));
    }
    if ((as_int((255u | 0x80000000u)) > -47) || ((v2 -= 996425052u) & 3u)) {
        v3 = (v3 * (ulong)((7u ^ v2) | 1u)) + (((ulong)rotate(((uint)((as_int((uint)(int)f4) >= -9)) >> (lid & 31u)), (lid ^ ((uint)(v1 >> 13) | gid)))) << 32);
    } else {
        v0 = (ushort)((popcount(((uint)(int)f6 >> ((uint)(int)f5 & 31u))) * (uint)(((uint)(((uint)(int)f4 <= lid)) == (uint)(v3 >> 0)))));
    }
    sub_group_barrier(CLK_LOCAL_MEM_FENCE);
    v2 = sub_group_shuffle(((uint)((((v2) & 3u) == 3u)) - (((uint)(int)f5 > 3u) ? 3697653573u : v2)), get_sub_group_local_id() ^ 1u);
    v1 = (v1 * (ulong)(((uint)(v1 >> 0) - v2) | 1u)) + (((ulong)as_uint(as_int((~clz(31u))) >> (clz(7u) & 31u))) << 7);
    v2 = max(popcount((uint)((4179511808u != 0u))), rotate(v2, (gid ^ (uint)(v3 >> 32))));
    if ((((uint)(int)f5 * 0x7fffffffu) != popcount((uint)(v1 >> 13))) || ((v2 ^= 65535u) & 1u)) {
        {
            uint cj1 = 0u;
            uint cl1 = ((hadd(((uint)v0 - 2656867030u), ((uint)(int)f5 + 3u))) % 5u + 1u);
            while (cj1 < cl1) {
                cj1++;
                v2 = (uint)sub_group_non_uniform_scan_exclusive_xor((ulong)(as_uint(as_int(cj1) >> (abs_diff(472671255u, (uint)(v3 >> 13)) & 31u))));
                switch (((2495376485u ^ cj1) + v2) & 3u) {
                case 3u:
                    v0 = (ushort)(1u);
                    continue;
                default:
                    break;
                }
                v2 += (uint)sub_group_non_uniform_reduce_min((((((as_uint(safe_sdiv(as_int(in[((uint)((as_int(0xffffffffu) >= 16))) & 255u]), as_int(in[(hadd(cj1, (uint)v0)) & 255u])))) & 7u) == 0u) ? cj1 : ((uint)(v1 >> 0) >> (v2 & 31u)))));
                v2 = (uint)sub_group_non_uniform_scan_exclusive_or((ulong)((uint)(v1 >> 32)));
            }
        }
        v1 = (v1 * (ulong)((7u - (uint)v0) | 1u)) + (((ulong)(((~(uint)(int)f4) - add_sat((uint)(v1 >> 13), lid)) >> ((uint)(((uint)(v1 >> 0) <= ((uint)v0 * 16u))) & 31u))) << 7);
    }
    v2 = (uint)sub_group_non_uniform_reduce_min((ulong)(((-(uint)(v1 >> 0)) ^ (uint)(((((uint)(v1 >> 13)) & 1u) == 0u)))));
    {
        uint xk1 = (v2) & 3u;
        uint xs1 = 0u;
        for (uint xj1 = 0u; xj1 < 4u; xj1++) {
            if (xk1 == 1u) {
                v2 += sub_group_non_uniform_reduce_add(sub_sat((uint)(v3 >> 0), v2));
                break;
            }
            xs1 += xj1 * 9u + 1u;
        }
        v2 ^= xs1;
    }
    f5 = fclampi((((float)(as_int(clz(lid)) % 4096) * f5) + f4));
    v1 = (v1 * (ulong)((v2 << ((uint)(v1 >> 0) & 31u)) | 1u)) + (((ulong)((uint)(v1 >> 13) << ((~(0xffffffffu + 1088053102u)) & 31u))) << 32);
    f4 = ((as_int(((lid < gid) ? (uint)(v3 >> 32) : 7u)) > 46) ? 1.0f : -0.0f);
    {
        uint g6 = 0u;
        do {
            g6++;
            v2 += (uint)sub_group_non_uniform_reduce_min((lid));
            if (f6 <= f4) {
                if (as_int((0x2u - lid)) <= 46) continue;
                v0 = (ushort)(((mul_hi(lid, 1231664653u) ^ 65535u) - (as_uint(safe_sdiv(as_int(in[((v2 >> ((uint)(v1 >> 32) & 31u))) & 255u]), as_int(0xfffffffeu))) + (uint)v0)));
            }
        } while (g6 < 4u && (f6 <= ((float)(as_int(((uint)(v3 >> 13) - (uint)(v1 >> 13))) % 4096) - f5)));
    }
    uint h = 0u;
    h = hmix(h, (uint)v0);
    h = hmix(hmix(h, (uint)v1), (uint)(v1 >> 32));
    h = hmix(h, (uint)v2);
    h = hmix(hmix(h, (uint)v3), (uint)(v3 >> 32));
    h = hmix(h, as_uint(f4));
    h = hmix(h, as_uint(f5));
    h = hmix(h, as_uint(f6));
    out[gid] = h;
}
