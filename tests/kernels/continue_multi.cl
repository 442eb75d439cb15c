// RUN: global=64 local=16 out:int[64]=zero in:int[128]=rand(-30,30)
// A loop with continue in several places: several back edges into one header.
kernel void continue_multi(global int *out, global const int *in)
{
    int gid = get_global_id(0);
    int acc = 0;
    for (int i = 0; i < 24; i++) {
        int v = in[(gid + i) % 128];
        if (v < -20)
            continue;
        acc += 1;
        if ((v & 3) == 0) {
            acc += v;
            continue;
        }
        if (v > 20) {
            acc -= 2;
            continue;
        }
        acc ^= v;
    }
    out[gid] = acc;
}
