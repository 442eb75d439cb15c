// a loop written with goto whose exit LLVM cannot count: -O2 keeps it, and the reduction on its break path meets
// the lanes of one pass, as at -O0 (the goto loop is matched by the span of its code: lowering.frontend.removed_loops)
__kernel void k(__global uint *out, __global const uint *in, __global uint *cnt, __global float *fapprox, uint n)
{
    uint gid = get_global_id(0);
    uint v = in[gid & 255u];
    uint t = 0u, j = 0u;
again:
    if ((in[(j + gid) & 255u] & 3u) == 0u || j > 20u) {
        t = sub_group_reduce_add(j + 1u);
        goto out_;
    }
    j++;
    goto again;
out_:
    out[gid] = t + v;
}
