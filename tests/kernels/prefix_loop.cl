// RUN: global=64 local=16 out:int[64]=zero in:int[64]=rand(-20,30)
// A prefix sum over in[0..gid] that stops as soon as the running sum goes negative.
kernel void prefix_loop(global int *out, global const int *in)
{
    int gid = get_global_id(0);
    int s = 0;
    int i;
    for (i = 0; i <= gid; i++) {
        s += in[i];
        if (s < 0)
            break;
    }
    out[gid] = s * 100 + i;
}
