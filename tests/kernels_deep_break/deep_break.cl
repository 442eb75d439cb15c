// Sub-group operations deeper in a loop's break path than the loop's exit block: the waterfall loop whose
// reduction is under an `if` inside the `if` that breaks, and one whose break path branches twice before
// the ballot and stores inside it. Each lane's operation runs with the lanes that leave in its iteration
// and take the same inner branch (tests/test_deep_break_paths.py computes that with numpy).
kernel void deep_waterfall(global uint *sum, global const uint *key, global const uint *x, global const uint *flag)
{
    size_t i = get_global_id(0);
    uint k = key[i];
    uint total = 1000000u;
    for (;;) {
        uint first = sub_group_broadcast_first(k);
        if (first == k) {
            if (flag[i] != 0u)
                total = sub_group_reduce_add(x[i]);
            break;
        }
    }
    sum[i] = total;
}

kernel void deep_ballot(global uint *out, global const uint *key, global const uint *x, global const uint *flag)
{
    size_t i = get_global_id(0);
    uint k = key[i];
    uint v = 7u;
    for (;;) {
        if (sub_group_broadcast_first(k) == k) {
            if (flag[i] != 0u) {
                if (x[i] > 500u)
                    v = sub_group_ballot(x[i] > 750u).x;
                else
                    v = 3u;
            }
            break;
        }
    }
    out[i] = v + 1u;
}
