// The waterfall loop (seed 001): each pass, the lanes whose key equals the first active lane's key take
// the sum of x over exactly themselves and leave; the others go round again. So every lane gets the sum
// over the lanes of its sub-group that share its key. clang puts the reduction, written before the
// `break`, in a block after the loop (it cannot reach the back edge), at -O0 as at -O2: the loop it was
// written in is known only from -g's scopes (README, Reconvergence).
kernel void waterfall(global uint *sum, global const uint *key, global const uint *x)
{
    size_t i = get_global_id(0);
    uint k = key[i];
    uint total = 0;
    for (;;) {
        uint first = sub_group_broadcast_first(k);
        if (first == k) {
            total = sub_group_reduce_add(x[i]);
            break;
        }
    }
    sum[i] = total;
}

// The same loop storing the sum inside the loop, before the break.
kernel void waterfall_store(global uint *sum, global const uint *key, global const uint *x)
{
    size_t i = get_global_id(0);
    uint k = key[i];
    for (;;) {
        if (sub_group_broadcast_first(k) == k) {
            sum[i] = sub_group_reduce_add(x[i]);
            break;
        }
    }
}

// The seed's broken reading, written as source: the loop only finds the lane's turn, and the reduction
// after it runs with every lane. At -O2 its CFG is the waterfall's (the reduction in the loop's exit
// block): only the scopes tell the two apart.
kernel void after_loop(global uint *sum, global const uint *key, global const uint *x)
{
    size_t i = get_global_id(0);
    uint k = key[i];
    for (;;) {
        if (sub_group_broadcast_first(k) == k)
            break;
    }
    sum[i] = sub_group_reduce_add(x[i]);
}
