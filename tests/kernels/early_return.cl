// RUN: global=64 local=8 out:int[64]=-7 in:int[64]=rand(-20,20) n:int=48
// Several early returns, one of them leaving the output untouched.
kernel void early_return(global int *out, global const int *in, int n)
{
    int gid = get_global_id(0);
    if (gid >= n)
        return;
    int x = in[gid];
    if (x == 0) {
        out[gid] = 0;
        return;
    }
    int acc = x;
    for (int i = 0; i < 8; i++) {
        acc = acc * 2 - i;
        if (acc > 200) {
            out[gid] = 200 + i;
            return;
        }
        if (acc < -200)
            return;
    }
    out[gid] = acc;
}
