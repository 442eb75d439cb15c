// fuzz convergence-104 (reduced by hand): the reduction into f4 is written after both loops, in the
// switch case's if; at -O0 -g the scopes rule gives it the waterfall loop's token (README Reconvergence)
// and the convergence pass refuses it; the answer is the count of lanes in that if (cfg and -O2 give it).
__kernel void k(__global uint *out, __global const uint *in)
{
    const uint gid = get_global_id(0);
    uint v3 = in[gid];
    uint f4 = 0u;
    uint f5 = in[gid + 16u];
    switch (v3 & 1u) {
    case 0u: {
    if (in[gid + 32u] < 8u) {
        {
            uint g1 = 0u;
            do {
                g1++;
                if (in[gid + 48u] > 3u) {
                    f5 = sub_group_non_uniform_scan_inclusive_add(f5);
                    break;
                }
            } while (g1 < 5u && f5 < 100u);
        }
        {
            uint wk3 = v3 & 7u;
            for (uint wg4 = 0u; wg4 < 32u; wg4++) {
                uint wf5 = sub_group_broadcast_first(wk3);
                if (wf5 == wk3) {
                    v3 ^= sub_group_scan_exclusive_min(gid);
                    break;
                }
            }
        }
        f4 = sub_group_non_uniform_reduce_add(1u);
    }
    }
    break;
    case 1u: {
    }
    break;
    }
    out[gid] = f4;
}
