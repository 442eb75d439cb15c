// RUN: global=32 local=8 out:int[32]=zero in:int[32]=rand(-2,9)
// A switch with fall-through between cases and the default in the middle.
kernel void switch_fallthrough(global int *out, global const int *in)
{
    int id = get_global_id(0);
    int v = in[id], r = 1;
    switch (v) {
    case 0: r += 10;            // falls through
    case 1: r *= 3; break;
    default: r = -v;            // falls through
    case 5: r += 100;
    case 6: r ^= 0x55; break;
    case 8: return;
    }
    out[id] = r;
}
