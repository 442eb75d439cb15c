// RUN: global=64 local=16 out:int[64]=zero cnt:int[64]=rand(0,12) w:int[64]=rand(-5,5)
// Nested loops whose trip counts come from the data (triangular and ragged nests).
kernel void nested_data_trip(global int *out, global const int *cnt, global const int *w)
{
    int gid = get_global_id(0);
    int n = cnt[gid];
    int acc = 0;
    for (int i = 0; i < n; i++) {
        int m = cnt[(gid + i) % 64];
        for (int j = i; j < m; j++)
            acc += w[(i * 7 + j) % 64];
        for (int k = 0; k < (i & 3); k++)
            acc -= k;
    }
    out[gid] = acc;
}
