// RUN: global=64 local=16 out:int[64]=zero in:int[64]=rand(-100,100)
// __local staging with barriers where every work-item reads back only its own slots.
kernel void local_mem(global int *out, global const int *in)
{
    local int tile[16];
    local int extra[32];
    int lid = get_local_id(0);
    int x = in[get_global_id(0)];
    tile[lid] = x * 2;
    extra[2 * lid] = x + get_group_id(0);
    extra[2 * lid + 1] = lid;
    barrier(CLK_LOCAL_MEM_FENCE);
    int r = 0;
    for (int i = 0; i < 4; i++) {
        tile[lid] += extra[2 * lid + (i & 1)];
        barrier(CLK_LOCAL_MEM_FENCE);
        r += tile[lid] & 0xff;
    }
    out[get_global_id(0)] = r + get_local_size(0) * get_num_groups(0);
}
