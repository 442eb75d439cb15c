// RUN: global=32 local=8 out:int[32]=zero d:int[64]=rand(0,5)
// Four nested loops with data-dependent trip counts and breaks at three different levels.
kernel void deep_nest(global int *out, global const int *d)
{
    int gid = get_global_id(0);
    int acc = 0;
    for (int a = 0; a < d[gid]; a++) {
        for (int b = 0; b < d[(gid + a) % 64]; b++) {
            if (acc > 400)
                break;
            for (int c = 0; c <= b; c++) {
                for (int e = 0; e < d[(gid + c + 7) % 64]; e++) {
                    acc += a + b * c - e;
                    if (((acc + e) & 15) == 3)
                        break;
                }
                if (acc < -50)
                    break;
            }
        }
        if ((acc & 7) == 5)
            break;
    }
    out[gid] = acc;
}
