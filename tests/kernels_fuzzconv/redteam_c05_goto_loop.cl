// a loop made with goto (no loop statement, so no !llvm.loop): the reduction in its 'if' block is per pass at -O0 by the scopes rule; -O1 and above delete the loop, so removed_loops (the span of the goto loop's code) refuses the kernel
__kernel void k(__global uint *out, __global const uint *in, __global uint *cnt, __global float *fapprox, uint n)
{
    uint gid = get_global_id(0);
    uint v = in[gid & 255u];
    uint t = 0u, j = 0u;
again:
    if (j == (v & 7u)) {
        t = sub_group_reduce_add(j + 1u);
        goto out_;
    }
    j++;
    goto again;
out_:
    out[gid] = t;
}
