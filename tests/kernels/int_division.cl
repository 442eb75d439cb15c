// RUN: global=64 local=16 out:int[64]=zero uo:uint[64]=zero a:int[64]=rand(-100000,100000) d:int[64]=rand(1,50)
// Signed and unsigned division and remainder by non-zero, data-dependent divisors.
kernel void int_division(global int *out, global uint *uo, global const int *a, global const int *d)
{
    int gid = get_global_id(0);
    int x = a[gid];
    int y = d[gid];
    int q = x / y;
    int r = x % y;
    int z = (gid & 1) ? -y : y;
    out[gid] = q * 100 + r + x / z + (x % 7) * 3 + x / -3;
    uint u = (uint)x;
    uo[gid] = u / (uint)y + u % 13u + (u >> 3) / 5u;
}
