// RUN: global=64 local=16 out:int[64]=zero in:int[64]=rand(0,1000) lim:int=20
// A while loop whose condition combines several tests, with updates in both branches of the body.
kernel void while_complex(global int *out, global const int *in, int lim)
{
    int gid = get_global_id(0);
    int x = in[gid];
    int y = gid;
    int i = 0;
    while ((x > 10 || y < 30) && i < lim && !(x == y)) {
        if (x > y)
            x -= y + 1;
        else
            y += (x & 7) + 1;
        i++;
    }
    out[gid] = x * 10000 + y * 100 + i;
}
