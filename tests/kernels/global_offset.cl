// RUN: global=32 local=8 offset=16 out:int[48]=-1 in:int[48]=iota
// A launch with a global offset: ids start at 16, and the offset itself is observable.
kernel void global_offset(global int *out, global const int *in)
{
    size_t gid = get_global_id(0);
    size_t off = get_global_offset(0);
    int r = in[gid] * 3;
    if (gid - off < 8)
        r += (int)off;
    else if (get_group_id(0) == 2)
        r = -r;
    out[gid] = r + (int)get_local_id(0) * 1000;
}
