// Fuzz convergence-17432, reduced by hand: LLVM -O2 merges the do/while into the while and gives the merged
// loop one latch holding the phis of both loops' carried values (v2); the separation looked through a latch
// only when it held nothing but its branch, so it left the loop merged and the reduction met lanes of both
// loops' iterations (ir, spirv and gen at -O2 agreed with each other, not with -O0).
__kernel void k(__global uint *out, __global const uint *in, __global uint *cnt, __global float *fapprox, uint n)
{
    const uint gid = get_global_id(0);
    uint v2 = 0;
    uint nj1 = 0u;
    uint nl1 = (in[gid] & 1u) + 1u;
    while (nj1 < nl1) {
        do {
            nj1++;
            v2 += sub_group_reduce_add(gid - nj1);
        } while (gid < 2u && nj1 < nl1);
        if (gid < 2u) break;
        v2 += (uint)sub_group_elect();
    }
    out[gid] = v2;
}
