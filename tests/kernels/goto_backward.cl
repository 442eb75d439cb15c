// RUN: global=64 local=16 out:int[64]=zero in:int[64]=rand(0,255)
// A retry loop written with a backward goto (a reducible loop without a loop statement).
kernel void goto_backward(global int *out, global const int *in)
{
    int gid = get_global_id(0);
    uint h = (uint)in[gid];
    int tries = 0;
retry:
    h = h * 1103515245u + 12345u;
    tries++;
    if ((h >> 16) % 5u != 0u && tries < 12)
        goto retry;
    out[gid] = tries * 65536 + (int)((h >> 16) & 0xffffu);
}
