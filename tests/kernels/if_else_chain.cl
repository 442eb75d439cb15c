// RUN: global=64 local=16 out:int[64]=zero in:int[64]=rand(-100,100) t:int=10
// Classify each value into a band with a long if / else-if chain; some bands mix in a neighbour.
kernel void if_else_chain(global int *out, global const int *in, int t)
{
    int gid = get_global_id(0);
    int x = in[gid];
    int r;
    if (x < -3 * t) {
        r = -3;
    } else if (x < -t) {
        r = -2 + (x & 1);
    } else if (x == 0) {
        r = 100;
    } else if (x < 0) {
        r = -1;
    } else if (x <= t) {
        if (gid > 0 && in[gid - 1] > x)
            r = 11;
        else
            r = 1;
    } else if (x < 3 * t) {
        r = 2;
    } else {
        r = 3 * (gid % 4);
    }
    out[gid] = r * 1000 + x;
}
