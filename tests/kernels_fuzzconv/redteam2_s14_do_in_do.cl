// red team 2026-11-27, as found (tests/test_scopes_at_O2.py checks it now): HELD (ok or refused): do/while nested in a do/while (the outer has no header test: merged without rotation)
__kernel void k(__global uint *out, __global const uint *in, __global uint *cnt, __global float *fapprox, uint n)
{
    uint gid = get_global_id(0);
    uint lane = get_sub_group_local_id();
    uint j = 0u, w = 0u, m = (in[gid & 255u] & 3u) + 2u;
    do {
        do {
            w += sub_group_reduce_add(j + 1u);
            j++;
        } while ((lane & 1u) == 0u && j < m);
    } while (j < m);
    out[gid] = w;
}
