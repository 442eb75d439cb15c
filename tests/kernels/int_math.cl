// RUN: global=64 local=16 out:int[64]=zero uo:uint[64]=zero a:int[64]=rand(-100000,100000) b:int[64]=rand(-100000,100000)
// Integer builtins: min max abs clamp abs_diff add_sat hadd rotate popcount clz mad24 mul_hi.
kernel void int_math(global int *out, global uint *uo, global const int *a, global const int *b)
{
    int gid = get_global_id(0);
    int x = a[gid], y = b[gid];
    int r = min(x, y) / 16 + max(x, y) / 32 + clamp(x, -500, 500);
    r += (int)abs(x) % 1000 + (int)(abs_diff(x, y) % 977u);
    r += add_sat(x, 2147400000) / 65536 + hadd(x, y) % 100;
    r += mad24(x % 1000, y % 1000, 7) % 10000 + mul_hi(x, y);
    out[gid] = r;
    uint u = (uint)x;
    uo[gid] = rotate(u, (uint)(gid % 32)) ^ (popcount(u) << 8) ^ (clz(u) << 16);
}
