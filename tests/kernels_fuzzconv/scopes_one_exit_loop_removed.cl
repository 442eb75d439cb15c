// A waterfall-like loop with one exit: each lane leaves at its own iteration with a reduction. The loop
// computes nothing else, so LLVM -O2 deletes it (SCEV knows the exit's count, LoopDeletion removes the
// dead loop) even without unrolling or exit predication: the reduction would run once with every lane.
__kernel void k(__global uint *out, __global const uint *in, __global uint *cnt, __global float *fapprox, uint n)
{
    uint gid = get_global_id(0);
    uint v = in[gid];
    uint r = 0;
    for (uint j = 0;; j++) {
        if (j == (v & 7u)) {
            r = sub_group_reduce_add(v);
            break;
        }
    }
    out[gid] = r;
}
