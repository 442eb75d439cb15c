// Float data with exact results: small integers stored as floats, so every partial sum is an integer
// below 2^24 and the order of additions does not matter. Per work-group of L = get_local_size(0) (at
// most 64, a power of two): sums[g] = sum of the group's in[], and scaled[gid] = in[gid] * 2 +
// (the group's maximum), the maximum found by a second tree in __local memory.
kernel void float_reduce(global float *sums, global float *scaled, global const float *in)
{
    local float acc[64];
    local float big[64];
    int lid = get_local_id(0), gid = get_global_id(0);
    float x = in[gid];
    acc[lid] = x;
    big[lid] = x;
    barrier(CLK_LOCAL_MEM_FENCE);
    for (int s = get_local_size(0) / 2; s > 0; s /= 2) {
        if (lid < s) {
            acc[lid] = acc[lid] + acc[lid + s];
            big[lid] = fmax(big[lid], big[lid + s]);
        }
        barrier(CLK_LOCAL_MEM_FENCE);
    }
    if (lid == 0)
        sums[get_group_id(0)] = acc[0];
    scaled[gid] = x * 2.0f + big[0];
}
