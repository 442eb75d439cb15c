// RUN: global=64 local=16 out:int[64]=-1 a:int[256]=rand(-50,50) t:int=120
// A return from the innermost of three loops, plus a guarded store after the nest.
kernel void return_in_nest(global int *out, global const int *a, int t)
{
    int gid = get_global_id(0);
    int s = 0;
    for (int i = 0; i < 3; i++) {
        for (int j = 0; j <= i; j++) {
            int k = 0;
            do {
                s += a[(gid * 3 + i * 5 + j * 2 + k) % 256];
                if (s > t) {
                    out[gid] = i * 100 + j * 10 + k;
                    return;
                }
                k++;
            } while (k < 3 && s > -t);
        }
    }
    if (s < 0)
        out[gid] = s;
}
