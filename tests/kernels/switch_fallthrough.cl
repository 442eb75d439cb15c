// RUN: global=64 local=16 out:int[64]=zero in:int[64]=rand(-2,9)
// A switch with fall-through chains and the default label in the middle.
kernel void switch_fallthrough(global int *out, global const int *in)
{
    int gid = get_global_id(0);
    int x = in[gid];
    int r = 1;
    switch (x) {
    case 0:
        r += 10;
    case 1:
        r *= 3;
        break;
    case 2:
        r = 7;
    default:
        r += 100;
    case 5:
        r -= 4;
        break;
    case 6:
    case 7:
        r = x * x;
        break;
    case 8:
        r = -1;
    }
    out[gid] = r;
}
