// fuzz convergence-31042 (the generator's goto_loop): a loop written with goto that -O2 deletes, a sub-group
// operation on its way out; before goto loops had a range it met the lanes of every pass (ir, spirv, gen -O2
// agreed with each other, not with -O0); now refused at -O2
#pragma OPENCL FP_CONTRACT OFF
static inline int safe_sdiv(int a, int b) { return (b == 0 || (a == (-2147483647 - 1) && b == -1)) ? a : a / b; }
static inline int safe_smod(int a, int b) { return (b == 0 || (a == (-2147483647 - 1) && b == -1)) ? 0 : a % b; }
static inline float fclampi(float x) { return x > 65536.0f ? 65536.0f : (x < -65536.0f ? -65536.0f : x); }
static inline uint hmix(uint h, uint x) { return (h ^ x) * 16777619u + 2654435769u; }
__kernel void k(__global uint *out, __global const uint *in, __global uint *cnt, __global float *fapprox, uint n)
{
    const uint gid = get_global_id(0);
    const uint lid = get_local_id(0);
    int v0 = as_int(in[(gid + 75u) & 255u]);
    int v1 = as_int(in[(gid + 71u) & 255u]);
    uchar v2 = (uchar)in[(gid + 181u) & 255u];
    uchar v3 = (uchar)in[(gid + 161u) & 255u];
    uint v4 = gid;
    float f5 = (float)(as_int(in[(gid + 127u) & 255u]) % 4096);
    v4 += sub_group_clustered_reduce_xor(((as_uint(v0) - v4) * (gid ^ as_uint(v0))), 1u);
    {
        uint nj1 = 0u;
        uint nl1 = ((((0xffffffffu << (gid & 31u)) * (~as_uint(v1)))) % 4u + 1u);
        while (nj1 < nl1) {
            do {
                nj1++;
                out[gid] = sub_group_scan_inclusive_add(((16u | as_uint(v0)) - clz(616560978u)) + nj1 * 80u);
            } while ((lid & 1u) == 0u && nj1 < nl1);
            if ((lid & 1u) == 0u) break;
            out[gid] = sub_group_ballot((lid & 1u) == 0u || ((f5 > ((float)(as_int((uint)((lid >= (uint)v2))) % 4096) + f5)) && (((gid) & 3u) == 2u))).x + nj1;
        }
        v4 ^= out[gid];
    }
    f5 = fclampi(f5);
    if (as_int(((v4 + in[((in[(add_sat(16u, 4237948884u)) & 255u] << (0xfffffffeu & 31u))) & 255u]) ^ (as_uint(v0) * in[(as_uint(safe_sdiv(as_int(as_uint(v1)), as_int((uint)(int)f5)))) & 255u]))) < 38) {
        {
            uint yk1 = (gid) & 7u;
            uint ys1 = 0u, yj1 = 0u;
        yl1:
            if (yj1 == yk1) {
                v4 += sub_group_ballot_bit_count(sub_group_ballot((f5 <= ((float)(as_int(popcount(as_uint(v1))) % 4096) * 9.0f))));
                goto yo1;
            }
            yj1++;
            if (yj1 < 3u) goto yl1;
        yo1:
            v4 ^= ys1;
        }
        {
            uint lim2 = (((uint)v2) % 2u + 0u);
            for (uint i1 = 0u; i1 < lim2; i1++) {
                if (((popcount(0xfffffffeu)) & 1u) == 1u) {
                    if ((-(uint)v2) >= rotate((uint)v3, 974829684u)) {
                        v4 ^= sub_group_non_uniform_reduce_add((4029244425u << (in[(as_uint(as_int(v4) >> ((uint)v3 & 31u))) & 255u] & 31u)));
                    } else {
                        v2 = (uchar)((popcount((as_uint(v0) ^ (uint)v3)) + as_uint(v0)));
                    }
                    break;
                }
                if (n >= 418u) {
                    f5 = ((((((uint)(int)f5) & 3u) == 0u) && (as_uint(v0) <= i1)) ? -0.0f : 1.0f);
                    if (as_int(rotate(v4, 255u)) >= -21) {
                        v4 ^= sub_group_clustered_reduce_max((uint)v3, 4u);
                        break;
                    }
                }
                v2 = (uchar)(as_uint(as_int((uint)(((((uint)((f5 < -13.0f))) & 15u) == 3u))) >> ((clz(as_uint(v1)) - (v4 + in[(i1) & 255u])) & 31u)));
                v2 = (uchar)(0x7fffffffu);
            }
        }
        if ((((uint)v2 ^ 1447835690u) - as_uint(v0)) > ((v4 << ((uint)v3 & 31u)) ^ (((uint)v3 != 0u) ? (uint)(int)f5 : v4))) {
            v1 = as_int(((lid ^ in[(((as_int(4236421906u) > -36) ? lid : as_uint(v0))) & 255u]) / (hadd((as_uint(v1) * in[(((uint)v2 ^ (uint)v2)) & 255u]), (as_uint(v0) ^ (uint)v3)) | 1u)));
            v4 += (uint)sub_group_elect();
            f5 = fclampi(f5 * (0.0f * -8.0f));
            if (n >= 739u) {
                v4 = sub_group_non_uniform_reduce_add((in[((as_uint(v1) >> (as_uint(v0) & 31u))) & 255u] & lid));
                {
                    uint wk4 = ((lid + as_uint(safe_sdiv(as_int((uint)(int)f5), as_int(in[((0x80000000u | 0x80000000u)) & 255u]))))) & 7u;
                    for (uint wg5 = 0u; wg5 < 32u; wg5++) {
                        uint wf6 = sub_group_broadcast_first(wk4);
                        if (wf6 == wk4) {
                            if ((-0xffffffffu) < ((uint)v2 & gid)) v4 += sub_group_reduce_max(((31u | 0u) / ((3u | as_uint(v1)) | 1u)));
                            break;
                        }
                    }
                }
            }
        }
        {
            uint wk7 = (hadd(as_uint(safe_sdiv(as_int(in[((((uint)v3 < as_uint(v0)) ? 65535u : 720877756u)) & 255u]), as_int((uint)v2))), ((((gid) & 7u) == 0u) ? (uint)v2 : lid))) & 7u;
            for (uint wg8 = 0u; wg8 < 32u; wg8++) {
                uint wf9 = sub_group_broadcast_first(wk7);
                if (wf9 == wk7) {
                    if ((((((uint)(int)f5 > as_uint(v0)) ? as_uint(v1) : v4)) & 3u) == 3u) v4 = sub_group_reduce_max(clz(mul_hi(16u, (uint)v2)));
                    break;
                }
            }
        }
    } else {
        {
            uint yk2 = (gid) & 3u;
            uint ys2 = 0u, yj2 = 0u;
        yl2:
            if (yj2 == yk2) {
                v4 ^= sub_group_scan_inclusive_add(in[(((as_int(as_uint(v1)) <= 7) ? 0u : as_uint(v0))) & 255u]);
                goto yo2;
            }
            yj2++;
            if (yj2 < 6u) goto yl2;
        yo2:
            v4 ^= ys2;
        }
        v1 = as_int((uint)((((2933458789u >= 7u) && (as_int(0u) >= -34)) && ((lid % ((uint)v2 | 1u)) == clz(as_uint(v1))))));
    }
    uint h = 0u;
    h = hmix(h, as_uint(v0));
    h = hmix(h, as_uint(v1));
    h = hmix(h, (uint)v2);
    h = hmix(h, (uint)v3);
    h = hmix(h, (uint)v4);
    h = hmix(h, as_uint(f5));
    out[gid] = h;
}
