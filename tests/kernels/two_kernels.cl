// RUN: kernel=scale global=32 local=8 out:int[32]=zero in:int[32]=rand(-100,100) f:int=3
// RUN: kernel=clip global=32 local=16 out:int[32]=zero in:int[32]=rand(-100,100) lo:int=-20 hi:int=40
// Two kernels in one file sharing a helper function.
static int bend(int x, int k)
{
    if (x < 0)
        return x * k;
    for (int i = 0; i < k; i++) {
        if (x > 90)
            return x;
        x += i;
    }
    return x;
}

kernel void scale(global int *out, global const int *in, int f)
{
    int gid = get_global_id(0);
    out[gid] = bend(in[gid], f);
}

kernel void clip(global int *out, global const int *in, int lo, int hi)
{
    int gid = get_global_id(0);
    int x = in[gid];
    if (x < lo)
        x = lo - bend(lo - x, 2);
    else if (x > hi)
        x = hi;
    out[gid] = x;
}
