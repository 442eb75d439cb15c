// 1-D three-point stencil out[i] = in[i-1] + 2 * in[i] + in[i+1] (zero outside), each work-group
// staging its items plus a one-element halo on each side in a host-sized __local buffer.
kernel void stencil(global float *out, global const float *in, int n, local float *tile)
{
    int gid = get_global_id(0), lid = get_local_id(0), size = get_local_size(0);
    tile[lid + 1] = in[gid];
    if (lid == 0)
        tile[0] = gid > 0 ? in[gid - 1] : 0.0f;
    if (lid == size - 1)
        tile[size + 1] = gid + 1 < n ? in[gid + 1] : 0.0f;
    barrier(CLK_LOCAL_MEM_FENCE);
    out[gid] = tile[lid] + 2.0f * tile[lid + 1] + tile[lid + 2];
}
