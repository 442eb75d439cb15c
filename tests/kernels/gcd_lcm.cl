// RUN: global=64 local=16 out:int[64]=zero a:uint[64]=rand(1,100000) b:uint[64]=rand(1,100000)
// Euclid's algorithm (a loop bounded by the logarithm of its inputs) and a remainder-based lcm.
kernel void gcd_lcm(global int *out, global const uint *a, global const uint *b)
{
    int gid = get_global_id(0);
    uint x = a[gid], y = b[gid];
    int it = 0;
    while (y != 0u) {
        uint t = x % y;
        x = y;
        y = t;
        it++;
    }
    uint g = x;
    ulong l = (ulong)(a[gid] / g) * (ulong)b[gid];
    out[gid] = (int)(l % 1000003UL) + it * 10000000 + (int)(g % 100u);
}
