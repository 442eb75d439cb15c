// RUN: global=256 local=64 sums:int[4]=zero in:int[256]=rand(-1000,1000)
// A work-group sum in two sub-group steps, as Beignet's sub-group tests write one: each sub-group adds its
// lanes with sub_group_reduce_add, its first lane leaves the partial sum in __local memory, and after the
// barrier the first sub-group adds the partial sums. Right for any sub-group size S with local/S <= S.
kernel void reduce(global int *sums, global const int *in)
{
    local int partial[64];
    int x = in[get_global_id(0)];
    int mine = sub_group_reduce_add(x);
    if (get_sub_group_local_id() == 0)
        partial[get_sub_group_id()] = mine;
    barrier(CLK_LOCAL_MEM_FENCE);
    if (get_sub_group_id() == 0) {
        uint lane = get_sub_group_local_id();
        int p = lane < get_num_sub_groups() ? partial[lane] : 0;
        int total = sub_group_reduce_add(p);
        if (lane == 0)
            sums[get_group_id(0)] = total;
    }
}
