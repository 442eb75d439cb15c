// Seed 004: a ballot in a loop with `continue`, and the nested do/while that LLVM can make of it. One
// lane at a time they do the same thing; together they do not. Iteration j writes ballot 1 to
// first[g * n + j] and ballot 2 to second[g * n + j] (even lanes never reach ballot 2). With two lanes
// and n = 2, the seed's trace:
//
//   continue_loop              nested_loops
//   lane 0    | lane 1         lane 0    | lane 1
//   b1 = 0b11 | b1 = 0b11      b1 = 0b11 | b1 = 0b11
//   skipped   | b2 = 0b10      b1 = 0b01 | skipped
//   b1 = 0b11 | b1 = 0b11      skipped   | b2 = 0b10
//   skipped   | b2 = 0b10      skipped   | b1 = 0b10
//                              skipped   | b2 = 0b10
kernel void continue_loop(global uint *first, global uint *second, int n)
{
    uint lane = get_sub_group_local_id();
    size_t g = get_global_id(0);
    for (int j = 0; j < n; j++) {
        first[g * n + j] = sub_group_ballot(1).x;          // ballot 1
        if (lane % 2 == 0)
            continue;
        second[g * n + j] = sub_group_ballot(1).x;         // ballot 2
    }
}

kernel void nested_loops(global uint *first, global uint *second, int n)
{
    uint lane = get_sub_group_local_id();
    size_t g = get_global_id(0);
    int j = 0;
    while (j < n) {
        do {
            first[g * n + j] = sub_group_ballot(1).x;      // ballot 1
            j++;
        } while (lane % 2 == 0 && j < n);
        if (lane % 2 == 0)
            break;
        second[g * n + j - 1] = sub_group_ballot(1).x;     // ballot 2
    }
}
