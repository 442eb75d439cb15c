// RUN: global=32 local=8 out:int[32]=zero grid:int[256]=rand(0,40) limit:int=35
// Leave two nested loops at once through a flag the outer loop tests.
kernel void nested_break_flag(global int *out, global const int *grid, int limit)
{
    int gid = get_global_id(0);
    int found = 0;
    int fi = -1, fj = -1;
    int sum = 0;
    for (int i = 0; i < 8 && !found; i++) {
        for (int j = 0; j < 8; j++) {
            int v = grid[(gid + i * 8 + j) % 256];
            sum += v;
            if (v > limit) {
                found = 1;
                fi = i;
                fj = j;
                break;
            }
        }
    }
    out[gid] = found ? (fi * 8 + fj) * 10000 + sum : -sum;
}
