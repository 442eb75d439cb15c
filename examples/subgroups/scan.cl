// RUN: global=128 local=32 out:int[128]=zero in:int[128]=rand(-1000,1000)
// A work-group inclusive prefix sum from sub-group scans (the shape of Beignet's scan tests): every
// sub-group scans its lanes with sub_group_scan_inclusive_add, its last lane publishes the sub-group's
// total, the first sub-group turns the totals into offsets with sub_group_scan_exclusive_add, and every
// lane adds its sub-group's offset. Right for any sub-group size S with local/S <= S.
kernel void scan(global int *out, global const int *in)
{
    local int totals[32];
    uint lane = get_sub_group_local_id();
    uint sg = get_sub_group_id();
    int x = in[get_global_id(0)];
    int running = sub_group_scan_inclusive_add(x);
    if (lane == get_sub_group_size() - 1)
        totals[sg] = running;
    barrier(CLK_LOCAL_MEM_FENCE);
    if (sg == 0) {
        int t = lane < get_num_sub_groups() ? totals[lane] : 0;
        int before = sub_group_scan_exclusive_add(t);
        if (lane < get_num_sub_groups())
            totals[lane] = before;
    }
    barrier(CLK_LOCAL_MEM_FENCE);
    out[get_global_id(0)] = running + totals[sg];
}
