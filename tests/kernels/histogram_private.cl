// RUN: global=64 local=16 out:int[64]=zero in:int[1024]=rand(0,255)
// A private histogram filled through dynamic indices, then scanned for its fullest bin.
kernel void histogram_private(global int *out, global const int *in)
{
    int gid = get_global_id(0);
    int h[16];
    for (int i = 0; i < 16; i++)
        h[i] = 0;
    for (int i = 0; i < 16; i++)
        h[in[gid * 16 + i] >> 4]++;
    int best = 0;
    for (int i = 1; i < 16; i++)
        if (h[i] > h[best])
            best = i;
    out[gid] = best * 100 + h[best];
}
