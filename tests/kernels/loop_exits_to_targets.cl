// RUN: global=64 local=16 out:int[64]=zero in:int[128]=rand(-40,40)
// One loop, three exits that land on three different tails (gotos), which then merge again.
kernel void loop_exits_to_targets(global int *out, global const int *in)
{
    int gid = get_global_id(0);
    int s = 0, i = 0;
    for (i = 0; i < 20; i++) {
        int v = in[(gid + 3 * i) % 128];
        if (v > 35)
            goto too_big;
        if (v < -35)
            goto too_small;
        s += v;
        if (s == 0 && i > 0)
            goto balanced;
    }
    s = s * 2;
    goto merge;
too_big:
    s += 1000;
    goto merge;
too_small:
    s -= 1000;
    if (i < 5)
        goto merge;
    s -= 10000;
    goto merge;
balanced:
    s = 7777;
merge:
    out[gid] = s * 100 + i;
}
