// red team 2026-11-27, as found (tests/test_scopes_at_O2.py checks it now): HELD (ok or refused): s08 with the once-run do/while written as a goto loop: its span (a loop statement for loop_separation)
// holds the switch's branch back to the while's header, so the while is split
__kernel void k(__global uint *out, __global const uint *in, __global uint *cnt, __global float *fapprox, uint n)
{
    uint gid = get_global_id(0);
    uint v = in[gid & 255u];
    uint cj = 0u, w = 0u, cl = (v & 3u) + 2u;
    while (cj < cl) {
        cj++;
        uint k = 0u;
    again:
        k++;
        switch ((v >> cj) & 3u) {
        case 3u:
            goto next;
        }
        w += sub_group_reduce_add(cj * 16u + 1u);
        if (k < 1u)
            goto again;
        w += 3u;
    next:;
    }
    out[gid] = w;
}
