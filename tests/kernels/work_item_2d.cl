// RUN: global=8,6 local=4,2 out:int[48]=zero ids:int[240]=zero
// A 2-D NDRange: every work-item function, linearised into two outputs.
kernel void work_item_2d(global int *out, global int *ids)
{
    int gx = get_global_id(0), gy = get_global_id(1);
    int w = get_global_size(0);
    int lin = gy * w + gx;
    int v = get_local_id(0) + 10 * get_local_id(1) + 100 * get_group_id(0) + 1000 * get_group_id(1);
    if (get_local_id(1) == 1 && get_local_id(0) > 1)
        v = -v;
    out[lin] = v;
    ids[lin * 5 + 0] = get_work_dim();
    ids[lin * 5 + 1] = get_global_size(1) * 10 + get_local_size(1);
    ids[lin * 5 + 2] = get_num_groups(0) * 10 + get_num_groups(1);
    ids[lin * 5 + 3] = get_local_size(0) + get_global_size(2) * 100 + get_local_id(2);
    ids[lin * 5 + 4] = get_group_id(2) + get_global_offset(0);
}
