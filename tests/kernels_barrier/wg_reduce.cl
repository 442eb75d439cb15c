// Work-group sum reduction: a halving tree in a __local array, one barrier per step (in the loop).
// sums[g] = sum of in[g*L .. g*L+L-1], L = get_local_size(0) (at most 64, a power of two).
kernel void wg_reduce(global int *sums, global const int *in)
{
    local int scratch[64];
    int lid = get_local_id(0);
    scratch[lid] = in[get_global_id(0)];
    barrier(CLK_LOCAL_MEM_FENCE);
    for (int s = get_local_size(0) / 2; s > 0; s >>= 1) {
        if (lid < s)
            scratch[lid] += scratch[lid + s];
        barrier(CLK_LOCAL_MEM_FENCE);
    }
    if (lid == 0)
        sums[get_group_id(0)] = scratch[0];
}
