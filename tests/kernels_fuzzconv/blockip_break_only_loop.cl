// a loop left only by a break (clang -O0: its exit block reached from the break alone), then a sub-group
// reduction with every lane: blockIP ran it once per batch of lanes leaving before cf_regions kept loops together
__kernel void k(__global uint *out, __global const uint *in, __global uint *cnt, __global float *fapprox, uint n)
{
    const uint gid = get_global_id(0);
    uint i = 0u;
    for (;;) {
        if ((in[(gid + i) & 255u] & 3u) == 0u || i > 6u)
            break;
        i++;
    }
    out[gid] = sub_group_reduce_add(i) + i;
}
