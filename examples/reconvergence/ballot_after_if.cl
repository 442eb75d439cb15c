// A ballot after a divergent if/else: the arms reconverge where the source joins them, so every lane of
// the sub-group votes together. Inside the arms, a reduction counts the lanes of each arm.
kernel void ballot_after_if(global uint *votes, global uint *arm, global const int *in)
{
    size_t i = get_global_id(0);
    int x = in[i];
    int y;
    if (x & 1) {
        y = 3 * x + 1;
        arm[i] = sub_group_reduce_add(1u);
    } else {
        y = x / 2;
        arm[i] = sub_group_reduce_add(1u) + 1000;
    }
    votes[i] = sub_group_ballot(y > 50).x;
}
