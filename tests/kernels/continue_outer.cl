// RUN: global=64 local=16 out:int[64]=zero m:int[256]=rand(0,15)
// A goto from an inner loop to the end of the outer loop's body: a two-level continue.
kernel void continue_outer(global int *out, global const int *m)
{
    int gid = get_global_id(0);
    int acc = 0, skipped = 0;
    for (int i = 0; i < 8; i++) {
        int row = (gid + i * 9) % 32;
        for (int j = 0; j < 8; j++) {
            int v = m[row * 8 + j];
            if (v == 15) {
                skipped++;
                goto next_row;
            }
            if (v == 0)
                continue;
            acc += v * (j + 1);
        }
        acc -= 3;
next_row:
        ;
    }
    out[gid] = acc * 16 + skipped;
}
