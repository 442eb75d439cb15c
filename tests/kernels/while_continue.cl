// RUN: global=64 local=16 out:int[64]=zero in:int[64]=rand(0,500)
// A while loop with continue statements in three places: three back edges straight into the header.
kernel void while_continue(global int *out, global const int *in)
{
    int gid = get_global_id(0);
    int x = in[gid];
    int n = 0, odd = 0, big = 0;
    while (n < 40 && x > 0) {
        n++;
        if (x % 3 == 0) {
            x /= 3;
            continue;
        }
        if (x & 1) {
            odd++;
            x -= 1;
            continue;
        }
        if (x > 100) {
            big++;
            x -= 50;
            continue;
        }
        x /= 2;
    }
    out[gid] = x + n * 1000 + odd * 100000 + big * 10000000;
}
