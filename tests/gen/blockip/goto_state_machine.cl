// Issue 20, item 1: a state machine of gotos, a cycle with two entries (even: and odd:, each going to
// the other or to itself until the step budget runs out). At -O2 the block that ends odd: branches
// back to two earlier blocks in layout order; blockIP skipped the lanes waiting at the second of them.
__kernel void goto_state_machine(__global const int *in, __global int *out)
{
    int gid = get_global_id(0);
    int x = in[gid];
    int y = 0;
    int steps = 0;
    if (x & 1) goto odd;
even:
    y += x;
    x = x / 2;
    if (++steps > 20) goto done;
    if (x & 1) goto odd;
    goto even;
odd:
    y -= x;
    x = 3 * x + 1;
    if (++steps > 20) goto done;
    if (x & 1) goto odd;
    goto even;
done:
    out[gid] = y + steps;
}
