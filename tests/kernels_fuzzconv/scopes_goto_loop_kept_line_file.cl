// scopes_goto_loop_kept.cl with a #line naming another file inside the loop: the loop's code is in two files
// with no order between them, so its range is all the function's code in each (removed_loops._span); LLVM
// keeps the loop, its back edge is found in that range, and the reduction meets the lanes of one pass
__kernel void k(__global uint *out, __global const uint *in, __global uint *cnt, __global float *fapprox, uint n)
{
    uint gid = get_global_id(0);
    uint v = in[gid & 255u];
    uint t = 0u, j = 0u;
again:
    if ((in[(j + gid) & 255u] & 3u) == 0u || j > 20u) {
#line 300 "elsewhere.cl"
        t = sub_group_reduce_add(j + 1u);
        goto out_;
    }
    j++;
    goto again;
out_:
    out[gid] = t + v;
}
