// red team 2026-11-27, as found (tests/test_scopes_at_O2.py checks it now): HELD (ok or refused): a while nested in a for (;;) with nothing before it: one header (the while's test), the while's back edge
// unconditional (its test stays in the header without rotation), so loop_separation does not split them
__kernel void k(__global uint *out, __global const uint *in, __global uint *cnt, __global float *fapprox, uint n)
{
    uint gid = get_global_id(0);
    uint lane = get_sub_group_local_id();
    uint j = 0u, w = 0u, m = (in[gid & 255u] & 3u) + 2u;
    for (;;) {
        while ((lane & 1u) == 0u && j < m) {
            w += sub_group_reduce_add(j + 1u);
            j++;
        }
        j++;
        if ((lane & 1u) == 0u || j >= m)
            break;
        w += 1000u * sub_group_reduce_add(1u);
    }
    out[gid] = w;
}
