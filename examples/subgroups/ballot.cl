// RUN: global=96 local=48 bits:uint[96]=zero count:uint[96]=zero packed:int[96]=zero in:int[96]=rand(0,100)
// A ballot and its bit queries, in the spirit of PoCL's ballot test: every lane votes whether its value is
// even; bits gets the ballot's first word, count how many lanes of the sub-group voted yes, and packed the
// even values of each sub-group moved to its front in lane order (stream compaction: a lane's slot is the
// number of yes votes below its get_sub_group_local_id), -1 after them. The last sub-group of a work-group
// whose size is not a multiple of S is partial.
kernel void ballot(global uint *bits, global uint *count, global int *packed, global const int *in)
{
    size_t i = get_global_id(0);
    int x = in[i];
    int even = (x & 1) == 0;
    uint4 votes = sub_group_ballot(even);
    uint yes = sub_group_ballot_bit_count(votes);
    uint below = sub_group_ballot_exclusive_scan(votes);
    size_t first = i - get_sub_group_local_id();
    bits[i] = votes.x;
    count[i] = yes;
    packed[i] = -1;
    sub_group_barrier(CLK_GLOBAL_MEM_FENCE);
    if (even)
        packed[first + below] = x;
    if (sub_group_inverse_ballot(votes) != even)
        packed[i] = -2;                          // never: the lane's own bit is its vote
}
