// __local arrays of 8- and 16-bit elements (8/16-bit workgroup storage). Each work-group of 32 stages
// uchar and short data, then every work-item reads other work-items' elements:
//   rev[gid]  = bytes[31 - lid] ^ (uchar)lid                      (uchar, wraps)
//   mix[gid]  = (short)(halves[(lid + 5) % 32] * 3 - bytes[lid])  (short, wraps)
//   tot[g]    = sum of the group's halves, by a halving tree in a __local short array (fits in short)
kernel __attribute__((reqd_work_group_size(32, 1, 1)))
void narrow_local(global uchar *rev, global short *mix, global short *tot,
                  global const uchar *in8, global const short *in16)
{
    local uchar bytes[32];
    local short halves[32];
    local short tree[32];
    int lid = get_local_id(0), gid = get_global_id(0);
    bytes[lid] = in8[gid];
    halves[lid] = in16[gid];
    tree[lid] = in16[gid];
    barrier(CLK_LOCAL_MEM_FENCE);
    rev[gid] = bytes[31 - lid] ^ (uchar)lid;
    mix[gid] = (short)(halves[(lid + 5) % 32] * 3 - bytes[lid]);
    for (int s = 16; s > 0; s >>= 1) {
        if (lid < s)
            tree[lid] = (short)(tree[lid] + tree[lid + s]);
        barrier(CLK_LOCAL_MEM_FENCE);
    }
    if (lid == 0)
        tot[get_group_id(0)] = tree[0];
}
