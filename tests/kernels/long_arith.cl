// RUN: global=64 local=16 out:long[64]=zero uo:ulong[64]=zero a:long[64]=rand(-3000000000,3000000000) s:int=5
// 64-bit arithmetic: products beyond 32 bits, shifts, comparisons, division and unsigned wrap-around.
kernel void long_arith(global long *out, global ulong *uo, global const long *a, int s)
{
    int gid = get_global_id(0);
    long x = a[gid];
    long y = x * 1000003L + (long)gid;
    long z = (y >> s) - x * 8;
    if (z > 4000000000000L)
        z /= 17;
    else if (z < -4000000000000L)
        z = -(z % 1000000007L);
    out[gid] = z + (long)(int)x;
    ulong u = (ulong)x;
    uo[gid] = u * 0x9E3779B97F4A7C15UL + (u >> 29) + mul_hi(u, (ulong)y);
}
