// MISMATCH at -O2/-O3/-Os: reduction inside the loop sets a flag, 'if (done) break' after it; not at risk in clang's code (inside the natural loop), threading puts it on the break path, IndVarSimplify predicates the exit and LoopDeletion removes the loop: one reduction over all lanes
__kernel void k(__global uint *out, __global const uint *in, __global uint *cnt, __global float *fapprox, uint n)
{
    uint gid = get_global_id(0);
    uint v = in[gid & 255u];
    uint t = 0u;
    for (uint j = 0u; j < n + 6u; j++) {
        uint done = 0u;
        if (j == (v & 7u)) {
            t = sub_group_reduce_add(j + 1u);
            done = 1u;
        }
        if (done) break;
    }
    out[gid] = t;
}
