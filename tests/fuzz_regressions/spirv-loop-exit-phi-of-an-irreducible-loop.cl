#pragma OPENCL FP_CONTRACT OFF
static inline int safe_sdiv(int a, int b) { return (b == 0 || (a == (-2147483647 - 1) && b == -1)) ? a : a / b; }
__kernel void k(__global uint *out, __global const uint *in, __global uint *cnt, __global float *fapprox, uint n)
{
    const uint gid = get_global_id(0);
    const uint lid = get_local_id(0);
    int v0 = as_int(in[(gid + 117u) & 255u]);
    uint v1 = (uint)in[(gid + 143u) & 255u];
    ushort v2 = (ushort)in[(gid + 187u) & 255u];
    uchar v3 = (uchar)in[(gid + 23u) & 255u];
    float f4 = (float)(as_int(in[(gid + 19u) & 255u]) % 4096);
    float f5 = (float)(as_int(in[(gid + 176u) & 255u]) % 4096);
    {
        uint g1 = 0u;
        do {
            g1++;
            v3 = (uchar)(add_sat(((3u | 2781388556u) ^ (uint)(((uint)(int)f5 <= v1))), ((as_uint(v0) ^ 3941553155u) << ((as_uint(v0) * 2100419025u) & 31u))));
            v1 -= as_uint(as_int((uint)v3) >> (in[(((uint)v2 ^ (uint)v3)) & 255u] & 31u));
            {
                {
                    uint st4 = 0u;
                    uint st4_lim = ((as_uint(safe_sdiv(as_int((-lid)), as_int(min(as_uint(v0), (uint)(int)f5))))) % 5u + 1u) + 2u;
                    if (n == 12345u) goto L3_1;
                L3_0:
                    {
                        v1 += lid;
                        if (((((uint)(int)f5 >= (uint)v2) ? v1 : (uint)(int)f4) == (uint)((f4 > (float)(as_int((uint)((as_int((uint)v3) > 43))) % 4096)))) && (lid > (in[(clz(0x2u)) & 255u] | lid))) {
                            if (as_uint(v0) < v1) {
                                if (f4 <= ((float)(as_int(as_uint(as_int(v1) >> ((uint)v2 & 31u))) % 4096) * 11.0f)) {
                                    out[gid] = 1u;
                                    return;
                                }
                                v3 = (uchar)(((clz(4092407791u) << ((1141094669u ^ (uint)v2) & 31u)) ^ (uint)((as_uint(v0) != as_uint(as_int(in[((as_uint(v0) * 188103050u)) & 255u]) >> ((uint)(int)f5 & 31u))))));
                            }
                        }
                    }
                    if (++st4 >= st4_lim) goto L3_end;
                                        goto L3_0;
                L3_1:
                    if (++st4 >= st4_lim) goto L3_end;
                    goto L3_0;
                L3_end: ;
                }
            }
        } while (g1 < 3u && (f4 <= -1.0f));
    }
    out[gid] = (uint)v3;
}
