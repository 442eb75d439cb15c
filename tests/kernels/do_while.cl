// RUN: global=64 local=16 out:int[64]=zero steps:int[64]=zero in:int[64]=rand(1,1000)
// Bounded Collatz walk written as a do-while loop with a second exit.
kernel void do_while(global int *out, global int *steps, global const int *in)
{
    int gid = get_global_id(0);
    int x = in[gid];
    int n = 0;
    do {
        if (x & 1)
            x = 3 * x + 1;
        else
            x >>= 1;
        n++;
        if (x > 100000)
            break;
    } while (x != 1 && n < 200);
    out[gid] = x;
    steps[gid] = n;
}
