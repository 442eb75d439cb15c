__kernel void k(__global uint *out, __global const uint *in, __global uint *cnt, __global float *fapprox, uint n)
{
    const uint gid = get_global_id(0);
    uint v0 = in[gid & 255u];
    uint v1 = in[(gid + 7u) & 255u];
    uint cj1 = 0u;
    while (cj1 < 2u) {
        cj1++;
        if (((v0 >> cj1) & 3u) == 1u) {
            v1 += sub_group_reduce_add(1u);
            continue;
        }
        v1 += 100u * sub_group_reduce_add(1u);
    }
    out[gid] = v1;
}
