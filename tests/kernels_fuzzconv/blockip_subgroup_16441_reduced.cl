__kernel void k(__global uint *out, __global const uint *in, __global uint *cnt, __global float *fapprox, uint n)
{
    const uint gid = get_global_id(0);
    const uint lid = get_local_id(0);
    uint a = in[gid & 255u], b = in[(gid + 64u) & 255u], c = in[(gid + 128u) & 255u];
    uint acc = 0u;
    uint fl2 = 0u;
    uint g1 = 0u;
    while (g1 < 3u) {
        g1++;
        for (uint i3 = 0u; i3 < 3u; i3++) {
            if (((c >> (i3 + g1)) & 3u) != 0u) {
                acc = acc * 31u + sub_group_non_uniform_reduce_or(1u << lid);
            } else {
                if (((b >> (i3 + 16u)) & 1u)) { fl2 = 2u; break; }
            }
        }
        if (fl2 == 2u) { fl2 = 0u; continue; }
    }
    out[gid] = acc;
}
