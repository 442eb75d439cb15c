// fuzz convergence-1049 (tokens IR) reduced by hand: blockIP ran the second waterfall once per batch of lanes leaving the first loop
__kernel void k(__global uint *out, __global const uint *in, __global uint *cnt, __global float *fapprox, uint n)
{
    const uint gid = get_global_id(0);
    uint v = in[gid & 255u];
    uint lim = in[(gid + 7u) & 255u] % 5u + 1u;
    for (uint i = 0u; i < lim; i++) {
        uint wk = (v + i) & 7u;
        for (uint wg = 0u; wg < 32u; wg++) {
            if (sub_group_broadcast_first(wk) == wk) {
                v += sub_group_scan_exclusive_add(1u);
                break;
            }
        }
    }
    uint wk = v & 7u;
    for (uint wg = 0u; wg < 32u; wg++) {
        if (sub_group_broadcast_first(wk) == wk) {
            v ^= sub_group_scan_inclusive_add(1u);
            break;
        }
    }
    out[gid] = v;
}
